//===- KernelTimer.h - Times one kernel's launches on GPU 0 -----*- C++ -*-===//
//
// The timing half of kernel tuning, with no MLIR or LLVM, so that it runs on
// a GPU machine that has only the runtime: `bwc-compile --tune` uses it
// in-process, and `bwc-tune-run` times a bundle exported by `bwc-compile
// --tune-export` (docs/targets/cuda.md, "Tuning"). Buffers are zero-filled;
// PTX is loaded through the driver's JIT.
//
//===----------------------------------------------------------------------===//
#ifndef BWC_RUNTIME_KERNELTIMER_H
#define BWC_RUNTIME_KERNELTIMER_H

#include "bwc/Runtime/CudaDriver.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace bwc::rt::cuda {

class KernelTimer {
public:
  ~KernelTimer();
  /// Loads the driver and opens GPU 0; empty on success, else why.
  std::string open();
  const std::string &gpuName() const { return name; }
  /// Zero-filled device buffers of these byte sizes (at least 16 each),
  /// replacing the previous ones, as the parameters of the next launches.
  /// Empty on success, else why.
  std::string allocate(const std::vector<size_t> &bytes);
  /// The median time (ms) of `runs` launches of `entry` from `ptx` on a
  /// grid x block launch, after `warmup` untimed ones. std::nullopt with
  /// `skip` set when the PTX does not load (a candidate to leave out), or
  /// with `error` set when a launch fails or faults (the context is
  /// unusable afterwards).
  std::optional<double> time(const std::string &ptx, const std::string &entry,
                             unsigned grid, unsigned block, int warmup,
                             int runs, std::string &skip, std::string &error);

private:
  std::string check(CUresult r, const std::string &what) const;
  void release();

  std::shared_ptr<Driver> driver;
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUstream stream = nullptr;
  std::string name;
  std::vector<CUdeviceptr> pointers;
  std::vector<void *> params;
};

} // namespace bwc::rt::cuda

#endif // BWC_RUNTIME_KERNELTIMER_H
