//===- bwc-compile.cpp - ONNX or bwc MLIR to an artifact ------------------===//
//
// Runs the whole pipeline: import, graph passes, kernel outlining, the
// launch program, kernel lowering and code generation, and writes one
// artifact file that bwc-run executes.
//
//===----------------------------------------------------------------------===//
#include "bwc/Analysis/AccessModel.h"
#include "bwc/Analysis/CostModel.h"
#include "bwc/Import/ONNX/Importer.h"
#include "bwc/InitAll.h"
#include "bwc/Target/ArtifactBuilder.h"
#include "bwc/Target/CPU/Pipeline.h"
#include "bwc/Target/CPU/SharedObject.h"
#include "bwc/Target/CUDA/CudaTarget.h"
#include "bwc/Target/CUDA/Tuner.h"
#include "bwc/Transforms/Passes.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
namespace cl = llvm::cl;

static cl::opt<std::string> inputFile(cl::Positional,
                                      cl::desc("<model.onnx|model.mlir>"),
                                      cl::Required);
static cl::opt<std::string> outputFile("o", cl::desc("Output artifact"),
                                       cl::value_desc("file"), cl::Required);
static cl::opt<std::string> target("target", cl::desc("cpu or cuda"),
                                   cl::init("cpu"));
static cl::opt<std::string>
    emit("emit",
         cl::desc("artifact (default); with --target=cuda also ptx (the PTX "
                  "of the whole program), gpu (the gpu.module before "
                  "lowering) or sim (the kernels lowered for cuda-sim, as "
                  "MLIR)"),
         cl::init("artifact"));
static cl::opt<int64_t> smCount("sm-count",
                                cl::desc("CUDA: SMs the grids are sized for"),
                                cl::init(132));
static cl::opt<std::string>
    codegen("codegen",
            cl::desc("CPU kernel code generation: linalg (default) or "
                     "elemental (the emitter the CUDA target shares)"),
            cl::init("linalg"));
static cl::opt<std::string> elementalConv(
    "elemental-conv",
    cl::desc("With --codegen=elemental: direct (default: each output sums "
             "its window) or gemm (float convolutions with groups 1 through "
             "the implicit-GEMM view the CUDA driver stages: its CPU check)"),
    cl::init("direct"));
static cl::list<std::string>
    inputShapes("input-shape", cl::desc("Fix an input's shape: NAME=D0xD1x..."),
                cl::value_desc("NAME=DIMS"));
static cl::list<std::string>
    inputValues("input-value",
                cl::desc("Bind an input to a constant (shape tensors): "
                         "NAME=FILE.pb"),
                cl::value_desc("NAME=FILE"));
static cl::opt<std::string>
    fusion("fusion", cl::desc("none: one kernel per op; default: bwc-fuse"),
           cl::init("default"));
static cl::opt<std::string>
    precision("precision",
              cl::desc("fp32, or fp16/bf16: bwc-mixed-precision rewrites "
                       "the graph (inputs and outputs stay f32)"),
              cl::init("fp32"));
static cl::opt<std::string> ioPrecision(
    "io-precision",
    cl::desc("fp32 (default): f32 inputs and outputs keep their type; the "
             "--precision value: they take it too"),
    cl::init("fp32"));
static cl::opt<std::string>
    layout("layout",
           cl::desc("auto (default): bwc-select-layout makes a convolution "
                    "chain channels-last where the access model says it "
                    "pays; nchw: keep channels-first; nhwc: every chain "
                    "channels-last"),
           cl::init("auto"));
static cl::opt<double> peakBw("peak-bw",
                              cl::desc("Peak DRAM bandwidth for time "
                                       "estimates, GB/s"),
                              cl::init(mlir::bwc::kDefaultPeakGBps));
static cl::opt<std::string> memoryBudget(
    "memory-budget",
    cl::desc("Largest arena: bytes, or with a KiB/MiB/GiB suffix; "
             "bwc-rematerialize recomputes kernels to meet it"),
    cl::value_desc("BYTES"));
