//===- CudaExecutor.cpp - Runs a CUDA artifact ----------------------------===//

#include "bwc/Runtime/CudaExecutor.h"

#include <new>

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace bwc::rt {

using namespace cuda;

namespace {

/// Buffers and the arena start on 256-byte boundaries (cuMemAlloc's own
/// alignment); a zero-byte buffer still gets a valid pointer.
constexpr uint64_t kMinAllocation = 256;
/// Kernels may use this much dynamic shared memory without opting in.
constexpr uint32_t kDefaultSharedLimit = 48 * 1024;
constexpr size_t kJitLogBytes = 16 * 1024;

std::string dims(const uint32_t d[3]) {
  return std::to_string(d[0]) + "x" + std::to_string(d[1]) + "x" +
         std::to_string(d[2]);
}

/// "sm_90" -> 90; -1 when malformed.
int archNumber(const std::string &arch) {
  if (arch.size() < 4 || arch.compare(0, 3, "sm_") != 0)
    return -1;
  int n = 0;
  for (char c : arch.substr(3)) {
    if (c < '0' || c > '9')
      return c == 'a' && n ? n : -1; // sm_90a
    n = n * 10 + (c - '0');
  }
  return n;
}

} // namespace

int fp32LanesPerSm(int major, int minor) {
  switch (major) {
  case 6:
    return minor == 0 ? 64 : 128;
  case 7:
    return 64;
  case 8:
    return minor == 0 ? 64 : 128;
  case 9:
  case 10:
  case 12:
    return 128;
  default:
    return 0;
  }
}

std::unique_ptr<CudaExecutor>
CudaExecutor::create(Artifact artifact, const ExecutorOptions &options,
                     std::string &error) {
  if (artifact.target != "cuda") {
    error = "artifact target '" + artifact.target +
            "' is not 'cuda'; the CUDA executor runs 'cuda' artifacts";
    return nullptr;
  }
  std::unique_ptr<CudaExecutor> exec(
      new CudaExecutor(std::move(artifact), options));
  if (!exec->init(error) || !exec->loadModule(error) || !exec->allocate(error))
    return nullptr;
  return exec;
}

CudaExecutor::~CudaExecutor() {
  if (!driver_ || !context_)
    return;
  const DriverApi &d = driver_->api();
  // Teardown errors (a sticky fault) cannot be reported any more.
  for (CUdeviceptr p : allocations_)
    d.cuMemFree(p);
  if (stream_)
    d.cuStreamDestroy(stream_);
  if (module_)
    d.cuModuleUnload(module_);
  d.cuDevicePrimaryCtxRelease(dev_);
}

bool CudaExecutor::check(CUresult result, const std::string &what,
                         std::string &error) const {
  if (result == CUDA_SUCCESS)
    return true;
  error = what + ": " + driver_->describe(result);
  return false;
}

bool CudaExecutor::init(std::string &error) {
  if (options_.device != "cuda" && options_.device != "cuda-sim") {
    error =
        "unknown device '" + options_.device + "' (expected cuda or cuda-sim)";
    return false;
  }
  driver_ = options_.device == "cuda-sim"
                ? Driver::simulated(options_.sanitizers, error)
                : Driver::load(error);
  if (!driver_)
    return false;
  const DriverApi &d = driver_->api();
  int count = 0;
  if (!check(d.cuInit(0), "cannot initialize the CUDA driver", error) ||
      !check(d.cuDeviceGetCount(&count), "cannot count the CUDA devices",
             error))
    return false;
  if (count == 0) {
    error = "the CUDA driver sees no GPU";
    return false;
  }
  char name[256] = {0};
  CudaDeviceInfo &info = device_;
  bool ok =
      check(d.cuDeviceGet(&dev_, 0), "cannot open CUDA device 0", error) &&
      check(d.cuDeviceGetName(name, sizeof(name) - 1, dev_),
            "cannot read the GPU's name", error);
  std::pair<int *, int> required[] = {
      {&info.ccMajor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR},
      {&info.ccMinor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR},
      {&info.smCount, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT}};
  for (auto [value, attribute] : required)
    ok =
        ok && check(d.cuDeviceGetAttribute(value, attribute, dev_),
                    "cannot read device attribute " + std::to_string(attribute),
                    error);
  // Only for the peak figures: a driver that no longer reports one leaves
  // it 0 ("unknown").
  std::pair<int *, int> optional[] = {
      {&info.clockKHz, CU_DEVICE_ATTRIBUTE_CLOCK_RATE},
      {&info.memoryClockKHz, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE},
      {&info.busWidthBits, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH}};
  for (auto [value, attribute] : optional)
    if (ok && d.cuDeviceGetAttribute(value, attribute, dev_) != CUDA_SUCCESS)
      *value = 0;
  info.name = name;
  return ok &&
         check(d.cuDevicePrimaryCtxRetain(&context_, dev_),
               "cannot create a CUDA context", error) &&
         check(d.cuCtxSetCurrent(context_), "cannot use the CUDA context",
               error) &&
         check(d.cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING),
               "cannot create a CUDA stream", error);
}

