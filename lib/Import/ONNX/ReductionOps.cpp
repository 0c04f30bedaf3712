//===- ReductionOps.cpp - ONNX reductions and normalizations into bwc -----===//
//
// Reduce* (axes as attribute or input across opsets, keepdims,
// noop_with_empty_axes), ArgMax/ArgMin, and the composites built on
// reductions: Softmax, LogSoftmax, LayerNormalization.
//
//===----------------------------------------------------------------------===//
#include "NodeImporter.h"

#include "bwc/Dialect/BWC/Utils/ShapeUtils.h"

using namespace mlir;
using namespace mlir::bwc;
using namespace mlir::bwc::onnx_import;

namespace {

/// What a Reduce* op applies before and after its core reduction.
enum class ReduceFlavor { plain, l1, l2, sumSquare, logSum, logSumExp };

/// Reads the reduction axes of a Reduce* node: an attribute up to the opset
/// where they became an input (13 for ReduceSum, 18 for the rest). Returns
/// std::nullopt for "reduce nothing" (noop_with_empty_axes with no axes).
FailureOr<std::optional<SmallVector<int64_t>>>
reductionAxes(NodeContext &nc, int64_t rank, bool axesAsInput) {
  SmallVector<int64_t> axes;
  if (axesAsInput) {
    if (nc.input(1)) {
      std::optional<SmallVector<int64_t>> c = nc.constInts(1);
      if (!c)
        return nc.error() << "axes input must be a constant", failure();
      axes = *c;
    }
  } else if (auto a = nc.attrInts("axes")) {
    axes = *a;
  }
  if (axes.empty()) {
    if (nc.attrInt("noop_with_empty_axes", 0))
      return std::optional<SmallVector<int64_t>>();
    for (int64_t i = 0; i < rank; ++i)
      axes.push_back(i);
  }
  std::optional<SmallVector<int64_t>> norm = normalizeAxes(axes, rank);
  if (!norm)
    return nc.error() << "axes are out of range or repeated for rank " << rank,
           failure();
  return std::optional<SmallVector<int64_t>>(*norm);
}

NodeHandler reduceHandler(ReduceKind kind, ReduceFlavor flavor,
                          int64_t axesInputSince) {
  return [=](NodeContext &nc, Results &out) -> LogicalResult {
    FailureOr<Value> x = nc.requiredInput(0);
    if (failed(x))
      return failure();
    BWCBuilder &bb = nc.bb;
    int64_t rank = BWCBuilder::typeOf(*x).getRank();
    Type elt = BWCBuilder::elementTypeOf(*x);
    if (flavor == ReduceFlavor::logSumExp || flavor == ReduceFlavor::logSum ||
        flavor == ReduceFlavor::l2) {
      if (!isa<FloatType>(elt))
        return nc.error() << "expects a float input", failure();
    }
    auto axes = reductionAxes(nc, rank, nc.opset >= axesInputSince);
    if (failed(axes))
      return failure();
    bool keep = nc.attrInt("keepdims", 1) != 0;
    Value v = *x;
    if (!*axes) {
      // noop_with_empty_axes: the elementwise part still applies.
      if (flavor == ReduceFlavor::l1 || flavor == ReduceFlavor::l2)
        v = bb.unary(UnaryFn::abs, v);
      else if (flavor == ReduceFlavor::sumSquare)
        v = bb.mul(v, v);
      out.push_back(v);
      return success();
    }
    ArrayRef<int64_t> ax = **axes;
    switch (flavor) {
    case ReduceFlavor::plain:
      out.push_back(bb.reduce(kind, v, ax, keep));
      return success();
    case ReduceFlavor::l1:
      out.push_back(bb.reduce(ReduceKind::sum, bb.unary(UnaryFn::abs, v), ax,
                              keep));
      return success();
    case ReduceFlavor::sumSquare:
      out.push_back(bb.reduce(ReduceKind::sum, bb.mul(v, v), ax, keep));
      return success();
    case ReduceFlavor::l2:
      out.push_back(bb.unary(UnaryFn::sqrt, bb.reduce(ReduceKind::sum,
                                                      bb.mul(v, v), ax, keep)));
      return success();
    case ReduceFlavor::logSum:
      out.push_back(bb.unary(UnaryFn::log, bb.reduce(ReduceKind::sum, v, ax,
                                                     keep)));
      return success();
    case ReduceFlavor::logSumExp: {
      // log(sum(exp(x - m))) + m with m = max(x): no overflow.
      Value m = bb.reduce(ReduceKind::max, v, ax, /*keepDims=*/true);
      Value s = bb.reduce(ReduceKind::sum,
                          bb.unary(UnaryFn::exp, bb.sub(v, m)), ax, keep);
      Value mk = keep ? m : bb.reshape(m, BWCBuilder::shapeOf(s));
      out.push_back(bb.add(bb.unary(UnaryFn::log, s), mk));
      return success();
    }
    }
    return failure();
  };
}

NodeHandler argHandler(ArgReduceKind kind) {
  return [=](NodeContext &nc, Results &out) -> LogicalResult {
    FailureOr<Value> x = nc.requiredInput(0);
    if (failed(x))
      return failure();
    auto type = BWCBuilder::typeOf(*x);
    FailureOr<int64_t> axis = nc.axis(nc.attrInt("axis", 0), type.getRank());
    if (failed(axis))
      return failure();
    bool keep = nc.attrInt("keepdims", 1) != 0;
    bool last = nc.attrInt("select_last_index", 0) != 0;
    OpBuilder &b = nc.bb.builder();
    auto resultType = RankedTensorType::get(
        reducedShape(type.getShape(), {*axis}, keep), b.getI64Type());
    out.push_back(ArgReduceOp::create(b, nc.getLoc(), resultType, kind, *x,
                                      *axis, keep, last));
    return success();
  };
}

/// Softmax and LogSoftmax. Before opset 13 the input is coerced to 2-D at
/// `axis` (default 1), which is a reduction over every axis from `axis` on;
/// from 13 on it is the one axis (default -1).
NodeHandler softmaxHandler(bool log) {
  return [=](NodeContext &nc, Results &out) -> LogicalResult {
    FailureOr<Value> x = nc.requiredInput(0);
    if (failed(x))
      return failure();
    BWCBuilder &bb = nc.bb;
    int64_t rank = BWCBuilder::typeOf(*x).getRank();
    if (!isa<FloatType>(BWCBuilder::elementTypeOf(*x)))
      return nc.error() << "expects a float input", failure();
    bool coerce2d = nc.opset < 13;
    int64_t rawAxis = nc.attrInt("axis", coerce2d ? 1 : -1);
    if (rank == 0)
      return nc.error() << "expects an input of rank >= 1", failure();
    FailureOr<int64_t> axis = nc.axis(rawAxis, rank);
    if (failed(axis))
      return failure();
    SmallVector<int64_t> axes;
    for (int64_t i = *axis; i < (coerce2d ? rank : *axis + 1); ++i)
      axes.push_back(i);
    Value m = bb.reduce(ReduceKind::max, *x, axes, /*keepDims=*/true);
    Value shifted = bb.sub(*x, m);
    Value e = bb.unary(UnaryFn::exp, shifted);
    Value s = bb.reduce(ReduceKind::sum, e, axes, /*keepDims=*/true);
    out.push_back(log ? bb.sub(shifted, bb.unary(UnaryFn::log, s))
                      : bb.div(e, s));
    return success();
  };
}

LogicalResult importLayerNorm(NodeContext &nc, Results &out) {
  FailureOr<Value> x = nc.requiredInput(0), scale = nc.requiredInput(1);
  if (failed(x) || failed(scale))
    return failure();
  BWCBuilder &bb = nc.bb;
  auto type = BWCBuilder::typeOf(*x);
  Type elt = type.getElementType();
  if (!isa<FloatType>(elt))
    return nc.error() << "expects a float input", failure();
  FailureOr<int64_t> axis = nc.axis(nc.attrInt("axis", -1), type.getRank());
  if (failed(axis))
    return failure();
  SmallVector<int64_t> axes;
  for (int64_t i = *axis; i < type.getRank(); ++i)
    axes.push_back(i);
  Value bias = nc.input(2);
  for (Value p : {*scale, bias})
    if (p && !broadcastsTo(BWCBuilder::shapeOf(p), type.getShape()))
      return nc.error() << "scale/bias do not broadcast to the input",
             failure();
  Value mean = bb.reduce(ReduceKind::mean, *x, axes, /*keepDims=*/true);
  Value d = bb.sub(*x, mean);
  Value var = bb.reduce(ReduceKind::mean, bb.mul(d, d), axes, true);
  Value inv = bb.unary(UnaryFn::rsqrt,
                       bb.add(var, bb.scalar(nc.attrFloat("epsilon", 1e-5), elt)));
  Value y = bb.mul(bb.mul(d, inv), *scale);
  if (bias)
    y = bb.add(y, bias);
  out.push_back(y);
  out.push_back(mean);
  out.push_back(inv);
  return success();
}

} // namespace

