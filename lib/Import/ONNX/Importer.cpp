//===- Importer.cpp - ONNX models into the bwc dialect --------------------===//
//
// Model-level work: load and validate through libonnx, fix input shapes,
// turn initializers into constants, order the nodes, dispatch each node to
// its family's handler, and build the function. Per-op work lives in the
// *Ops.cpp files of this folder.
//
//===----------------------------------------------------------------------===//
#include "bwc/Import/ONNX/Importer.h"
#include "NodeImporter.h"

#include "bwc/Dialect/BWC/IR/BWCOps.h"
#include "bwc/Dialect/BWC/Utils/ShapeUtils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"

#include "onnx/checker.h"
#include "onnx/defs/parser.h"
#include "onnx/defs/schema.h"
#include "onnx/shape_inference/implementation.h"

#include <deque>
#include <queue>

using namespace mlir;
using namespace mlir::bwc;
using namespace mlir::bwc::onnx_import;

std::string mlir::bwc::parseInputShape(StringRef text,
                                       OnnxImportOptions &options) {
  auto [name, dims] = text.rsplit('=');
  if (name.empty() || !text.contains('='))
    return ("expected NAME=D0xD1x... but got '" + text + "'").str();
  if (dims == "none") {
    // An optional input without its element.
    options.absentInputs.insert(name.str());
    return "";
  }
  if (dims.starts_with("[")) {
    // A sequence input: its length and element shapes, NAME=[S0,S1,...]
    // ("scalar" for a rank-0 element, [] for the empty sequence).
    if (!dims.ends_with("]"))
      return ("expected NAME=[D0xD1,...] for a sequence but got '" + text +
              "'")
          .str();
    StringRef list = dims.drop_front().drop_back();
    std::vector<SmallVector<int64_t>> shapes;
    if (!list.empty()) {
      SmallVector<StringRef> items;
      list.split(items, ',');
      for (StringRef item : items) {
        if (item == "scalar") {
          shapes.emplace_back();
          continue;
        }
        OnnxImportOptions one;
        if (std::string err = parseInputShape(("e=" + item).str(), one);
            !err.empty())
          return ("expected non-negative dims in '" + text + "'").str();
        shapes.push_back(one.inputShapes["e"]);
      }
    }
    options.sequenceShapes[name.str()] = shapes;
    return "";
  }
  SmallVector<int64_t> shape;
  if (!dims.empty()) {
    SmallVector<StringRef> parts;
    dims.split(parts, 'x');
    for (StringRef p : parts) {
      int64_t d;
      if (p.getAsInteger(10, d) || d < 0)
        return ("expected non-negative dims in '" + text + "'").str();
      shape.push_back(d);
    }
  }
  options.inputShapes[name.str()] = shape;
  return "";
}

std::string mlir::bwc::parseInputValue(StringRef text,
                                       OnnxImportOptions &options) {
  auto [name, file] = text.split('=');
  if (name.empty() || file.empty())
    return ("expected NAME=FILE.pb but got '" + text + "'").str();
  options.inputValueFiles[name.str()] = file.str();
  return "";
}

void mlir::bwc::registerOnnxImportDialects(DialectRegistry &registry) {
  registry.insert<BWCDialect, func::FuncDialect>();
}

