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

#include "bwc/Analysis/CostModel.h"
#include "bwc/Runtime/KernelTimer.h"
#include "bwc/Target/CPU/SharedObject.h"
#include "bwc/Transforms/Passes.h"
#include "bwc/Analysis/TileCandidates.h"
#include "bwc/Analysis/TuningCache.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <functional>

using namespace mlir;
using namespace mlir::bwc;
using namespace ::bwc::rt::cuda;

namespace {

/// The byte sizes of `kernel`'s arguments then results.
std::vector<size_t> bufferBytes(func::FuncOp kernel) {
  std::vector<size_t> bytes;
  for (Type t : llvm::concat<const Type>(kernel.getArgumentTypes(),
                                         kernel.getResultTypes()))
    bytes.push_back(tensorBytes(t));
  return bytes;
}

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


/// Calls `visit(kernel, signature, candidates)` once per distinct kernel
/// of `module` (configured on a copy as the compile configures it; the
/// heuristic's configuration first).
LogicalResult forEachDistinctKernel(
    ModuleOp module, const CudaOptions &cuda,
    function_ref<LogicalResult(func::FuncOp, const std::string &,
                               ArrayRef<TileCandidate>)>
        visit) {
  loadCudaDialects(*module.getContext());
  OwningOpRef<ModuleOp> copy = module.clone();
  PassManager configure(module.getContext());
  ConfigureKernelsPassOptions configureOptions;
  configureOptions.smCount = cuda.smCount;
  configureOptions.convGemm = cuda.convGemm;
  configureOptions.tensorCores = cuda.tensorCores;
  configure.addPass(createConfigureKernelsPass(configureOptions));
  TilePassOptions tile;
  tile.convGemm = cuda.convGemm;
  tile.tensorCores = cuda.tensorCores;
  if (cuda.tile) {
    tile.smCount = cuda.smCount;
    if (!cuda.tileEmitters.empty())
      tile.emitters = cuda.tileEmitters;
    configure.addPass(createTilePass(tile));
  }
  if (failed(configure.run(*copy)))
    return failure();
  llvm::StringSet<> allowed = allowedEmitters(cuda);
  llvm::StringSet<> seen;
  for (auto kernel : copy->getOps<func::FuncOp>()) {
    auto chosen = kernel->getAttrOfType<DictionaryAttr>(kKernelConfigAttrName);
    if (!kernel->hasAttr(kKernelAttrName) || !chosen)
      continue;
    std::string signature = kernelSignature(kernel);
    if (!seen.insert(signature).second)
      continue;
    if (failed(visit(kernel, signature,
                     tuningCandidates(kernel, chosen, allowed, cuda.smCount,
                                      tile.sharedMemoryBytes, /*limit=*/8,
                                      ContractionChoices{cuda.convGemm,
                                                         cuda.tensorCores,
                                                         cuda.convGemmFill}))))
      return failure();
  }
  return success();
}

/// The fastest of `entry`'s candidates, the first (the heuristic's) unless
/// another is faster by more than `margin`.
void chooseFastest(TuningEntry &entry, double margin) {
  const TunedCandidate *best = &entry.candidates.front();
  for (const TunedCandidate &c : entry.candidates)
    if (c.medianMs < best->medianMs * (1 - margin))
      best = &c;
  entry.config = best->config;
}

} // namespace

