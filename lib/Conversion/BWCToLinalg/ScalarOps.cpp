//===- ScalarOps.cpp - Per-element math of bwc functions ------------------===//
//
// What one element of bwc.unary / bwc.binary / bwc.cast computes, in arith
// and math ops on signless scalars. Signedness comes from the bwc element
// type. ONNX semantics: integer division truncates, `mod` takes the
// divisor's sign, `round` is half to even, NaN propagates through max/min.
//
//===----------------------------------------------------------------------===//
#include "Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::bwc;
using namespace mlir::bwc::lowering;

Type lowering::signlessType(Type t) {
  if (auto it = dyn_cast<IntegerType>(t); it && !it.isSignless())
    return IntegerType::get(t.getContext(), it.getWidth());
  return t;
}

bool lowering::isUnsignedElement(Type t) {
  auto it = dyn_cast<IntegerType>(t);
  return it && (it.isUnsigned() || it.getWidth() == 1);
}

Value lowering::emitConstant(OpBuilder &b, Location loc, Type t, double v) {
  if (auto ft = dyn_cast<FloatType>(t))
    return arith::ConstantOp::create(b, loc, ft, b.getFloatAttr(ft, v));
  return arith::ConstantOp::create(
      b, loc, t, b.getIntegerAttr(t, APInt(t.getIntOrFloatBitWidth(),
                                           (uint64_t)(int64_t)v, true, true)));
}

Value lowering::emitUnary(OpBuilder &b, Location loc, UnaryFn fn, Value x,
                          Type elt) {
  Type t = x.getType();
  auto zero = [&] { return emitConstant(b, loc, t, 0); };
  auto one = [&] { return emitConstant(b, loc, t, 1); };
  if (isa<FloatType>(t)) {
    switch (fn) {
    case UnaryFn::abs: return math::AbsFOp::create(b, loc, x);
    case UnaryFn::neg: return arith::NegFOp::create(b, loc, x);
    case UnaryFn::exp: return math::ExpOp::create(b, loc, x);
    case UnaryFn::log: return math::LogOp::create(b, loc, x);
    case UnaryFn::sqrt: return math::SqrtOp::create(b, loc, x);
    case UnaryFn::rsqrt: return math::RsqrtOp::create(b, loc, x);
    case UnaryFn::reciprocal: return arith::DivFOp::create(b, loc, one(), x);
    case UnaryFn::sigmoid: {
      Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
      return arith::DivFOp::create(b, loc, one(),
                                   arith::AddFOp::create(b, loc, one(), e));
    }
    case UnaryFn::tanh: return math::TanhOp::create(b, loc, x);
    case UnaryFn::erf: return math::ErfOp::create(b, loc, x);
    case UnaryFn::floor: return math::FloorOp::create(b, loc, x);
    case UnaryFn::ceil: return math::CeilOp::create(b, loc, x);
    case UnaryFn::round: return math::RoundEvenOp::create(b, loc, x);
    case UnaryFn::sin: return math::SinOp::create(b, loc, x);
    case UnaryFn::cos: return math::CosOp::create(b, loc, x);
    case UnaryFn::sign: {
      // x > 0 ? 1 : (x < 0 ? -1 : x): keeps 0, -0 and NaN.
      Value pos = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x,
                                        zero());
      Value neg = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x,
                                        zero());
      Value inner = arith::SelectOp::create(b, loc, neg,
                                            emitConstant(b, loc, t, -1), x);
      return arith::SelectOp::create(b, loc, pos, one(), inner);
    }
    case UnaryFn::relu: {
      // x < 0 ? 0 : x: NaN stays NaN.
      Value neg = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x,
                                        zero());
      return arith::SelectOp::create(b, loc, neg, zero(), x);
    }
    case UnaryFn::tan: return math::TanOp::create(b, loc, x);
    case UnaryFn::asin: return math::AsinOp::create(b, loc, x);
    case UnaryFn::acos: return math::AcosOp::create(b, loc, x);
    case UnaryFn::atan: return math::AtanOp::create(b, loc, x);
    case UnaryFn::sinh: return math::SinhOp::create(b, loc, x);
    case UnaryFn::cosh: return math::CoshOp::create(b, loc, x);
    case UnaryFn::asinh: return math::AsinhOp::create(b, loc, x);
    case UnaryFn::acosh: return math::AcoshOp::create(b, loc, x);
    case UnaryFn::atanh: return math::AtanhOp::create(b, loc, x);
    case UnaryFn::not_: break;
    }
    return x;
  }
  bool isUnsigned = isUnsignedElement(elt);
  switch (fn) {
  case UnaryFn::not_:
    return arith::XOrIOp::create(b, loc, x, one());
  case UnaryFn::neg:
    return arith::SubIOp::create(b, loc, zero(), x);
  case UnaryFn::abs:
  case UnaryFn::relu:
  case UnaryFn::sign: {
    if (isUnsigned) {
      if (fn != UnaryFn::sign)
        return x;
      Value nz = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x,
                                       zero());
      return arith::ExtUIOp::create(b, loc, t, nz);
    }
    Value neg = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x,
                                      zero());
    if (fn == UnaryFn::abs)
      return arith::SelectOp::create(b, loc, neg,
                                     arith::SubIOp::create(b, loc, zero(), x),
                                     x);
    if (fn == UnaryFn::relu)
      return arith::SelectOp::create(b, loc, neg, zero(), x);
    Value pos = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, x,
                                      zero());
    return arith::SelectOp::create(
        b, loc, pos, one(),
        arith::SelectOp::create(b, loc, neg, emitConstant(b, loc, t, -1),
                                zero()));
  }
  default:
    return x; // The verifier allows no other function on integers.
  }
}

