//===- IndexTracer.cpp - Which input elements an output element reads -----===//
#include "bwc/Analysis/IndexTracer.h"

#include "bwc/Dialect/BWC/IR/BWCOps.h"
#include "bwc/Dialect/BWC/Utils/ShapeUtils.h"
#include "llvm/ADT/Hashing.h"

using namespace mlir;
using namespace mlir::bwc;

int64_t mlir::bwc::linearize(ArrayRef<int64_t> idx, ArrayRef<int64_t> shape) {
  int64_t linear = 0;
  for (auto [i, s] : llvm::zip(idx, shape))
    linear = linear * s + i;
  return linear;
}

Index mlir::bwc::delinearize(int64_t linear, ArrayRef<int64_t> shape) {
  Index idx(shape.size(), 0);
  for (int64_t d = (int64_t)shape.size() - 1; d >= 0; --d) {
    int64_t s = std::max<int64_t>(1, shape[d]);
    idx[d] = linear % s;
    linear /= s;
  }
  return idx;
}

namespace {

ArrayRef<int64_t> shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

/// Numpy broadcasting: the element of `operand` that result element `idx`
/// reads.
Index broadcastIndex(ArrayRef<int64_t> idx, ArrayRef<int64_t> operand) {
  Index in(operand.size(), 0);
  int64_t offset = (int64_t)idx.size() - (int64_t)operand.size();
  for (int64_t d = 0; d < (int64_t)operand.size(); ++d)
    in[d] = operand[d] == 1 ? 0 : idx[d + offset];
  return in;
}

bool inBounds(ArrayRef<int64_t> idx, ArrayRef<int64_t> shape) {
  for (auto [i, s] : llvm::zip(idx, shape))
    if (i < 0 || i >= s)
      return false;
  return true;
}

} // namespace

void IndexTracer::trace(Value v, ArrayRef<int64_t> idx, ReadFn read) {
  seen.clear();
  reader = &read;
  left = budget;
  context = 0;
  weight = 1;
  branched = false;
  visit(v, idx);
  reader = nullptr;
}

SmallVector<int64_t> IndexTracer::positions(Operation *op, int64_t count,
                                            double &each) {
  SmallVector<int64_t> p;
  auto it = reducedPositions.find(op);
  if (it != reducedPositions.end()) {
    for (int64_t x : it->second)
      if (x < count)
        p.push_back(x);
  } else {
    for (int64_t i = 0; i < std::min(count, windowIterations); ++i)
      p.push_back(i);
  }
  auto w = reducedWeights.find(op);
  each = w != reducedWeights.end() ? w->second
         : p.empty()               ? 1
                                   : double(count) / double(p.size());
  return p;
}

void IndexTracer::visitIn(Operation *op, int64_t position, double each,
                          Value v, ArrayRef<int64_t> idx) {
  uint64_t savedContext = context;
  double savedWeight = weight;
  context = llvm::hash_combine(context, op, position);
  weight *= each;
  visit(v, idx);
  context = savedContext;
  weight = savedWeight;
}

void IndexTracer::visit(Value v, ArrayRef<int64_t> idx) {
  ArrayRef<int64_t> shape = shapeOf(v);
  if (!inBounds(idx, shape) || left <= 0)
    return;
  int64_t linear = linearize(idx, shape);
  if (!seen.insert({v, {linear, context}}).second)
    return;
  --left;
  if (auto arg = dyn_cast<BlockArgument>(v))
    return (*reader)(TracedRead{
        arg.getArgNumber(), linear,
        uint64_t(llvm::hash_combine(context, arg.getArgNumber())), weight,
        branched});
  Operation *op = v.getDefiningOp();
  if (!bound.contains(op))
    visitOp(op, cast<OpResult>(v).getResultNumber(), idx);
}

