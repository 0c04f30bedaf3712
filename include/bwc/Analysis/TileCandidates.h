//===- TileCandidates.h - Kernel configurations worth trying ----*- C++ -*-===//
//
// The configurations a kernel may run with besides the one it has: the
// other emitters bwc-tile scores with the access model (shared-memory
// transposes, column reductions, matmul tiles), and the launch-shape
// variants `bwc-compile --tune` times on a GPU (threads per block, vector
// width, rows per block, slices). Shared by bwc-tile and the CUDA tuner.
//
//===----------------------------------------------------------------------===//
#ifndef BWC_ANALYSIS_TILECANDIDATES_H
#define BWC_ANALYSIS_TILECANDIDATES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::bwc {

/// Every emitter a `bwc.config` may name.
constexpr StringLiteral kKnownEmitters[] = {
    "loop",           "thread_per_output", "row_reduction",
    "column_reduction", "transpose_tiled", "contraction_tiled",
    "contraction_thread"};

/// One configuration of a kernel and the static shared memory it needs.
struct TileCandidate {
  DictionaryAttr config;
  int64_t sharedBytes = 0;
  /// Wins a tie in efficiency and parallelism (it saves traffic the model
  /// does not count: operand reuse in shared memory).
  bool preferOnTie = false;
  /// An implicit GEMM with fewer tiles than SMs (implicitGemmFills) under
  /// ContractionChoices::convGemmFill: loses to every candidate that is
  /// not, whatever the access model says.
  bool starved = false;
};

/// What `contraction_tiled` may use (bwc-compile --conv-kernels,
/// --tensor-cores; the pass options conv-gemm and tensor-cores).
struct ContractionChoices {
  /// Direct convolutions with groups 1 as implicit GEMMs.
  bool convGemm = true;
  /// mma.sync for f16/bf16 operands (`mma` = 1).
  bool tensorCores = true;
  /// Implicit GEMMs only where their tiles fill the SMs (starved
  /// candidates rank last; bwc-compile --conv-kernels=auto).
  bool convGemmFill = true;
};

/// bwc-tile's candidates for `kernel`: `dflt` (bwc-configure-kernels'
/// configuration) first, then the other emitters in `allowed` that apply to
/// it, with grids sized for `smCount` SMs. Shared memory is not checked.
/// `choices` limits what contraction_tiled is offered.
SmallVector<TileCandidate> tileCandidates(func::FuncOp kernel,
                                          DictionaryAttr dflt,
                                          const llvm::StringSet<> &allowed,
                                          int64_t smCount,
                                          ContractionChoices choices = {});

/// The configurations `bwc-compile --tune` times for `kernel`: `chosen`
/// (the heuristic's, first), the other tile candidates, then launch-shape
/// variants of `chosen`'s emitter (block 128/256/512 and vector 1 for loop
/// and thread_per_output, half/double rows_per_block and threads_per_row
/// for row_reduction, half/double slices for column_reduction). Only those
/// whose shared memory fits `sharedMemoryBytes` and that the access model
/// accepts, without duplicates, at most `limit`.
SmallVector<TileCandidate> tuningCandidates(func::FuncOp kernel,
                                            DictionaryAttr chosen,
                                            const llvm::StringSet<> &allowed,
                                            int64_t smCount,
                                            int64_t sharedMemoryBytes,
                                            size_t limit = 8,
                                            ContractionChoices choices = {});

} // namespace mlir::bwc

#endif // BWC_ANALYSIS_TILECANDIDATES_H
