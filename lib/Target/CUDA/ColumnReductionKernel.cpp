//===- ColumnReductionKernel.cpp - Reductions over non-innermost axes -----===//
//
// ReduceSum over axis 0 of 16384x4096, a channel mean of NCHW, softmax over
// axis 0...: the innermost dimension is kept, so adjacent columns (kept
// positions) read adjacent inputs. A block owns `columns_per_block` (32)
// adjacent columns x `slices` threads; thread (slice s, column c) walks
// reduced positions s, s + slices, ... of column c (a warp reads 32
// consecutive elements per position: coalesced), `unroll` positions per
// step so that many loads are in flight, with one accumulator in position
// order. For each reduction in order, the slices' partials meet in a
// shared slab and every thread combines its column's slices in slice
// order, so the reduction is bound to one scalar per column before the
// next reduction (softmax's sum of exp(x - max)) and the epilogue read it.
// The epilogue writes per-column results from slice 0 and whole-shaped
// results (softmax's output) at every position of the slice, walking the
// input again: one pass over the input per reduction plus one for a
// whole-shaped result (the `passes` of the config). With `cache_column`
// the thread's positions (at most 32, a static count, unrolled, the last
// guarded when `slices` does not divide the reduced extent) of the first
// reduction's input stay in registers: the later reductions and the
// epilogue read them, one pass over DRAM (as row_reduction's cache_row,
// and only where the kernel reads that input at its own index:
// rowReductionCanCacheInput, re-checked here). The accumulation is
// the elemental emitter's own (reduceIdentity/Element/Combine/Finish), the
// same as thread_per_output computes, in another association order.
//
// Column groups are walked with a uniform loop; a column past the end
// computes on the last column (in-bounds loads) and stores nothing, so
// every barrier is reached by the whole block.
//
//===----------------------------------------------------------------------===//
#include "bwc/Conversion/BWCToLinalg/ScalarOps.h"
#include "KernelEmitters.h"

#include "bwc/Dialect/BWC/IR/BWCOps.h"
#include "bwc/Transforms/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/ScopeExit.h"

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

using PositionBody =
    function_ref<FailureOr<SmallVector<Value>>(Value pos, ValueRange acc)>;

/// The column-reduction driver for one kernel.
class ColumnReduction {
public:
  ColumnReduction(OpBuilder &b, KernelContext &k) : b(b), k(k) {}
  LogicalResult emit();

private:
  LogicalResult readConfig();
  /// Runs `body` at the thread's reduced positions slice, slice + slices,
  /// ... in ascending order, threading `init` through: `unroll` positions
  /// per step without guards, then the rest one at a time.
  FailureOr<SmallVector<Value>> forEachPosition(ValueRange init,
                                                PositionBody body);
  /// Cached form: position j = slice + j * slices, guarded by `pos <
  /// reduced` when it may fall past the end (yielding `fallback`), the
  /// cached element bound while `body` runs.
  FailureOr<SmallVector<Value>> atPosition(int64_t j, ValueRange fallback,
                                           ValueRange acc, PositionBody body);
  FailureOr<Value> reduceColumn(ReduceOp r, Value slab, bool first);
  /// Softmax's statistics in one walk: per slice a running max and a sum
  /// of exp(x - max) rescaled by exp(old max - new max) whenever the max
  /// grows, combined over slices in slice order the same way.
  FailureOr<std::pair<Value, Value>> reduceSoftmaxOnline(ReduceOp maxOp,
                                                         ReduceOp sumOp,
                                                         Value maxSlab,
                                                         Value sumSlab);
  LogicalResult epilogue();

  OpBuilder &b;
  KernelContext &k;
  Location loc = k.kernel.getLoc();
  int64_t block = 0, columns = 0, slices = 0, unroll = 1, reduced = 1,
          perThread = 1;
  bool cacheColumn = false;
  /// The cached input (the first reduce's) and the thread's elements of it.
  Value cachedValue;
  SmallVector<Value> cached;
  SmallVector<ReduceOp> reduces;
  SmallVector<int64_t> reducedShape;
  RankedTensorType inType, outType;
  Value tid, column, slice, active, out;
  SmallVector<Value> outIndex;
};

