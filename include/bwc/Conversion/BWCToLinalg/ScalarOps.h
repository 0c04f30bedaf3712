//===- ScalarOps.h - Per-element math of bwc ops, shared by emitters -*- C++ -*-===//
//
// What one element of bwc.unary / bwc.binary / bwc.cast / bwc.resize
// computes, as arith and math ops on signless scalars. Used by the linalg
// lowering (inside linalg.generic bodies) and by the elemental emitter
// (lib/Target/Elemental), so both backends share one definition of the
// scalar semantics. `elt` arguments are bwc element types (they carry the
// signedness that the signless scalars lost).
//
//===----------------------------------------------------------------------===//
#ifndef BWC_CONVERSION_BWCTOLINALG_SCALAROPS_H
#define BWC_CONVERSION_BWCTOLINALG_SCALAROPS_H

#include "bwc/Dialect/BWC/IR/BWCOps.h"
#include "mlir/IR/Builders.h"

namespace mlir::bwc::lowering {

/// Signless version of a bwc element type (ui8 -> i8, others unchanged).
Type signlessType(Type t);
/// True for unsigned integer element types, and i1.
bool isUnsignedElement(Type t);

Value emitUnary(OpBuilder &b, Location loc, UnaryFn fn, Value x, Type elt);
/// `elt` is the operands' bwc element type; comparisons return i1.
Value emitBinary(OpBuilder &b, Location loc, BinaryFn fn, Value lhs, Value rhs,
                 Type elt);
/// ONNX Cast semantics from bwc element type `from` to `to`.
Value emitCast(OpBuilder &b, Location loc, Value x, Type from, Type to);
/// A scalar constant of (signless) type `t`.
Value emitConstant(OpBuilder &b, Location loc, Type t, double value);
/// The largest (or lowest) value of signless scalar type `t`: +-inf for
/// floats; `elt`, the bwc element type, gives the signedness of integers.
TypedAttr extremeAttr(Type t, Type elt, bool largest);

/// The input index a reflect or edge bwc.pad reads along one dim for output
/// index `index` (an `index` value): begin pad `lo`, input length `len`.
/// Always inside [0, len).
Value emitPadSourceIndex(OpBuilder &b, Location loc, Value index, int64_t lo,
                         int64_t len, bool reflect);

/// The most input elements one output element of a bwc.resize may read.
constexpr int64_t kMaxResizeTaps = 256;
/// How many input elements one output element of `op` reads.
int64_t resizeTapCount(ResizeOp op);
/// Element `index` of `op`'s result (signless); `read` returns the input
/// element at an input index (every index it is given is inside the input).
/// `op`'s input must have no zero-size dim.
Value emitResizeElement(OpBuilder &b, Location loc, ResizeOp op,
                        ArrayRef<Value> index,
                        function_ref<Value(ArrayRef<Value>)> read);

} // namespace mlir::bwc::lowering

#endif // BWC_CONVERSION_BWCTOLINALG_SCALAROPS_H
