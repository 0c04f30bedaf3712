//===- ElementwiseOps.cpp - ONNX elementwise ops into bwc -----------------===//
//
// Unary and binary math, comparisons, logic, bit shifts, IsNaN/IsInf,
// Where, Cast/CastLike, Clip, variadic Sum/Mean/Max/Min, Constant, Identity
// and Dropout (inference: identity). Activation functions are in
// ActivationOps.cpp.
//
//===----------------------------------------------------------------------===//
#include "NodeImporter.h"

#include "bwc/Dialect/BWC/Utils/ShapeUtils.h"
#include <limits>

using namespace mlir;
using namespace mlir::bwc;
using namespace mlir::bwc::onnx_import;

namespace {

/// Before opset 7, binary ops broadcast only with `broadcast=1`, aligning
/// `b` with `a` from `axis` on (default: as a suffix). Reshapes `b` with
/// trailing ones so that numpy broadcasting means the same.
Value alignLegacyBroadcast(NodeContext &nc, Value a, Value b, int64_t axis) {
  int64_t ra = BWCBuilder::typeOf(a).getRank();
  int64_t rb = BWCBuilder::typeOf(b).getRank();
  if (axis < 0 || axis + rb > ra)
    return b;
  SmallVector<int64_t> shape(BWCBuilder::shapeOf(b));
  shape.append(ra - axis - rb, 1);
  return nc.bb.reshape(b, shape);
}

/// Handler for an ONNX op that is one bwc.unary.
NodeHandler unaryHandler(UnaryFn fn) {
  return [fn](NodeContext &nc, Results &out) -> LogicalResult {
    FailureOr<Value> x = nc.requiredInput(0);
    if (failed(x))
      return failure();
    out.push_back(nc.bb.unary(fn, *x));
    return success();
  };
}

/// Handler for an ONNX op that is one bwc.binary; the rhs is cast to the
/// lhs's element type where ONNX allows them to differ (Pow).
NodeHandler binaryHandler(BinaryFn fn) {
  return [fn](NodeContext &nc, Results &out) -> LogicalResult {
    FailureOr<Value> a = nc.requiredInput(0), b = nc.requiredInput(1);
    if (failed(a) || failed(b))
      return failure();
    if (nc.opset < 7 && nc.attrInt("broadcast", 0)) {
      int64_t ra = BWCBuilder::typeOf(*a).getRank();
      int64_t rb = BWCBuilder::typeOf(*b).getRank();
      *b = alignLegacyBroadcast(nc, *a, *b, nc.attrInt("axis", ra - rb));
    }
    if (!broadcastShapes(BWCBuilder::shapeOf(*a), BWCBuilder::shapeOf(*b)))
      return nc.error() << "input shapes do not broadcast", failure();
    Value rhs = nc.bb.cast(*b, BWCBuilder::elementTypeOf(*a));
    out.push_back(nc.bb.binary(fn, *a, rhs));
    return success();
  };
}

/// Sum, Mean, Max, Min over any number of broadcasting inputs.
NodeHandler variadicHandler(BinaryFn fn, bool mean) {
  return [fn, mean](NodeContext &nc, Results &out) -> LogicalResult {
    if (nc.numInputs() == 0)
      return nc.error() << "expects at least one input", failure();
    Value acc;
    for (int i = 0; i < nc.numInputs(); ++i) {
      FailureOr<Value> x = nc.requiredInput(i);
      if (failed(x))
        return failure();
      if (acc && !broadcastShapes(BWCBuilder::shapeOf(acc),
                                  BWCBuilder::shapeOf(*x)))
        return nc.error() << "input shapes do not broadcast", failure();
      acc = acc ? nc.bb.binary(fn, acc, *x) : *x;
    }
    if (mean)
      acc = nc.bb.div(acc, nc.bb.scalar(nc.numInputs(),
                                        BWCBuilder::elementTypeOf(acc)));
    out.push_back(acc);
    return success();
  };
}

LogicalResult importClip(NodeContext &nc, Results &out) {
  FailureOr<Value> x = nc.requiredInput(0);
  if (failed(x))
    return failure();
  Type elt = BWCBuilder::elementTypeOf(*x);
  Value lo, hi;
  if (nc.opset < 11) {
    lo = nc.bb.scalar(nc.attrFloat("min", -std::numeric_limits<float>::max()),
                      elt);
    hi = nc.bb.scalar(nc.attrFloat("max", std::numeric_limits<float>::max()),
                      elt);
  } else {
    lo = nc.input(1);
    hi = nc.input(2);
  }
  Value y = *x;
  for (auto [bound, isLow] : {std::pair{lo, true}, std::pair{hi, false}}) {
    if (!bound)
      continue;
    if (BWCBuilder::typeOf(bound).getRank() != 0 &&
        BWCBuilder::typeOf(bound).getNumElements() != 1)
      return nc.error() << "expects scalar min/max", failure();
    bound = nc.bb.reshape(bound, {});
    y = isLow ? nc.bb.max(y, bound) : nc.bb.min(y, bound);
  }
  out.push_back(y);
  return success();
}

LogicalResult importCast(NodeContext &nc, Results &out) {
  FailureOr<Value> x = nc.requiredInput(0);
  if (failed(x))
    return failure();
  int to = nc.attrInt("to", 0);
  Type elt = elementTypeFor(nc.getContext(), to);
  if (!elt)
    return nc.error() << "unsupported target type " << onnxTypeName(to),
           failure();
  out.push_back(nc.bb.cast(*x, elt));
  return success();
}

LogicalResult importCastLike(NodeContext &nc, Results &out) {
  FailureOr<Value> x = nc.requiredInput(0), like = nc.requiredInput(1);
  if (failed(x) || failed(like))
    return failure();
  out.push_back(nc.bb.cast(*x, BWCBuilder::elementTypeOf(*like)));
  return success();
}

LogicalResult importBitShift(NodeContext &nc, Results &out) {
  FailureOr<Value> a = nc.requiredInput(0), b = nc.requiredInput(1);
  if (failed(a) || failed(b))
    return failure();
  Type elt = BWCBuilder::elementTypeOf(*a);
  if (!isa<IntegerType>(elt) || elt.isInteger(1) ||
      elt != BWCBuilder::elementTypeOf(*b))
    return nc.error() << "expects two integer inputs of one type", failure();
  std::string direction = nc.attrString("direction", "");
  if (direction != "LEFT" && direction != "RIGHT")
    return nc.error() << "expects direction LEFT or RIGHT but got '"
                      << direction << "'",
           failure();
  if (!broadcastShapes(BWCBuilder::shapeOf(*a), BWCBuilder::shapeOf(*b)))
    return nc.error() << "input shapes do not broadcast", failure();
  out.push_back(nc.bb.binary(
      direction == "LEFT" ? BinaryFn::shl : BinaryFn::shr, *a, *b));
  return success();
}

/// IsNaN and IsInf (detect_negative / detect_positive): comparisons, so
/// that they fuse like any elementwise op.
LogicalResult importIsNaN(NodeContext &nc, Results &out) {
  FailureOr<Value> x = nc.requiredInput(0);
  if (failed(x))
    return failure();
  if (!isa<FloatType>(BWCBuilder::elementTypeOf(*x)))
    return nc.error() << "expects a float input", failure();
  // Ordered equality is false exactly for NaN.
  out.push_back(
      nc.bb.unary(UnaryFn::not_, nc.bb.binary(BinaryFn::eq, *x, *x)));
  return success();
}

LogicalResult importIsInf(NodeContext &nc, Results &out) {
  FailureOr<Value> x = nc.requiredInput(0);
  if (failed(x))
    return failure();
  Type elt = BWCBuilder::elementTypeOf(*x);
  if (!isa<FloatType>(elt))
    return nc.error() << "expects a float input", failure();
  double inf = std::numeric_limits<double>::infinity();
  Value pos = nc.bb.binary(BinaryFn::eq, *x, nc.bb.scalar(inf, elt));
  Value neg = nc.bb.binary(BinaryFn::eq, *x, nc.bb.scalar(-inf, elt));
  bool detectPos = nc.attrInt("detect_positive", 1) != 0;
  bool detectNeg = nc.attrInt("detect_negative", 1) != 0;
  Value y;
  if (detectPos && detectNeg)
    y = nc.bb.binary(BinaryFn::or_, pos, neg);
  else if (detectPos)
    y = pos;
  else if (detectNeg)
    y = neg;
  else // neither: all false
    y = nc.bb.binary(BinaryFn::and_, pos, neg);
  out.push_back(y);
  return success();
}

LogicalResult importMod(NodeContext &nc, Results &out) {
  FailureOr<Value> a = nc.requiredInput(0), b = nc.requiredInput(1);
  if (failed(a) || failed(b))
    return failure();
  if (!broadcastShapes(BWCBuilder::shapeOf(*a), BWCBuilder::shapeOf(*b)))
    return nc.error() << "input shapes do not broadcast", failure();
  bool isFloat = isa<FloatType>(BWCBuilder::elementTypeOf(*a));
  bool fmod = nc.attrInt("fmod", 0) != 0;
  if (isFloat && !fmod)
    return nc.error() << "fmod=0 is not allowed for float inputs", failure();
  if (fmod && !isFloat) {
    // C remainder (sign of the dividend): a - trunc(a / b) * b.
    out.push_back(nc.bb.sub(*a, nc.bb.mul(nc.bb.div(*a, *b), *b)));
    return success();
  }
  out.push_back(nc.bb.binary(fmod ? BinaryFn::fmod : BinaryFn::mod, *a, *b));
  return success();
}

LogicalResult importWhere(NodeContext &nc, Results &out) {
  FailureOr<Value> c = nc.requiredInput(0), t = nc.requiredInput(1),
                   f = nc.requiredInput(2);
  if (failed(c) || failed(t) || failed(f))
    return failure();
  auto s = broadcastShapes(BWCBuilder::shapeOf(*c), BWCBuilder::shapeOf(*t));
  if (!s || !broadcastShapes(*s, BWCBuilder::shapeOf(*f)))
    return nc.error() << "input shapes do not broadcast", failure();
  out.push_back(nc.bb.select(*c, *t, *f));
  return success();
}

LogicalResult importPRelu(NodeContext &nc, Results &out) {
  FailureOr<Value> x = nc.requiredInput(0), slope = nc.requiredInput(1);
  if (failed(x) || failed(slope))
    return failure();
  // Before opset 7 a 1-D slope is per channel (axis 1).
  if (nc.opset < 7 && BWCBuilder::typeOf(*slope).getRank() == 1 &&
      BWCBuilder::typeOf(*x).getRank() > 2)
    *slope = alignLegacyBroadcast(nc, *x, *slope, 1);
  if (!broadcastsTo(BWCBuilder::shapeOf(*slope), BWCBuilder::shapeOf(*x)))
    return nc.error() << "slope does not broadcast to the input", failure();
  Type elt = BWCBuilder::elementTypeOf(*x);
  Value neg = nc.bb.binary(BinaryFn::lt, *x, nc.bb.scalar(0, elt));
  out.push_back(nc.bb.select(neg, nc.bb.mul(*x, *slope), *x));
  return success();
}

LogicalResult importConstant(NodeContext &nc, Results &out) {
  OpBuilder &b = nc.bb.builder();
  if (const auto *a = nc.attr("value")) {
    const onnx::TensorProto &t = a->t();
    Type elt = elementTypeFor(nc.getContext(), t.data_type());
    if (!elt)
      return nc.error() << "unsupported data type "
                        << onnxTypeName(t.data_type()),
             failure();
    SmallVector<int64_t> shape(t.dims().begin(), t.dims().end());
    if (llvm::any_of(shape, [](int64_t d) { return d < 0; }) ||
        numElements(shape) > (int64_t(1) << 30))
      return nc.error() << "has an invalid shape", failure();
    FailureOr<ElementsAttr> value = tensorToAttr(
        t, RankedTensorType::get(shape, elt), nc.inlineConstantLimit,
        [&]() -> InFlightDiagnostic { return nc.error() << "value "; });
    if (failed(value))
      return failure();
    out.push_back(nc.bb.constant(*value));
    return success();
  }
  if (const auto *a = nc.attr("value_float")) {
    out.push_back(nc.bb.scalar(a->f(), b.getF32Type()));
    return success();
  }
  if (const auto *a = nc.attr("value_int")) {
    out.push_back(nc.bb.scalar((double)a->i(), b.getI64Type()));
    return success();
  }
  if (auto v = nc.attrInts("value_ints")) {
    out.push_back(nc.bb.i64Vector(*v));
    return success();
  }
  if (auto v = nc.attrFloats("value_floats")) {
    SmallVector<float> f(v->begin(), v->end());
    auto type = RankedTensorType::get({(int64_t)f.size()}, b.getF32Type());
    out.push_back(nc.bb.constant(DenseElementsAttr::get(type, ArrayRef(f))));
    return success();
  }
  return nc.error() << "unsupported constant kind (sparse or string)",
         failure();
}

LogicalResult importIdentity(NodeContext &nc, Results &out) {
  FailureOr<Value> x = nc.requiredInput(0);
  if (failed(x))
    return failure();
  out.push_back(*x);
  return success();
}

LogicalResult importDropout(NodeContext &nc, Results &out) {
  FailureOr<Value> x = nc.requiredInput(0);
  if (failed(x))
    return failure();
  if (nc.input(2) && !nc.constInts(2))
    return nc.error() << "training_mode must be a constant", failure();
  if (auto training = nc.constInts(2); training && !training->empty() &&
                                       (*training)[0] != 0) {
    // Training mode drops at random (bwc's generator, RandomOps.cpp: a new
    // mask every run), except with ratio 0, where it is the identity like
    // inference mode.
    double r = 0.5;
    if (nc.input(1)) {
      std::optional<SmallVector<double>> ratio = nc.constFloats(1);
      if (!ratio || ratio->size() != 1)
        return nc.error() << "expects a constant scalar ratio in training "
                             "mode",
               failure();
      r = (*ratio)[0];
    }
    if (!(r >= 0.0 && r < 1.0))
      return nc.error() << "expects a ratio in [0, 1) but got " << r,
             failure();
    if (r > 0.0) {
      if (!isa<FloatType>(eltOf(*x)))
        return nc.error() << "expects a float input", failure();
      FailureOr<Value> u = uniformNoise(nc, shapeOf(*x), 0);
      if (failed(u))
        return failure();
      BWCBuilder &bb = nc.bb;
      Type elt = eltOf(*x);
      Value keep = bb.binary(BinaryFn::ge, *u,
                             bb.scalar(r, bb.builder().getF32Type()));
      out.push_back(bb.select(keep, bb.mul(*x, bb.scalar(1.0 / (1.0 - r), elt)),
                              bb.scalar(0.0, elt)));
      out.push_back(keep);
      return success();
    }
  }
  out.push_back(*x);
  // The mask of an inference-mode (or ratio 0) Dropout is all true.
  auto maskType = BWCBuilder::typeOf(*x).clone(nc.bb.builder().getI1Type());
  out.push_back(nc.bb.constant(DenseElementsAttr::get(maskType, true)));
  return success();
}

} // namespace