Value lowering::emitBinary(OpBuilder &b, Location loc, BinaryFn fn, Value l,
                           Value r, Type elt) {
  Type t = l.getType();
  if (isa<FloatType>(t)) {
    using P = arith::CmpFPredicate;
    auto cmp = [&](P p) { return arith::CmpFOp::create(b, loc, p, l, r); };
    switch (fn) {
    case BinaryFn::add: return arith::AddFOp::create(b, loc, l, r);
    case BinaryFn::sub: return arith::SubFOp::create(b, loc, l, r);
    case BinaryFn::mul: return arith::MulFOp::create(b, loc, l, r);
    case BinaryFn::div: return arith::DivFOp::create(b, loc, l, r);
    case BinaryFn::pow: return math::PowFOp::create(b, loc, l, r);
    case BinaryFn::max: return arith::MaximumFOp::create(b, loc, l, r);
    case BinaryFn::min: return arith::MinimumFOp::create(b, loc, l, r);
    case BinaryFn::fmod: return arith::RemFOp::create(b, loc, l, r);
    case BinaryFn::mod: {
      // Python's %: the remainder takes the divisor's sign.
      Value rem = arith::RemFOp::create(b, loc, l, r);
      Value zero = emitConstant(b, loc, t, 0);
      Value nz = arith::CmpFOp::create(b, loc, P::UNE, rem, zero);
      Value remNeg = arith::CmpFOp::create(b, loc, P::OLT, rem, zero);
      Value divNeg = arith::CmpFOp::create(b, loc, P::OLT, r, zero);
      Value differ = arith::XOrIOp::create(b, loc, remNeg, divNeg);
      Value fix = arith::AndIOp::create(b, loc, nz, differ);
      return arith::SelectOp::create(b, loc, fix,
                                     arith::AddFOp::create(b, loc, rem, r), rem);
    }
    case BinaryFn::eq: return cmp(P::OEQ);
    case BinaryFn::lt: return cmp(P::OLT);
    case BinaryFn::gt: return cmp(P::OGT);
    case BinaryFn::le: return cmp(P::OLE);
    case BinaryFn::ge: return cmp(P::OGE);
    default: return l;
    }
  }
  bool u = isUnsignedElement(elt);
  using P = arith::CmpIPredicate;
  auto cmp = [&](P p) { return arith::CmpIOp::create(b, loc, p, l, r); };
  switch (fn) {
  case BinaryFn::add: return arith::AddIOp::create(b, loc, l, r);
  case BinaryFn::sub: return arith::SubIOp::create(b, loc, l, r);
  case BinaryFn::mul: return arith::MulIOp::create(b, loc, l, r);
  case BinaryFn::div:
    return u ? Value(arith::DivUIOp::create(b, loc, l, r))
             : Value(arith::DivSIOp::create(b, loc, l, r));
  case BinaryFn::pow: return math::IPowIOp::create(b, loc, l, r);
  case BinaryFn::max:
    return u ? Value(arith::MaxUIOp::create(b, loc, l, r))
             : Value(arith::MaxSIOp::create(b, loc, l, r));
  case BinaryFn::min:
    return u ? Value(arith::MinUIOp::create(b, loc, l, r))
             : Value(arith::MinSIOp::create(b, loc, l, r));
  case BinaryFn::fmod:
    return u ? Value(arith::RemUIOp::create(b, loc, l, r))
             : Value(arith::RemSIOp::create(b, loc, l, r));
  case BinaryFn::mod: {
    if (u)
      return arith::RemUIOp::create(b, loc, l, r);
    Value rem = arith::RemSIOp::create(b, loc, l, r);
    Value zero = emitConstant(b, loc, t, 0);
    Value nz = arith::CmpIOp::create(b, loc, P::ne, rem, zero);
    Value differ = arith::XOrIOp::create(
        b, loc, arith::CmpIOp::create(b, loc, P::slt, rem, zero),
        arith::CmpIOp::create(b, loc, P::slt, r, zero));
    return arith::SelectOp::create(b, loc,
                                   arith::AndIOp::create(b, loc, nz, differ),
                                   arith::AddIOp::create(b, loc, rem, r), rem);
  }
  case BinaryFn::eq: return cmp(P::eq);
  case BinaryFn::lt: return cmp(u ? P::ult : P::slt);
  case BinaryFn::gt: return cmp(u ? P::ugt : P::sgt);
  case BinaryFn::le: return cmp(u ? P::ule : P::sle);
  case BinaryFn::ge: return cmp(u ? P::uge : P::sge);
  case BinaryFn::and_: return arith::AndIOp::create(b, loc, l, r);
  case BinaryFn::or_: return arith::OrIOp::create(b, loc, l, r);
  case BinaryFn::xor_: return arith::XOrIOp::create(b, loc, l, r);
  case BinaryFn::shl:
  case BinaryFn::shr: {
    // arith's shifts are poison from the bit width on; ONNX's give 0 (and
    // the sign for an arithmetic right shift of a negative value).
    Value width = emitConstant(b, loc, t, t.getIntOrFloatBitWidth());
    Value far = arith::CmpIOp::create(b, loc, P::uge, r, width);
    Value amount = arith::SelectOp::create(
        b, loc, far, emitConstant(b, loc, t, 0), r);
    Value shifted =
        fn == BinaryFn::shl ? Value(arith::ShLIOp::create(b, loc, l, amount))
        : u                 ? Value(arith::ShRUIOp::create(b, loc, l, amount))
                            : Value(arith::ShRSIOp::create(b, loc, l, amount));
    Value farValue =
        fn == BinaryFn::shr && !u
            ? Value(arith::ShRSIOp::create(
                  b, loc, l,
                  emitConstant(b, loc, t, t.getIntOrFloatBitWidth() - 1)))
            : emitConstant(b, loc, t, 0);
    return arith::SelectOp::create(b, loc, far, farValue, shifted);
  }
  }
  return l;
}

