//===- SequenceOps.cpp - ONNX sequence ops, resolved at import ------------===//
//
// SequenceConstruct, SequenceEmpty, SequenceInsert, SequenceAt,
// SequenceErase, SequenceLength, SplitToSequence, ConcatFromSequence and
// SequenceMap. bwc compiles static programs: a sequence is a list of tensors
// known at import (NodeImporter.h, "Sequences"), positions must be
// compile-time constants (folded, or inputs bound with --input-value), and
// SequenceMap unrolls its body once per element. What remains are the
// element tensors and the ops that make them; the sequence itself costs no
// kernel and no byte. Optional, OptionalHasElement and OptionalGetElement
// live here too (registered with the sequence ops): an optional is the same
// import-time container, holding one element or none.
//
//===----------------------------------------------------------------------===//
#include "NodeImporter.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlir::bwc;
using namespace mlir::bwc::onnx_import;

static constexpr const char *kElementAttr = "bwc.sequence_element";

Value onnx_import::makeSequence(BWCBuilder &bb, ValueRange elements,
                                Type elementType) {
  OpBuilder &b = bb.builder();
  SmallVector<Type> types(elements.getTypes());
  auto cast = UnrealizedConversionCastOp::create(
      b, bb.getLoc(), TypeRange{TupleType::get(b.getContext(), types)},
      elements);
  cast->setAttr(kElementAttr, TypeAttr::get(elementType));
  return cast.getResult(0);
}

bool onnx_import::isSequence(Value v) {
  auto cast = v.getDefiningOp<UnrealizedConversionCastOp>();
  return cast && cast->hasAttr(kElementAttr);
}

SmallVector<Value> onnx_import::sequenceElements(Value v) {
  return llvm::to_vector(
      v.getDefiningOp<UnrealizedConversionCastOp>().getInputs());
}

Type onnx_import::sequenceElementType(Value v) {
  return cast<TypeAttr>(v.getDefiningOp()->getAttr(kElementAttr)).getValue();
}

static constexpr const char *kOptionalAttr = "bwc.optional";

Value onnx_import::makeOptional(BWCBuilder &bb, Value element) {
  OpBuilder &b = bb.builder();
  SmallVector<Value> operands;
  SmallVector<Type> types;
  if (element) {
    operands.push_back(element);
    types.push_back(element.getType());
  }
  auto cast = UnrealizedConversionCastOp::create(
      b, bb.getLoc(), TypeRange{TupleType::get(b.getContext(), types)},
      operands);
  cast->setAttr(kOptionalAttr, b.getUnitAttr());
  return cast.getResult(0);
}

bool onnx_import::isOptional(Value v) {
  auto cast = v.getDefiningOp<UnrealizedConversionCastOp>();
  return cast && cast->hasAttr(kOptionalAttr);
}

Value onnx_import::optionalElement(Value v) {
  auto inputs = v.getDefiningOp<UnrealizedConversionCastOp>().getInputs();
  return inputs.empty() ? Value() : inputs[0];
}

bool onnx_import::takesSequences(const onnx::NodeProto &node) {
  static const llvm::StringSet<> ops = {
      "SequenceInsert", "SequenceAt",         "SequenceErase",
      "SequenceLength", "ConcatFromSequence", "SequenceMap",
      "Identity",       "If",                 "Loop",
      "Optional",       "OptionalHasElement", "OptionalGetElement"};
  return (node.domain().empty() || node.domain() == "ai.onnx") &&
         ops.contains(node.op_type());
}

