//===- ElementalKernels.h - CPU kernels from the elemental emitter -*- C++ -*-===//
#ifndef BWC_TARGET_CPU_ELEMENTALKERNELS_H
#define BWC_TARGET_CPU_ELEMENTALKERNELS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::bwc {

/// Replaces `kernel` (a `bwc.kernel` function on tensors) by a function of
/// the same name on flat buffers, `(memref<N x T> in..., memref<N x T>
/// out...) -> ()`, whose body loops over the elements of its results with
/// the ElementalEmitter: a row loop (each reduction once per row, then the
/// row's outputs) when its reductions share one row structure, else one
/// loop nest per output shape. Errors go to the op the emitter cannot
/// handle; the kernel is then left unchanged.
LogicalResult emitElementalKernel(func::FuncOp kernel,
                                  bool convViaGemm = false);

} // namespace mlir::bwc

#endif // BWC_TARGET_CPU_ELEMENTALKERNELS_H
