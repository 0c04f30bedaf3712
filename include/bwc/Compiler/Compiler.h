//===- Compiler.h - The whole pipeline as one call --------------*- C++ -*-===//
//
// The compiler as a library: a model (a file, bytes, or an imported module)
// and the options of bwc-compile in, the artifact, its report and the
// diagnostics out. bwc-compile, the Python module and the tests are thin
// shells over `compile` (docs/compiler-api.md), as iree-compile is over
// IREE's compiler API.
//
//===----------------------------------------------------------------------===//
#ifndef BWC_COMPILER_COMPILER_H
#define BWC_COMPILER_COMPILER_H

#include "bwc/Analysis/CostModel.h"
#include "bwc/Runtime/Artifact.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <map>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace mlir::bwc {

/// Every bwc-compile option, with its default; the values are the flags'
/// spellings (docs/compiler-api.md lists them).
struct CompileOptions {
  std::string target = "cpu";    ///< cpu or cuda
  /// artifact; with cuda also ptx, gpu, sim; with cpu also llvm
  std::string emit = "artifact";
  int64_t smCount = 132;
  std::string codegen = "linalg";       ///< CPU: linalg or elemental
  std::string elementalConv = "direct"; ///< direct or gemm
  /// --input-shape values, NAME=D0xD1x...
  std::vector<std::string> inputShapes;
  /// --input-value values, NAME=FILE.pb
  std::vector<std::string> inputValues;
  /// Input values as serialized ONNX TensorProtos, by input name.
  std::map<std::string, std::string> inputValueBytes;
  std::string fusion = "default"; ///< default or none
  std::string precision = "fp32"; ///< fp32, fp16 or bf16
  std::string ioPrecision = "fp32";
  /// With precision fp16/bf16: ONNX test cases or data set folders whose
  /// inputs the fp32 program runs on (CPU, in process) to record each
  /// value's range; bwc-mixed-precision keeps in f32 what would overflow or
  /// underflow (include/bwc/Compiler/Calibrate.h).
  std::vector<std::string> calibrate;
  /// --calibrate's validation limit (relative L2 per output); 0: a quarter of
  /// the conformance limit of the precision (2.5e-3 fp16, 7.5e-3 bf16).
  double calibrateTolerance = 0;
  /// --calibrate's validation search: at most this many trial programs.
  int64_t calibrateTrials = 64;
  std::string layout = "auto"; ///< auto, nchw or nhwc
  /// auto: bwc-pad-channels (CUDA) pads where the access model says it
  /// pays; none: never.
  std::string padChannels = "auto";
  double peakBw = kDefaultPeakGBps;
  /// Bytes, or with a KiB/MiB/GiB suffix; empty: no budget.
  std::string memoryBudget;
  std::string rematStrategy = "best";
  std::string tile = "default"; ///< default or none
  std::string tileEmitters;
  std::string convKernels = "auto";
  std::string cudaSim = "on";
  std::string gpuModuleFile;
  std::string tensorCores = "on";
  /// Training (docs/training.md): empty (inference), grad (the step
  /// returns the loss and one grad.<initializer> per parameter), or
  /// sgd:LR / adam:LR (the step returns the loss and updates the
  /// parameters in place, state that persists between runs).
  std::string train;
  std::string loss = "mse"; ///< with train: mse or cross-entropy
  /// With train: the initializers to differentiate (whole-name regex).
  std::string trainable = ".*";
  /// With train: none, dynamic or a positive factor; auto: dynamic for an
  /// optimizer step with --precision=fp16, none otherwise.
  std::string lossScale = "auto";
  bool tune = false;
  /// Prints the time of each phase and pass to stderr (--timing).
  bool timing = false;
  std::string tuningCache, tuneExport, tuneImport, tuneGpu;
};

/// Checks every option's value and their combinations; empty when valid,
/// else one message naming the flag ("--tile expects default or none but
/// got 'x'").
std::string validateOptions(const CompileOptions &options);

/// Where a model comes from: a file, or bytes in memory.
struct ModelSource {
  enum class Format { automatic, onnx, onnxText, mlir };
  /// A file path; its extension picks the format when `format` is automatic
  /// (.onnx, .onnxtext, else MLIR).
  std::string path;
  /// When not empty: the model itself (serialized ModelProto, ONNX text or
  /// MLIR text); `path` then only names it in diagnostics and is where
  /// external data files are looked up from (its folder).
  std::string bytes;
  Format format = Format::automatic;
};

struct CompileResult {
  /// The artifact (emit == "artifact").
  ::bwc::rt::Artifact artifact;
  /// The text --emit=ptx|gpu|sim|llvm prints (otherwise empty).
  std::string emitted;
  /// The report, as --report-json writes it and the artifact carries it.
  std::string reportJson;
  /// The report as --report prints it.
  std::string reportText;
};

/// Imports and compiles `source`. Every diagnostic, formatted as
/// "file:line:col: error: message", goes to `diagnostics` as it is emitted;
/// failure means at least one error was written there.
FailureOr<CompileResult> compile(const ModelSource &source,
                                 const CompileOptions &options,
                                 llvm::raw_ostream &diagnostics);

/// Compiles an imported module (a `main` program function in the bwc
/// dialect), which it consumes. Diagnostics go to its context's handler.
/// The context must hold the dialects registerAllDialects registers.
FailureOr<CompileResult> compileModule(ModuleOp module,
                                       const CompileOptions &options);

/// Parses --train's optimizer form "sgd:LR" or "adam:LR"; false for
/// anything else (grad included) or a learning rate that is not a positive
/// finite number.
bool parseOptimizer(StringRef train, std::string &optimizer, double &lr);

/// The compiler's version ("bwc 0.2.0 (MLIR 22)").
std::string compilerVersion();

} // namespace mlir::bwc

#endif // BWC_COMPILER_COMPILER_H