LogicalResult ColumnReduction::readConfig() {
  FailureOr<int64_t> blk = k.field("block"),
                     cols = k.field("columns_per_block"),
                     sl = k.field("slices");
  if (failed(blk) || failed(cols) || failed(sl))
    return failure();
  block = *blk, columns = *cols, slices = *sl;
  if (auto u = k.config.getAs<IntegerAttr>("unroll"))
    unroll = u.getInt();
  if (columns < 1 || slices < 1 || columns * slices != block || block > 1024)
    return k.kernel.emitError()
           << "expects a column-reduction block of columns_per_block x "
              "slices threads, at most 1024, but got "
           << k.config;
  if (unroll < 1 || unroll > 64)
    return k.kernel.emitError()
           << "expects a column-reduction unroll of 1 to 64 but got "
           << unroll;
  if (auto c = k.config.getAs<IntegerAttr>("cache_column"))
    cacheColumn = c.getInt() != 0;
  if (!fitsColumnReduction(k.kernel))
    return k.kernel.emitError()
           << "expects a column-reduction kernel (reductions keeping the "
              "innermost axis, per-column or whole values computed from "
              "them elementwise) but got "
           << k.kernel.getFunctionType();
  return success();
}

FailureOr<SmallVector<Value>>
ColumnReduction::atPosition(int64_t j, ValueRange fallback, ValueRange acc,
                            PositionBody body) {
  Value pos = arith::AddIOp::create(b, loc, slice,
                                    indexConstant(b, loc, j * slices));
  if ((int64_t)cached.size() == perThread)
    k.elements.bindValue(cachedValue, cached[j]);
  llvm::scope_exit done([&] {
    k.elements.unbindValue(cachedValue);
    // Code cached at one position does not dominate the next.
    k.elements.clearCache();
  });
  if ((j + 1) * slices <= reduced)
    return body(pos, acc);
  Value inRange = cmp(b, loc, arith::CmpIPredicate::ult, pos,
                      indexConstant(b, loc, reduced));
  return guarded(b, loc, inRange, fallback, [&] { return body(pos, acc); });
}

FailureOr<SmallVector<Value>>
ColumnReduction::forEachPosition(ValueRange init, PositionBody body) {
  if (cacheColumn) {
    SmallVector<Value> acc(init);
    for (int64_t j = 0; j < perThread; ++j) {
      FailureOr<SmallVector<Value>> next = atPosition(j, acc, acc, body);
      if (failed(next))
        return failure();
      acc = *next;
    }
    return acc;
  }
  // The body at positions first + u * slices (u < count) of one loop step;
  // the emitter's cached code does not dominate the next loop.
  auto run = [&](scf::ForOp loop, bool offsetBySlice,
                 int64_t count) -> FailureOr<SmallVector<Value>> {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value first = loop.getInductionVar();
    if (offsetBySlice)
      first = arith::AddIOp::create(b, loc, first, slice);
    SmallVector<Value> acc(loop.getRegionIterArgs());
    for (int64_t u = 0; u < count; ++u) {
      Value pos = u ? arith::AddIOp::create(
                          b, loc, first, indexConstant(b, loc, u * slices))
                    : first;
      FailureOr<SmallVector<Value>> next = body(pos, acc);
      if (failed(next))
        return failure();
      acc = *next;
    }
    if (!init.empty())
      scf::YieldOp::create(b, loc, acc);
    k.elements.clearCache();
    return SmallVector<Value>(loop.getResults());
  };
  SmallVector<Value> acc(init);
  int64_t step = slices * unroll, full = unroll > 1 ? reduced / step * step : 0;
  if (full > 0) {
    // Steps of slices x unroll positions, every one below `full`.
    auto main = scf::ForOp::create(b, loc, indexConstant(b, loc, 0),
                                   indexConstant(b, loc, full),
                                   indexConstant(b, loc, step), acc);
    FailureOr<SmallVector<Value>> r = run(main, /*offsetBySlice=*/true, unroll);
    if (failed(r))
      return failure();
    acc = *r;
  }
  Value start =
      arith::AddIOp::create(b, loc, indexConstant(b, loc, full), slice);
  auto rest = scf::ForOp::create(b, loc, start, indexConstant(b, loc, reduced),
                                 indexConstant(b, loc, slices), acc);
  return run(rest, /*offsetBySlice=*/false, 1);
}