FailureOr<std::string> mlir::bwc::tuneKernels(ModuleOp module,
                                              const TuneOptions &options) {
  KernelTimer timer;
  if (std::string e = timer.open(); !e.empty())
    return module.emitError() << "--tune needs a CUDA GPU: " << e, failure();
  std::string error;
  FailureOr<TuningCache> cache = readTuningCache(
      options.cachePath, module.getContext(), /*mayBeMissing=*/true, error);
  if (failed(cache))
    return module.emitError() << error, failure();
  auto &entries = cache->gpus[timer.gpuName()];
  auto visit = [&](func::FuncOp kernel, const std::string &signature,
                   ArrayRef<TileCandidate> candidates) -> LogicalResult {
    if (std::string e = timer.allocate(bufferBytes(kernel)); !e.empty())
      return kernel.emitError() << "--tune: " << e, failure();
    TuningEntry entry;
    entry.kernel = kernel.getName().str();
    std::string entryName = (kernel.getName() + kPackedSuffix).str();
    for (const TileCandidate &c : candidates) {
      std::string skip;
      FailureOr<std::string> ptx = compileCandidate(kernel, c.config, skip);
      std::optional<double> ms;
      if (succeeded(ptx))
        ms = timer.time(*ptx, entryName, configInt(c.config, "grid"),
                        configInt(c.config, "block"), options.warmup,
                        options.runs, skip, error);
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
    chooseFastest(entry, options.margin);
    entries[signature] = std::move(entry);
    return success();
  };
  if (failed(forEachDistinctKernel(module, options.cuda, visit)))
    return failure();
  if (failed(writeTuningCache(options.cachePath, *cache, error)))
    return module.emitError() << error, failure();
  return timer.gpuName();
}

LogicalResult mlir::bwc::exportTuningBundle(ModuleOp module,
                                            const CudaOptions &cuda,
                                            StringRef dir) {
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return module.emitError() << "--tune-export: cannot create '" << dir
                              << "': " << ec.message(),
           failure();
  std::string bundle;
  llvm::raw_string_ostream os(bundle);
  os << "# bwc tuning bundle v1: signature, kernel, entry, grid, block, "
        "buffer bytes, ptx file, configuration\n";
  int count = 0;
  auto visit = [&](func::FuncOp kernel, const std::string &signature,
                   ArrayRef<TileCandidate> candidates) -> LogicalResult {
    std::string bytes;
    for (size_t b : bufferBytes(kernel))
      bytes += (bytes.empty() ? "" : ",") + std::to_string(b);
    for (const TileCandidate &c : candidates) {
      std::string skip;
      FailureOr<std::string> ptx = compileCandidate(kernel, c.config, skip);
      if (failed(ptx)) {
        kernel.emitRemark() << "--tune-export skips configuration "
                            << c.config << ": " << skip;
        continue;
      }
      std::string file = "c" + std::to_string(count++) + ".ptx";
      std::string path = (dir + "/" + file).str();
      std::error_code ec;
      llvm::raw_fd_ostream out(path, ec);
      if (ec)
        return kernel.emitError() << "--tune-export: cannot write '" << path
                                  << "': " << ec.message(),
               failure();
      out << *ptx;
      std::string config;
      llvm::raw_string_ostream cs(config);
      c.config.print(cs);
      os << signature << '\t' << kernel.getName() << '\t'
         << kernel.getName() << kPackedSuffix << '\t'
         << configInt(c.config, "grid") << '\t'
         << configInt(c.config, "block") << '\t' << bytes << '\t' << file
         << '\t' << config << '\n';
    }
    return success();
  };
  if (failed(forEachDistinctKernel(module, cuda, visit)))
    return failure();
  std::string path = (dir + "/bundle.tsv").str();
  std::error_code ec;
  llvm::raw_fd_ostream out(path, ec);
  if (ec)
    return module.emitError() << "--tune-export: cannot write '" << path
                              << "': " << ec.message(),
           failure();
  out << bundle;
  return success();
}

FailureOr<std::string> mlir::bwc::importTuningResults(MLIRContext *ctx,
                                                      StringRef dir,
                                                      StringRef cachePath,
                                                      double margin) {
  auto fail = [&](const Twine &why) -> FailureOr<std::string> {
    emitError(UnknownLoc::get(ctx)) << "--tune-import: " << why;
    return failure();
  };
  auto readLines = [&](StringRef file, SmallVectorImpl<std::string> &lines)
      -> LogicalResult {
    auto buffer = llvm::MemoryBuffer::getFile((dir + "/" + file).str());
    if (!buffer)
      return failure();
    SmallVector<StringRef> split;
    (*buffer)->getBuffer().split(split, '\n', -1, false);
    for (StringRef l : split)
      lines.push_back(l.str());
    return success();
  };
  SmallVector<std::string> bundle, results;
  if (failed(readLines("bundle.tsv", bundle)))
    return fail("cannot read " + dir + "/bundle.tsv");
  if (failed(readLines("results.tsv", results)))
    return fail("cannot read " + dir + "/results.tsv (run bwc-tune-run " +
                dir + " on the GPU machine first)");
  // PTX file -> its time, from bwc-tune-run.
  std::string gpu;
  llvm::StringMap<double> times;
  for (auto [n, line] : llvm::enumerate(results)) {
    SmallVector<StringRef> f;
    StringRef(line).split(f, '\t');
    std::string where = (dir + "/results.tsv:" + Twine(n + 1)).str();
    if (f.size() == 2 && f[0] == "# gpu") {
      gpu = f[1].str();
      continue;
    }
    double ms;
    if (f.size() < 2 || (f[1] != "skip" && f[1].getAsDouble(ms)))
      return fail(where + ": expects 'PTX-FILE<TAB>MS' or "
                          "'PTX-FILE<TAB>skip<TAB>WHY' but got '" + line + "'");
    if (f[1] != "skip")
      times[f[0]] = ms;
  }
  if (gpu.empty())
    return fail(dir + "/results.tsv names no GPU ('# gpu<TAB>NAME')");
  std::string error;
  FailureOr<TuningCache> cache =
      readTuningCache(cachePath, ctx, /*mayBeMissing=*/true, error);
  if (failed(cache))
    return fail(error);
  std::map<std::string, TuningEntry> entries;
  for (auto [n, line] : llvm::enumerate(bundle)) {
    if (StringRef(line).starts_with("#"))
      continue;
    SmallVector<StringRef> f;
    StringRef(line).split(f, '\t');
    std::string where = (dir + "/bundle.tsv:" + Twine(n + 1)).str();
    if (f.size() != 8)
      return fail(where + ": expects 8 tab-separated fields but got " +
                  Twine(f.size()));
    auto config = dyn_cast_or_null<DictionaryAttr>(parseAttribute(f[7], ctx));
    if (!config)
      return fail(where + ": expects a configuration dictionary but got '" +
                  f[7] + "'");
    TuningEntry &entry = entries[f[0].str()];
    entry.kernel = f[1].str();
    auto it = times.find(f[6]);
    if (it != times.end())
      entry.candidates.push_back({config, it->second});
  }
  for (auto &[signature, entry] : entries) {
    if (entry.candidates.empty())
      return fail("no candidate of kernel " + entry.kernel + " (signature " +
                  signature + ") was timed in " + dir + "/results.tsv");
    chooseFastest(entry, margin);
    cache->gpus[gpu][signature] = std::move(entry);
  }
  if (failed(writeTuningCache(cachePath, *cache, error)))
    return fail(error);
  return gpu;
}
