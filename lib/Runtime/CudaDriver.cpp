//===- CudaDriver.cpp - The CUDA driver API, loaded at run time -----------===//

#include "bwc/Runtime/CudaDriver.h"
#include "bwc/Runtime/CudaSim.h"

#include <cstdlib>
#include <dlfcn.h>
#include <initializer_list>

namespace bwc::rt::cuda {

namespace {

/// Resolves the first of `names` the library exports into `fn`.
template <typename Fn>
bool resolve(void *library, Fn &fn, std::initializer_list<const char *> names,
             std::string &error) {
  for (const char *name : names)
    if (void *sym = dlsym(library, name)) {
      fn = reinterpret_cast<Fn>(sym);
      return true;
    }
  error = "the CUDA driver has no '" + std::string(*names.begin()) + "'";
  return false;
}

} // namespace

std::shared_ptr<Driver> Driver::load(std::string &error) {
  const char *override = std::getenv("BWC_CUDA_DRIVER");
  std::string path = override && *override ? override : "libcuda.so.1";
  void *library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *why = dlerror();
    error = "no CUDA driver found (cannot load '" + path +
            "': " + (why ? why : "unknown dlopen error") + ")";
    return nullptr;
  }
  auto driver = std::make_shared<Driver>();
  driver->path_ = path;
  DriverApi &d = driver->api_;
  // The `_v2` names are the current ABI of functions whose signature
  // changed (64-bit sizes and device pointers, capture modes); the plain
  // names of those are the old ABI and must not be used.
  bool ok =
      resolve(library, d.cuInit, {"cuInit"}, error) &&
      resolve(library, d.cuGetErrorName, {"cuGetErrorName"}, error) &&
      resolve(library, d.cuGetErrorString, {"cuGetErrorString"}, error) &&
      resolve(library, d.cuDeviceGetCount, {"cuDeviceGetCount"}, error) &&
      resolve(library, d.cuDeviceGet, {"cuDeviceGet"}, error) &&
      resolve(library, d.cuDeviceGetName, {"cuDeviceGetName"}, error) &&
      resolve(library, d.cuDeviceGetAttribute, {"cuDeviceGetAttribute"},
              error) &&
      resolve(library, d.cuDevicePrimaryCtxRetain,
              {"cuDevicePrimaryCtxRetain"}, error) &&
      resolve(library, d.cuDevicePrimaryCtxRelease,
              {"cuDevicePrimaryCtxRelease_v2"}, error) &&
      resolve(library, d.cuCtxSetCurrent, {"cuCtxSetCurrent"}, error) &&
      resolve(library, d.cuCtxSynchronize, {"cuCtxSynchronize"}, error) &&
      resolve(library, d.cuModuleLoadDataEx, {"cuModuleLoadDataEx"}, error) &&
      resolve(library, d.cuModuleUnload, {"cuModuleUnload"}, error) &&
      resolve(library, d.cuModuleGetFunction, {"cuModuleGetFunction"},
              error) &&
      resolve(library, d.cuFuncSetAttribute, {"cuFuncSetAttribute"}, error) &&
      resolve(library, d.cuMemGetInfo, {"cuMemGetInfo_v2"}, error) &&
      resolve(library, d.cuMemAlloc, {"cuMemAlloc_v2"}, error) &&
      resolve(library, d.cuMemFree, {"cuMemFree_v2"}, error) &&
      resolve(library, d.cuMemcpyHtoD, {"cuMemcpyHtoD_v2"}, error) &&
      resolve(library, d.cuMemcpyDtoH, {"cuMemcpyDtoH_v2"}, error) &&
      resolve(library, d.cuMemcpyDtoDAsync, {"cuMemcpyDtoDAsync_v2"},
              error) &&
      resolve(library, d.cuStreamCreate, {"cuStreamCreate"}, error) &&
      resolve(library, d.cuStreamDestroy, {"cuStreamDestroy_v2"}, error) &&
      resolve(library, d.cuStreamSynchronize, {"cuStreamSynchronize"},
              error) &&
      resolve(library, d.cuLaunchKernel, {"cuLaunchKernel"}, error) &&
      resolve(library, d.cuEventCreate, {"cuEventCreate"}, error) &&
      resolve(library, d.cuEventDestroy, {"cuEventDestroy_v2"}, error) &&
      resolve(library, d.cuEventRecord, {"cuEventRecord"}, error) &&
      resolve(library, d.cuEventSynchronize, {"cuEventSynchronize"}, error) &&
      // CUDA 12.8 added _v2 (same signature, defined for more event kinds);
      // older drivers have only the first.
      resolve(library, d.cuEventElapsedTime,
              {"cuEventElapsedTime_v2", "cuEventElapsedTime"}, error) &&
      resolve(library, d.cuStreamBeginCapture, {"cuStreamBeginCapture_v2"},
              error) &&
      resolve(library, d.cuStreamEndCapture, {"cuStreamEndCapture"}, error) &&
      resolve(library, d.cuGraphInstantiateWithFlags,
              {"cuGraphInstantiateWithFlags"}, error) &&
      resolve(library, d.cuGraphLaunch, {"cuGraphLaunch"}, error) &&
      resolve(library, d.cuGraphExecDestroy, {"cuGraphExecDestroy"}, error) &&
      resolve(library, d.cuGraphDestroy, {"cuGraphDestroy"}, error);
  if (ok) {
    std::string optional;
    if (!resolve(library, d.cuEventRecordWithFlags, {"cuEventRecordWithFlags"},
                 optional))
      d.cuEventRecordWithFlags = nullptr;
  }
  if (!ok) {
    error += " (" + path + " is not a usable CUDA driver)";
    dlclose(library);
    return nullptr;
  }
  return driver;
}

std::shared_ptr<Driver> Driver::simulated(const sim::SimOptions &options,
                                          std::string &error) {
  if (!sim::simAvailable()) {
    error = "this runtime was built without cuda-sim (it needs Boost.Context: "
            "libboost-context-dev)";
    return nullptr;
  }
  auto driver = std::make_shared<Driver>();
  driver->api_ = sim::simulatedDriverApi(options);
  driver->path_ = "cuda-sim";
  driver->simulator_ = true;
  return driver;
}

std::string Driver::describe(CUresult result) const {
  const char *name = nullptr, *text = nullptr;
  std::string s = api_.cuGetErrorName(result, &name) == CUDA_SUCCESS && name
                      ? name
                      : "CUDA error " + std::to_string(result);
  if (api_.cuGetErrorString(result, &text) == CUDA_SUCCESS && text)
    s += std::string(" (") + text + ")";
  return s;
}

} // namespace bwc::rt::cuda
