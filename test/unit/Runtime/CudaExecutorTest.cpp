//===- CudaExecutorTest.cpp - CudaExecutor against the fake driver --------===//
//
// Every test loads libbwc-fake-cuda.so (FakeCuda.cpp) through
// BWC_CUDA_DRIVER and reads the fake's call log (FAKE_CUDA_LOG).
//
//===----------------------------------------------------------------------===//

#include "bwc/Runtime/CudaExecutor.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace bwc::rt;

namespace {

class CudaExecutorTest : public ::testing::Test {
protected:
  void SetUp() override {
    logPath =
        ::testing::TempDir() + "fake-cuda-" + std::to_string(getpid()) + ".log";
    std::remove(logPath.c_str());
    setenv("BWC_CUDA_DRIVER", BWC_FAKE_CUDA, 1);
    setenv("FAKE_CUDA_LOG", logPath.c_str(), 1);
    unsetenv("FAKE_CUDA_MEM_LIMIT");
    unsetenv("FAKE_CUDA_FAIL_ALLOC");
    unsetenv("FAKE_CUDA_CC");
    unsetenv("FAKE_CUDA_NO_DEVICE");
  }
  void TearDown() override { std::remove(logPath.c_str()); }

  /// The fake driver's calls so far, one per line.
  std::vector<std::string> calls() const {
    std::ifstream f(logPath);
    std::vector<std::string> lines;
    for (std::string line; std::getline(f, line);)
      lines.push_back(line);
    return lines;
  }
  size_t count(const std::string &line) const {
    auto all = calls();
    return std::count(all.begin(), all.end(), line);
  }
  /// Calls whose line starts with `prefix`.
  size_t countPrefix(const std::string &prefix) const {
    size_t n = 0;
    for (const std::string &c : calls())
      n += c.rfind(prefix, 0) == 0;
    return n;
  }