FailureOr<std::pair<Value, Value>>
ColumnReduction::reduceSoftmaxOnline(ReduceOp maxOp, ReduceOp sumOp,
                                     Value maxSlab, Value sumSlab) {
  Value one = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(1.0f));
  // exp(m - mNew): the factor the sum so far takes when the max grows from
  // m to mNew; 1 when it does not (also for two -inf, where the difference
  // is NaN).
  auto rescale = [&](Value m, Value mNew) -> Value {
    Value same =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, m, mNew);
    Value e = math::ExpOp::create(b, loc, arith::SubFOp::create(b, loc, m, mNew));
    return arith::SelectOp::create(b, loc, same, one, e);
  };
  auto term = [&](Value x, Value m) -> Value {
    return math::ExpOp::create(b, loc, arith::SubFOp::create(b, loc, x, m));
  };
  FailureOr<SmallVector<Value>> partial = forEachPosition(
      ValueRange{k.elements.reduceIdentity(b, loc, maxOp),
                 k.elements.reduceIdentity(b, loc, sumOp)},
      [&](Value pos, ValueRange acc) -> FailureOr<SmallVector<Value>> {
        FailureOr<Value> x = k.elements.reduceElement(
            b, loc, maxOp, outIndex,
            ElementalEmitter::delinearize(b, loc, pos, reducedShape));
        if (failed(x))
          return failure();
        Value m = k.elements.reduceCombine(b, loc, maxOp, acc[0], *x);
        Value s = arith::AddFOp::create(
            b, loc, arith::MulFOp::create(b, loc, acc[1], rescale(acc[0], m)),
            term(*x, m));
        return SmallVector<Value>{m, s};
      });
  if (failed(partial))
    return failure();
  memref::StoreOp::create(b, loc, (*partial)[0], maxSlab, tid);
  memref::StoreOp::create(b, loc, (*partial)[1], sumSlab, tid);
  gpu::BarrierOp::create(b, loc);
  // Every thread combines its column's slices in slice order.
  Value m = memref::LoadOp::create(b, loc, maxSlab, ValueRange{column});
  Value s = memref::LoadOp::create(b, loc, sumSlab, ValueRange{column});
  for (int64_t i = 1; i < slices; ++i) {
    Value at = arith::AddIOp::create(b, loc, column,
                                     indexConstant(b, loc, i * columns));
    Value mi = memref::LoadOp::create(b, loc, maxSlab, at);
    Value si = memref::LoadOp::create(b, loc, sumSlab, at);
    Value mNew = k.elements.reduceCombine(b, loc, maxOp, m, mi);
    s = arith::AddFOp::create(
        b, loc, arith::MulFOp::create(b, loc, s, rescale(m, mNew)),
        arith::MulFOp::create(b, loc, si, rescale(mi, mNew)));
    m = mNew;
  }
  return std::make_pair(k.elements.reduceFinish(b, loc, maxOp, m),
                        k.elements.reduceFinish(b, loc, sumOp, s));
}

