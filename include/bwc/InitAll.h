//===- InitAll.h - Register bwc and the upstream pieces it uses -*- C++ -*-===//
//
// One place that lists every dialect and pass a bwc tool can see. Tools call
// these instead of registerAllDialects so that the set stays deliberate.
//
//===----------------------------------------------------------------------===//
#ifndef BWC_INITALL_H
#define BWC_INITALL_H

#include "bwc/Dialect/BWC/IR/BWCDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Transforms/Passes.h"

namespace mlir::bwc {

/// The bwc dialect plus the upstream dialects that bwc's pipeline uses.
inline void registerAllDialects(DialectRegistry &registry) {
  registry.insert<BWCDialect, func::FuncDialect, arith::ArithDialect,
                  tensor::TensorDialect>();
}

/// bwc's passes and the upstream passes the pipeline uses.
inline void registerAllPasses() {
  // Upstream: canonicalize, cse, symbol-dce, inline, ...
  registerTransformsPasses();
}

} // namespace mlir::bwc

#endif // BWC_INITALL_H
