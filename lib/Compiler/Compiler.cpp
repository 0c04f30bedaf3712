//===- Compiler.cpp - The whole pipeline as one call ----------------------===//
//
// Import, graph passes (mixed precision, layouts), fusion, outlining, the
// memory plan (and rematerialization), the launch program, kernel lowering
// and code generation, and the report: what bwc-compile did in its main,
// now a function every front end shares.
//
//===----------------------------------------------------------------------===//
#include "bwc/Compiler/Compiler.h"
#include "bwc/Compiler/Calibrate.h"

#include "bwc/Analysis/AccessModel.h"
#include "bwc/Import/ONNX/Importer.h"
#include "bwc/Import/ONNX/WeightsTemplate.h"
#include "bwc/InitAll.h"
#include "bwc/Target/ArtifactBuilder.h"
#include "bwc/Target/CPU/Pipeline.h"
#include "bwc/Target/CPU/SharedObject.h"
#include "bwc/Target/CUDA/CudaTarget.h"
#include "bwc/Target/CUDA/Tuner.h"
#include "bwc/Transforms/Passes.h"
#include "bwc/Version.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/Timing.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <mutex>

using namespace mlir;
using namespace mlir::bwc;

namespace {

/// The access model's figures (docs/analysis/access-model.md): each
/// outlined kernel's coalescing efficiency by name, and the program's.
struct Coalescing {
  llvm::StringMap<double> kernels;
  double total = 1;
  /// The figure of compiled kernel `index` (outlined as main_k<index>_...).
  std::optional<double> of(size_t index) const {
    std::string prefix = "main_k" + std::to_string(index) + "_";
    for (const auto &k : kernels)
      if (StringRef(k.getKey()).starts_with(prefix))
        return k.getValue();
    return std::nullopt;
  }
};

/// The CUDA target's options that `o` sets (the tuning cache included).
CudaOptions cudaOptionsOf(const CompileOptions &o) {
  CudaOptions cuda;
  cuda.smCount = o.smCount;
  cuda.tile = o.tile == "default";
  cuda.tileEmitters = o.tileEmitters;
  cuda.convGemm = o.convKernels != "direct";
  cuda.convGemmFill = o.convKernels == "auto";
  cuda.tensorCores = o.tensorCores == "on";
  cuda.tuningCache = o.tuningCache;
  cuda.tuneGpu = o.tuneGpu;
  return cuda;
}

/// Configures a copy of the outlined kernels as the CUDA target does
/// (bwc-configure-kernels, then bwc-tile unless --tile=none) and runs the
/// access model on each, whatever the target.
FailureOr<Coalescing> measureCoalescing(ModuleOp module,
                                        const CompileOptions &o) {
  OwningOpRef<ModuleOp> copy = module.clone();
  PassManager pm(module.getContext());
  addKernelConfigurationPasses(pm, cudaOptionsOf(o));
  if (failed(pm.run(*copy)))
    return failure();
  Coalescing c;
  std::vector<KernelCoalescing> all;
  for (auto kernel : copy->getOps<func::FuncOp>()) {
    auto config = kernel->getAttrOfType<DictionaryAttr>("bwc.config");
    if (!config)
      continue;
    FailureOr<KernelCoalescing> k = analyzeCoalescing(kernel, config);
    if (failed(k))
      return failure();
    c.kernels[kernel.getName()] = k->efficiency();
    all.push_back(std::move(*k));
  }
  c.total = programCoalescing(all);
  return c;
}

/// The arena plan's figures, from the attributes bwc-plan-buffers sets.
struct Memory {
  int64_t arena = 0, lowerBound = 0, noReuse = 0;
  std::string planner;
  /// bwc-rematerialize's figures (budget 0: the pass did not run).
  int64_t rematBudget = 0, rematArenaBefore = 0, rematArenaAfter = 0,
          rematOps = 0, rematFlops = 0, rematBytes = 0;
  std::string rematStrategy;
  /// Training state: the tensors an optimizer step updates, how many of
  /// them its kernels write in place (bwc.state_inplace), and the bytes the
  /// executor copies after each run for the others.
  int64_t stateTensors = 0, stateInPlace = 0, stateCopiedBytes = 0;
};

Memory readMemory(func::FuncOp program) {
  Memory m;
  auto get = [&](StringRef name) {
    auto a = program->getAttrOfType<IntegerAttr>(name);
    return a ? a.getInt() : 0;
  };
  m.arena = get("bwc.arena_bytes");
  m.lowerBound = get("bwc.lower_bound_bytes");
  m.noReuse = get("bwc.no_reuse_bytes");
  if (auto p = program->getAttrOfType<StringAttr>("bwc.planner"))
    m.planner = p.str();
  m.rematBudget = get("bwc.remat_budget_bytes");
  m.rematArenaBefore = get("bwc.remat_arena_before");
  m.rematArenaAfter = get("bwc.remat_arena_after");
  m.rematOps = get("bwc.remat_recomputed_ops");
  m.rematFlops = get("bwc.remat_extra_flops");
  m.rematBytes = get("bwc.remat_extra_bytes");
  if (auto s = program->getAttrOfType<StringAttr>("bwc.remat_strategy"))
    m.rematStrategy = s.str();
  auto ret = cast<func::ReturnOp>(program.getBody().front().getTerminator());
  for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
    if (!program.getResultAttr(i, "bwc.state_update"))
      continue;
    ++m.stateTensors;
    auto call = v.getDefiningOp<func::CallOp>();
    auto claim = call ? call->getAttrOfType<DenseI64ArrayAttr>(
                            "bwc.state_inplace")
                      : DenseI64ArrayAttr();
    unsigned k = call ? cast<OpResult>(v).getResultNumber() : 0;
    if (claim && k < claim.size() && claim[k] >= 0)
      ++m.stateInPlace;
    else
      m.stateCopiedBytes += tensorBytes(v.getType());
  }
  return m;
}

