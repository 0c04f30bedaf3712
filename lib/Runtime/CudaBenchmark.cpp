//===- CudaBenchmark.cpp - CUDA event timing and the copy bandwidth -------===//
//
// CudaExecutor's benchmark, copy-bandwidth measurement and device figures.
//
//===----------------------------------------------------------------------===//

#include "bwc/Runtime/CudaExecutor.h"

#include <algorithm>

namespace bwc::rt {

using namespace cuda;

namespace {

/// CUDA events destroyed with the scope.
struct Events {
  explicit Events(const DriverApi &d) : d(d) {}
  const DriverApi &d;
  std::vector<CUevent> events;
  ~Events() {
    for (CUevent e : events)
      d.cuEventDestroy(e);
  }
  bool create(size_t n, const Driver &driver, std::string &error) {
    for (size_t i = 0; i < n; ++i) {
      CUevent e = nullptr;
      CUresult r = d.cuEventCreate(&e, 0);
      if (r != CUDA_SUCCESS) {
        error = "cannot create a CUDA event: " + driver.describe(r);
        return false;
      }
      events.push_back(e);
    }
    return true;
  }
  /// Milliseconds between events `from` and `from + 1`.
  bool elapsed(size_t from, double &ms, const Driver &driver,
               std::string &error) const {
    float f = 0;
    CUresult r = d.cuEventElapsedTime(&f, events[from], events[from + 1]);
    if (r != CUDA_SUCCESS) {
      error = "cannot read a CUDA event time: " + driver.describe(r);
      return false;
    }
    ms = f;
    return true;
  }
};

/// A captured and instantiated launch list, destroyed with the scope.
struct Graph {
  explicit Graph(const DriverApi &d) : d(d) {}
  const DriverApi &d;
  CUgraph graph = nullptr;
  CUgraphExec exec = nullptr;
  ~Graph() {
    if (exec)
      d.cuGraphExecDestroy(exec);
    if (graph)
      d.cuGraphDestroy(graph);
  }
};

constexpr const char *kAsyncFault =
    "a kernel faulted during the benchmark (launches are asynchronous; "
    "bwc-run --check synchronizes after each launch and names it)";

} // namespace

bool CudaExecutor::benchmark(const std::vector<TensorRef> &inputs, int warmup,
                             int iterations, BenchStats &stats,
                             std::string &error) {
  if (iterations < 1) {
    error = "the benchmark needs at least one run";
    return false;
  }
  if (!bindInputs(inputs, error))
    return false;
  const DriverApi &d = driver_->api();
  // The inputs stay the same, so every run takes the branches the first
  // takes: one live run decides them (reading each condition), the others
  // and the captured graphs replay that decision without host syncs.
  struct Replay {
    bool &flag;
    ~Replay() { flag = false; }
  } replay{replayBranches_};
  replayBranches_ = false;
  int warm = 0;
  if (warmup > 0 || branches_.any()) {
    if (!launchAll(/*sync=*/false, error))
      return false;
    warm = 1;
  }
  replayBranches_ = true;
  for (int i = warm; i < warmup; ++i)
    if (!launchAll(/*sync=*/false, error))
      return false;
  if (!syncStream(kAsyncFault, error))
    return false;

  Graph graph{d};
  if (options_.cudaGraph) {
    if (!check(d.cuStreamBeginCapture(stream_,
                                      CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
               "cannot capture the launch list into a CUDA graph", error))
      return false;
    bool launched = launchAll(/*sync=*/false, error);
    CUresult ended = d.cuStreamEndCapture(stream_, &graph.graph);
    if (!launched ||
        !check(ended, "cannot capture the launch list into a CUDA graph",
               error) ||
        !check(d.cuGraphInstantiateWithFlags(&graph.exec, graph.graph, 0),
               "cannot instantiate the CUDA graph", error) ||
        !check(d.cuGraphLaunch(graph.exec, stream_),
               "cannot launch the CUDA graph", error) ||
        !syncStream(kAsyncFault, error))
      return false;
  }

  // The whole list, one event pair per run.
  Events runs{d};
  if (!runs.create(2 * size_t(iterations), *driver_, error))
    return false;
  for (int i = 0; i < iterations; ++i) {
    if (!check(d.cuEventRecord(runs.events[2 * i], stream_),
               "cannot record a CUDA event", error))
      return false;
    bool ok = graph.exec ? check(d.cuGraphLaunch(graph.exec, stream_),
                                 "cannot launch the CUDA graph", error)
                         : launchAll(/*sync=*/false, error);
    if (!ok || !check(d.cuEventRecord(runs.events[2 * i + 1], stream_),
                      "cannot record a CUDA event", error))
      return false;
  }
  if (!syncStream(kAsyncFault, error))
    return false;
  stats.runsMs.clear();
  for (int i = 0; i < iterations; ++i) {
    double ms = 0;
    if (!runs.elapsed(2 * i, ms, *driver_, error))
      return false;
    stats.runsMs.push_back(ms);
  }
  summarizeRuns(stats);
  stats.cudaGraph = graph.exec != nullptr;

  // Each launch, an event pair around it, in a separate pass so that the
  // events do not slow the whole-list figure down. Preferably inside a
  // captured graph: its kernels run back to back, so a kernel's time does
  // not include the host submitting the next one; else on the stream.
  size_t numLaunches = artifact_.launches.size();
  std::vector<std::vector<double>> perLaunch(numLaunches);
  std::string why;
  bool fatal = false;
  if (timeLaunchesInGraph(iterations, perLaunch, why, fatal, error)) {
    stats.kernelTiming = "graph";
    stats.kernelTimingNote.clear();
  } else {
    if (fatal)
      return false;
    stats.kernelTiming = "stream";
    stats.kernelTimingNote = why;
    perLaunch.assign(numLaunches, {});
    if (!timeLaunchesOnStream(iterations, perLaunch, error))
      return false;
  }
  stats.launchMedianMs.clear();
  for (std::vector<double> &times : perLaunch)
    stats.launchMedianMs.push_back(median(std::move(times)));
  stats.launchSkipped.clear();
  if (branches_.any())
    stats.launchSkipped = skipped_;
  return true;
}

bool CudaExecutor::timeLaunchesInGraph(
    int iterations, std::vector<std::vector<double>> &perLaunch,
    std::string &why, bool &fatal, std::string &error) {
  const DriverApi &d = driver_->api();
  size_t numLaunches = artifact_.launches.size();
  if (!d.cuEventRecordWithFlags) {
    why = "the CUDA driver has no cuEventRecordWithFlags";
    return false;
  }
  Events around{d};
  if (!around.create(2 * numLaunches, *driver_, error)) {
    fatal = true;
    return false;
  }
  Graph graph{d};
  std::string captureError;
  if (!check(d.cuStreamBeginCapture(stream_,
                                    CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
             "cannot capture the launch list", captureError)) {
    why = "no timed graph: " + captureError;
    return false;
  }
  bool launched = launchAll(/*sync=*/false, captureError, &around.events,
                            /*eventNodes=*/true);
  CUresult ended = d.cuStreamEndCapture(stream_, &graph.graph);
  if (!launched ||
      !check(ended, "cannot capture the launch list with event nodes",
             captureError) ||
      !check(d.cuGraphInstantiateWithFlags(&graph.exec, graph.graph, 0),
             "cannot instantiate the timed graph", captureError)) {
    why = "no timed graph: " + captureError;
    return false;
  }
  for (int i = 0; i < iterations; ++i) {
    if (!check(d.cuGraphLaunch(graph.exec, stream_),
               "cannot launch the timed graph", captureError)) {
      why = "no timed graph: " + captureError;
      return false;
    }
    if (!syncStream(kAsyncFault, error)) {
      fatal = true;
      return false;
    }
    for (size_t l = 0; l < numLaunches; ++l) {
      double ms = 0;
      if (!around.elapsed(2 * l, ms, *driver_, captureError)) {
        why = "no timed graph: " + captureError;
        return false;
      }
      perLaunch[l].push_back(ms);
    }
  }
  return true;
}

bool CudaExecutor::timeLaunchesOnStream(
    int iterations, std::vector<std::vector<double>> &perLaunch,
    std::string &error) {
  const DriverApi &d = driver_->api();
  size_t numLaunches = artifact_.launches.size();
  Events around{d};
  if (!around.create(2 * numLaunches, *driver_, error))
    return false;
  for (int i = 0; i < iterations; ++i) {
    if (!launchAll(/*sync=*/false, error, &around.events) ||
        !syncStream(kAsyncFault, error))
      return false;
    for (size_t l = 0; l < numLaunches; ++l) {
      double ms = 0;
      if (!around.elapsed(2 * l, ms, *driver_, error))
        return false;
      perLaunch[l].push_back(ms);
    }
  }
  return true;
}

bool CudaExecutor::measureCopyBandwidth(uint64_t bytes, int iterations,
                                        double &gbps, std::string &error) {
  const DriverApi &d = driver_->api();
  CUdeviceptr from = 0, to = 0;
  std::string what =
      "the copy-bandwidth measurement (" + std::to_string(bytes) + " bytes)";
  if (!deviceAlloc(bytes, what, from, error) ||
      !deviceAlloc(bytes, what, to, error))
    return false;
  // Freed now rather than with the executor: the buffers may be large.
  auto release = [&] {
    for (CUdeviceptr p : {from, to}) {
      d.cuMemFree(p);
      allocations_.erase(
          std::find(allocations_.begin(), allocations_.end(), p));
    }
  };
  Events events{d};
  bool ok = events.create(2 * size_t(iterations), *driver_, error);
  // Two untimed copies first: the first touches the pages.
  for (int i = 0; ok && i < 2; ++i)
    ok = check(d.cuMemcpyDtoDAsync(to, from, bytes, stream_),
               "cannot copy on the GPU", error);
  for (int i = 0; ok && i < iterations; ++i)
    ok = check(d.cuEventRecord(events.events[2 * i], stream_),
               "cannot record a CUDA event", error) &&
         check(d.cuMemcpyDtoDAsync(to, from, bytes, stream_),
               "cannot copy on the GPU", error) &&
         check(d.cuEventRecord(events.events[2 * i + 1], stream_),
               "cannot record a CUDA event", error);
  ok = ok && syncStream("the copy-bandwidth measurement failed", error);
  std::vector<double> ms(iterations);
  for (int i = 0; ok && i < iterations; ++i)
    ok = events.elapsed(2 * i, ms[i], *driver_, error);
  release();
  if (!ok)
    return false;
  return copyBandwidth(bytes, ms, gbps, error);
}

double CudaExecutor::peakGflops(std::string &how) const {
  const CudaDeviceInfo &i = device_;
  int lanes = fp32LanesPerSm(i.ccMajor, i.ccMinor);
  if (!lanes || !i.clockKHz || !i.smCount) {
    how = "unknown for sm_" + std::to_string(i.ccMajor * 10 + i.ccMinor) +
          " (give --peak-gflops)";
    return 0;
  }
  how = std::to_string(i.smCount) + " SMs x " + std::to_string(lanes) +
        " FP32 lanes x 2 (FMA) x " + std::to_string(i.clockKHz / 1000) +
        " MHz";
  return double(i.smCount) * lanes * 2 * i.clockKHz * 1e-6;
}

std::string CudaExecutor::deviceName() const {
  const CudaDeviceInfo &i = device_;
  return i.name + " (sm_" + std::to_string(i.ccMajor * 10 + i.ccMinor) + ", " +
         std::to_string(i.smCount) + " SMs" +
         (loadedFrom_.empty() ? "" : ", kernels from the " + loadedFrom_) + ")";
}

} // namespace bwc::rt