FailureOr<Value> ColumnReduction::reduceColumn(ReduceOp r, Value slab,
                                               bool first) {
  FailureOr<SmallVector<Value>> partial;
  if (cacheColumn && first) {
    // Loads the thread's elements of the input into `cached` (0 past the
    // end) while accumulating them.
    Type elementType = lowering::signlessType(
        cast<ShapedType>(cachedValue.getType()).getElementType());
    Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(elementType));
    SmallVector<Value> acc = {k.elements.reduceIdentity(b, loc, r)};
    for (int64_t j = 0; j < perThread; ++j) {
      FailureOr<SmallVector<Value>> next = atPosition(
          j, {acc.front(), zero}, acc,
          [&](Value pos, ValueRange a) -> FailureOr<SmallVector<Value>> {
            SmallVector<Value> reducedIndex =
                ElementalEmitter::delinearize(b, loc, pos, reducedShape);
            FailureOr<Value> x = k.elements.emit(
                b, loc, cachedValue,
                k.elements.reduceInputIndex(b, loc, r, outIndex,
                                            reducedIndex));
            if (failed(x))
              return failure();
            k.elements.bindValue(cachedValue, *x);
            FailureOr<Value> e =
                k.elements.reduceElement(b, loc, r, outIndex, reducedIndex);
            if (failed(e))
              return failure();
            return SmallVector<Value>{
                k.elements.reduceCombine(b, loc, r, a.front(), *e), *x};
          });
      if (failed(next))
        return failure();
      acc = {(*next)[0]};
      cached.push_back((*next)[1]);
    }
    partial = acc;
  } else {
    partial = forEachPosition(
      ValueRange{k.elements.reduceIdentity(b, loc, r)},
      [&](Value pos, ValueRange acc) -> FailureOr<SmallVector<Value>> {
        FailureOr<Value> x = k.elements.reduceElement(
            b, loc, r, outIndex,
            ElementalEmitter::delinearize(b, loc, pos, reducedShape));
        if (failed(x))
          return failure();
        return SmallVector<Value>{
            k.elements.reduceCombine(b, loc, r, acc.front(), *x)};
      });
  }
  if (failed(partial))
    return failure();
  memref::StoreOp::create(b, loc, partial->front(), slab, tid);
  gpu::BarrierOp::create(b, loc);
  // Every thread combines its column's slices in slice order.
  Value total = memref::LoadOp::create(b, loc, slab, ValueRange{column});
  for (int64_t s = 1; s < slices; ++s) {
    Value at = arith::AddIOp::create(b, loc, column,
                                     indexConstant(b, loc, s * columns));
    total = k.elements.reduceCombine(b, loc, r, total,
                                     memref::LoadOp::create(b, loc, slab, at));
  }
  return k.elements.reduceFinish(b, loc, r, total);
}

LogicalResult ColumnReduction::epilogue() {
  // Nothing from a column past the end; whole-shaped results at every
  // position of the slice, per-column results from slice 0.
  auto activeIf = scf::IfOp::create(b, loc, active, /*withElse=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&activeIf.getThenRegion().front());
  ValueRange results =
      k.kernel.getBody().front().getTerminator()->getOperands();
  SmallVector<std::pair<Value, Value>> whole, perColumn;
  for (auto [value, buffer] : llvm::zip(results, k.outputs))
    (cast<ShapedType>(value.getType()).getShape() == inType.getShape()
         ? whole
         : perColumn)
        .push_back({value, buffer});
  if (!whole.empty()) {
    FailureOr<SmallVector<Value>> done = forEachPosition(
        ValueRange{},
        [&](Value pos, ValueRange) -> FailureOr<SmallVector<Value>> {
          Value linear = ElementalEmitter::linearize(
              b, loc,
              k.elements.reduceInputIndex(
                  b, loc, reduces.front(), outIndex,
                  ElementalEmitter::delinearize(b, loc, pos, reducedShape)),
              inType.getShape());
          for (auto [value, buffer] : whole) {
            FailureOr<Value> s = k.elements.emitLinear(b, loc, value, linear);
            if (failed(s))
              return failure();
            memref::StoreOp::create(b, loc, *s, buffer, linear);
          }
          return SmallVector<Value>();
        });
    if (failed(done))
      return failure();
  }
  if (perColumn.empty())
    return success();
  auto first = scf::IfOp::create(
      b, loc, cmp(b, loc, arith::CmpIPredicate::eq, slice,
                  indexConstant(b, loc, 0)),
      /*withElse=*/false);
  b.setInsertionPointToStart(&first.getThenRegion().front());
  for (auto [value, buffer] : perColumn) {
    FailureOr<Value> s = k.elements.emitLinear(b, loc, value, out);
    if (failed(s))
      return failure();
    memref::StoreOp::create(b, loc, *s, buffer, out);
  }
  k.elements.clearCache();
  return success();
}