llvm::json::Object costToJson(const ProgramCost &p, double peakBw) {
  llvm::json::Array kernels;
  for (const auto &k : p.kernels)
    kernels.push_back(llvm::json::Object{{"name", k.name},
                                         {"ops", k.ops},
                                         {"bytes_read", k.bytesRead},
                                         {"bytes_written", k.bytesWritten},
                                         {"flops", k.flops},
                                         {"intensity", k.intensity()}});
  return llvm::json::Object{
      {"totals",
       llvm::json::Object{{"kernels", (int64_t)p.kernels.size()},
                          {"bytes_read", p.bytesRead},
                          {"bytes_written", p.bytesWritten},
                          {"bytes", p.bytes()},
                          {"flops", p.flops},
                          {"intermediate_bytes", p.intermediateBytes},
                          {"estimated_us", p.estimatedSeconds(peakBw) * 1e6}}},
      {"kernels", std::move(kernels)}};
}

/// --calibrate's part of the report.
struct Calibration {
  bool enabled = false;
  CalibrationSummary summary;
  /// (value, reason) for every op bwc-mixed-precision kept in f32 for its
  /// recorded range.
  std::vector<std::pair<std::string, std::string>> kept;
};

/// An op in words for the report: its ONNX name where the location has
/// one ("bwc.matmul 'fc1'"), else the op name and its location.
std::string describeOp(Operation *op) {
  std::string name;
  op->getLoc()->walk([&](Location l) {
    if (auto n = dyn_cast<NameLoc>(l); n && name.empty())
      name = n.getName().str();
    return WalkResult::advance();
  });
  if (!name.empty())
    return (op->getName().getStringRef() + " '" + name + "'").str();
  std::string text;
  llvm::raw_string_ostream os(text);
  os << op->getName() << " at " << op->getLoc();
  return text;
}

