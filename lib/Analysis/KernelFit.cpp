//===- KernelFit.cpp - Which emitter may take a kernel --------------------===//
//
// The emitter-fit predicates of bwc/Analysis/KernelFit.h but the column
// reduction's (ColumnReductionFit.cpp): values elementwise from seeds, the
// row reduction's cached input and vector width, shared-memory transposes
// and tiled contractions.
//
//===----------------------------------------------------------------------===//
#include "bwc/Analysis/KernelFit.h"

#include "bwc/Analysis/GemmView.h"
#include "bwc/Dialect/BWC/IR/BWCOps.h"

using namespace mlir;
using namespace mlir::bwc;

namespace {
int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
} // namespace

bool mlir::bwc::elementwiseFrom(func::FuncOp kernel,
                                llvm::SmallPtrSet<Value, 16> derived,
                                ArrayRef<int64_t> shape,
                                bool reductionsAreSeeds) {
  auto shaped = [&](Value v) {
    return cast<ShapedType>(v.getType()).getShape() == shape;
  };
  for (Operation &op : kernel.getBody().front()) {
    bool fromSeed = llvm::any_of(op.getOperands(),
                                 [&](Value v) { return derived.contains(v); });
    if (auto r = dyn_cast<ReduceOp>(op)) {
      if (reductionsAreSeeds && fromSeed)
        return false;
      if (reductionsAreSeeds)
        derived.insert(r.getResult());
      continue;
    }
    if (isa<func::ReturnOp>(op) || !fromSeed)
      continue;
    if (!isa<UnaryOp, CastOp, BinaryOp, SelectOp>(op) ||
        op.getNumResults() != 1 || !shaped(op.getResult(0)))
      return false;
    for (Value v : op.getOperands())
      if (derived.contains(v) && !shaped(v))
        return false;
    derived.insert(op.getResult(0));
  }
  return true;
}

bool mlir::bwc::rowReductionCanCacheInput(func::FuncOp kernel) {
  SmallVector<ReduceOp, 4> reduces = plainReductions(kernel);
  if (reduces.empty())
    return false;
  Value input = reduces.front().getInput();
  // Values computed from the cached input other than through a reduction
  // (whose result the driver binds): all elementwise on the input shape.
  return elementwiseFrom(kernel, {input},
                         cast<ShapedType>(input.getType()).getShape(),
                         /*reductionsAreSeeds=*/false);
}

int64_t mlir::bwc::rowReductionVector(func::FuncOp kernel, int64_t row,
                                      int64_t threadsPerRow) {
  SmallVector<ReduceOp, 4> reduces = plainReductions(kernel);
  if (reduces.empty() || threadsPerRow < 1)
    return 1;
  auto input = cast<ShapedType>(reduces.front().getInput().getType());
  int64_t bytes = std::max<int64_t>(1, input.getElementTypeBitWidth() / 8);
  int64_t share = ceilDiv(row, threadsPerRow);
  for (int64_t v = std::max<int64_t>(1, 16 / bytes); v > 1; v /= 2)
    if (row % v == 0 && v <= share && ceilDiv(row, threadsPerRow * v) * v <= 32)
      return v;
  return 1;
}

SmallVector<TransposeOp, 2> mlir::bwc::tiledTransposes(func::FuncOp kernel) {
  SmallVector<TransposeOp, 2> transposes;
  bool windowed = false;
  kernel.walk([&](Operation *op) {
    if (auto t = dyn_cast<TransposeOp>(op))
      transposes.push_back(t);
    else if (isa<ReduceOp, ArgReduceOp, MatmulOp, ConvOp, PoolOp>(op))
      windowed = true;
  });
  if (transposes.empty() || windowed)
    return {};
  TransposeOp first = transposes.front();
  ArrayRef<int64_t> perm = first.getPerm(), shape = first.getType().getShape();
  int64_t rank = shape.size();
  if (rank < 2 || perm.back() == rank - 1)
    return {};
  int64_t p = llvm::find(perm, rank - 1) - perm.begin();
  if (shape[p] < 16 || shape.back() < 16)
    return {};
  // One padded 32-row tile per transpose (transposeTileColumns), within
  // the 48 KiB a block may use without opting in.
  int64_t sharedBytes = 0;
  llvm::SmallPtrSet<Value, 16> staged;
  for (TransposeOp t : transposes) {
    unsigned bits = t.getType().getElementType().getIntOrFloatBitWidth();
    if (t.getPerm() != perm || t.getType().getShape() != shape || bits < 16 ||
        bits > 64)
      return {};
    sharedBytes += 32 * transposeTileColumns(bits) * int64_t(bits / 8);
    staged.insert(t.getResult());
  }
  if (sharedBytes > 48 * 1024)
    return {};
  if (!elementwiseFrom(kernel, staged, shape, /*reductionsAreSeeds=*/false) ||
      !llvm::all_of(kernel.getResultTypes(), [&](Type r) {
        return cast<ShapedType>(r).getShape() == shape;
      }))
    return {};
  return transposes;
}

