//===- bwc-compile.cpp - ONNX or bwc MLIR to an artifact ------------------===//
//
// The command line over the compiler API (bwc/Compiler/Compiler.h): flags
// in, `compile`, the artifact (or --emit's text) and the report out.
//
//===----------------------------------------------------------------------===//
#include "bwc/Compiler/Compiler.h"
#include "bwc/Runtime/Signature.h"
#include "bwc/Version.h"

#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
namespace cl = llvm::cl;

// --help shows these groups and nothing else.
static cl::OptionCategory ioCategory("Input and output");
static cl::OptionCategory pipelineCategory("Pipeline (both targets)");
static cl::OptionCategory cudaCategory("Target: CUDA");
static cl::OptionCategory tuningCategory("Tuning (CUDA)");
static cl::OptionCategory trainingCategory("Training");

static cl::opt<std::string> inputFile(cl::Positional, cl::cat(ioCategory),
                                      cl::desc("<model.onnx|model.mlir>"),
                                      cl::Required);
static cl::opt<std::string> outputFile("o", cl::cat(ioCategory),
                                       cl::desc("Output artifact"),
                                       cl::value_desc("file"), cl::Required);
static cl::opt<std::string> target("target", cl::cat(ioCategory),
                                   cl::desc("cpu or cuda"), cl::init("cpu"));
static cl::opt<std::string>
    emit("emit", cl::cat(ioCategory),
         cl::desc("artifact (default); with --target=cuda also ptx (the PTX "
                  "of the whole program), gpu (the gpu.module before "
                  "lowering) or sim (the kernels lowered for cuda-sim, as "
                  "MLIR); with --target=cpu also llvm (the kernels' LLVM IR, "
                  "verified, before LLVM's optimizer)"),
         cl::init("artifact"));
static cl::opt<int64_t> smCount("sm-count", cl::cat(cudaCategory),
                                cl::desc("CUDA: SMs the grids are sized for"),
                                cl::init(132));
static cl::opt<std::string>
    codegen("codegen", cl::cat(pipelineCategory),
            cl::desc("CPU kernel code generation: linalg (default) or "
                     "elemental (the emitter the CUDA target shares)"),
            cl::init("linalg"));
static cl::opt<std::string> elementalConv(
    "elemental-conv", cl::cat(pipelineCategory),
    cl::desc("With --codegen=elemental: direct (default: each output sums "
             "its window) or gemm (float convolutions with groups 1 through "
             "the implicit-GEMM view the CUDA driver stages: its CPU check)"),
    cl::init("direct"));
static cl::list<std::string>
    inputShapes("input-shape", cl::cat(ioCategory),
                cl::desc("Fix an input's shape: NAME=D0xD1x..."),
                cl::value_desc("NAME=DIMS"));
static cl::list<std::string>
    inputValues("input-value", cl::cat(ioCategory),
                cl::desc("Bind an input to a constant (shape tensors): "
                         "NAME=FILE.pb"),
                cl::value_desc("NAME=FILE"));
static cl::opt<std::string>
    fusion("fusion", cl::cat(pipelineCategory),
           cl::desc("none: one kernel per op; default: bwc-fuse"),
           cl::init("default"));
static cl::opt<std::string>
    precision("precision", cl::cat(pipelineCategory),
              cl::desc("fp32, or fp16/bf16: bwc-mixed-precision rewrites "
                       "the graph (inputs and outputs stay f32)"),
              cl::init("fp32"));
static cl::list<std::string> calibrateDirs(
    "calibrate", cl::cat(pipelineCategory), cl::CommaSeparated,
    cl::desc("With --precision: run the fp32 program on these ONNX test "
             "cases (or data set folders) and keep in f32 what would "
             "overflow or underflow"),
    cl::value_desc("CASE_DIR,..."));
static cl::opt<double> calibrateTolerance(
    "calibrate-tolerance", cl::cat(pipelineCategory),
    cl::desc("--calibrate's limit on each output (relative L2 against "
             "fp32; default: 2.5e-3 fp16, 7.5e-3 bf16)"),
    cl::init(0.0));
static cl::opt<int64_t> calibrateTrials(
    "calibrate-trials", cl::cat(pipelineCategory),
    cl::desc("--calibrate's search compiles and runs at most N programs "
             "(default 64; what is left untried stays f32)"),
    cl::init(64), cl::value_desc("N"));
static cl::opt<std::string> ioPrecision(
    "io-precision", cl::cat(pipelineCategory),
    cl::desc("fp32 (default): f32 inputs and outputs keep their type; the "
             "--precision value: they take it too"),
    cl::init("fp32"));
static cl::opt<std::string>
    layout("layout", cl::cat(pipelineCategory),
           cl::desc("auto (default): bwc-select-layout makes a convolution "
                    "chain channels-last where the access model says it "
                    "pays; nchw: keep channels-first; nhwc: every chain "
                    "channels-last"),
           cl::init("auto"));
