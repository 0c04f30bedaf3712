//===- Importer.h - ONNX models into the bwc dialect ------------*- C++ -*-===//
//
// Loads an ONNX model through libonnx (external data, checker, shape
// inference with the user's fixed input shapes), folds its shape arithmetic
// to constants and builds one func.func of bwc ops with static shapes.
// Errors are emitted as MLIR diagnostics at the node's location
// (`node 'n' (Op, opset N): ...`).
//
//===----------------------------------------------------------------------===//
#ifndef BWC_IMPORT_ONNX_IMPORTER_H
#define BWC_IMPORT_ONNX_IMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include <map>
#include <optional>
#include <string>
#include <set>
#include <vector>

namespace mlir::bwc {

/// Hard limits on what a model may declare, each refused with a named error
/// before anything is allocated for it (docs/reliability.md "Limits").
struct ImportLimits {
  /// Rank of any tensor: inputs, outputs, initializers, node results.
  static constexpr int64_t maxRank = 16;
  /// Elements of any tensor (64 Gi: 256 GiB of f32, above any GPU's
  /// memory); products are overflow-checked.
  static constexpr int64_t maxElements = int64_t(1) << 36;
  /// Nodes of the graph.
  static constexpr int64_t maxNodes = int64_t(1) << 20;
  /// Nesting of subgraphs (graph attributes: If, Loop, Scan bodies).
  static constexpr int64_t maxSubgraphDepth = 16;
};

struct OnnxImportOptions {
  /// User-fixed input shapes, by graph input name.
  std::map<std::string, llvm::SmallVector<int64_t>> inputShapes;
  /// Sequence inputs (--input-shape=NAME=[D0xD1,...]): the shape of each
  /// element, which fixes the length. Each element becomes an input named
  /// NAME[i] (docs/import.md, "Sequences").
  std::map<std::string, std::vector<llvm::SmallVector<int64_t>>>
      sequenceShapes;
  /// Optional inputs given as empty (--input-shape=NAME=none); an optional
  /// input not listed here holds its element.
  std::set<std::string> absentInputs;
  /// Graph inputs fixed to a value at compile time (a serialized ONNX
  /// TensorProto file per input name): they become constants, as shape
  /// tensors do in TensorRT. Used for inputs that feed shape operands
  /// (Reshape's shape, Slice's starts, Resize's scales, ...).
  std::map<std::string, std::string> inputValueFiles;
  /// The same, as serialized TensorProto bytes (the compiler API's
  /// `input_values`).
  std::map<std::string, std::string> inputValueBytes;
  /// Name of the function that holds the graph.
  std::string funcName = "main";
  /// Initializers with more elements than this become dense_resource blobs
  /// (printed once at the end of the file, elided on request) instead of
  /// inline dense literals.
  int64_t inlineConstantLimit = 1024;
  /// Training (bwc-compile --train): a regular expression over initializer
  /// names (whole-name match). The float initializers it matches, and the
  /// float Constant nodes of more than one element (exporters such as
  /// paddle2onnx store weights as those), become function arguments marked
  /// `bwc.trainable` for bwc-grad, with their value as `bwc.initial_value`;
  /// one the model also lists as a graph input stays an input (its value
  /// given at run time). Unset: initializers are constants.
  std::optional<std::string> trainable;
  /// When set (training steps with an optimizer): receives the model as a
  /// serialized ModelProto, as parsed (before --input-shape or
  /// --input-value bound anything), with the float Constant nodes
  /// `trainable` sees as initializers turned into initializers and all
  /// external data read into the file: the base of the model
  /// `bwc-run --save-weights OUT.onnx` writes (WeightsTemplate.h).
  std::string *modelCopy = nullptr;
};

/// Parses `--input-shape` values of the form `NAME=D0xD1x...` (a scalar is
/// `NAME=`). Returns an error message on malformed text.
std::string parseInputShape(llvm::StringRef text, OnnxImportOptions &options);

/// Parses `--input-value` values of the form `NAME=FILE.pb`. Returns an
/// error message on malformed text.
std::string parseInputValue(llvm::StringRef text, OnnxImportOptions &options);

/// Imports the model in `path`. Diagnostics go to the context's handler.
OwningOpRef<ModuleOp> importOnnxFile(llvm::StringRef path, MLIRContext *ctx,
                                     const OnnxImportOptions &options);

/// Imports a model from serialized bytes (`.onnx`) or, when `isText`, from
/// the ONNX text format parsed by libonnx. `bufferName` names the source in
/// diagnostics; `baseDir` is where external data files are looked up.
OwningOpRef<ModuleOp> importOnnxBuffer(llvm::StringRef bytes, bool isText,
                                       llvm::StringRef bufferName,
                                       llvm::StringRef baseDir,
                                       MLIRContext *ctx,
                                       const OnnxImportOptions &options);

/// The dialects an imported module uses (for registries of tools).
void registerOnnxImportDialects(DialectRegistry &registry);

} // namespace mlir::bwc

#endif // BWC_IMPORT_ONNX_IMPORTER_H
