//===- CudaSim.cpp - The CUDA driver API of the emulated device -----------===//
//
// Every entry point the CudaExecutor resolves from libcuda, implemented on
// the CPU. Device memory is host memory (filled with 0xFF bytes, a NaN in
// every float type, so a read of memory nothing wrote is visible even
// without initcheck); a stream runs each launch when it is submitted, so
// events read the host clock around the emulated kernel; a stream capture
// records launches and event records into a graph that cuGraphLaunch
// replays. The module image cuModuleLoadDataEx takes is the artifact's
// SimCode (the executor passes &Artifact::sim), not PTX.
//
//===----------------------------------------------------------------------===//
#include "SimDevice.h"

#include "bwc/Runtime/HostMemory.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cerrno>
#include <dlfcn.h>
#include <unistd.h>

namespace bwc::rt::sim {

using namespace cuda;

namespace {

/// What the emulated device reports: an sm_90 part with the H200's SM
/// count, so grids are sized as for the GPU the artifact was compiled for.
constexpr const char *kDeviceName = "cuda-sim (sm_90 emulated on the CPU)";
constexpr int kSmCount = 132;
constexpr size_t kTotalMemory = size_t(141) << 30;

struct Event {
  double ms = 0;
  bool recorded = false;
};

/// A captured launch or event record.
/// A captured launch, event record or forget (bwcSimForgetWrites; with
/// `markWritten`, bwcSimMarkWritten).
struct Node {
  SimFunction *function = nullptr;
  uint32_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  std::vector<uint64_t> params, extents;
  std::vector<std::string> names;
  Event *event = nullptr;
  uintptr_t forget = 0;
  size_t forgetBytes = 0;
  bool markWritten = false;
};

struct Graph {
  std::vector<Node> nodes;
};

struct Stream {
  Graph *capture = nullptr;
};

double nowMs() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch())
      .count();
}

CUresult sticky() { return device().stickyError; }

CUresult runNode(const Node &n) {
  if (n.forget) {
    Allocation *a = device().find(n.forget, n.forgetBytes);
    if (a && !a->written.empty())
      std::memset(a->written.data() + (n.forget - a->base),
                  n.markWritten ? 1 : 0, n.forgetBytes);
    return CUDA_SUCCESS;
  }
  if (n.event) {
    n.event->ms = nowMs();
    n.event->recorded = true;
    return CUDA_SUCCESS;
  }
  Device &d = device();
  if (d.stickyError != CUDA_SUCCESS)
    return d.stickyError;
  std::string text;
  CUresult r = executeLaunch(*n.function, n.grid, n.block, n.params,
                             n.extents, n.names, text);
  if (r != CUDA_SUCCESS) {
    d.stickyError = r;
    d.stickyText = text;
  }
  return CUDA_SUCCESS; // like a GPU: the fault shows at the next sync
}

//===----------------------------------------------------------------------===//
// Errors, device, context
//===----------------------------------------------------------------------===//

CUresult getErrorName(CUresult r, const char **name) {
  switch (r) {
  case CUDA_SUCCESS: *name = "CUDA_SUCCESS"; break;
  case CUDA_ERROR_OUT_OF_MEMORY: *name = "CUDA_ERROR_OUT_OF_MEMORY"; break;
  case CUDA_ERROR_NO_DEVICE: *name = "CUDA_ERROR_NO_DEVICE"; break;
  case CUDA_ERROR_INVALID_PTX: *name = "CUDA_ERROR_INVALID_PTX"; break;
  case CUDA_ERROR_NOT_FOUND: *name = "CUDA_ERROR_NOT_FOUND"; break;
  case CUDA_ERROR_ILLEGAL_ADDRESS: *name = "CUDA_ERROR_ILLEGAL_ADDRESS"; break;
  case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
    *name = "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES";
    break;
  case CUDA_ERROR_LAUNCH_FAILED: *name = "CUDA_ERROR_LAUNCH_FAILED"; break;
  case 1: *name = "CUDA_ERROR_INVALID_VALUE"; break;
  case 400: *name = "CUDA_ERROR_INVALID_HANDLE"; break;
  default: *name = "CUDA_ERROR_UNKNOWN"; break;
  }
  return CUDA_SUCCESS;
}

