//===- Passes.h - bwc graph and program passes ------------------*- C++ -*-===//
#ifndef BWC_TRANSFORMS_PASSES_H
#define BWC_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::bwc {

/// Unit attribute marking a function as one kernel (one launch).
constexpr llvm::StringLiteral kKernelAttrName = "bwc.kernel";
/// String attribute on a kernel: `loop`, `reduction` or `contraction`.
constexpr llvm::StringLiteral kKernelKindAttrName = "bwc.kind";
/// Dictionary attribute on a kernel: its emitter and launch configuration
/// (bwc-configure-kernels).
constexpr llvm::StringLiteral kKernelConfigAttrName = "bwc.config";

/// The program function `name` of `module`, or null after an error naming
/// it (every program pass starts here).
inline func::FuncOp lookupProgram(ModuleOp module, StringRef name) {
  auto program = module.lookupSymbol<func::FuncOp>(name);
  if (!program)
    module.emitError() << "expects a program function named '" << name << "'";
  return program;
}

#define GEN_PASS_DECL
#include "bwc/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "bwc/Transforms/Passes.h.inc"

} // namespace mlir::bwc

#endif // BWC_TRANSFORMS_PASSES_H
