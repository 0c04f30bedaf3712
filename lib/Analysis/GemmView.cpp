//===- GemmView.cpp - A matmul or convolution as a batch of GEMMs ---------===//
#include "bwc/Analysis/GemmView.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;
using namespace mlir::bwc;

std::optional<GemmView> GemmView::get(Operation *op) {
  GemmView v;
  v.op = op;
  if (auto mm = dyn_cast_or_null<MatmulOp>(op)) {
    auto lhs = cast<ShapedType>(mm.getLhs().getType());
    auto rhs = cast<ShapedType>(mm.getRhs().getType());
    ArrayRef<int64_t> out = mm.getType().getShape();
    if (lhs.getRank() < 2 || rhs.getRank() < 2 || out.size() < 2)
      return std::nullopt;
    v.kind = Kind::Matmul;
    v.lhsShape.assign(lhs.getShape().begin(), lhs.getShape().end());
    v.rhsShape.assign(rhs.getShape().begin(), rhs.getShape().end());
    v.batchShape.assign(out.begin(), out.end() - 2);
    v.m = out[out.size() - 2];
    v.n = out.back();
    v.k = lhs.getShape().back();
    return v;
  }
  auto conv = dyn_cast_or_null<ConvOp>(op);
  if (!conv || conv.getTransposed() || conv.getGroups() != 1)
    return std::nullopt;
  SmallVector<int64_t> in = conv.getLogicalInputShape(),
                       w = conv.getLogicalFilterShape(),
                       out = conv.getLogicalResultShape();
  int64_t spatial = in.size() - 2;
  v.kind = conv.getChannelsLast() ? Kind::ConvChannelsLast
                                  : Kind::ConvChannelsFirst;
  v.inShape = in;
  v.inSpatial.assign(in.begin() + 2, in.end());
  v.outSpatial.assign(out.begin() + 2, out.end());
  v.kernelSpatial.assign(w.begin() + 2, w.end());
  v.strides.assign(conv.getStrides().begin(), conv.getStrides().end());
  v.dilations.assign(conv.getDilations().begin(), conv.getDilations().end());
  v.padsLo.assign(conv.getPads().begin(), conv.getPads().begin() + spatial);
  v.dataPerm = conv.getDataPerm();
  v.filterPerm = conv.getFilterPerm();
  v.channels = in[1];
  for (int64_t t : v.kernelSpatial)
    v.taps *= t;
  int64_t positions = 1;
  for (int64_t o : v.outSpatial)
    positions *= o;
  v.batchShape = {in[0]};
  v.k = v.channels * v.taps;
  v.m = v.kind == Kind::ConvChannelsFirst ? w[0] : positions;
  v.n = v.kind == Kind::ConvChannelsFirst ? positions : w[0];
  return v;
}

Value GemmView::aTensor() const {
  if (auto mm = dyn_cast<MatmulOp>(op))
    return mm.getLhs();
  auto conv = cast<ConvOp>(op);
  return kind == Kind::ConvChannelsFirst ? conv.getFilter() : conv.getInput();
}

Value GemmView::bTensor() const {
  if (auto mm = dyn_cast<MatmulOp>(op))
    return mm.getRhs();
  auto conv = cast<ConvOp>(op);
  return kind == Kind::ConvChannelsFirst ? conv.getInput() : conv.getFilter();
}

Value GemmView::bias() const {
  auto conv = dyn_cast<ConvOp>(op);
  return conv ? conv.getBias() : Value();
}

BlockArgument GemmView::chunkSource(Value t) {
  while (auto reshape = t.getDefiningOp<ReshapeOp>())
    t = reshape.getInput();
  auto arg = dyn_cast<BlockArgument>(t);
  if (!arg || !isa<func::FuncOp>(arg.getOwner()->getParentOp()))
    return nullptr;
  return arg;
}

bool GemmView::copiesChunks(bool isA, int64_t chunk) const {
  Value t = isA ? aTensor() : bTensor();
  auto type = dyn_cast<RankedTensorType>(t.getType());
  if (!type || !type.hasStaticShape() || chunk < 1 ||
      !type.getElementType().isIntOrFloat() ||
      type.getElementType().getIntOrFloatBitWidth() * chunk != 128 ||
      !chunkSource(t))
    return false;
  int64_t rows = isA ? m : k, cols = isA ? k : n;
  if (rows < 1 || cols < 1 || cols % chunk)
    return false;
  // The check walks every chunk of a row; past kMaxCheckedChunks the
  // operand is refused (plain loads, still correct) rather than checked
  // for seconds: real models stay far below (ppocr_rec's widest K is
  // 2,880), a fuzzed Gemm with N = 2^31 took minutes here.
  if (cols / chunk > kMaxCheckedChunks)
    return false;
  ArrayRef<int64_t> shape = type.getShape();
  auto linear = [&](ArrayRef<int64_t> idx) {
    int64_t l = 0;
    for (auto [i, s] : llvm::zip(idx, shape))
      l = l * s + i;
    return l;
  };
  IntArith ar;
  int64_t batches = 1;
  for (int64_t s : batchShape)
    batches *= s;
  SmallVector<int64_t> batchIds = {0};
  if (batches > 1)
    batchIds.push_back(batches - 1);
  SmallVector<int64_t> rowIds = {0};
  for (int64_t r : {int64_t(1), rows - 1})
    if (r > rowIds.back())
      rowIds.push_back(r);
  for (int64_t bId : batchIds) {
    SmallVector<int64_t> batch(batchShape.size());
    for (int64_t d = int64_t(batchShape.size()) - 1, x = bId; d >= 0; --d) {
      batch[d] = x % batchShape[d];
      x /= batchShape[d];
    }
    for (int64_t r : rowIds)
      for (int64_t c = 0; c < cols; c += chunk) {
        auto at = [&](int64_t j) {
          return isA ? a(ar, batch, r, c + j) : b(ar, batch, r, c + j);
        };
        GemmAccess<int64_t> first = at(0);
        int64_t base = linear(first.index);
        bool valid = !first.valid || *first.valid;
        if (valid && base % chunk)
          return false;
        for (int64_t j = 1; j < chunk; ++j) {
          GemmAccess<int64_t> e = at(j);
          bool v = !e.valid || *e.valid;
          if (v != valid || (valid && linear(e.index) != base + j))
            return false;
        }
      }
  }
  return true;
}