CUresult getErrorString(CUresult r, const char **text) {
  Device &d = device();
  if (r != CUDA_SUCCESS && r == d.stickyError && !d.stickyText.empty()) {
    *text = d.stickyText.c_str();
    return CUDA_SUCCESS;
  }
  switch (r) {
  case CUDA_SUCCESS: *text = "no error"; break;
  case CUDA_ERROR_OUT_OF_MEMORY: *text = "out of memory"; break;
  case CUDA_ERROR_NOT_FOUND: *text = "named symbol not found"; break;
  case CUDA_ERROR_INVALID_PTX:
    *text = "the module image is not a cuda-sim object";
    break;
  case CUDA_ERROR_ILLEGAL_ADDRESS:
    *text = "an illegal memory access was encountered";
    break;
  case CUDA_ERROR_LAUNCH_FAILED: *text = "unspecified launch failure"; break;
  case 1: *text = "invalid argument"; break;
  case 400: *text = "invalid resource handle"; break;
  default: *text = "unknown error"; break;
  }
  return CUDA_SUCCESS;
}

CUresult init(unsigned) { return CUDA_SUCCESS; }
CUresult deviceGetCount(int *n) { return *n = 1, CUDA_SUCCESS; }
CUresult deviceGet(CUdevice *d, int ordinal) {
  if (ordinal != 0)
    return 1;
  return *d = 0, CUDA_SUCCESS;
}
CUresult deviceGetName(char *name, int len, CUdevice) {
  std::snprintf(name, size_t(len), "%s", kDeviceName);
  return CUDA_SUCCESS;
}
CUresult deviceGetAttribute(int *value, int attribute, CUdevice) {
  switch (attribute) {
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *value = 9; break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *value = 0; break;
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *value = kSmCount; break;
  default:
    // Clocks and bus width: not a GPU, so peak figures are "unknown".
    return CUDA_ERROR_NOT_FOUND;
  }
  return CUDA_SUCCESS;
}
CUcontext theContext() { return reinterpret_cast<CUcontext>(&device()); }
CUresult primaryCtxRetain(CUcontext *c, CUdevice) {
  return *c = theContext(), CUDA_SUCCESS;
}
CUresult primaryCtxRelease(CUdevice) {
  Device &d = device();
  d.stickyError = CUDA_SUCCESS;
  d.stickyText.clear();
  return CUDA_SUCCESS;
}
CUresult ctxSetCurrent(CUcontext) { return CUDA_SUCCESS; }
CUresult ctxSynchronize() { return sticky(); }

//===----------------------------------------------------------------------===//
// Modules
//===----------------------------------------------------------------------===//

/// Writes the object to a private file, dlopens it and unlinks the file.
void *openObject(const std::string &object, std::string &error) {
  const char *tmp = std::getenv("TMPDIR");
  std::string path = std::string(tmp && *tmp ? tmp : "/tmp") +
                     "/bwc-sim-XXXXXX";
  int fd = mkstemp(path.data());
  if (fd < 0)
    return error = "cannot create a temporary file for the sim object in " +
                   path.substr(0, path.rfind('/')) + ": " +
                   std::strerror(errno),
           nullptr;
  size_t done = 0;
  while (done < object.size()) {
    ssize_t n = write(fd, object.data() + done, object.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    done += size_t(n);
  }
  bool ok = done == object.size();
  int writeErrno = errno;
  close(fd);
  void *handle = ok ? dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL) : nullptr;
  if (!handle) {
    const char *why = dlerror();
    error = ok ? std::string("cannot load the sim object: ") +
                     (why ? why : "unknown dlopen error")
               : std::string("cannot write the sim object: ") +
                     std::strerror(writeErrno);
  }
  unlink(path.c_str());
  return handle;
}

