//===- Pipeline.h - Lowering linalg-on-tensors to LLVM for the CPU -*- C++ -*-//
#ifndef BWC_TARGET_CPU_PIPELINE_H
#define BWC_TARGET_CPU_PIPELINE_H

#include "mlir/Pass/PassManager.h"

namespace mlir::bwc {

/// From bwc ops on tensors to the LLVM dialect for the host CPU: bwc to
/// linalg, the kernels' buffer ABI (bwc-kernels-to-buffers), One-Shot
/// Bufferize (tensor.empty written into the destination),
/// buffer deallocation, loops, and the LLVM conversions. Function arguments
/// that are memrefs become bare pointers (the kernel ABI of the artifact).
void buildCPULoweringPipeline(OpPassManager &pm);

/// The same result through the elemental emitter instead of linalg
/// (`--codegen=elemental`): bwc-emit-elemental-kernels writes scalar loops
/// on flat buffers, then buildCPULoopsToLLVMPipeline.
void buildCPUElementalLoweringPipeline(OpPassManager &pm,
                                       bool convViaGemm = false);

/// From scf loops on memrefs (arith, math, memref) to the LLVM dialect: the
/// tail both CPU pipelines share.
void buildCPULoopsToLLVMPipeline(OpPassManager &pm);

/// Registers `bwc-cpu-lowering` and `bwc-cpu-elemental-lowering` for
/// bwc-opt.
void registerCPULoweringPipeline();

} // namespace mlir::bwc

#endif // BWC_TARGET_CPU_PIPELINE_H
