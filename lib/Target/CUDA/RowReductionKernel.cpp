//===- RowReductionKernel.cpp - One block per row, shuffles ---------------===//
//
// Softmax, LayerNorm, RMSNorm, ReduceMean...: bwc-configure-kernels chose
// this driver only where every reduction of the kernel reduces the same
// trailing axes and every value downstream of a reduction belongs to one
// row. A block owns a row (grid-stride over rows): each thread accumulates
// a strided slice in f32, warps combine with xor-butterfly shuffles, warps
// combine through shared memory, and every thread reads the row's result
// back, so the reduction is bound to one scalar for the epilogue. Later
// reductions (softmax's sum after its max) see the earlier ones bound.
// Inputs are re-read by the epilogue; the row is small enough to be in L1/L2
// by then (a register-resident single pass is a later refinement).
//
//===----------------------------------------------------------------------===//
#include "KernelEmitters.h"

#include "bwc/Dialect/BWC/IR/BWCOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::bwc;
using namespace mlir::bwc::cuda;

namespace {

constexpr int64_t kWarp = 32;

Value identity(OpBuilder &b, Location loc, ReduceKind kind) {
  float v = 0.0f;
  switch (kind) {
  case ReduceKind::sum:
  case ReduceKind::mean:
    v = 0.0f;
    break;
  case ReduceKind::prod:
    v = 1.0f;
    break;
  case ReduceKind::max:
    v = -std::numeric_limits<float>::infinity();
    break;
  case ReduceKind::min:
    v = std::numeric_limits<float>::infinity();
    break;
  }
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
}

Value combine(OpBuilder &b, Location loc, ReduceKind kind, Value x, Value y) {
  switch (kind) {
  case ReduceKind::sum:
  case ReduceKind::mean:
    return arith::AddFOp::create(b, loc, x, y);
  case ReduceKind::prod:
    return arith::MulFOp::create(b, loc, x, y);
  case ReduceKind::max:
    return arith::MaximumFOp::create(b, loc, x, y);
  case ReduceKind::min:
    return arith::MinimumFOp::create(b, loc, x, y);
  }
  llvm_unreachable("unknown reduce kind");
}

/// Combines every thread's `partial` into the block's total, returned to
/// every thread. `partials` holds one f32 per warp in shared memory.
Value blockReduce(OpBuilder &b, Location loc, ReduceKind kind, Value partial,
                  Value lane, Value warp, int64_t warps, Value partials) {
  for (int32_t offset = kWarp / 2; offset > 0; offset /= 2) {
    auto shuffle = gpu::ShuffleOp::create(b, loc, partial, offset, kWarp,
                                          gpu::ShuffleMode::XOR);
    partial = combine(b, loc, kind, partial, shuffle.getShuffleResult());
  }
  if (warps == 1)
    return partial;
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane,
                                      indexConstant(b, loc, 0));
  auto write = scf::IfOp::create(b, loc, first, /*withElse=*/false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&write.getThenRegion().front());
    memref::StoreOp::create(b, loc, partial, partials, warp);
  }
  gpu::BarrierOp::create(b, loc);
  // Every thread combines the warps' partials in the same order, so all
  // hold the same total (a broadcast through shared memory).
  Value total = memref::LoadOp::create(b, loc, partials,
                                       ValueRange{indexConstant(b, loc, 0)});
  for (int64_t w = 1; w < warps; ++w)
    total = combine(b, loc, kind, total,
                    memref::LoadOp::create(
                        b, loc, partials, ValueRange{indexConstant(b, loc, w)}));
  // The next reduction reuses `partials`.
  gpu::BarrierOp::create(b, loc);
  return total;
}

Value toF32(OpBuilder &b, Location loc, Value v) {
  if (v.getType().isF32())
    return v;
  return arith::ExtFOp::create(b, loc, b.getF32Type(), v);
}

Value fromF32(OpBuilder &b, Location loc, Value v, Type t) {
  if (t.isF32())
    return v;
  return arith::TruncFOp::create(b, loc, t, v);
}

} // namespace