CUresult moduleLoadDataEx(CUmodule *module, const void *image, unsigned n,
                          int *options, void **values) {
  const auto *code = static_cast<const SimCode *>(image);
  std::string error;
  auto fail = [&](const std::string &why) {
    // The JIT error log, as the real driver reports a PTX error.
    for (unsigned i = 0; i < n; ++i)
      if (options[i] == CU_JIT_ERROR_LOG_BUFFER && i + 1 < n &&
          options[i + 1] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES) {
        size_t size = reinterpret_cast<uintptr_t>(values[i + 1]);
        std::snprintf(static_cast<char *>(values[i]), size, "%s", why.c_str());
      }
    device().stickyText.clear();
    return CUDA_ERROR_INVALID_PTX;
  };
  if (!code || code->empty())
    return fail("the artifact has no cuda-sim object (compile it with "
                "bwc-compile --target=cuda; --cuda-sim=off leaves it out)");
  auto m = std::make_unique<SimModule>();
  m->handle = openObject(code->object, error);
  if (!m->handle)
    return fail(error);
  auto *abi = static_cast<const int32_t *>(dlsym(m->handle, "__bwcsim_abi"));
  auto *hooks = static_cast<void **>(dlsym(m->handle, "__bwcsim_hooks"));
  if (!abi || !hooks || *abi != kSimAbiVersion) {
    dlclose(m->handle);
    return fail(!abi || !hooks
                    ? "the sim object has no __bwcsim_abi/__bwcsim_hooks"
                    : "the sim object has hook ABI " + std::to_string(*abi) +
                          " but this runtime has " +
                          std::to_string(kSimAbiVersion));
  }
  fillHooks(hooks);
  m->instructions =
      static_cast<uint64_t *>(dlsym(m->handle, "__bwcsim_instructions"));
  m->kernels = code->kernels;
  m->sites = code->sites;
  for (const SimKernel &k : m->kernels) {
    auto entry = reinterpret_cast<Entry>(dlsym(m->handle, k.name.c_str()));
    if (!entry) {
      dlclose(m->handle);
      return fail("the sim object has no kernel '" + k.name + "'");
    }
    m->entries.push_back(entry);
  }
  *module = reinterpret_cast<CUmodule>(m.release());
  return CUDA_SUCCESS;
}

CUresult moduleUnload(CUmodule module) {
  auto *m = reinterpret_cast<SimModule *>(module);
  if (!m)
    return 400;
  dlclose(m->handle);
  delete m;
  return CUDA_SUCCESS;
}

/// Functions live as long as their module, as the driver's do: the module
/// owns them (one handle per kernel, whoever asks), and unloading frees
/// them (LeakSanitizer found them leaked per session before, 2026-12-03).
CUresult moduleGetFunction(CUfunction *f, CUmodule module, const char *name) {
  auto *m = reinterpret_cast<SimModule *>(module);
  for (uint32_t i = 0; i < m->kernels.size(); ++i)
    if (m->kernels[i].name == name) {
      for (const std::unique_ptr<SimFunction> &fn : m->functions)
        if (fn->kernel == i) {
          *f = reinterpret_cast<CUfunction>(fn.get());
          return CUDA_SUCCESS;
        }
      m->functions.push_back(std::make_unique<SimFunction>(SimFunction{m, i}));
      *f = reinterpret_cast<CUfunction>(m->functions.back().get());
      return CUDA_SUCCESS;
    }
  return CUDA_ERROR_NOT_FOUND;
}

CUresult funcSetAttribute(CUfunction, int, int) { return CUDA_SUCCESS; }

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

CUresult memGetInfo(size_t *free, size_t *total) {
  *total = kTotalMemory;
  *free = kTotalMemory - std::min(kTotalMemory, device().allocatedBytes);
  return CUDA_SUCCESS;
}

CUresult memAlloc(CUdeviceptr *ptr, size_t bytes) {
  Device &d = device();
  if (bytes > kTotalMemory - std::min(kTotalMemory, d.allocatedBytes))
    return CUDA_ERROR_OUT_OF_MEMORY;
  size_t rounded = (std::max<size_t>(bytes, 1) + 255) / 256 * 256;
  void *p = allocateHost(rounded, 256);
  if (!p)
    return CUDA_ERROR_OUT_OF_MEMORY;
  std::memset(p, 0xFF, rounded);
  Allocation a;
  a.base = reinterpret_cast<uintptr_t>(p);
  a.bytes = bytes;
  if (d.options.initcheck)
    a.written.assign(bytes, 0);
  d.allocatedBytes += bytes;
  d.allocations[a.base] = std::move(a);
  *ptr = reinterpret_cast<uintptr_t>(p);
  return CUDA_SUCCESS;
}

