//===- RowReductionKernel.cpp - Rows over warps and blocks, shuffles ------===//
//
// Softmax, LayerNorm, RMSNorm, ReduceMean...: bwc-configure-kernels chose
// this driver only where every reduction of the kernel reduces the same
// trailing axes and every value downstream of a reduction belongs to one
// row. A block holds `rows_per_block` rows of `threads_per_row` threads
// each (a warp per row for short rows: shuffles only, no shared memory);
// each thread accumulates a strided slice in f32, warps combine with
// xor-butterfly shuffles, the warps of a row through shared memory, and
// every thread of the row gets the result, so the reduction is bound to
// one scalar for the epilogue. Later reductions (softmax's sum after its
// max) see the earlier ones bound.
//
// With `cache_row` the thread's elements of the first reduction's input
// (at most 32, a static count, unrolled) stay in registers: the later
// reductions and the epilogue read them instead of DRAM, a single pass.
// Only that value is cached, and only where the kernel requests it at no
// other index (rowReductionCanCacheInput); other inputs (gamma, beta, a
// residual) are loaded as usual.
//
// The block walks groups of rows with a uniform loop; a thread whose row
// is past the end computes on the last row (in-bounds loads) and stores
// nothing, so every barrier and shuffle is reached by the whole block.
//
//===----------------------------------------------------------------------===//
#include "KernelEmitters.h"
#include "bwc/Conversion/BWCToLinalg/ScalarOps.h"

#include "bwc/Dialect/BWC/IR/BWCOps.h"
#include "bwc/Transforms/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/ScopeExit.h"

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

Value cmp(OpBuilder &b, Location loc, arith::CmpIPredicate p, Value x,
          Value y) {
  return arith::CmpIOp::create(b, loc, p, x, y);
}

/// Where a thread works: its row (clamped into range), whether it stores,
/// its position in the row's thread group, and the row's shared slots.
struct RowThread {
  Value tid, inRow, lane, warpInRow, rowInBlock;
  Value row, active;
};

/// The row-reduction driver for one kernel.
class RowReduction {
public:
  RowReduction(OpBuilder &b, KernelContext &k) : b(b), k(k) {}
  LogicalResult emit();

private:
  LogicalResult readConfig();
  Value blockReduce(ReduceKind kind, Value partial);
  /// Element `pos` of the row of reduce `r`, as f32.
  FailureOr<Value> reduceElement(ReduceOp r, Value pos);
  /// Thread position j of the row in the unrolled (cached) form: groups of
  /// `vector` consecutive positions, group g of the thread at
  /// (g * threadsPerRow + inRow) * vector (vector 1: inRow + j *
  /// threadsPerRow).
  Value position(int64_t j) {
    Value first = vector == 1
                      ? t.inRow
                      : arith::MulIOp::create(b, loc, t.inRow,
                                              indexConstant(b, loc, vector));
    return arith::AddIOp::create(
        b, loc, first,
        indexConstant(b, loc,
                      j / vector * threadsPerRow * vector + j % vector));
  }
  /// Whether some thread's position j may fall past the row.
  bool mayPassRow(int64_t j) const {
    return j / vector * threadsPerRow * vector + (threadsPerRow - 1) * vector +
               j % vector >=
           rowSize;
  }
  /// Runs `body` for group g (positions g .. g + vector - 1), under
  /// `if (position(g) < row)` when the group may fall past the row (a
  /// group is wholly inside or outside: `vector` divides the row); yields
  /// `fallback` there.
  FailureOr<SmallVector<Value>>
  inGroup(int64_t g, ValueRange fallback,
          function_ref<FailureOr<SmallVector<Value>>()> body);
  /// `fn` at position j, with the thread's cached element j bound.
  FailureOr<Value> atPosition(int64_t j,
                              function_ref<FailureOr<Value>(Value)> fn);
  /// The linear index in `chain`'s result of its source's element
  /// `linear` (relaidIndex, in IR).
  Value relaidLinear(ArrayRef<Operation *> chain, Value linear);
  FailureOr<Value> reduceRow(ReduceOp r, bool first);
  LogicalResult epilogue();