bool CudaExecutor::loadModule(std::string &error) {
  const Artifact &a = artifact_;
  if (a.kernels.empty())
    return true;
  const DriverApi &d = driver_->api();
  int deviceArch = device_.ccMajor * 10 + device_.ccMinor;
  std::string gpu = "sm_" + std::to_string(deviceArch);
  std::string cubinError;
  if (driver_->isSimulator()) {
    // The emulated device's image is the host code of the same kernels.
    std::vector<char> log(kJitLogBytes, 0);
    int options[] = {CU_JIT_ERROR_LOG_BUFFER,
                     CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {log.data(),
                      reinterpret_cast<void *>(uintptr_t(log.size() - 1))};
    CUresult r = d.cuModuleLoadDataEx(&module_, &a.sim, 2, options, values);
    if (r != CUDA_SUCCESS) {
      error = "cannot load the kernels on cuda-sim: " + std::string(log.data());
      return false;
    }
    loadedFrom_ = "cuda-sim object";
  } else if (!a.cubin.empty() && archNumber(a.gpuArch) == deviceArch) {
    if (d.cuModuleLoadDataEx(&module_, a.cubin.data(), 0, nullptr, nullptr) ==
        CUDA_SUCCESS)
      loadedFrom_ = "cubin";
    else
      cubinError = "the " + a.gpuArch + " cubin did not load; ";
  }
  if (!module_) {
    if (a.code.empty()) {
      error = cubinError + "the artifact has no PTX for this " + gpu + " GPU";
      return false;
    }
    std::vector<char> log(kJitLogBytes, 0);
    int options[] = {CU_JIT_ERROR_LOG_BUFFER,
                     CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {log.data(),
                      reinterpret_cast<void *>(uintptr_t(log.size() - 1))};
    // c_str(): the driver reads PTX up to its terminating NUL.
    CUresult r =
        d.cuModuleLoadDataEx(&module_, a.code.c_str(), 2, options, values);
    if (r != CUDA_SUCCESS) {
      std::string jitLog(log.data());
      while (!jitLog.empty() && (jitLog.back() == '\n' || jitLog.back() == ' '))
        jitLog.pop_back();
      error = cubinError + "cannot JIT-compile the " + a.gpuArch +
              " PTX for this " + gpu + " GPU: " + driver_->describe(r) +
              (jitLog.empty() ? "" : ": " + jitLog);
      return false;
    }
    loadedFrom_ = "ptx";
  }
  for (const Kernel &k : a.kernels) {
    CUfunction f = nullptr;
    CUresult r = d.cuModuleGetFunction(&f, module_, k.name.c_str());
    if (r == CUDA_ERROR_NOT_FOUND) {
      error = "kernel '" + k.name + "' is missing from the artifact's " +
              loadedFrom_;
      return false;
    }
    if (!check(r, "cannot find kernel '" + k.name + "'", error))
      return false;
    if (k.sharedBytes > kDefaultSharedLimit &&
        !check(d.cuFuncSetAttribute(
                   f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                   int(k.sharedBytes)),
               "kernel '" + k.name + "' cannot have " +
                   std::to_string(k.sharedBytes) + " shared bytes",
               error))
      return false;
    functions_.push_back(f);
  }
  return true;
}

bool CudaExecutor::deviceAlloc(uint64_t bytes, const std::string &what,
                               CUdeviceptr &ptr, std::string &error) {
  const DriverApi &d = driver_->api();
  uint64_t rounded = std::max(bytes, kMinAllocation);
  CUresult r = d.cuMemAlloc(&ptr, rounded);
  if (r == CUDA_SUCCESS) {
    allocations_.push_back(ptr);
    return true;
  }
  error = "cannot allocate " + std::to_string(bytes) +
          " bytes on the GPU for " + what + ": " + driver_->describe(r);
  size_t freeBytes = 0, totalBytes = 0;
  if (r == CUDA_ERROR_OUT_OF_MEMORY &&
      d.cuMemGetInfo(&freeBytes, &totalBytes) == CUDA_SUCCESS)
    error += " (" + std::to_string(freeBytes) + " of " +
             std::to_string(totalBytes) + " bytes free)";
  return false;
}

bool CudaExecutor::allocate(std::string &error) {
  const Artifact &a = artifact_;
  const DriverApi &d = driver_->api();
  CUdeviceptr arena = 0;
  if (a.arenaBytes &&
      !deviceAlloc(a.arenaBytes, "the arena of intermediates", arena, error))
    return false;
  bufferPtrs_.resize(a.buffers.size());
  for (size_t i = 0; i < a.buffers.size(); ++i) {
    const Buffer &b = a.buffers[i];
    if (b.kind == BufferKind::intermediate && b.arenaOffset != kNoArenaOffset) {
      bufferPtrs_[i] = arena + b.arenaOffset;
      continue;
    }
    std::string what = describeBuffer(a, i);
    if (!deviceAlloc(b.bytes, what, bufferPtrs_[i], error))
      return false;
    // Weights are uploaded once, here.
    if (b.kind == BufferKind::weight && b.bytes &&
        !check(d.cuMemcpyHtoD(bufferPtrs_[i], a.weights.data() + b.weightOffset,
                              b.bytes),
               "cannot upload " + what, error))
      return false;
  }
  // As for the inputs (bindInputs): the weights' DMA must land first.
  if (!check(d.cuCtxSynchronize(), "cannot finish uploading the weights",
             error))
    return false;
  std::string().swap(artifact_.weights);
  for (const Launch &l : a.launches) {
    std::vector<CUdeviceptr> args;
    for (uint32_t id : l.args)
      args.push_back(bufferPtrs_[id]);
    launchArgs_.push_back(std::move(args));
  }
  // For cuda-sim: each argument's buffer, and which buffers each launch
  // writes first.
  if (d.bwcSimSetLaunchArguments || d.bwcSimForgetWrites) {
    std::vector<bool> seen(a.buffers.size(), false);
    for (const Launch &l : a.launches) {
      std::vector<uint64_t> bytes;
      std::vector<std::string> names;
      std::vector<std::pair<CUdeviceptr, uint64_t>> first;
      for (uint32_t id : l.args) {
        const Buffer &b = a.buffers[id];
        bytes.push_back(b.bytes);
        names.push_back(b.kind == BufferKind::input
                            ? "input '" + a.inputs[b.ioIndex].name + "'"
                        : b.kind == BufferKind::output
                            ? "output '" + a.outputs[b.ioIndex].name + "'"
                        : b.kind == BufferKind::weight
                            ? "weight buffer " + std::to_string(id)
                        : b.arenaOffset == kNoArenaOffset
                            ? "intermediate buffer " + std::to_string(id)
                            : "intermediate buffer " + std::to_string(id) +
                                  " (arena offset " +
                                  std::to_string(b.arenaOffset) + ")");
      }
      for (uint32_t id : l.args) {
        const Buffer &b = a.buffers[id];
        if (seen[id] || !b.bytes ||
            (b.kind != BufferKind::intermediate &&
             b.kind != BufferKind::output))
          continue;
        CUdeviceptr p = bufferPtrs_[id];
        bool overlaps = false;
        for (uint32_t other : l.args)
          if (other != id && bufferPtrs_[other] < p + b.bytes &&
              p < bufferPtrs_[other] + a.buffers[other].bytes)
            overlaps = true;
        if (!overlaps)
          first.push_back({p, b.bytes});
      }
      for (uint32_t id : l.args)
        seen[id] = true;
      launchArgBytes_.push_back(std::move(bytes));
      launchArgNames_.push_back(std::move(names));
      firstWrites_.push_back(std::move(first));
    }
    for (const std::vector<std::string> &names : launchArgNames_) {
      std::vector<const char *> ptrs;
      for (const std::string &n : names)
        ptrs.push_back(n.c_str());
      launchArgNamePtrs_.push_back(std::move(ptrs));
    }
  }
  // The parameter pointers point into launchArgs_, complete by now.
  for (std::vector<CUdeviceptr> &args : launchArgs_) {
    std::vector<void *> params;
    for (CUdeviceptr &p : args)
      params.push_back(&p);
    launchParams_.push_back(std::move(params));
  }
  return true;
}

std::string CudaExecutor::describeLaunch(size_t launch) const {
  const Kernel &k = artifact_.kernels[artifact_.launches[launch].kernel];
  return "kernel '" + k.name + "' (launch " + std::to_string(launch + 1) +
         " of " + std::to_string(artifact_.launches.size()) + ", grid " +
         dims(k.grid) + ", block " + dims(k.block) + ", " +
         std::to_string(k.sharedBytes) + " shared bytes)";
}

bool CudaExecutor::syncStream(const std::string &after, std::string &error) {
  return check(driver_->api().cuStreamSynchronize(stream_), after, error);
}

bool CudaExecutor::launchAll(bool sync, std::string &error,
                             const std::vector<CUevent> *events,
                             bool eventNodes) {
  const Artifact &a = artifact_;
  const DriverApi &d = driver_->api();
  auto record = [&](CUevent e) {
    return check(eventNodes ? d.cuEventRecordWithFlags(e, stream_,
                                                       CU_EVENT_RECORD_EXTERNAL)
                            : d.cuEventRecord(e, stream_),
                 "cannot record a CUDA event", error);
  };
  // A condition is copied out once the stream has computed it.
  auto read = [&](uint32_t buffer, uint8_t &byte, std::string &err) {
    return syncStream("a kernel before a branch condition faulted", err) &&
           check(d.cuMemcpyDtoH(&byte, bufferPtrs_[buffer], 1),
                 "cannot read the branch condition in " +
                     describeBuffer(a, buffer),
                 err);
  };
  bool live = !replayBranches_ || skipped_.size() != a.launches.size();
  if (live) {
    branches_.reset();
    skipped_.assign(a.launches.size(), false);
  }
  for (size_t i = 0; i < a.launches.size(); ++i) {
    const Kernel &k = a.kernels[a.launches[i].kernel];
    if (events && !record((*events)[2 * i]))
      return false;
    if (live && branches_.any()) {
      bool run = true;
      if (!branches_.runs(i, run, read, error))
        return false;
      skipped_[i] = !run;
    }
    if (skipped_[i]) {
      // Its results stay undefined; the join discards them (initcheck
      // told so on cuda-sim).
      if (d.bwcSimMarkWritten && i < firstWrites_.size())
        for (auto [p, bytes] : firstWrites_[i])
          if (!check(d.bwcSimMarkWritten(p, bytes, stream_),
                     "cannot set the initcheck shadow", error))
            return false;
      if (events && !record((*events)[2 * i + 1]))
        return false;
      continue;
    }
    if (d.bwcSimForgetWrites && i < firstWrites_.size())
      for (auto [p, bytes] : firstWrites_[i])
        if (!check(d.bwcSimForgetWrites(p, bytes, stream_),
                   "cannot reset the initcheck shadow", error))
          return false;
    if (d.bwcSimSetLaunchArguments && i < launchArgBytes_.size())
      d.bwcSimSetLaunchArguments(launchArgBytes_[i].data(),
                                 launchArgNamePtrs_[i].data(),
                                 launchArgBytes_[i].size());
    CUresult r = d.cuLaunchKernel(functions_[a.launches[i].kernel], k.grid[0],
                                  k.grid[1], k.grid[2], k.block[0], k.block[1],
                                  k.block[2], k.sharedBytes, stream_,
                                  launchParams_[i].data(), nullptr);
    if (!check(r, "launch of " + describeLaunch(i) + " failed", error))
      return false;
    if (events && !record((*events)[2 * i + 1]))
      return false;
    if (sync && !syncStream(describeLaunch(i) + " faulted", error))
      return false;
  }
  return true;
}

bool CudaExecutor::bindInputs(const std::vector<TensorRef> &inputs,
                              std::string &error) {
  const Artifact &a = artifact_;
  if (!checkInputs(a, inputs, error))
    return false;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!check(driver_->api().cuMemcpyHtoD(bufferPtrs_[a.inputBuffers[i]],
                                           inputs[i].data, inputs[i].bytes),
               "cannot copy input '" + a.inputs[i].name + "' to the GPU",
               error))
      return false;
  // A copy from pageable memory may return before its DMA lands, and the
  // launch stream is non-blocking (it does not wait on the NULL stream the
  // copies use): wait for the copies before any kernel reads them.
  return check(driver_->api().cuCtxSynchronize(),
               "cannot finish copying the inputs to the GPU", error);
}

bool CudaExecutor::run(const std::vector<TensorRef> &inputs,
                       std::vector<HostTensor> &outputs, std::string &error) {
  if (!bindInputs(inputs, error) ||
      !launchAll(options_.syncEachLaunch, error) ||
      !syncStream("a kernel of the launch list faulted (launches are "
                  "asynchronous; synchronizing after each launch names it)",
                  error))
    return false;
  const Artifact &a = artifact_;
  outputs.assign(a.outputs.size(), HostTensor());
  for (size_t i = 0; i < a.outputs.size(); ++i) {
    outputs[i].desc = a.outputs[i];
    try {
      outputs[i].data.resize(a.outputs[i].bytes());
    } catch (const std::bad_alloc &) {
      outputs.clear();
      error = hostCopyOutOfMemory(a.outputs[i]);
      return false;
    }
    if (!check(driver_->api().cuMemcpyDtoH(outputs[i].data.data(),
                                           bufferPtrs_[a.outputBuffers[i]],
                                           outputs[i].data.size()),
               "cannot copy output '" + a.outputs[i].name + "' from the GPU",
               error))
      return false;
  }
  // The step's new state replaces the old once every launch has read it
  // and the outputs (which may be state, such as the loss scale used) are
  // copied out.
  for (const StateTensor &s : a.state)
    if (s.update != s.buffer && // else updated in place
        !check(driver_->api().cuMemcpyDtoDAsync(bufferPtrs_[s.buffer],
                                                bufferPtrs_[s.update],
                                                s.desc.bytes(), stream_),
               "cannot update state '" + s.desc.name + "'", error))
      return false;
  if (!a.state.empty() && !syncStream("the state update faulted", error))
    return false;
  return true;
}

bool CudaExecutor::readState(std::vector<HostTensor> &state,
                             std::string &error) {
  state.assign(artifact_.state.size(), HostTensor());
  for (size_t i = 0; i < state.size(); ++i) {
    const StateTensor &s = artifact_.state[i];
    state[i].desc = s.desc;
    try {
      state[i].data.resize(s.desc.bytes());
    } catch (const std::bad_alloc &) {
      state.clear();
      error = hostCopyOutOfMemory(s.desc);
      return false;
    }
    if (!check(driver_->api().cuMemcpyDtoH(state[i].data.data(),
                                           bufferPtrs_[s.buffer],
                                           state[i].data.size()),
               "cannot copy state '" + s.desc.name + "' from the GPU", error))
      return false;
  }
  return true;
}

} // namespace bwc::rt