void onnx_import::registerReductionHandlers(HandlerTable &t) {
  t["ReduceSum"] = reduceHandler(ReduceKind::sum, ReduceFlavor::plain, 13);
  t["ReduceMean"] = reduceHandler(ReduceKind::mean, ReduceFlavor::plain, 18);
  t["ReduceMax"] = reduceHandler(ReduceKind::max, ReduceFlavor::plain, 18);
  t["ReduceMin"] = reduceHandler(ReduceKind::min, ReduceFlavor::plain, 18);
  t["ReduceProd"] = reduceHandler(ReduceKind::prod, ReduceFlavor::plain, 18);
  t["ReduceL1"] = reduceHandler(ReduceKind::sum, ReduceFlavor::l1, 18);
  t["ReduceL2"] = reduceHandler(ReduceKind::sum, ReduceFlavor::l2, 18);
  t["ReduceSumSquare"] =
      reduceHandler(ReduceKind::sum, ReduceFlavor::sumSquare, 18);
  t["ReduceLogSum"] = reduceHandler(ReduceKind::sum, ReduceFlavor::logSum, 18);
  t["ReduceLogSumExp"] =
      reduceHandler(ReduceKind::sum, ReduceFlavor::logSumExp, 18);
  t["ArgMax"] = argHandler(ArgReduceKind::argmax);
  t["ArgMin"] = argHandler(ArgReduceKind::argmin);
  t["Softmax"] = softmaxHandler(/*log=*/false);
  t["LogSoftmax"] = softmaxHandler(/*log=*/true);
  t["LayerNormalization"] = importLayerNorm;
}