static cl::opt<std::string>
    rematStrategy("remat-strategy",
                  cl::desc("With --memory-budget: greedy, checkpoints or "
                           "best (both, the cheaper one)"),
                  cl::init("best"));
static cl::opt<std::string>
    tile("tile",
         cl::desc("default: bwc-tile picks each CUDA kernel's configuration "
                  "with the access model; none: bwc-configure-kernels' "
                  "defaults (also the configuration the report's coalescing "
                  "figures assume, for either target)"),
         cl::init("default"));
static cl::opt<std::string> tileEmitters(
    "tile-emitters",
    cl::desc("The emitters bwc-tile may choose, comma-separated (default: "
             "those the CUDA target has; see docs/passes/bwc-tile.md)"));
static cl::opt<std::string> convKernels(
    "conv-kernels",
    cl::desc("CUDA: gemm (default: direct convolutions with groups 1 as "
             "implicit GEMMs, contraction_tiled) or direct (one thread per "
             "output, the kernels before 2026-11-30)"),
    cl::init("gemm"));
static cl::opt<std::string> cudaSim(
    "cuda-sim",
    cl::desc("CUDA: on (default: the artifact also carries the kernels "
             "lowered for the host, which bwc-run --device=cuda-sim runs) "
             "or off"),
    cl::init("on"));
static cl::opt<std::string> gpuModuleFile(
    "gpu-module",
    cl::desc("CUDA: use the gpu.module in FILE (as --emit=gpu prints it, "
             "possibly edited) instead of the generated kernels"),
    cl::value_desc("FILE"));
static cl::opt<std::string> tensorCores(
    "tensor-cores",
    cl::desc("CUDA: on (default: f16/bf16 matmuls and implicit-GEMM "
             "convolutions on mma.sync) or off (the f32 tiling)"),
    cl::init("on"));
static cl::opt<bool>
    tune("tune", cl::desc("CUDA: time a few configurations of every distinct "
                          "kernel on GPU 0 and merge the fastest into "
                          "--tuning-cache (needs a GPU)"));
static cl::opt<std::string> tuningCache(
    "tuning-cache",
    cl::desc("CUDA: JSON file of measured kernel configurations by GPU and "
             "kernel signature; read by every compile, written by --tune"),
    cl::value_desc("file"));
static cl::opt<std::string> tuneExport(
    "tune-export",
    cl::desc("CUDA: write every distinct kernel's candidate configurations, "
             "as PTX, into DIR for bwc-tune-run on a GPU machine"),
    cl::value_desc("dir"));
static cl::opt<std::string> tuneImport(
    "tune-import",
    cl::desc("CUDA: merge the times bwc-tune-run wrote to DIR/results.tsv "
             "into --tuning-cache, then compile with it"),
    cl::value_desc("dir"));
static cl::opt<std::string>
    tuneGpu("tune-gpu",
            cl::desc("Without --tune: the GPU whose --tuning-cache entries to "
                     "use (default: the cache's only GPU)"),
            cl::value_desc("name"));
static cl::opt<bool> report("report",
                            cl::desc("Print the per-kernel static report"));
static cl::opt<std::string> reportJson("report-json",
                                       cl::desc("Write the report as JSON"),
                                       cl::value_desc("file"));

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

