//===- Executor.h - What every target's executor offers ---------*- C++ -*-===//
//
// bwc-run drives an artifact through this interface whatever its target:
// CpuExecutor runs "cpu" artifacts, CudaExecutor "cuda" ones.
//
//===----------------------------------------------------------------------===//
#ifndef BWC_RUNTIME_EXECUTOR_H
#define BWC_RUNTIME_EXECUTOR_H

#include "bwc/Runtime/Artifact.h"
#include "bwc/Runtime/CudaSim.h"
#include "bwc/Runtime/TensorFile.h"

#include <memory>
#include <string>
#include <vector>

namespace bwc::rt {

/// Latency statistics of Executor::benchmark, in milliseconds.
struct BenchStats {
  double medianMs = 0, minMs = 0, maxMs = 0;
  std::vector<double> runsMs;
  /// Median time of each launch (in Artifact::launches order) over the
  /// timed runs.
  std::vector<double> launchMedianMs;
  /// Per launch (when the artifact has branch guards): whether the timed
  /// runs skipped it, its branch not taken for these inputs (the inputs are
  /// the same every run, so every run takes the same branches).
  std::vector<bool> launchSkipped;
  /// True when the whole-list latency came from CUDA graph replays.
  bool cudaGraph = false;
  /// How launchMedianMs was timed: "graph" (the launch list captured with
  /// an event record node around each kernel and replayed: kernels back to
  /// back, no host gaps), "stream" (an event pair per launch on the stream:
  /// biased up by host submission gaps, docs/runtime-cuda.md), or "host"
  /// (the CPU executor's clock).
  std::string kernelTiming;
  /// Why "graph" timing was not used (empty when it was, or on the CPU).
  std::string kernelTimingNote;
};

/// The median of `values` (0 when empty).
double median(std::vector<double> values);
/// Sets the median, min and max of `stats.runsMs` (not empty).
void summarizeRuns(BenchStats &stats);
/// Copy bandwidth (read + write) of copies of `bytes` that took `ms` each:
/// 2 x bytes over the median; false with `error` when it is not positive.
bool copyBandwidth(uint64_t bytes, const std::vector<double> &ms, double &gbps,
                   std::string &error);

/// An input the caller owns: its description and bytes, not copied until
/// the executor copies them into its buffers (the Python binding passes
/// numpy arrays this way).
struct TensorRef {
  TensorDesc desc;
  const void *data = nullptr;
  size_t bytes = 0;
};

/// Views of `tensors` (valid while they are).
std::vector<TensorRef> refsOf(const std::vector<HostTensor> &tensors);

struct ExecutorOptions {
  /// CUDA: Executor::run synchronizes after every launch so that a fault
  /// names its kernel.
  bool syncEachLaunch = true;
  /// CUDA: benchmark replays the launch list as one captured CUDA graph.
  bool cudaGraph = false;
  /// CUDA: "cuda" (the GPU, through libcuda) or "cuda-sim" (the kernels
  /// emulated on the CPU with `sanitizers`).
  std::string device = "cuda";
  sim::SimOptions sanitizers;
};

class Executor {
public:
  virtual ~Executor() = default;
  virtual const Artifact &artifact() const = 0;
  /// Checks every input against the signature, runs every launch and
  /// copies the outputs out (in the artifact's output order).
  virtual bool run(const std::vector<TensorRef> &inputs,
                   std::vector<HostTensor> &outputs, std::string &error) = 0;
  bool run(const std::vector<HostTensor> &inputs,
           std::vector<HostTensor> &outputs, std::string &error) {
    return run(refsOf(inputs), outputs, error);
  }
  /// Binds `inputs`, runs `warmup` untimed then `iterations` timed runs of
  /// the launch list (input/output copies excluded), timing the whole list
  /// and each launch.
  virtual bool benchmark(const std::vector<TensorRef> &inputs, int warmup,
                         int iterations, BenchStats &stats,
                         std::string &error) = 0;
  bool benchmark(const std::vector<HostTensor> &inputs, int warmup,
                 int iterations, BenchStats &stats, std::string &error) {
    return benchmark(refsOf(inputs), warmup, iterations, stats, error);
  }
  /// Copy bandwidth of the executor's memory, GB/s counting the bytes read
  /// and the bytes written: the median of `iterations` copies of `bytes`.
  virtual bool measureCopyBandwidth(uint64_t bytes, int iterations,
                                    double &gbps, std::string &error) = 0;
  /// Peak flop rate (GFLOP/s) derived from the device, 0 when unknown, and
  /// how it was derived.
  virtual double peakGflops(std::string &how) const { return 0; }
  /// The current value of every state tensor (Artifact::state order): the
  /// trained parameters after optimizer steps.
  virtual bool readState(std::vector<HostTensor> &state,
                         std::string &error) = 0;
  /// The device in words ("host CPU", "NVIDIA H200 (sm_90, 132 SMs)").
  virtual std::string deviceName() const = 0;
  /// Per launch, whether the last run skipped it (a runtime If's branch
  /// not taken, Launch::guards); empty when the artifact has no guards.
  virtual std::vector<bool> lastRunSkipped() const { return {}; }
};

/// Checks the count, dtype, shape and byte size of every input against the
/// artifact's signature ("input 'x' has shape 1x3 but the model expects
/// 2x3").
bool checkInputs(const Artifact &artifact, const std::vector<TensorRef> &inputs,
                 std::string &error);

/// Buffer `index` of `artifact` in words, for errors: "input 'x'",
/// "output 'y'", "weight buffer 3", "intermediate buffer 5".
std::string describeBuffer(const Artifact &artifact, size_t index);

/// The error when the host copy of `output` cannot be allocated.
std::string hostCopyOutOfMemory(const TensorDesc &output);

/// The executor for the artifact's target; null with `error` when the
/// target is unknown or its executor cannot load the artifact.
std::unique_ptr<Executor> createExecutor(Artifact artifact,
                                         const ExecutorOptions &options,
                                         std::string &error);

} // namespace bwc::rt

#endif // BWC_RUNTIME_EXECUTOR_H