namespace {

/// libonnx 1.12's shape inference divides by window attributes unchecked
/// (a zero stride is SIGFPE inside onnx::convPoolShapeInference). It is only
/// a cross-check here, so it is skipped for such graphs; the handlers then
/// reject the attribute with a proper error.
/// Bytes per element of the fixed-size ONNX types; 0 for the others.
int64_t onnxElementBytes(int32_t type) {
  switch (type) {
  case onnx::TensorProto::BOOL:
  case onnx::TensorProto::INT8:
  case onnx::TensorProto::UINT8:
    return 1;
  case onnx::TensorProto::INT16:
  case onnx::TensorProto::UINT16:
  case onnx::TensorProto::FLOAT16:
  case onnx::TensorProto::BFLOAT16:
    return 2;
  case onnx::TensorProto::INT32:
  case onnx::TensorProto::UINT32:
  case onnx::TensorProto::FLOAT:
    return 4;
  case onnx::TensorProto::INT64:
  case onnx::TensorProto::UINT64:
  case onnx::TensorProto::DOUBLE:
    return 8;
  default:
    return 0;
  }
}

/// libonnx 1.12's ParseData copies a tensor's raw_data into a vector sized
/// from it without checking it against the shape: a truncated one (7 bytes
/// for four int64) writes through a null pointer (the modelproto fuzz
/// target, 2026-12-03). Such a tensor keeps inference off; the importer's
/// own reading of it names the tensor.
bool rawDataMatchesShape(const onnx::TensorProto &t) {
  int64_t bytes = onnxElementBytes(t.data_type());
  if (t.raw_data().empty() || bytes == 0)
    return true;
  for (int64_t d : t.dims())
    if (d < 0 || llvm::MulOverflow(bytes, d, bytes))
      return false;
  return uint64_t(bytes) == t.raw_data().size();
}

bool shapeInferenceIsSafe(const onnx::GraphProto &graph) {
  for (const auto &init : graph.initializer())
    if (!rawDataMatchesShape(init))
      return false;
  for (const auto &node : graph.node())
    for (const auto &a : node.attribute()) {
      if (a.has_t() && !rawDataMatchesShape(a.t()))
        return false;
      if (a.has_g() && !shapeInferenceIsSafe(a.g()))
        return false;
      for (const auto &sub : a.graphs())
        if (!shapeInferenceIsSafe(sub))
          return false;
      if (a.name() != "strides" && a.name() != "dilations" &&
          a.name() != "kernel_shape" && a.name() != "blocksize" &&
          a.name() != "group")
        continue;
      if (a.has_i() && a.i() <= 0)
        return false;
      for (int64_t v : a.ints())
        if (v <= 0)
          return false;
    }
  return true;
}

/// Training: float Constant nodes (a `value` tensor of more than one
/// element) become initializers, so --trainable sees the weights of
/// exporters that write them as nodes (paddle2onnx). Scalars (epsilons, the
/// 6 of HardSwish) stay constants.
void constantNodesToInitializers(onnx::GraphProto &graph) {
  auto *nodes = graph.mutable_node();
  for (int i = nodes->size() - 1; i >= 0; --i) {
    const onnx::NodeProto &node = nodes->Get(i);
    if (node.op_type() != "Constant" ||
        !(node.domain().empty() || node.domain() == "ai.onnx") ||
        node.output_size() != 1 || node.attribute_size() != 1 ||
        node.attribute(0).name() != "value" || !node.attribute(0).has_t())
      continue;
    const onnx::TensorProto &t = node.attribute(0).t();
    int64_t n = 1;
    for (int64_t d : t.dims())
      n *= d;
    bool isFloat = t.data_type() == onnx::TensorProto::FLOAT ||
                   t.data_type() == onnx::TensorProto::FLOAT16 ||
                   t.data_type() == onnx::TensorProto::BFLOAT16 ||
                   t.data_type() == onnx::TensorProto::DOUBLE;
    if (!isFloat || n <= 1 || t.data_location() == onnx::TensorProto::EXTERNAL)
      continue;
    onnx::TensorProto init = t;
    init.set_name(node.output(0));
    *graph.add_initializer() = std::move(init);
    nodes->DeleteSubrange(i, 1);
  }
}

/// The handler table's key of a node: the op type, qualified by the
/// domain outside the default one ("ai.onnx.preview.training.Adam").
std::string handlerKey(const onnx::NodeProto &node) {
  if (node.domain().empty() || node.domain() == "ai.onnx")
    return node.op_type();
  return node.domain() + "." + node.op_type();
}

class GraphImporter {
public:
  GraphImporter(MLIRContext *ctx, const OnnxImportOptions &options,
                StringRef bufferName, StringRef baseDir)
      : ctx(ctx), options(options), bufferName(bufferName), baseDir(baseDir),
        builder(ctx) {
    registerElementwiseHandlers(handlers);
    registerActivationHandlers(handlers);
    registerIndexingHandlers(handlers);
    registerScatterHandlers(handlers);
    registerEinsumHandlers(handlers);
    registerQuantHandlers(handlers);
    registerRecurrentHandlers(handlers);
    registerControlFlowHandlers(handlers);
    registerGridSampleHandlers(handlers);
    registerRoiAlignHandlers(handlers);
    registerRandomHandlers(handlers);
    runCounter = [this]() -> Value {
      if (!counter && program) {
        auto type = RankedTensorType::get(
            {}, IntegerType::get(builder.getContext(), 32,
                                 IntegerType::Unsigned));
        unsigned index = program.getNumArguments();
        SmallVector<NamedAttribute> attrs = {
            builder.getNamedAttr("bwc.name",
                                 builder.getStringAttr("rng.counter")),
            builder.getNamedAttr("bwc.state", builder.getUnitAttr()),
            builder.getNamedAttr("bwc.initial_value",
                                 builder.getZeroAttr(type))};
        if (failed(program.insertArgument(index, type,
                                          builder.getDictionaryAttr(attrs),
                                          program.getLoc())))
          return Value();
        counter = program.getArgument(index);
      }
      return counter;
    };
    subgraphImporter = [this](const onnx::GraphProto &g,
                              const llvm::StringMap<Value> &outer,
                              ArrayRef<Value> inputs,
                              SmallVectorImpl<Value> &outputs) {
      return importSubgraph(g, outer, inputs, outputs);
    };
    registerTrainingHandlers(handlers);
    registerSignalHandlers(handlers);
    registerReductionHandlers(handlers);
    registerLossHandlers(handlers);
    registerNNHandlers(handlers);
    registerConvPoolHandlers(handlers);
    registerResizeHandlers(handlers);
    registerDataMovementHandlers(handlers);
    registerGatherPadHandlers(handlers);
    registerShapeHandlers(handlers);
    registerSequenceHandlers(handlers);
  }

