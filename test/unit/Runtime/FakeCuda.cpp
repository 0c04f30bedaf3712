//===- FakeCuda.cpp - A CUDA driver stand-in for the runtime's tests ------===//
//
// libbwc-fake-cuda.so exports the driver entry points the runtime resolves
// (CudaDriver.cpp) and implements them on the host, so that CudaExecutor
// and `bwc-run` run end to end without a GPU (BWC_CUDA_DRIVER points at
// this library). "Device" memory is host memory; a module's kernels are its
// `.entry NAME` lines, run by the host implementations below, one element
// per thread of the launch's grid x block:
//
//   add_one(in, out)   out[i] = in[i] + 1        copy(in, out)  out[i] = in[i]
//   mul(a, b, out)     out[i] = a[i] * b[i]
//   fault(...)         "faults": the next synchronizing call returns
//                      CUDA_ERROR_ILLEGAL_ADDRESS (sticky, as on a GPU)
//   bad_launch(...)    cuLaunchKernel fails
//   (CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES) any other name     a no-op
//   (bwc-compile --tune launches bwc's own
//                      kernels; their arguments are not read)
//
// Environment: FAKE_CUDA_LOG=FILE appends one line per allocation, copy,
// module load and launch; FAKE_CUDA_MEM_LIMIT=BYTES makes larger
// allocations fail with CUDA_ERROR_OUT_OF_MEMORY, FAKE_CUDA_FAIL_ALLOC=N the
// N-th one (counted since the value last changed); FAKE_CUDA_CC=80 sets the
// compute capability (default 90); FAKE_CUDA_NO_DEVICE=1 reports no GPU;
// FAKE_CUDA_BEST_BLOCK=B makes time synthetic and deterministic: events
// read a clock that only launches advance, each by 1 + |log2(block.x / B)|
// ms, so a tuner timing block sizes must find B fastest.
// PTX holding "fake-ptx-error" fails to JIT with a log; a cubin (ELF magic)
// holding "fake-bad-cubin" fails to load.
//
//===----------------------------------------------------------------------===//

#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace {

using CUresult = int;
using CUdeviceptr = unsigned long long;

struct Function {
  std::string name;
};
struct Module {
  std::vector<Function *> functions;
};
struct Event {
  double ms = 0;
};
/// A captured kernel launch, or (with `event`) an event record node.
struct Captured {
  Function *f;
  unsigned threads;
  std::vector<CUdeviceptr> args;
  Event *event = nullptr;
};
struct Graph {
  std::vector<Captured> launches;
};

int sticky = 0;         // the fault every later synchronizing call reports
double syntheticMs = 0; // the clock of FAKE_CUDA_BEST_BLOCK
bool capturing = false;
std::vector<Captured> capture;
std::map<CUdeviceptr, size_t> allocations;
size_t allocated = 0;

void log(const char *fmt, ...) {
  const char *path = std::getenv("FAKE_CUDA_LOG");
  if (!path)
    return;
  FILE *f = std::fopen(path, "a");
  if (!f)
    return;
  va_list args;
  va_start(args, fmt);
  std::vfprintf(f, fmt, args);
  va_end(args);
  std::fputc('\n', f);
  std::fclose(f);
}

double nowMs() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

float *at(CUdeviceptr p) { return reinterpret_cast<float *>(p); }

CUresult runKernel(const Function &f, unsigned n,
                   const std::vector<CUdeviceptr> &a) {
  if (f.name == "add_one")
    for (unsigned i = 0; i < n; ++i)
      at(a[1])[i] = at(a[0])[i] + 1;
  else if (f.name == "copy")
    for (unsigned i = 0; i < n; ++i)
      at(a[1])[i] = at(a[0])[i];
  else if (f.name == "mul")
    for (unsigned i = 0; i < n; ++i)
      at(a[2])[i] = at(a[0])[i] * at(a[1])[i];
  else if (f.name == "fault")
    sticky = 700; // CUDA_ERROR_ILLEGAL_ADDRESS
  return 0;
}

const std::map<int, std::pair<const char *, const char *>> kErrors = {
    {0, {"CUDA_SUCCESS", "no error"}},
    {1, {"CUDA_ERROR_INVALID_VALUE", "invalid argument"}},
    {2, {"CUDA_ERROR_OUT_OF_MEMORY", "out of memory"}},
    {100, {"CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"}},
    {209,
     {"CUDA_ERROR_NO_BINARY_FOR_GPU", "no kernel image is available for "
                                      "execution on the device"}},
    {218, {"CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"}},
    {500, {"CUDA_ERROR_NOT_FOUND", "named symbol not found"}},
    {801, {"CUDA_ERROR_NOT_SUPPORTED", "operation not supported"}},
    {700,
     {"CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was "
                                    "encountered"}},
    {701,
     {"CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", "too many resources requested "
                                            "for launch"}},
};

} // namespace

