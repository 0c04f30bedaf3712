//===- LossOps.cpp - NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss ---===//
//
// Both losses pick, for each sample (and spatial position), the input at
// the target class. The pick is a one-hot contraction over the class axis:
// onehot[n, c, d...] = (target[n, d...] == c), picked = sum_c input * onehot,
// so the losses are elementwise ops and reductions the whole pipeline
// already fuses, plans and runs on both targets (C multiply-adds per output
// instead of a gather; losses have small class counts next to the
// networks they end). The weight of the target class is picked the same
// way; ignore_index masks a sample out of the loss and out of the mean's
// denominator, as ONNX's reference does.
//
//===----------------------------------------------------------------------===//
#include "NodeImporter.h"

using namespace mlir;
using namespace mlir::bwc;
using namespace mlir::bwc::onnx_import;

namespace {

/// NegativeLogLikelihoodLoss of `logProb` [N, C, d...] at `target`
/// [N, d...] with optional `weight` [C]; appends the loss to `out`.
LogicalResult nllLoss(NodeContext &nc, Value logProb, Value target,
                      Value weight, Results &out) {
  BWCBuilder &bb = nc.bb;
  RankedTensorType in = BWCBuilder::typeOf(logProb);
  RankedTensorType tt = BWCBuilder::typeOf(target);
  Type elt = in.getElementType();
  if (!isa<FloatType>(elt))
    return nc.error() << "expects a float input", failure();
  if (!tt.getElementType().isInteger(64) && !tt.getElementType().isInteger(32))
    return nc.error() << "expects an int32 or int64 target", failure();
  if (in.getRank() < 2 || tt.getRank() != in.getRank() - 1 ||
      tt.getDimSize(0) != in.getDimSize(0) ||
      tt.getShape().drop_front() != in.getShape().drop_front(2))
    return nc.error() << "expects input [N, C, d...] and target [N, d...]",
           failure();
  int64_t classes = in.getDimSize(1);
  if (weight && BWCBuilder::shapeOf(weight) != ArrayRef<int64_t>{classes})
    return nc.error() << "expects weight of shape [" << classes << "]",
           failure();
  std::string reduction = nc.attrString("reduction", "mean");
  if (reduction != "mean" && reduction != "sum" && reduction != "none")
    return nc.error() << "unsupported reduction '" << reduction << "'",
           failure();

  // The class index at axis 1: [1, C, 1, ...].
  SmallVector<int64_t> classShape(in.getRank(), 1);
  classShape[1] = classes;
  Type idx = tt.getElementType();
  Value iota = iotaAlong(bb, in.getRank(), 1, classes, idx);
  SmallVector<int64_t> expanded(tt.getShape());
  expanded.insert(expanded.begin() + 1, 1);
  Value t = bb.reshape(target, expanded);
  Value onehot = bb.cast(bb.binary(BinaryFn::eq, t, iota), elt);
  Value picked = bb.reduce(ReduceKind::sum, bb.mul(logProb, onehot), {1},
                           /*keepDims=*/false);
  Value w;
  if (weight)
    w = bb.reduce(ReduceKind::sum,
                  bb.mul(bb.reshape(weight, classShape), onehot), {1}, false);
  if (nc.hasAttr("ignore_index")) {
    Value ignore = bb.constant(DenseElementsAttr::get(
        RankedTensorType::get({}, idx),
        APInt(idx.getIntOrFloatBitWidth(), nc.attrInt("ignore_index", 0),
              /*isSigned=*/true)));
    Value keep = bb.cast(
        bb.unary(UnaryFn::not_, bb.binary(BinaryFn::eq, target, ignore)), elt);
    w = w ? bb.mul(w, keep) : keep;
  }
  Value loss = bb.unary(UnaryFn::neg, w ? bb.mul(picked, w) : picked);
  SmallVector<int64_t> all;
  for (int64_t i = 0; i < tt.getRank(); ++i)
    all.push_back(i);
  if (reduction == "none") {
    out.push_back(loss);
  } else if (reduction == "sum") {
    out.push_back(bb.reduce(ReduceKind::sum, loss, all, false));
  } else if (w) {
    out.push_back(bb.div(bb.reduce(ReduceKind::sum, loss, all, false),
                         bb.reduce(ReduceKind::sum, w, all, false)));
  } else {
    out.push_back(bb.reduce(ReduceKind::mean, loss, all, false));
  }
  return success();
}

LogicalResult importNllLoss(NodeContext &nc, Results &out) {
  FailureOr<Value> x = nc.requiredInput(0), target = nc.requiredInput(1);
  if (failed(x) || failed(target))
    return failure();
  return nllLoss(nc, *x, *target, nc.input(2), out);
}

LogicalResult importSoftmaxCrossEntropy(NodeContext &nc, Results &out) {
  FailureOr<Value> scores = nc.requiredInput(0), labels = nc.requiredInput(1);
  if (failed(scores) || failed(labels))
    return failure();
  BWCBuilder &bb = nc.bb;
  if (!isa<FloatType>(BWCBuilder::elementTypeOf(*scores)) ||
      BWCBuilder::typeOf(*scores).getRank() < 2)
    return nc.error() << "expects float scores [N, C, d...]", failure();
  // log_softmax over the class axis, max-shifted.
  Value m = bb.reduce(ReduceKind::max, *scores, {1}, /*keepDims=*/true);
  Value shifted = bb.sub(*scores, m);
  Value s =
      bb.reduce(ReduceKind::sum, bb.unary(UnaryFn::exp, shifted), {1}, true);
  Value logProb = bb.sub(shifted, bb.unary(UnaryFn::log, s));
  if (failed(nllLoss(nc, logProb, *labels, nc.input(2), out)))
    return failure();
  out.push_back(logProb);
  return success();
}

} // namespace

void onnx_import::registerLossHandlers(HandlerTable &t) {
  t["NegativeLogLikelihoodLoss"] = importNllLoss;
  t["SoftmaxCrossEntropyLoss"] = importSoftmaxCrossEntropy;
}