  OpBuilder &b;
  KernelContext &k;
  Location loc = k.kernel.getLoc();
  int64_t block = 0, rowSize = 0, rows = 0, rowsPerBlock = 1, threadsPerRow = 0,
          perThread = 0, vector = 1;
  bool cacheRow = false;
  SmallVector<int64_t> reducedShape;
  RankedTensorType inType;
  Value partials, rowLen, rowStart;
  RowThread t;
  /// The cached input (first reduce's) and the thread's elements of it.
  Value cachedValue;
  SmallVector<Value> cached;
};

LogicalResult RowReduction::readConfig() {
  FailureOr<int64_t> blk = k.field("block"), rs = k.field("row"),
                     rc = k.field("rows");
  if (failed(blk) || failed(rs) || failed(rc))
    return failure();
  block = *blk, rowSize = *rs, rows = *rc;
  if (auto r = k.config.getAs<IntegerAttr>("rows_per_block"))
    rowsPerBlock = r.getInt();
  threadsPerRow = rowsPerBlock > 0 ? block / rowsPerBlock : 0;
  if (auto r = k.config.getAs<IntegerAttr>("threads_per_row"))
    threadsPerRow = r.getInt();
  if (block > 1024 || rowsPerBlock < 1 || threadsPerRow < kWarp ||
      threadsPerRow % kWarp || rowsPerBlock * threadsPerRow != block)
    return k.kernel.emitError()
           << "expects a row-reduction block of rows_per_block x "
              "threads_per_row threads, whole warps per row, at most 1024, "
              "but got "
           << k.config;
  if (auto c = k.config.getAs<IntegerAttr>("cache_row"))
    cacheRow = c.getInt() != 0;
  if (auto v = k.config.getAs<IntegerAttr>("vector"))
    vector = v.getInt();
  if (vector < 1 || !llvm::isPowerOf2_64(vector) || rowSize % vector ||
      (vector > 1 && !cacheRow))
    return k.kernel.emitError()
           << "expects a row-reduction vector of a power of two dividing the "
              "row, above 1 only with cache_row, but got "
           << k.config;
  // The thread's positions: whole groups of `vector`.
  int64_t groupWidth = threadsPerRow * vector;
  perThread = (rowSize + groupWidth - 1) / groupWidth * vector;
  if (cacheRow && (perThread > 32 || !rowReductionCanCacheInput(k.kernel)))
    return k.kernel.emitError()
           << "expects cache_row only where a thread holds at most 32 "
              "elements and the reduced input is read at its own index only "
              "but got "
           << perThread << " elements per thread in " << k.config;
  return success();
}

Value RowReduction::blockReduce(ReduceKind kind, Value partial) {
  for (int32_t offset = kWarp / 2; offset > 0; offset /= 2) {
    auto shuffle = gpu::ShuffleOp::create(b, loc, partial, offset, kWarp,
                                          gpu::ShuffleMode::XOR);
    partial = combine(b, loc, kind, partial, shuffle.getShuffleResult());
  }
  int64_t warps = threadsPerRow / kWarp;
  if (warps == 1)
    return partial; // a warp per row: shuffles only
  Value base =
      arith::MulIOp::create(b, loc, t.rowInBlock, indexConstant(b, loc, warps));
  auto write = scf::IfOp::create(
      b, loc,
      cmp(b, loc, arith::CmpIPredicate::eq, t.lane, indexConstant(b, loc, 0)),
      /*withElse=*/false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&write.getThenRegion().front());
    memref::StoreOp::create(
        b, loc, partial, partials,
        ValueRange{arith::AddIOp::create(b, loc, base, t.warpInRow)});
  }
  gpu::BarrierOp::create(b, loc);
  // Every thread of the row combines its warps' partials in the same
  // order, so all hold the same total (a broadcast through shared memory).
  Value total = memref::LoadOp::create(b, loc, partials, ValueRange{base});
  for (int64_t w = 1; w < warps; ++w) {
    Value slot = arith::AddIOp::create(b, loc, base, indexConstant(b, loc, w));
    total = combine(b, loc, kind, total,
                    memref::LoadOp::create(b, loc, partials, ValueRange{slot}));
  }
  // The next reduction reuses `partials`.
  gpu::BarrierOp::create(b, loc);
  return total;
}