extern "C" {

CUresult cuInit(unsigned) { return 0; }
CUresult cuGetErrorName(CUresult r, const char **s) {
  auto it = kErrors.find(r);
  if (it == kErrors.end())
    return 1;
  *s = it->second.first;
  return 0;
}
CUresult cuGetErrorString(CUresult r, const char **s) {
  auto it = kErrors.find(r);
  if (it == kErrors.end())
    return 1;
  *s = it->second.second;
  return 0;
}
CUresult cuDeviceGetCount(int *n) {
  *n = std::getenv("FAKE_CUDA_NO_DEVICE") ? 0 : 1;
  return 0;
}
CUresult cuDeviceGet(int *d, int i) { return *d = i, 0; }
CUresult cuDeviceGetName(char *name, int len, int) {
  std::snprintf(name, len, "Fake CUDA device");
  return 0;
}
CUresult cuDeviceGetAttribute(int *v, int attribute, int) {
  const char *cc = std::getenv("FAKE_CUDA_CC");
  int arch = cc ? std::atoi(cc) : 90;
  switch (attribute) {
  case 75:
    return *v = arch / 10, 0;
  case 76:
    return *v = arch % 10, 0;
  case 16:
    return *v = 132, 0;
  case 13:
    return *v = 1980000, 0;
  case 36:
    return *v = 2619000, 0;
  case 37:
    return *v = 5120, 0;
  default:
    return 1;
  }
}
CUresult cuDevicePrimaryCtxRetain(void **ctx, int) {
  static int context;
  *ctx = &context;
  return 0;
}
// Releasing the primary context destroys it and its sticky fault, as the
// driver does when the last reference goes.
CUresult cuDevicePrimaryCtxRelease_v2(int) {
  sticky = 0;
  capturing = false;
  return 0;
}
CUresult cuCtxSetCurrent(void *) { return 0; }
CUresult cuCtxSynchronize() {
  log("cuCtxSynchronize");
  return sticky;
}

CUresult cuModuleLoadDataEx(Module **m, const void *image, unsigned n,
                            int *options, void **values) {
  const char *text = static_cast<const char *>(image);
  bool cubin = std::strncmp(text,
                            "\x7f"
                            "ELF",
                            4) == 0;
  std::string body = cubin ? std::string(text + 4) : std::string(text);
  log("cuModuleLoadDataEx %s", cubin ? "cubin" : "ptx");
  if (cubin && body.find("fake-bad-cubin") != std::string::npos)
    return 209;
  if (!cubin && body.find("fake-ptx-error") != std::string::npos) {
    for (unsigned i = 0; i < n; ++i)
      if (options[i] == 5) // CU_JIT_ERROR_LOG_BUFFER
        std::snprintf(static_cast<char *>(values[i]), 64,
                      "ptxas fatal   : fake syntax error on line 3\n");
    return 218;
  }
  *m = new Module;
  for (size_t at = body.find(".entry "); at != std::string::npos;
       at = body.find(".entry ", at + 1)) {
    size_t begin = at + 7, end = begin;
    while (end < body.size() && (isalnum(body[end]) || body[end] == '_'))
      ++end;
    (*m)->functions.push_back(new Function{body.substr(begin, end - begin)});
  }
  return 0;
}
CUresult cuModuleUnload(Module *m) {
  for (Function *f : m->functions)
    delete f;
  delete m;
  return 0;
}
CUresult cuModuleGetFunction(Function **f, Module *m, const char *name) {
  for (Function *g : m->functions)
    if (g->name == name)
      return *f = g, 0;
  return 500;
}
CUresult cuFuncSetAttribute(Function *f, int attribute, int value) {
  log("cuFuncSetAttribute %s %d %d", f->name.c_str(), attribute, value);
  return 0;
}

CUresult cuMemGetInfo_v2(size_t *free, size_t *total) {
  const char *limit = std::getenv("FAKE_CUDA_MEM_LIMIT");
  *total = limit ? std::strtoull(limit, nullptr, 10) : size_t(1) << 40;
  *free = *total > allocated ? *total - allocated : 0;
  return 0;
}
CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t bytes) {
  const char *limit = std::getenv("FAKE_CUDA_MEM_LIMIT");
  if (bytes == 0)
    return 1;
  // FAKE_CUDA_FAIL_ALLOC=N: the N-th allocation since the variable last
  // changed fails (out-of-memory injection).
  static std::string failSpec;
  static unsigned long calls = 0;
  const char *fail = std::getenv("FAKE_CUDA_FAIL_ALLOC");
  std::string spec = fail ? fail : "";
  if (spec != failSpec)
    failSpec = spec, calls = 0;
  ++calls;
  if (!spec.empty() && calls == std::strtoul(spec.c_str(), nullptr, 10))
    return 2;
  if (limit && allocated + bytes > std::strtoull(limit, nullptr, 10))
    return 2;
  void *mem = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (!mem)
    return 2;
  *p = reinterpret_cast<CUdeviceptr>(mem);
  allocations[*p] = bytes;
  allocated += bytes;
  log("cuMemAlloc %zu", bytes);
  return 0;
}
CUresult cuMemFree_v2(CUdeviceptr p) {
  auto it = allocations.find(p);
  if (it == allocations.end())
    return 1;
  allocated -= it->second;
  log("cuMemFree %zu", it->second);
  allocations.erase(it);
  std::free(reinterpret_cast<void *>(p));
  return 0;
}
CUresult cuMemcpyHtoD_v2(CUdeviceptr to, const void *from, size_t bytes) {
  log("cuMemcpyHtoD %zu", bytes);
  std::memcpy(reinterpret_cast<void *>(to), from, bytes);
  return sticky;
}
CUresult cuMemcpyDtoH_v2(void *to, CUdeviceptr from, size_t bytes) {
  log("cuMemcpyDtoH %zu", bytes);
  std::memcpy(to, reinterpret_cast<void *>(from), bytes);
  return sticky;
}
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr to, CUdeviceptr from, size_t bytes,
                              void *) {
  std::memcpy(reinterpret_cast<void *>(to), reinterpret_cast<void *>(from),
              bytes);
  return sticky;
}

