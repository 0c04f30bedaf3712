//===- ColumnReductionKernel.cpp - Reductions over non-innermost axes -----===//
//
// ReduceSum over axis 0 of 16384x4096, a channel mean of NCHW...: the
// innermost dimension is kept, so adjacent outputs read adjacent inputs.
// A block owns `columns_per_block` (32) adjacent outputs x `slices` threads;
// thread (slice s, column c) accumulates reduced positions s, s + slices,
// ... of output c (a warp reads 32 consecutive elements per position:
// coalesced); the slices' partials meet in shared memory and every thread
// combines them in slice order, so the reductions are bound to one scalar
// per column; slice 0 emits the epilogue and stores. The accumulation is
// the elemental emitter's own (reduceIdentity/Element/Combine/Finish), the
// same as thread_per_output computes, in another association order.
//
// Column groups are walked with a uniform loop; a column past the end
// computes on the last output (in-bounds loads) and stores nothing, so
// every barrier is reached by the whole block.
//
//===----------------------------------------------------------------------===//
#include "KernelEmitters.h"

#include "bwc/Dialect/BWC/IR/BWCOps.h"
#include "bwc/Transforms/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::bwc;
using namespace mlir::bwc::cuda;

namespace {

Value cmp(OpBuilder &b, Location loc, arith::CmpIPredicate p, Value x,
          Value y) {
  return arith::CmpIOp::create(b, loc, p, x, y);
}

bool sharedType(Type t) {
  return isa<FloatType>(t) ? t.getIntOrFloatBitWidth() >= 16
                           : t.isSignlessInteger(32) || t.isSignlessInteger(64);
}

} // namespace

LogicalResult cuda::emitColumnReductionKernel(OpBuilder &b, KernelContext &k) {
  Location loc = k.kernel.getLoc();
  FailureOr<int64_t> block = k.field("block"),
                     columns = k.field("columns_per_block"),
                     slices = k.field("slices");
  if (failed(block) || failed(columns) || failed(slices))
    return failure();
  if (*columns * *slices != *block || *block > 1024)
    return k.kernel.emitError()
           << "expects a column-reduction block of columns_per_block x "
              "slices threads, at most 1024, but got "
           << k.config;
  if (!fitsColumnReduction(k.kernel))
    return k.kernel.emitError()
           << "expects a column-reduction kernel (reductions keeping the "
              "innermost axis, elementwise epilogue on their result shape) "
              "but got "
           << k.kernel.getFunctionType();
  SmallVector<ReduceOp> reduces;
  k.kernel.walk([&](ReduceOp r) { reduces.push_back(r); });
  auto outType = cast<RankedTensorType>(reduces.front().getType());
  ValueRange results =
      k.kernel.getBody().front().getTerminator()->getOperands();
  int64_t outputs = outType.getNumElements();

  // One shared slab per reduction, [slices][columns] of its accumulator.
  auto space =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  SmallVector<Value> slabs;
  for (ReduceOp r : reduces) {
    Type acc = k.elements.reduceIdentity(b, loc, r).getType();
    if (!sharedType(acc))
      return k.kernel.emitError()
             << "expects a column reduction accumulating in f16/bf16/f32/f64, "
                "i32 or i64 but got "
             << acc;
    slabs.push_back(k.func.addWorkgroupAttribution(
        MemRefType::get({*block}, acc, MemRefLayoutAttrInterface(), space),
        loc));
  }
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value cols = indexConstant(b, loc, *columns);
  Value column = arith::RemUIOp::create(b, loc, tid, cols);
  Value slice = arith::DivUIOp::create(b, loc, tid, cols);
  int64_t groups = (outputs + *columns - 1) / *columns;
  auto groupLoop = blockStrideLoop(b, loc, groups);
  Value wanted = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, groupLoop.getInductionVar(), cols),
      column);
  Value last = indexConstant(b, loc, outputs - 1);
  Value active = cmp(b, loc, arith::CmpIPredicate::ule, wanted, last);
  Value out = arith::MinUIOp::create(b, loc, wanted, last);
  SmallVector<Value> outIndex =
      ElementalEmitter::delinearize(b, loc, out, outType.getShape());

  for (auto [r, slab] : llvm::zip(reduces, slabs)) {
    auto inShape = r.getInput().getType().getShape();
    SmallVector<int64_t> reducedShape;
    int64_t reduced = 1;
    for (int64_t a : r.getAxes()) {
      reducedShape.push_back(inShape[a]);
      reduced *= inShape[a];
    }
    auto strided =
        scf::ForOp::create(b, loc, slice, indexConstant(b, loc, reduced),
                           indexConstant(b, loc, *slices),
                           ValueRange{k.elements.reduceIdentity(b, loc, r)});
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(strided.getBody());
      FailureOr<Value> x = k.elements.reduceElement(
          b, loc, r, outIndex,
          ElementalEmitter::delinearize(b, loc, strided.getInductionVar(),
                                        reducedShape));
      if (failed(x))
        return failure();
      scf::YieldOp::create(
          b, loc,
          k.elements.reduceCombine(b, loc, r,
                                   strided.getRegionIterArgs().front(), *x));
    }
    k.elements.clearCache();
    memref::StoreOp::create(b, loc, strided.getResult(0), slab, tid);
    gpu::BarrierOp::create(b, loc);
    // Every thread combines its column's slices in slice order.
    Value total = memref::LoadOp::create(b, loc, slab, ValueRange{column});
    for (int64_t s = 1; s < *slices; ++s) {
      Value at = arith::AddIOp::create(b, loc, column,
                                       indexConstant(b, loc, s * *columns));
      total = k.elements.reduceCombine(
          b, loc, r, total, memref::LoadOp::create(b, loc, slab, at));
    }
    k.elements.bindValue(r.getResult(),
                         k.elements.reduceFinish(b, loc, r, total));
  }
  // The slabs are read again by the next group's reductions.
  gpu::BarrierOp::create(b, loc);

  Value first =
      cmp(b, loc, arith::CmpIPredicate::eq, slice, indexConstant(b, loc, 0));
  auto store =
      scf::IfOp::create(b, loc, arith::AndIOp::create(b, loc, first, active),
                        /*withElse=*/false);
  b.setInsertionPointToStart(&store.getThenRegion().front());
  for (auto [value, buffer] : llvm::zip(results, k.outputs)) {
    FailureOr<Value> s = k.elements.emitLinear(b, loc, value, out);
    if (failed(s))
      return failure();
    memref::StoreOp::create(b, loc, *s, buffer, out);
  }
  k.elements.clearCache();
  k.elements.clearBindings();
  b.setInsertionPointAfter(groupLoop);
  return success();
}
