//===- CudaExecutor.h - Runs a CUDA artifact --------------------*- C++ -*-===//
//
// Loads the artifact's cubin (when the GPU's compute capability matches
// gpuArch) or its PTX (JIT-compiled by the driver), allocates one arena for
// the intermediates and one allocation per other buffer, uploads the
// weights once and launches the kernels in order on one stream. The driver
// is dlopened (CudaDriver.h): without one, create() fails with "no CUDA
// driver found". docs/runtime-cuda.md describes it.
//
//===----------------------------------------------------------------------===//
#ifndef BWC_RUNTIME_CUDAEXECUTOR_H
#define BWC_RUNTIME_CUDAEXECUTOR_H

#include "bwc/Runtime/CudaDriver.h"
#include "bwc/Runtime/Executor.h"

namespace bwc::rt {

/// What the runtime reads from the device at start-up.
struct CudaDeviceInfo {
  std::string name;
  int ccMajor = 0, ccMinor = 0, smCount = 0;
  int clockKHz = 0, memoryClockKHz = 0, busWidthBits = 0;
};

/// FP32 lanes per SM of compute capability `major.minor`; 0 when unknown.
int fp32LanesPerSm(int major, int minor);

class CudaExecutor : public Executor {
public:
  static std::unique_ptr<CudaExecutor>
  create(Artifact artifact, const ExecutorOptions &options, std::string &error);
  ~CudaExecutor() override;
  CudaExecutor(const CudaExecutor &) = delete;
  CudaExecutor &operator=(const CudaExecutor &) = delete;

  const Artifact &artifact() const override { return artifact_; }
  using Executor::benchmark;
  using Executor::run;
  bool run(const std::vector<TensorRef> &inputs,
           std::vector<HostTensor> &outputs, std::string &error) override;
  /// Whole-list latency from CUDA events around each run (a graph replay
  /// with ExecutorOptions::cudaGraph), then per-launch times from events
  /// around each launch, in separate passes.
  bool readState(std::vector<HostTensor> &state, std::string &error) override;
  bool benchmark(const std::vector<TensorRef> &inputs, int warmup,
                 int iterations, BenchStats &stats,
                 std::string &error) override;
  /// cuMemcpyDtoDAsync between two device buffers of `bytes`.
  bool measureCopyBandwidth(uint64_t bytes, int iterations, double &gbps,
                            std::string &error) override;
  /// SMs x FP32 lanes per SM x 2 (FMA) x clock.
  double peakGflops(std::string &how) const override;
  std::string deviceName() const override;
  std::vector<bool> lastRunSkipped() const override {
    return branches_.any() ? skipped_ : std::vector<bool>();
  }

  const CudaDeviceInfo &device() const { return device_; }
  /// "cubin" or "ptx": what the module was loaded from.
  const std::string &loadedFrom() const { return loadedFrom_; }

private:
  CudaExecutor(Artifact artifact, const ExecutorOptions &options)
      : artifact_(std::move(artifact)), options_(options) {}
  bool init(std::string &error);
  bool loadModule(std::string &error);
  bool allocate(std::string &error);
  /// Device memory of `bytes` for `what`; an OOM names it and the free
  /// memory.
  bool deviceAlloc(uint64_t bytes, const std::string &what,
                   cuda::CUdeviceptr &ptr, std::string &error);
  bool bindInputs(const std::vector<TensorRef> &inputs, std::string &error);
  /// Launches every kernel on the stream; with `sync`, synchronizes after
  /// each to attribute a fault. A launch whose branch condition does not
  /// hold is skipped (Launch::guards): the condition is copied to the host
  /// after the stream has run up to it, or, with replayBranches_ (a
  /// benchmark's repeated runs, a stream capture), the last live run's
  /// decisions are replayed. With `events` (2 per launch), records an
  /// event around each launch; with `eventNodes` too (during a stream
  /// capture), as event record nodes of the graph.
  bool launchAll(bool sync, std::string &error,
                 const std::vector<cuda::CUevent> *events = nullptr,
                 bool eventNodes = false);
  /// The per-kernel pass of benchmark(): `iterations` replays of the launch
  /// list captured with an event record node around each kernel, the times
  /// appended to `perLaunch`. False with `why` when the driver cannot build
  /// or replay that graph (the caller falls back to stream events); a fault
  /// of a kernel or an event that cannot be created is an error (`error`,
  /// `fatal`).
  bool timeLaunchesInGraph(int iterations,
                           std::vector<std::vector<double>> &perLaunch,
                           std::string &why, bool &fatal, std::string &error);
  /// The fallback: an event pair around each launch on the stream, one
  /// synchronized pass per iteration.
  bool timeLaunchesOnStream(int iterations,
                            std::vector<std::vector<double>> &perLaunch,
                            std::string &error);
  bool syncStream(const std::string &after, std::string &error);
  /// "kernel 'k' (launch i of n, grid AxBxC, block AxBxC, S shared bytes)".
  std::string describeLaunch(size_t launch) const;
  /// False with "<what>: <driver error>" unless `result` is success.
  bool check(cuda::CUresult result, const std::string &what,
             std::string &error) const;

  Artifact artifact_;
  BranchDecider branches_{artifact_};
  /// Per launch: whether the last live launchAll skipped it.
  std::vector<bool> skipped_;
  bool replayBranches_ = false;
  ExecutorOptions options_;
  std::shared_ptr<cuda::Driver> driver_;
  CudaDeviceInfo device_;
  std::string loadedFrom_;
  cuda::CUdevice dev_ = 0;
  cuda::CUcontext context_ = nullptr;
  cuda::CUmodule module_ = nullptr;
  cuda::CUstream stream_ = nullptr;
  std::vector<cuda::CUfunction> functions_;
  std::vector<cuda::CUdeviceptr> allocations_;
  std::vector<cuda::CUdeviceptr> bufferPtrs_;
  /// Per launch: the argument values and the pointers cuLaunchKernel reads.
  std::vector<std::vector<cuda::CUdeviceptr>> launchArgs_;
  std::vector<std::vector<void *>> launchParams_;
  /// cuda-sim (drivers with bwcSimSetLaunchArguments / bwcSimForgetWrites):
  /// per launch, each argument's buffer bytes and name, and the
  /// intermediate and output buffers the launch writes first (their bytes
  /// forgotten by initcheck before it, unless they overlap another argument
  /// of the launch: in-place).
  std::vector<std::vector<uint64_t>> launchArgBytes_;
  std::vector<std::vector<std::string>> launchArgNames_;
  std::vector<std::vector<const char *>> launchArgNamePtrs_;
  std::vector<std::vector<std::pair<cuda::CUdeviceptr, uint64_t>>> firstWrites_;
};

} // namespace bwc::rt

#endif // BWC_RUNTIME_CUDAEXECUTOR_H
