//===- Tile.cpp - Kernel configurations chosen by the access model --------===//
//
// bwc-configure-kernels gives every kernel a correct default; this pass
// enumerates the other configurations the CUDA emitters support for it
// (column reductions, shared-memory transposes and matmul tiles), scores
// each with the access model and keeps the best: the highest coalescing
// efficiency, then enough blocks to fill the GPU (2 per SM), then the
// specialized emitter (it also saves L2 and shared traffic the model does
// not count). Candidates are limited to the `emitters` list, the emitters
// the CUDA target has, and to the shared memory a block may use.
//
//===----------------------------------------------------------------------===//
#include "bwc/Transforms/Passes.h"

#include "bwc/Analysis/AccessModel.h"
#include "bwc/Dialect/BWC/IR/BWCOps.h"
#include "bwc/Analysis/TileCandidates.h"

namespace mlir::bwc {
#define GEN_PASS_DEF_TILEPASS
#include "bwc/Transforms/Passes.h.inc"
} // namespace mlir::bwc

using namespace mlir;
using namespace mlir::bwc;

namespace {

/// A candidate whose requests are at least kWiderBy times as wide on
/// average (cuda-sim's bytes_per_request) beats one at most
/// kEfficiencySlack more coalesced: the same bytes in far fewer memory
/// instructions, for a few sectors more (a broadcast vector load whose
/// warp straddles two rows touches two sectors where one is ideal).
constexpr double kEfficiencySlack = 0.05, kWiderBy = 1.25;

struct TilePass : public bwc::impl::TilePassBase<TilePass> {
  using TilePassBase::TilePassBase;

  void runOnOperation() override {
    llvm::StringSet<> allowed;
    SmallVector<StringRef> names;
    StringRef(emitters).split(names, ',', -1, false);
    for (StringRef n : names) {
      n = n.trim();
      if (!llvm::is_contained(kKnownEmitters, n)) {
        getOperation().emitError()
            << "expects emitters among loop, thread_per_output, "
               "row_reduction, column_reduction, transpose_tiled, "
               "contraction_tiled, contraction_thread but got '"
            << n << "'";
        return signalPassFailure();
      }
      allowed.insert(n);
    }
    if (smCount < 1 || sharedMemoryBytes < 0) {
      getOperation().emitError()
          << "expects sm-count >= 1 and shared-memory-bytes >= 0 but got "
             "sm-count="
          << int64_t(smCount) << " shared-memory-bytes="
          << int64_t(sharedMemoryBytes);
      return signalPassFailure();
    }
    Builder b(&getContext());
    for (auto kernel : getOperation().getOps<func::FuncOp>()) {
      if (!kernel->hasAttr(kKernelAttrName))
        continue;
      auto dflt = kernel->getAttrOfType<DictionaryAttr>(kKernelConfigAttrName);
      if (!dflt || !dflt.getAs<StringAttr>("emitter")) {
        kernel.emitError() << "expects a bwc.config with an emitter (from "
                              "bwc-configure-kernels) but got "
                           << (dflt ? Attribute(dflt) : b.getUnitAttr());
        return signalPassFailure();
      }
      TileCandidate best;
      double bestEfficiency = -1, bestWidth = 0;
      int64_t bestBlocks = -1;
      bool bestStarved = true;
      for (const TileCandidate &c :
           tileCandidates(kernel, dflt, allowed, smCount,
                          ContractionChoices{convGemm, tensorCores,
                                             convGemmFill})) {
        if (c.sharedBytes > sharedMemoryBytes)
          continue;
        FailureOr<KernelCoalescing> k = analyzeCoalescing(kernel, c.config);
        if (failed(k))
          return signalPassFailure();
        double e = std::round(k->efficiency() * 1e6) / 1e6;
        int64_t blocks = std::min<int64_t>(
            c.config.getAs<IntegerAttr>("grid").getInt(), 2 * smCount);
        // A starved implicit GEMM ranks below every other candidate.
        if (c.starved && !bestStarved)
          continue;
        double width = k->bytesPerRequest();
        bool tie = e == bestEfficiency;
        // Nearly as coalesced (within kEfficiencySlack) and much wider
        // accesses: the wider wins, either way round.
        bool near = std::abs(e - bestEfficiency) <= kEfficiencySlack;
        bool wider = near && width >= kWiderBy * bestWidth;
        bool narrower = near && bestWidth >= kWiderBy * width;
        if ((bestStarved && !c.starved) ||
            (!narrower && (wider || e > bestEfficiency ||
                           (tie && blocks > bestBlocks) ||
                           (tie && blocks == bestBlocks && c.preferOnTie)))) {
          best = c;
          bestEfficiency = e;
          bestWidth = width;
          bestBlocks = blocks;
          bestStarved = c.starved;
        }
      }
      kernel->setAttr(kKernelConfigAttrName, best.config);
      kernel->setAttr("bwc.coalescing", b.getF64FloatAttr(bestEfficiency));
    }
  }
};

} // namespace