CUresult memFree(CUdeviceptr ptr) {
  Device &d = device();
  auto it = d.allocations.find(uintptr_t(ptr));
  if (it == d.allocations.end())
    return 1;
  d.allocatedBytes -= it->second.bytes;
  freeHost(reinterpret_cast<void *>(it->first));
  d.allocations.erase(it);
  return CUDA_SUCCESS;
}

void markWritten(Allocation *a, uintptr_t p, size_t bytes) {
  if (a && !a->written.empty())
    std::memset(a->written.data() + (p - a->base), 1, bytes);
}

CUresult memcpyHtoD(CUdeviceptr dst, const void *src, size_t bytes) {
  Allocation *a = device().find(uintptr_t(dst), bytes);
  if (!a)
    return 1;
  std::memcpy(reinterpret_cast<void *>(uintptr_t(dst)), src, bytes);
  markWritten(a, uintptr_t(dst), bytes);
  return sticky();
}

CUresult memcpyDtoH(void *dst, CUdeviceptr src, size_t bytes) {
  if (sticky() != CUDA_SUCCESS)
    return sticky();
  if (!device().find(uintptr_t(src), bytes))
    return 1;
  std::memcpy(dst, reinterpret_cast<void *>(uintptr_t(src)), bytes);
  return CUDA_SUCCESS;
}

CUresult memcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes,
                         CUstream) {
  Device &d = device();
  Allocation *to = d.find(uintptr_t(dst), bytes);
  Allocation *from = d.find(uintptr_t(src), bytes);
  if (!to || !from)
    return 1;
  std::memmove(reinterpret_cast<void *>(uintptr_t(dst)),
               reinterpret_cast<void *>(uintptr_t(src)), bytes);
  if (!to->written.empty() && !from->written.empty())
    std::memmove(to->written.data() + (dst - to->base),
                 from->written.data() + (src - from->base), bytes);
  else
    markWritten(to, uintptr_t(dst), bytes);
  return sticky();
}

//===----------------------------------------------------------------------===//
// Streams, launches, events, graphs
//===----------------------------------------------------------------------===//

CUresult streamCreate(CUstream *s, unsigned) {
  *s = reinterpret_cast<CUstream>(new Stream);
  return CUDA_SUCCESS;
}
CUresult streamDestroy(CUstream s) {
  delete reinterpret_cast<Stream *>(s);
  return CUDA_SUCCESS;
}
CUresult streamSynchronize(CUstream) { return sticky(); }

Stream *asStream(CUstream s) { return reinterpret_cast<Stream *>(s); }

CUresult launchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                      unsigned bx, unsigned by, unsigned bz, unsigned shared,
                      CUstream s, void **params, void **extra) {
  auto *fn = reinterpret_cast<SimFunction *>(f);
  // bwc kernels use static shared memory and kernelParams only.
  if (!fn || extra || shared) {
    Device &d = device();
    d.stickyError = CUDA_ERROR_LAUNCH_FAILED;
    d.stickyText = !fn ? "cuda-sim: launch of a null function"
                       : "cuda-sim runs kernels with static shared memory and "
                         "kernelParams only (dynamic shared bytes or extra "
                         "launch parameters given)";
    return CUDA_ERROR_LAUNCH_FAILED;
  }
  if (uint64_t(bx) * by * bz > 1024 || !gx || !gy || !gz || !bx || !by || !bz)
    return 1;
  Node n;
  n.function = fn;
  uint32_t grid[3] = {gx, gy, gz}, block[3] = {bx, by, bz};
  std::copy(grid, grid + 3, n.grid);
  std::copy(block, block + 3, n.block);
  // Parameter values are copied at submission, as the driver does.
  for (uint32_t i = 0; i < fn->module->kernels[fn->kernel].params; ++i)
    n.params.push_back(*static_cast<const uint64_t *>(params[i]));
  Device &d = device();
  if (d.pendingExtents.size() == n.params.size()) {
    n.extents = std::move(d.pendingExtents);
    n.names = std::move(d.pendingNames);
  }
  d.pendingExtents.clear();
  d.pendingNames.clear();
  if (Stream *stream = asStream(s); stream && stream->capture) {
    stream->capture->nodes.push_back(std::move(n));
    return CUDA_SUCCESS;
  }
  return runNode(n);
}

