//===- Passes.h - CUDA target passes ----------------------------*- C++ -*-===//
#ifndef BWC_TARGET_CUDA_PASSES_H
#define BWC_TARGET_CUDA_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::bwc {

/// Module attribute of the cuda-sim host module: the site table.
constexpr llvm::StringLiteral kSimSitesAttrName = "bwc.sim.sites";
/// Attribute of each cuda-sim kernel entry: parameters, shared arrays,
/// synchronization.
constexpr llvm::StringLiteral kSimKernelAttrName = "bwc.sim.kernel";

#define GEN_PASS_DECL
#include "bwc/Target/CUDA/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "bwc/Target/CUDA/Passes.h.inc"

} // namespace mlir::bwc

#endif // BWC_TARGET_CUDA_PASSES_H
