//===- SharedObject.h - Kernels in the LLVM dialect to a .so ----*- C++ -*-===//
#ifndef BWC_TARGET_CPU_SHAREDOBJECT_H
#define BWC_TARGET_CPU_SHAREDOBJECT_H

#include "mlir/IR/BuiltinOps.h"
#include <string>

namespace mlir::bwc {

/// Suffix of the exported entry point of kernel `k`: `k_bwc(void **args)`.
constexpr llvm::StringLiteral kPackedSuffix = "_bwc";

/// Adds to `module` (in the LLVM dialect, after buildCPULoweringPipeline)
/// one exported `void <kernel>_bwc(void **args)` per `bwc.kernel` function,
/// which loads the buffer pointers and calls the kernel (made internal).
LogicalResult addPackedEntryPoints(ModuleOp module);

/// Translates `module` to LLVM IR, optimizes it at -O2 for the host triple
/// (generic CPU, position independent), emits an object file and links it
/// into a shared object with the system C compiler (`cc -shared ... -lm`).
/// Returns the bytes of the shared object; errors go to the module's
/// location.
FailureOr<std::string> emitSharedObject(ModuleOp module);

/// Translates `module` to LLVM IR as emitSharedObject does, checks it with
/// LLVM's verifier and returns its text, unoptimized (`--emit=llvm`: what
/// the CPU target hands LLVM; the fuzz targets stop most inputs here).
FailureOr<std::string> emitLLVMIR(ModuleOp module);

} // namespace mlir::bwc

#endif // BWC_TARGET_CPU_SHAREDOBJECT_H
