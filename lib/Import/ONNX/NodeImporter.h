//===- NodeImporter.h - Per-node import context and handler table -*- C++ -*-//
//
// Internal to the ONNX importer. Each op family (ElementwiseOps.cpp, ...)
// registers handlers that turn one ONNX node into bwc ops, reading inputs and
// attributes through NodeContext, which also formats the node-named errors.
//
//===----------------------------------------------------------------------===//
#ifndef BWC_LIB_IMPORT_ONNX_NODEIMPORTER_H
#define BWC_LIB_IMPORT_ONNX_NODEIMPORTER_H

#include "bwc/Dialect/BWC/Utils/BWCBuilder.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "onnx/onnx_pb.h"

namespace mlir::bwc::onnx_import {

/// Maps an ONNX TensorProto data type to an MLIR element type; null when
/// bwc does not support it.
Type elementTypeFor(MLIRContext *ctx, int onnxType);
/// The name errors use for a node: its own, else its first output's.
std::string displayName(const onnx::NodeProto &node);
/// The ONNX name of a data type, for messages.
const char *onnxTypeName(int onnxType);

/// Replaces a tensor's external data reference (a file under `baseDir`) by
/// the bytes it names; no-op for tensors stored inline. Refuses, naming
/// the location: absolute locations, ones that leave the folder, symbolic
/// links (the file or any folder on the way), files with more than one
/// hard link or that are not regular files, malformed offsets and lengths,
/// and ranges outside the file.
LogicalResult loadExternalData(onnx::TensorProto &t, llvm::StringRef baseDir,
                               std::function<InFlightDiagnostic()> err);

/// Reads a TensorProto's elements (raw or typed fields; external data must
/// have been loaded) into an attribute of `type`. Float tensors with more than
/// `inlineLimit` elements become dense_resource blobs. `err` starts a
/// diagnostic that names the tensor.
FailureOr<ElementsAttr>
tensorToAttr(const onnx::TensorProto &t, RankedTensorType type,
             int64_t inlineLimit, std::function<InFlightDiagnostic()> err);

class NodeContext {
public:
  NodeContext(const onnx::NodeProto &node, int64_t opset,
              int64_t inlineConstantLimit, OpBuilder &b, Location loc,
              llvm::StringMap<Value> &values)
      : node(node), opset(opset), inlineConstantLimit(inlineConstantLimit),
        bb(b, loc), values(values) {}

  const onnx::NodeProto &node;
  /// Opset version of the default ONNX domain.
  const int64_t opset;
  /// See OnnxImportOptions::inlineConstantLimit.
  const int64_t inlineConstantLimit;
  BWCBuilder bb;

  MLIRContext *getContext() { return bb.builder().getContext(); }
  Location getLoc() { return bb.getLoc(); }

  /// Number of inputs as written (including empty optional ones).
  int numInputs() const { return node.input_size(); }
  /// Input `i`, or a null Value when absent or the empty name.
  Value input(int i);
  /// Input `i` that must be present; emits an error when it is not.
  FailureOr<Value> requiredInput(int i);

  /// Integer values of input `i` when it is a constant (after folding).
  std::optional<SmallVector<int64_t>> constInts(int i);
  /// Keeps input `i` out of a training step's parameters when it is a
  /// trainable initializer (a statistic, not a weight): it becomes a
  /// constant, as the inputs constInts reads do, or, when the model also
  /// lists it as a graph input (an overridable default), a plain input.
  void freezeInput(int i);
  /// Float values of input `i` when it is a constant.
  std::optional<SmallVector<double>> constFloats(int i);

  const onnx::AttributeProto *attr(llvm::StringRef name) const;
  bool hasAttr(llvm::StringRef name) const { return attr(name) != nullptr; }
  int64_t attrInt(llvm::StringRef name, int64_t dflt) const;
  double attrFloat(llvm::StringRef name, double dflt) const;
  std::string attrString(llvm::StringRef name, llvm::StringRef dflt) const;
  std::optional<SmallVector<int64_t>> attrInts(llvm::StringRef name) const;
  std::optional<SmallVector<double>> attrFloats(llvm::StringRef name) const;

  /// Emits `node 'name' (Op, opset N): <msg>` at the node and returns
  /// failure. Stream more text into the returned diagnostic.
  InFlightDiagnostic error();

  /// Normalizes an axis attribute against `rank`, or errors.
  FailureOr<int64_t> axis(int64_t value, int64_t rank);