  OwningOpRef<ModuleOp> run(onnx::ModelProto &model);

private:
  Location fileLoc() { return FileLineColLoc::get(ctx, bufferName, 0, 0); }
  InFlightDiagnostic modelError() { return emitError(fileLoc()); }
  /// Empty when `shape` is within ImportLimits, else why not ("has rank
  /// 40, more than bwc's limit of 16").
  static std::string shapeBeyondLimits(ArrayRef<int64_t> shape) {
    if ((int64_t)shape.size() > ImportLimits::maxRank)
      return "has rank " + std::to_string(shape.size()) +
             ", more than bwc's limit of " +
             std::to_string(ImportLimits::maxRank);
    std::optional<int64_t> n = onnx_import::product(shape);
    if (!n || *n > ImportLimits::maxElements) {
      std::string dims;
      for (int64_t d : shape)
        dims += (dims.empty() ? "" : "x") + std::to_string(d);
      return "has " + (n ? std::to_string(*n) : std::string("more than 2^63")) +
             " elements (" + dims + "), more than bwc's limit of " +
             std::to_string(ImportLimits::maxElements);
    }
    return "";
  }
  /// Refuses graph attributes nested deeper than ImportLimits (before
  /// libonnx's checker, which recurses into them); the recursion stops at
  /// the limit.
  LogicalResult checkSubgraphDepth(const onnx::GraphProto &graph,
                                   int64_t depth) {
    for (int i = 0; i < graph.node_size(); ++i)
      for (const auto &attr : graph.node(i).attribute()) {
        std::vector<const onnx::GraphProto *> bodies;
        if (attr.has_g())
          bodies.push_back(&attr.g());
        for (const auto &g : attr.graphs())
          bodies.push_back(&g);
        for (const onnx::GraphProto *body : bodies) {
          if (depth + 1 > ImportLimits::maxSubgraphDepth)
            return emitError(nodeLoc(graph.node(i), i))
                       << "node '" << displayName(graph.node(i)) << "' ("
                       << graph.node(i).op_type() << "): subgraphs nest "
                       << "deeper than bwc's limit of "
                       << ImportLimits::maxSubgraphDepth,
                   failure();
          if (failed(checkSubgraphDepth(*body, depth + 1)))
            return failure();
        }
      }
    return success();
  }
  Location nodeLoc(const onnx::NodeProto &node, int index) {
    return NameLoc::get(StringAttr::get(ctx, displayName(node)),
                        FileLineColLoc::get(ctx, bufferName, index + 1, 0));
  }
  /// Warns when `vi` (from ONNX shape inference, or the model's declared
  /// output types) fully knows a tensor's shape and it differs from the one
  /// bwc computed: a disagreement means one of bwc's shape rules is wrong.
  /// A node that takes tensors refuses a sequence operand, naming it.
  LogicalResult checkSequenceInputs(const onnx::NodeProto &node, int index,
                                    const llvm::StringMap<Value> &scope) {
    if (takesSequences(node))
      return success();
    for (const std::string &in : node.input()) {
      auto it = in.empty() ? scope.end() : scope.find(in);
      if (it != scope.end() && it->second &&
          (isSequence(it->second) || isOptional(it->second)))
        return emitError(nodeLoc(node, index))
                   << "node '" << displayName(node) << "' ("
                   << node.op_type() << ", opset " << opset << "): input '"
                   << in << "' is "
                   << (isSequence(it->second) ? "a sequence" : "an optional")
                   << ", which " << node.op_type() << " does not take",
               failure();
    }
    return success();
  }
  void crossCheck(Location loc, const std::string &what,
                  const onnx::ValueInfoProto &vi, Value v, StringRef source) {
    if (!vi.type().has_tensor_type() || !isa<RankedTensorType>(v.getType()))
      return;
    Type declared = elementTypeFor(ctx, vi.type().tensor_type().elem_type());
    Type elt = cast<RankedTensorType>(v.getType()).getElementType();
    if (declared && declared != elt)
      emitWarning(loc) << what << " has element type " << elt << " but "
                       << source << " says " << declared;
    if (!vi.type().tensor_type().has_shape())
      return;
    SmallVector<int64_t> want;
    for (const auto &d : vi.type().tensor_type().shape().dim()) {
      if (!d.has_dim_value())
        return;
      want.push_back(d.dim_value());
    }
    ArrayRef<int64_t> got = cast<RankedTensorType>(v.getType()).getShape();
    if (got == ArrayRef<int64_t>(want))
      return;
    auto diag = emitWarning(loc) << what << " has shape [";
    llvm::interleaveComma(got, diag);
    diag << "] but " << source << " says [";
    llvm::interleaveComma(want, diag);
    diag << "]";
  }
  LogicalResult bindInputValues(onnx::GraphProto &graph,
                                const llvm::StringSet<> &initNames);
  LogicalResult applyInputShapes(onnx::GraphProto &graph,
                                 const llvm::StringSet<> &initNames);
  FailureOr<RankedTensorType> valueInfoType(const onnx::ValueInfoProto &vi,
                                            bool isInput);
  FailureOr<SmallVector<int>> orderNodes(const onnx::GraphProto &graph,
                                         const llvm::StringSet<> &known);

  LogicalResult importSubgraph(const onnx::GraphProto &graph,
                               const llvm::StringMap<Value> &outer,
                               ArrayRef<Value> inputs,
                               SmallVectorImpl<Value> &outputs);