Value lowering::emitCast(OpBuilder &b, Location loc, Value x, Type from,
                         Type to) {
  Type src = signlessType(from), dst = signlessType(to);
  if (src == dst)
    return x;
  auto sf = dyn_cast<FloatType>(src);
  auto df = dyn_cast<FloatType>(dst);
  if (sf && df) {
    if (sf.getWidth() == df.getWidth()) // f16 <-> bf16: through f32
      x = arith::ExtFOp::create(b, loc, b.getF32Type(), x), sf = b.getF32Type();
    if (sf.getWidth() < df.getWidth())
      return arith::ExtFOp::create(b, loc, df, x);
    return arith::TruncFOp::create(b, loc, df, x);
  }
  if (sf) {
    if (dst.isInteger(1))
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, x,
                                   emitConstant(b, loc, src, 0));
    return isUnsignedElement(to) ? Value(arith::FPToUIOp::create(b, loc, dst, x))
                                 : Value(arith::FPToSIOp::create(b, loc, dst, x));
  }
  bool u = isUnsignedElement(from);
  if (df)
    return u ? Value(arith::UIToFPOp::create(b, loc, dst, x))
             : Value(arith::SIToFPOp::create(b, loc, dst, x));
  if (dst.isInteger(1))
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x,
                                 emitConstant(b, loc, src, 0));
  unsigned sw = src.getIntOrFloatBitWidth(), dw = dst.getIntOrFloatBitWidth();
  if (sw > dw)
    return arith::TruncIOp::create(b, loc, dst, x);
  if (sw == dw)
    return x;
  return u ? Value(arith::ExtUIOp::create(b, loc, dst, x))
           : Value(arith::ExtSIOp::create(b, loc, dst, x));
}
