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

#include "bwc/Runtime/Executor.h"

#include <memory>
#include <string>
#include <vector>

namespace bwc::rt {

class CpuExecutor : public Executor {
public:
  /// Loads `artifact` (validated by deserialize): writes the code to a
  /// private temporary file, dlopens it, resolves every kernel and allocates
  /// the buffers. Returns null with a one-line `error` on failure.
  static std::unique_ptr<CpuExecutor> create(Artifact artifact,
                                             std::string &error);
  ~CpuExecutor() override;
  CpuExecutor(const CpuExecutor &) = delete;
  CpuExecutor &operator=(const CpuExecutor &) = delete;

  const Artifact &artifact() const override { return artifact_; }
  using Executor::benchmark;
  using Executor::run;
  bool run(const std::vector<TensorRef> &inputs,
           std::vector<HostTensor> &outputs, std::string &error) override;
  /// Times each launch with the steady clock as well as the whole list.
  bool benchmark(const std::vector<TensorRef> &inputs, int warmup,
                 int iterations, BenchStats &stats,
                 std::string &error) override;
  /// memcpy between two host buffers.
  bool readState(std::vector<HostTensor> &state, std::string &error) override;
  bool measureCopyBandwidth(uint64_t bytes, int iterations, double &gbps,
                            std::string &error) override;
  std::string deviceName() const override { return "host CPU"; }
  std::vector<bool> lastRunSkipped() const override {
    return branches_.any() ? skipped_ : std::vector<bool>();
  }

private:
  CpuExecutor(Artifact artifact) : artifact_(std::move(artifact)) {}
  bool load(std::string &error);
  bool bindInputs(const std::vector<TensorRef> &inputs, std::string &error);
  /// Runs the launch list, skipping the launches whose branch condition
  /// (Launch::guards) does not hold; with `launchMs`, sets each launch's
  /// time (0 when skipped).
  void launchAll(std::vector<double> *launchMs = nullptr);

  using KernelFn = void (*)(void **);
  Artifact artifact_;
  BranchDecider branches_{artifact_};
  /// Per launch: whether the last launchAll skipped it.
  std::vector<bool> skipped_;
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
