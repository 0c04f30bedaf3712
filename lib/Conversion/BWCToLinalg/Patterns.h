//===- Patterns.h - Shared pieces of the bwc to linalg lowering -*- C++ -*-===//
//
// Internal to lib/Conversion/BWCToLinalg. Each op family has its own file
// with a populate function; ScalarOps.cpp holds the per-element math that
// elementwise kernels (and later fused GPU kernels) share.
//
//===----------------------------------------------------------------------===//
#ifndef BWC_LIB_CONVERSION_BWCTOLINALG_PATTERNS_H
#define BWC_LIB_CONVERSION_BWCTOLINALG_PATTERNS_H

#include "bwc/Conversion/BWCToLinalg/ScalarOps.h"
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