  /// Imports a subgraph (If's branch, a Loop or Scan body) inline: its
  /// inputs bound to `inputs`, the node's scope visible from inside, its
  /// outputs appended to `outputs`. Errors name the subgraph's nodes.
  using SubgraphImporter = std::function<LogicalResult(
      const onnx::GraphProto &graph, const llvm::StringMap<Value> &outer,
      ArrayRef<Value> inputs, SmallVectorImpl<Value> &outputs)>;
  const SubgraphImporter *subgraphs = nullptr;
  LogicalResult importSubgraph(const onnx::GraphProto &graph,
                               ArrayRef<Value> inputs,
                               SmallVectorImpl<Value> &outputs) {
    if (!subgraphs)
      return error() << "has a subgraph where none can be imported", failure();
    return (*subgraphs)(graph, values, inputs, outputs);
  }

  /// The program's run counter, a uint32 scalar state ("rng.counter", 0
  /// at first) that every run increments; the first call creates it. Null
  /// (or returning null) where a graph cannot have one.
  const std::function<Value()> *runCounter = nullptr;

  /// Trainable initializers (function arguments marked bwc.trainable) a
  /// node read as constants through constInts/constFloats: the importer
  /// turns them back into constants (a Dropout ratio, a Clip bound or a
  /// Resize scale is an attribute in disguise, not a parameter). Null: no
  /// freezing, such an argument is not a constant.
  llvm::SetVector<BlockArgument> *frozen = nullptr;

  /// The constant value of `v`, if it folded to one.
  static std::optional<SmallVector<int64_t>> constantInts(Value v);

private:
  static SmallVector<int64_t> intsOf(DenseElementsAttr attr);
  /// The initial value of `v` when it is a trainable argument with one,
  /// recorded in `frozen`.
  std::optional<DenseElementsAttr> freeze(Value v);

