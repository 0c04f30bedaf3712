//===- Passes.h - bwc graph and program passes ------------------*- C++ -*-===//
#ifndef BWC_TRANSFORMS_PASSES_H
#define BWC_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/DenseSet.h"

// The kernel attributes and the emitter-fit predicates the passes share.
#include "bwc/Analysis/KernelFit.h"

namespace mlir::bwc {

/// The program function `name` of `module`, or null after an error naming
/// it (every program pass starts here).
inline func::FuncOp lookupProgram(ModuleOp module, StringRef name) {
  auto program = module.lookupSymbol<func::FuncOp>(name);
  if (!program)
    module.emitError() << "expects a program function named '" << name << "'";
  return program;
}

/// The kernel calls of an outlined program function in launch order, and
/// the values it returns; an error (naming the op) when it holds anything
/// but constants, calls and the return.
inline LogicalResult collectLaunches(func::FuncOp program,
                                     SmallVectorImpl<func::CallOp> &calls,
                                     llvm::DenseSet<Value> &returned) {
  for (Operation &op : program.getBody().front()) {
    if (auto call = dyn_cast<func::CallOp>(op))
      calls.push_back(call);
    else if (auto ret = dyn_cast<func::ReturnOp>(op))
      returned.insert(ret.getOperands().begin(), ret.getOperands().end());
    else if (op.getName().getStringRef() != "bwc.constant")
      return op.emitError() << "expects only constants, kernel calls and a "
                               "return in '"
                            << program.getName()
                            << "' (run bwc-outline-kernels first)";
  }
  return success();
}

#define GEN_PASS_DECL
#include "bwc/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "bwc/Transforms/Passes.h.inc"

} // namespace mlir::bwc

#endif // BWC_TRANSFORMS_PASSES_H