/// The report: the compiled program's figures at the top level (totals,
/// kernels), the unfused baseline beside them and the ratios.
llvm::json::Value
reportToJson(const ProgramCost &unfused, const ProgramCost &compiled,
             const Memory &memory, const Coalescing &coalescing,
             const Calibration &cal, const CompileOptions &o) {
  llvm::json::Object root = costToJson(compiled, o.peakBw);
  for (auto [i, k] : llvm::enumerate(*root.getArray("kernels")))
    if (std::optional<double> c = coalescing.of(i))
      (*k.getAsObject())["coalescing"] = *c;
  (*root.getObject("totals"))["coalescing_efficiency"] = coalescing.total;
  root["tile"] = o.tile;
  root["memory"] = llvm::json::Object{{"arena_bytes", memory.arena},
                                      {"lower_bound_bytes", memory.lowerBound},
                                      {"no_reuse_bytes", memory.noReuse},
                                      {"planner", memory.planner}};
  if (memory.stateTensors)
    root["state"] =
        llvm::json::Object{{"tensors", memory.stateTensors},
                           {"updated_in_place", memory.stateInPlace},
                           {"copied_bytes_per_run", memory.stateCopiedBytes}};
  if (memory.rematBudget)
    root["remat"] = llvm::json::Object{
        {"budget_bytes", memory.rematBudget},
        {"strategy", memory.rematStrategy},
        {"arena_before_bytes", memory.rematArenaBefore},
        {"arena_after_bytes", memory.arena},
        {"recomputed_ops", memory.rematOps},
        {"extra_flops", memory.rematFlops},
        {"extra_bytes", memory.rematBytes},
        {"extra_flops_ratio",
         compiled.flops ? double(memory.rematFlops) / compiled.flops : 0.0}};
  if (cal.enabled) {
    llvm::json::Array kept;
    for (auto &[value, reason] : cal.kept)
      kept.push_back(llvm::json::Object{{"value", value}, {"reason", reason}});
    root["calibration"] = llvm::json::Object{
        {"data_sets", cal.summary.dataSets},
        {"values", cal.summary.values},
        {"trials", cal.summary.trials},
        {"tolerance", cal.summary.tolerance},
        {"worst_error", cal.summary.worstError},
        {"bytes_all_f32", cal.summary.bytesAllKept},
        {"bytes_chosen", cal.summary.bytesChosen},
        {"kept_f32", std::move(kept)}};
    llvm::json::Array log;
    for (const CalibrationSummary::Trial &t : cal.summary.log)
      log.push_back(llvm::json::Object{{"low", t.low},
                                       // JSON has no infinity.
                                       {"error", std::isfinite(t.error)
                                                     ? llvm::json::Value(t.error)
                                                     : llvm::json::Value(nullptr)},
                                       {"bytes", t.bytes},
                                       {"accepted", t.accepted}});
    (*root.getObject("calibration"))["trial_log"] = std::move(log);
    if (cal.summary.initialLossScale > 0) {
      llvm::json::Object scale{{"initial", cal.summary.initialLossScale},
                               {"calibrated", cal.summary.lossScale}};
      if (!cal.summary.lossScaleNote.empty())
        scale["note"] = cal.summary.lossScaleNote;
      (*root.getObject("calibration"))["loss_scale"] = std::move(scale);
    }
  }
  root["target"] = o.target;
  root["fusion"] = o.fusion;
  root["precision"] = o.precision;
  root["peak_gbps"] = o.peakBw;
  root["unfused"] = costToJson(unfused, o.peakBw);
  auto ratio = [](double a, double b) { return b ? a / b : 0.0; };
  root["ratios"] = llvm::json::Object{
      {"kernels", ratio(unfused.kernels.size(), compiled.kernels.size())},
      {"bytes", ratio(unfused.bytes(), compiled.bytes())}};
  return std::move(root);
}

void printTable(StringRef title, const ProgramCost &p, llvm::raw_ostream &os,
                const Coalescing *coalescing = nullptr) {
  os << "== " << title << "\n";
  os << llvm::format("%-4s %-18s %13s %13s %13s %8s %10s  %s\n", "#", "kernel",
                     "bytes read", "bytes written", "flops", "flop/B",
                     "coalescing", "ops");
  for (auto [i, k] : llvm::enumerate(p.kernels)) {
    std::optional<double> c = coalescing ? coalescing->of(i) : std::nullopt;
    os << llvm::format(
        "%-4zu %-18s %13llu %13llu %13llu %8.2f %10s  %s\n", i, k.name.c_str(),
        (unsigned long long)k.bytesRead, (unsigned long long)k.bytesWritten,
        (unsigned long long)k.flops, k.intensity(),
        c ? llvm::formatv("{0:f3}", *c).str().c_str() : "-", k.ops.c_str());
  }
}

