//===- ColumnReductionFit.cpp - Which kernels the column driver takes ----===//
//
// The column-reduction driver (lib/Target/CUDA/ColumnReductionKernel.cpp)
// binds each reduction to one scalar per column (kept position) of its
// block, so it may run a kernel only where every value computed from a
// reduction is asked for at its own column: per-column values (the
// result shape, or a shape that numpy-broadcasts into the input at the
// kept position) and whole values on the input shape, combined only
// elementwise. Reductions may read earlier ones (softmax over axis 0:
// max, then sum(exp(x - max)), then the normalized output at every
// reduced position). bwc-configure-kernels and bwc-tile share the launch
// shape chosen here, and the row and column checks share plainReductions.
//
//===----------------------------------------------------------------------===//
#include "bwc/Analysis/KernelFit.h"

#include "bwc/Dialect/BWC/IR/BWCOps.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::bwc;

namespace {

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// The shapes of a column-reduction kernel: the reduce input, the reduce
/// result and `kept` (the input with the reduced axes set to 1).
struct ColumnShapes {
  ArrayRef<int64_t> input, result;
  SmallVector<int64_t> kept;

  /// Numpy-broadcasts into the input at the column's kept position (a
  /// non-keepdims result of reducing a middle axis does not: [4,16]
  /// against [4,4,16] is read at another column).
  bool intoColumn(ArrayRef<int64_t> s) const {
    if (s.size() > input.size())
      return false;
    SmallVector<int64_t> padded(input.size() - s.size(), 1);
    padded.append(s.begin(), s.end());
    return ArrayRef<int64_t>(padded) == ArrayRef<int64_t>(kept);
  }
  /// One value per column: the reduce result's shape or intoColumn.
  bool perColumn(ArrayRef<int64_t> s) const {
    return s == result || intoColumn(s);
  }
  bool whole(ArrayRef<int64_t> s) const { return s == input; }
};

} // namespace

bool mlir::bwc::onlineSoftmaxReductions(func::FuncOp kernel) {
  SmallVector<ReduceOp, 4> reduces = plainReductions(kernel);
  if (reduces.size() != 2 || reduces[0].getKind() != ReduceKind::max ||
      reduces[1].getKind() != ReduceKind::sum ||
      reduces[0].getAxes() != reduces[1].getAxes())
    return false;
  Value x = reduces[0].getInput();
  auto isF32 = [](Value v) {
    return cast<ShapedType>(v.getType()).getElementType().isF32();
  };
  auto exp = reduces[1].getInput().getDefiningOp<UnaryOp>();
  auto sub = exp ? exp.getInput().getDefiningOp<BinaryOp>() : BinaryOp();
  if (!exp || exp.getFn() != UnaryFn::exp || !sub ||
      sub.getFn() != BinaryFn::sub || sub.getLhs() != x)
    return false;
  Value max = sub.getRhs();
  if (auto b = max.getDefiningOp<BroadcastOp>())
    max = b.getInput();
  return max == reduces[0].getResult() && isF32(x) &&
         isF32(reduces[0].getResult()) && isF32(reduces[1].getResult()) &&
         isF32(exp.getResult());
}

SmallVector<ReduceOp, 4> mlir::bwc::plainReductions(func::FuncOp kernel) {
  SmallVector<ReduceOp, 4> reduces;
  bool other = false;
  kernel.walk([&](Operation *op) {
    if (auto r = dyn_cast<ReduceOp>(op))
      reduces.push_back(r);
    else if (isa<ArgReduceOp, MatmulOp, ConvOp, PoolOp>(op))
      other = true;
  });
  if (other)
    reduces.clear();
  return reduces;
}

namespace {
/// Static shared memory a block may use (sm_90 without opt-in).
constexpr int64_t kSharedBytes = 48 * 1024;

/// Shared bytes per thread of the block: one slab per reduction, holding
/// its accumulator (f32 for f16/bf16/f32, f64 for f64).
int64_t slabBytesPerThread(ArrayRef<ReduceOp> reduces) {
  int64_t bytes = 0;
  for (ReduceOp r : reduces)
    bytes += std::max<int64_t>(
        4, r.getInput().getType().getElementTypeBitWidth() / 8);
  return bytes;
}
} // namespace