  MLIRContext *ctx;
  const OnnxImportOptions &options;
  NodeContext::SubgraphImporter subgraphImporter;
  /// The run counter random ops draw with (NodeContext::runCounter),
  /// created in `program` on first use.
  std::function<Value()> runCounter;
  func::FuncOp program;
  Value counter;
  /// Trainable initializers nodes read as constants (NodeContext::frozen).
  llvm::SetVector<BlockArgument> frozen;
  std::string bufferName, baseDir;
  OpBuilder builder;
  HandlerTable handlers;
  llvm::StringMap<Value> values;
  std::map<std::string, onnx::ValueInfoProto> inferred;
  int64_t opset = 0;
};

LogicalResult
GraphImporter::bindInputValues(onnx::GraphProto &graph,
                               const llvm::StringSet<> &initNames) {
  bool ok = true;
  // Files (--input-value) and in-memory TensorProtos (the compiler API's
  // input values) alike; `file` is empty for the latter.
  std::vector<std::tuple<std::string, std::string, const std::string *>>
      sources;
  for (const auto &[name, file] : options.inputValueFiles)
    sources.emplace_back(name, file, nullptr);
  for (const auto &[name, bytes] : options.inputValueBytes)
    sources.emplace_back(name, "", &bytes);
  for (const auto &[name, file, bytes] : sources) {
    const onnx::ValueInfoProto *vi = nullptr;
    for (const auto &in : graph.input())
      if (in.name() == name && !initNames.contains(name))
        vi = &in;
    if (!vi) {
      modelError() << "input value names '" << name
                   << "', which is not a graph input";
      ok = false;
      continue;
    }
    onnx::TensorProto t;
    if (bytes) {
      if (bytes->size() > (size_t)INT_MAX ||
          !t.ParseFromArray(bytes->data(), (int)bytes->size())) {
        modelError() << "input value for '" << name
                     << "' is not a serialized ONNX TensorProto";
        ok = false;
        continue;
      }
    } else {
      auto buf = llvm::MemoryBuffer::getFile(file, /*IsText=*/false,
                                             /*RequiresNullTerminator=*/false);
      if (!buf || (*buf)->getBufferSize() > (size_t)INT_MAX ||
          !t.ParseFromArray((*buf)->getBufferStart(),
                            (int)(*buf)->getBufferSize())) {
        modelError() << "--input-value for '" << name << "': '" << file
                     << "' is not a readable ONNX TensorProto file";
        ok = false;
        continue;
      }
    }
    const auto &tt = vi->type().tensor_type();
    bool shapeOk = !tt.has_shape() || tt.shape().dim_size() == t.dims_size();
    for (int d = 0; shapeOk && tt.has_shape() && d < t.dims_size(); ++d)
      shapeOk = !tt.shape().dim(d).has_dim_value() ||
                tt.shape().dim(d).dim_value() == t.dims(d);
    if (t.data_type() != tt.elem_type() || !shapeOk) {
      modelError() << "--input-value for '" << name
                   << "' does not match the input's declared type or shape";
      ok = false;
      continue;
    }
    t.set_name(name);
    *graph.add_initializer() = std::move(t);
  }
  return success(ok);
}

LogicalResult
GraphImporter::applyInputShapes(onnx::GraphProto &graph,
                                const llvm::StringSet<> &initNames) {
  bool ok = true;
  for (const auto &[name, shape] : options.inputShapes) {
    onnx::ValueInfoProto *found = nullptr;
    for (auto &vi : *graph.mutable_input())
      if (vi.name() == name && !initNames.contains(vi.name()))
        found = &vi;
    if (!found) {
      std::string names;
      for (auto &vi : graph.input())
        if (!initNames.contains(vi.name()))
          names += (names.empty() ? "'" : ", '") + vi.name() + "'";
      modelError() << "--input-shape names '" << name
                   << "', which is not a graph input (inputs: " << names << ")";
      ok = false;
      continue;
    }
    onnx::TypeProto *type = found->mutable_type();
    if (type->has_optional_type() &&
        type->optional_type().elem_type().has_tensor_type())
      type = type->mutable_optional_type()->mutable_elem_type();
    if (!type->has_tensor_type()) {
      modelError() << "--input-shape gives input '" << name
                   << "' a tensor's shape, but it is a "
                   << (type->has_sequence_type() ||
                               (type->has_optional_type() &&
                                type->optional_type()
                                    .elem_type()
                                    .has_sequence_type())
                           ? "sequence: give NAME=[D0xD1,...]"
                           : "non-tensor input");
      ok = false;
      continue;
    }
    auto *tt = type->mutable_tensor_type();
    auto *sp = tt->mutable_shape();
    if (tt->has_shape() && sp->dim_size() != (int)shape.size()) {
      modelError() << "--input-shape gives input '" << name << "' rank "
                   << shape.size() << " but the model declares rank "
                   << sp->dim_size();
      ok = false;
      continue;
    }
    for (size_t i = 0; i < shape.size(); ++i) {
      auto *dim =
          i < (size_t)sp->dim_size() ? sp->mutable_dim(i) : sp->add_dim();
      if (dim->has_dim_value() && dim->dim_value() != shape[i]) {
        modelError() << "--input-shape gives input '" << name << "' dim " << i
                     << " = " << shape[i] << " but the model fixes it to "
                     << dim->dim_value();
        ok = false;
      }
      dim->set_dim_value(shape[i]);
    }
  }
  return success(ok);
}

FailureOr<RankedTensorType>
GraphImporter::valueInfoType(const onnx::ValueInfoProto &vi, bool isInput) {
  if (!vi.type().has_tensor_type())
    return modelError() << (isInput ? "input '" : "output '") << vi.name()
                        << "' is not a tensor",
           failure();
  const auto &tt = vi.type().tensor_type();
  Type elt = elementTypeFor(ctx, tt.elem_type());
  if (!elt)
    return modelError() << (isInput ? "input '" : "output '") << vi.name()
                        << "' has unsupported data type "
                        << onnxTypeName(tt.elem_type()),
           failure();
  if (!tt.has_shape())
    return modelError() << "input '" << vi.name()
                        << "' has no shape: pass --input-shape=" << vi.name()
                        << "=...",
           failure();
  SmallVector<int64_t> shape;
  if (tt.shape().dim_size() > ImportLimits::maxRank)
    return modelError() << (isInput ? "input '" : "output '") << vi.name()
                        << "' has rank " << tt.shape().dim_size()
                        << ", more than bwc's limit of "
                        << ImportLimits::maxRank,
           failure();
  for (int i = 0; i < tt.shape().dim_size(); ++i) {
    const auto &d = tt.shape().dim(i);
    if (!d.has_dim_value() || d.dim_value() < 0) {
      auto diag = modelError() << "input '" << vi.name() << "' dim " << i;
      if (d.has_dim_param() && !d.dim_param().empty())
        diag << " ('" << d.dim_param() << "')";
      diag << " is dynamic: pass --input-shape=" << vi.name() << "=...";
      return failure();
    }
    shape.push_back(d.dim_value());
  }
  if (std::string why = shapeBeyondLimits(shape); !why.empty())
    return modelError() << (isInput ? "input '" : "output '") << vi.name()
                        << "' " << why,
           failure();
  return RankedTensorType::get(shape, elt);
}

FailureOr<SmallVector<int>>
GraphImporter::orderNodes(const onnx::GraphProto &graph,
                          const llvm::StringSet<> &known) {
  // Kahn's algorithm over tensor names: robust to graphs that are not
  // topologically sorted, and tells a cycle from an undefined tensor.
  // Each tensor is defined once (ONNX graphs are SSA): a second producer,
  // or a node output named like a graph input or initializer, would
  // leave which value a reader gets to the order of the nodes (fuzzing
  // found two nodes writing one name, imported silently as a chain).
  llvm::StringMap<int> producer;
  bool ok = true;
  for (int i = 0; i < graph.node_size(); ++i) {
    const auto &node = graph.node(i);
    for (const auto &out : node.output()) {
      if (out.empty())
        continue;
      if (known.contains(out)) {
        emitError(nodeLoc(node, i))
            << "node " << i << " '" << displayName(node) << "' ("
            << node.op_type() << "): output '" << out
            << "' is also a graph input or initializer (each tensor is "
               "defined once)";
        ok = false;
        continue;
      }
      auto [it, inserted] = producer.try_emplace(out, i);
      if (!inserted) {
        const auto &first = graph.node(it->second);
        // Unnamed nodes are shown by their first output, which is the
        // name at issue here: the positions tell them apart.
        emitError(nodeLoc(node, i))
            << "node " << i << " '" << displayName(node) << "' ("
            << node.op_type() << "): output '" << out
            << "' is also produced by node " << it->second << " '"
            << displayName(first) << "' (" << first.op_type()
            << ") (each tensor is defined once)";
        ok = false;
      }
    }
  }
  if (!ok)
    return failure();
  std::vector<int> pending(graph.node_size(), 0);
  std::vector<std::vector<int>> users(graph.node_size());
  for (int i = 0; i < graph.node_size(); ++i) {
    const auto &node = graph.node(i);
    for (const auto &in : node.input()) {
      if (in.empty() || known.contains(in))
        continue;
      auto it = producer.find(in);
      if (it == producer.end()) {
        emitError(nodeLoc(node, i))
            << "node '" << displayName(node) << "' (" << node.op_type()
            << "): input '" << in << "' is not defined in the graph";
        ok = false;
        continue;
      }
      ++pending[i];
      users[it->second].push_back(i);
    }
  }
  if (!ok)
    return failure();
  // Lowest index first: a sorted graph keeps its order exactly.
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (int i = 0; i < graph.node_size(); ++i)
    if (pending[i] == 0)
      ready.push(i);
  SmallVector<int> order;
  while (!ready.empty()) {
    int i = ready.top();
    ready.pop();
    order.push_back(i);
    for (int u : users[i])
      if (--pending[u] == 0)
        ready.push(u);
  }
  if ((int)order.size() != graph.node_size()) {
    for (int i = 0; i < graph.node_size(); ++i)
      if (pending[i] > 0) {
        emitError(nodeLoc(graph.node(i), i))
            << "graph has a cycle through node '" << displayName(graph.node(i))
            << "' (" << graph.node(i).op_type() << ")";
        break;
      }
    return failure();
  }
  return order;
}

LogicalResult
GraphImporter::importSubgraph(const onnx::GraphProto &graph,
                              const llvm::StringMap<Value> &outer,
                              ArrayRef<Value> inputs,
                              SmallVectorImpl<Value> &outputs) {
  llvm::StringMap<Value> scope = outer;
  Location loc = NameLoc::get(StringAttr::get(ctx, graph.name()), fileLoc());
  if (graph.input_size() != (int)inputs.size())
    return emitError(loc) << "subgraph '" << graph.name() << "' expects "
                          << graph.input_size() << " inputs but gets "
                          << inputs.size(),
           failure();
  for (auto [vi, v] : llvm::zip(graph.input(), inputs))
    scope[vi.name()] = v;
  for (const onnx::TensorProto &t : graph.initializer()) {
    Type elt = elementTypeFor(ctx, t.data_type());
    SmallVector<int64_t> shape(t.dims().begin(), t.dims().end());
    if (!elt || t.data_location() == onnx::TensorProto::EXTERNAL ||
        !shapeBeyondLimits(shape).empty() ||
        llvm::any_of(shape, [](int64_t d) { return d < 0; }))
      return emitError(loc) << "subgraph initializer '" << t.name()
                            << "' has an unsupported type, shape or location",
             failure();
    FailureOr<ElementsAttr> attr = tensorToAttr(
        t, RankedTensorType::get(shape, elt), options.inlineConstantLimit,
        [&]() -> InFlightDiagnostic {
          return emitError(loc) << "subgraph initializer '" << t.name()
                                << "' ";
        });
    if (failed(attr))
      return failure();
    scope[t.name()] =
        BWCBuilder(builder, loc).constant(*attr);
  }
  for (int i = 0; i < graph.node_size(); ++i) {
    const onnx::NodeProto &node = graph.node(i);
    std::string key = handlerKey(node);
    if (!handlers.count(key))
      return emitError(nodeLoc(node, i))
                 << "node '" << displayName(node) << "' (" << node.op_type()
                 << ", opset " << opset << "): unsupported operator",
             failure();
    for (const std::string &in : node.input())
      if (!in.empty() && !scope.count(in))
        return emitError(nodeLoc(node, i))
                   << "node '" << displayName(node) << "' (" << node.op_type()
                   << "): input '" << in << "' is not defined before it",
               failure();
    if (failed(checkSequenceInputs(node, i, scope)))
      return failure();
    NodeContext nc(node, opset, options.inlineConstantLimit, builder,
                   nodeLoc(node, i), scope);
    nc.subgraphs = &subgraphImporter;
    nc.runCounter = &runCounter;
    nc.frozen = &frozen;
    SmallVector<Value> results;
    if (failed(handlers[key](nc, results)))
      return failure();
    for (int k = 0; k < node.output_size() && k < (int)results.size(); ++k)
      if (!node.output(k).empty() && results[k])
        scope[node.output(k)] = results[k];
  }
  for (const auto &vi : graph.output()) {
    auto it = scope.find(vi.name());
    if (it == scope.end())
      return emitError(loc) << "subgraph output '" << vi.name()
                            << "' is not produced by any node",
             failure();
    outputs.push_back(it->second);
  }
  return success();
}

OwningOpRef<ModuleOp> GraphImporter::run(onnx::ModelProto &model) {
  if (!model.has_graph())
    return modelError() << "is not an ONNX model: it has no graph", nullptr;
  bool trainingDomain = false;
  for (const auto &imp : model.opset_import()) {
    if (imp.domain().empty() || imp.domain() == "ai.onnx")
      opset = imp.version();
    trainingDomain |= imp.domain() == kTrainingDomain;
  }
  if (opset == 0)
    opset = model.ir_version() >= 3 ? 0 : 1;
  // A graph of training-domain nodes only needs no default opset.
  bool defaultNodes =
      !model.has_graph() ||
      llvm::any_of(model.graph().node(), [](const onnx::NodeProto &n) {
        return n.domain().empty() || n.domain() == "ai.onnx";
      });
  if (opset <= 0 && trainingDomain && !defaultNodes)
    opset = 1;
  if (opset <= 0)
    return modelError() << "imports no version of the default ONNX domain",
           nullptr;
  onnx::GraphProto &graph = *model.mutable_graph();
  if (graph.node_size() > ImportLimits::maxNodes)
    return modelError() << "has " << graph.node_size()
                        << " nodes, more than bwc's limit of "
                        << ImportLimits::maxNodes,
           nullptr;
  if (failed(checkSubgraphDepth(graph, 0)))
    return nullptr;

  if (options.trainable)
    constantNodesToInitializers(graph);
  llvm::StringSet<> initNames;
  for (const auto &init : graph.initializer())
    initNames.insert(init.name());
  if (failed(applyInputShapes(graph, initNames)) ||
      failed(bindInputValues(graph, initNames)))
    return nullptr;
  for (const auto &[name, file] : options.inputValueFiles)
    initNames.insert(name);
  for (const auto &[name, bytes] : options.inputValueBytes)
    initNames.insert(name);

  bool externalOk = true;
  for (auto &init : *graph.mutable_initializer()) {
    Location loc = NameLoc::get(StringAttr::get(ctx, init.name()), fileLoc());
    externalOk &= succeeded(loadExternalData(init, baseDir, [&] {
      return emitError(loc) << "initializer '" << init.name() << "' ";
    }));
  }
  if (!externalOk)
    return nullptr;

  // libonnx's checker (structural validation); its shape inference runs
  // once every node is imported (below).
  try {
    onnx::checker::check_model(model);
  } catch (const std::exception &e) {
    // Real exporters write models the 1.12 checker rejects for reasons that
    // do not affect import (missing value_info shapes, opsets above 17):
    // report and go on; bwc's own checks below reject what it cannot use.
    emitWarning(fileLoc()) << "the ONNX checker reports: "
                           << StringRef(e.what()).split('\n').first;
  }
  // Unknown ops: collect them all in one run.
  bool ok = true;
  for (int i = 0; i < graph.node_size(); ++i) {
    const auto &node = graph.node(i);
    bool knownDomain = node.domain().empty() || node.domain() == "ai.onnx" ||
                       node.domain() == kTrainingDomain;
    if (!knownDomain || !handlers.count(handlerKey(node))) {
      emitError(nodeLoc(node, i))
          << "node '" << displayName(node) << "' (" << node.op_type()
          << ", opset " << opset << "): unsupported operator"
          << (knownDomain ? "" : " in domain '" + node.domain() + "'");
      ok = false;
    }
  }
  if (!ok)
    return nullptr;

  // Function signature: graph inputs that are not initializers; a
  // sequence input is one argument per element (--input-shape=NAME=[...]).
  SmallVector<Type> argTypes;
  SmallVector<const onnx::ValueInfoProto *> args;
  SmallVector<int64_t> sequenceIndex; // by argument; -1: a tensor input
  llvm::StringMap<Type> sequenceElementTypes;
  llvm::StringSet<> known;
  // An optional input holds a tensor or a sequence (its element), or is
  // empty with --input-shape=NAME=none.
  auto contentType = [](const onnx::ValueInfoProto &vi) {
    return vi.type().has_optional_type() ? &vi.type().optional_type().elem_type()
                                         : &vi.type();
  };
  llvm::StringSet<> optionalInputs;
  std::deque<onnx::ValueInfoProto> innerInfos;
  for (const std::string &name : options.absentInputs) {
    if (!llvm::any_of(graph.input(), [&](const onnx::ValueInfoProto &vi) {
          return vi.name() == name && vi.type().has_optional_type();
        })) {
      modelError() << "--input-shape gives '" << name
                   << "' as none, but it is not an optional input";
      ok = false;
    }
  }
  for (const auto &[name, shapes] : options.sequenceShapes) {
    if (!llvm::any_of(graph.input(), [&](const onnx::ValueInfoProto &vi) {
          return vi.name() == name && contentType(vi)->has_sequence_type();
        })) {
      modelError() << "--input-shape gives '" << name
                   << "' a sequence's shapes, but it is not a sequence input";
      ok = false;
    }
  }
  for (const auto &vi : graph.input()) {
    if (initNames.contains(vi.name()))
      continue;
    const onnx::TypeProto *type = contentType(vi);
    if (vi.type().has_optional_type()) {
      optionalInputs.insert(vi.name());
      if (options.absentInputs.count(vi.name())) {
        known.insert(vi.name());
        continue;
      }
    }
    if (type->has_sequence_type()) {
      const auto &et = type->sequence_type().elem_type();
      Type elt = et.has_tensor_type()
                     ? elementTypeFor(ctx, et.tensor_type().elem_type())
                     : Type();
      auto it = options.sequenceShapes.find(vi.name());
      if (!elt) {
        modelError() << "input '" << vi.name()
                     << "' is a sequence of an unsupported element type";
        ok = false;
      } else if (it == options.sequenceShapes.end()) {
        modelError() << "input '" << vi.name()
                     << "' is a sequence: give its length and element shapes "
                        "with --input-shape="
                     << vi.name() << "=[D0xD1,...] ([] when empty)";
        ok = false;
      } else {
        sequenceElementTypes[vi.name()] = elt;
        for (auto [k, shape] : llvm::enumerate(it->second)) {
          if (std::string why = shapeBeyondLimits(shape); !why.empty()) {
            modelError() << "input '" << vi.name() << "[" << k << "]' " << why;
            ok = false;
          }
          argTypes.push_back(RankedTensorType::get(shape, elt));
          args.push_back(&vi);
          sequenceIndex.push_back(k);
        }
        known.insert(vi.name());
      }
      continue;
    }
    const onnx::ValueInfoProto *info = &vi;
    if (type != &vi.type()) {
      // An optional tensor: its element's type and shape.
      innerInfos.push_back(vi);
      innerInfos.back().mutable_type()->CopyFrom(*type);
      info = &innerInfos.back();
    }
    FailureOr<RankedTensorType> t = valueInfoType(*info, /*isInput=*/true);
    if (failed(t)) {
      ok = false;
      continue;
    }
    argTypes.push_back(*t);
    args.push_back(&vi);
    sequenceIndex.push_back(-1);
    known.insert(vi.name());
  }
  if (!ok)
    return nullptr;

  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc());
  builder.setInsertionPointToEnd(module->getBody());
  auto func = func::FuncOp::create(builder, fileLoc(), options.funcName,
                                   builder.getFunctionType(argTypes, {}));
  Block *body = func.addEntryBlock();
  program = func;
  builder.setInsertionPointToEnd(body);
  llvm::StringMap<SmallVector<Value>> sequenceArgs;
  for (auto [i, vi] : llvm::enumerate(args)) {
    if (sequenceIndex[i] < 0) {
      values[vi->name()] = body->getArgument(i);
      func.setArgAttr(i, "bwc.name", builder.getStringAttr(vi->name()));
      continue;
    }
    sequenceArgs[vi->name()].push_back(body->getArgument(i));
    func.setArgAttr(i, "bwc.name",
                    builder.getStringAttr(vi->name() + "[" +
                                          std::to_string(sequenceIndex[i]) +
                                          "]"));
  }
  for (const auto &[name, elt] : sequenceElementTypes) {
    BWCBuilder bb(builder, NameLoc::get(StringAttr::get(ctx, name), fileLoc()));
    values[name] = makeSequence(bb, sequenceArgs.lookup(name), elt);
  }
  for (const auto &entry : optionalInputs) {
    StringRef name = entry.getKey();
    BWCBuilder bb(builder, NameLoc::get(StringAttr::get(ctx, name), fileLoc()));
    values[name] = makeOptional(bb, values.lookup(name));
  }