void printReport(const ProgramCost &unfused, const ProgramCost &compiled,
                 const Memory &memory, const Coalescing &coalescing,
                 const Calibration &cal, const CompileOptions &o,
                 llvm::raw_ostream &os) {
  double peakBw = o.peakBw;
  printTable("unfused (one kernel per op)", unfused, os);
  printTable(o.fusion == "none" ? "compiled (--fusion=none)" : "fused",
             compiled, os, &coalescing);
  auto line = [&](StringRef what, const ProgramCost &p) {
    os << llvm::format("%-10s %6zu kernels %14llu DRAM bytes %14llu "
                       "intermediate bytes %10.1f us at %.0f GB/s\n",
                       what.str().c_str(), p.kernels.size(),
                       (unsigned long long)p.bytes(),
                       (unsigned long long)p.intermediateBytes,
                       p.estimatedSeconds(peakBw) * 1e6, peakBw);
  };
  os << "== totals\n";
  line("unfused", unfused);
  line(o.fusion == "none" ? "compiled" : "fused", compiled);
  if (compiled.kernels.size() && compiled.bytes())
    os << llvm::format("ratio      %6.2fx fewer kernels, %.2fx fewer DRAM "
                       "bytes (%.1f%% less)\n",
                       double(unfused.kernels.size()) / compiled.kernels.size(),
                       double(unfused.bytes()) / compiled.bytes(),
                       100.0 *
                           (1.0 - double(compiled.bytes()) /
                                      std::max<uint64_t>(1, unfused.bytes())));
  os << llvm::format("coalescing %.3f (bytes-weighted, CUDA configuration, "
                     "--tile=%s)\n",
                     coalescing.total, o.tile.c_str());
  auto ratio = [](int64_t a, int64_t b) { return b ? double(a) / b : 0.0; };
  os << "== memory (intermediates, in launch order)\n"
     << llvm::format("arena %lld bytes (%s), lower bound %lld bytes "
                     "(arena/bound %.3f), no reuse %lld bytes (arena/no-reuse "
                     "%.3f)\n",
                     (long long)memory.arena, memory.planner.c_str(),
                     (long long)memory.lowerBound,
                     ratio(memory.arena, memory.lowerBound),
                     (long long)memory.noReuse,
                     ratio(memory.arena, memory.noReuse));
  if (memory.stateTensors)
    os << "state: " << memory.stateTensors << " tensors, "
       << memory.stateInPlace << " updated in place, "
       << memory.stateCopiedBytes << " bytes copied after each run\n";
  if (memory.rematBudget)
    os << "== rematerialization (budget " << memory.rematBudget << " bytes, "
       << memory.rematStrategy << ")\n"
       << llvm::format(
              "arena before %lld bytes, after %lld bytes; "
              "recomputed_ops %lld, extra_flops %lld (%.1f%% of "
              "%llu), extra_bytes %lld\n",
              (long long)memory.rematArenaBefore, (long long)memory.arena,
              (long long)memory.rematOps, (long long)memory.rematFlops,
              100.0 * ratio(memory.rematFlops, compiled.flops),
              (unsigned long long)compiled.flops, (long long)memory.rematBytes);
  if (cal.enabled) {
    os << "== calibration (" << cal.summary.dataSets << " data sets, "
       << cal.summary.values << " f32 values): " << cal.kept.size()
       << " ops kept in f32\n";
    os << llvm::format("validation: %lld trial programs, tolerance %.1e "
                       "(relative L2 per output), chosen program %.2e\n",
                       (long long)cal.summary.trials, cal.summary.tolerance,
                       cal.summary.worstError);
    if (cal.summary.bytesAllKept > 0)
      os << llvm::format("static DRAM bytes (CPU target, as the trials "
                         "compile): %.0f chosen, %.0f with every "
                         "contraction f32\n",
                         cal.summary.bytesChosen, cal.summary.bytesAllKept);
    if (cal.summary.initialLossScale > 0)
      os << llvm::format("loss scale: starts at %g (bwc-grad's %g)",
                         cal.summary.lossScale, cal.summary.initialLossScale)
         << (cal.summary.lossScaleNote.empty()
                 ? std::string()
                 : ": " + cal.summary.lossScaleNote)
         << "\n";
    for (auto &[value, reason] : cal.kept)
      os << "  " << value << ": " << reason << "\n";
  }
}

/// Pass registration is global and must happen once per process (the
/// textual pipelines below name passes).
void registerPassesOnce() {
  static std::once_flag once;
  std::call_once(once, [] { registerAllPasses(); });
}

/// Adds a textual pipeline; its parse errors (bwc's own pipelines, so a
/// bug) become a diagnostic.
LogicalResult addPipeline(PassManager &pm, StringRef text, Location loc) {
  std::string err;
  llvm::raw_string_ostream os(err);
  if (succeeded(parsePassPipeline(text, pm, os)))
    return success();
  return emitError(loc) << "internal pipeline '" << text << "': " << err;
}

} // namespace

bool mlir::bwc::parseOptimizer(StringRef train, std::string &optimizer,
                               double &lr) {
  auto [name, rate] = train.split(':');
  if ((name != "sgd" && name != "adam") || rate.empty())
    return false;
  char *end = nullptr;
  std::string text = rate.str();
  lr = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !(lr > 0) || !std::isfinite(lr))
    return false;
  optimizer = name.str();
  return true;
}

