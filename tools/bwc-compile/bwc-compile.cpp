//===- bwc-compile.cpp - ONNX or bwc MLIR to an artifact ------------------===//
//
// Runs the whole pipeline: import, graph passes, kernel outlining, the
// launch program, kernel lowering and code generation, and writes one
// artifact file that bwc-run executes.
//
//===----------------------------------------------------------------------===//
#include "bwc/Import/ONNX/Importer.h"
#include "bwc/InitAll.h"
#include "bwc/Target/ArtifactBuilder.h"
#include "bwc/Target/CPU/Pipeline.h"
#include "bwc/Target/CPU/SharedObject.h"
#include "bwc/Transforms/Passes.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
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
static cl::list<std::string>
    inputShapes("input-shape", cl::desc("Fix an input's shape: NAME=D0xD1x..."),
                cl::value_desc("NAME=DIMS"));
static cl::list<std::string>
    inputValues("input-value",
                cl::desc("Bind an input to a constant (shape tensors): "
                         "NAME=FILE.pb"),
                cl::value_desc("NAME=FILE"));
static cl::opt<bool> report("report",
                            cl::desc("Print the per-kernel static report"));
static cl::opt<std::string> reportJson("report-json",
                                       cl::desc("Write the report as JSON"),
                                       cl::value_desc("file"));

namespace {

llvm::json::Value reportToJson(const ::bwc::rt::Artifact &a) {
  llvm::json::Array kernels;
  uint64_t read = 0, written = 0, flops = 0;
  for (const auto &launch : a.launches) {
    const auto &k = a.kernels[launch.kernel];
    read += k.bytesRead;
    written += k.bytesWritten;
    flops += k.flops;
    kernels.push_back(llvm::json::Object{{"name", k.name},
                                         {"ops", k.ops},
                                         {"bytes_read", k.bytesRead},
                                         {"bytes_written", k.bytesWritten},
                                         {"flops", k.flops}});
  }
  return llvm::json::Object{
      {"target", a.target},
      {"totals", llvm::json::Object{{"kernels", (int64_t)a.launches.size()},
                                    {"bytes_read", read},
                                    {"bytes_written", written},
                                    {"flops", flops}}},
      {"kernels", std::move(kernels)}};
}

void printReport(const ::bwc::rt::Artifact &a, llvm::raw_ostream &os) {
  os << llvm::format("%-40s %14s %14s %12s  %s\n", "kernel", "bytes read",
                     "bytes written", "flops", "ops");
  uint64_t read = 0, written = 0;
  for (const auto &launch : a.launches) {
    const auto &k = a.kernels[launch.kernel];
    read += k.bytesRead;
    written += k.bytesWritten;
    os << llvm::format("%-40s %14llu %14llu %12llu  %s\n", k.name.c_str(),
                       (unsigned long long)k.bytesRead,
                       (unsigned long long)k.bytesWritten,
                       (unsigned long long)k.flops, k.ops.c_str());
  }
  os << llvm::format("total: %zu kernels, %llu bytes read, %llu bytes "
                     "written\n",
                     a.launches.size(), (unsigned long long)read,
                     (unsigned long long)written);
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
  if (target != "cpu" && target != "cuda") {
    llvm::errs() << "bwc-compile: unknown --target '" << target
                 << "' (expected cpu or cuda)\n";
    return 1;
  }
  if (target == "cuda") {
    llvm::errs() << "bwc-compile: --target=cuda is not yet supported (the "
                    "CUDA backend is milestone M1.6)\n";
    return 1;
  }

  DialectRegistry registry;
  mlir::bwc::registerAllDialects(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &ctx);

  OwningOpRef<ModuleOp> module = load(ctx);
  if (!module)
    return 1;

  // Graph passes, then one kernel per launch.
  PassManager graph(&ctx);
  graph.addPass(createCanonicalizerPass());
  graph.addPass(createCSEPass());
  graph.addPass(mlir::bwc::createOutlineKernelsPass());
  if (failed(graph.run(*module)))
    return 1;

  auto program = module->lookupSymbol<func::FuncOp>("main");
  if (!program) {
    module->emitError() << "expects a program function named 'main'";
    return 1;
  }
  FailureOr<::bwc::rt::Artifact> artifact = mlir::bwc::buildArtifactProgram(program);
  if (failed(artifact))
    return 1;
  artifact->target = target;
  program.erase();

  // Kernels: buffer ABI, then down to LLVM and a shared object.
  PassManager lower(&ctx);
  mlir::bwc::buildCPULoweringPipeline(lower);
  if (failed(lower.run(*module)) ||
      failed(mlir::bwc::addPackedEntryPoints(*module)))
    return 1;
  FailureOr<std::string> code = mlir::bwc::emitSharedObject(*module);
  if (failed(code))
    return 1;
  artifact->code = std::move(*code);

  llvm::json::Value json = reportToJson(*artifact);
  std::string jsonText;
  llvm::raw_string_ostream(jsonText) << llvm::formatv("{0:2}", json);
  artifact->report = jsonText;
  if (report)
    printReport(*artifact, llvm::outs());
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
