//===- Tuner.cpp - Kernel configurations timed on the GPU -----------------===//
//
// Each candidate is compiled alone (a module holding a copy of the one
// kernel, through the same buildGpuKernels / lowerGpuKernelsToPtx as the
// whole program) and loaded as PTX, so the driver's JIT does the assembly
// and no ptxas is needed. Buffers are zero-filled (zero is a valid index for
// a gather and a harmless operand for everything else) and shared by all
// candidates of a kernel. A launch failure or a fault ends the tuning with
// an error: after a fault the CUDA context is unusable. A candidate that
// does not compile or JIT is skipped with a remark.
//
//===----------------------------------------------------------------------===//
#include "bwc/Target/CUDA/Tuner.h"

#include "bwc/Runtime/CudaDriver.h"
#include "bwc/Target/CPU/SharedObject.h"
#include "bwc/Transforms/Passes.h"
#include "bwc/Transforms/TileCandidates.h"
#include "bwc/Transforms/TuningCache.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"

#include <algorithm>
#include <functional>

using namespace mlir;
using namespace mlir::bwc;
using namespace ::bwc::rt::cuda;

namespace {

/// GPU 0 with a context and a stream, released on destruction.
struct Gpu {
  std::shared_ptr<Driver> driver;
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUstream stream = nullptr;
  std::string name;

  ~Gpu() {
    if (stream)
      driver->api().cuStreamDestroy(stream);
    if (context)
      driver->api().cuDevicePrimaryCtxRelease(device);
  }

  /// Empty on success, else what failed.
  std::string open() {
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

  /// Empty on success, else `what` and the driver's words.
  std::string check(CUresult r, const std::string &what) const {
    return r == CUDA_SUCCESS ? "" : what + ": " + driver->describe(r);
  }
};

/// Device buffers for a kernel's arguments then results, zero-filled.
struct Buffers {
  const Gpu &gpu;
  std::vector<CUdeviceptr> pointers;
  std::vector<void *> params;

  explicit Buffers(const Gpu &gpu) : gpu(gpu) {}
  ~Buffers() {
    for (CUdeviceptr p : pointers)
      gpu.driver->api().cuMemFree(p);
  }