Operation *mlir::bwc::tiledContraction(func::FuncOp kernel, bool convs) {
  SmallVector<Operation *> found;
  bool other = false;
  kernel.walk([&](Operation *op) {
    if (isa<MatmulOp, ConvOp>(op))
      found.push_back(op);
    else if (isa<ReduceOp, ArgReduceOp, PoolOp>(op))
      other = true;
  });
  if (found.size() != 1 || other)
    return nullptr;
  Operation *op = found.front();
  if (!convs && isa<ConvOp>(op))
    return nullptr;
  std::optional<GemmView> view = GemmView::get(op);
  if (!view)
    return nullptr;
  auto a = cast<RankedTensorType>(view->aTensor().getType());
  auto b = cast<RankedTensorType>(view->bTensor().getType());
  auto result = cast<RankedTensorType>(view->result().getType());
  Type e = result.getElementType();
  auto acc = op->getAttrOfType<TypeAttr>("acc_type");
  if (!(e.isF16() || e.isBF16() || e.isF32()) || a.getElementType() != e ||
      b.getElementType() != e || (acc && !acc.getValue().isF32()))
    return nullptr;
  if (Value bias = view->bias())
    if (!isa<FloatType>(cast<ShapedType>(bias.getType()).getElementType()))
      return nullptr;
  ArrayRef<int64_t> shape = result.getShape();
  if (!elementwiseFrom(kernel, {view->result()}, shape,
                       /*reductionsAreSeeds=*/false) ||
      !llvm::all_of(kernel.getResultTypes(), [&](Type r) {
        return cast<ShapedType>(r).getShape() == shape;
      }))
    return nullptr;
  return op;
}

int64_t mlir::bwc::transposeTileColumns(unsigned bits) {
  return bits >= 32 ? 33 : 32 + 32 / std::max(1u, bits);
}

ConvOp mlir::bwc::loopGroupedConv(func::FuncOp kernel, int64_t vector) {
  SmallVector<Operation *> windowed;
  kernel.walk([&](Operation *op) {
    if (isa<ReduceOp, ArgReduceOp, MatmulOp, ConvOp, PoolOp>(op))
      windowed.push_back(op);
  });
  auto conv = windowed.size() == 1 ? dyn_cast<ConvOp>(windowed.front())
                                   : ConvOp();
  if (!conv || vector < 1 ||
      !isa<FloatType>(conv.getType().getElementType()))
    return ConvOp();
  ArrayRef<int64_t> shape = conv.getType().getShape();
  if (shape.empty() || shape.back() % vector ||
      !elementwiseFrom(kernel, {conv.getResult()}, shape,
                       /*reductionsAreSeeds=*/false) ||
      !llvm::all_of(kernel.getResultTypes(), [&](Type r) {
        return cast<ShapedType>(r).getShape() == shape;
      }))
    return ConvOp();
  return conv;
}

bool mlir::bwc::keepsLinearOrder(Operation *op) {
  if (isa<ReshapeOp, CastOp, UnaryOp>(op))
    return true;
  auto t = dyn_cast<TransposeOp>(op);
  if (!t)
    return false;
  // The input dims of extent > 1 keep their relative order.
  ArrayRef<int64_t> in = t.getInput().getType().getShape();
  int64_t last = -1;
  for (int64_t d : t.getPerm()) {
    if (in[d] == 1)
      continue;
    if (d < last)
      return false;
    last = d;
  }
  return true;
}

SmallVector<Operation *> mlir::bwc::relayoutChain(Value v,
                                                  ValueRange rowSources) {
  SmallVector<Operation *> chain;
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<ReshapeOp, TransposeOp, CastOp, UnaryOp>(def) ||
        llvm::is_contained(rowSources, v))
      break;
    chain.push_back(def);
    v = def->getOperand(0);
  }
  std::reverse(chain.begin(), chain.end());
  return chain;
}