CUresult eventCreate(CUevent *e, unsigned) {
  *e = reinterpret_cast<CUevent>(new Event);
  return CUDA_SUCCESS;
}
CUresult eventDestroy(CUevent e) {
  delete reinterpret_cast<Event *>(e);
  return CUDA_SUCCESS;
}
CUresult eventRecord(CUevent e, CUstream s) {
  Node n;
  n.event = reinterpret_cast<Event *>(e);
  if (Stream *stream = asStream(s); stream && stream->capture) {
    stream->capture->nodes.push_back(n);
    return CUDA_SUCCESS;
  }
  return runNode(n);
}
CUresult eventRecordWithFlags(CUevent e, CUstream s, unsigned) {
  return eventRecord(e, s);
}
CUresult eventSynchronize(CUevent) { return sticky(); }
CUresult eventElapsedTime(float *ms, CUevent start, CUevent end) {
  auto *a = reinterpret_cast<Event *>(start), *b = reinterpret_cast<Event *>(end);
  if (!a->recorded || !b->recorded)
    return 400;
  *ms = float(b->ms - a->ms);
  return CUDA_SUCCESS;
}

CUresult streamBeginCapture(CUstream s, int) {
  Stream *stream = asStream(s);
  if (!stream || stream->capture)
    return 1;
  stream->capture = new Graph;
  return CUDA_SUCCESS;
}
CUresult streamEndCapture(CUstream s, CUgraph *graph) {
  Stream *stream = asStream(s);
  if (!stream || !stream->capture)
    return 1;
  *graph = reinterpret_cast<CUgraph>(stream->capture);
  stream->capture = nullptr;
  return CUDA_SUCCESS;
}
CUresult graphInstantiate(CUgraphExec *exec, CUgraph graph,
                          unsigned long long) {
  *exec = reinterpret_cast<CUgraphExec>(
      new Graph(*reinterpret_cast<Graph *>(graph)));
  return CUDA_SUCCESS;
}
CUresult graphLaunch(CUgraphExec exec, CUstream) {
  for (const Node &n : reinterpret_cast<Graph *>(exec)->nodes)
    if (CUresult r = runNode(n); r != CUDA_SUCCESS)
      return r;
  return CUDA_SUCCESS;
}
CUresult graphExecDestroy(CUgraphExec exec) {
  delete reinterpret_cast<Graph *>(exec);
  return CUDA_SUCCESS;
}
CUresult graphDestroy(CUgraph graph) {
  delete reinterpret_cast<Graph *>(graph);
  return CUDA_SUCCESS;
}

CUresult setLaunchArguments(const uint64_t *bytes, const char *const *names,
                            size_t n) {
  Device &d = device();
  d.pendingExtents.assign(bytes, bytes + n);
  d.pendingNames.assign(names, names + n);
  return CUDA_SUCCESS;
}

CUresult setWritten(CUdeviceptr ptr, size_t bytes, CUstream s, bool written) {
  if (!device().find(uintptr_t(ptr), bytes))
    return 1;
  Node n;
  n.forget = uintptr_t(ptr);
  n.forgetBytes = bytes;
  n.markWritten = written;
  if (Stream *stream = asStream(s); stream && stream->capture) {
    stream->capture->nodes.push_back(std::move(n));
    return CUDA_SUCCESS;
  }
  return runNode(n);
}

CUresult forgetWrites(CUdeviceptr ptr, size_t bytes, CUstream s) {
  return setWritten(ptr, bytes, s, false);
}

CUresult markWritten(CUdeviceptr ptr, size_t bytes, CUstream s) {
  return setWritten(ptr, bytes, s, true);
}

} // namespace

Device &device() {
  static Device d;
  return d;
}

Allocation *Device::find(uintptr_t p, size_t bytes) {
  auto it = allocations.upper_bound(p);
  if (it == allocations.begin())
    return nullptr;
  --it;
  Allocation &a = it->second;
  if (p < a.base || p - a.base > a.bytes || bytes > a.bytes - (p - a.base))
    return nullptr;
  return &a;
}

