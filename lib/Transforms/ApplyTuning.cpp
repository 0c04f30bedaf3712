//===- ApplyTuning.cpp - Kernel configurations a GPU measured fastest -----===//
//
// bwc-tile's choice is the access model's; a tuning cache holds what a GPU
// measured (`bwc-compile --tune`). This pass replaces a kernel's
// configuration with the cached one for its signature, so that a compile
// without a GPU reproduces a tuned one. A cached configuration is checked
// against the kernel as bwc-tile's own candidates are (the access model
// must accept it); a stale or hand-edited entry is an error, never used
// silently.
//
//===----------------------------------------------------------------------===//
#include "bwc/Transforms/Passes.h"

#include "bwc/Analysis/AccessModel.h"
#include "bwc/Analysis/TuningCache.h"
#include "llvm/ADT/StringExtras.h"

#include <cmath>

namespace mlir::bwc {
#define GEN_PASS_DEF_APPLYTUNINGPASS
#include "bwc/Transforms/Passes.h.inc"
} // namespace mlir::bwc

using namespace mlir;
using namespace mlir::bwc;

namespace {

struct ApplyTuningPass
    : public bwc::impl::ApplyTuningPassBase<ApplyTuningPass> {
  using ApplyTuningPassBase::ApplyTuningPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (cache.empty()) {
      module.emitError() << "expects a tuning cache file (cache=FILE) but got "
                            "none";
      return signalPassFailure();
    }
    std::string error;
    FailureOr<TuningCache> file =
        readTuningCache(cache, &getContext(), /*mayBeMissing=*/false, error);
    if (failed(file)) {
      module.emitError() << error;
      return signalPassFailure();
    }
    std::string gpuName = gpu;
    if (gpuName.empty() && file->gpus.size() > 1) {
      module.emitError() << "expects gpu=NAME to choose among the GPUs of "
                            "tuning cache '"
                         << cache << "' but got none: "
                         << gpuList(*file);
      return signalPassFailure();
    }
    if (gpuName.empty() && file->gpus.empty())
      return; // nothing measured yet
    if (gpuName.empty())
      gpuName = file->gpus.begin()->first;
    auto entries = file->gpus.find(gpuName);
    if (entries == file->gpus.end()) {
      module.emitError() << "expects gpu '" << gpuName
                         << "' in tuning cache '" << cache
                         << "' but it has " << gpuList(*file);
      return signalPassFailure();
    }

    Builder b(&getContext());
    for (auto kernel : module.getOps<func::FuncOp>()) {
      if (!kernel->hasAttr(kKernelAttrName))
        continue;
      std::string signature = kernelSignature(kernel);
      kernel->setAttr(kSignatureAttrName, b.getStringAttr(signature));
      auto entry = entries->second.find(signature);
      if (entry == entries->second.end())
        continue;
      DictionaryAttr config = entry->second.config;
      FailureOr<KernelCoalescing> k = analyzeCoalescing(kernel, config);
      if (failed(k)) {
        kernel.emitError() << "expects tuning cache '" << cache << "' entry '"
                           << gpuName << "/" << signature
                           << "' to hold a configuration the access model "
                              "accepts for this kernel but got "
                           << config;
        return signalPassFailure();
      }
      kernel->setAttr(kKernelConfigAttrName, config);
      kernel->setAttr("bwc.coalescing",
                      b.getF64FloatAttr(std::round(k->efficiency() * 1e6) /
                                        1e6));
      kernel->setAttr(kTunedAttrName, b.getUnitAttr());
    }
  }

  static std::string gpuList(const TuningCache &cache) {
    if (cache.gpus.empty())
      return "no GPU";
    SmallVector<std::string> names;
    for (const auto &g : cache.gpus)
      names.push_back("'" + g.first + "'");
    return llvm::join(names, ", ");
  }
};

} // namespace