void IndexTracer::visitOp(Operation *op, unsigned resultNo,
                          ArrayRef<int64_t> idx) {
  if (isa<ConstantOp>(op))
    return;
  if (isa<UnaryOp, CastOp, BinaryOp, SelectOp, BroadcastOp>(op)) {
    for (Value in : op->getOperands())
      visit(in, broadcastIndex(idx, shapeOf(in)));
    return;
  }
  if (auto t = dyn_cast<TransposeOp>(op)) {
    Index in(idx.size());
    for (auto [d, p] : llvm::enumerate(t.getPerm()))
      in[p] = idx[d];
    return visit(t.getInput(), in);
  }
  if (auto r = dyn_cast<ReshapeOp>(op))
    return visit(r.getInput(),
                 delinearize(linearize(idx, shapeOf(r.getResult())),
                             shapeOf(r.getInput())));
  if (auto s = dyn_cast<SliceOp>(op)) {
    Index in(idx.size());
    for (size_t d = 0; d < idx.size(); ++d)
      in[d] = s.getStarts()[d] + idx[d] * s.getSteps()[d];
    return visit(s.getInput(), in);
  }
  if (auto c = dyn_cast<ConcatOp>(op)) {
    Index in(idx.begin(), idx.end());
    int64_t axis = c.getAxis();
    bool saved = branched;
    branched |= c.getInputs().size() > 1;
    for (Value v : c.getInputs()) {
      int64_t size = shapeOf(v)[axis];
      if (in[axis] < size) {
        visit(v, in);
        break;
      }
      in[axis] -= size;
    }
    branched = saved;
    return;
  }
  if (auto p = dyn_cast<PadOp>(op)) {
    ArrayRef<int64_t> inShape = shapeOf(p.getInput());
    Index in(idx.size());
    for (size_t d = 0; d < idx.size(); ++d) {
      in[d] = idx[d] - p.getPads()[d];
      if (p.getMode() != PadMode::constant) // edge or reflect: in range
        in[d] = std::clamp<int64_t>(in[d], 0, inShape[d] - 1);
    }
    bool saved = branched;
    branched |= p.getMode() == PadMode::constant &&
                llvm::any_of(p.getPads(), [](int64_t x) { return x != 0; });
    visit(p.getInput(), in);
    branched = saved;
    return;
  }
  if (auto g = dyn_cast<GatherOp>(op)) {
    ArrayRef<int64_t> data = shapeOf(g.getData()), ind = shapeOf(g.getIndices());
    int64_t axis = g.getAxis(), n = ind.size();
    Index at(idx.begin() + axis, idx.begin() + axis + n);
    visit(g.getIndices(), at);
    Index in(idx.begin(), idx.begin() + axis);
    in.push_back(linearize(at, ind) % std::max<int64_t>(1, data[axis]));
    in.append(idx.begin() + axis + n, idx.end());
    return visit(g.getData(), in);
  }
  if (auto r = dyn_cast<ResizeOp>(op)) {
    ArrayRef<int64_t> inShape = shapeOf(r.getInput()),
                      outShape = shapeOf(r.getResult());
    Index in(idx.size());
    for (size_t d = 0; d < idx.size(); ++d)
      in[d] = idx[d] * inShape[d] / std::max<int64_t>(1, outShape[d]);
    visit(r.getInput(), in);
    if (r.getMode() != ResizeMode::nearest) // the next tap of every dim
      for (size_t d = 0; d < idx.size(); ++d) {
        Index next = in;
        next[d] = std::min(in[d] + 1, inShape[d] - 1);
        visit(r.getInput(), next);
      }
    return;
  }
  if (isa<ReduceOp, ArgReduceOp>(op)) {
    Value input = op->getOperand(0);
    ArrayRef<int64_t> inShape = shapeOf(input);
    SmallVector<int64_t> axes;
    bool keepdims;
    if (auto r = dyn_cast<ReduceOp>(op)) {
      axes.assign(r.getAxes().begin(), r.getAxes().end());
      keepdims = r.getKeepdims();
    } else {
      auto a = cast<ArgReduceOp>(op);
      axes = {static_cast<int64_t>(a.getAxis())};
      keepdims = a.getKeepdims();
    }
    SmallVector<int64_t> reducedShape, kept;
    Index in(inShape.size(), 0);
    for (int64_t d = 0, r = 0; d < (int64_t)inShape.size(); ++d) {
      if (llvm::is_contained(axes, d)) {
        reducedShape.push_back(inShape[d]);
        if (keepdims)
          ++r;
        continue;
      }
      kept.push_back(d);
      in[d] = idx[r++];
    }
    double each;
    for (auto [n, pos] :
         llvm::enumerate(positions(op, numElements(reducedShape), each))) {
      Index red = delinearize(pos, reducedShape);
      for (auto [a, i] : llvm::zip(axes, red))
        in[a] = i;
      visitIn(op, n, each, input, in);
    }
    return;
  }
  if (auto m = dyn_cast<MatmulOp>(op)) {
    ArrayRef<int64_t> ls = shapeOf(m.getLhs()), rs = shapeOf(m.getRhs());
    int64_t rank = idx.size(), k = ls.back();
    Index l = broadcastIndex(idx, ls), r = broadcastIndex(idx, rs);
    l[ls.size() - 2] = idx[rank - 2];
    r[rs.size() - 1] = idx[rank - 1];
    double each;
    for (auto [n, pos] : llvm::enumerate(positions(op, k, each))) {
      l.back() = pos;
      r[rs.size() - 2] = pos;
      visitIn(op, n, each, m.getLhs(), l);
      visitIn(op, n, each, m.getRhs(), r);
    }
    return;
  }
  if (isa<ConvOp, PoolOp>(op))
    return visitWindow(op, idx);
  // Anything else: assume the same element of every same-rank operand.
  for (Value in : op->getOperands())
    if (shapeOf(in).size() == idx.size())
      visit(in, idx);
  (void)resultNo;
}