FailureOr<Value> RowReduction::reduceElement(ReduceOp r, Value pos) {
  auto outShape = cast<ShapedType>(r.getType()).getShape();
  SmallVector<Value> outIndex =
      ElementalEmitter::delinearize(b, loc, t.row, outShape);
  SmallVector<Value> reduced =
      ElementalEmitter::delinearize(b, loc, pos, reducedShape);
  SmallVector<Value> inIndex =
      k.elements.reduceInputIndex(b, loc, r, outIndex, reduced);
  return k.elements.emit(b, loc, r.getInput(), inIndex);
}

FailureOr<SmallVector<Value>>
RowReduction::inGroup(int64_t g, ValueRange fallback,
                      function_ref<FailureOr<SmallVector<Value>>()> body) {
  if (!mayPassRow(g + vector - 1))
    return body();
  Value inRange = cmp(b, loc, arith::CmpIPredicate::ult, position(g), rowLen);
  return guarded(b, loc, inRange, fallback, body);
}

FailureOr<Value>
RowReduction::atPosition(int64_t j, function_ref<FailureOr<Value>(Value)> fn) {
  if (cacheRow && (int64_t)cached.size() == perThread)
    k.elements.bindValue(cachedValue, cached[j]);
  llvm::scope_exit done([&] {
    k.elements.unbindValue(cachedValue);
    // Code cached at one position does not dominate the next.
    k.elements.clearCache();
  });
  return fn(position(j));
}

FailureOr<Value> RowReduction::reduceRow(ReduceOp r, bool first) {
  Value init = identity(b, loc, r.getKind());
  if (!cacheRow) {
    auto strided = scf::ForOp::create(b, loc, t.inRow, rowLen,
                                      indexConstant(b, loc, threadsPerRow),
                                      ValueRange{init});
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(strided.getBody());
    FailureOr<Value> x = reduceElement(r, strided.getInductionVar());
    if (failed(x))
      return failure();
    scf::YieldOp::create(b, loc,
                         combine(b, loc, r.getKind(),
                                 strided.getRegionIterArgs().front(),
                                 toF32(b, loc, *x)));
    k.elements.clearCache();
    return strided.getResult(0);
  }
  // Unrolled: the first reduction loads its input into `cached`, later ones
  // (and the epilogue) read the cache through the binding.
  Value acc = init;
  Type cachedType;
  Value zero;
  if (first) {
    cachedValue = r.getInput();
    cachedType = lowering::signlessType(
        cast<ShapedType>(cachedValue.getType()).getElementType());
    zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(cachedType));
  }
  for (int64_t g = 0; g < perThread; g += vector) {
    SmallVector<Value> fallback = {acc};
    if (first)
      fallback.append(vector, zero);
    FailureOr<SmallVector<Value>> next =
        inGroup(g, fallback, [&]() -> FailureOr<SmallVector<Value>> {
          SmallVector<Value> out = {acc};
          for (int64_t j = g; j < g + vector; ++j) {
            FailureOr<Value> x =
                atPosition(j, [&](Value pos) { return reduceElement(r, pos); });
            if (failed(x))
              return failure();
            out[0] = combine(b, loc, r.getKind(), out[0], toF32(b, loc, *x));
            if (first)
              out.push_back(*x);
          }
          return out;
        });
    if (failed(next))
      return failure();
    acc = (*next)[0];
    if (first)
      cached.append(next->begin() + 1, next->end());
  }
  return acc;
}

