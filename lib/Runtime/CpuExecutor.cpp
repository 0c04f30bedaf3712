//===- CpuExecutor.cpp - Runs a CPU artifact ------------------------------===//

#include "bwc/Runtime/CpuExecutor.h"
#include "bwc/Runtime/HostMemory.h"

#include <new>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <unistd.h>

namespace bwc::rt {
namespace {

constexpr size_t kAlignment = 64;

/// Writes `code` to a fresh private file (mkstemp, mode 0600) and returns
/// its path, or "" with `error`.
std::string writeTempCode(const std::string &code, std::string &error) {
  const char *dir = std::getenv("TMPDIR");
  std::string path =
      std::string(dir && *dir ? dir : "/tmp") + "/bwc-kernels-XXXXXX";
  int fd = mkstemp(path.data());
  if (fd < 0) {
    error = "cannot create a temporary file for the kernel code in '" +
            path.substr(0, path.rfind('/')) + "': " + std::strerror(errno);
    return "";
  }
  size_t done = 0;
  while (done < code.size()) {
    ssize_t n = write(fd, code.data() + done, code.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      error = "cannot write the kernel code to '" + path +
              "': " + std::strerror(errno);
      close(fd);
      unlink(path.c_str());
      return "";
    }
    done += n;
  }
  close(fd);
  return path;
}

double elapsedMs(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - since)
      .count();
}

} // namespace

std::unique_ptr<CpuExecutor> CpuExecutor::create(Artifact artifact,
                                                 std::string &error) {
  if (artifact.target != "cpu") {
    error = "artifact target '" + artifact.target + "' needs the " +
            (artifact.target == "cuda" ? std::string("CUDA runtime")
                                       : "'" + artifact.target + "' runtime") +
            "; this executor runs 'cpu' artifacts";
    return nullptr;
  }
  std::unique_ptr<CpuExecutor> exec(new CpuExecutor(std::move(artifact)));
  if (!exec->load(error))
    return nullptr;
  return exec;
}

CpuExecutor::~CpuExecutor() {
  for (void *p : allocations_)
    freeHost(p);
  if (library_)
    dlclose(library_);
}

bool CpuExecutor::load(std::string &error) {
  const Artifact &a = artifact_;
  // The code object: an empty artifact (no launches) needs none.
  if (!a.kernels.empty()) {
    if (a.code.size() < 4 || a.code.compare(0, 4,
                                            "\x7f"
                                            "ELF") != 0) {
      error = "artifact code is not an ELF shared object";
      return false;
    }
    std::string path = writeTempCode(a.code, error);
    if (path.empty())
      return false;
    library_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    // The mapping outlives the name; nothing is left behind in TMPDIR.
    unlink(path.c_str());
    if (!library_) {
      const char *why = dlerror();
      error = std::string("cannot load the kernel code: ") +
              (why ? why : "unknown dlopen error");
      return false;
    }
    for (const Kernel &k : a.kernels) {
      dlerror();
      void *sym = dlsym(library_, k.name.c_str());
      if (!sym) {
        error = "kernel '" + k.name + "' is missing from the artifact's code";
        return false;
      }
      kernels_.push_back(reinterpret_cast<KernelFn>(sym));
    }
  }

  auto allocate = [&](uint64_t bytes, const std::string &what) -> void * {
    void *p = nullptr;
    uint64_t rounded = std::max<uint64_t>(
        kAlignment, (bytes + kAlignment - 1) / kAlignment * kAlignment);
    if (!(p = allocateHost(rounded, kAlignment))) {
      error = "cannot allocate " + std::to_string(bytes) + " bytes for " +
              what + ": out of memory";
      return nullptr;
    }
    allocations_.push_back(p);
    return p;
  };
  char *arena = nullptr;
  if (a.arenaBytes && !(arena = static_cast<char *>(allocate(
                            a.arenaBytes, "the arena of intermediates"))))
    return false;
  bufferPtrs_.resize(a.buffers.size());
  for (size_t i = 0; i < a.buffers.size(); ++i) {
    const Buffer &b = a.buffers[i];
    if (b.kind == BufferKind::intermediate && b.arenaOffset != kNoArenaOffset) {
      bufferPtrs_[i] = arena + b.arenaOffset;
      continue;
    }
    std::string what = describeBuffer(a, i);
    if (!(bufferPtrs_[i] = allocate(b.bytes, what)))
      return false;
    if (b.kind == BufferKind::weight)
      std::memcpy(bufferPtrs_[i], a.weights.data() + b.weightOffset, b.bytes);
  }
  // The weights now live in their buffers; drop the second copy.
  std::string().swap(artifact_.weights);

  for (const Launch &l : a.launches) {
    std::vector<void *> args;
    for (uint32_t id : l.args)
      args.push_back(bufferPtrs_[id]);
    launchArgs_.push_back(std::move(args));
  }
  return true;
}

