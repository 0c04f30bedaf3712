//===- TuningCache.h - Measured kernel configurations, by GPU ---*- C++ -*-===//
//
// `bwc-compile --tune` times a few configurations of every distinct kernel
// on a GPU and records the fastest in a JSON file keyed by GPU name and
// kernel signature; `bwc-apply-tuning` reads it back without a GPU.
// docs/passes/bwc-apply-tuning.md gives the format.
//
//===----------------------------------------------------------------------===//
#ifndef BWC_ANALYSIS_TUNINGCACHE_H
#define BWC_ANALYSIS_TUNINGCACHE_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <map>
#include <string>
#include <vector>

namespace mlir::bwc {

/// The `version` every tuning cache file carries.
constexpr int64_t kTuningCacheVersion = 1;
/// Unit attribute bwc-apply-tuning sets on a kernel whose configuration
/// came from the cache.
constexpr StringLiteral kTunedAttrName = "bwc.tuned";
/// String attribute bwc-apply-tuning sets on every kernel it looks up: the
/// kernel's signature (its key in the cache).
constexpr StringLiteral kSignatureAttrName = "bwc.signature";

/// The kernel's signature: 16 hex digits of xxh3_64 over the kernel
/// function printed without its name, locations and configuration
/// attributes (`bwc.config`, `bwc.coalescing`, `bwc.tuned`,
/// `bwc.signature`). Two kernels with the same ops, shapes and types share
/// it, whatever their names.
std::string kernelSignature(func::FuncOp kernel);

/// One timed configuration.
struct TunedCandidate {
  DictionaryAttr config;
  double medianMs = 0;
};

/// The configuration chosen for one signature on one GPU, and the
/// measurements that chose it.
struct TuningEntry {
  /// A kernel of that signature, for readers of the file.
  std::string kernel;
  DictionaryAttr config;
  std::vector<TunedCandidate> candidates;
};

/// GPU name -> signature -> entry.
struct TuningCache {
  std::map<std::string, std::map<std::string, TuningEntry>> gpus;
};

/// Reads and validates `path` (version, GPUs, entries: a config with a
/// known emitter and integer `block`/`grid`, candidates with configs and
/// times). A missing file is an empty cache when `mayBeMissing`. Errors
/// name the file and the entry.
FailureOr<TuningCache> readTuningCache(StringRef path, MLIRContext *ctx,
                                       bool mayBeMissing, std::string &error);

/// Writes `cache` to `path` as JSON (GPUs and signatures sorted).
LogicalResult writeTuningCache(StringRef path, const TuningCache &cache,
                               std::string &error);

} // namespace mlir::bwc

#endif // BWC_ANALYSIS_TUNINGCACHE_H