/// Configures a copy of the outlined kernels as the CUDA target does
/// (bwc-configure-kernels, then bwc-tile unless --tile=none) and runs the
/// access model on each, whatever the target.
FailureOr<Coalescing> measureCoalescing(ModuleOp module) {
  OwningOpRef<ModuleOp> copy = module.clone();
  PassManager pm(module.getContext());
  mlir::bwc::ConfigureKernelsPassOptions configure;
  configure.smCount = smCount;
  configure.convGemm = convKernels == "gemm";
  configure.tensorCores = tensorCores == "on";
  pm.addPass(mlir::bwc::createConfigureKernelsPass(configure));
  if (tile == "default") {
    mlir::bwc::TilePassOptions options;
    options.smCount = smCount;
    options.convGemm = convKernels == "gemm";
    options.tensorCores = tensorCores == "on";
    if (!tileEmitters.empty())
      options.emitters = tileEmitters;
    pm.addPass(mlir::bwc::createTilePass(options));
  }
  if (!tuningCache.empty()) {
    mlir::bwc::ApplyTuningPassOptions options;
    options.cache = tuningCache;
    options.gpu = tuneGpu;
    pm.addPass(mlir::bwc::createApplyTuningPass(options));
  }
  if (failed(pm.run(*copy)))
    return failure();
  Coalescing c;
  std::vector<mlir::bwc::KernelCoalescing> all;
  for (auto kernel : copy->getOps<func::FuncOp>()) {
    auto config = kernel->getAttrOfType<DictionaryAttr>("bwc.config");
    if (!config)
      continue;
    FailureOr<mlir::bwc::KernelCoalescing> k =
        mlir::bwc::analyzeCoalescing(kernel, config);
    if (failed(k))
      return failure();
    c.kernels[kernel.getName()] = k->efficiency();
    all.push_back(std::move(*k));
  }
  c.total = mlir::bwc::programCoalescing(all);
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
  return m;
}

llvm::json::Object costToJson(const mlir::bwc::ProgramCost &p) {
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
       llvm::json::Object{
           {"kernels", (int64_t)p.kernels.size()},
           {"bytes_read", p.bytesRead},
           {"bytes_written", p.bytesWritten},
           {"bytes", p.bytes()},
           {"flops", p.flops},
           {"intermediate_bytes", p.intermediateBytes},
           {"estimated_us", p.estimatedSeconds(peakBw) * 1e6}}},
      {"kernels", std::move(kernels)}};
}

/// The report: the compiled program's figures at the top level (totals,
/// kernels), the unfused baseline beside them and the ratios.
llvm::json::Value reportToJson(const mlir::bwc::ProgramCost &unfused,
                               const mlir::bwc::ProgramCost &compiled,
                               const Memory &memory,
                               const Coalescing &coalescing) {
  llvm::json::Object root = costToJson(compiled);
  for (auto [i, k] : llvm::enumerate(*root.getArray("kernels")))
    if (std::optional<double> c = coalescing.of(i))
      (*k.getAsObject())["coalescing"] = *c;
  (*root.getObject("totals"))["coalescing_efficiency"] = coalescing.total;
  root["tile"] = std::string(tile);
  root["memory"] = llvm::json::Object{
      {"arena_bytes", memory.arena},
      {"lower_bound_bytes", memory.lowerBound},
      {"no_reuse_bytes", memory.noReuse},
      {"planner", memory.planner}};
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
  root["target"] = std::string(target);
  root["fusion"] = std::string(fusion);
  root["precision"] = std::string(precision);
  root["peak_gbps"] = peakBw.getValue();
  root["unfused"] = costToJson(unfused);
  auto ratio = [](double a, double b) { return b ? a / b : 0.0; };
  root["ratios"] = llvm::json::Object{
      {"kernels", ratio(unfused.kernels.size(), compiled.kernels.size())},
      {"bytes", ratio(unfused.bytes(), compiled.bytes())}};
  return std::move(root);
}