static cl::opt<std::string> padChannels(
    "pad-channels", cl::cat(pipelineCategory),
    cl::desc("auto (default, --target=cuda): bwc-pad-channels computes a "
             "channels-last convolution on output channels padded to a "
             "multiple of 32 where the access model says it pays; none: "
             "never"),
    cl::init("auto"));
static cl::opt<double> peakBw("peak-bw", cl::cat(pipelineCategory),
                              cl::desc("Peak DRAM bandwidth for time "
                                       "estimates, GB/s"),
                              cl::init(mlir::bwc::kDefaultPeakGBps));
static cl::opt<std::string>
    memoryBudget("memory-budget", cl::cat(pipelineCategory),
                 cl::desc("Largest arena: bytes, or with a KiB/MiB/GiB suffix; "
                          "bwc-rematerialize recomputes kernels to meet it"),
                 cl::value_desc("BYTES"));
static cl::opt<std::string>
    rematStrategy("remat-strategy", cl::cat(pipelineCategory),
                  cl::desc("With --memory-budget: greedy, checkpoints or "
                           "best (both, the cheaper one)"),
                  cl::init("best"));
static cl::opt<std::string>
    tile("tile", cl::cat(pipelineCategory),
         cl::desc("default: bwc-tile picks each CUDA kernel's configuration "
                  "with the access model; none: bwc-configure-kernels' "
                  "defaults (also the configuration the report's coalescing "
                  "figures assume, for either target)"),
         cl::init("default"));
static cl::opt<std::string> tileEmitters(
    "tile-emitters", cl::cat(pipelineCategory),
    cl::desc("The emitters bwc-tile may choose, comma-separated (default: "
             "those the CUDA target has; see docs/passes/bwc-tile.md)"));
static cl::opt<std::string> convKernels(
    "conv-kernels", cl::cat(cudaCategory),
    cl::desc("CUDA: auto (default: direct convolutions with groups 1 as "
             "implicit GEMMs, contraction_tiled, where their 64x64 tiles "
             "fill the SMs; one thread per output otherwise), gemm (every "
             "one an implicit GEMM) or direct (one thread per output)"),
    cl::init("auto"));
static cl::opt<std::string> cudaSim(
    "cuda-sim", cl::cat(cudaCategory),
    cl::desc("CUDA: on (default: the artifact also carries the kernels "
             "lowered for the host, which bwc-run --device=cuda-sim runs) "
             "or off"),
    cl::init("on"));
static cl::opt<std::string> gpuModuleFile(
    "gpu-module", cl::cat(cudaCategory),
    cl::desc("CUDA: use the gpu.module in FILE (as --emit=gpu prints it, "
             "possibly edited) instead of the generated kernels"),
    cl::value_desc("FILE"));
static cl::opt<std::string> tensorCores(
    "tensor-cores", cl::cat(cudaCategory),
    cl::desc("CUDA: on (default: f16/bf16 matmuls and implicit-GEMM "
             "convolutions on mma.sync) or off (the f32 tiling)"),
    cl::init("on"));
static cl::opt<bool>
    tune("tune", cl::cat(tuningCategory),
         cl::desc("CUDA: time a few configurations of every distinct "
                  "kernel on GPU 0 and merge the fastest into "
                  "--tuning-cache (needs a GPU)"));
static cl::opt<std::string> tuningCache(
    "tuning-cache", cl::cat(tuningCategory),
    cl::desc("CUDA: JSON file of measured kernel configurations by GPU and "
             "kernel signature; read by every compile, written by --tune"),
    cl::value_desc("file"));
static cl::opt<std::string> tuneExport(
    "tune-export", cl::cat(tuningCategory),
    cl::desc("CUDA: write every distinct kernel's candidate configurations, "
             "as PTX, into DIR for bwc-tune-run on a GPU machine"),
    cl::value_desc("dir"));
static cl::opt<std::string> tuneImport(
    "tune-import", cl::cat(tuningCategory),
    cl::desc("CUDA: merge the times bwc-tune-run wrote to DIR/results.tsv "
             "into --tuning-cache, then compile with it"),
    cl::value_desc("dir"));
static cl::opt<std::string>
    tuneGpu("tune-gpu", cl::cat(tuningCategory),
            cl::desc("Without --tune: the GPU whose --tuning-cache entries to "
                     "use (default: the cache's only GPU)"),
            cl::value_desc("name"));
static cl::opt<std::string> signKey(
    "sign-key", cl::cat(ioCategory),
    cl::desc("Sign the artifact with HMAC-SHA256 under the key in FILE (at "
             "least 32 bytes); bwc-run --verify-key checks it"),
    cl::value_desc("FILE"));
static cl::opt<std::string>
    train("train", cl::cat(trainingCategory),
          cl::desc("grad: compile the training step (bwc-grad): inputs are "
                   "the model's plus `target`, outputs `loss` and one "
                   "grad.<initializer> per parameter; sgd:LR or adam:LR: "
                   "the step also updates the parameters in place (bwc-run "
                   "--steps N)"),
          cl::value_desc("grad|sgd:LR|adam:LR"));
