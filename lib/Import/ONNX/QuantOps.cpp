//===- QuantOps.cpp - ONNX quantization ops into bwc ----------------------===//
//
// QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear are
// elementwise ops (and, for the dynamic one, two reductions), so a
// DequantizeLinear fuses into the kernel that consumes it and the bytes it
// reads are the integer bytes. MatMulInteger and QLinearMatMul contract in
// i32 (ONNX's int32 accumulation, exact up to its wrap-around), with the
// zero points subtracted from the widened operands.
//
// Per-axis scales and zero points (1-D, along `axis`, default 1) are
// reshaped to broadcast along that axis. Rounding is half to even and the
// result saturates to the integer type's range, as ONNX specifies.
//
//===----------------------------------------------------------------------===//
#include "NodeImporter.h"

using namespace mlir;
using namespace mlir::bwc;
using namespace mlir::bwc::onnx_import;

namespace {

/// `p` (a scale or zero point: a scalar, or 1-D along `axis` of `x`)
/// reshaped to broadcast against `x`.
FailureOr<Value> alongAxis(NodeContext &nc, Value p, Value x,
                           StringRef name) {
  RankedTensorType t = BWCBuilder::typeOf(p);
  if (t.getNumElements() == 1)
    return nc.bb.reshape(p, {});
  if (t.getRank() != 1)
    return nc.error() << "expects a scalar or 1-D " << name
                      << " (blocked quantization is not supported)",
           failure();
  FailureOr<int64_t> axis = nc.axis(nc.attrInt("axis", 1), rankOf(x));
  if (failed(axis))
    return failure();
  if (shapeOf(x)[*axis] != t.getDimSize(0))
    return nc.error() << "expects " << name << " of " << shapeOf(x)[*axis]
                      << " elements along axis " << *axis << " but got "
                      << t.getDimSize(0),
           failure();
  Ints shape(rankOf(x), 1);
  shape[*axis] = t.getDimSize(0);
  return nc.bb.reshape(p, shape);
}

/// saturate(round_half_even(x / scale) + zeroPoint) into `qType`, computed
/// in `x`'s float type (exact: the rounded values are small integers).
Value quantize(BWCBuilder &bb, Value x, Value scale, Value zeroPoint,
               Type qType) {
  Type f = BWCBuilder::elementTypeOf(x);
  Value q = bb.unary(UnaryFn::round, bb.div(x, bb.cast(scale, f)));
  if (zeroPoint)
    q = bb.add(q, bb.cast(zeroPoint, f));
  auto it = cast<IntegerType>(qType);
  unsigned w = it.getWidth();
  bool isUnsigned = it.isUnsigned();
  double lo = isUnsigned ? 0 : -std::ldexp(1.0, w - 1);
  double hi = isUnsigned ? std::ldexp(1.0, w) - 1 : std::ldexp(1.0, w - 1) - 1;
  q = bb.min(bb.max(q, bb.scalar(lo, f)), bb.scalar(hi, f));
  return bb.cast(q, qType);
}

LogicalResult importQuantizeLinear(NodeContext &nc, Results &out) {
  FailureOr<Value> x = nc.requiredInput(0), scale = nc.requiredInput(1);
  if (failed(x) || failed(scale))
    return failure();
  if (!isa<FloatType>(eltOf(*x)))
    return nc.error() << "expects a float input", failure();
  Value zp = nc.input(2);
  Type qType = zp ? eltOf(zp)
                  : IntegerType::get(nc.getContext(), 8, IntegerType::Unsigned);
  if (!qType.isInteger(8))
    return nc.error() << "expects an int8 or uint8 zero point but got "
                      << qType,
           failure();
  FailureOr<Value> s = alongAxis(nc, *scale, *x, "y_scale");
  if (failed(s))
    return failure();
  if (zp) {
    FailureOr<Value> z = alongAxis(nc, zp, *x, "y_zero_point");
    if (failed(z))
      return failure();
    zp = *z;
  }
  out.push_back(quantize(nc.bb, *x, *s, zp, qType));
  return success();
}

LogicalResult importDequantizeLinear(NodeContext &nc, Results &out) {
  FailureOr<Value> x = nc.requiredInput(0), scale = nc.requiredInput(1);
  if (failed(x) || failed(scale))
    return failure();
  Type f = eltOf(*scale);
  if (!isa<IntegerType>(eltOf(*x)) || !isa<FloatType>(f))
    return nc.error() << "expects an integer input and a float scale",
           failure();
  FailureOr<Value> s = alongAxis(nc, *scale, *x, "x_scale");
  if (failed(s))
    return failure();
  Value y = nc.bb.cast(*x, f);
  if (Value zp = nc.input(2)) {
    FailureOr<Value> z = alongAxis(nc, zp, *x, "x_zero_point");
    if (failed(z))
      return failure();
    y = nc.bb.sub(y, nc.bb.cast(*z, f));
  }
  out.push_back(nc.bb.mul(y, *s));
  return success();
}

/// y_scale = (max(0, max x) - min(0, min x)) / 255, y_zero_point =
/// saturate(round(-min(0, min x) / y_scale)), y = QuantizeLinear into
/// uint8. An all-zero input (y_scale 0) divides by 1 instead (y and the
/// zero point 0, not NaN).
LogicalResult importDynamicQuantizeLinear(NodeContext &nc, Results &out) {
  FailureOr<Value> x = nc.requiredInput(0);
  if (failed(x))
    return failure();
  Type f = eltOf(*x);
  if (!f.isF32())
    return nc.error() << "expects a float32 input", failure();
  BWCBuilder &bb = nc.bb;
  Ints all;
  for (int64_t d = 0; d < rankOf(*x); ++d)
    all.push_back(d);
  Value zero = bb.scalar(0, f);
  Value hi = bb.max(bb.reduce(ReduceKind::max, *x, all, false), zero);
  Value lo = bb.min(bb.reduce(ReduceKind::min, *x, all, false), zero);
  Value scale = bb.div(bb.sub(hi, lo), bb.scalar(255, f));
  Value safe = bb.select(bb.binary(BinaryFn::eq, scale, zero),
                         bb.scalar(1, f), scale);
  Type u8 = IntegerType::get(nc.getContext(), 8, IntegerType::Unsigned);
  Value zp = quantize(bb, bb.unary(UnaryFn::neg, lo), safe, Value(), u8);
  out.push_back(quantize(bb, *x, safe, zp, u8));
  out.push_back(scale);
  out.push_back(zp);
  return success();
}

/// `x` widened to i32 minus its zero point (scalar or per row/column).
FailureOr<Value> centered(NodeContext &nc, Value x, Value zp, int64_t axis) {
  Type i32 = IntegerType::get(nc.getContext(), 32);
  if (!eltOf(x).isInteger(8))
    return nc.error() << "expects int8 or uint8 operands but got "
                      << eltOf(x),
           failure();
  Value v = nc.bb.cast(x, i32);
  if (!zp)
    return v;
  RankedTensorType t = BWCBuilder::typeOf(zp);
  Value z = nc.bb.cast(zp, i32);
  if (t.getNumElements() == 1) {
    z = nc.bb.reshape(z, {});
  } else if (t.getRank() == 1 && rankOf(x) >= 2 &&
             shapeOf(x)[rankOf(x) + axis] == t.getDimSize(0)) {
    Ints shape(rankOf(x), 1);
    shape[rankOf(x) + axis] = t.getDimSize(0);
    z = nc.bb.reshape(z, shape);
  } else {
    return nc.error() << "expects a scalar zero point or one per "
                      << (axis == -2 ? "row" : "column"),
           failure();
  }
  return nc.bb.sub(v, z);
}

LogicalResult importMatMulInteger(NodeContext &nc, Results &out) {
  FailureOr<Value> a = nc.requiredInput(0), b = nc.requiredInput(1);
  if (failed(a) || failed(b))
    return failure();
  FailureOr<Value> ca = centered(nc, *a, nc.input(2), -2),
                   cb = centered(nc, *b, nc.input(3), -1);
  if (failed(ca) || failed(cb))
    return failure();
  FailureOr<Value> y = onnxMatmul(nc, *ca, *cb);
  if (failed(y))
    return failure();
  out.push_back(*y);
  return success();
}

/// QLinearMatMul: the i32 product of the centered operands, rescaled by
/// a_scale * b_scale / y_scale in f32 and quantized to y's type.
LogicalResult importQLinearMatMul(NodeContext &nc, Results &out) {
  SmallVector<Value> in;
  for (int i = 0; i < 8; ++i) {
    FailureOr<Value> v = nc.requiredInput(i);
    if (failed(v))
      return failure();
    in.push_back(*v);
  }
  FailureOr<Value> ca = centered(nc, in[0], in[2], -2),
                   cb = centered(nc, in[3], in[5], -1);
  if (failed(ca) || failed(cb))
    return failure();
  for (int i : {1, 4, 6})
    if (BWCBuilder::typeOf(in[i]).getNumElements() != 1 ||
        !eltOf(in[i]).isF32())
      return nc.error() << "expects per-tensor float32 scales", failure();
  FailureOr<Value> acc = onnxMatmul(nc, *ca, *cb);
  if (failed(acc))
    return failure();
  BWCBuilder &bb = nc.bb;
  Type f = bb.builder().getF32Type();
  Value scale = bb.div(bb.mul(bb.reshape(in[1], {}), bb.reshape(in[4], {})),
                       bb.reshape(in[6], {}));
  Value yzp = bb.reshape(in[7], {});
  // quantize(acc * scale) with y_scale 1: divide by 1/scale's inverse
  // would round twice, so scale first and quantize with a unit scale.
  Value scaled = bb.mul(bb.cast(*acc, f), scale);
  if (!eltOf(yzp).isInteger(8))
    return nc.error() << "expects an int8 or uint8 y_zero_point", failure();
  out.push_back(quantize(bb, scaled, bb.scalar(1, f), yzp, eltOf(yzp)));
  return success();
}

/// An integer convolution operand widened to f64 minus its zero point
/// (scalar, or per output channel for the weights): f64 holds every
/// int8 x int8 sum of up to 2^37 terms exactly, so the f64 convolution
/// cast back to i32 is ONNX's exact int32 accumulation.
FailureOr<Value> centeredF64(NodeContext &nc, Value x, Value zp,
                             bool perChannel) {
  if (!eltOf(x).isInteger(8))
    return nc.error() << "expects int8 or uint8 operands but got "
                      << eltOf(x),
           failure();
  Type f64 = nc.bb.builder().getF64Type();
  Value v = nc.bb.cast(x, f64);
  if (!zp)
    return v;
  Value z = nc.bb.cast(zp, f64);
  int64_t n = BWCBuilder::typeOf(zp).getNumElements();
  if (n == 1)
    return nc.bb.sub(v, nc.bb.reshape(z, {}));
  if (!perChannel || rankOf(zp) != 1 || rankOf(x) == 0 ||
      n != shapeOf(x)[0])
    return nc.error() << "expects a scalar zero point (per output channel "
                         "for the weights)",
           failure();
  Ints shape(rankOf(x), 1);
  shape[0] = n;
  return nc.bb.sub(v, nc.bb.reshape(z, shape));
}

LogicalResult importConvInteger(NodeContext &nc, Results &out) {
  FailureOr<Value> x = nc.requiredInput(0), w = nc.requiredInput(1);
  if (failed(x) || failed(w))
    return failure();
  FailureOr<Value> cx = centeredF64(nc, *x, nc.input(2), false),
                   cw = centeredF64(nc, *w, nc.input(3), true);
  if (failed(cx) || failed(cw))
    return failure();
  FailureOr<Value> y = onnxConv(nc, *cx, *cw, Value());
  if (failed(y))
    return failure();
  out.push_back(nc.bb.cast(*y, IntegerType::get(nc.getContext(), 32)));
  return success();
}

/// QLinearConv: the exact convolution of the centered operands plus the
/// int32 bias, rescaled by x_scale * w_scale (per tensor or per output
/// channel) / y_scale and quantized to y's type.
LogicalResult importQLinearConv(NodeContext &nc, Results &out) {
  SmallVector<Value> in;
  for (int i = 0; i < 8; ++i) {
    FailureOr<Value> v = nc.requiredInput(i);
    if (failed(v))
      return failure();
    in.push_back(*v);
  }
  FailureOr<Value> cx = centeredF64(nc, in[0], in[2], false),
                   cw = centeredF64(nc, in[3], in[5], true);
  if (failed(cx) || failed(cw))
    return failure();
  Value bias = nc.input(8);
  BWCBuilder &bb = nc.bb;
  Type f64 = bb.builder().getF64Type(), f32 = bb.builder().getF32Type();
  if (failed(requireRank(nc, in[0], 3, "input")) ||
      failed(requireRank(nc, in[3], 3, "weights")))
    return failure();
  int64_t m = shapeOf(in[3])[0];
  if (bias && (shapeOf(bias) != ArrayRef<int64_t>{m} ||
               !eltOf(bias).isInteger(32)))
    return nc.error() << "expects an int32 bias of " << m << " elements",
           failure();
  FailureOr<Value> acc =
      onnxConv(nc, *cx, *cw, bias ? bb.cast(bias, f64) : Value());
  if (failed(acc))
    return failure();
  Ints chan(rankOf(in[0]), 1);
  chan[1] = m;
  int64_t wScales = BWCBuilder::typeOf(in[4]).getNumElements();
  if (wScales != 1 && wScales != m)
    return nc.error() << "expects w_scale per tensor or per output channel",
           failure();
  Value ws = wScales == 1 ? bb.reshape(in[4], {}) : bb.reshape(in[4], chan);
  Value scale = bb.div(bb.mul(bb.reshape(in[1], {}), ws),
                       bb.reshape(in[6], {}));
  Value yzp = bb.reshape(in[7], {});
  if (!eltOf(yzp).isInteger(8))
    return nc.error() << "expects an int8 or uint8 y_zero_point", failure();
  Value scaled = bb.mul(bb.cast(*acc, f32), bb.cast(scale, f32));
  out.push_back(quantize(bb, scaled, bb.scalar(1, f32), yzp, eltOf(yzp)));
  return success();
}

} // namespace

void onnx_import::registerQuantHandlers(HandlerTable &t) {
  t["ConvInteger"] = importConvInteger;
  t["QLinearConv"] = importQLinearConv;
  t["QuantizeLinear"] = importQuantizeLinear;
  t["DequantizeLinear"] = importDequantizeLinear;
  t["DynamicQuantizeLinear"] = importDynamicQuantizeLinear;
  t["MatMulInteger"] = importMatMulInteger;
  t["QLinearMatMul"] = importQLinearMatMul;
}