bool CpuExecutor::bindInputs(const std::vector<TensorRef> &inputs,
                             std::string &error) {
  const Artifact &a = artifact_;
  if (!checkInputs(a, inputs, error))
    return false;
  for (size_t i = 0; i < inputs.size(); ++i)
    std::memcpy(bufferPtrs_[a.inputBuffers[i]], inputs[i].data,
                inputs[i].bytes);
  return true;
}

void CpuExecutor::launchAll(std::vector<double> *launchMs) {
  const Artifact &a = artifact_;
  branches_.reset();
  skipped_.assign(a.launches.size(), false);
  // A condition is a one-byte tensor in host memory, read where it lies.
  auto read = [&](uint32_t buffer, uint8_t &byte, std::string &) {
    byte = *static_cast<const uint8_t *>(bufferPtrs_[buffer]);
    return true;
  };
  std::string unused;
  for (size_t i = 0; i < a.launches.size(); ++i) {
    bool run = true;
    branches_.runs(i, run, read, unused);
    if (!run) {
      skipped_[i] = true;
      if (launchMs)
        (*launchMs)[i] = 0;
      continue;
    }
    auto start = std::chrono::steady_clock::now();
    kernels_[a.launches[i].kernel](launchArgs_[i].data());
    if (launchMs)
      (*launchMs)[i] = elapsedMs(start);
  }
}

bool CpuExecutor::run(const std::vector<TensorRef> &inputs,
                      std::vector<HostTensor> &outputs, std::string &error) {
  if (!bindInputs(inputs, error))
    return false;
  launchAll();
  const Artifact &a = artifact_;
  outputs.assign(a.outputs.size(), HostTensor());
  for (size_t i = 0; i < a.outputs.size(); ++i) {
    outputs[i].desc = a.outputs[i];
    auto *p = static_cast<const uint8_t *>(bufferPtrs_[a.outputBuffers[i]]);
    try {
      outputs[i].data.assign(p, p + a.outputs[i].bytes());
    } catch (const std::bad_alloc &) {
      outputs.clear();
      error = hostCopyOutOfMemory(a.outputs[i]);
      return false;
    }
  }
  // The step's new state replaces the old once every launch has read it
  // and the outputs (which may be state, such as the loss scale used) are
  // copied out.
  for (const StateTensor &s : a.state)
    if (s.update != s.buffer) // else updated in place
      std::memcpy(bufferPtrs_[s.buffer], bufferPtrs_[s.update],
                  s.desc.bytes());
  return true;
}

bool CpuExecutor::benchmark(const std::vector<TensorRef> &inputs, int warmup,
                            int iterations, BenchStats &stats,
                            std::string &error) {
  if (iterations < 1) {
    error = "the benchmark needs at least one run";
    return false;
  }
  if (!bindInputs(inputs, error))
    return false;
  for (int i = 0; i < warmup; ++i)
    launchAll();
  size_t numLaunches = artifact_.launches.size();
  std::vector<std::vector<double>> perLaunch(numLaunches);
  std::vector<double> launchMs(numLaunches);
  stats.runsMs.clear();
  for (int i = 0; i < iterations; ++i) {
    auto start = std::chrono::steady_clock::now();
    launchAll(&launchMs);
    stats.runsMs.push_back(elapsedMs(start));
    for (size_t l = 0; l < numLaunches; ++l)
      perLaunch[l].push_back(launchMs[l]);
  }
  summarizeRuns(stats);
  stats.launchMedianMs.clear();
  for (std::vector<double> &times : perLaunch)
    stats.launchMedianMs.push_back(median(std::move(times)));
  stats.launchSkipped.clear();
  if (branches_.any())
    stats.launchSkipped = skipped_;
  stats.cudaGraph = false;
  stats.kernelTiming = "host";
  return true;
}

bool CpuExecutor::readState(std::vector<HostTensor> &state,
                            std::string &error) {
  state.assign(artifact_.state.size(), HostTensor());
  for (size_t i = 0; i < state.size(); ++i) {
    const StateTensor &s = artifact_.state[i];
    state[i].desc = s.desc;
    auto *p = static_cast<const uint8_t *>(bufferPtrs_[s.buffer]);
    try {
      state[i].data.assign(p, p + s.desc.bytes());
    } catch (const std::bad_alloc &) {
      state.clear();
      error = hostCopyOutOfMemory(s.desc);
      return false;
    }
  }
  return true;
}

bool CpuExecutor::measureCopyBandwidth(uint64_t bytes, int iterations,
                                       double &gbps, std::string &error) {
  std::vector<char> from(bytes, 1), to(bytes);
  std::vector<double> ms;
  for (int i = 0; i < iterations; ++i) {
    auto start = std::chrono::steady_clock::now();
    std::memcpy(to.data(), from.data(), bytes);
    ms.push_back(elapsedMs(start));
  }
  return copyBandwidth(bytes, ms, gbps, error);
}

} // namespace bwc::rt
