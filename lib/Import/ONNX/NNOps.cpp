//===- NNOps.cpp - ONNX matmul and normalization ops into bwc -------------===//
//
// MatMul and Gemm (bwc.matmul), the inference forms of
// BatchNormalization and InstanceNormalization, MeanVarianceNormalization
// and LRN (decomposed into elementwise ops, slices and reductions). Conv and the pools are in
// ConvPoolOps.cpp, Resize and Upsample in ResizeOps.cpp.
//
//===----------------------------------------------------------------------===//
#include "NodeImporter.h"

#include "bwc/Dialect/BWC/Utils/ShapeUtils.h"

using namespace mlir;
using namespace mlir::bwc;
using namespace mlir::bwc::onnx_import;

namespace {

//===----------------------------------------------------------------------===//
// MatMul, Gemm
//===----------------------------------------------------------------------===//

/// Errors unless `lhs` [..., M, K] and `rhs` [..., K, N] fit bwc.matmul.
LogicalResult checkMatmul(NodeContext &nc, Value lhs, Value rhs) {
  ArrayRef<int64_t> l = shapeOf(lhs), r = shapeOf(rhs);
  if (eltOf(lhs) != eltOf(rhs))
    return nc.error() << "expects inputs of one element type but got "
                      << eltOf(lhs) << " and " << eltOf(rhs),
           failure();
  if (l.back() != r[r.size() - 2])
    return nc.error() << "contraction dims differ: " << l.back() << " vs "
                      << r[r.size() - 2],
           failure();
  if (!broadcastShapes(l.drop_back(2), r.drop_back(2)))
    return nc.error() << "batch dims do not broadcast", failure();
  return success();
}

LogicalResult importMatMul(NodeContext &nc, Results &out) {
  FailureOr<Value> a = nc.requiredInput(0), b = nc.requiredInput(1);
  if (failed(a) || failed(b))
    return failure();
  FailureOr<Value> y = onnxMatmul(nc, *a, *b);
  if (failed(y))
    return failure();
  out.push_back(*y);
  return success();
}

LogicalResult importGemm(NodeContext &nc, Results &out) {
  FailureOr<Value> a = nc.requiredInput(0), b = nc.requiredInput(1);
  if (failed(a) || failed(b))
    return failure();
  if (rankOf(*a) != 2 || rankOf(*b) != 2)
    return nc.error() << "expects A and B of rank 2 but got ranks "
                      << rankOf(*a) << " and " << rankOf(*b),
           failure();
  Value lhs = nc.attrInt("transA", 0) ? nc.bb.transpose(*a, {1, 0}) : *a;
  Value rhs = nc.attrInt("transB", 0) ? nc.bb.transpose(*b, {1, 0}) : *b;
  if (failed(checkMatmul(nc, lhs, rhs)))
    return failure();
  Type elt = eltOf(lhs);
  Value y = nc.bb.matmul(lhs, rhs);
  double alpha = nc.attrFloat("alpha", 1.0), beta = nc.attrFloat("beta", 1.0);
  if (alpha != 1.0)
    y = nc.bb.mul(y, nc.bb.scalar(alpha, elt));
  if (Value c = nc.input(2); c && beta != 0.0) {
    if (eltOf(c) != elt)
      return nc.error() << "expects C of element type " << elt << " but got "
                        << eltOf(c),
             failure();
    if (!broadcastsTo(shapeOf(c), shapeOf(y)))
      return nc.error() << "C of shape " << str(shapeOf(c))
                        << " does not broadcast to " << str(shapeOf(y)),
             failure();
    if (beta != 1.0)
      c = nc.bb.mul(c, nc.bb.scalar(beta, elt));
    y = nc.bb.add(y, c);
  }
  out.push_back(y);
  return success();
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

/// Reshapes a per-channel vector of shape [C] to [C, 1, ...] so that it
/// broadcasts over `x` ([N, C, D...]); a vector already of shape
/// x.shape[1:] (BatchNormalization with spatial=0) stays as it is.
Value channelBroadcast(NodeContext &nc, Value v, Value x) {
  if (rankOf(v) != 1)
    return v;
  SmallVector<int64_t> shape(rankOf(x) - 1, 1);
  shape[0] = shapeOf(v)[0];
  return nc.bb.reshape(v, shape);
}

/// Reads per-channel inputs `first..first+n` of a normalization over `x`,
/// cast to x's element type; all must have shape [C] (or, when
/// `allowFull`, x.shape[1:]).
FailureOr<SmallVector<Value>> channelInputs(NodeContext &nc, Value x, int first,
                                            int n, bool allowFull) {
  static const char *names[] = {"X", "scale", "B", "mean", "var"};
  int64_t c = shapeOf(x)[1];
  SmallVector<Value> vs;
  for (int i = first; i < first + n; ++i) {
    FailureOr<Value> v = nc.requiredInput(i);
    if (failed(v))
      return failure();
    if (!isa<FloatType>(eltOf(*v)))
      return nc.error() << "expects float '" << names[i] << "' but got "
                        << eltOf(*v),
             failure();
    bool ok = (rankOf(*v) == 1 && shapeOf(*v)[0] == c) ||
              (allowFull && shapeOf(*v) == shapeOf(x).drop_front(1));
    if (!ok || (!vs.empty() && shapeOf(*v) != shapeOf(vs.front())))
      return nc.error() << "expects '" << names[i] << "' of shape [" << c
                        << "] but got " << str(shapeOf(*v)),
             failure();
    vs.push_back(nc.bb.cast(*v, eltOf(x)));
  }
  return vs;
}

/// Training mode: normalize with the batch's statistics (population
/// variance over every axis but the channels) and output the running
/// statistics mean * momentum + batch * (1 - momentum), as ONNX's reference.
LogicalResult importBatchNormTraining(NodeContext &nc, Value x, Results &out) {
  FailureOr<SmallVector<Value>> vs =
      channelInputs(nc, x, 1, 4, /*allowFull=*/false);
  if (failed(vs))
    return failure();
  BWCBuilder &bb = nc.bb;
  Type elt = eltOf(x);
  double eps = nc.attrFloat("epsilon", 1e-5);
  double momentum = nc.attrFloat("momentum", 0.9);
  Ints axes{0};
  for (int64_t d = 2; d < rankOf(x); ++d)
    axes.push_back(d);
  Value mean = bb.reduce(ReduceKind::mean, x, axes, /*keepDims=*/true);
  Value d = bb.sub(x, mean);
  Value var = bb.reduce(ReduceKind::mean, bb.mul(d, d), axes, true);
  Value norm = bb.div(d, bb.unary(UnaryFn::sqrt,
                                  bb.add(var, bb.scalar(eps, elt))));
  Value y = bb.add(bb.mul(norm, channelBroadcast(nc, (*vs)[0], x)),
                   channelBroadcast(nc, (*vs)[1], x));
  out.push_back(y);
  int64_t c = shapeOf(x)[1];
  auto running = [&](Value old, Value batch) {
    return bb.add(bb.mul(old, bb.scalar(momentum, elt)),
                  bb.mul(bb.reshape(batch, {c}),
                         bb.scalar(1 - momentum, elt)));
  };
  out.push_back(running((*vs)[2], mean));
  out.push_back(running((*vs)[3], var));
  return success();
}

LogicalResult importBatchNorm(NodeContext &nc, Results &out) {
  FailureOr<Value> x = nc.requiredInput(0);
  if (failed(x) || failed(requireRank(nc, *x, 2, "input")))
    return failure();
  if (!isa<FloatType>(eltOf(*x)))
    return nc.error() << "expects a float input", failure();
  // The running mean and variance are statistics, not parameters: a
  // training step keeps them constant whatever --trainable matches
  // (docs/training.md: gradient descent on a variance drives it below
  // zero; PyTorch's buffers and Keras' non-trainable moving averages are
  // never stepped either). In training mode they only feed the running
  // outputs, which the step computes from them all the same.
  for (int i : {3, 4})
    nc.freezeInput(i);
  if (nc.attrInt("training_mode", 0) != 0)
    return importBatchNormTraining(nc, *x, out);
  for (int i = 1; i < nc.node.output_size(); ++i)
    if (outputRequested(nc, i))
      return nc.error() << "unsupported output " << i
                        << " (training-mode statistics); only Y is supported",
             failure();
  bool spatial = nc.opset >= 9 || nc.attrInt("spatial", 1) != 0;
  FailureOr<SmallVector<Value>> vs =
      channelInputs(nc, *x, 1, 4, /*allowFull=*/!spatial);
  if (failed(vs))
    return failure();
  Value scale = (*vs)[0], bias = (*vs)[1], mean = (*vs)[2], var = (*vs)[3];
  Type elt = eltOf(*x);
  double eps = nc.attrFloat("epsilon", 1e-5);
  // y = x * a + b with a = scale / sqrt(var + eps), b = B - mean * a; both
  // fold when the statistics are constants.
  Value a =
      nc.bb.div(scale, nc.bb.unary(UnaryFn::sqrt,
                                   nc.bb.add(var, nc.bb.scalar(eps, elt))));
  Value b = nc.bb.sub(bias, nc.bb.mul(mean, a));
  Value y = nc.bb.mul(*x, channelBroadcast(nc, a, *x));
  out.push_back(nc.bb.add(y, channelBroadcast(nc, b, *x)));
  return success();
}

LogicalResult importInstanceNorm(NodeContext &nc, Results &out) {
  FailureOr<Value> x = nc.requiredInput(0);
  if (failed(x) || failed(requireRank(nc, *x, 3, "input")))
    return failure();
  if (!isa<FloatType>(eltOf(*x)))
    return nc.error() << "expects a float input", failure();
  FailureOr<SmallVector<Value>> vs =
      channelInputs(nc, *x, 1, 2, /*allowFull=*/false);
  if (failed(vs))
    return failure();
  Type elt = eltOf(*x);
  double eps = nc.attrFloat("epsilon", 1e-5);
  SmallVector<int64_t> axes = spatialAxes(*x);
  Value mean = nc.bb.reduce(ReduceKind::mean, *x, axes, /*keepDims=*/true);
  Value d = nc.bb.sub(*x, mean);
  Value var = nc.bb.reduce(ReduceKind::mean, nc.bb.mul(d, d), axes,
                           /*keepDims=*/true);
  Value norm = nc.bb.div(
      d, nc.bb.unary(UnaryFn::sqrt, nc.bb.add(var, nc.bb.scalar(eps, elt))));
  Value y = nc.bb.mul(norm, channelBroadcast(nc, (*vs)[0], *x));
  out.push_back(nc.bb.add(y, channelBroadcast(nc, (*vs)[1], *x)));
  return success();
}

/// MeanVarianceNormalization: (x - mean) / (std + 1e-9) over `axes`
/// (default [0, 2, 3]), ONNX's function body with the variance taken as the
/// mean of squared deviations (no cancellation).
LogicalResult importMeanVarianceNorm(NodeContext &nc, Results &out) {
  FailureOr<Value> x = nc.requiredInput(0);
  if (failed(x))
    return failure();
  if (!isa<FloatType>(eltOf(*x)))
    return nc.error() << "expects a float input", failure();
  FailureOr<Ints> axes = normalizedAxes(
      nc, nc.attrInts("axes").value_or(Ints{0, 2, 3}), rankOf(*x));
  if (failed(axes))
    return failure();
  llvm::sort(*axes);
  BWCBuilder &bb = nc.bb;
  Value d = bb.sub(*x, bb.reduce(ReduceKind::mean, *x, *axes, true));
  Value var = bb.reduce(ReduceKind::mean, bb.mul(d, d), *axes, true);
  out.push_back(bb.div(d, bb.add(bb.unary(UnaryFn::sqrt, var),
                                 bb.scalar(1e-9, eltOf(*x)))));
  return success();
}

/// LRN: x / (bias + alpha / size * sum of x^2 over the channel window
/// [c - floor((size-1)/2), c + ceil((size-1)/2)])^beta; the window sum is
/// `size` shifted slices of the zero-padded squares, which fuse into one
/// loop kernel.
LogicalResult importLRN(NodeContext &nc, Results &out) {
  FailureOr<Value> x = nc.requiredInput(0);
  if (failed(x) || failed(requireRank(nc, *x, 3, "input")))
    return failure();
  Type elt = eltOf(*x);
  if (!isa<FloatType>(elt))
    return nc.error() << "expects a float input", failure();
  int64_t size = nc.attrInt("size", 0);
  ArrayRef<int64_t> shape = shapeOf(*x);
  if (size < 1 || size > 1024)
    return nc.error() << "expects size in [1, 1024] but got " << size,
           failure();
  BWCBuilder &bb = nc.bb;
  int64_t front = (size - 1) / 2, back = size - 1 - front;
  Value sq = bb.mul(*x, *x);
  SmallVector<Value> parts;
  for (int64_t pad : {front, int64_t(-1), back}) {
    if (pad < 0) {
      parts.push_back(sq);
      continue;
    }
    if (pad == 0)
      continue;
    SmallVector<int64_t> zshape(shape);
    zshape[1] = pad;
    parts.push_back(bb.broadcastTo(bb.scalar(0, elt), zshape));
  }
  Value padded = parts.size() == 1 ? sq : bb.concat(parts, 1);
  SmallVector<int64_t> starts(shape.size(), 0), steps(shape.size(), 1);
  Value sum;
  for (int64_t k = 0; k < size; ++k) {
    starts[1] = k;
    Value part = bb.slice(padded, starts, shape, steps);
    sum = sum ? bb.add(sum, part) : part;
  }
  double alpha = nc.attrFloat("alpha", 1e-4), beta = nc.attrFloat("beta", 0.75);
  double bias = nc.attrFloat("bias", 1.0);
  Value base = bb.add(bb.mul(sum, bb.scalar(alpha / size, elt)),
                      bb.scalar(bias, elt));
  out.push_back(
      bb.div(*x, bb.binary(BinaryFn::pow, base, bb.scalar(beta, elt))));
  return success();
}

} // namespace

FailureOr<Value> onnx_import::onnxMatmul(NodeContext &nc, Value a, Value b) {
  if (failed(requireRank(nc, a, 1, "inputs")) ||
      failed(requireRank(nc, b, 1, "inputs")))
    return failure();
  bool vecA = rankOf(a) == 1, vecB = rankOf(b) == 1;
  Value lhs = vecA ? nc.bb.reshape(a, {1, shapeOf(a)[0]}) : a;
  Value rhs = vecB ? nc.bb.reshape(b, {shapeOf(b)[0], 1}) : b;
  if (failed(checkMatmul(nc, lhs, rhs)))
    return failure();
  Value y = nc.bb.matmul(lhs, rhs);
  if (vecA || vecB) {
    SmallVector<int64_t> shape(shapeOf(y));
    int64_t r = shape.size();
    if (vecB)
      shape.erase(shape.begin() + r - 1);
    if (vecA)
      shape.erase(shape.begin() + r - 2);
    y = nc.bb.reshape(y, shape);
  }
  return y;
}

void onnx_import::registerNNHandlers(HandlerTable &t) {
  t["MeanVarianceNormalization"] = importMeanVarianceNorm;
  t["LRN"] = importLRN;
  t["MatMul"] = importMatMul;
  t["Gemm"] = importGemm;
  t["BatchNormalization"] = importBatchNorm;
  t["InstanceNormalization"] = importInstanceNorm;
}