  std::string allocate(func::FuncOp kernel) {
    const DriverApi &d = gpu.driver->api();
    for (Type t : llvm::concat<const Type>(kernel.getArgumentTypes(),
                                           kernel.getResultTypes())) {
      auto shaped = cast<ShapedType>(t);
      size_t bytes = shaped.getNumElements() *
                     std::max<size_t>(1, shaped.getElementTypeBitWidth() / 8);
      bytes = std::max<size_t>(bytes, 16);
      CUdeviceptr p = 0;
      if (std::string e = gpu.check(d.cuMemAlloc(&p, bytes),
                                    "cannot allocate " + std::to_string(bytes) +
                                        " bytes");
          !e.empty())
        return e;
      pointers.push_back(p);
      std::vector<char> zeros(bytes, 0);
      if (std::string e = gpu.check(d.cuMemcpyHtoD(p, zeros.data(), bytes),
                                    "cannot fill a buffer");
          !e.empty())
        return e;
    }
    for (CUdeviceptr &p : pointers)
      params.push_back(&p);
    return "";
  }
};

/// The PTX of `kernel` alone under `config`; the first diagnostic in `why`
/// on failure.
FailureOr<std::string> compileCandidate(func::FuncOp kernel,
                                        DictionaryAttr config,
                                        std::string &why) {
  ScopedDiagnosticHandler capture(kernel.getContext(), [&](Diagnostic &d) {
    if (why.empty())
      why = d.str();
    return success();
  });
  OwningOpRef<ModuleOp> module = ModuleOp::create(kernel.getLoc());
  func::FuncOp copy = kernel.clone();
  copy->setAttr(kKernelConfigAttrName, config);
  module->push_back(copy);
  if (failed(buildGpuKernels(*module, kPackedSuffix)))
    return failure();
  return lowerGpuKernelsToPtx(*module);
}

int64_t configInt(DictionaryAttr config, StringRef name) {
  auto a = config.getAs<IntegerAttr>(name);
  return a ? a.getInt() : 1;
}

/// The median time (ms) of `options.runs` launches of `entry` from `ptx`.
/// `skip` (not an error) when the PTX does not load; `error` when a launch
/// fails or faults.
std::optional<double> timeCandidate(const Gpu &gpu, Buffers &buffers,
                                    const std::string &ptx,
                                    const std::string &entry,
                                    DictionaryAttr config,
                                    const TuneOptions &options,
                                    std::string &skip, std::string &error) {
  const DriverApi &d = gpu.driver->api();
  CUmodule module = nullptr;
  std::vector<char> log(16 * 1024, 0);
  int jitOptions[] = {CU_JIT_ERROR_LOG_BUFFER,
                      CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {log.data(),
                    reinterpret_cast<void *>(uintptr_t(log.size() - 1))};
  CUresult r =
      d.cuModuleLoadDataEx(&module, ptx.c_str(), 2, jitOptions, values);
  if (r != CUDA_SUCCESS) {
    skip = "the driver cannot JIT its PTX: " + gpu.driver->describe(r) + " " +
           log.data();
    return std::nullopt;
  }
  CUfunction function = nullptr;
  CUevent start = nullptr, stop = nullptr;
  std::vector<double> times;
  auto launch = [&] {
    return d.cuLaunchKernel(function, configInt(config, "grid"), 1, 1,
                            configInt(config, "block"), 1, 1, 0, gpu.stream,
                            buffers.params.data(), nullptr);
  };
  error = gpu.check(d.cuModuleGetFunction(&function, module, entry.c_str()),
                    "cannot find kernel '" + entry + "'");
  if (error.empty())
    error = gpu.check(d.cuEventCreate(&start, 0), "cannot create an event");
  if (error.empty())
    error = gpu.check(d.cuEventCreate(&stop, 0), "cannot create an event");
  for (int i = 0; error.empty() && i < options.warmup; ++i)
    error = gpu.check(launch(), "launch of '" + entry + "' failed");
  if (error.empty())
    error = gpu.check(d.cuStreamSynchronize(gpu.stream),
                      "kernel '" + entry + "' faulted");
  for (int i = 0; error.empty() && i < options.runs; ++i) {
    // One call at a time, in order (the operands of + are unsequenced).
    float ms = 0;
    std::pair<std::function<CUresult()>, std::string> steps[] = {
        {[&] { return d.cuEventRecord(start, gpu.stream); }, "event"},
        {launch, "launch of '" + entry + "' failed"},
        {[&] { return d.cuEventRecord(stop, gpu.stream); }, "event"},
        {[&] { return d.cuEventSynchronize(stop); },
         "kernel '" + entry + "' faulted"},
        {[&] { return d.cuEventElapsedTime(&ms, start, stop); }, "timing"}};
    for (auto &[step, what] : steps)
      if (error.empty())
        error = gpu.check(step(), what);
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

/// The emitters the compile lets bwc-tile choose.
llvm::StringSet<> allowedEmitters(const CudaOptions &cuda) {
  std::string list = cuda.tileEmitters.empty() ? TilePassOptions().emitters
                                               : cuda.tileEmitters;
  SmallVector<StringRef> names;
  StringRef(list).split(names, ',', -1, false);
  llvm::StringSet<> allowed;
  for (StringRef n : names)
    allowed.insert(n.trim());
  return allowed;
}

} // namespace

FailureOr<std::string> mlir::bwc::tuneKernels(ModuleOp module,
                                              const TuneOptions &options) {
  Gpu gpu;
  if (std::string e = gpu.open(); !e.empty())
    return module.emitError() << "--tune needs a CUDA GPU: " << e, failure();
  std::string error;
  FailureOr<TuningCache> cache = readTuningCache(
      options.cachePath, module.getContext(), /*mayBeMissing=*/true, error);
  if (failed(cache))
    return module.emitError() << error, failure();

  // The heuristic's configurations, on a copy: the compile configures the
  // module itself afterwards (and applies the cache).
  loadCudaDialects(*module.getContext());
  OwningOpRef<ModuleOp> copy = module.clone();
  PassManager configure(module.getContext());
  ConfigureKernelsPassOptions configureOptions;
  configureOptions.smCount = options.cuda.smCount;
  configure.addPass(createConfigureKernelsPass(configureOptions));
  TilePassOptions tile;
  if (options.cuda.tile) {
    tile.smCount = options.cuda.smCount;
    if (!options.cuda.tileEmitters.empty())
      tile.emitters = options.cuda.tileEmitters;
    configure.addPass(createTilePass(tile));
  }
  if (failed(configure.run(*copy)))
    return failure();

  llvm::StringSet<> allowed = allowedEmitters(options.cuda);
  auto &entries = cache->gpus[gpu.name];
  llvm::StringSet<> seen;
  for (auto kernel : copy->getOps<func::FuncOp>()) {
    auto chosen = kernel->getAttrOfType<DictionaryAttr>(kKernelConfigAttrName);
    if (!kernel->hasAttr(kKernelAttrName) || !chosen)
      continue;
    std::string signature = kernelSignature(kernel);
    if (!seen.insert(signature).second)
      continue;
    Buffers buffers(gpu);
    if (std::string e = buffers.allocate(kernel); !e.empty())
      return kernel.emitError() << "--tune: " << e, failure();
    TuningEntry entry;
    entry.kernel = kernel.getName().str();
    std::string entryName = (kernel.getName() + kPackedSuffix).str();
    for (const TileCandidate &c :
         tuningCandidates(kernel, chosen, allowed, options.cuda.smCount,
                          tile.sharedMemoryBytes)) {
      std::string skip;
      FailureOr<std::string> ptx = compileCandidate(kernel, c.config, skip);
      std::optional<double> ms;
      if (succeeded(ptx))
        ms = timeCandidate(gpu, buffers, *ptx, entryName, c.config, options,
                           skip, error);
      if (!error.empty())
        return kernel.emitError() << "--tune: " << error << " (configuration "
                                  << c.config << ")",
               failure();
      if (!ms) {
        kernel.emitRemark() << "--tune skips configuration " << c.config
                            << ": " << skip;
        continue;
      }
      entry.candidates.push_back({c.config, *ms});
    }
    if (entry.candidates.empty())
      return kernel.emitError() << "--tune: no configuration of this kernel "
                                   "compiled and ran",
             failure();
    const TunedCandidate *best = &entry.candidates.front();
    for (const TunedCandidate &c : entry.candidates)
      if (c.medianMs < best->medianMs * (1 - options.margin))
        best = &c;
    entry.config = best->config;
    entries[signature] = std::move(entry);
  }
  if (failed(writeTuningCache(options.cachePath, *cache, error)))
    return module.emitError() << error, failure();
  return gpu.name;
}
