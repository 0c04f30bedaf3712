//===- CudaDriver.h - The CUDA driver API, loaded at run time ---*- C++ -*-===//
//
// The runtime never links libcuda and never includes cuda.h: it dlopens
// libcuda.so.1 (or $BWC_CUDA_DRIVER, which the tests point at a fake
// driver) and resolves the few driver entry points it uses by name, with
// the `_v2` symbols where the ABI changed. The handful of types and enum
// values below are copied from the driver API's stable ABI.
//
//===----------------------------------------------------------------------===//
#ifndef BWC_RUNTIME_CUDADRIVER_H
#define BWC_RUNTIME_CUDADRIVER_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace bwc::rt::sim {
struct SimOptions;
} // namespace bwc::rt::sim

namespace bwc::rt::cuda {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUevent = struct CUevent_st *;
using CUgraph = struct CUgraph_st *;
using CUgraphExec = struct CUgraphExec_st *;

constexpr CUresult CUDA_SUCCESS = 0;
constexpr CUresult CUDA_ERROR_OUT_OF_MEMORY = 2;
constexpr CUresult CUDA_ERROR_NO_DEVICE = 100;
constexpr CUresult CUDA_ERROR_INVALID_PTX = 218;
constexpr CUresult CUDA_ERROR_NOT_FOUND = 500;
constexpr CUresult CUDA_ERROR_ILLEGAL_ADDRESS = 700;
constexpr CUresult CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701;
constexpr CUresult CUDA_ERROR_LAUNCH_FAILED = 719;

// CUdevice_attribute values.
constexpr int CU_DEVICE_ATTRIBUTE_CLOCK_RATE = 13; // kHz
constexpr int CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
constexpr int CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE = 36; // kHz
constexpr int CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH = 37; // bits
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
// CUjit_option values.
constexpr int CU_JIT_INFO_LOG_BUFFER = 3;
constexpr int CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4;
constexpr int CU_JIT_ERROR_LOG_BUFFER = 5;
constexpr int CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;
// CUfunction_attribute, CUstreamCaptureMode, CUstream_flags.
constexpr int CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
constexpr int CU_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1;
constexpr unsigned CU_STREAM_NON_BLOCKING = 1;
constexpr unsigned CU_EVENT_RECORD_EXTERNAL = 1;

/// The driver entry points bwc uses; every one is resolved or loading fails,
/// except those marked optional.
struct DriverApi {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuGetErrorName)(CUresult, const char **);
  CUresult (*cuGetErrorString)(CUresult, const char **);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetName)(char *, int, CUdevice);
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *,
                                 void **);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int);
  CUresult (*cuMemGetInfo)(size_t *, size_t *);
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
  CUresult (*cuStreamCreate)(CUstream *, unsigned);
  CUresult (*cuStreamDestroy)(CUstream);
  CUresult (*cuStreamSynchronize)(CUstream);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, unsigned, CUstream,
                             void **, void **);
  CUresult (*cuEventCreate)(CUevent *, unsigned);
  CUresult (*cuEventDestroy)(CUevent);
  CUresult (*cuEventRecord)(CUevent, CUstream);
  CUresult (*cuEventSynchronize)(CUevent);
  CUresult (*cuEventElapsedTime)(float *, CUevent, CUevent);
  CUresult (*cuStreamBeginCapture)(CUstream, int);
  CUresult (*cuStreamEndCapture)(CUstream, CUgraph *);
  CUresult (*cuGraphInstantiateWithFlags)(CUgraphExec *, CUgraph,
                                          unsigned long long);
  CUresult (*cuGraphLaunch)(CUgraphExec, CUstream);
  CUresult (*cuGraphExecDestroy)(CUgraphExec);
  CUresult (*cuGraphDestroy)(CUgraph);
  /// Optional (CUDA 11.1+; null when the driver lacks it): with
  /// CU_EVENT_RECORD_EXTERNAL during stream capture, an event record node.
  CUresult (*cuEventRecordWithFlags)(CUevent, CUstream, unsigned) = nullptr;
  /// cuda-sim only (null in a real driver): the byte extent and name of
  /// each argument of the next
  /// cuLaunchKernel (buffers of the arena share starts over their
  /// lifetimes, so a start alone does not say which one a launch means).
  CUresult (*bwcSimSetLaunchArguments)(const uint64_t *bytes,
                                       const char *const *names,
                                       size_t n) = nullptr;
  /// cuda-sim only, ordered on the stream (and captured into graphs): marks
  /// [ptr, ptr + bytes) as never written for initcheck, before the launch
  /// that first writes a buffer whose arena bytes held a dead one's.
  CUresult (*bwcSimForgetWrites)(CUdeviceptr, size_t, CUstream) = nullptr;
  /// cuda-sim only, ordered like bwcSimForgetWrites: marks the bytes
  /// written for initcheck. The results of a launch skipped because its
  /// branch was not taken are undefined, and the kernel joining the
  /// branches reads them only to discard them (bwc.select).
  CUresult (*bwcSimMarkWritten)(CUdeviceptr, size_t, CUstream) = nullptr;
};

/// The loaded driver library. Not unloaded before exit: the driver keeps
/// process-wide state that outlives any executor.
class Driver {
public:
  /// Loads $BWC_CUDA_DRIVER, else libcuda.so.1, and resolves every entry
  /// point. Fails with "no CUDA driver found (...)" when the library cannot
  /// be opened and names the first missing symbol otherwise.
  static std::shared_ptr<Driver> load(std::string &error);
  /// The emulated device (cuda-sim, CudaSim.h) with `options`' sanitizers;
  /// fails when this runtime was built without it.
  static std::shared_ptr<Driver> simulated(const sim::SimOptions &options,
                                           std::string &error);

  /// True for cuda-sim: modules are the artifact's SimCode, not PTX.
  bool isSimulator() const { return simulator_; }

  const DriverApi &api() const { return api_; }
  /// The library that was opened, for messages.
  const std::string &path() const { return path_; }

  /// "CUDA_ERROR_OUT_OF_MEMORY (out of memory)", from the driver's own
  /// cuGetErrorName/cuGetErrorString.
  std::string describe(CUresult result) const;

private:
  DriverApi api_{};
  std::string path_;
  bool simulator_ = false;
};

} // namespace bwc::rt::cuda

#endif // BWC_RUNTIME_CUDADRIVER_H
