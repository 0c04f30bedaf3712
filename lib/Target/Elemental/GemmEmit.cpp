//===- GemmEmit.cpp - The GEMM view's elements as IR ----------------------===//
#include "bwc/Target/Elemental/GemmEmit.h"

#include "Emitters.h"
#include "bwc/Conversion/BWCToLinalg/ScalarOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::bwc;
using namespace mlir::bwc::elemental;

Value IRArith::c(int64_t x) { return indexConst(b, loc, x); }
Value IRArith::add(Value x, Value y) {
  return b.createOrFold<arith::AddIOp>(loc, x, y);
}
Value IRArith::mulC(Value x, int64_t k) {
  return b.createOrFold<arith::MulIOp>(loc, x, c(k));
}
Value IRArith::divC(Value x, int64_t k) {
  return k == 1 ? x : b.createOrFold<arith::DivUIOp>(loc, x, c(k));
}
Value IRArith::remC(Value x, int64_t k) {
  return k == 1 ? c(0) : b.createOrFold<arith::RemUIOp>(loc, x, c(k));
}
Value IRArith::inRange(Value x, int64_t n) {
  return b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::ult, x,
                                       c(n));
}
Value IRArith::andB(Value x, Value y) {
  return b.createOrFold<arith::AndIOp>(loc, x, y);
}
Value IRArith::clamp(Value x, int64_t lo, int64_t hi) {
  return clampIndex(b, loc, x, lo, hi);
}

FailureOr<Value> mlir::bwc::emitGemmOperand(ElementalEmitter &e, OpBuilder &b,
                                            Location loc, const GemmView &view,
                                            bool isA, ValueRange batch,
                                            Value i, Value j) {
  IRArith ar{b, loc};
  SmallVector<Value> bv(batch);
  GemmAccess<Value> at =
      isA ? view.a(ar, bv, i, j) : view.b(ar, bv, i, j);
  Value t = isA ? view.aTensor() : view.bTensor();
  FailureOr<Value> x = e.emit(b, loc, t, at.index);
  if (failed(x) || !at.valid)
    return x;
  Value zero = arith::ConstantOp::create(
      b, loc, cast<TypedAttr>(b.getZeroAttr(x->getType())));
  return arith::SelectOp::create(b, loc, *at.valid, *x, zero).getResult();
}

FailureOr<Value> mlir::bwc::emitGemmResult(ElementalEmitter &e, OpBuilder &b,
                                           Location loc, const GemmView &view,
                                           Value acc, ValueRange batch,
                                           Value m, Value n) {
  Type elt = cast<ShapedType>(view.result().getType()).getElementType();
  Type accType = acc.getType();
  if (Value bias = view.bias()) {
    FailureOr<Value> bv =
        e.emit(b, loc, bias, ValueRange{view.biasAlongM() ? m : n});
    if (failed(bv))
      return failure();
    acc = arith::AddFOp::create(
        b, loc, acc, lowering::emitCast(b, loc, *bv, elementOf(bias), accType));
  }
  return lowering::emitCast(b, loc, acc, accType, elt);
}
