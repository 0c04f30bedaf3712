//===- Patterns.h - Shared pieces of the bwc to linalg lowering -*- C++ -*-===//
//
// Internal to lib/Conversion/BWCToLinalg. Each op family has its own file
// with a populate function; ScalarOps.cpp holds the per-element math that
// elementwise kernels (and later fused GPU kernels) share.
//
//===----------------------------------------------------------------------===//
#ifndef BWC_LIB_CONVERSION_BWCTOLINALG_PATTERNS_H
#define BWC_LIB_CONVERSION_BWCTOLINALG_PATTERNS_H

#include "bwc/Dialect/BWC/IR/BWCOps.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::bwc::lowering {

/// Maps tensors of unsigned integers to signless ones (arith works on
/// signless integers only); ops keep the signedness from the bwc types.
class BWCTypeConverter : public TypeConverter {
public:
  BWCTypeConverter();
};

/// Signless version of a bwc element type (ui8 -> i8, others unchanged).
Type signlessType(Type t);
/// True for unsigned integer element types, and i1.
bool isUnsignedElement(Type t);

//===----------------------------------------------------------------------===//
// Per-element math, on signless scalars. `elt` is the bwc element type (it
// carries signedness).
//===----------------------------------------------------------------------===//

Value emitUnary(OpBuilder &b, Location loc, UnaryFn fn, Value x, Type elt);
/// `elt` is the operands' bwc element type; comparisons return i1.
Value emitBinary(OpBuilder &b, Location loc, BinaryFn fn, Value lhs, Value rhs,
                 Type elt);
/// ONNX Cast semantics from bwc element type `from` to `to`.
Value emitCast(OpBuilder &b, Location loc, Value x, Type from, Type to);
/// A scalar constant of (signless) type `t`.
Value emitConstant(OpBuilder &b, Location loc, Type t, double value);

//===----------------------------------------------------------------------===//
// Indexing helpers
//===----------------------------------------------------------------------===//

/// The indexing map reading an operand of shape `in` broadcast (numpy) to
/// an iteration space of shape `out`: size-1 dims that broadcast read index
/// 0, missing leading dims are dropped.
AffineMap broadcastMap(ArrayRef<int64_t> in, ArrayRef<int64_t> out,
                       MLIRContext *ctx);
/// `tensor.empty` of the converted type of `type`.
Value emptyTensor(OpBuilder &b, Location loc, RankedTensorType type);
/// The largest (or lowest) value of signless scalar type `t`: +-inf for
/// floats; `elt`, the bwc element type, gives the signedness of integers.
TypedAttr extremeAttr(Type t, Type elt, bool largest);
/// A tensor of `shape` filled with `value` (linalg.fill of tensor.empty).
Value filledTensor(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                   TypedAttr value);

//===----------------------------------------------------------------------===//
// Pattern families
//===----------------------------------------------------------------------===//

void populateElementwisePatterns(const TypeConverter &tc,
                                 RewritePatternSet &patterns);
void populateReductionPatterns(const TypeConverter &tc,
                               RewritePatternSet &patterns);
void populateContractionPatterns(const TypeConverter &tc,
                                 RewritePatternSet &patterns);
void populateDataMovementPatterns(const TypeConverter &tc,
                                  RewritePatternSet &patterns);
void populateResizePatterns(const TypeConverter &tc,
                            RewritePatternSet &patterns);

} // namespace mlir::bwc::lowering

#endif // BWC_LIB_CONVERSION_BWCTOLINALG_PATTERNS_H
