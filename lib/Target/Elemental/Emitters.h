//===- Emitters.h - Per-op-family element emitters (internal) ---*- C++ -*-===//
//
// Internal to lib/Target/Elemental. ElementalEmitter.cpp dispatches each op
// to its family's function; the families call back into the emitter for
// their operands' elements.
//
//===----------------------------------------------------------------------===//
#ifndef BWC_LIB_TARGET_ELEMENTAL_EMITTERS_H
#define BWC_LIB_TARGET_ELEMENTAL_EMITTERS_H

#include "bwc/Dialect/BWC/IR/BWCOps.h"
#include "bwc/Target/Elemental/ElementalEmitter.h"

namespace mlir::bwc::elemental {

/// An `index` constant.
Value indexConst(OpBuilder &b, Location loc, int64_t v);
/// `x` clamped to [lo, hi] (index values).
Value clampIndex(OpBuilder &b, Location loc, Value x, int64_t lo, int64_t hi);
/// The index into an operand of shape `in` that numpy broadcasting reads
/// for element `index` of a result of shape `out`.
SmallVector<Value> broadcastIndex(OpBuilder &b, Location loc, ValueRange index,
                                  ArrayRef<int64_t> out, ArrayRef<int64_t> in);
/// The shape of a ranked tensor value.
ArrayRef<int64_t> shapeOf(Value v);
/// The bwc element type of a ranked tensor value.
Type elementOf(Value v);

/// The body of a loop nest: gets the induction variables and the iteration
/// values, returns the next iteration values (or failure).
using LoopBody = function_ref<FailureOr<SmallVector<Value>>(
    OpBuilder &, Location, ValueRange ivs, ValueRange iterArgs)>;
/// A perfect nest of scf.for over [0, sizes[i]) carrying `inits`; returns
/// the final values. No loop (the body runs once) for an empty `sizes`.
FailureOr<SmallVector<Value>> buildLoops(OpBuilder &b, Location loc,
                                         ArrayRef<int64_t> sizes,
                                         ValueRange inits, LoopBody body);

// One function per op family; `op` is the defining op of the value asked
// for, `index` the element's index in its result.
FailureOr<Value> emitElementwise(ElementalEmitter &e, OpBuilder &b,
                                 Location loc, Operation *op, ValueRange index);
FailureOr<Value> emitDataMovement(ElementalEmitter &e, OpBuilder &b,
                                  Location loc, Operation *op,
                                  ValueRange index);
FailureOr<Value> emitReduction(ElementalEmitter &e, OpBuilder &b, Location loc,
                               Operation *op, ValueRange index);
FailureOr<Value> emitContraction(ElementalEmitter &e, OpBuilder &b,
                                 Location loc, Operation *op, ValueRange index);
/// The elements `indices` of `op` in one loop nest, one accumulator each
/// (ElementalEmitter::emitGroup).
FailureOr<SmallVector<Value>> emitConvGroup(ElementalEmitter &e, OpBuilder &b,
                                            Location loc, ConvOp op,
                                            ArrayRef<SmallVector<Value>> indices);

} // namespace mlir::bwc::elemental

#endif // BWC_LIB_TARGET_ELEMENTAL_EMITTERS_H