  llvm::StringMap<Value> &values;
};

/// Converts one node: pushes one Value per ONNX output (null for outputs
/// that are not produced, e.g. Dropout's mask when unused).
using NodeHandler =
    std::function<LogicalResult(NodeContext &, SmallVectorImpl<Value> &)>;
using HandlerTable = llvm::StringMap<NodeHandler>;
/// What a handler pushes its results into.
using Results = SmallVectorImpl<Value>;
using Ints = SmallVector<int64_t>;

/// ONNX's training-operator domain (Adagrad, Adam, Momentum).
inline constexpr const char *kTrainingDomain = "ai.onnx.preview.training";

//===----------------------------------------------------------------------===//
// Helpers shared by the op families
//===----------------------------------------------------------------------===//

inline ArrayRef<int64_t> shapeOf(Value v) { return BWCBuilder::shapeOf(v); }
inline int64_t rankOf(Value v) { return BWCBuilder::typeOf(v).getRank(); }
inline Type eltOf(Value v) { return BWCBuilder::elementTypeOf(v); }

/// `[2, 3]`, for messages.
std::string str(ArrayRef<int64_t> xs);

/// Product of `dims`; std::nullopt on overflow.
std::optional<int64_t> product(ArrayRef<int64_t> dims);

/// True when output `i` of the node is requested (present and named).
inline bool outputRequested(NodeContext &nc, int i) {
  return i < nc.node.output_size() && !nc.node.output(i).empty();
}

/// The spatial axes [2, rank) of an NC... tensor.
inline Ints spatialAxes(Value x) {
  return llvm::to_vector(llvm::seq<int64_t>(2, rankOf(x)));
}

/// Errors unless `x` has rank >= `minRank`.
LogicalResult requireRank(NodeContext &nc, Value x, int64_t minRank,
                          llvm::StringRef what);

/// Errors unless every dim of a computed shape is non-negative and the
/// element count fits in int64.
LogicalResult checkShape(NodeContext &nc, ArrayRef<int64_t> shape,
                         llvm::StringRef what);

/// Integer values of input `i` (called `name` in messages), which must be
/// present and constant after folding.
FailureOr<Ints> constantInput(NodeContext &nc, int i, llvm::StringRef name);

/// Normalizes `axes` against `rank`; errors on out-of-range or repeated axes.
FailureOr<Ints> normalizedAxes(NodeContext &nc, ArrayRef<int64_t> axes,
                               int64_t rank);

/// A rank-0 attribute of element type `elt` holding `v`.
TypedAttr scalarAttr(Type elt, double v);

/// ONNX MatMul semantics (numpy matmul: 1-D operands promoted and the
/// unit dim dropped again, batch dims broadcast) over bwc.matmul; errors
/// name the node.
FailureOr<Value> onnxMatmul(NodeContext &nc, Value a, Value b);

/// ONNX Conv over bwc.conv from the node's attributes (group, strides,
/// dilations, pads, auto_pad) with `bias` optional; errors name the node.
FailureOr<Value> onnxConv(NodeContext &nc, Value x, Value w, Value bias);

/// A rank-0 constant holding the highest (or lowest) value of `elt`:
/// +-inf for floats, the integer type's bounds (exact, also for 64 bits)
/// for integers.
Value extremeScalar(BWCBuilder &bb, Type elt, bool highest);

/// [1, ..., n (at `axis`), ..., 1] of rank `rank` holding 0..n-1 in
/// integer or float type `elt`: the index tensor one-hot forms compare
/// against.
Value iotaAlong(BWCBuilder &bb, int64_t rank, int64_t axis, int64_t n,
                Type elt);

//===----------------------------------------------------------------------===//
// Sequences (SequenceOps.cpp, docs/import.md "Sequences")
//===----------------------------------------------------------------------===//

/// bwc compiles static programs, so an ONNX sequence is resolved at import
/// into a list of tensors whose length and element shapes are known. While
/// importing, a sequence is the tuple-typed result of an
/// `unrealized_conversion_cast` over its elements (carrying their element
/// type in `bwc.sequence_element`, for the empty sequence), so it flows
/// through the value table, subgraph scopes, If branches and Loop states
/// like a tensor. Sequence ops read and build these lists; none survives
/// import (sequence graph inputs and outputs are flattened to tensors
/// named `NAME[i]`).
Value makeSequence(BWCBuilder &bb, ValueRange elements, Type elementType);
/// True when `v` is a sequence (see makeSequence).
bool isSequence(Value v);
/// The elements of sequence `v`.
SmallVector<Value> sequenceElements(Value v);
/// The element type of sequence `v`'s tensors.
Type sequenceElementType(Value v);
/// An ONNX optional, resolved the same way: the cast holds its element (a
/// tensor or a sequence) or nothing, marked `bwc.optional`.
Value makeOptional(BWCBuilder &bb, Value element);
bool isOptional(Value v);
/// The element of optional `v`, or null when it is empty.
Value optionalElement(Value v);
/// Ops that take sequence or optional operands (the others get a named
/// error).
bool takesSequences(const onnx::NodeProto &node);

//===----------------------------------------------------------------------===//
// Op families
//===----------------------------------------------------------------------===//

void registerElementwiseHandlers(HandlerTable &table);
void registerActivationHandlers(HandlerTable &table);
void registerIndexingHandlers(HandlerTable &table);
void registerScatterHandlers(HandlerTable &table);
void registerEinsumHandlers(HandlerTable &table);
void registerQuantHandlers(HandlerTable &table);
void registerRecurrentHandlers(HandlerTable &table);
void registerControlFlowHandlers(HandlerTable &table);
void registerGridSampleHandlers(HandlerTable &table);
void registerRoiAlignHandlers(HandlerTable &table);
/// RandomUniform, RandomNormal, their *Like forms and Bernoulli.
void registerRandomHandlers(HandlerTable &table);
/// Uniform [0, 1) f32 values of `shape` from bwc's counter-based generator
/// (RandomOps.cpp), keyed by the node's seed and `stream`.
FailureOr<Value> uniformNoise(NodeContext &nc, ArrayRef<int64_t> shape,
                              uint32_t stream);
/// Optimizer ops of ai.onnx.preview.training, keyed "<domain>.<op>".
void registerTrainingHandlers(HandlerTable &table);
void registerSignalHandlers(HandlerTable &table);
void registerReductionHandlers(HandlerTable &table);
void registerNNHandlers(HandlerTable &table);
void registerConvPoolHandlers(HandlerTable &table);
void registerResizeHandlers(HandlerTable &table);
void registerDataMovementHandlers(HandlerTable &table);
void registerGatherPadHandlers(HandlerTable &table);
void registerShapeHandlers(HandlerTable &table);
void registerLossHandlers(HandlerTable &table);
void registerSequenceHandlers(HandlerTable &table);

} // namespace mlir::bwc::onnx_import

#endif // BWC_LIB_IMPORT_ONNX_NODEIMPORTER_H
