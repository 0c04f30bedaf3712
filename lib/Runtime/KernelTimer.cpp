//===- KernelTimer.cpp - Times one kernel's launches on GPU 0 -------------===//

#include "bwc/Runtime/KernelTimer.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <utility>

using namespace bwc::rt::cuda;

KernelTimer::~KernelTimer() {
  release();
  if (stream)
    driver->api().cuStreamDestroy(stream);
  if (context)
    driver->api().cuDevicePrimaryCtxRelease(device);
}

std::string KernelTimer::check(CUresult r, const std::string &what) const {
  return r == CUDA_SUCCESS ? "" : what + ": " + driver->describe(r);
}

std::string KernelTimer::open() {
  std::string error;
  driver = Driver::load(error);
  if (!driver)
    return error;
  const DriverApi &d = driver->api();
  int count = 0;
  char text[256] = {0};
  CUresult r = d.cuInit(0);
  if (r == CUDA_SUCCESS)
    r = d.cuDeviceGetCount(&count);
  if (r != CUDA_SUCCESS)
    return "the CUDA driver " + driver->path() +
           " did not initialize: " + driver->describe(r);
  if (count == 0)
    return "the CUDA driver " + driver->path() + " sees no GPU";
  if ((r = d.cuDeviceGet(&device, 0)) ||
      (r = d.cuDeviceGetName(text, sizeof(text) - 1, device)) ||
      (r = d.cuDevicePrimaryCtxRetain(&context, device)) ||
      (r = d.cuCtxSetCurrent(context)) ||
      (r = d.cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING)))
    return "cannot open GPU 0: " + driver->describe(r);
  name = text;
  return "";
}

void KernelTimer::release() {
  for (CUdeviceptr p : pointers)
    driver->api().cuMemFree(p);
  pointers.clear();
  params.clear();
}

std::string KernelTimer::allocate(const std::vector<size_t> &sizes) {
  release();
  const DriverApi &d = driver->api();
  for (size_t size : sizes) {
    size_t bytes = std::max<size_t>(size, 16);
    CUdeviceptr p = 0;
    if (std::string e = check(d.cuMemAlloc(&p, bytes),
                              "cannot allocate " + std::to_string(bytes) +
                                  " bytes");
        !e.empty())
      return e;
    pointers.push_back(p);
    std::vector<char> zeros(bytes, 0);
    if (std::string e = check(d.cuMemcpyHtoD(p, zeros.data(), bytes),
                              "cannot fill a buffer");
        !e.empty())
      return e;
  }
  for (CUdeviceptr &p : pointers)
    params.push_back(&p);
  return "";
}

std::optional<double> KernelTimer::time(const std::string &ptx,
                                        const std::string &entry,
                                        unsigned grid, unsigned block,
                                        int warmup, int runs,
                                        std::string &skip,
                                        std::string &error) {
  const DriverApi &d = driver->api();
  CUmodule module = nullptr;
  std::vector<char> log(16 * 1024, 0);
  int jitOptions[] = {CU_JIT_ERROR_LOG_BUFFER,
                      CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {log.data(),
                    reinterpret_cast<void *>(uintptr_t(log.size() - 1))};
  CUresult r =
      d.cuModuleLoadDataEx(&module, ptx.c_str(), 2, jitOptions, values);
  if (r != CUDA_SUCCESS) {
    skip = "the driver cannot JIT its PTX: " + driver->describe(r) + " " +
           log.data();
    return std::nullopt;
  }
  CUfunction function = nullptr;
  CUevent start = nullptr, stop = nullptr;
  std::vector<double> times;
  auto launch = [&] {
    return d.cuLaunchKernel(function, grid, 1, 1, block, 1, 1, 0, stream,
                            params.data(), nullptr);
  };
  error = check(d.cuModuleGetFunction(&function, module, entry.c_str()),
                "cannot find kernel '" + entry + "'");
  if (error.empty())
    error = check(d.cuEventCreate(&start, 0), "cannot create an event");
  if (error.empty())
    error = check(d.cuEventCreate(&stop, 0), "cannot create an event");
  for (int i = 0; error.empty() && i < warmup; ++i)
    error = check(launch(), "launch of '" + entry + "' failed");
  if (error.empty())
    error = check(d.cuStreamSynchronize(stream),
                  "kernel '" + entry + "' faulted");
  for (int i = 0; error.empty() && i < runs; ++i) {
    // One call at a time, in order (the operands of + are unsequenced).
    float ms = 0;
    std::pair<std::function<CUresult()>, std::string> steps[] = {
        {[&] { return d.cuEventRecord(start, stream); }, "event"},
        {launch, "launch of '" + entry + "' failed"},
        {[&] { return d.cuEventRecord(stop, stream); }, "event"},
        {[&] { return d.cuEventSynchronize(stop); },
         "kernel '" + entry + "' faulted"},
        {[&] { return d.cuEventElapsedTime(&ms, start, stop); }, "timing"}};
    for (auto &[step, what] : steps)
      if (error.empty())
        error = check(step(), what);
    times.push_back(ms);
  }
  if (start)
    d.cuEventDestroy(start);
  if (stop)
    d.cuEventDestroy(stop);
  d.cuModuleUnload(module);
  if (!error.empty() || times.empty())
    return std::nullopt;
  std::nth_element(times.begin(), times.begin() + times.size() / 2,
                   times.end());
  return times[times.size() / 2];
}
