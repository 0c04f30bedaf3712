//===- TrainingOps.cpp - ai.onnx.preview.training optimizers into bwc -----===//
//
// Adagrad, Momentum (standard and Nesterov) and Adam update any number of
// tensors from a learning rate R and a step count T (scalars): elementwise
// formulas, written exactly as ONNX's reference writes them, that fuse into
// one loop kernel per tensor. Inputs are R, T, then the n tensors X, their
// gradients G, and the n accumulators of each kind; outputs are the new X,
// then the new accumulators, in the same order.
//
// bwc's own training steps (--train=sgd|adam) build their updates in
// bwc-grad; these ops are for graphs that carry the optimizer themselves.
//
//===----------------------------------------------------------------------===//
#include "NodeImporter.h"

using namespace mlir;
using namespace mlir::bwc;
using namespace mlir::bwc::onnx_import;

namespace {

/// R, T (as R's float type) and the groups of n tensors that follow.
struct OptimizerInputs {
  Value r, t;
  SmallVector<SmallVector<Value>> groups;
};

FailureOr<OptimizerInputs> optimizerInputs(NodeContext &nc, int groups) {
  int count = nc.numInputs() - 2;
  if (count <= 0 || count % groups != 0)
    return nc.error() << "expects R, T and " << groups
                      << " groups of equally many tensors but got "
                      << nc.numInputs() << " inputs",
           failure();
  OptimizerInputs in;
  FailureOr<Value> r = nc.requiredInput(0), t = nc.requiredInput(1);
  if (failed(r) || failed(t))
    return failure();
  Type f = eltOf(*r);
  if (!isa<FloatType>(f) || BWCBuilder::typeOf(*r).getNumElements() != 1 ||
      BWCBuilder::typeOf(*t).getNumElements() != 1)
    return nc.error() << "expects a float scalar R and a scalar T", failure();
  in.r = nc.bb.reshape(*r, {});
  in.t = nc.bb.cast(nc.bb.reshape(*t, {}), f);
  int n = count / groups;
  for (int g = 0; g < groups; ++g) {
    in.groups.emplace_back();
    for (int i = 0; i < n; ++i) {
      FailureOr<Value> v = nc.requiredInput(2 + g * n + i);
      if (failed(v))
        return failure();
      if (eltOf(*v) != f ||
          (g > 0 && shapeOf(*v) != shapeOf(in.groups[0][i])))
        return nc.error() << "expects every tensor of group " << g
                          << " to match X" << i << "'s shape and R's type",
               failure();
      in.groups.back().push_back(*v);
    }
  }
  return in;
}

LogicalResult importAdagrad(NodeContext &nc, Results &out) {
  FailureOr<OptimizerInputs> in = optimizerInputs(nc, 3);
  if (failed(in))
    return failure();
  BWCBuilder &bb = nc.bb;
  Type f = eltOf(in->r);
  auto c = [&](double v) { return bb.scalar(v, f); };
  double decay = nc.attrFloat("decay_factor", 0);
  double eps = nc.attrFloat("epsilon", 1e-6);
  double norm = nc.attrFloat("norm_coefficient", 0);
  Value r = bb.div(in->r, bb.add(c(1), bb.mul(in->t, c(decay))));
  SmallVector<Value> xs, hs;
  for (size_t i = 0; i < in->groups[0].size(); ++i) {
    Value x = in->groups[0][i], g = in->groups[1][i], h = in->groups[2][i];
    Value gReg = bb.add(bb.mul(c(norm), x), g);
    Value hNew = bb.add(h, bb.mul(gReg, gReg));
    Value hSqrt = bb.add(bb.unary(UnaryFn::sqrt, hNew), c(eps));
    xs.push_back(bb.sub(x, bb.div(bb.mul(r, gReg), hSqrt)));
    hs.push_back(hNew);
  }
  out.append(xs.begin(), xs.end());
  out.append(hs.begin(), hs.end());
  return success();
}

LogicalResult importMomentum(NodeContext &nc, Results &out) {
  FailureOr<OptimizerInputs> in = optimizerInputs(nc, 3);
  if (failed(in))
    return failure();
  for (StringRef name : {"alpha", "beta", "mode", "norm_coefficient"})
    if (!nc.hasAttr(name))
      return nc.error() << "expects the required attribute '" << name << "'",
             failure();
  std::string mode = nc.attrString("mode", "standard");
  if (mode != "standard" && mode != "nesterov")
    return nc.error() << "unsupported mode '" << mode << "'", failure();
  BWCBuilder &bb = nc.bb;
  Type f = eltOf(in->r);
  auto c = [&](double v) { return bb.scalar(v, f); };
  double alpha = nc.attrFloat("alpha", 0), beta = nc.attrFloat("beta", 0);
  double norm = nc.attrFloat("norm_coefficient", 0);
  // The gradient's coefficient is 1 at the first step (T = 0).
  Value betaAdj =
      bb.select(bb.binary(BinaryFn::gt, in->t, c(0)), c(beta), c(1));
  SmallVector<Value> xs, vs;
  for (size_t i = 0; i < in->groups[0].size(); ++i) {
    Value x = in->groups[0][i], g = in->groups[1][i], v = in->groups[2][i];
    Value gReg = bb.add(bb.mul(c(norm), x), g);
    Value vNew = bb.add(bb.mul(c(alpha), v), bb.mul(betaAdj, gReg));
    Value step = mode == "standard"
                     ? vNew
                     : bb.add(gReg, bb.mul(c(alpha), vNew));
    xs.push_back(bb.sub(x, bb.mul(in->r, step)));
    vs.push_back(vNew);
  }
  out.append(xs.begin(), xs.end());
  out.append(vs.begin(), vs.end());
  return success();
}

LogicalResult importAdam(NodeContext &nc, Results &out) {
  FailureOr<OptimizerInputs> in = optimizerInputs(nc, 4);
  if (failed(in))
    return failure();
  BWCBuilder &bb = nc.bb;
  Type f = eltOf(in->r);
  auto c = [&](double v) { return bb.scalar(v, f); };
  double alpha = nc.attrFloat("alpha", 0.9), beta = nc.attrFloat("beta", 0.999);
  double eps = nc.attrFloat("epsilon", 1e-6);
  double norm = nc.attrFloat("norm_coefficient", 0);
  double post = nc.attrFloat("norm_coefficient_post", 0);
  // Bias correction from the second step on: R sqrt(1 - beta^T) /
  // (1 - alpha^T) when T > 0, else R.
  Value pa = bb.binary(BinaryFn::pow, c(alpha), in->t);
  Value pb = bb.binary(BinaryFn::pow, c(beta), in->t);
  Value corrected = bb.div(bb.mul(in->r, bb.unary(UnaryFn::sqrt,
                                                  bb.sub(c(1), pb))),
                           bb.sub(c(1), pa));
  Value r = bb.select(bb.binary(BinaryFn::gt, in->t, c(0)), corrected, in->r);
  SmallVector<Value> xs, vs, hs;
  for (size_t i = 0; i < in->groups[0].size(); ++i) {
    Value x = in->groups[0][i], g = in->groups[1][i], v = in->groups[2][i],
          h = in->groups[3][i];
    Value gReg = bb.add(bb.mul(c(norm), x), g);
    Value vNew = bb.add(bb.mul(c(alpha), v), bb.mul(c(1 - alpha), gReg));
    Value hNew =
        bb.add(bb.mul(c(beta), h), bb.mul(c(1 - beta), bb.mul(gReg, gReg)));
    Value hSqrt = bb.add(bb.unary(UnaryFn::sqrt, hNew), c(eps));
    Value xNew = bb.sub(x, bb.mul(r, bb.div(vNew, hSqrt)));
    xs.push_back(bb.mul(c(1 - post), xNew));
    vs.push_back(vNew);
    hs.push_back(hNew);
  }
  out.append(xs.begin(), xs.end());
  out.append(vs.begin(), vs.end());
  out.append(hs.begin(), hs.end());
  return success();
}

} // namespace

void onnx_import::registerTrainingHandlers(HandlerTable &t) {
  std::string domain = std::string(kTrainingDomain) + ".";
  t[domain + "Adagrad"] = importAdagrad;
  t[domain + "Momentum"] = importMomentum;
  t[domain + "Adam"] = importAdam;
}