LogicalResult RowReduction::epilogue() {
  // Whole-row outputs over the row's threads, one-per-row outputs by the
  // row's first thread; nothing from a thread past the last row.
  auto activeIf = scf::IfOp::create(b, loc, t.active, /*withElse=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&activeIf.getThenRegion().front());
  ValueRange results =
      k.kernel.getBody().front().getTerminator()->getOperands();
  // `at` at each of the thread's positions of the row (linear input
  // index), or once per row by its thread 0 (the row index).
  auto overRow = [&](function_ref<LogicalResult(Value)> at) {
    OpBuilder::InsertionGuard g(b);
    auto loop = scf::ForOp::create(b, loc, t.inRow, rowLen,
                                   indexConstant(b, loc, threadsPerRow));
    b.setInsertionPointToStart(loop.getBody());
    return at(arith::AddIOp::create(b, loc, rowStart, loop.getInductionVar()));
  };
  auto onceInRow = [&](function_ref<LogicalResult(Value)> at) {
    OpBuilder::InsertionGuard g(b);
    auto once = scf::IfOp::create(b, loc,
                                  cmp(b, loc, arith::CmpIPredicate::eq, t.inRow,
                                      indexConstant(b, loc, 0)),
                                  /*withElse=*/false);
    b.setInsertionPointToStart(&once.getThenRegion().front());
    return at(t.row);
  };
  for (auto [value, buffer] : llvm::zip(results, k.outputs)) {
    OpBuilder::InsertionGuard outputGuard(b);
    auto type = cast<ShapedType>(value.getType());
    // A result a transpose relays (relayoutChain; reductionValuesStayInRow
    // allows reshapes, transposes and then casts as the last steps) is
    // stored where the chain moves each of the row's own positions of its
    // source (the chain keeps the element count, so the per-row and
    // whole-row cases below are the same); the result is computed at that
    // index through the chain: the row's own element, bound reductions and
    // all.
    SmallVector<Value> sources;
    k.kernel.walk([&](ReduceOp r) { sources.push_back(r.getInput()); });
    SmallVector<Operation *> chain = relayoutChain(value, sources);
    bool moves = llvm::any_of(
        chain, [](Operation *op) { return !keepsLinearOrder(op); });
    auto store = [&](Value linear) -> LogicalResult {
      Value at = moves ? relaidLinear(chain, linear) : linear;
      FailureOr<Value> s = k.elements.emitLinear(b, loc, value, at);
      if (failed(s))
        return failure();
      memref::StoreOp::create(b, loc, *s, buffer, at);
      return success();
    };
    if (!moves && type.getShape() == inType.getShape() && cacheRow) {
      for (int64_t g = 0; g < perThread; g += vector) {
        // The group's values, then one aligned vector store (the loads of
        // other inputs, gamma or a residual, are then consecutive too,
        // with no store between them).
        FailureOr<SmallVector<Value>> done =
            inGroup(g, {}, [&]() -> FailureOr<SmallVector<Value>> {
              SmallVector<Value> values;
              for (int64_t j = g; j < g + vector; ++j) {
                FailureOr<Value> v = atPosition(j, [&](Value pos) {
                  return k.elements.emitLinear(
                      b, loc, value,
                      arith::AddIOp::create(b, loc, rowStart, pos));
                });
                if (failed(v))
                  return failure();
                values.push_back(*v);
              }
              Value first =
                  arith::AddIOp::create(b, loc, rowStart, position(g));
              if (vector == 1) {
                memref::StoreOp::create(b, loc, values.front(), buffer, first);
                return SmallVector<Value>();
              }
              Type elt = values.front().getType();
              Value vec = vector::FromElementsOp::create(
                  b, loc, VectorType::get({vector}, elt), values);
              auto st = vector::StoreOp::create(b, loc, vec, buffer,
                                                ValueRange{first});
              // Groups start at multiples of `vector` in 16-byte aligned
              // buffers (docs/targets/cuda.md, "Kernel ABI").
              st->setAttr(
                  "alignment",
                  b.getI64IntegerAttr(std::min<int64_t>(
                      16, vector * std::max<int64_t>(
                                       1, elt.getIntOrFloatBitWidth() / 8))));
              return SmallVector<Value>();
            });
        if (failed(done))
          return failure();
      }
    } else if (type.getNumElements() == inType.getNumElements()) {
      // Whole-row (possibly relaid: the same linear order, see
      // reductionValuesStayInRow): stored by linear index.
      if (failed(overRow(store)))
        return failure();
    } else if (type.getNumElements() == rows) {
      if (failed(onceInRow(store)))
        return failure();
    } else {
      return k.kernel.emitError()
             << "expects row-reduction outputs of one value per row or a "
                "whole row but got "
             << type;
    }
    k.elements.clearCache();
  }
  return success();
}

