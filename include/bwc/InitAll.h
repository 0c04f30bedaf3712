//===- InitAll.h - Register bwc and the upstream pieces it uses -*- C++ -*-===//
//
// One place that lists every dialect, interface and pass a bwc tool can see.
// Tools call these instead of registerAllDialects/registerAllPasses so that
// the set stays deliberate.
//
//===----------------------------------------------------------------------===//
#ifndef BWC_INITALL_H
#define BWC_INITALL_H

#include "mlir/IR/DialectRegistry.h"

namespace mlir::bwc {

/// The bwc dialect plus the upstream dialects and interface models that
/// bwc's pipelines use (linalg on tensors, bufferization, loops, LLVM).
void registerAllDialects(DialectRegistry &registry);

/// bwc's passes and pipelines, and the upstream passes they are built from.
void registerAllPasses();

} // namespace mlir::bwc

#endif // BWC_INITALL_H