  // Training: the initializers --trainable selects are parameters.
  std::optional<llvm::Regex> trainable;
  if (options.trainable) {
    trainable.emplace("^(" + *options.trainable + ")$");
    std::string why;
    if (!trainable->isValid(why))
      return modelError() << "--trainable '" << *options.trainable
                          << "' is not a valid regular expression: " << why,
             nullptr;
  }
  llvm::StringSet<> graphInputs;
  for (const auto &vi : graph.input())
    graphInputs.insert(vi.name());
  bool anyTrainable = false;

  for (const auto &init : graph.initializer()) {
    known.insert(init.name());
    if (values.count(init.name()))
      continue; // a graph input with a default: the input wins
    Location loc = NameLoc::get(StringAttr::get(ctx, init.name()), fileLoc());
    auto err = [&]() -> InFlightDiagnostic {
      return emitError(loc) << "initializer '" << init.name() << "' ";
    };
    Type elt = elementTypeFor(ctx, init.data_type());
    if (!elt) {
      err() << "has unsupported data type " << onnxTypeName(init.data_type());
      ok = false;
      continue;
    }
    if (init.dims_size() > ImportLimits::maxRank) {
      err() << "has rank " << init.dims_size() << ", more than bwc's limit of "
            << ImportLimits::maxRank;
      ok = false;
      continue;
    }
    SmallVector<int64_t> shape(init.dims().begin(), init.dims().end());
    if (llvm::any_of(shape, [](int64_t d) { return d < 0; })) {
      err() << "has a negative dimension";
      ok = false;
      continue;
    }
    if (std::string why = shapeBeyondLimits(shape); !why.empty()) {
      err() << why;
      ok = false;
      continue;
    }
    FailureOr<ElementsAttr> attr =
        tensorToAttr(init, RankedTensorType::get(shape, elt),
                     options.inlineConstantLimit, err);
    if (failed(attr)) {
      ok = false;
      continue;
    }
    if (trainable && isa<FloatType>(elt) && trainable->match(init.name())) {
      // A parameter: an argument bwc-grad differentiates with respect to.
      anyTrainable = true;
      unsigned index = func.getNumArguments();
      SmallVector<NamedAttribute> attrs = {
          builder.getNamedAttr("bwc.name", builder.getStringAttr(init.name())),
          builder.getNamedAttr("bwc.trainable", builder.getUnitAttr())};
      if (!graphInputs.contains(init.name()))
        attrs.push_back(builder.getNamedAttr("bwc.initial_value", *attr));
      if (failed(func.insertArgument(index, attr->getType(),
                                     builder.getDictionaryAttr(attrs), loc)))
        return nullptr;
      values[init.name()] = body->getArgument(index);
      continue;
    }
    values[init.name()] = ConstantOp::create(builder, loc, *attr);
  }
  if (trainable && !anyTrainable)
    return modelError() << "--trainable '" << *options.trainable
                        << "' matches no float initializer (nor a float "
                           "Constant node of more than one element)",
           nullptr;
  if (!ok)
    return nullptr;