std::string mlir::bwc::validateOptions(const CompileOptions &o) {
  auto oneOf = [](const std::string &v, std::initializer_list<const char *> l) {
    for (const char *s : l)
      if (v == s)
        return true;
    return false;
  };
  if (!oneOf(o.tile, {"default", "none"}))
    return "unknown --tile '" + o.tile + "' (expected default or none)";
  if (!oneOf(o.target, {"cpu", "cuda"}))
    return "unknown --target '" + o.target + "' (expected cpu or cuda)";
  if (!oneOf(o.cudaSim, {"on", "off"}))
    return "--cuda-sim expects on or off but got '" + o.cudaSim + "'";
  if (!oneOf(o.tensorCores, {"on", "off"}))
    return "--tensor-cores expects on or off but got '" + o.tensorCores + "'";
  if (!oneOf(o.convKernels, {"auto", "gemm", "direct"}))
    return "--conv-kernels expects auto, gemm or direct but got '" +
           o.convKernels + "'";
  if (!oneOf(o.elementalConv, {"direct", "gemm"}))
    return "--elemental-conv expects direct or gemm but got '" +
           o.elementalConv + "'";
  if (!oneOf(o.codegen, {"linalg", "elemental"}))
    return "--codegen expects linalg or elemental but got '" + o.codegen + "'";
  if (!oneOf(o.fusion, {"none", "default"}))
    return "unknown --fusion '" + o.fusion + "' (expected none or default)";
  if (!oneOf(o.layout, {"auto", "nchw", "nhwc"}))
    return "unknown --layout '" + o.layout + "' (expected auto, nchw or nhwc)";
  if (!oneOf(o.padChannels, {"auto", "none"}))
    return "unknown --pad-channels '" + o.padChannels +
           "' (expected auto or none)";
  if (!oneOf(o.precision, {"fp32", "fp16", "bf16"}))
    return "unknown --precision '" + o.precision +
           "' (expected fp32, fp16 or bf16)";
  if (o.calibrateTolerance < 0 || !std::isfinite(o.calibrateTolerance))
    return "--calibrate-tolerance expects a positive relative L2 bound";
  if (o.calibrateTrials < 1)
    return "--calibrate-trials expects a positive count";
  if (!o.calibrate.empty() && o.precision == "fp32")
    return "--calibrate expects --precision=fp16 or bf16 (it decides what "
           "stays f32)";
  if (o.ioPrecision != "fp32" && o.ioPrecision != o.precision)
    return "--io-precision expects fp32 or the --precision value '" +
           o.precision + "' but got '" + o.ioPrecision + "'";
  if (!o.train.empty() && o.train != "grad") {
    std::string optimizer;
    double lr;
    if (!parseOptimizer(o.train, optimizer, lr))
      return "--train expects grad, sgd:LR or adam:LR (LR a positive "
             "learning rate) but got '" +
             o.train + "'";
  }
  if (!oneOf(o.loss, {"mse", "cross-entropy"}))
    return "unknown --loss '" + o.loss + "' (expected mse or cross-entropy)";
  if (o.train.empty() &&
      (o.loss != "mse" || o.trainable != ".*" || o.lossScale != "auto"))
    return "--loss, --trainable and --loss-scale expect --train";
  if (o.lossScale != "auto" && o.lossScale != "none" &&
      o.lossScale != "dynamic") {
    char *end = nullptr;
    double s = std::strtod(o.lossScale.c_str(), &end);
    if (end != o.lossScale.c_str() + o.lossScale.size() || !(s > 0) ||
        !std::isfinite(s))
      return "--loss-scale expects auto, none, dynamic or a positive factor "
             "but got '" +
             o.lossScale + "'";
  }
  if (!(o.peakBw > 0))
    return "--peak-bw expects a positive GB/s figure";
  if (o.emit != "artifact" &&
      !(o.target == "cuda" &&
        (o.emit == "ptx" || o.emit == "gpu" || o.emit == "sim")) &&
      !(o.target == "cpu" && o.emit == "llvm"))
    return "--emit expects artifact, or ptx, gpu or sim with --target=cuda, "
           "or llvm with --target=cpu, but got '" +
           o.emit + "' for --target=" + o.target;
  if (o.smCount < 1)
    return "--sm-count expects a positive count";
  if ((!o.tuneExport.empty() || !o.tuneImport.empty()) && o.target != "cuda")
    return "--tune-export and --tune-import expect --target=cuda but got "
           "--target=" +
           o.target;
  if (!o.tuneImport.empty() && (o.tuningCache.empty() || o.tune))
    return "--tune-import expects --tuning-cache=FILE and no --tune";
  if ((o.tune || !o.tuningCache.empty() || !o.tuneGpu.empty()) &&
      o.target != "cuda")
    return "--tune, --tuning-cache and --tune-gpu expect --target=cuda but "
           "got --target=" +
           o.target;
  if ((o.tune || !o.tuneGpu.empty()) && o.tuningCache.empty())
    return std::string(o.tune ? "--tune" : "--tune-gpu") +
           " expects --tuning-cache=FILE";
  if (o.tune && !o.tuneGpu.empty())
    return "--tune-gpu expects no --tune (the GPU being tuned names the "
           "entries) but got both";
  return "";
}

std::string mlir::bwc::compilerVersion() {
  return std::string("bwc ") + BWC_VERSION + " (MLIR/LLVM " +
         LLVM_VERSION_STRING + ")";
}

