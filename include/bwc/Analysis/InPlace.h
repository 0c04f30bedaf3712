//===- InPlace.h - May a kernel write a result over an input ---*- C++ -*-===//
//
// The part of the in-place decision that depends on the kernel alone (not on
// the launch order): bwc-plan-buffers and bwc-rematerialize share it.
//
//===----------------------------------------------------------------------===//
#ifndef BWC_ANALYSIS_INPLACE_H
#define BWC_ANALYSIS_INPLACE_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include <string>

namespace mlir::bwc {

/// True for the ops an in-place kernel may run (elementwise ones).
bool isElementwise(Operation *op);

/// Why result `resultIdx` of `kernel` cannot be written over its argument
/// `operandIdx`, or "" when it can: the kernel must be elementwise (only
/// bwc.unary/binary/select/cast/constant), or with `epilogues` may run
/// anything else provided every value computed from that argument is
/// elementwise at its shape (an update fused into a contraction's or a
/// reduction's epilogue: SGD's w - lr * grad, which code generators that
/// emit each output's epilogue where they store it, the elemental ones,
/// compute in place); it must read that argument only at its own shape,
/// in ops before (or at) the one producing the result, and feed any other
/// result only through this result's value and at its shape (the code
/// generators may compute another result after storing this one). The
/// caller checks the types and the live range.
std::string kernelInPlaceRefusal(func::FuncOp kernel, unsigned resultIdx,
                                 unsigned operandIdx, bool epilogues = false);

} // namespace mlir::bwc

#endif // BWC_ANALYSIS_INPLACE_H