int64_t mlir::bwc::relaidIndex(ArrayRef<Operation *> chain, int64_t linear) {
  for (Operation *op : chain) {
    auto t = dyn_cast<TransposeOp>(op);
    if (!t)
      continue;
    ArrayRef<int64_t> in = t.getInput().getType().getShape();
    ArrayRef<int64_t> out = t.getType().getShape();
    SmallVector<int64_t> idx(in.size());
    for (int64_t d = in.size() - 1, rest = linear; d >= 0; --d) {
      idx[d] = rest % std::max<int64_t>(1, in[d]);
      rest /= std::max<int64_t>(1, in[d]);
    }
    linear = 0;
    for (size_t d = 0; d < out.size(); ++d)
      linear = linear * out[d] + idx[t.getPerm()[d]];
  }
  return linear;
}

bool mlir::bwc::reductionValuesStayInRow(func::FuncOp kernel,
                                         ArrayRef<ReduceOp> reduces,
                                         bool anyRelayout) {
  if (reduces.empty())
    return false;
  ReduceOp first = reduces.front();
  ArrayRef<int64_t> input = first.getInput().getType().getShape();
  SmallVector<int64_t> kept(input.begin(), input.end());
  for (int64_t a : first.getAxes())
    kept[a] = 1;
  // Every value downstream of a reduction holds one value per row (the
  // keepdims shape, or the reduce's own result) or a whole row, and is
  // only combined with values of its own row.
  // Reshapes and transposes (relaid values) may follow as the kernel's
  // last steps: one that keeps the linear order reads the same row at the
  // same linear index; with `anyRelayout` the driver maps the index
  // (relayoutChain). Nothing but another such op or the return may read a
  // relaid value.
  // The keepdims shape; when every axis is reduced (one row) any
  // one-element shape (a rank-0 result) is that row's value too.
  auto isKept = [&](ArrayRef<int64_t> s) {
    auto count = [](ArrayRef<int64_t> d) {
      int64_t n = 1;
      for (int64_t x : d)
        n *= x;
      return n;
    };
    return s == ArrayRef(kept) || (count(kept) == 1 && count(s) == 1);
  };
  llvm::SmallPtrSet<Value, 16> perRow, relaid;
  auto isRowValue = [&](Value v) {
    return perRow.contains(v) || relaid.contains(v);
  };
  for (Operation &op : kernel.getBody().front()) {
    if (auto r = dyn_cast<ReduceOp>(op)) {
      if (isRowValue(r.getInput()) &&
          r.getInput().getType().getShape() != input)
        return false;
      perRow.insert(r.getResult());
      continue;
    }
    if (isa<func::ReturnOp>(op))
      continue;
    if (!llvm::any_of(op.getOperands(), isRowValue))
      continue;
    if (op.getNumResults() != 1)
      return false;
    // Casts and unary ops keep the index: after a relayout they stay
    // relaid (bf16 programs cast a relaid f32 LayerNorm on the way out).
    bool keepsIndex =
        isa<CastOp, UnaryOp>(op) && relaid.contains(op.getOperand(0));
    if (keepsIndex || (isa<ReshapeOp, TransposeOp>(op) &&
                       (anyRelayout || keepsLinearOrder(&op)))) {
      relaid.insert(op.getResult(0));
      continue;
    }
    if (llvm::any_of(op.getOperands(),
                     [&](Value v) { return relaid.contains(v); }))
      return false;
    auto result = cast<RankedTensorType>(op.getResult(0).getType());
    if (isa<UnaryOp, CastOp>(op)) {
      perRow.insert(op.getResult(0));
      continue;
    }
    if (!isa<BinaryOp, SelectOp, BroadcastOp>(op))
      return false;
    for (Value v : op.getOperands()) {
      if (!isRowValue(v))
        continue;
      ArrayRef<int64_t> s = cast<RankedTensorType>(v.getType()).getShape();
      bool same = s == result.getShape();
      bool keptIntoRow = result.getShape() == input && isKept(s);
      if (!same && !keptIntoRow)
        return false;
    }
    if (result.getShape() != input && !isKept(result.getShape()))
      return false;
    perRow.insert(op.getResult(0));
  }
  return true;
}

int64_t mlir::bwc::contractionTiles(Operation *contraction) {
  std::optional<GemmView> view = GemmView::get(contraction);
  if (!view)
    return 0;
  int64_t tiles = ((view->m + 63) / 64) * ((view->n + 63) / 64);
  for (int64_t d : view->batchShape)
    tiles *= d;
  return tiles;
}

bool mlir::bwc::implicitGemmFills(Operation *contraction, int64_t smCount) {
  return !isa<ConvOp>(contraction) || contractionTiles(contraction) >= smCount;
}