  FailureOr<SmallVector<int>> order = orderNodes(graph, known);
  struct ImportedOutput {
    int node, index;
    Value value;
  };
  SmallVector<ImportedOutput> imported;
  if (failed(order))
    return nullptr;

  for (int i : *order) {
    const onnx::NodeProto &node = graph.node(i);
    // Skip nodes downstream of a failed one: their error is already out.
    if (llvm::any_of(node.input(), [&](const std::string &in) {
          return !in.empty() && !values.count(in);
        }))
      continue;
    if (failed(checkSequenceInputs(node, i, values))) {
      ok = false;
      continue;
    }
    NodeContext nc(node, opset, options.inlineConstantLimit, builder,
                   nodeLoc(node, i), values);
    nc.subgraphs = &subgraphImporter;
    nc.runCounter = &runCounter;
    nc.frozen = &frozen;
    SmallVector<Value> results;
    if (failed(handlers[handlerKey(node)](nc, results))) {
      ok = false;
      continue;
    }
    for (int k = 0; k < node.output_size() && k < (int)results.size(); ++k) {
      if (node.output(k).empty() || !results[k])
        continue;
      if (auto t = dyn_cast<ShapedType>(results[k].getType())) {
        if (std::string why = shapeBeyondLimits(t.getShape()); !why.empty()) {
          emitError(nodeLoc(node, i))
              << "node '" << displayName(node) << "' (" << node.op_type()
              << "): output '" << node.output(k) << "' " << why;
          ok = false;
          break;
        }
      }
      values[node.output(k)] = results[k];
      imported.push_back({i, k, results[k]});
    }
  }
  if (!ok)
    return nullptr;

