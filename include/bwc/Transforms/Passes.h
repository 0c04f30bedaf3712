//===- Passes.h - bwc graph and program passes ------------------*- C++ -*-===//
#ifndef BWC_TRANSFORMS_PASSES_H
#define BWC_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Pass/Pass.h"

namespace mlir::bwc {

/// Unit attribute marking a function as one kernel (one launch).
constexpr llvm::StringLiteral kKernelAttrName = "bwc.kernel";

#define GEN_PASS_DECL
#include "bwc/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "bwc/Transforms/Passes.h.inc"

} // namespace mlir::bwc

#endif // BWC_TRANSFORMS_PASSES_H
