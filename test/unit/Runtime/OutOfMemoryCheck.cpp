//===- OutOfMemoryCheck.cpp - Every host allocation failure, under LSan ---===//
//
// The C++ twin of test/python/test_out_of_memory.py, for the runtime built
// with AddressSanitizer and LeakSanitizer (build-fuzz-compiler/, which
// scripts/test.sh builds): the n-th allocateHost call fails, for every n in
// turn, while an executor is created and run. Each failure must be the
// named error ("cannot allocate N bytes ... out of memory"), must leave the
// runtime's live-allocation counter where it was, and the first run that
// succeeds must give the outputs of an uninjected run. LeakSanitizer checks
// at exit that nothing else leaked either (strings, executors, cuda-sim's
// state): the counter sees only allocateHost.
//
// Usage: bwc-oom-check ARTIFACT DEVICE     (DEVICE: cpu or cuda-sim)
// Prints "N allocation failures named, freed, and the runtime runs again".
//
//===----------------------------------------------------------------------===//

#include "bwc/Runtime/Artifact.h"
#include "bwc/Runtime/Executor.h"
#include "bwc/Runtime/HostMemory.h"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

using namespace bwc::rt;

namespace {

int fail(const std::string &message) {
  std::fprintf(stderr, "bwc-oom-check: %s\n", message.c_str());
  return 1;
}

/// Inputs of a fixed pattern (small values of every dtype's size).
std::vector<HostTensor> makeInputs(const Artifact &a) {
  std::vector<HostTensor> inputs;
  for (const TensorDesc &d : a.inputs) {
    HostTensor t;
    t.desc = d;
    t.data.resize(d.bytes());
    if (d.dtype == DType::f32) {
      auto *f = reinterpret_cast<float *>(t.data.data());
      for (int64_t i = 0; i < d.numElements(); ++i)
        f[i] = static_cast<float>(i % 17) / 16.0f - 0.5f;
    }
    inputs.push_back(std::move(t));
  }
  return inputs;
}

bool run(const Artifact &a, const std::string &device,
         std::vector<HostTensor> &outputs, std::string &error) {
  ExecutorOptions options;
  options.device = device == "cuda-sim" ? "cuda-sim" : "cuda";
  std::unique_ptr<Executor> exec = createExecutor(a, options, error);
  return exec && exec->run(makeInputs(a), outputs, error);
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 3)
    return fail("usage: bwc-oom-check ARTIFACT cpu|cuda-sim");
  std::ifstream in(argv[1], std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  Artifact artifact;
  std::string error;
  if (!deserialize(ss.str(), artifact, error))
    return fail(error);
  std::string device = argv[2];

  std::vector<HostTensor> want;
  if (!run(artifact, device, want, error))
    return fail("the uninjected run failed: " + error);
  uint64_t live = testing::liveHostAllocations();
  int failures = 0;
  for (uint64_t n = 1;; ++n) {
    if (n > 200)
      return fail("allocation failures never stop");
    testing::failHostAllocation(n);
    std::vector<HostTensor> got;
    error.clear();
    bool ok = run(artifact, device, got, error);
    testing::failHostAllocation(0);
    if (testing::liveHostAllocations() != live)
      return fail("allocation " + std::to_string(n) + " leaks " +
                  std::to_string(testing::liveHostAllocations() - live) +
                  " host buffers");
    if (!ok) {
      if (error.rfind("cannot allocate ", 0) != 0 ||
          error.find("out of memory") == std::string::npos)
        return fail("allocation " + std::to_string(n) +
                    " failed without the named error: " + error);
      ++failures;
      continue;
    }
    if (got.size() != want.size())
      return fail("the injected runs ended with other outputs");
    for (size_t i = 0; i < got.size(); ++i)
      if (got[i].data != want[i].data)
        return fail("output " + std::to_string(i) +
                    " differs after the allocation failures");
    break;
  }
  // The arena, the input, the output and the weight, at least.
  if (failures < 4)
    return fail("only " + std::to_string(failures) + " allocations failed");
  std::printf("%d allocation failures named, freed, and the runtime runs "
              "again\n",
              failures);
  return 0;
}