  // libonnx's shape inference, the reference our own shape rules are
  // cross-checked against, runs only now: every node has passed bwc's own
  // checks. libonnx 1.12 trusts what it infers over (a rank-2 input of a
  // Conv with a rank-3 weight reads past a RepeatedPtrField: SEGV, the
  // modelproto fuzz target, 2026-12-04), so it never sees a graph bwc
  // rejects. Inference runs on a copy without the weights' bytes, so big
  // models stay cheap; small tensors (shape operands) keep their data.
  if (shapeInferenceIsSafe(graph)) {
    onnx::ModelProto light = model;
    for (auto &init : *light.mutable_graph()->mutable_initializer())
      if (init.raw_data().size() > 256)
        init.clear_raw_data();
    try {
      onnx::shape_inference::InferShapes(light);
      for (const auto &vi : light.graph().value_info())
        inferred[vi.name()] = vi;
    } catch (const std::exception &) {
      // Our own shape rules decide; inference is only a cross-check.
    }
  }
  for (const ImportedOutput &out : imported) {
    const onnx::NodeProto &node = graph.node(out.node);
    if (auto it = inferred.find(node.output(out.index)); it != inferred.end())
      crossCheck(nodeLoc(node, out.node),
                 "node '" + displayName(node) + "' (" + node.op_type() +
                     "): output '" + node.output(out.index) + "'",
                 it->second, out.value, "ONNX shape inference");
  }