LogicalResult ColumnReduction::emit() {
  if (failed(readConfig()))
    return failure();
  k.kernel.walk([&](ReduceOp r) { reduces.push_back(r); });
  inType = cast<RankedTensorType>(reduces.front().getInput().getType());
  outType = cast<RankedTensorType>(reduces.front().getType());
  for (int64_t a : reduces.front().getAxes())
    reducedShape.push_back(inType.getDimSize(a));
  int64_t outputs = outType.getNumElements();
  reduced = inType.getNumElements() / std::max<int64_t>(1, outputs);
  perThread = (reduced + slices - 1) / slices;
  if (cacheColumn && (perThread > 32 || !rowReductionCanCacheInput(k.kernel)))
    return k.kernel.emitError()
           << "expects cache_column only where a thread holds at most 32 "
              "positions and the reduced input is read at its own index only "
              "but got "
           << perThread << " positions per thread in " << k.config;
  cachedValue = reduces.front().getInput();

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
        MemRefType::get({block}, acc, MemRefLayoutAttrInterface(), space),
        loc));
  }
  tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value cols = indexConstant(b, loc, columns);
  column = arith::RemUIOp::create(b, loc, tid, cols);
  slice = arith::DivUIOp::create(b, loc, tid, cols);
  int64_t groups = (outputs + columns - 1) / columns;
  auto groupLoop = blockStrideLoop(b, loc, groups);
  Value wanted = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, groupLoop.getInductionVar(), cols),
      column);
  Value last = indexConstant(b, loc, outputs - 1);
  active = cmp(b, loc, arith::CmpIPredicate::ule, wanted, last);
  out = arith::MinUIOp::create(b, loc, wanted, last);
  outIndex = ElementalEmitter::delinearize(b, loc, out, outType.getShape());

  // In order: a later reduction (softmax's sum) reads the earlier ones
  // bound to their column's scalar.
  // Softmax's max and sum on f32, not cached: both in one walk (online).
  if (!cacheColumn && onlineSoftmaxReductions(k.kernel)) {
    FailureOr<std::pair<Value, Value>> stats =
        reduceSoftmaxOnline(reduces[0], reduces[1], slabs[0], slabs[1]);
    if (failed(stats))
      return failure();
    k.elements.bindValue(reduces[0].getResult(), stats->first);
    k.elements.bindValue(reduces[1].getResult(), stats->second);
  } else {
    for (auto [r, slab] : llvm::zip(reduces, slabs)) {
      FailureOr<Value> total = reduceColumn(r, slab, r == reduces.front());
      if (failed(total))
        return failure();
      k.elements.bindValue(r.getResult(), *total);
    }
  }
  // The slabs are written again by the next group's reductions.
  gpu::BarrierOp::create(b, loc);
  if (failed(epilogue()))
    return failure();
  k.elements.clearCache();
  k.elements.clearBindings();
  b.setInsertionPointAfter(groupLoop);
  return success();
}

} // namespace

LogicalResult cuda::emitColumnReductionKernel(OpBuilder &b, KernelContext &k) {
  return ColumnReduction(b, k).emit();
}