LogicalResult cuda::emitRowReductionKernel(OpBuilder &b, KernelContext &k) {
  Location loc = k.kernel.getLoc();
  FailureOr<int64_t> block = k.field("block"), rowSize = k.field("row"),
                     rows = k.field("rows");
  if (failed(block) || failed(rowSize) || failed(rows))
    return failure();
  if (*block % kWarp || *block > 1024)
    return k.kernel.emitError()
           << "expects a row-reduction block of whole warps, at most 1024 "
              "threads, but got "
           << *block;
  SmallVector<ReduceOp> reduces;
  k.kernel.walk([&](ReduceOp r) { reduces.push_back(r); });
  if (reduces.empty())
    return k.kernel.emitError() << "expects a reduction in a row-reduction "
                                   "kernel but got none";
  auto inType = cast<RankedTensorType>(reduces.front().getInput().getType());
  SmallVector<int64_t> reducedShape;
  for (int64_t a : reduces.front().getAxes())
    reducedShape.push_back(inType.getDimSize(a));
  if (inType.getNumElements() != *rows * *rowSize)
    return k.kernel.emitError()
           << "expects " << *rows << " rows of " << *rowSize
           << " elements but got an input of " << inType.getNumElements();

  int64_t warps = *block / kWarp;
  auto space = gpu::AddressSpaceAttr::get(b.getContext(),
                                          gpu::AddressSpace::Workgroup);
  Value partials = k.func.addWorkgroupAttribution(
      MemRefType::get({kWarp}, b.getF32Type(), MemRefLayoutAttrInterface(),
                      space),
      loc);
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value lane = arith::RemUIOp::create(b, loc, tid, indexConstant(b, loc, kWarp));
  Value warp = arith::DivUIOp::create(b, loc, tid, indexConstant(b, loc, kWarp));
  Value bid = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value grid = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
  Value rowLen = indexConstant(b, loc, *rowSize);
  Value step = indexConstant(b, loc, *block);

  auto rowLoop =
      scf::ForOp::create(b, loc, bid, indexConstant(b, loc, *rows), grid);
  b.setInsertionPointToStart(rowLoop.getBody());
  Value row = rowLoop.getInductionVar();

  for (ReduceOp r : reduces) {
    auto outShape = cast<ShapedType>(r.getType()).getShape();
    SmallVector<Value> outIndex =
        ElementalEmitter::delinearize(b, loc, row, outShape);
    auto strided = scf::ForOp::create(b, loc, tid, rowLen, step,
                                      ValueRange{identity(b, loc, r.getKind())});
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(strided.getBody());
      SmallVector<Value> reduced = ElementalEmitter::delinearize(
          b, loc, strided.getInductionVar(), reducedShape);
      SmallVector<Value> inIndex =
          k.elements.reduceInputIndex(b, loc, r, outIndex, reduced);
      FailureOr<Value> x = k.elements.emit(b, loc, r.getInput(), inIndex);
      if (failed(x))
        return failure();
      Value acc = combine(b, loc, r.getKind(),
                          strided.getRegionIterArgs().front(),
                          toF32(b, loc, *x));
      scf::YieldOp::create(b, loc, acc);
    }
    k.elements.clearCache();
    Value total = blockReduce(b, loc, r.getKind(), strided.getResult(0), lane,
                              warp, warps, partials);
    if (r.getKind() == ReduceKind::mean)
      total = arith::DivFOp::create(
          b, loc, total,
          arith::ConstantOp::create(b, loc,
                                    b.getF32FloatAttr(float(*rowSize))));
    k.elements.bindValue(r.getResult(),
                         fromF32(b, loc, total, r.getType().getElementType()));
  }

  // Epilogue: whole-row outputs strided over the block, one-per-row outputs
  // by thread 0.
  ValueRange results =
      k.kernel.getBody().front().getTerminator()->getOperands();
  for (auto [value, buffer] : llvm::zip(results, k.outputs)) {
    OpBuilder::InsertionGuard guard(b);
    auto type = cast<ShapedType>(value.getType());
    Value linear;
    if (type.getShape() == inType.getShape()) {
      auto loop = scf::ForOp::create(b, loc, tid, rowLen, step);
      b.setInsertionPointToStart(loop.getBody());
      linear = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, row, rowLen),
          loop.getInductionVar());
    } else if (type.getNumElements() == *rows) {
      Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                          tid, indexConstant(b, loc, 0));
      auto once = scf::IfOp::create(b, loc, first, /*withElse=*/false);
      b.setInsertionPointToStart(&once.getThenRegion().front());
      linear = row;
    } else {
      return k.kernel.emitError()
             << "expects row-reduction outputs of one value per row or a "
                "whole row but got "
             << type;
    }
    FailureOr<Value> s = k.elements.emitLinear(b, loc, value, linear);
    if (failed(s))
      return failure();
    memref::StoreOp::create(b, loc, *s, buffer, linear);
    k.elements.clearCache();
  }
  k.elements.clearBindings();
  b.setInsertionPointAfter(rowLoop);
  return success();
}
