//===- CpuExecutor.h - Runs a CPU artifact ----------------------*- C++ -*-===//
//
// Loads the artifact's code object (an ELF shared object) with dlopen,
// allocates its buffers and runs its launches in order. Each kernel has the
// C ABI `extern "C" void name(void **args)`, where args[i] is the base
// pointer of buffer Launch::args[i].
//
//===----------------------------------------------------------------------===//
#ifndef BWC_RUNTIME_CPUEXECUTOR_H
#define BWC_RUNTIME_CPUEXECUTOR_H

#include "bwc/Runtime/Artifact.h"
#include "bwc/Runtime/TensorFile.h"

#include <memory>
#include <string>
#include <vector>

namespace bwc::rt {

/// Latency statistics of CpuExecutor::benchmark, in milliseconds.
struct BenchStats {
  double medianMs = 0, minMs = 0, maxMs = 0;
  std::vector<double> runsMs;
};

class CpuExecutor {
public:
  /// Loads `artifact` (validated by deserialize): writes the code to a
  /// private temporary file, dlopens it, resolves every kernel and allocates
  /// the buffers. Returns null with a one-line `error` on failure.
  static std::unique_ptr<CpuExecutor> create(Artifact artifact,
                                             std::string &error);
  ~CpuExecutor();
  CpuExecutor(const CpuExecutor &) = delete;
  CpuExecutor &operator=(const CpuExecutor &) = delete;

  const Artifact &artifact() const { return artifact_; }

  /// Checks every input against the signature, runs every launch and copies
  /// the outputs out (in the artifact's output order).
  bool run(const std::vector<HostTensor> &inputs,
           std::vector<HostTensor> &outputs, std::string &error);

  /// Binds `inputs`, runs `warmup` untimed then `iterations` timed runs of
  /// the launch list (input/output copies excluded).
  bool benchmark(const std::vector<HostTensor> &inputs, int warmup,
                 int iterations, BenchStats &stats, std::string &error);

private:
  CpuExecutor(Artifact artifact) : artifact_(std::move(artifact)) {}
  bool load(std::string &error);
  bool bindInputs(const std::vector<HostTensor> &inputs, std::string &error);
  void launchAll();

  using KernelFn = void (*)(void **);
  Artifact artifact_;
  void *library_ = nullptr;
  std::vector<KernelFn> kernels_;
  /// Owned 64-byte-aligned allocations (the arena and standalone buffers).
  std::vector<void *> allocations_;
  /// Base pointer of each buffer.
  std::vector<void *> bufferPtrs_;
  /// Reused argument array of each launch.
  std::vector<std::vector<void *>> launchArgs_;
};

} // namespace bwc::rt

#endif // BWC_RUNTIME_CPUEXECUTOR_H
