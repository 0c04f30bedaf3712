//===- ActivationOps.cpp - ONNX activation functions into bwc ------------===//
//
// LeakyRelu, Elu, Selu, Celu, ThresholdedRelu, Shrink, HardSigmoid,
// HardSwish, Softplus, Softsign, Mish and Gelu, each decomposed into
// bwc.unary/binary/select so that they fuse into their neighbours.
//
//===----------------------------------------------------------------------===//
#include "NodeImporter.h"

#include <cmath>

using namespace mlir;
using namespace mlir::bwc;
using namespace mlir::bwc::onnx_import;

namespace {

/// Activation functions written as a function of (builder, x).
NodeHandler activation(
    std::function<Value(NodeContext &, BWCBuilder &, Value, Type)> fn) {
  return [fn](NodeContext &nc, Results &out) -> LogicalResult {
    FailureOr<Value> x = nc.requiredInput(0);
    if (failed(x))
      return failure();
    Type elt = BWCBuilder::elementTypeOf(*x);
    if (!isa<FloatType>(elt))
      return nc.error() << "expects a float input", failure();
    out.push_back(fn(nc, nc.bb, *x, elt));
    return success();
  };
}

} // namespace

void onnx_import::registerActivationHandlers(HandlerTable &t) {
  t["LeakyRelu"] = activation([](NodeContext &nc, BWCBuilder &bb, Value x,
                                 Type elt) {
    Value neg = bb.binary(BinaryFn::lt, x, bb.scalar(0, elt));
    return bb.select(neg, bb.mul(x, bb.scalar(nc.attrFloat("alpha", 0.01), elt)),
                     x);
  });
  t["Elu"] = activation([](NodeContext &nc, BWCBuilder &bb, Value x, Type elt) {
    Value neg = bb.binary(BinaryFn::lt, x, bb.scalar(0, elt));
    Value em1 = bb.sub(bb.unary(UnaryFn::exp, x), bb.scalar(1, elt));
    return bb.select(neg, bb.mul(em1, bb.scalar(nc.attrFloat("alpha", 1.0), elt)),
                     x);
  });
  t["Selu"] = activation([](NodeContext &nc, BWCBuilder &bb, Value x, Type elt) {
    double alpha = nc.attrFloat("alpha", 1.67326319217681884765625);
    double gamma = nc.attrFloat("gamma", 1.05070102214813232421875);
    Value neg = bb.binary(BinaryFn::le, x, bb.scalar(0, elt));
    Value e = bb.sub(bb.mul(bb.unary(UnaryFn::exp, x), bb.scalar(alpha, elt)),
                     bb.scalar(alpha, elt));
    return bb.mul(bb.select(neg, e, x), bb.scalar(gamma, elt));
  });
  t["HardSigmoid"] = activation([](NodeContext &nc, BWCBuilder &bb, Value x,
                                   Type elt) {
    Value y = bb.add(bb.mul(x, bb.scalar(nc.attrFloat("alpha", 0.2), elt)),
                     bb.scalar(nc.attrFloat("beta", 0.5), elt));
    return bb.min(bb.max(y, bb.scalar(0, elt)), bb.scalar(1, elt));
  });
  t["HardSwish"] = activation([](NodeContext &, BWCBuilder &bb, Value x,
                                 Type elt) {
    Value y = bb.add(bb.mul(x, bb.scalar(1.0 / 6.0, elt)), bb.scalar(0.5, elt));
    return bb.mul(x, bb.min(bb.max(y, bb.scalar(0, elt)), bb.scalar(1, elt)));
  });
  t["Softplus"] = activation([](NodeContext &, BWCBuilder &bb, Value x,
                                Type elt) {
    // log(1 + exp(x)) = relu(x) + log(1 + exp(-|x|)): no overflow.
    Value t = bb.unary(UnaryFn::exp, bb.unary(UnaryFn::neg,
                                              bb.unary(UnaryFn::abs, x)));
    return bb.add(bb.unary(UnaryFn::relu, x),
                  bb.unary(UnaryFn::log, bb.add(t, bb.scalar(1, elt))));
  });
  t["Celu"] = activation([](NodeContext &nc, BWCBuilder &bb, Value x,
                            Type elt) {
    // max(0, x) + min(0, alpha * (exp(x / alpha) - 1))
    Value alpha = bb.scalar(nc.attrFloat("alpha", 1.0), elt);
    Value e = bb.mul(alpha, bb.sub(bb.unary(UnaryFn::exp, bb.div(x, alpha)),
                                   bb.scalar(1, elt)));
    return bb.add(bb.unary(UnaryFn::relu, x), bb.min(bb.scalar(0, elt), e));
  });
  t["ThresholdedRelu"] = activation([](NodeContext &nc, BWCBuilder &bb,
                                       Value x, Type elt) {
    Value above =
        bb.binary(BinaryFn::gt, x, bb.scalar(nc.attrFloat("alpha", 1.0), elt));
    return bb.select(above, x, bb.scalar(0, elt));
  });
  t["Shrink"] = activation([](NodeContext &nc, BWCBuilder &bb, Value x,
                              Type elt) {
    double lambd = nc.attrFloat("lambd", 0.5), bias = nc.attrFloat("bias", 0);
    Value low = bb.binary(BinaryFn::lt, x, bb.scalar(-lambd, elt));
    Value high = bb.binary(BinaryFn::gt, x, bb.scalar(lambd, elt));
    return bb.select(low, bb.add(x, bb.scalar(bias, elt)),
                     bb.select(high, bb.sub(x, bb.scalar(bias, elt)),
                               bb.scalar(0, elt)));
  });
  t["Mish"] = activation([](NodeContext &, BWCBuilder &bb, Value x,
                            Type elt) {
    // x * tanh(softplus(x)), softplus written as above
    Value t = bb.unary(UnaryFn::exp,
                       bb.unary(UnaryFn::neg, bb.unary(UnaryFn::abs, x)));
    Value sp = bb.add(bb.unary(UnaryFn::relu, x),
                      bb.unary(UnaryFn::log, bb.add(t, bb.scalar(1, elt))));
    return bb.mul(x, bb.unary(UnaryFn::tanh, sp));
  });
  t["Gelu"] = [](NodeContext &nc, Results &out) -> LogicalResult {
    FailureOr<Value> x = nc.requiredInput(0);
    if (failed(x))
      return failure();
    BWCBuilder &bb = nc.bb;
    Type elt = BWCBuilder::elementTypeOf(*x);
    if (!isa<FloatType>(elt))
      return nc.error() << "expects a float input", failure();
    std::string approximate = nc.attrString("approximate", "none");
    Value inner;
    if (approximate == "none") {
      inner = bb.unary(UnaryFn::erf, bb.mul(*x, bb.scalar(M_SQRT1_2, elt)));
    } else if (approximate == "tanh") {
      Value cube = bb.mul(bb.mul(*x, *x), *x);
      Value arg = bb.mul(bb.add(*x, bb.mul(cube, bb.scalar(0.044715, elt))),
                         bb.scalar(std::sqrt(2.0 / M_PI), elt));
      inner = bb.unary(UnaryFn::tanh, arg);
    } else {
      return nc.error() << "unsupported approximate '" << approximate << "'",
             failure();
    }
    out.push_back(bb.mul(bb.mul(*x, bb.scalar(0.5, elt)),
                         bb.add(inner, bb.scalar(1, elt))));
    return success();
  };
  t["Softsign"] = activation([](NodeContext &, BWCBuilder &bb, Value x,
                                Type elt) {
    return bb.div(x, bb.add(bb.unary(UnaryFn::abs, x), bb.scalar(1, elt)));
  });
}
