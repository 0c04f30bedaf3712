//===- BWCBuilder.h - Shape-inferring builder of bwc ops --------*- C++ -*-===//
//
// Builds bwc ops with their result types computed from the operands (numpy
// broadcasting, reductions, ...) and folds them on the spot (createOrFold),
// so the importer and decomposition code read like the math they encode.
//
//===----------------------------------------------------------------------===//
#ifndef BWC_DIALECT_BWC_UTILS_BWCBUILDER_H
#define BWC_DIALECT_BWC_UTILS_BWCBUILDER_H

#include "bwc/Dialect/BWC/IR/BWCOps.h"
#include "mlir/IR/Builders.h"

namespace mlir::bwc {

class BWCBuilder {
public:
  BWCBuilder(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  OpBuilder &builder() { return b; }
  Location getLoc() const { return loc; }

  static RankedTensorType typeOf(Value v) {
    return llvm::cast<RankedTensorType>(v.getType());
  }
  static ArrayRef<int64_t> shapeOf(Value v) { return typeOf(v).getShape(); }
  static Type elementTypeOf(Value v) { return typeOf(v).getElementType(); }

  /// A rank-0 constant of element type `elt` (float or integer).
  Value scalar(double value, Type elt);
  /// A 1-D i64 constant.
  Value i64Vector(ArrayRef<int64_t> values);
  Value constant(ElementsAttr value);

  Value unary(UnaryFn fn, Value x);
  /// Broadcasting binary op; the result type follows numpy rules.
  Value binary(BinaryFn fn, Value lhs, Value rhs);
  Value select(Value cond, Value onTrue, Value onFalse);
  /// Converts `x` to element type `elt` (no-op when it already is).
  Value cast(Value x, Type elt);

  Value reduce(ReduceKind kind, Value x, ArrayRef<int64_t> axes, bool keepDims);
  Value transpose(Value x, ArrayRef<int64_t> perm);
  Value reshape(Value x, ArrayRef<int64_t> shape);
  Value broadcastTo(Value x, ArrayRef<int64_t> shape);
  /// Strided slice; `sizes` are the result sizes.
  Value slice(Value x, ArrayRef<int64_t> starts, ArrayRef<int64_t> sizes,
              ArrayRef<int64_t> steps);
  Value concat(ValueRange xs, int64_t axis);
  Value matmul(Value lhs, Value rhs);

  // Shorthands for the common arithmetic.
  Value add(Value a, Value b) { return binary(BinaryFn::add, a, b); }
  Value sub(Value a, Value b) { return binary(BinaryFn::sub, a, b); }
  Value mul(Value a, Value b) { return binary(BinaryFn::mul, a, b); }
  Value div(Value a, Value b) { return binary(BinaryFn::div, a, b); }
  Value max(Value a, Value b) { return binary(BinaryFn::max, a, b); }
  Value min(Value a, Value b) { return binary(BinaryFn::min, a, b); }

private:
  OpBuilder &b;
  Location loc;
};

} // namespace mlir::bwc

#endif // BWC_DIALECT_BWC_UTILS_BWCBUILDER_H
