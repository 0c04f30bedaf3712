//===- ControlFlowOps.cpp - ONNX If, Loop and Scan into bwc ---------------===//
//
// bwc compiles static programs, so control flow is resolved at import:
// - If whose condition is a compile-time constant (folded, or an input
//   bound with --input-value) imports only the taken branch, inline, with
//   the outer values it captures;
// - Loop with a constant trip count (or a condition that folds to false)
//   and Scan (sequence length from its inputs' static shapes) unroll: each
//   iteration's body is imported inline, loop-carried values threaded
//   through, scan outputs stacked.
// An If whose condition depends on runtime values runs both branches and
// selects each output (importRuntimeIf; branches of different output
// types are an error saying what to bind). A Loop whose trip count or
// condition depends on runtime values is an error naming the node and
// saying what to bind; so is an unroll longer than kMaxIterations.
// Bodies nest to any depth (the importer's subgraph limit applies).
//
//===----------------------------------------------------------------------===//
#include "NodeImporter.h"

using namespace mlir;
using namespace mlir::bwc;
using namespace mlir::bwc::onnx_import;

namespace {

constexpr int64_t kMaxIterations = 4096;

const onnx::GraphProto *graphAttr(NodeContext &nc, StringRef name) {
  const onnx::AttributeProto *a = nc.attr(name);
  return a && a->has_g() ? &a->g() : nullptr;
}

/// `values` stacked along a new axis `axis` (reversed when `reverse`).
Value stack(BWCBuilder &bb, ArrayRef<Value> values, int64_t axis,
            bool reverse) {
  SmallVector<Value> parts;
  for (Value v : values) {
    Ints shape(BWCBuilder::shapeOf(v));
    shape.insert(shape.begin() + axis, 1);
    parts.push_back(bb.reshape(v, shape));
  }
  if (reverse)
    std::reverse(parts.begin(), parts.end());
  return parts.size() == 1 ? parts[0] : bb.concat(parts, axis);
}

/// If on a condition known only at run time: both branches are imported
/// and each output is a select between them (speculative execution, as
/// XLA turns small conditionals into selects; ONNX ops have no side
/// effects, and a select takes only the chosen branch's element, so the
/// other branch's NaN or Inf never leaks). The cost is both branches'.
/// The branches must agree on each output's type (shape and element
/// type); otherwise, or for a sequence or optional output, an error names
/// the output and says what to bind.
LogicalResult importRuntimeIf(NodeContext &nc, Value cond,
                              const onnx::GraphProto &thenBranch,
                              const onnx::GraphProto &elseBranch,
                              Results &out) {
  auto condType = dyn_cast<RankedTensorType>(cond.getType());
  if (!condType || !condType.getElementType().isInteger(1) ||
      condType.getNumElements() != 1)
    return nc.error() << "expects a condition of one bool element but got "
                      << cond.getType(),
           failure();
  SmallVector<Value> thenResults, elseResults;
  if (failed(nc.importSubgraph(thenBranch, {}, thenResults)) ||
      failed(nc.importSubgraph(elseBranch, {}, elseResults)))
    return failure();
  if ((int)thenResults.size() != nc.node.output_size() ||
      (int)elseResults.size() != nc.node.output_size())
    return nc.error() << "has branches with " << thenResults.size() << " and "
                      << elseResults.size() << " outputs for "
                      << nc.node.output_size(),
           failure();
  BWCBuilder &bb = nc.bb;
  Value c = bb.reshape(cond, {});
  for (auto [k, t, e] : llvm::enumerate(thenResults, elseResults)) {
    if (!isa<RankedTensorType>(t.getType()) || t.getType() != e.getType())
      return nc.error() << "has a condition known only at run time and "
                           "branches whose output "
                        << k << " differs (" << t.getType() << " vs "
                        << e.getType()
                        << "): bwc runs both branches and selects, which "
                           "needs equal tensor types; bind the inputs the "
                           "condition depends on with --input-value to "
                           "compile one branch",
             failure();
    Value v = bb.select(c, t, e);
    // (Branches returning the same value need no select.)
    if (auto select = v.getDefiningOp<SelectOp>())
      select->setAttr("bwc.if_both_branches", UnitAttr::get(nc.getContext()));
    out.push_back(v);
  }
  return success();
}

LogicalResult importIf(NodeContext &nc, Results &out) {
  const onnx::GraphProto *thenBranch = graphAttr(nc, "then_branch"),
                         *elseBranch = graphAttr(nc, "else_branch");
  if (!thenBranch || !elseBranch)
    return nc.error() << "expects then_branch and else_branch graphs",
           failure();
  std::optional<Ints> cond = nc.constInts(0);
  if (!cond || cond->size() != 1) {
    FailureOr<Value> c = nc.requiredInput(0);
    if (failed(c))
      return failure();
    return importRuntimeIf(nc, *c, *thenBranch, *elseBranch, out);
  }
  SmallVector<Value> results;
  if (failed(nc.importSubgraph((*cond)[0] ? *thenBranch : *elseBranch, {},
                               results)))
    return failure();
  if ((int)results.size() != nc.node.output_size())
    return nc.error() << "branch has " << results.size() << " outputs for "
                      << nc.node.output_size(),
           failure();
  out.append(results.begin(), results.end());
  return success();
}

LogicalResult importLoop(NodeContext &nc, Results &out) {
  const onnx::GraphProto *body = graphAttr(nc, "body");
  if (!body)
    return nc.error() << "expects a body graph", failure();
  std::optional<Ints> trip, cond;
  if (nc.input(0)) {
    trip = nc.constInts(0);
    if (!trip || trip->size() != 1)
      return nc.error() << "has a trip count that is not a compile-time "
                           "constant: bind the inputs it depends on with "
                           "--input-value",
             failure();
  }
  bool go = true;
  if (nc.input(1)) {
    cond = nc.constInts(1);
    if (!cond || cond->size() != 1)
      return nc.error() << "has a condition that is not a compile-time "
                           "constant: bind the inputs it depends on with "
                           "--input-value",
             failure();
    go = (*cond)[0] != 0;
  }
  int64_t carried = nc.numInputs() - 2;
  if (carried < 0 || body->input_size() != carried + 2 ||
      body->output_size() < carried + 1)
    return nc.error() << "expects a body of (iteration, condition, "
                      << carried << " carried values) inputs and "
                      << "(condition, carried values, scan outputs) outputs",
           failure();
  SmallVector<Value> state;
  for (int i = 0; i < carried; ++i) {
    FailureOr<Value> v = nc.requiredInput(2 + i);
    if (failed(v))
      return failure();
    state.push_back(*v);
  }
  BWCBuilder &bb = nc.bb;
  Type i64 = bb.builder().getI64Type(), i1 = bb.builder().getI1Type();
  int64_t scans = body->output_size() - 1 - carried;
  SmallVector<SmallVector<Value>> scanned(scans);
  int64_t limit = trip ? (*trip)[0] : kMaxIterations + 1;
  int64_t i = 0;
  for (; go && i < limit; ++i) {
    if (i >= kMaxIterations)
      return nc.error() << "unrolls at most " << kMaxIterations
                        << " iterations",
             failure();
    SmallVector<Value> in{bb.scalar((double)i, i64), bb.scalar(1, i1)};
    in.append(state.begin(), state.end());
    SmallVector<Value> res;
    if (failed(nc.importSubgraph(*body, in, res)))
      return failure();
    std::optional<Ints> next = NodeContext::constantInts(res[0]);
    if (!next || next->size() != 1)
      return nc.error() << "has a body whose condition output is not a "
                           "compile-time constant (loops with data-dependent "
                           "exits are not supported)",
             failure();
    go = (*next)[0] != 0;
    for (int k = 0; k < carried; ++k) {
      // A carried sequence may grow (and an empty optional become one); a
      // tensor keeps its type.
      bool tensorIn = !isSequence(state[k]) && !isOptional(state[k]);
      bool tensorOut = !isSequence(res[1 + k]) && !isOptional(res[1 + k]);
      if (tensorIn != tensorOut ||
          (tensorIn &&
           BWCBuilder::typeOf(res[1 + k]) != BWCBuilder::typeOf(state[k])))
        return nc.error() << "changes the type of carried value " << k
                          << " between iterations",
               failure();
      state[k] = res[1 + k];
    }
    for (int k = 0; k < scans; ++k) {
      if (isSequence(res[1 + carried + k]) || isOptional(res[1 + carried + k]))
        return nc.error() << "has a body whose scan output " << k
                          << " is a sequence, expected a tensor",
               failure();
      scanned[k].push_back(res[1 + carried + k]);
    }
  }
  out.append(state.begin(), state.end());
  for (int k = 0; k < scans; ++k) {
    if (scanned[k].empty())
      return nc.error() << "runs no iteration, so its scan outputs would be "
                           "empty",
             failure();
    out.push_back(stack(bb, scanned[k], 0, false));
  }
  return success();
}

/// Scan from opset 9 on over `states` and `inputs` (no batch dim).
LogicalResult scan(NodeContext &nc, const onnx::GraphProto &body,
                   SmallVector<Value> states, ArrayRef<Value> inputs,
                   SmallVectorImpl<Value> &out) {
  BWCBuilder &bb = nc.bb;
  int64_t m = inputs.size(), n = states.size();
  Ints inAxes = nc.attrInts("scan_input_axes").value_or(Ints(m, 0));
  Ints inDirs = nc.attrInts("scan_input_directions").value_or(Ints(m, 0));
  int64_t k = body.output_size() - n;
  if (k < 0)
    return nc.error() << "expects a body with at least its " << n
                      << " state outputs",
           failure();
  Ints outAxes = nc.attrInts("scan_output_axes").value_or(Ints(k, 0));
  Ints outDirs = nc.attrInts("scan_output_directions").value_or(Ints(k, 0));
  if ((int64_t)inAxes.size() != m || (int64_t)inDirs.size() != m ||
      (int64_t)outAxes.size() != k || (int64_t)outDirs.size() != k)
    return nc.error() << "expects one axis and direction per scan input and "
                         "output",
           failure();
  int64_t steps = -1;
  for (int64_t j = 0; j < m; ++j) {
    FailureOr<int64_t> a = nc.axis(inAxes[j], rankOf(inputs[j]));
    if (failed(a))
      return failure();
    inAxes[j] = *a;
    int64_t len = shapeOf(inputs[j])[*a];
    if (steps >= 0 && len != steps)
      return nc.error() << "expects scan inputs of one sequence length",
             failure();
    steps = len;
  }
  if (steps <= 0 || steps > kMaxIterations)
    return nc.error() << "expects a sequence length in [1, " << kMaxIterations
                      << "] but got " << steps,
           failure();
  SmallVector<SmallVector<Value>> scanned(k);
  for (int64_t t = 0; t < steps; ++t) {
    SmallVector<Value> in(states);
    for (int64_t j = 0; j < m; ++j) {
      int64_t at = inDirs[j] ? steps - 1 - t : t;
      Ints shape(shapeOf(inputs[j])), starts(shape.size(), 0),
          strides(shape.size(), 1);
      starts[inAxes[j]] = at;
      shape[inAxes[j]] = 1;
      Value s = bb.slice(inputs[j], starts, shape, strides);
      shape.erase(shape.begin() + inAxes[j]);
      in.push_back(bb.reshape(s, shape));
    }
    SmallVector<Value> res;
    if (failed(nc.importSubgraph(body, in, res)))
      return failure();
    for (int64_t j = 0; j < n; ++j)
      states[j] = res[j];
    for (int64_t j = 0; j < k; ++j)
      scanned[j].push_back(res[n + j]);
  }
  out.append(states.begin(), states.end());
  for (int64_t j = 0; j < k; ++j) {
    FailureOr<int64_t> a =
        nc.axis(outAxes[j], rankOf(scanned[j].front()) + 1);
    if (failed(a))
      return failure();
    out.push_back(stack(bb, scanned[j], *a, outDirs[j] != 0));
  }
  return success();
}

LogicalResult importScan(NodeContext &nc, Results &out) {
  const onnx::GraphProto *body = graphAttr(nc, "body");
  if (!body)
    return nc.error() << "expects a body graph", failure();
  int64_t m = nc.attrInt("num_scan_inputs", 0);
  bool batched = nc.opset < 9; // opset 8: sequence_lens, then a batch dim
  int first = batched ? 1 : 0;
  // m is checked before it is subtracted (a fuzzed INT64_MIN overflowed).
  if (m <= 0 || m > nc.numInputs() - first)
    return nc.error() << "expects num_scan_inputs in [1, inputs] matching "
                         "the body's inputs",
           failure();
  int64_t n = nc.numInputs() - first - m;
  if (body->input_size() != n + m)
    return nc.error() << "expects num_scan_inputs in [1, inputs] matching "
                         "the body's inputs",
           failure();
  if (batched && nc.input(0))
    return nc.error() << "supports no sequence_lens (every sequence runs "
                         "its full length)",
           failure();
  SmallVector<Value> states, inputs;
  for (int i = first; i < nc.numInputs(); ++i) {
    FailureOr<Value> v = nc.requiredInput(i);
    if (failed(v))
      return failure();
    (i - first < n ? states : inputs).push_back(*v);
  }
  if (!batched)
    return scan(nc, *body, states, inputs, out);
  // Opset 8: every input has a leading batch dim; scan each batch entry
  // (sequence along axis 0 after dropping it) and stack the results.
  BWCBuilder &bb = nc.bb;
  int64_t batch = shapeOf(states.empty() ? inputs[0] : states[0])[0];
  auto entry = [&](Value v, int64_t b) {
    Ints shape(shapeOf(v)), starts(shape.size(), 0), strides(shape.size(), 1);
    starts[0] = b;
    shape[0] = 1;
    Value s = bb.slice(v, starts, shape, strides);
    return bb.reshape(s, ArrayRef<int64_t>(shape).drop_front());
  };
  SmallVector<SmallVector<Value>> perOutput;
  for (int64_t b = 0; b < batch; ++b) {
    SmallVector<Value> st, in, res;
    for (Value v : states)
      st.push_back(entry(v, b));
    for (Value v : inputs)
      in.push_back(entry(v, b));
    if (failed(scan(nc, *body, st, in, res)))
      return failure();
    perOutput.resize(res.size());
    for (auto [j, v] : llvm::enumerate(res))
      perOutput[j].push_back(v);
  }
  for (ArrayRef<Value> vs : perOutput)
    out.push_back(stack(bb, vs, 0, false));
  return success();
}

} // namespace

void onnx_import::registerControlFlowHandlers(HandlerTable &t) {
  t["If"] = importIf;
  t["Loop"] = importLoop;
  t["Scan"] = importScan;
}
