//===- Pipeline.cpp - Lowering linalg-on-tensors to LLVM for the CPU ------===//
#include "bwc/Target/CPU/Pipeline.h"
#include "bwc/Conversion/Passes.h"
#include "bwc/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void mlir::bwc::buildCPULoweringPipeline(OpPassManager &pm) {
  pm.addPass(createConvertBWCToLinalgPass());
  // Inside a fused kernel, elementwise generics merge into their consumers
  // so the intermediates become scalars in registers instead of buffers.
  pm.addPass(createLinalgElementwiseOpFusionPass());
  // After the lowering, so that kernel signatures are already signless.
  pm.addPass(createKernelsToBuffersPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(bufferization::createEmptyTensorEliminationPass());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  bufferization::buildBufferDeallocationPipeline(pm);
  pm.addPass(createCopiesToLinalgPass());
  pm.addPass(createConvertLinalgToLoopsPass());
  buildCPULoopsToLLVMPipeline(pm);
}

void mlir::bwc::buildCPUElementalLoweringPipeline(OpPassManager &pm,
                                                  bool convViaGemm) {
  EmitElementalKernelsPassOptions options;
  options.convViaGemm = convViaGemm;
  pm.addPass(createEmitElementalKernelsPass(options));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  buildCPULoopsToLLVMPipeline(pm);
}

void mlir::bwc::buildCPULoopsToLLVMPipeline(OpPassManager &pm) {
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  // bf16 arithmetic and math in f32 registers (the conversions are then
  // expanded below), so that no bf16 libcall is left for LLVM to emit.
  arith::ArithEmulateUnsupportedFloatsOptions emulate;
  emulate.sourceTypeStrs = {"bf16"};
  emulate.targetTypeStr = "f32";
  pm.addPass(arith::createArithEmulateUnsupportedFloats(emulate));
  pm.addPass(math::createMathExtendToSupportedTypes());
  // bf16 conversions as integer arithmetic: Debian 12's libgcc has no
  // __truncsfbf2.
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addPass(arith::createArithExpandOpsPass(expand));
  pm.addPass(createConvertMathToFuncs());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  ConvertFuncToLLVMPassOptions func;
  func.useBarePtrCallConv = true;
  pm.addPass(createConvertFuncToLLVMPass(func));
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  // bf16 values that are only moved, as i16: no promotion to f32 and no
  // __truncsfbf2 in copy kernels.
  pm.addPass(createBf16MemoryAsI16Pass());
  pm.addPass(createCanonicalizerPass());
}

void mlir::bwc::registerCPULoweringPipeline() {
  PassPipelineRegistration<>(
      "bwc-cpu-lowering",
      "Lower bwc ops on tensors to the LLVM dialect for the host CPU",
      buildCPULoweringPipeline);
  PassPipelineRegistration<>(
      "bwc-cpu-elemental-lowering",
      "Lower bwc kernels to the LLVM dialect for the host CPU through the "
      "elemental emitter",
      [](OpPassManager &pm) { buildCPUElementalLoweringPipeline(pm); });
}