bool mlir::bwc::fitsColumnReduction(func::FuncOp kernel) {
  SmallVector<ReduceOp, 4> reduces = plainReductions(kernel);
  if (reduces.empty())
    return false;
  // Even one slice of 32 columns must hold every reduction's slab.
  if (32 * slabBytesPerThread(reduces) > kSharedBytes)
    return false;
  ReduceOp first = reduces.front();
  auto inType = first.getInput().getType();
  int64_t rank = inType.getRank();
  if (rank == 0 || first.getAxes().empty() ||
      llvm::is_contained(first.getAxes(), rank - 1))
    return false;
  for (ReduceOp r : reduces) {
    Type e = r.getInput().getType().getElementType();
    if (r.getInput().getType() != inType || r.getAxes() != first.getAxes() ||
        r.getType() != first.getType() ||
        !(e.isF16() || e.isBF16() || e.isF32()))
      return false;
  }
  ColumnShapes shapes{inType.getShape(), first.getType().getShape(), {}};
  shapes.kept.assign(shapes.input.begin(), shapes.input.end());
  for (int64_t a : first.getAxes())
    shapes.kept[a] = 1;

  // Values computed from a reduction are bound per column by the driver:
  // each is per-column or whole, and a per-column operand only meets
  // values of its own column (same shape, or broadcast into the input).
  llvm::SmallPtrSet<Value, 16> derived;
  auto shapeOf = [](Value v) {
    return cast<ShapedType>(v.getType()).getShape();
  };
  for (Operation &op : kernel.getBody().front()) {
    if (auto r = dyn_cast<ReduceOp>(op)) {
      derived.insert(r.getResult()); // its input has the input shape
      continue;
    }
    if (isa<func::ReturnOp>(op) ||
        !llvm::any_of(op.getOperands(),
                      [&](Value v) { return derived.contains(v); }))
      continue;
    if (!isa<UnaryOp, CastOp, BinaryOp, SelectOp, BroadcastOp>(op) ||
        op.getNumResults() != 1)
      return false;
    ArrayRef<int64_t> result = shapeOf(op.getResult(0));
    bool wholeResult = shapes.whole(result);
    if (!wholeResult && !shapes.perColumn(result))
      return false;
    for (Value v : op.getOperands()) {
      if (!derived.contains(v))
        continue;
      ArrayRef<int64_t> s = shapeOf(v);
      if (s != result &&
          !(shapes.intoColumn(s) && (wholeResult || shapes.intoColumn(result))))
        return false;
    }
    derived.insert(op.getResult(0));
  }
  return llvm::all_of(kernel.getResultTypes(), [&](Type t) {
    ArrayRef<int64_t> s = cast<ShapedType>(t).getShape();
    return shapes.whole(s) || shapes.perColumn(s);
  });
}

ColumnReductionLaunch mlir::bwc::columnReductionLaunch(func::FuncOp kernel,
                                                       int64_t smCount,
                                                       int64_t maxThreads) {
  SmallVector<ReduceOp, 4> reduces = plainReductions(kernel);
  ColumnReductionLaunch l;
  if (reduces.empty())
    return l;
  auto inType = reduces.front().getInput().getType();
  l.columns = reduces.front().getType().getNumElements();
  l.reduced = inType.getNumElements() / std::max<int64_t>(1, l.columns);
  int64_t groups = ceilDiv(l.columns, l.columnsPerBlock);
  // Enough threads to keep every SM's loads in flight (half of the 2048 an
  // SM keeps resident), at least 8 slices (256 threads) when there are as
  // many positions, at most 32 (1024) and never more than the positions.
  int64_t wanted = ceilDiv(smCount * 1024, groups * l.columnsPerBlock);
  l.slices = std::clamp<int64_t>(
      llvm::PowerOf2Ceil(std::max<int64_t>(wanted, 8)), 1,
      std::min<int64_t>(32, maxThreads / l.columnsPerBlock));
  l.slices = std::min<int64_t>(
      l.slices, llvm::PowerOf2Ceil(std::max<int64_t>(l.reduced, 1)));
  // Every reduction has its own [block] shared slab: at most 48 KiB.
  int64_t fit =
      kSharedBytes /
      (l.columnsPerBlock * std::max<int64_t>(1, slabBytesPerThread(reduces)));
  l.slices = std::min<int64_t>(
      l.slices, int64_t(llvm::bit_floor(uint64_t(std::max<int64_t>(fit, 1)))));
  l.block = l.columnsPerBlock * l.slices;
  l.grid = std::clamp<int64_t>(groups, 1, smCount * (2048 / l.block));
  l.perThread = ceilDiv(l.reduced, l.slices);
  // Independent loads per thread in flight (one accumulator: the order of
  // the sum is unchanged).
  l.unroll = std::min<int64_t>(
      8, int64_t(llvm::bit_floor(uint64_t(std::max<int64_t>(l.perThread, 1)))));
  l.passes = reduces.size() - (onlineSoftmaxReductions(kernel) ? 1 : 0);
  if (llvm::any_of(kernel.getResultTypes(), [&](Type t) {
        return cast<ShapedType>(t).getShape() == inType.getShape();
      }))
    ++l.passes; // the epilogue reads the input again at every position
  // The thread's positions of the input in registers (at most 32, as
  // cache_row): the later walks read them instead of DRAM. Only where the
  // first reduction reads a kernel argument, the only one of its size (so
  // every walk reads that tensor alone), and reads it at its own index.
  Value input = reduces.front().getInput();
  bool onlyInput =
      isa<BlockArgument>(input) &&
      llvm::count_if(kernel.getArgumentTypes(), [&](Type t) {
        return cast<ShapedType>(t).getNumElements() == inType.getNumElements();
      }) == 1;
  l.cache = l.passes > 1 && l.perThread <= 32 && onlyInput &&
            rowReductionCanCacheInput(kernel);
  if (l.cache) {
    l.passes = 1;
    l.unroll = l.perThread; // the cached walks are unrolled
  }
  return l;
}