static cl::opt<std::string>
    loss("loss", cl::cat(trainingCategory),
         cl::desc("With --train: mse (default; target has the first "
                  "output's shape) or cross-entropy (target: i64 class "
                  "indices, classes along the last axis)"),
         cl::init("mse"));
static cl::opt<std::string> trainable(
    "trainable", cl::cat(trainingCategory),
    cl::desc("With --train: the float initializers to differentiate, a "
             "regular expression over whole names (default: all)"),
    cl::init(".*"), cl::value_desc("REGEX"));
static cl::opt<std::string> lossScale(
    "loss-scale", cl::cat(trainingCategory),
    cl::desc("With --train: auto (default: dynamic for sgd/adam steps with "
             "--precision=fp16, else none), none, dynamic (GradScaler-like, "
             "state) or a factor S (static)"),
    cl::init("auto"), cl::value_desc("auto|none|dynamic|S"));
static cl::opt<bool> report("report", cl::cat(ioCategory),
                            cl::desc("Print the per-kernel static report"));
static cl::opt<bool> timing(
    "timing", cl::cat(ioCategory),
    cl::desc("Print the wall time of each compile phase and pass to stderr"));
static cl::opt<std::string> reportJson("report-json", cl::cat(ioCategory),
                                       cl::desc("Write the report as JSON"),
                                       cl::value_desc("file"));

namespace {

bool writeFile(StringRef path, StringRef text) {
  std::string err;
  auto out = openOutputFile(path, &err);
  if (!out) {
    llvm::errs() << "bwc-compile: error: " << err << "\n";
    return false;
  }
  out->os() << text;
  out->keep();
  return true;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << mlir::bwc::compilerVersion() << "\n";
  });
  // --help lists bwc's options only (LLVM's back ends register hundreds).
  cl::HideUnrelatedOptions({&ioCategory, &pipelineCategory, &trainingCategory,
                            &cudaCategory, &tuningCategory});
  cl::ParseCommandLineOptions(
      argc, argv,
      "bwc compiler: an ONNX model (or bwc MLIR) to an artifact bwc-run "
      "executes\n\n  bwc-compile model.onnx -o model.bwc --target=cuda "
      "--report\n");

  mlir::bwc::CompileOptions o;
  o.target = target;
  o.emit = emit;
  o.smCount = smCount;
  o.codegen = codegen;
  o.elementalConv = elementalConv;
  o.inputShapes.assign(inputShapes.begin(), inputShapes.end());
  o.inputValues.assign(inputValues.begin(), inputValues.end());
  o.fusion = fusion;
  o.precision = precision;
  o.ioPrecision = ioPrecision;
  o.calibrate.assign(calibrateDirs.begin(), calibrateDirs.end());
  o.calibrateTolerance = calibrateTolerance;
  o.calibrateTrials = calibrateTrials;
  o.layout = layout;
  o.padChannels = padChannels;
  o.peakBw = peakBw;
  o.memoryBudget = memoryBudget;
  o.rematStrategy = rematStrategy;
  o.tile = tile;
  o.tileEmitters = tileEmitters;
  o.convKernels = convKernels;
  o.cudaSim = cudaSim;
  o.gpuModuleFile = gpuModuleFile;
  o.tensorCores = tensorCores;
  o.train = train;
  o.loss = loss;
  o.trainable = trainable;
  o.lossScale = lossScale;
  o.tune = tune;
  o.timing = timing;
  o.tuningCache = tuningCache;
  o.tuneExport = tuneExport;
  o.tuneImport = tuneImport;
  o.tuneGpu = tuneGpu;
  if (std::string err = mlir::bwc::validateOptions(o); !err.empty()) {
    llvm::errs() << "bwc-compile: " << err << "\n";
    return 1;
  }

  mlir::bwc::ModelSource source;
  source.path = inputFile;
  FailureOr<mlir::bwc::CompileResult> result =
      mlir::bwc::compile(source, o, llvm::errs());
  if (failed(result))
    return 1;
  if (o.emit != "artifact")
    return writeFile(outputFile, result->emitted) ? 0 : 1;
  if (report)
    llvm::outs() << result->reportText;
  if (!reportJson.empty() && !writeFile(reportJson, result->reportJson + "\n"))
    return 1;
  std::string err, bytes = ::bwc::rt::serialize(result->artifact);
  if (!signKey.empty()) {
    std::string key, signedBytes;
    if (!::bwc::rt::readSigningKey(signKey, key, err) ||
        !::bwc::rt::signArtifact(bytes, key, signedBytes, err)) {
      llvm::errs() << "bwc-compile: error: --sign-key: " << err << "\n";
      return 1;
    }
    bytes.swap(signedBytes);
  }
  if (!writeFile(outputFile, bytes))
    return 1;
  return 0;
}
