//===- FetchedBytes.h - Kernels and programs priced in fetched bytes -*- C++
//-*-===//
//
// The price graph passes put on a choice before fusion: the DRAM bytes a
// kernel fetches in 32-byte sectors (the access model, AccessModel.h),
// configured as bwc-compile configures it (bwc-configure-kernels, then
// bwc-tile, for a GPU of `smCount` SMs). One op alone as a kernel (a
// scratch module), or a whole program fused, outlined and configured.
// bwc-select-layout prices layouts with it, bwc-pad-channels paddings.
//
//===----------------------------------------------------------------------===//
#ifndef BWC_ANALYSIS_FETCHEDBYTES_H
#define BWC_ANALYSIS_FETCHEDBYTES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringMap.h"

namespace mlir::bwc {

class FetchedBytesPricer {
public:
  explicit FetchedBytesPricer(int64_t smCount) : smCount(smCount) {}

  /// `fn`, a one-op kernel function in `scratch` (marked `bwc.kernel`
  /// here), configured and priced. Each distinct kernel (by its text) is
  /// priced once: a network repeats its shapes.
  FailureOr<double> kernel(ModuleOp scratch, func::FuncOp fn);

  /// `op` alone as a kernel whose arguments have `operandTypes` and whose
  /// result has `resultType`; `adjust` may edit the clone (attributes).
  FailureOr<double>
  standalone(Operation *op, TypeRange operandTypes, Type resultType,
             llvm::function_ref<void(Operation *)> adjust = nullptr);

  /// A copy of `module` (its program `main` as bwc-compile has it before
  /// fusion) canonicalized, fused, outlined and configured: the sum over
  /// its kernels, and how many there are.
  struct Program {
    double fetchedBytes = 0;
    int64_t kernels = 0;
  };
  FailureOr<Program> fusedProgram(ModuleOp module);

private:
  int64_t smCount;
  llvm::StringMap<double> priced;
};

} // namespace mlir::bwc

#endif // BWC_ANALYSIS_FETCHEDBYTES_H