  SmallVector<Value> outs;
  SmallVector<Type> outTypes;
  SmallVector<std::string> outNames;
  for (const auto &vi : graph.output()) {
    auto it = values.find(vi.name());
    if (it == values.end())
      return modelError() << "graph output '" << vi.name()
                          << "' is not produced by any node",
             nullptr;
    Value v = it->second;
    if (isOptional(v)) {
      // An optional output: its element's results, none when empty.
      v = optionalElement(v);
      if (!v)
        continue;
    }
    if (isSequence(v)) {
      // A sequence output: one result per element, NAME[i].
      for (auto [k, e] : llvm::enumerate(sequenceElements(v))) {
        outs.push_back(e);
        outTypes.push_back(e.getType());
        outNames.push_back(vi.name() + "[" + std::to_string(k) + "]");
      }
      continue;
    }
    crossCheck(fileLoc(), "graph output '" + vi.name() + "'", vi, v,
               "the model");
    outs.push_back(v);
    outTypes.push_back(v.getType());
    outNames.push_back(vi.name());
  }
  // A trainable initializer some node needs as a constant is a constant:
  // no gradient flows into an attribute in disguise.
  if (!frozen.empty()) {
    OpBuilder cb = OpBuilder::atBlockBegin(body);
    llvm::BitVector erase(func.getNumArguments());
    std::string names;
    for (BlockArgument arg : frozen) {
      if (auto n = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                     "bwc.name"))
        names += (names.empty() ? "'" : ", '") + n.str() + "'";
      auto init = dyn_cast_or_null<ElementsAttr>(
          func.getArgAttr(arg.getArgNumber(), "bwc.initial_value"));
      if (!init) {
        // Also a graph input (its value comes at run time): an input like
        // any other, not a parameter (NodeContext::freezeInput).
        func.removeArgAttr(arg.getArgNumber(), "bwc.trainable");
        continue;
      }
      arg.replaceAllUsesWith(ConstantOp::create(cb, arg.getLoc(), init));
      erase.set(arg.getArgNumber());
    }
    if (failed(func.eraseArguments(erase)))
      return nullptr;
    // Every initializer --trainable matched is read as a constant (a
    // Reshape's shape, BatchNormalization's statistics): say so, rather
    // than leave bwc-grad to find no parameter.
    bool anyLeft = llvm::any_of(func.getArguments(), [&](BlockArgument a) {
      return func.getArgAttr(a.getArgNumber(), "bwc.trainable") != nullptr;
    });
    if (trainable && !anyLeft)
      return modelError() << "--trainable '" << *options.trainable
                          << "' matches only initializers the model reads "
                             "as constants, not parameters: "
                          << names
                          << " (shape operands, BatchNormalization's running "
                             "mean and variance; docs/training.md)",
             nullptr;
  }
  if (counter) {
    // Every run draws new random values: the counter advances (wrapping).
    BWCBuilder bb(builder, fileLoc());
    outs.push_back(bb.add(counter, bb.scalar(1, eltOf(counter))));
    outTypes.push_back(counter.getType());
  }
  func::ReturnOp::create(builder, fileLoc(), outs);
  func.setType(builder.getFunctionType(func.getArgumentTypes(), outTypes));
  for (auto [i, name] : llvm::enumerate(outNames))
    func.setResultAttr(i, "bwc.name", builder.getStringAttr(name));
  if (counter)
    func.setResultAttr(outs.size() - 1, "bwc.state_update",
                       builder.getStringAttr("rng.counter"));
  // Shape arithmetic folded to constants leaves its inputs unused: drop
  // every dead pure op, last first, so whole dead chains go.
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*body)))
    if (isOpTriviallyDead(&op) ||
        (isa<UnrealizedConversionCastOp>(op) && op.use_empty()))
      op.erase();
  // Sequences are import-time lists: none may reach the program.
  for (Operation &op : *body)
    if (auto cast = dyn_cast<UnrealizedConversionCastOp>(op))
      return emitError(cast.getLoc())
                 << "a sequence reaches an op that takes tensors",
             nullptr;
  if (failed(verify(*module)))
    return nullptr;
  return module;
}

} // namespace

OwningOpRef<ModuleOp>
mlir::bwc::importOnnxBuffer(StringRef bytes, bool isText, StringRef bufferName,
                            StringRef baseDir, MLIRContext *ctx,
                            const OnnxImportOptions &options) {
  ctx->loadDialect<BWCDialect, func::FuncDialect>();
  Location loc = FileLineColLoc::get(ctx, bufferName, 0, 0);
  onnx::ModelProto model;
  if (isText) {
    std::string text = bytes.str();
    onnx::Status status = onnx::OnnxParser::Parse(model, text.c_str());
    if (!status.IsOK())
      return emitError(loc)
                 << "is not valid ONNX text: " << status.ErrorMessage(),
             nullptr;
  } else {
    if (bytes.size() > (size_t)INT_MAX ||
        !model.ParseFromArray(bytes.data(), (int)bytes.size()))
      return emitError(loc) << "is not an ONNX model (protobuf parse failed; "
                               "truncated or not a model file?)",
             nullptr;
  }
  if (!model.has_graph() || model.ir_version() <= 0)
    return emitError(loc) << "is not an ONNX model (no graph or IR version)",
           nullptr;
  std::optional<onnx::ModelProto> original;
  if (options.modelCopy)
    original = model;
  GraphImporter importer(ctx, options, bufferName, baseDir);
  OwningOpRef<ModuleOp> module = importer.run(model);
  if (module && original) {
    // The import read every external file already (and checked it), so
    // reading them again for the copy cannot fail but by a race.
    onnx::GraphProto &graph = *original->mutable_graph();
    if (options.trainable)
      constantNodesToInitializers(graph);
    for (auto &init : *graph.mutable_initializer())
      if (failed(onnx_import::loadExternalData(init, baseDir, [&] {
            return emitError(loc) << "initializer '" << init.name() << "' ";
          })))
        return nullptr;
    if (!original->SerializeToString(options.modelCopy))
      return emitError(loc) << "cannot be serialized again (over 2 GiB?)",
             nullptr;
  }
  return module;
}

OwningOpRef<ModuleOp>
mlir::bwc::importOnnxFile(StringRef path, MLIRContext *ctx,
                          const OnnxImportOptions &options) {
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (!buf) {
    emitError(FileLineColLoc::get(ctx, path, 0, 0))
        << "cannot be read: " << buf.getError().message();
    return nullptr;
  }
  bool isText = path.ends_with(".onnxtext");
  return importOnnxBuffer((*buf)->getBuffer(), isText, path,
                          llvm::sys::path::parent_path(path), ctx, options);
}
