//===- GemmEmit.h - The GEMM view's elements as IR --------------*- C++ -*-===//
//
// GemmView (include/bwc/Analysis/GemmView.h) instantiated on IR values:
// the A and B elements a tiled contraction stages, and the result element
// from its sum, each through the ElementalEmitter (so a fused producer of
// an operand is computed in place). Used by the CUDA contraction_tiled
// driver and by the CPU elemental check of the view (bwc-compile
// --elemental-conv=gemm).
//
//===----------------------------------------------------------------------===//
#ifndef BWC_TARGET_ELEMENTAL_GEMMEMIT_H
#define BWC_TARGET_ELEMENTAL_GEMMEMIT_H

#include "bwc/Analysis/GemmView.h"
#include "bwc/Target/Elemental/ElementalEmitter.h"

namespace mlir::bwc {

/// GemmView's arithmetic on `index` values (all non-negative except a
/// convolution tap's position before its clamp).
struct IRArith {
  OpBuilder &b;
  Location loc;
  using V = Value;
  V c(int64_t x);
  V add(V x, V y);
  V mulC(V x, int64_t k);
  V divC(V x, int64_t k);
  V remC(V x, int64_t k);
  /// 0 <= x < n as one unsigned compare (i1).
  V inRange(V x, int64_t n);
  V andB(V x, V y);
  V clamp(V x, int64_t lo, int64_t hi);
};

/// Element (i, j) of A (`isA`: (m, k)) or B ((k, n)) of `view` for batch
/// index `batch`, in the operand's element type; 0 for a tap in a
/// convolution's padding.
FailureOr<Value> emitGemmOperand(ElementalEmitter &e, OpBuilder &b,
                                 Location loc, const GemmView &view, bool isA,
                                 ValueRange batch, Value i, Value j);
/// The result element of (batch, m, n) from its sum `acc` (the op's
/// accumulator type): plus the convolution's bias, rounded to the result's
/// element type, as the elemental emitter computes the op.
FailureOr<Value> emitGemmResult(ElementalEmitter &e, OpBuilder &b,
                                Location loc, const GemmView &view, Value acc,
                                ValueRange batch, Value m, Value n);

} // namespace mlir::bwc

#endif // BWC_TARGET_ELEMENTAL_GEMMEMIT_H