void printTable(StringRef title, const mlir::bwc::ProgramCost &p,
                llvm::raw_ostream &os,
                const Coalescing *coalescing = nullptr) {
  os << "== " << title << "\n";
  os << llvm::format("%-4s %-18s %13s %13s %13s %8s %10s  %s\n", "#",
                     "kernel", "bytes read", "bytes written", "flops",
                     "flop/B", "coalescing", "ops");
  for (auto [i, k] : llvm::enumerate(p.kernels)) {
    std::optional<double> c = coalescing ? coalescing->of(i) : std::nullopt;
    os << llvm::format("%-4zu %-18s %13llu %13llu %13llu %8.2f %10s  %s\n", i,
                       k.name.c_str(), (unsigned long long)k.bytesRead,
                       (unsigned long long)k.bytesWritten,
                       (unsigned long long)k.flops, k.intensity(),
                       c ? llvm::formatv("{0:f3}", *c).str().c_str() : "-",
                       k.ops.c_str());
  }
}

void printReport(const mlir::bwc::ProgramCost &unfused,
                 const mlir::bwc::ProgramCost &compiled, const Memory &memory,
                 const Coalescing &coalescing, llvm::raw_ostream &os) {
  printTable("unfused (one kernel per op)", unfused, os);
  printTable(fusion == "none" ? "compiled (--fusion=none)" : "fused", compiled,
             os, &coalescing);
  auto line = [&](StringRef what, const mlir::bwc::ProgramCost &p) {
    os << llvm::format("%-10s %6zu kernels %14llu DRAM bytes %14llu "
                       "intermediate bytes %10.1f us at %.0f GB/s\n",
                       what.str().c_str(), p.kernels.size(),
                       (unsigned long long)p.bytes(),
                       (unsigned long long)p.intermediateBytes,
                       p.estimatedSeconds(peakBw) * 1e6, peakBw.getValue());
  };
  os << "== totals\n";
  line("unfused", unfused);
  line(fusion == "none" ? "compiled" : "fused", compiled);
  if (compiled.kernels.size() && compiled.bytes())
    os << llvm::format("ratio      %6.2fx fewer kernels, %.2fx fewer DRAM "
                       "bytes (%.1f%% less)\n",
                       double(unfused.kernels.size()) / compiled.kernels.size(),
                       double(unfused.bytes()) / compiled.bytes(),
                       100.0 * (1.0 - double(compiled.bytes()) /
                                          std::max<uint64_t>(1, unfused.bytes())));
  os << llvm::format("coalescing %.3f (bytes-weighted, CUDA configuration, "
                     "--tile=%s)\n",
                     coalescing.total, tile.c_str());
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
  if (memory.rematBudget)
    os << "== rematerialization (budget " << memory.rematBudget << " bytes, "
       << memory.rematStrategy << ")\n"
       << llvm::format("arena before %lld bytes, after %lld bytes; "
                       "recomputed_ops %lld, extra_flops %lld (%.1f%% of "
                       "%llu), extra_bytes %lld\n",
                       (long long)memory.rematArenaBefore,
                       (long long)memory.arena, (long long)memory.rematOps,
                       (long long)memory.rematFlops,
                       100.0 * ratio(memory.rematFlops, compiled.flops),
                       (unsigned long long)compiled.flops,
                       (long long)memory.rematBytes);
}

