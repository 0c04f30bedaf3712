//===- BWCBuilder.cpp - Shape-inferring builder of bwc ops ----------------===//
#include "bwc/Dialect/BWC/Utils/BWCBuilder.h"
#include "bwc/Dialect/BWC/Utils/ShapeUtils.h"

#include "llvm/Support/ErrorHandling.h"

using namespace mlir;
using namespace mlir::bwc;

Value BWCBuilder::scalar(double value, Type elt) {
  auto type = RankedTensorType::get({}, elt);
  if (auto ft = dyn_cast<FloatType>(elt)) {
    APFloat v(value);
    bool lost;
    v.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    return constant(DenseElementsAttr::get(type, v));
  }
  auto it = llvm::cast<IntegerType>(elt);
  return constant(DenseElementsAttr::get(
      type, APInt(it.getWidth(), (uint64_t)(int64_t)value, !it.isUnsigned(),
                  /*implicitTrunc=*/true)));
}

Value BWCBuilder::i64Vector(ArrayRef<int64_t> values) {
  auto type = RankedTensorType::get({(int64_t)values.size()}, b.getI64Type());
  return constant(DenseElementsAttr::get(type, values));
}

Value BWCBuilder::constant(ElementsAttr value) {
  return ConstantOp::create(b, loc, value);
}

Value BWCBuilder::unary(UnaryFn fn, Value x) {
  return b.createOrFold<UnaryOp>(loc, x.getType(), fn, x);
}

Value BWCBuilder::binary(BinaryFn fn, Value lhs, Value rhs) {
  SmallVector<int64_t> shape =
      broadcastShapes(shapeOf(lhs), shapeOf(rhs)).value_or(
          SmallVector<int64_t>(shapeOf(lhs)));
  Type elt = elementTypeOf(lhs);
  switch (fn) {
  case BinaryFn::eq:
  case BinaryFn::lt:
  case BinaryFn::gt:
  case BinaryFn::le:
  case BinaryFn::ge:
    elt = b.getI1Type();
    break;
  default:
    break;
  }
  // Ill-formed operands still build; the verifier then names the problem.
  return b.createOrFold<BinaryOp>(loc, RankedTensorType::get(shape, elt), fn,
                                  lhs, rhs);
}

Value BWCBuilder::select(Value cond, Value onTrue, Value onFalse) {
  SmallVector<int64_t> shape(shapeOf(cond));
  for (Value v : {onTrue, onFalse})
    shape = broadcastShapes(shape, shapeOf(v)).value_or(shape);
  return b.createOrFold<SelectOp>(
      loc, RankedTensorType::get(shape, elementTypeOf(onTrue)), cond, onTrue,
      onFalse);
}

Value BWCBuilder::cast(Value x, Type elt) {
  if (elementTypeOf(x) == elt)
    return x;
  return b.createOrFold<CastOp>(loc, typeOf(x).clone(elt), x);
}

Value BWCBuilder::reduce(ReduceKind kind, Value x, ArrayRef<int64_t> axes,
                         bool keepDims) {
  auto type = RankedTensorType::get(reducedShape(shapeOf(x), axes, keepDims),
                                    elementTypeOf(x));
  return ReduceOp::create(b, loc, type, kind, x, axes, keepDims);
}

Value BWCBuilder::transpose(Value x, ArrayRef<int64_t> perm) {
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(shapeOf(x)[p]);
  return b.createOrFold<TransposeOp>(
      loc, RankedTensorType::get(shape, elementTypeOf(x)), x,
      b.getDenseI64ArrayAttr(perm));
}

Value BWCBuilder::reshape(Value x, ArrayRef<int64_t> shape) {
  return b.createOrFold<ReshapeOp>(
      loc, RankedTensorType::get(shape, elementTypeOf(x)), x);
}

Value BWCBuilder::broadcastTo(Value x, ArrayRef<int64_t> shape) {
  return b.createOrFold<BroadcastOp>(
      loc, RankedTensorType::get(shape, elementTypeOf(x)), x);
}

Value BWCBuilder::slice(Value x, ArrayRef<int64_t> starts,
                        ArrayRef<int64_t> sizes, ArrayRef<int64_t> steps) {
  return b.createOrFold<SliceOp>(
      loc, RankedTensorType::get(sizes, elementTypeOf(x)), x,
      b.getDenseI64ArrayAttr(starts), b.getDenseI64ArrayAttr(steps));
}

Value BWCBuilder::concat(ValueRange xs, int64_t axis) {
  SmallVector<int64_t> shape(shapeOf(xs.front()));
  shape[axis] = 0;
  for (Value v : xs)
    shape[axis] += shapeOf(v)[axis];
  return b.createOrFold<ConcatOp>(
      loc, RankedTensorType::get(shape, elementTypeOf(xs.front())), xs,
      b.getI64IntegerAttr(axis));
}

Value BWCBuilder::matmul(Value lhs, Value rhs) {
  ArrayRef<int64_t> l = shapeOf(lhs), r = shapeOf(rhs);
  SmallVector<int64_t> shape =
      broadcastShapes(l.drop_back(2), r.drop_back(2))
          .value_or(SmallVector<int64_t>(l.drop_back(2)));
  shape.push_back(l[l.size() - 2]);
  shape.push_back(r.back());
  return MatmulOp::create(b, loc,
                          RankedTensorType::get(shape, elementTypeOf(lhs)),
                          lhs, rhs, /*acc_type=*/nullptr);
}
