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
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
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
// Window helpers (ContractionToLinalg.cpp; conv and pool share them)
//===----------------------------------------------------------------------===//

/// Iterators: `parallel` parallel dims then `reduction` reduction dims.
SmallVector<utils::IteratorType> iterators(int64_t parallel, int64_t reduction);
/// The type a contraction sums in: its `acc_type` when set, else f32 for
/// f16/bf16, else `elt` (ElementalEmitter::accumulatorType's rule).
Type accumulatorType(std::optional<Type> acc, Type elt);
/// The physical positions of the logical spatial dims (2...) of a tensor
/// stored in the order `perm` (channels-first: 2...; channels-last: 1...).
SmallVector<int64_t> spatialDims(ArrayRef<int64_t> perm);
/// `maps` with their results in physical order (result i of map m is its
/// logical result perms[m][i]; an empty perm keeps the map) and loop l
/// renamed to loopPos[l]: how a channels_last op reuses the channels-first
/// maps with its own loop order.
SmallVector<AffineMap> permuteMaps(ArrayRef<AffineMap> maps,
                                   ArrayRef<SmallVector<int64_t>> perms,
                                   ArrayRef<int64_t> loopPos);
/// Pads the spatial dims of `x` (physical positions `dims`) with `value`.
Value padSpatial(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> lo,
                 ArrayRef<int64_t> hi, TypedAttr value, ArrayRef<int64_t> dims);
/// The indexing maps of a sliding window over `numLoops` loops: the input
/// reads (inLead..., o*s + k*d), the window (winLead..., k) and the output
/// (outLead..., o), with o = dim(firstOut + i) and k = dim(firstTap + i).
SmallVector<AffineMap> slidingWindowMaps(MLIRContext *ctx, int64_t numLoops,
                                         ArrayRef<AffineExpr> inLead,
                                         ArrayRef<AffineExpr> winLead,
                                         ArrayRef<AffineExpr> outLead,
                                         int64_t firstOut, int64_t firstTap,
                                         ArrayRef<int64_t> strides,
                                         ArrayRef<int64_t> dilations);

//===----------------------------------------------------------------------===//
// Pattern families
//===----------------------------------------------------------------------===//

void populateElementwisePatterns(const TypeConverter &tc,
                                 RewritePatternSet &patterns);
void populateReductionPatterns(const TypeConverter &tc,
                               RewritePatternSet &patterns);
void populateContractionPatterns(const TypeConverter &tc,
                                 RewritePatternSet &patterns);
void populatePoolPatterns(const TypeConverter &tc, RewritePatternSet &patterns);
void populateDataMovementPatterns(const TypeConverter &tc,
                                  RewritePatternSet &patterns);
void populateResizePatterns(const TypeConverter &tc,
                            RewritePatternSet &patterns);

} // namespace mlir::bwc::lowering

#endif // BWC_LIB_CONVERSION_BWCTOLINALG_PATTERNS_H