OwningOpRef<ModuleOp> load(MLIRContext &ctx) {
  StringRef path = inputFile;
  if (path.ends_with(".onnx") || path.ends_with(".onnxtext")) {
    mlir::bwc::OnnxImportOptions options;
    for (const std::string &s : inputShapes)
      if (std::string err = mlir::bwc::parseInputShape(s, options); !err.empty()) {
        llvm::errs() << "bwc-compile: --input-shape: " << err << "\n";
        return nullptr;
      }
    for (const std::string &s : inputValues)
      if (std::string err = mlir::bwc::parseInputValue(s, options); !err.empty()) {
        llvm::errs() << "bwc-compile: --input-value: " << err << "\n";
        return nullptr;
      }
    return mlir::bwc::importOnnxFile(path, &ctx, options);
  }
  if (!inputShapes.empty() || !inputValues.empty()) {
    llvm::errs() << "bwc-compile: --input-shape and --input-value apply to "
                    "ONNX models only\n";
    return nullptr;
  }
  return parseSourceFile<ModuleOp>(path, &ctx);
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  cl::ParseCommandLineOptions(argc, argv, "bwc compiler: ONNX to artifact\n");
  if (tile != "default" && tile != "none") {
    llvm::errs() << "bwc-compile: unknown --tile '" << tile
                 << "' (expected default or none)\n";
    return 1;
  }
  if (target != "cpu" && target != "cuda") {
    llvm::errs() << "bwc-compile: unknown --target '" << target
                 << "' (expected cpu or cuda)\n";
    return 1;
  }
  if (cudaSim != "on" && cudaSim != "off") {
    llvm::errs() << "bwc-compile: --cuda-sim expects on or off but got '"
                 << cudaSim << "'\n";
    return 1;
  }
  if (tensorCores != "on" && tensorCores != "off") {
    llvm::errs() << "bwc-compile: --tensor-cores expects on or off but got '"
                 << tensorCores << "'\n";
    return 1;
  }
  if (convKernels != "gemm" && convKernels != "direct") {
    llvm::errs() << "bwc-compile: --conv-kernels expects gemm or direct but "
                    "got '"
                 << convKernels << "'\n";
    return 1;
  }
  if (elementalConv != "direct" && elementalConv != "gemm") {
    llvm::errs() << "bwc-compile: --elemental-conv expects direct or gemm but "
                    "got '"
                 << elementalConv << "'\n";
    return 1;
  }
  if (codegen != "linalg" && codegen != "elemental") {
    llvm::errs() << "bwc-compile: --codegen expects linalg or elemental but "
                    "got '"
                 << codegen << "'\n";
    return 1;
  }
  if (fusion != "none" && fusion != "default") {
    llvm::errs() << "bwc-compile: unknown --fusion '" << fusion
                 << "' (expected none or default)\n";
    return 1;
  }
  if (layout != "auto" && layout != "nchw" && layout != "nhwc") {
    llvm::errs() << "bwc-compile: unknown --layout '" << layout
                 << "' (expected auto, nchw or nhwc)\n";
    return 1;
  }
  if (precision != "fp32" && precision != "fp16" && precision != "bf16") {
    llvm::errs() << "bwc-compile: unknown --precision '" << precision
                 << "' (expected fp32, fp16 or bf16)\n";
    return 1;
  }
  if (ioPrecision != "fp32" && ioPrecision != precision) {
    llvm::errs() << "bwc-compile: --io-precision expects fp32 or the "
                    "--precision value '"
                 << precision << "' but got '" << ioPrecision << "'\n";
    return 1;
  }
  if (!(peakBw > 0)) {
    llvm::errs() << "bwc-compile: --peak-bw expects a positive GB/s figure\n";
    return 1;
  }
  if (emit != "artifact" &&
      !(target == "cuda" && (emit == "ptx" || emit == "gpu" ||
                             emit == "sim"))) {
    llvm::errs() << "bwc-compile: --emit expects artifact, or ptx, gpu or sim "
                    "with "
                    "--target=cuda, but got '"
                 << emit << "' for --target=" << target << "\n";
    return 1;
  }
  if (smCount < 1) {
    llvm::errs() << "bwc-compile: --sm-count expects a positive count\n";
    return 1;
  }
  if ((!tuneExport.empty() || !tuneImport.empty()) && target != "cuda") {
    llvm::errs() << "bwc-compile: --tune-export and --tune-import expect "
                    "--target=cuda but got --target="
                 << target << "\n";
    return 1;
  }
  if (!tuneImport.empty() && (tuningCache.empty() || tune)) {
    llvm::errs() << "bwc-compile: --tune-import expects --tuning-cache=FILE "
                    "and no --tune\n";
    return 1;
  }
  if ((tune || !tuningCache.empty() || !tuneGpu.empty()) && target != "cuda") {
    llvm::errs() << "bwc-compile: --tune, --tuning-cache and --tune-gpu "
                    "expect --target=cuda but got --target="
                 << target << "\n";
    return 1;
  }
  if ((tune || !tuneGpu.empty()) && tuningCache.empty()) {
    llvm::errs() << "bwc-compile: " << (tune ? "--tune" : "--tune-gpu")
                 << " expects --tuning-cache=FILE\n";
    return 1;
  }
  if (tune && !tuneGpu.empty()) {
    llvm::errs() << "bwc-compile: --tune-gpu expects no --tune (the GPU "
                    "being tuned names the entries) but got both\n";
    return 1;
  }

  DialectRegistry registry;
  mlir::bwc::registerAllDialects(registry);
  mlir::bwc::registerAllPasses();
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &ctx);

  OwningOpRef<ModuleOp> module = load(ctx);
  if (!module)
    return 1;

  // Graph passes; the unfused baseline is measured here.
  PassManager graph(&ctx);
  graph.addPass(createCanonicalizerPass());
  graph.addPass(createCSEPass());
  // Mixed precision before fusion, so that fusion places the casts and both
  // the unfused baseline and the fused program are in the chosen precision.
  if (precision != "fp32") {
    std::string options = "precision=" + precision;
    if (ioPrecision == precision)
      options += " low-io=true";
    if (failed(parsePassPipeline("bwc-mixed-precision{" + options + "}",
                                 graph, llvm::errs())))
      return 1;
    graph.addPass(createCSEPass());
  }
  // Layouts after precision (the access model prices element sizes), before
  // the unfused baseline, so both reports describe the same program.
  if (failed(parsePassPipeline("bwc-select-layout{mode=" + layout +
                                   " sm-count=" + std::to_string(smCount) +
                                   "},canonicalize,cse",
                               graph, llvm::errs())))
    return 1;
  if (failed(graph.run(*module)))
    return 1;
  auto program = module->lookupSymbol<func::FuncOp>("main");
  if (!program) {
    module->emitError() << "expects a program function named 'main'";
    return 1;
  }
  mlir::bwc::ProgramCost unfused = mlir::bwc::programCost(program);

  // Fusion decides the kernels, then one function per kernel.
  PassManager kernels(&ctx);
  if (fusion == "default" &&
      failed(parsePassPipeline("bwc-fuse", kernels, llvm::errs())))
    return 1;
  if (failed(kernels.run(*module)))
    return 1;
  mlir::bwc::ProgramCost compiled = mlir::bwc::programCost(program);
  // One function per kernel, then the arena plan (verified).
  PassManager outline(&ctx);
  outline.addPass(mlir::bwc::createOutlineKernelsPass());
  if (!memoryBudget.empty()) {
    mlir::bwc::RematerializePassOptions options;
    options.memoryBudget = memoryBudget;
    options.strategy = rematStrategy;
    outline.addPass(mlir::bwc::createRematerializePass(options));
  }
  if (failed(parsePassPipeline("bwc-plan-buffers,bwc-verify-plan", outline,
                               llvm::errs())) ||
      failed(outline.run(*module)))
    return 1;
  Memory memory = readMemory(program);
  // bwc-rematerialize plans as bwc-plan-buffers does; checked all the same.
  if (memory.rematBudget && memory.arena > memory.rematBudget) {
    program.emitError() << "memory budget " << memory.rematBudget
                        << " B cannot be met: the planned arena is "
                        << memory.arena << " B";
    return 1;
  }
  FailureOr<::bwc::rt::Artifact> artifact = mlir::bwc::buildArtifactProgram(program);
  if (failed(artifact))
    return 1;
  artifact->target = target;
  program.erase();
  if (!tuneExport.empty()) {
    mlir::bwc::CudaOptions cuda;
    cuda.smCount = smCount;
    cuda.tile = tile == "default";
    cuda.tileEmitters = tileEmitters;
    cuda.convGemm = convKernels == "gemm";
    cuda.tensorCores = tensorCores == "on";
    if (failed(mlir::bwc::exportTuningBundle(*module, cuda, tuneExport)))
      return 1;
  }
  if (!tuneImport.empty()) {
    FailureOr<std::string> gpu = mlir::bwc::importTuningResults(
        &ctx, tuneImport, tuningCache, mlir::bwc::TuneOptions().margin);
    if (failed(gpu))
      return 1;
    if (tuneGpu.empty())
      tuneGpu = *gpu;
  }
  if (tune) {
    mlir::bwc::TuneOptions options;
    options.cuda.smCount = smCount;
    options.cuda.tile = tile == "default";
    options.cuda.tileEmitters = tileEmitters;
    options.cuda.convGemm = convKernels == "gemm";
    options.cuda.tensorCores = tensorCores == "on";
    options.cachePath = tuningCache;
    FailureOr<std::string> gpu = mlir::bwc::tuneKernels(*module, options);
    if (failed(gpu))
      return 1;
    tuneGpu = *gpu;
  }
  FailureOr<Coalescing> coalescing = measureCoalescing(*module);
  if (failed(coalescing))
    return 1;

  if (target == "cuda") {
    // Kernels: gpu.func per kernel, PTX, cubin when ptxas is installed.
    mlir::bwc::CudaOptions cuda;
    cuda.smCount = smCount;
    cuda.cubin = emit == "artifact";
    cuda.tile = tile == "default";
    cuda.tileEmitters = tileEmitters;
    cuda.convGemm = convKernels == "gemm";
    cuda.tensorCores = tensorCores == "on";
    cuda.tuningCache = tuningCache;
    cuda.tuneGpu = tuneGpu;
    cuda.gpuModuleFile = gpuModuleFile;
    std::string gpuText, simText;
    cuda.sim = emit == "sim" || (emit == "artifact" && cudaSim == "on");
    if (emit == "sim")
      cuda.simModule = &simText;
    if (failed(mlir::bwc::emitCudaCode(*module, *artifact, cuda,
                                       emit == "gpu" ? &gpuText : nullptr)))
      return 1;
    if (emit != "artifact") {
      std::string err;
      auto out = openOutputFile(outputFile, &err);
      if (!out) {
        llvm::errs() << "bwc-compile: " << err << "\n";
        return 1;
      }
      out->os() << (emit == "ptx" ? artifact->code
                    : emit == "sim" ? simText
                                    : gpuText);
      out->keep();
      return 0;
    }
  } else {
    // Kernels: buffer ABI, then down to LLVM and a shared object.
    PassManager lower(&ctx);
    if (codegen == "elemental")
      mlir::bwc::buildCPUElementalLoweringPipeline(lower,
                                                   elementalConv == "gemm");
    else
      mlir::bwc::buildCPULoweringPipeline(lower);
    if (failed(lower.run(*module)) ||
        failed(mlir::bwc::addPackedEntryPoints(*module)))
      return 1;
    FailureOr<std::string> code = mlir::bwc::emitSharedObject(*module);
    if (failed(code))
      return 1;
    artifact->code = std::move(*code);
  }

  llvm::json::Value json = reportToJson(unfused, compiled, memory, *coalescing);
  std::string jsonText;
  llvm::raw_string_ostream(jsonText) << llvm::formatv("{0:2}", json);
  artifact->report = jsonText;
  if (report)
    printReport(unfused, compiled, memory, *coalescing, llvm::outs());
  if (!reportJson.empty()) {
    std::string err;
    auto out = openOutputFile(reportJson, &err);
    if (!out) {
      llvm::errs() << "bwc-compile: " << err << "\n";
      return 1;
    }
    out->os() << jsonText << "\n";
    out->keep();
  }
  std::string err;
  if (!::bwc::rt::writeArtifactFile(outputFile, *artifact, err)) {
    llvm::errs() << "bwc-compile: " << err << "\n";
    return 1;
  }
  return 0;
}
