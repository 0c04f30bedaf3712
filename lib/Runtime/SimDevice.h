//===- SimDevice.h - cuda-sim's device state and executor -------*- C++ -*-===//
//
// Internal to the runtime: the emulated device's memory, its loaded
// modules, and the executor of one launch (SimExecution.cpp) that the
// driver API (CudaSim.cpp) calls.
//
//===----------------------------------------------------------------------===//
#ifndef BWC_LIB_RUNTIME_SIMDEVICE_H
#define BWC_LIB_RUNTIME_SIMDEVICE_H

#include "bwc/Runtime/Artifact.h"
#include "bwc/Runtime/CudaSim.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace bwc::rt::sim {

/// One cuMemAlloc: host memory standing in for device memory, and (with
/// initcheck) one shadow byte per byte, non-zero once written.
struct Allocation {
  uintptr_t base = 0;
  size_t bytes = 0;
  std::vector<uint8_t> written;
};

using Entry = void (*)(void **);

/// A loaded sim object with its artifact metadata.
struct SimModule;

struct SimFunction {
  SimModule *module = nullptr;
  uint32_t kernel = 0;
};

struct SimModule {
  void *handle = nullptr;
  std::vector<SimKernel> kernels;
  std::vector<SimSite> sites;
  std::vector<Entry> entries;
  /// The object's instruction counter (`__bwcsim_instructions`).
  uint64_t *instructions = nullptr;
  /// The handles cuModuleGetFunction gave out, one per kernel asked for;
  /// freed with the module, as the driver's functions are.
  std::vector<std::unique_ptr<SimFunction>> functions;
};

/// The process-wide emulated device.
struct Device {
  SimOptions options;
  std::map<uintptr_t, Allocation> allocations;
  size_t allocatedBytes = 0;
  /// The first failure of a launch, returned by every later
  /// synchronization (CUDA errors are sticky) until the context is
  /// released.
  cuda::CUresult stickyError = cuda::CUDA_SUCCESS;
  std::string stickyText;
  SimStats stats;
  std::vector<LaunchProfile> profiles;
  /// bwcSimSetLaunchArguments for the next launch.
  std::vector<uint64_t> pendingExtents;
  std::vector<std::string> pendingNames;

  /// The allocation holding [p, p + bytes), or null.
  Allocation *find(uintptr_t p, size_t bytes = 1);
};

Device &device();

/// Runs one launch to completion. Findings are printed to stderr (one
/// line each, up to options.maxReports per launch) and make the launch fail:
/// the returned code is CUDA_SUCCESS or the error to make sticky, with
/// `text` saying why.
cuda::CUresult executeLaunch(const SimFunction &f, const uint32_t grid[3],
                             const uint32_t block[3],
                             const std::vector<uint64_t> &params,
                             const std::vector<uint64_t> &extents,
                             const std::vector<std::string> &names,
                             std::string &text);

/// The hook table a sim object's `__bwcsim_hooks` is filled with.
void fillHooks(void **table);

} // namespace bwc::rt::sim

#endif // BWC_LIB_RUNTIME_SIMDEVICE_H