void onnx_import::registerElementwiseHandlers(HandlerTable &t) {
  t["Abs"] = unaryHandler(UnaryFn::abs);
  t["Neg"] = unaryHandler(UnaryFn::neg);
  t["Exp"] = unaryHandler(UnaryFn::exp);
  t["Log"] = unaryHandler(UnaryFn::log);
  t["Sqrt"] = unaryHandler(UnaryFn::sqrt);
  t["Reciprocal"] = unaryHandler(UnaryFn::reciprocal);
  t["Sigmoid"] = unaryHandler(UnaryFn::sigmoid);
  t["Tanh"] = unaryHandler(UnaryFn::tanh);
  t["Erf"] = unaryHandler(UnaryFn::erf);
  t["Floor"] = unaryHandler(UnaryFn::floor);
  t["Ceil"] = unaryHandler(UnaryFn::ceil);
  t["Round"] = unaryHandler(UnaryFn::round);
  t["Sin"] = unaryHandler(UnaryFn::sin);
  t["Cos"] = unaryHandler(UnaryFn::cos);
  t["Sign"] = unaryHandler(UnaryFn::sign);
  t["Relu"] = unaryHandler(UnaryFn::relu);
  t["Not"] = unaryHandler(UnaryFn::not_);
  t["Tan"] = unaryHandler(UnaryFn::tan);
  t["Asin"] = unaryHandler(UnaryFn::asin);
  t["Acos"] = unaryHandler(UnaryFn::acos);
  t["Atan"] = unaryHandler(UnaryFn::atan);
  t["Sinh"] = unaryHandler(UnaryFn::sinh);
  t["Cosh"] = unaryHandler(UnaryFn::cosh);
  t["Asinh"] = unaryHandler(UnaryFn::asinh);
  t["Acosh"] = unaryHandler(UnaryFn::acosh);
  t["Atanh"] = unaryHandler(UnaryFn::atanh);
  t["IsNaN"] = importIsNaN;
  t["IsInf"] = importIsInf;
  t["BitShift"] = importBitShift;
  t["CastLike"] = importCastLike;

  t["Add"] = binaryHandler(BinaryFn::add);
  t["Sub"] = binaryHandler(BinaryFn::sub);
  t["Mul"] = binaryHandler(BinaryFn::mul);
  t["Div"] = binaryHandler(BinaryFn::div);
  t["Pow"] = binaryHandler(BinaryFn::pow);
  t["Equal"] = binaryHandler(BinaryFn::eq);
  t["Less"] = binaryHandler(BinaryFn::lt);
  t["Greater"] = binaryHandler(BinaryFn::gt);
  t["LessOrEqual"] = binaryHandler(BinaryFn::le);
  t["GreaterOrEqual"] = binaryHandler(BinaryFn::ge);
  t["And"] = binaryHandler(BinaryFn::and_);
  t["Or"] = binaryHandler(BinaryFn::or_);
  t["Xor"] = binaryHandler(BinaryFn::xor_);

  t["Sum"] = variadicHandler(BinaryFn::add, false);
  t["Mean"] = variadicHandler(BinaryFn::add, true);
  t["Max"] = variadicHandler(BinaryFn::max, false);
  t["Min"] = variadicHandler(BinaryFn::min, false);

  t["Clip"] = importClip;
  t["Cast"] = importCast;
  t["Mod"] = importMod;
  t["Where"] = importWhere;
  t["PRelu"] = importPRelu;
  t["Constant"] = importConstant;
  t["Identity"] = importIdentity;
  t["Dropout"] = importDropout;
}