Value RowReduction::relaidLinear(ArrayRef<Operation *> chain, Value linear) {
  for (Operation *op : chain) {
    auto tr = dyn_cast<TransposeOp>(op);
    if (!tr)
      continue; // a reshape keeps the linear index
    SmallVector<Value> in = ElementalEmitter::delinearize(
        b, loc, linear, tr.getInput().getType().getShape());
    SmallVector<Value> out;
    for (int64_t d : tr.getPerm())
      out.push_back(in[d]);
    linear = ElementalEmitter::linearize(b, loc, out, tr.getType().getShape());
  }
  return linear;
}

LogicalResult RowReduction::emit() {
  if (failed(readConfig()))
    return failure();
  SmallVector<ReduceOp> reduces;
  k.kernel.walk([&](ReduceOp r) { reduces.push_back(r); });
  if (reduces.empty())
    return k.kernel.emitError() << "expects a reduction in a row-reduction "
                                   "kernel but got none";
  inType = cast<RankedTensorType>(reduces.front().getInput().getType());
  for (int64_t a : reduces.front().getAxes())
    reducedShape.push_back(inType.getDimSize(a));
  if (inType.getNumElements() != rows * rowSize)
    return k.kernel.emitError()
           << "expects " << rows << " rows of " << rowSize
           << " elements but got an input of " << inType.getNumElements();

  if (threadsPerRow > kWarp) {
    auto space = gpu::AddressSpaceAttr::get(b.getContext(),
                                            gpu::AddressSpace::Workgroup);
    partials = k.func.addWorkgroupAttribution(
        MemRefType::get({kWarp}, b.getF32Type(), MemRefLayoutAttrInterface(),
                        space),
        loc);
  }
  t.tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value tpr = indexConstant(b, loc, threadsPerRow);
  t.inRow = arith::RemUIOp::create(b, loc, t.tid, tpr);
  t.rowInBlock = arith::DivUIOp::create(b, loc, t.tid, tpr);
  Value warp = indexConstant(b, loc, kWarp);
  t.lane = arith::RemUIOp::create(b, loc, t.tid, warp);
  t.warpInRow = arith::DivUIOp::create(b, loc, t.inRow, warp);
  rowLen = indexConstant(b, loc, rowSize);
  int64_t groups = (rows + rowsPerBlock - 1) / rowsPerBlock;

  // Uniform over the block: every thread runs every group and barrier.
  auto groupLoop = blockStrideLoop(b, loc, groups);
  Value wanted = arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, groupLoop.getInductionVar(),
                            indexConstant(b, loc, rowsPerBlock)),
      t.rowInBlock);
  Value lastRow = indexConstant(b, loc, rows - 1);
  t.active = cmp(b, loc, arith::CmpIPredicate::ule, wanted, lastRow);
  t.row = arith::MinUIOp::create(b, loc, wanted, lastRow);
  rowStart = arith::MulIOp::create(b, loc, t.row, rowLen);

  for (auto [i, r] : llvm::enumerate(reduces)) {
    FailureOr<Value> partial = reduceRow(r, i == 0);
    if (failed(partial))
      return failure();
    Value total = blockReduce(r.getKind(), *partial);
    if (r.getKind() == ReduceKind::mean)
      total = arith::DivFOp::create(
          b, loc, total,
          arith::ConstantOp::create(b, loc, b.getF32FloatAttr(float(rowSize))));
    k.elements.bindValue(r.getResult(),
                         fromF32(b, loc, total, r.getType().getElementType()));
  }
  if (failed(epilogue()))
    return failure();
  k.elements.clearBindings();
  k.elements.clearCache();
  b.setInsertionPointAfter(groupLoop);
  return success();
}

} // namespace

LogicalResult cuda::emitRowReductionKernel(OpBuilder &b, KernelContext &k) {
  return RowReduction(b, k).emit();
}
