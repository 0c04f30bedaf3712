//===- bwc-opt.cpp - bwc's optimizer driver -------------------------------===//
//
// MlirOptMain with bwc's dialects and passes. It also reads ONNX models
// (`.onnx`, or `.onnxtext` in ONNX's text format): the model is imported
// first, then every option of mlir-opt applies to the imported module.
//
//===----------------------------------------------------------------------===//
#include "bwc/Import/ONNX/Importer.h"
#include "bwc/InitAll.h"
#include "bwc/Version.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <limits>
#include <string>
#include <vector>

using namespace mlir;

static bool isOnnxPath(llvm::StringRef arg) {
  return !arg.starts_with("-") &&
         (arg.ends_with(".onnx") || arg.ends_with(".onnxtext"));
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  DialectRegistry registry;
  bwc::registerAllDialects(registry);
  bwc::registerOnnxImportDialects(registry);
  bwc::registerAllPasses();

  // --input-shape and --input-value belong to the importer, not to
  // mlir-opt's options.
  bwc::OnnxImportOptions importOptions;
  std::vector<char *> args;
  bool onnxInput = false, elideSet = false;
  std::vector<std::string> storage;
  for (int i = 0; i < argc; ++i) {
    llvm::StringRef a(argv[i]);
    if (a.consume_front("--input-shape=") || a.consume_front("-input-shape=")) {
      std::string err = bwc::parseInputShape(a, importOptions);
      if (!err.empty()) {
        llvm::errs() << "bwc-opt: --input-shape: " << err << "\n";
        return 1;
      }
      continue;
    }
    if (a.consume_front("--input-value=") || a.consume_front("-input-value=")) {
      std::string err = bwc::parseInputValue(a, importOptions);
      if (!err.empty()) {
        llvm::errs() << "bwc-opt: --input-value: " << err << "\n";
        return 1;
      }
      continue;
    }
    if (i > 0 && isOnnxPath(a))
      onnxInput = true;
    if (a.contains("mlir-elide-resource-strings-if-larger"))
      elideSet = true;
    args.push_back(argv[i]);
  }
  // Imported weights would flood the output: elide them unless asked.
  static char elide[] = "--mlir-elide-resource-strings-if-larger=64";
  if (onnxInput && !elideSet)
    args.push_back(elide);
  int newArgc = args.size();
  char **newArgv = args.data();

  llvm::cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "bwc-opt (bwc " << BWC_VERSION << ", MLIR/LLVM "
       << LLVM_VERSION_STRING << ")\n";
  });
  auto [inputFile, outputFile] = registerAndParseCLIOptions(
      newArgc, newArgv, "bwc optimizer driver\n", registry);
  MlirOptMainConfig config = MlirOptMainConfig::createFromCLOptions();

  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> buffer;
  if (isOnnxPath(inputFile)) {
    MLIRContext ctx(registry);
    llvm::SourceMgr sourceMgr;
    SourceMgrDiagnosticHandler handler(sourceMgr, &ctx);
    OwningOpRef<ModuleOp> module =
        bwc::importOnnxFile(inputFile, &ctx, importOptions);
    if (!module)
      return 1;
    std::string text;
    llvm::raw_string_ostream os(text);
    // The text is re-parsed below: keep every weight (the elision option
    // above is for the final output only).
    module->print(os, OpPrintingFlags().enableDebugInfo(false).elideLargeResourceString(
                          std::numeric_limits<int64_t>::max()));
    buffer = llvm::MemoryBuffer::getMemBufferCopy(text, inputFile);
  } else {
    buffer = openInputFile(inputFile, &errorMessage);
    if (!buffer) {
      llvm::errs() << errorMessage << "\n";
      return 1;
    }
  }
  auto output = openOutputFile(outputFile, &errorMessage);
  if (!output) {
    llvm::errs() << errorMessage << "\n";
    return 1;
  }
  if (failed(MlirOptMain(output->os(), std::move(buffer), registry, config)))
    return 1;
  output->keep();
  return 0;
}