namespace {

/// Input `i`, which must be a sequence.
FailureOr<Value> sequenceInput(NodeContext &nc, int i) {
  FailureOr<Value> v = nc.requiredInput(i);
  if (failed(v))
    return failure();
  if (!isSequence(*v))
    return nc.error() << "expects input " << i << " ('" << nc.node.input(i)
                      << "') to be a sequence",
           failure();
  return *v;
}

/// Input `i`, which must be a tensor.
FailureOr<Value> tensorInput(NodeContext &nc, int i) {
  FailureOr<Value> v = nc.requiredInput(i);
  if (failed(v))
    return failure();
  if (isSequence(*v))
    return nc.error() << "expects input " << i << " ('" << nc.node.input(i)
                      << "') to be a tensor, not a sequence",
           failure();
  return *v;
}

/// The position operand `i` (a scalar or one-element tensor) when present,
/// checked against [-n, n - 1] (or [-n, n] for an insertion); `dflt` when
/// absent.
FailureOr<int64_t> position(NodeContext &nc, int i, int64_t n, bool insert,
                            int64_t dflt) {
  if (!nc.input(i))
    return dflt;
  std::optional<Ints> p = nc.constInts(i);
  if (!p)
    return nc.error() << "has a position that is not a compile-time "
                         "constant: bind the inputs it depends on with "
                         "--input-value (bwc resolves sequences at import)",
           failure();
  if (p->size() != 1)
    return nc.error() << "expects a one-element position but got "
                      << p->size() << " values",
           failure();
  int64_t pos = (*p)[0], hi = insert ? n : n - 1;
  if (pos < -n || pos > hi)
    return nc.error() << "has position " << pos << " outside [" << -n << ", "
                      << hi << "] for a sequence of " << n << " tensors",
           failure();
  return pos < 0 ? pos + n : pos;
}

LogicalResult checkElementType(NodeContext &nc, Value seq, Value t) {
  if (eltOf(t) != sequenceElementType(seq))
    return nc.error() << "inserts a tensor of " << eltOf(t)
                      << " into a sequence of " << sequenceElementType(seq),
           failure();
  return success();
}

LogicalResult importSequenceConstruct(NodeContext &nc, Results &out) {
  if (nc.numInputs() == 0)
    return nc.error() << "expects at least one tensor", failure();
  SmallVector<Value> elements;
  for (int i = 0; i < nc.numInputs(); ++i) {
    FailureOr<Value> t = tensorInput(nc, i);
    if (failed(t))
      return failure();
    if (!elements.empty() && eltOf(*t) != eltOf(elements[0]))
      return nc.error() << "mixes element types " << eltOf(elements[0])
                        << " and " << eltOf(*t),
             failure();
    elements.push_back(*t);
  }
  out.push_back(makeSequence(nc.bb, elements, eltOf(elements[0])));
  return success();
}

LogicalResult importSequenceEmpty(NodeContext &nc, Results &out) {
  int64_t dtype = nc.attrInt("dtype", onnx::TensorProto::FLOAT);
  Type elt = elementTypeFor(nc.getContext(), dtype);
  if (!elt)
    return nc.error() << "has unsupported dtype " << onnxTypeName(dtype),
           failure();
  out.push_back(makeSequence(nc.bb, {}, elt));
  return success();
}

LogicalResult importSequenceInsert(NodeContext &nc, Results &out) {
  FailureOr<Value> seq = sequenceInput(nc, 0);
  if (failed(seq))
    return failure();
  FailureOr<Value> t = tensorInput(nc, 1);
  if (failed(t) || failed(checkElementType(nc, *seq, *t)))
    return failure();
  SmallVector<Value> elements = sequenceElements(*seq);
  int64_t n = elements.size();
  FailureOr<int64_t> pos = position(nc, 2, n, /*insert=*/true, n);
  if (failed(pos))
    return failure();
  elements.insert(elements.begin() + *pos, *t);
  out.push_back(makeSequence(nc.bb, elements, sequenceElementType(*seq)));
  return success();
}

LogicalResult importSequenceAt(NodeContext &nc, Results &out) {
  FailureOr<Value> seq = sequenceInput(nc, 0);
  if (failed(seq))
    return failure();
  SmallVector<Value> elements = sequenceElements(*seq);
  int64_t n = elements.size();
  if (!nc.input(1))
    return nc.error() << "expects a position", failure();
  if (n == 0)
    return nc.error() << "reads from an empty sequence", failure();
  FailureOr<int64_t> pos = position(nc, 1, n, /*insert=*/false, 0);
  if (failed(pos))
    return failure();
  out.push_back(elements[*pos]);
  return success();
}

LogicalResult importSequenceErase(NodeContext &nc, Results &out) {
  FailureOr<Value> seq = sequenceInput(nc, 0);
  if (failed(seq))
    return failure();
  SmallVector<Value> elements = sequenceElements(*seq);
  int64_t n = elements.size();
  if (n == 0)
    return nc.error() << "erases from an empty sequence", failure();
  FailureOr<int64_t> pos = position(nc, 1, n, /*insert=*/false, n - 1);
  if (failed(pos))
    return failure();
  elements.erase(elements.begin() + *pos);
  out.push_back(makeSequence(nc.bb, elements, sequenceElementType(*seq)));
  return success();
}

LogicalResult importSequenceLength(NodeContext &nc, Results &out) {
  FailureOr<Value> seq = sequenceInput(nc, 0);
  if (failed(seq))
    return failure();
  out.push_back(nc.bb.scalar((double)sequenceElements(*seq).size(),
                             nc.bb.builder().getI64Type()));
  return success();
}

LogicalResult importSplitToSequence(NodeContext &nc, Results &out) {
  FailureOr<Value> x = tensorInput(nc, 0);
  if (failed(x) || failed(requireRank(nc, *x, 1, "input")))
    return failure();
  Ints shape(shapeOf(*x));
  FailureOr<int64_t> axis = nc.axis(nc.attrInt("axis", 0), shape.size());
  if (failed(axis))
    return failure();
  int64_t len = shape[*axis];
  Ints sizes;
  bool squeeze = false;
  if (!nc.input(1)) {
    // One element per index along the axis, the axis kept or dropped.
    sizes.assign(len, 1);
    squeeze = nc.attrInt("keepdims", 1) == 0;
  } else {
    std::optional<Ints> split = nc.constInts(1);
    if (!split)
      return nc.error() << "has a split that is not a compile-time constant: "
                           "bind the inputs it depends on with --input-value",
             failure();
    bool scalar = rankOf(nc.input(1)) == 0;
    if (scalar) {
      int64_t chunk = (*split)[0];
      if (chunk <= 0)
        return nc.error() << "has split " << chunk << ", expected > 0",
               failure();
      for (int64_t at = 0; at < len; at += chunk)
        sizes.push_back(std::min(chunk, len - at));
    } else {
      int64_t sum = 0;
      for (int64_t s : *split) {
        if (s < 0)
          return nc.error() << "has a negative split " << s, failure();
        sum += s;
      }
      if (sum != len)
        return nc.error() << "has splits summing to " << sum << " along axis "
                          << *axis << " of length " << len,
               failure();
      sizes = *split;
    }
  }
  SmallVector<Value> elements;
  int64_t at = 0;
  for (int64_t s : sizes) {
    Ints starts(shape.size(), 0), size(shape), steps(shape.size(), 1);
    starts[*axis] = at;
    size[*axis] = s;
    Value part = nc.bb.slice(*x, starts, size, steps);
    if (squeeze) {
      Ints squeezed(shape);
      squeezed.erase(squeezed.begin() + *axis);
      part = nc.bb.reshape(part, squeezed);
    }
    elements.push_back(part);
    at += s;
  }
  out.push_back(makeSequence(nc.bb, elements, eltOf(*x)));
  return success();
}

LogicalResult importConcatFromSequence(NodeContext &nc, Results &out) {
  FailureOr<Value> seq = sequenceInput(nc, 0);
  if (failed(seq))
    return failure();
  SmallVector<Value> elements = sequenceElements(*seq);
  if (elements.empty())
    return nc.error() << "concatenates an empty sequence", failure();
  if (!nc.hasAttr("axis"))
    return nc.error() << "expects an axis attribute", failure();
  bool newAxis = nc.attrInt("new_axis", 0) != 0;
  Ints shape(shapeOf(elements[0]));
  int64_t rank = shape.size() + (newAxis ? 1 : 0);
  if (rank == 0)
    return nc.error() << "concatenates scalars without new_axis", failure();
  FailureOr<int64_t> axis = nc.axis(nc.attrInt("axis", 0), rank);
  if (failed(axis))
    return failure();
  SmallVector<Value> parts;
  for (Value e : elements) {
    Ints s(shapeOf(e));
    bool ok = (int64_t)s.size() == (int64_t)shape.size();
    for (size_t d = 0; ok && d < s.size(); ++d)
      ok = s[d] == shape[d] || (!newAxis && (int64_t)d == *axis);
    if (!ok)
      return nc.error() << "concatenates shapes " << str(shape) << " and "
                        << str(s) << " along axis " << *axis,
             failure();
    if (newAxis) {
      s.insert(s.begin() + *axis, 1);
      e = nc.bb.reshape(e, s);
    }
    parts.push_back(e);
  }
  out.push_back(parts.size() == 1 ? parts[0] : nc.bb.concat(parts, *axis));
  return success();
}

LogicalResult importSequenceMap(NodeContext &nc, Results &out) {
  const onnx::AttributeProto *a = nc.attr("body");
  if (!a || !a->has_g())
    return nc.error() << "expects a body graph", failure();
  const onnx::GraphProto &body = a->g();
  FailureOr<Value> seq = sequenceInput(nc, 0);
  if (failed(seq))
    return failure();
  int64_t n = sequenceElements(*seq).size();
  SmallVector<Value> inputs;
  for (int i = 0; i < nc.numInputs(); ++i) {
    FailureOr<Value> v = nc.requiredInput(i);
    if (failed(v))
      return failure();
    if (isSequence(*v) && (int64_t)sequenceElements(*v).size() != n)
      return nc.error() << "maps sequences of " << n << " and "
                        << sequenceElements(*v).size() << " tensors",
             failure();
    inputs.push_back(*v);
  }
  SmallVector<SmallVector<Value>> results(body.output_size());
  for (int64_t k = 0; k < n; ++k) {
    SmallVector<Value> in, res;
    for (Value v : inputs)
      in.push_back(isSequence(v) ? sequenceElements(v)[k] : v);
    if (failed(nc.importSubgraph(body, in, res)))
      return failure();
    for (auto [j, r] : llvm::enumerate(res)) {
      if (isSequence(r))
        return nc.error() << "has a body whose output " << j
                          << " is a sequence, expected a tensor",
               failure();
      results[j].push_back(r);
    }
  }
  for (int j = 0; j < body.output_size(); ++j) {
    Type elt;
    if (!results[j].empty()) {
      elt = eltOf(results[j][0]);
    } else {
      // No element to map: the body's declared output type.
      const auto &vi = body.output(j);
      elt = vi.type().has_tensor_type()
                ? elementTypeFor(nc.getContext(),
                                 vi.type().tensor_type().elem_type())
                : Type();
      if (!elt)
        return nc.error() << "maps an empty sequence with a body output of "
                             "unknown element type",
               failure();
    }
    out.push_back(makeSequence(nc.bb, results[j], elt));
  }
  return success();
}

LogicalResult importOptional(NodeContext &nc, Results &out) {
  Value x = nc.input(0);
  if (x && isOptional(x))
    return nc.error() << "wraps an optional in an optional", failure();
  if (!x && !nc.hasAttr("type"))
    return nc.error() << "expects an input or a 'type' attribute",
           failure();
  out.push_back(makeOptional(nc.bb, x));
  return success();
}

LogicalResult importOptionalHasElement(NodeContext &nc, Results &out) {
  // Opset 18 also takes a tensor or a sequence (true) or nothing (false).
  Value x = nc.input(0);
  bool has = x && (!isOptional(x) || optionalElement(x));
  out.push_back(nc.bb.scalar(has ? 1 : 0, nc.bb.builder().getI1Type()));
  return success();
}

LogicalResult importOptionalGetElement(NodeContext &nc, Results &out) {
  FailureOr<Value> x = nc.requiredInput(0);
  if (failed(x))
    return failure();
  if (!isOptional(*x)) {
    out.push_back(*x); // opset 18: a tensor or a sequence is its own element
    return success();
  }
  Value e = optionalElement(*x);
  if (!e)
    return nc.error() << "gets the element of an empty optional", failure();
  out.push_back(e);
  return success();
}

} // namespace

void onnx_import::registerSequenceHandlers(HandlerTable &t) {
  t["Optional"] = importOptional;
  t["OptionalHasElement"] = importOptionalHasElement;
  t["OptionalGetElement"] = importOptionalGetElement;
  t["SequenceConstruct"] = importSequenceConstruct;
  t["SequenceEmpty"] = importSequenceEmpty;
  t["SequenceInsert"] = importSequenceInsert;
  t["SequenceAt"] = importSequenceAt;
  t["SequenceErase"] = importSequenceErase;
  t["SequenceLength"] = importSequenceLength;
  t["SplitToSequence"] = importSplitToSequence;
  t["ConcatFromSequence"] = importConcatFromSequence;
  t["SequenceMap"] = importSequenceMap;
}
