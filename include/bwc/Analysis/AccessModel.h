//===- AccessModel.h - Coalescing of GPU kernel memory accesses -*- C++ -*-===//
//
// The access model: for an outlined kernel (bwc ops on tensors) under a
// `bwc.config` (bwc-configure-kernels, bwc-tile), the element each lane of
// a few sample warps reads from every argument and writes to every result,
// found by a concrete integer index tracer over the bwc ops (no IR is
// built). A warp's accesses to one buffer touch a set of 32-byte sectors;
// the efficiency of the access is the distinct bytes the lanes need over
// the bytes of those sectors. A kernel's efficiency is its DRAM bytes (the
// cost model's per-buffer bytes) over the bytes it fetches at each
// buffer's efficiency; a program's likewise over its kernels.
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

/// Distinct useful bytes and the 32-byte sectors holding them.
struct SectorCount {
  uint64_t usefulBytes = 0, sectors = 0;
  double efficiency() const {
    return sectors ? double(usefulBytes) / double(sectors * kSectorBytes) : 1;
  }
};

/// Sectors one warp touches reading the elements `elements` (linear
/// indices, repeats allowed) of a 256-byte aligned buffer of
/// `elementBytes`-byte elements.
SectorCount countSectors(ArrayRef<int64_t> elements, int64_t elementBytes);

/// One buffer a kernel reads (`arg<N>`) or writes (`result<N>`).
struct BufferAccess {
  std::string name;
  uint64_t bytes = 0;    ///< DRAM bytes (the cost model's)
  SectorCount sampled;   ///< over the sample warps
  bool traced = false;   ///< false: no sample warp touched it (counted as 1)
  double efficiency() const { return traced ? sampled.efficiency() : 1; }
};

struct KernelCoalescing {
  std::vector<BufferAccess> accesses;
  /// DRAM bytes, and the bytes fetched in sectors at each access's
  /// efficiency.
  double bytes = 0, fetchedBytes = 0;
  double efficiency() const { return fetchedBytes ? bytes / fetchedBytes : 1; }
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