SimStats simStats() { return device().stats; }
std::vector<LaunchProfile> simProfiles() { return device().profiles; }
void clearSimProfiles() { device().profiles.clear(); }

bool parseSanitizers(const std::string &list, SimOptions &o,
                     std::string &error) {
  SimOptions r = o;
  r.memcheck = r.racecheck = r.synccheck = r.initcheck = false;
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(',', start);
    std::string name = list.substr(start, end == std::string::npos
                                              ? std::string::npos
                                              : end - start);
    if (name == "memcheck")
      r.memcheck = true;
    else if (name == "racecheck")
      r.racecheck = true;
    else if (name == "synccheck")
      r.synccheck = true;
    else if (name == "initcheck")
      r.initcheck = true;
    else if (name == "all")
      r.memcheck = r.racecheck = r.synccheck = r.initcheck = true;
    else if (name == "none" && list != "none") {
      error = "'none' cannot be combined with other sanitizers";
      return false;
    } else if (name != "none") {
      error = "unknown sanitizer '" + name +
              "' (expected memcheck, racecheck, synccheck, initcheck, all "
              "or none)";
      return false;
    }
    if (end == std::string::npos)
      break;
    start = end + 1;
  }
  o = r;
  return true;
}

std::string describeSanitizers(const SimOptions &o) {
  std::string s;
  for (auto [on, name] : {std::pair{o.memcheck, "memcheck"},
                          {o.racecheck, "racecheck"},
                          {o.synccheck, "synccheck"},
                          {o.initcheck, "initcheck"}})
    if (on)
      s += (s.empty() ? "" : ",") + std::string(name);
  return s.empty() ? "none" : s;
}

const DriverApi &simulatedDriverApi(const SimOptions &options) {
  device().options = options;
  static DriverApi api = [] {
    DriverApi a;
    a.cuInit = init;
    a.cuGetErrorName = getErrorName;
    a.cuGetErrorString = getErrorString;
    a.cuDeviceGetCount = deviceGetCount;
    a.cuDeviceGet = deviceGet;
    a.cuDeviceGetName = deviceGetName;
    a.cuDeviceGetAttribute = deviceGetAttribute;
    a.cuDevicePrimaryCtxRetain = primaryCtxRetain;
    a.cuDevicePrimaryCtxRelease = primaryCtxRelease;
    a.cuCtxSetCurrent = ctxSetCurrent;
    a.cuCtxSynchronize = ctxSynchronize;
    a.cuModuleLoadDataEx = moduleLoadDataEx;
    a.cuModuleUnload = moduleUnload;
    a.cuModuleGetFunction = moduleGetFunction;
    a.cuFuncSetAttribute = funcSetAttribute;
    a.cuMemGetInfo = memGetInfo;
    a.cuMemAlloc = memAlloc;
    a.cuMemFree = memFree;
    a.cuMemcpyHtoD = memcpyHtoD;
    a.cuMemcpyDtoH = memcpyDtoH;
    a.cuMemcpyDtoDAsync = memcpyDtoDAsync;
    a.cuStreamCreate = streamCreate;
    a.cuStreamDestroy = streamDestroy;
    a.cuStreamSynchronize = streamSynchronize;
    a.cuLaunchKernel = launchKernel;
    a.cuEventCreate = eventCreate;
    a.cuEventDestroy = eventDestroy;
    a.cuEventRecord = eventRecord;
    a.cuEventSynchronize = eventSynchronize;
    a.cuEventElapsedTime = eventElapsedTime;
    a.cuStreamBeginCapture = streamBeginCapture;
    a.cuStreamEndCapture = streamEndCapture;
    a.cuGraphInstantiateWithFlags = graphInstantiate;
    a.cuGraphLaunch = graphLaunch;
    a.cuGraphExecDestroy = graphExecDestroy;
    a.cuGraphDestroy = graphDestroy;
    a.cuEventRecordWithFlags = eventRecordWithFlags;
    a.bwcSimSetLaunchArguments = setLaunchArguments;
    a.bwcSimForgetWrites = forgetWrites;
    a.bwcSimMarkWritten = markWritten;
    return a;
  }();
  return api;
}

} // namespace bwc::rt::sim