/// The compile after import. `root` times its phases and, inside the pass
/// managers, every pass (--timing; a disabled scope costs nothing).
static FailureOr<CompileResult> compileModuleTimed(ModuleOp module,
                                                   const CompileOptions &o,
                                                   TimingScope &root) {
  MLIRContext &ctx = *module.getContext();
  Location loc = module.getLoc();
  if (std::string err = validateOptions(o); !err.empty())
    return emitError(loc) << err;
  registerPassesOnce();

  // Training: the step (loss and gradients) is the program from here on.
  if (!o.train.empty()) {
    PassManager grad(&ctx);
    TimingScope gradTime = root.nest("training step (bwc-grad)");
    grad.enableTiming(gradTime);
    std::string scale = o.lossScale;
    if (scale == "auto")
      // Dynamic scaling skips a step whose gradients overflow, which only
      // an optimizer step can do; --train=grad returns what it computed.
      scale = o.precision == "fp16" && o.train != "grad" ? "dynamic" : "none";
    std::string step = "bwc-grad{loss=" + o.loss + " loss-scale=" + scale;
    std::string optimizer;
    double lr;
    if (parseOptimizer(o.train, optimizer, lr)) {
      char rate[32];
      std::snprintf(rate, sizeof(rate), "%.17g", lr);
      step += " optimizer=" + optimizer + " lr=" + rate;
    }
    if (failed(addPipeline(grad, step + "}", loc)) || failed(grad.run(module)))
      return failure();
  }

  // Graph passes; the unfused baseline is measured here.
  PassManager graph(&ctx);
  TimingScope graphTime = root.nest("graph passes");
  graph.enableTiming(graphTime);
  graph.addPass(createCanonicalizerPass());
  graph.addPass(createCSEPass());
  // --calibrate: the ranges of the canonical fp32 program, which
  // bwc-mixed-precision reads next.
  CalibrationSummary calibration;
  if (!o.calibrate.empty()) {
    if (failed(graph.run(module)))
      return failure();
    TimingScope calibrationTime = graphTime.nest("calibration");
    if (failed(calibrate(module, o.calibrate, o, calibration)))
      return failure();
    graph.clear();
  }
  // Mixed precision before fusion, so that fusion places the casts and both
  // the unfused baseline and the fused program are in the chosen precision.
  if (o.precision != "fp32") {
    std::string options = "precision=" + o.precision;
    if (o.ioPrecision == o.precision)
      options += " low-io=true";
    if (failed(addPipeline(graph, "bwc-mixed-precision{" + options + "}", loc)))
      return failure();
    graph.addPass(createCSEPass());
  }
  // Layouts after precision (the access model prices element sizes), before
  // the unfused baseline, so both reports describe the same program.
  if (failed(addPipeline(
          graph,
          "bwc-select-layout{mode=" + o.layout +
              " sm-count=" + std::to_string(o.smCount) + "},canonicalize,cse" +
              (o.target == "cuda" && o.padChannels == "auto"
                   ? ",bwc-pad-channels{sm-count=" + std::to_string(o.smCount) +
                         "},canonicalize,cse"
                   : std::string()),
          loc)) ||
      failed(graph.run(module)))
    return failure();
  auto program = module.lookupSymbol<func::FuncOp>("main");
  if (!program)
    return module.emitError() << "expects a program function named 'main'";
  ProgramCost unfused = programCost(program);
  // What --calibrate kept in f32, and why (bwc-mixed-precision's
  // bwc.keep_f32), for the report.
  Calibration cal;
  cal.summary = calibration;
  cal.enabled = !o.calibrate.empty();
  program.walk([&](Operation *op) {
    if (auto reason = op->getAttrOfType<StringAttr>("bwc.keep_f32"))
      cal.kept.push_back({describeOp(op), reason.str()});
  });

  // Fusion decides the kernels, then one function per kernel.
  graphTime.stop();
  PassManager kernels(&ctx);
  TimingScope kernelsTime = root.nest("fusion");
  kernels.enableTiming(kernelsTime);
  if (o.fusion == "default" && failed(addPipeline(kernels, "bwc-fuse", loc)))
    return failure();
  if (failed(kernels.run(module)))
    return failure();
  ProgramCost compiled = programCost(program);
  // One function per kernel, then the arena plan (verified).
  kernelsTime.stop();
  PassManager outline(&ctx);
  TimingScope outlineTime = root.nest("outline, remat, plan");
  outline.enableTiming(outlineTime);
  outline.addPass(createOutlineKernelsPass());
  if (!o.memoryBudget.empty()) {
    RematerializePassOptions options;
    options.memoryBudget = o.memoryBudget;
    options.strategy = o.rematStrategy;
    options.epilogues = true; // as bwc-plan-buffers below
    outline.addPass(createRematerializePass(options));
  }
  // Launches one branch of a runtime If needs are guarded before the plan.
  // Every code generator computes an output's epilogue where it stores
  // the element, so an update fused into a contraction's or reduction's
  // epilogue may be written in place (bwc-plan-buffers' `epilogues`): the
  // elemental drivers in the storing thread or loop iteration, the linalg
  // path in an elementwise loop after the contraction has accumulated in
  // a buffer of its own (test/Target/CPU/epilogue-accumulator.mlir).
  if (failed(addPipeline(outline,
                         "bwc-guard-branches,bwc-plan-buffers{epilogues=true},"
                         "bwc-verify-plan",
                         loc)) ||
      failed(outline.run(module)))
    return failure();
  Memory memory = readMemory(program);
  // bwc-rematerialize plans as bwc-plan-buffers does; checked all the same.
  if (memory.rematBudget && memory.arena > memory.rematBudget)
    return program.emitError()
           << "memory budget " << memory.rematBudget
           << " B cannot be met: the planned arena is " << memory.arena << " B";
  outlineTime.stop();
  TimingScope artifactTime = root.nest("artifact program");
  FailureOr<::bwc::rt::Artifact> artifact = buildArtifactProgram(program);
  artifactTime.stop();
  if (failed(artifact))
    return failure();
  CompileResult result;
  result.artifact = std::move(*artifact);
  result.artifact.target = o.target;
  program.erase();

  // Tuning (export, import, --tune) starts from the untuned configuration.
  auto cudaOptions = [&] {
    CudaOptions cuda = cudaOptionsOf(o);
    cuda.tuningCache.clear();
    cuda.tuneGpu.clear();
    return cuda;
  };
  std::string tuneGpu = o.tuneGpu;
  if (!o.tuneExport.empty() &&
      failed(exportTuningBundle(module, cudaOptions(), o.tuneExport)))
    return failure();
  if (!o.tuneImport.empty()) {
    FailureOr<std::string> gpu = importTuningResults(
        &ctx, o.tuneImport, o.tuningCache, TuneOptions().margin);
    if (failed(gpu))
      return failure();
    if (tuneGpu.empty())
      tuneGpu = *gpu;
  }
  if (o.tune) {
    TuneOptions options;
    options.cuda = cudaOptions();
    options.cachePath = o.tuningCache;
    FailureOr<std::string> gpu = tuneKernels(module, options);
    if (failed(gpu))
      return failure();
    tuneGpu = *gpu;
  }
  CompileOptions resolved = o;
  resolved.tuneGpu = tuneGpu;
  // The report's coalescing figures: only an artifact carries a report
  // (--emit=llvm, ptx, gpu and sim print code alone), so the other emits
  // skip the access model's replay of every kernel's configuration.
  FailureOr<Coalescing> coalescing = Coalescing();
  if (o.emit == "artifact") {
    TimingScope coalescingTime = root.nest("access model");
    coalescing = measureCoalescing(module, resolved);
    coalescingTime.stop();
    if (failed(coalescing))
      return failure();
  }

  if (o.target == "cuda") {
    // Kernels: gpu.func per kernel, PTX, cubin when ptxas is installed.
    CudaOptions cuda = cudaOptionsOf(resolved);
    cuda.cubin = o.emit == "artifact";
    cuda.gpuModuleFile = o.gpuModuleFile;
    std::string gpuText, simText;
    cuda.sim = o.emit == "sim" || (o.emit == "artifact" && o.cudaSim == "on");
    if (o.emit == "sim")
      cuda.simModule = &simText;
    TimingScope cudaTime = root.nest("CUDA code (PTX, cubin, cuda-sim host)");
    if (failed(emitCudaCode(module, result.artifact, cuda,
                            o.emit == "gpu" ? &gpuText : nullptr)))
      return failure();
    if (o.emit != "artifact") {
      result.emitted = o.emit == "ptx"   ? result.artifact.code
                       : o.emit == "sim" ? simText
                                         : gpuText;
      return result;
    }
  } else {
    // Kernels: buffer ABI, then down to LLVM and a shared object.
    PassManager lower(&ctx);
    TimingScope lowerTime = root.nest("CPU lowering");
    lower.enableTiming(lowerTime);
    if (o.codegen == "elemental")
      buildCPUElementalLoweringPipeline(lower, o.elementalConv == "gemm");
    else
      buildCPULoweringPipeline(lower);
    if (failed(lower.run(module)) || failed(addPackedEntryPoints(module)))
      return failure();
    lowerTime.stop();
    if (o.emit == "llvm") {
      TimingScope llvmTime = root.nest("CPU code (LLVM IR)");
      FailureOr<std::string> ir = emitLLVMIR(module);
      if (failed(ir))
        return failure();
      result.emitted = std::move(*ir);
      return result;
    }
    TimingScope objectTime = root.nest("CPU code (LLVM, shared object)");
    FailureOr<std::string> code = emitSharedObject(module);
    if (failed(code))
      return failure();
    result.artifact.code = std::move(*code);
  }

  llvm::json::Value json =
      reportToJson(unfused, compiled, memory, *coalescing, cal, o);
  llvm::raw_string_ostream(result.reportJson) << llvm::formatv("{0:2}", json);
  result.artifact.report = result.reportJson;
  llvm::raw_string_ostream text(result.reportText);
  printReport(unfused, compiled, memory, *coalescing, cal, o, text);
  return result;
}