void IndexTracer::visitWindow(Operation *op, ArrayRef<int64_t> physicalIdx) {
  // Traced in logical (channels-first) indices, mapped to physical ones
  // through the op's permutations at each read.
  auto conv = dyn_cast<ConvOp>(op);
  auto pool = dyn_cast<PoolOp>(op);
  Value input = op->getOperand(0);
  SmallVector<int64_t> dataPerm =
      conv ? conv.getDataPerm() : pool.getDataPerm();
  SmallVector<int64_t> inShape =
      conv ? conv.getLogicalInputShape() : pool.getLogicalInputShape();
  SmallVector<int64_t> idx = unpermute(physicalIdx, dataPerm);
  bool channelsLast = conv ? conv.getChannelsLast() : pool.getChannelsLast();
  int64_t spatial = inShape.size() - 2;
  ArrayRef<int64_t> strides, dilations, pads;
  SmallVector<int64_t> window, fs, filterPerm;
  int64_t channels = 1, groups = 1;
  if (conv) {
    strides = conv.getStrides();
    dilations = conv.getDilations();
    pads = conv.getPads();
    fs = conv.getLogicalFilterShape();
    filterPerm = conv.getFilterPerm();
    window.assign(fs.begin() + 2, fs.end());
    groups = conv.getGroups();
    channels = conv.getTransposed() ? inShape[1] / groups : fs[1];
    if (conv.getBias())
      visit(conv.getBias(), {idx[1]});
  } else {
    strides = pool.getStrides();
    dilations = pool.getDilations();
    pads = pool.getPads();
    window.assign(pool.getKernel().begin(), pool.getKernel().end());
  }
  // The emitters' loop order: channels outermost, or (channels_last)
  // innermost, after the window.
  SmallVector<int64_t> iterShape;
  if (!channelsLast)
    iterShape.push_back(channels);
  iterShape.append(window);
  if (channelsLast)
    iterShape.push_back(channels);
  int64_t channelIt = channelsLast ? spatial : 0;
  int64_t firstTapIt = channelsLast ? 0 : 1;
  double each;
  for (auto [n, pos] :
       llvm::enumerate(positions(op, numElements(iterShape), each))) {
    Index it = delinearize(pos, iterShape);
    Index in(inShape.size());
    in[0] = idx[0];
    // A tap in the padding (or, transposed, off the stride) is loaded at
    // its clamped position and contributes nothing, as the emitter does.
    for (int64_t d = 0; d < spatial; ++d) {
      int64_t tap = it[firstTapIt + d] * dilations[d];
      if (conv && conv.getTransposed()) {
        int64_t num = idx[d + 2] + pads[d] - tap;
        in[d + 2] = num / strides[d]; // truncating, as arith.divsi
      } else {
        in[d + 2] = idx[d + 2] * strides[d] + tap - pads[d];
      }
      in[d + 2] = std::clamp<int64_t>(in[d + 2], 0, inShape[d + 2] - 1);
    }
    if (!conv) {
      in[1] = idx[1];
      visitIn(op, n, each, input, permute(in, dataPerm));
      continue;
    }
    SmallVector<int64_t> f(fs.size());
    for (int64_t d = 0; d < spatial; ++d)
      f[2 + d] = it[firstTapIt + d];
    int64_t c = it[channelIt];
    if (conv.getTransposed()) {
      int64_t perGroup = conv.getLogicalResultShape()[1] / groups;
      int64_t g = idx[1] / perGroup;
      in[1] = g * channels + c;
      f[0] = in[1];
      f[1] = idx[1] % perGroup;
    } else {
      int64_t perGroup = fs[0] / groups;
      in[1] = idx[1] / perGroup * channels + c;
      f[0] = idx[1];
      f[1] = c;
    }
    visitIn(op, n, each, input, permute(in, dataPerm));
    visitIn(op, n, each, conv.getFilter(), permute(f, filterPerm));
  }
}