CUresult cuStreamCreate(void **s, unsigned) {
  static int stream;
  *s = &stream;
  return 0;
}
CUresult cuStreamDestroy_v2(void *) { return 0; }
CUresult cuStreamSynchronize(void *) { return sticky; }

CUresult cuLaunchKernel(Function *f, unsigned gx, unsigned gy, unsigned gz,
                        unsigned bx, unsigned by, unsigned bz, unsigned shared,
                        void *, void **params, void **extra) {
  if (sticky)
    return sticky;
  if (f->name == "bad_launch")
    return 701;
  if (const char *best = std::getenv("FAKE_CUDA_BEST_BLOCK"))
    syntheticMs += 1 + std::fabs(std::log2(double(bx) / std::atof(best)));
  // The argument count is the kernel's (add_one 2, mul 3, copy 2, none for
  // the no-ops); read what the kernel uses.
  bool known = f->name == "add_one" || f->name == "copy" || f->name == "mul" ||
               f->name == "fault";
  size_t count = !known ? 0 : f->name == "mul" ? 3 : 2;
  std::vector<CUdeviceptr> args;
  for (size_t i = 0; i < count; ++i)
    args.push_back(*static_cast<CUdeviceptr *>(params[i]));
  unsigned threads = gx * gy * gz * bx * by * bz;
  if (capturing) {
    capture.push_back({f, threads, args});
    return 0;
  }
  log("cuLaunchKernel %s grid=%u,%u,%u block=%u,%u,%u shared=%u",
      f->name.c_str(), gx, gy, gz, bx, by, bz, shared);
  return runKernel(*f, threads, args);
}

CUresult cuEventCreate(Event **e, unsigned) { return *e = new Event, 0; }
CUresult cuEventDestroy_v2(Event *e) { return delete e, 0; }
CUresult cuEventRecord(Event *e, void *) {
  e->ms = std::getenv("FAKE_CUDA_BEST_BLOCK") ? syntheticMs : nowMs();
  return 0;
}
/// CU_EVENT_RECORD_EXTERNAL (1) during a capture: an event record node;
/// FAKE_CUDA_NO_EVENT_NODES refuses it as an old driver would.
CUresult cuEventRecordWithFlags(Event *e, void *stream, unsigned flags) {
  if (!capturing)
    return flags ? 1 /* CUDA_ERROR_INVALID_VALUE */ : cuEventRecord(e, stream);
  if (flags != 1 || std::getenv("FAKE_CUDA_NO_EVENT_NODES"))
    return 801; // CUDA_ERROR_NOT_SUPPORTED
  capture.push_back({nullptr, 0, {}, e});
  return 0;
}
CUresult cuEventSynchronize(Event *) { return sticky; }
CUresult cuEventElapsedTime_v2(float *ms, Event *from, Event *to) {
  *ms = float(to->ms - from->ms);
  return sticky;
}

CUresult cuStreamBeginCapture_v2(void *, int) {
  capturing = true;
  capture.clear();
  return 0;
}
CUresult cuStreamEndCapture(void *, Graph **g) {
  capturing = false;
  *g = new Graph{capture};
  size_t events = 0;
  for (const Captured &c : capture)
    events += c.event != nullptr;
  if (events)
    log("cuStreamEndCapture %zu launches %zu event nodes",
        capture.size() - events, events);
  else
    log("cuStreamEndCapture %zu launches", capture.size());
  return 0;
}
CUresult cuGraphInstantiateWithFlags(Graph **exec, Graph *g,
                                     unsigned long long) {
  *exec = new Graph(*g);
  return 0;
}
CUresult cuGraphLaunch(Graph *exec, void *) {
  size_t events = 0;
  for (const Captured &c : exec->launches)
    events += c.event != nullptr;
  log("cuGraphLaunch %zu launches", exec->launches.size() - events);
  for (const Captured &c : exec->launches) {
    if (c.event)
      cuEventRecord(c.event, nullptr);
    else
      runKernel(*c.f, c.threads, c.args);
  }
  return sticky;
}
CUresult cuGraphExecDestroy(Graph *g) { return delete g, 0; }
CUresult cuGraphDestroy(Graph *g) { return delete g, 0; }

} // extern "C"