FailureOr<CompileResult> mlir::bwc::compileModule(ModuleOp module,
                                                  const CompileOptions &o) {
  DefaultTimingManager timing;
  timing.setEnabled(o.timing);
  TimingScope root = timing.getRootScope();
  return compileModuleTimed(module, o, root);
}

FailureOr<CompileResult> mlir::bwc::compile(const ModelSource &source,
                                            const CompileOptions &o,
                                            llvm::raw_ostream &diagnostics) {
  auto fail = [&](const std::string &message) -> FailureOr<CompileResult> {
    diagnostics << "error: " << message << "\n";
    diagnostics.flush();
    return failure();
  };
  if (std::string err = validateOptions(o); !err.empty())
    return fail(err);
  if (source.path.empty() && source.bytes.empty())
    return fail("no model given (a path or the model's bytes)");

  using Format = ModelSource::Format;
  Format format = source.format;
  StringRef path = source.path;
  if (format == Format::automatic)
    format = path.ends_with(".onnx")       ? Format::onnx
             : path.ends_with(".onnxtext") ? Format::onnxText
                                           : Format::mlir;
  OnnxImportOptions importOptions;
  if (format != Format::mlir) {
    for (const std::string &s : o.inputShapes)
      if (std::string err = parseInputShape(s, importOptions); !err.empty())
        return fail("--input-shape: " + err);
    for (const std::string &s : o.inputValues)
      if (std::string err = parseInputValue(s, importOptions); !err.empty())
        return fail("--input-value: " + err);
    importOptions.inputValueBytes = o.inputValueBytes;
    if (!o.train.empty())
      importOptions.trainable = o.trainable;
  } else if (!o.inputShapes.empty() || !o.inputValues.empty() ||
             !o.inputValueBytes.empty()) {
    return fail("--input-shape and --input-value apply to ONNX models only");
  }

  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  // A failing pass's error names the culprit; the whole function printed
  // after it ("see current operation") would bury that for a user.
  ctx.printOpOnDiagnostic(false);
  // Diagnostics are printed as they come, with the source line for MLIR
  // input; the context is single-threaded per compile unless the pass
  // managers fan out, which the handler tolerates.
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &ctx, diagnostics);

  // --timing: the phases and passes, printed to stderr when the compile
  // ends (MLIR's timing manager, as bwc-opt's --mlir-timing).
  DefaultTimingManager timing;
  timing.setEnabled(o.timing);
  TimingScope root = timing.getRootScope();
  TimingScope importTime = root.nest("import");
  std::string name = path.empty() ? std::string("<model>") : path.str();
  // Optimizer steps from ONNX keep the model to write the trained weights
  // back into.
  std::string modelCopy, optimizer;
  double lr = 0;
  if (format != Format::mlir && o.emit == "artifact" &&
      parseOptimizer(o.train, optimizer, lr))
    importOptions.modelCopy = &modelCopy;
  OwningOpRef<ModuleOp> module;
  if (format == Format::mlir) {
    std::unique_ptr<llvm::MemoryBuffer> buffer;
    if (!source.bytes.empty()) {
      buffer = llvm::MemoryBuffer::getMemBufferCopy(source.bytes, name);
    } else {
      auto file = llvm::MemoryBuffer::getFile(path);
      if (!file)
        return fail("cannot open '" + name + "': " + file.getError().message());
      buffer = std::move(*file);
    }
    sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
    module = parseSourceFile<ModuleOp>(sourceMgr, &ctx);
  } else if (!source.bytes.empty()) {
    SmallString<256> dir(path);
    llvm::sys::path::remove_filename(dir);
    module =
        importOnnxBuffer(source.bytes, format == Format::onnxText, name,
                         dir.empty() ? "." : dir.str(), &ctx, importOptions);
  } else {
    module = importOnnxFile(path, &ctx, importOptions);
  }
  if (!module)
    return failure();
  importTime.stop();
  FailureOr<CompileResult> result = compileModuleTimed(*module, o, root);
  if (succeeded(result) && !modelCopy.empty() &&
      !result->artifact.state.empty()) {
    // The trained model bwc-run --save-weights OUT.onnx writes
    // (WeightsTemplate.h).
    std::vector<TrainedTensor> state;
    for (const ::bwc::rt::StateTensor &t : result->artifact.state)
      state.push_back({t.desc.name, int32_t(t.desc.dtype), t.desc.shape});
    std::string error;
    if (!makeWeightsTemplate(modelCopy, state, result->artifact.modelTemplate,
                             result->artifact.modelParameters, error))
      return fail("the model to save trained weights into: " + error);
  }
  diagnostics.flush();
  return result;
}
