//===- Tuner.h - Kernel configurations timed on the GPU ---------*- C++ -*-===//
//
// `bwc-compile --tune`: for every distinct kernel (by signature) of an
// outlined program, compiles a few candidate configurations to PTX, times
// each on GPU 0 through the CUDA driver API (dlopen, CudaDriver.h), and
// merges the fastest into a tuning cache file that bwc-apply-tuning reads
// later, without a GPU. docs/targets/cuda.md ("Tuning") describes it.
//
//===----------------------------------------------------------------------===//
#ifndef BWC_TARGET_CUDA_TUNER_H
#define BWC_TARGET_CUDA_TUNER_H

#include "bwc/Target/CUDA/CudaTarget.h"

#include <string>

namespace mlir::bwc {

struct TuneOptions {
  /// smCount, tile and tileEmitters configure the kernels as the compile
  /// does; the heuristic configuration is every kernel's first candidate.
  CudaOptions cuda;
  /// The cache to merge the results into (created when missing).
  std::string cachePath;
  /// Untimed launches before the timed ones, and timed launches per
  /// candidate (their median is the candidate's time).
  int warmup = 3, runs = 20;
  /// A candidate replaces the best so far only when faster by more than
  /// this fraction (noise): a tie keeps the heuristic's choice.
  double margin = 0.01;
};

/// Tunes the kernels of `module` (outlined, not yet configured; left
/// unchanged) and writes `options.cachePath`. Returns the GPU's name, the
/// key its entries are stored under. Fails with "--tune needs a CUDA GPU:
/// ..." when no driver or no GPU is found.
FailureOr<std::string> tuneKernels(ModuleOp module,
                                   const TuneOptions &options);

/// `bwc-compile --tune-export=DIR`, for a GPU machine without LLVM: writes
/// each distinct kernel's candidate configurations of `module` (outlined,
/// not yet configured; left unchanged), compiled to PTX, into DIR:
/// `bundle.tsv` (one line per candidate: signature, kernel, entry, grid,
/// block, buffer bytes, PTX file, configuration) and one `.ptx` per
/// candidate. `bwc-tune-run DIR` times them there.
LogicalResult exportTuningBundle(ModuleOp module, const CudaOptions &cuda,
                                 StringRef dir);

/// `bwc-compile --tune-import=DIR`: merges the times `bwc-tune-run` wrote
/// to DIR/results.tsv, for the candidates of DIR/bundle.tsv, into the
/// cache at `cachePath` (created when missing), choosing as `--tune` does.
/// Returns the GPU's name. Errors name the file and line.
FailureOr<std::string> importTuningResults(MLIRContext *ctx, StringRef dir,
                                           StringRef cachePath,
                                           double margin);

} // namespace mlir::bwc

#endif // BWC_TARGET_CUDA_TUNER_H