  std::string logPath;
};

Kernel kernel(const std::string &name, uint32_t gridX, uint32_t blockX) {
  Kernel k;
  k.name = name;
  k.grid[0] = gridX;
  k.block[0] = blockX;
  k.grid[1] = k.grid[2] = k.block[1] = k.block[2] = 1;
  return k;
}

/// y = (x * w) + 1 over 8 floats: mul(x, w, t) then add_one(t, y), t in
/// the arena; `extra` appends one more launch of that kernel reading t.
Artifact mulAddOne(const std::string &extra = "") {
  Artifact a;
  a.target = "cuda";
  a.gpuArch = "sm_90";
  a.code = ".visible .entry mul(\n.visible .entry add_one(\n"
           ".visible .entry fault(\n.visible .entry bad_launch(\n";
  TensorDesc d{"x", DType::f32, {8}};
  a.inputs = {d};
  d.name = "y";
  a.outputs = {d};
  a.inputBuffers = {0};
  a.outputBuffers = {1};
  Buffer in, out, weight, tmp;
  in.kind = BufferKind::input, in.bytes = 32, in.ioIndex = 0;
  out.kind = BufferKind::output, out.bytes = 32, out.ioIndex = 0;
  weight.kind = BufferKind::weight, weight.bytes = 32;
  tmp.bytes = 32, tmp.arenaOffset = 256;
  a.buffers = {in, out, weight, tmp};
  a.arenaBytes = 512;
  for (int i = 0; i < 8; ++i) {
    float w = float(i);
    a.weights.append(reinterpret_cast<const char *>(&w), 4);
  }
  a.kernels = {kernel("mul", 2, 4), kernel("add_one", 1, 8)};
  a.launches = {{0, {0, 2, 3}}, {1, {3, 1}}};
  if (!extra.empty()) {
    a.kernels.push_back(kernel(extra, 1, 8));
    a.launches.push_back({2, {3, 1}});
  }
  return a;
}

std::vector<HostTensor> inputOf(float scale) {
  HostTensor t;
  t.desc = {"x", DType::f32, {8}};
  for (int i = 0; i < 8; ++i) {
    float v = scale * (i + 1);
    t.data.insert(t.data.end(), reinterpret_cast<uint8_t *>(&v),
                  reinterpret_cast<uint8_t *>(&v) + 4);
  }
  return {t};
}

float at(const HostTensor &t, int i) {
  float v;
  std::memcpy(&v, t.data.data() + 4 * i, 4);
  return v;
}

// Tests that the kernels run in order with their grids and blocks, that the
// result is right on every run and that the weights are uploaded once.
TEST_F(CudaExecutorTest, RunsInOrderAndUploadsWeightsOnce) {
  std::string error;
  auto exec = CudaExecutor::create(mulAddOne(), {}, error);
  ASSERT_TRUE(exec) << error;
  EXPECT_EQ(exec->loadedFrom(), "ptx"); // no cubin in the artifact
  for (float scale : {1.0f, 2.0f, -3.0f}) {
    std::vector<HostTensor> outputs;
    ASSERT_TRUE(exec->run(inputOf(scale), outputs, error)) << error;
    ASSERT_EQ(outputs.size(), 1u);
    for (int i = 0; i < 8; ++i)
      EXPECT_EQ(at(outputs[0], i), scale * (i + 1) * i + 1) << i;
  }
  // The weight upload and three input uploads, all 32 bytes.
  EXPECT_EQ(count("cuMemcpyHtoD 32"), 4u);
  EXPECT_EQ(count("cuMemAlloc 512"), 1u); // the arena, once
  std::vector<std::string> launches;
  for (const std::string &c : calls())
    if (c.rfind("cuLaunchKernel", 0) == 0)
      launches.push_back(c);
  ASSERT_EQ(launches.size(), 6u);
  EXPECT_EQ(launches[0], "cuLaunchKernel mul grid=2,1,1 block=4,1,1 shared=0");
  EXPECT_EQ(launches[1],
            "cuLaunchKernel add_one grid=1,1,1 block=8,1,1 shared=0");
}

// Tests that a missing driver library is a clean error.
TEST_F(CudaExecutorTest, NoDriver) {
  setenv("BWC_CUDA_DRIVER", "/nonexistent/libcuda.so.1", 1);
  std::string error;
  EXPECT_FALSE(CudaExecutor::create(mulAddOne(), {}, error));
  EXPECT_EQ(error.rfind("no CUDA driver found (cannot load "
                        "'/nonexistent/libcuda.so.1'",
                        0),
            0u)
      << error;
}

// Tests that a driver without a GPU is a clean error.
TEST_F(CudaExecutorTest, NoDevice) {
  setenv("FAKE_CUDA_NO_DEVICE", "1", 1);
  std::string error;
  EXPECT_FALSE(CudaExecutor::create(mulAddOne(), {}, error));
  EXPECT_EQ(error, "the CUDA driver sees no GPU");
}

// Tests that the cubin is used on a matching GPU, the PTX elsewhere and
// when the cubin does not load.
TEST_F(CudaExecutorTest, CubinOrPtx) {
  Artifact a = mulAddOne();
  a.cubin = "\x7f"
            "ELF" +
            a.code;
  std::string error;
  auto exec = CudaExecutor::create(a, {}, error);
  ASSERT_TRUE(exec) << error;
  EXPECT_EQ(exec->loadedFrom(), "cubin");
  exec.reset();
  setenv("FAKE_CUDA_CC", "80", 1);
  exec = CudaExecutor::create(a, {}, error);
  ASSERT_TRUE(exec) << error;
  EXPECT_EQ(exec->loadedFrom(), "ptx");
  exec.reset();
  unsetenv("FAKE_CUDA_CC");
  a.cubin += "fake-bad-cubin";
  exec = CudaExecutor::create(a, {}, error);
  ASSERT_TRUE(exec) << error;
  EXPECT_EQ(exec->loadedFrom(), "ptx");
}

// Tests that a PTX the driver cannot compile shows the JIT log.
TEST_F(CudaExecutorTest, JitErrorLog) {
  Artifact a = mulAddOne();
  a.code += "fake-ptx-error";
  std::string error;
  EXPECT_FALSE(CudaExecutor::create(a, {}, error));
  EXPECT_EQ(error, "cannot JIT-compile the sm_90 PTX for this sm_90 GPU: "
                   "CUDA_ERROR_INVALID_PTX (a PTX JIT compilation failed): "
                   "ptxas fatal   : fake syntax error on line 3");
}

// Tests that a kernel missing from the module is named.
TEST_F(CudaExecutorTest, MissingKernel) {
  Artifact a = mulAddOne("not_there");
  std::string error;
  EXPECT_FALSE(CudaExecutor::create(a, {}, error));
  EXPECT_EQ(error, "kernel 'not_there' is missing from the artifact's ptx");
}

// Tests that running out of GPU memory names the allocation.
TEST_F(CudaExecutorTest, OutOfMemory) {
  setenv("FAKE_CUDA_MEM_LIMIT", "300", 1);
  std::string error;
  EXPECT_FALSE(CudaExecutor::create(mulAddOne(), {}, error));
  EXPECT_EQ(error, "cannot allocate 512 bytes on the GPU for the arena of "
                   "intermediates: CUDA_ERROR_OUT_OF_MEMORY (out of memory) "
                   "(300 of 300 bytes free)");
}

// Tests that a failure of every device allocation in turn is a named error
// that frees what was allocated before it, and that the runtime works
// afterwards.
TEST_F(CudaExecutorTest, EveryAllocationFailureIsNamedAndFreed) {
  int failures = 0;
  for (int n = 1;; ++n) {
    ASSERT_LT(n, 20) << "allocation failures never stop";
    setenv("FAKE_CUDA_FAIL_ALLOC", std::to_string(n).c_str(), 1);
    size_t allocs = countPrefix("cuMemAlloc "),
           frees = countPrefix("cuMemFree ");
    std::string error;
    auto exec = CudaExecutor::create(mulAddOne(), {}, error);
    if (exec) {
      std::vector<HostTensor> outputs;
      ASSERT_TRUE(exec->run(inputOf(1), outputs, error)) << error;
      EXPECT_EQ(at(outputs[0], 7), 8 * 7 + 1);
      break;
    }
    ++failures;
    EXPECT_EQ(error.rfind("cannot allocate ", 0), 0u) << error;
    EXPECT_NE(error.find(" on the GPU for "), std::string::npos) << error;
    EXPECT_NE(error.find("CUDA_ERROR_OUT_OF_MEMORY"), std::string::npos);
    // Everything the failed executor allocated is freed.
    EXPECT_EQ(countPrefix("cuMemAlloc ") - allocs,
              countPrefix("cuMemFree ") - frees)
        << "allocation " << n;
  }
  // The arena, the input, the output and the weight.
  EXPECT_EQ(failures, 4);
}

// Tests that a faulting kernel is named when each launch is synchronized.
TEST_F(CudaExecutorTest, FaultNamesKernel) {
  std::string error;
  auto exec = CudaExecutor::create(mulAddOne("fault"), {}, error);
  ASSERT_TRUE(exec) << error;
  std::vector<HostTensor> outputs;
  EXPECT_FALSE(exec->run(inputOf(1), outputs, error));
  EXPECT_EQ(error, "kernel 'fault' (launch 3 of 3, grid 1x1x1, block 8x1x1, "
                   "0 shared bytes) faulted: CUDA_ERROR_ILLEGAL_ADDRESS (an "
                   "illegal memory access was encountered)");
}

// Tests that without per-launch synchronization the fault is still an
// error, which says how to name the kernel.
TEST_F(CudaExecutorTest, AsyncFault) {
  ExecutorOptions options;
  options.syncEachLaunch = false;
  std::string error;
  auto exec = CudaExecutor::create(mulAddOne("fault"), options, error);
  ASSERT_TRUE(exec) << error;
  std::vector<HostTensor> outputs;
  EXPECT_FALSE(exec->run(inputOf(1), outputs, error));
  EXPECT_NE(error.find("a kernel of the launch list faulted"),
            std::string::npos)
      << error;
}

// Tests that a launch the driver refuses names the kernel.
TEST_F(CudaExecutorTest, LaunchFailureNamesKernel) {
  std::string error;
  auto exec = CudaExecutor::create(mulAddOne("bad_launch"), {}, error);
  ASSERT_TRUE(exec) << error;
  BenchStats stats;
  EXPECT_FALSE(exec->benchmark(inputOf(1), 1, 2, stats, error));
  EXPECT_EQ(error.rfind("launch of kernel 'bad_launch' (launch 3 of 3", 0), 0u)
      << error;
  EXPECT_NE(error.find("CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"),
            std::string::npos);
}

// Tests the benchmark: one time per launch, graph replay when asked.
TEST_F(CudaExecutorTest, BenchmarkWithGraph) {
  ExecutorOptions options;
  options.cudaGraph = true;
  std::string error;
  auto exec = CudaExecutor::create(mulAddOne(), options, error);
  ASSERT_TRUE(exec) << error;
  BenchStats stats;
  ASSERT_TRUE(exec->benchmark(inputOf(1), 2, 5, stats, error)) << error;
  EXPECT_TRUE(stats.cudaGraph);
  EXPECT_EQ(stats.runsMs.size(), 5u);
  EXPECT_EQ(stats.launchMedianMs.size(), 2u);
  EXPECT_LE(stats.minMs, stats.medianMs);
  EXPECT_LE(stats.medianMs, stats.maxMs);
  EXPECT_EQ(count("cuStreamEndCapture 2 launches"), 1u);
  // The per-kernel pass: its own graph, an event node around each kernel.
  EXPECT_EQ(count("cuStreamEndCapture 2 launches 4 event nodes"), 1u);
  EXPECT_EQ(stats.kernelTiming, "graph");
  // One replay to check the graph, one per timed run, then the timed
  // graph once per run.
  EXPECT_EQ(count("cuGraphLaunch 2 launches"), 11u);
  // The replayed graph computed the right values.
  std::vector<HostTensor> outputs;
  ASSERT_TRUE(exec->run(inputOf(1), outputs, error)) << error;
  EXPECT_EQ(at(outputs[0], 7), 8 * 7 + 1);
}

/// mulAddOne with a runtime branch on a bool input `c` (buffer 4): then,
/// y = x * w + 1 (add_one); else, y = x * w (copy).
Artifact branchy() {
  Artifact a = mulAddOne();
  a.inputs.push_back({"c", DType::boolean, {}});
  Buffer c;
  c.kind = BufferKind::input, c.bytes = 1, c.ioIndex = 1;
  a.buffers.push_back(c);
  a.inputBuffers.push_back(4);
  a.code += ".visible .entry copy(\n";
  a.kernels.push_back(kernel("copy", 1, 8));
  a.launches[1].guards = {{4, true}};
  a.launches.push_back({2, {3, 1}, {{4, false}}});
  return a;
}

std::vector<HostTensor> branchInputs(float scale, bool c) {
  std::vector<HostTensor> in = inputOf(scale);
  HostTensor t;
  t.desc = {"c", DType::boolean, {}};
  t.data = {uint8_t(c)};
  in.push_back(t);
  return in;
}

// Tests that a guarded launch runs only when its condition holds: the
// condition is read once per run (one byte), the other branch's launch is
// skipped, and a benchmark decides once and replays the choice, in the
// captured graphs too.
TEST_F(CudaExecutorTest, SkipsTheBranchNotTaken) {
  ExecutorOptions options;
  options.cudaGraph = true;
  std::string error;
  auto exec = CudaExecutor::create(branchy(), options, error);
  ASSERT_TRUE(exec) << error;
  for (bool c : {true, false, true}) {
    std::vector<HostTensor> outputs;
    ASSERT_TRUE(exec->run(branchInputs(2, c), outputs, error)) << error;
    for (int i = 0; i < 8; ++i)
      EXPECT_EQ(at(outputs[0], i), 2.0f * (i + 1) * i + (c ? 1 : 0)) << i;
  }
  EXPECT_EQ(count("cuMemcpyDtoH 1"), 3u);
  EXPECT_EQ(countPrefix("cuLaunchKernel add_one"), 2u);
  EXPECT_EQ(countPrefix("cuLaunchKernel copy"), 1u);

  BenchStats stats;
  ASSERT_TRUE(exec->benchmark(branchInputs(1, false), 0, 3, stats, error))
      << error;
  // One live run reads the condition; the graphs hold the taken launches.
  EXPECT_EQ(count("cuMemcpyDtoH 1"), 4u);
  EXPECT_EQ(count("cuStreamEndCapture 2 launches"), 1u);
  EXPECT_EQ(stats.launchSkipped, (std::vector<bool>{false, true, false}));
  EXPECT_EQ(countPrefix("cuLaunchKernel add_one"), 2u);
  std::vector<HostTensor> outputs;
  ASSERT_TRUE(exec->run(branchInputs(1, false), outputs, error)) << error;
  EXPECT_EQ(at(outputs[0], 7), 8 * 7);
}

// Tests that per-kernel times come from a captured graph with event nodes
// (no launch of the per-kernel pass on the stream), and that each kernel's
// time is what its events bracket: the fake stamps events on the host
// clock as the graph runs, so the times are positive and within the run.
TEST_F(CudaExecutorTest, KernelTimesFromEventNodes) {
  std::string error;
  auto exec = CudaExecutor::create(mulAddOne(), {}, error);
  ASSERT_TRUE(exec) << error;
  BenchStats stats;
  ASSERT_TRUE(exec->benchmark(inputOf(1), 1, 3, stats, error)) << error;
  EXPECT_EQ(stats.kernelTiming, "graph");
  EXPECT_TRUE(stats.kernelTimingNote.empty());
  EXPECT_EQ(count("cuStreamEndCapture 2 launches 4 event nodes"), 1u);
  EXPECT_EQ(count("cuGraphLaunch 2 launches"), 3u);
  // Launches on the stream: the warmup and the 3 whole-list runs only.
  size_t streamLaunches = 0;
  for (const std::string &line : calls())
    streamLaunches += line.rfind("cuLaunchKernel ", 0) == 0;
  EXPECT_EQ(streamLaunches, 2u * 4);
  ASSERT_EQ(stats.launchMedianMs.size(), 2u);
  for (double ms : stats.launchMedianMs)
    EXPECT_GE(ms, 0.0);
}

// Tests the fallback when the driver cannot capture event nodes: stream
// events, and the reason recorded for the report.
TEST_F(CudaExecutorTest, KernelTimesFallBackToStreamEvents) {
  setenv("FAKE_CUDA_NO_EVENT_NODES", "1", 1);
  std::string error;
  auto exec = CudaExecutor::create(mulAddOne(), {}, error);
  ASSERT_TRUE(exec) << error;
  BenchStats stats;
  bool ok = exec->benchmark(inputOf(1), 1, 3, stats, error);
  unsetenv("FAKE_CUDA_NO_EVENT_NODES");
  ASSERT_TRUE(ok) << error;
  EXPECT_EQ(stats.kernelTiming, "stream");
  EXPECT_NE(stats.kernelTimingNote.find("CUDA_ERROR_NOT_SUPPORTED"),
            std::string::npos)
      << stats.kernelTimingNote;
  EXPECT_EQ(count("cuGraphLaunch 2 launches"), 0u);
  ASSERT_EQ(stats.launchMedianMs.size(), 2u);
}

// Tests the copy bandwidth and the peak derived from the device.
TEST_F(CudaExecutorTest, Peaks) {
  std::string error, how;
  auto exec = CudaExecutor::create(mulAddOne(), {}, error);
  ASSERT_TRUE(exec) << error;
  double gbps = 0;
  ASSERT_TRUE(exec->measureCopyBandwidth(1 << 20, 3, gbps, error)) << error;
  EXPECT_GT(gbps, 0);
  // 132 SMs x 128 lanes x 2 x 1.98 GHz.
  EXPECT_NEAR(exec->peakGflops(how), 132 * 128 * 2 * 1.98, 1e-6);
  EXPECT_EQ(how, "132 SMs x 128 FP32 lanes x 2 (FMA) x 1980 MHz");
  EXPECT_EQ(exec->deviceName(),
            "Fake CUDA device (sm_90, 132 SMs, kernels from the ptx)");
}

} // namespace
