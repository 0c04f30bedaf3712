//===- AccessModel.h - Coalescing of GPU kernel memory accesses -*- C++ -*-===//
//
// The access model: for an outlined kernel (bwc ops on tensors) under a
// `bwc.config` (bwc-configure-kernels, bwc-tile), the elements each lane of
// a few sample warps reads from every argument and writes to every result,
// found by a concrete integer index tracer over the bwc ops (no IR is
// built), grouped into warp-level requests as the emitted kernel issues
// them: the k-th execution of one load or store by each lane of a warp
// (the IndexTracer's sites; a `loop` kernel's `vector` consecutive
// elements merged into one vector access as bwc-vectorize-gpu-loads
// merges them). A request's sector efficiency is the sectors a perfectly
// coalesced request of its distinct bytes takes over the 32-byte sectors
// it touches, cuda-sim's `sector_efficiency` (since 2026-12-04; before,
// the union of a warp's elements over all its steps, an L1 assumption the
// counters contradicted). A kernel's efficiency sums those over its
// requests, each weighted by the executions it stands for; its fetched
// bytes are its DRAM bytes (the cost model's) over that efficiency.
// docs/analysis/access-model.md gives the sampled warps and the
// assumptions.
//
//===----------------------------------------------------------------------===//
#ifndef BWC_ANALYSIS_ACCESSMODEL_H
#define BWC_ANALYSIS_ACCESSMODEL_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/ArrayRef.h"
#include <cstdint>
#include <string>
#include <vector>

namespace mlir::bwc {

/// The DRAM transaction granularity of NVIDIA GPUs (sm_70 and later).
constexpr int64_t kSectorBytes = 32;
constexpr int64_t kWarpLanes = 32;

/// Distinct useful bytes, the 32-byte sectors holding them, and the
/// sectors a perfectly coalesced access of those bytes takes
/// (ceil(bytes / 32)); over several requests, their (weighted) sums.
struct SectorCount {
  double usefulBytes = 0, sectors = 0, idealSectors = 0;
  /// Warp-level requests and the bytes one lane accesses in each (4 for
  /// a scalar f32, 16 for a 4-wide vector), summed: cuda-sim's
  /// bytes_per_request is accessBytes / requests.
  double requests = 0, accessBytes = 0;
  /// cuda-sim's sector_efficiency: ideal over actual sectors.
  double efficiency() const { return sectors ? idealSectors / sectors : 1; }
  /// cuda-sim's byte_efficiency: useful bytes over the sectors' bytes.
  double byteEfficiency() const {
    return sectors ? usefulBytes / (sectors * kSectorBytes) : 1;
  }
  void add(const SectorCount &o, double weight = 1) {
    usefulBytes += weight * o.usefulBytes;
    sectors += weight * o.sectors;
    idealSectors += weight * o.idealSectors;
    requests += weight * o.requests;
    accessBytes += weight * o.accessBytes;
  }
  double bytesPerRequest() const {
    return requests ? accessBytes / requests : 0;
  }
};

/// Sectors one warp-level request touches reading the elements `elements`
/// (linear indices, repeats allowed) of a 256-byte aligned buffer of
/// `elementBytes`-byte elements, each lane accessing one element.
SectorCount countSectors(ArrayRef<int64_t> elements, int64_t elementBytes);

/// One buffer a kernel reads (`arg<N>`) or writes (`result<N>`).
struct BufferAccess {
  std::string name;
  uint64_t bytes = 0;    ///< DRAM bytes (the cost model's)
  SectorCount sampled;   ///< over the sample warps' requests, weighted
  bool traced = false;   ///< false: no sample warp touched it (counted as 1)
  double efficiency() const { return traced ? sampled.efficiency() : 1; }
};

struct KernelCoalescing {
  std::vector<BufferAccess> accesses;
  /// Every traced request of every buffer, weighted.
  SectorCount requests;
  /// DRAM bytes, and the bytes fetched in sectors at the kernel's
  /// efficiency.
  double bytes = 0, fetchedBytes = 0;
  /// The kernel's sector efficiency (what cuda-sim's counters measure).
  double efficiency() const { return requests.efficiency(); }
  /// The average access width of its requests (cuda-sim's
  /// bytes_per_request).
  double bytesPerRequest() const { return requests.bytesPerRequest(); }
};

/// The coalescing of `kernel` under `config` (a `bwc.config` dictionary).
/// Fails with an error on the kernel when the configuration names an
/// unknown emitter or lacks a field the emitter needs.
FailureOr<KernelCoalescing> analyzeCoalescing(func::FuncOp kernel,
                                              DictionaryAttr config);

/// Program figure: total DRAM bytes over total fetched bytes.
double programCoalescing(ArrayRef<KernelCoalescing> kernels);

} // namespace mlir::bwc

#endif // BWC_ANALYSIS_ACCESSMODEL_H
