//===- DataMovementOps.cpp - ONNX data movement ops into bwc --------------===//
//
// Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Concat, Split, Slice,
// Gather, Expand, Tile, Pad, DepthToSpace and SpaceToDepth (into
// bwc.reshape/transpose/slice/concat/broadcast/gather/pad), the shape queries
// Shape and Size, and the generators ConstantOfShape, Range and Trilu (into
// constants, plus a bwc.select for Trilu).
//
// Shape operands (Reshape's shape, Slice's starts, Pad's pads, ...) must be
// constants once the builder has folded the exporters' shape arithmetic;
// a non-constant one is a clear error, since bwc tensors are static.
//
//===----------------------------------------------------------------------===//
#include "NodeImporter.h"

#include "bwc/Dialect/BWC/Utils/ShapeUtils.h"
#include "llvm/Support/CheckedArithmetic.h"
#include <algorithm>
#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::bwc;
using namespace mlir::bwc::onnx_import;

namespace {

using Results = SmallVectorImpl<Value>;
using Ints = SmallVector<int64_t>;

/// Above this many elements a generated constant (Range, Trilu's mask) is
/// refused rather than materialized.
constexpr int64_t kMaxGeneratedElements = int64_t(1) << 26;
/// Pads beyond this size are rejected (they would overflow shape math).
constexpr int64_t kMaxPad = int64_t(1) << 40;

ArrayRef<int64_t> shapeOf(Value v) { return BWCBuilder::shapeOf(v); }
int64_t rankOf(Value v) { return BWCBuilder::typeOf(v).getRank(); }
Type eltOf(Value v) { return BWCBuilder::elementTypeOf(v); }

/// `[2, 3]`, for messages.
std::string str(ArrayRef<int64_t> xs) {
  std::string s = "[";
  for (auto [i, x] : llvm::enumerate(xs))
    s += (i ? ", " : "") + std::to_string(x);
  return s + "]";
}

/// Product of `dims`; std::nullopt on overflow.
std::optional<int64_t> product(ArrayRef<int64_t> dims) {
  int64_t p = 1;
  for (int64_t d : dims) {
    std::optional<int64_t> next = llvm::checkedMul(p, d);
    if (!next)
      return std::nullopt;
    p = *next;
  }
  return p;
}

/// Errors unless every dim of a computed shape is non-negative and the
/// element count fits in int64.
LogicalResult checkShape(NodeContext &nc, ArrayRef<int64_t> shape,
                         StringRef what) {
  if (llvm::any_of(shape, [](int64_t d) { return d < 0; }) || !product(shape))
    return nc.error() << what << " " << str(shape) << " is not a valid shape",
           failure();
  return success();
}

/// Integer values of input `i` (called `name` in messages), which must be
/// present and constant after folding.
FailureOr<Ints> constantInput(NodeContext &nc, int i, StringRef name) {
  if (!nc.input(i))
    return nc.error() << "expects the '" << name << "' input", failure();
  if (std::optional<Ints> v = nc.constInts(i))
    return *v;
  return nc.error() << "'" << name
                    << "' input must be a constant (a non-constant " << name
                    << " is not supported)",
         failure();
}

/// An integer list that is attribute `name` before opset `inputSince` and
/// the constant input `i` from then on; std::nullopt when absent.
FailureOr<std::optional<Ints>> intsAttrOrInput(NodeContext &nc,
                                               StringRef name, int i,
                                               int64_t inputSince) {
  if (nc.opset < inputSince)
    return nc.attrInts(name);
  if (!nc.input(i))
    return std::optional<Ints>();
  FailureOr<Ints> v = constantInput(nc, i, name);
  if (failed(v))
    return failure();
  return std::optional<Ints>(std::move(*v));
}

/// Normalizes `axes` against `rank`; errors on out-of-range or repeated axes.
FailureOr<Ints> normalizedAxes(NodeContext &nc, ArrayRef<int64_t> axes,
                               int64_t rank) {
  if (std::optional<Ints> norm = normalizeAxes(axes, rank))
    return *norm;
  return nc.error() << "axes " << str(axes)
                    << " are out of range or repeated for rank " << rank,
         failure();
}

/// A rank-0 attribute of element type `elt` holding `v`.
TypedAttr scalarAttr(Type elt, double v) {
  if (auto ft = dyn_cast<FloatType>(elt)) {
    APFloat f(v);
    bool lost;
    f.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    return FloatAttr::get(elt, f);
  }
  auto it = cast<IntegerType>(elt);
  // Saturating, as out-of-range double -> int64 casts are undefined.
  double clamped = std::isnan(v) ? 0 : std::clamp(v, -0x1p63, 0x1p63 - 1024);
  int64_t i = it.getWidth() == 1 ? (v != 0) : (int64_t)clamped;
  return IntegerAttr::get(elt, APInt(it.getWidth(), (uint64_t)i,
                                     /*isSigned=*/!it.isUnsigned(),
                                     /*implicitTrunc=*/true));
}

/// A 1-D constant of element type `elt`: `f` for float types, `i` for
/// integer types.
Value vectorConstant(NodeContext &nc, Type elt, ArrayRef<double> f,
                     ArrayRef<int64_t> i) {
  SmallVector<Attribute> vals;
  if (auto it = dyn_cast<IntegerType>(elt)) {
    for (int64_t v : i)
      vals.push_back(IntegerAttr::get(
          elt, APInt(it.getWidth(), (uint64_t)v, !it.isUnsigned(),
                     /*implicitTrunc=*/true)));
  } else {
    for (double v : f)
      vals.push_back(scalarAttr(elt, v));
  }
  auto type = RankedTensorType::get({(int64_t)vals.size()}, elt);
  return nc.bb.constant(DenseElementsAttr::get(type, vals));
}

//===----------------------------------------------------------------------===//
// Reshape family
//===----------------------------------------------------------------------===//

/// ONNX Reshape's target shape: 0 copies the input dim (unless allowzero),
/// one -1 takes the remaining elements.
FailureOr<Ints> reshapeTarget(NodeContext &nc, ArrayRef<int64_t> in,
                              ArrayRef<int64_t> spec, bool allowZero) {
  Ints out;
  int64_t inferAt = -1;
  for (auto [i, v] : llvm::enumerate(spec)) {
    if (v == -1) {
      if (inferAt >= 0)
        return nc.error() << "shape " << str(spec) << " has more than one -1",
               failure();
      inferAt = i;
      out.push_back(1);
    } else if (v < -1) {
      return nc.error() << "shape " << str(spec) << " has invalid dim " << v,
             failure();
    } else if (v == 0 && !allowZero) {
      if (i >= in.size())
        return nc.error() << "shape " << str(spec) << " copies dim " << i
                          << " (0) but the input has rank " << in.size(),
               failure();
      out.push_back(in[i]);
    } else {
      out.push_back(v);
    }
  }
  if (allowZero && inferAt >= 0 && llvm::is_contained(spec, 0))
    return nc.error() << "shape " << str(spec)
                      << " has both 0 and -1 with allowzero=1",
           failure();
  int64_t total = numElements(in);
  std::optional<int64_t> known = product(out);
  if (!known)
    return nc.error() << "shape " << str(spec) << " is too large", failure();
  if (inferAt >= 0) {
    if (*known == 0 || total % *known)
      return nc.error() << "cannot infer the -1 in shape " << str(spec)
                        << " for an input of shape " << str(in),
             failure();
    out[inferAt] = total / *known;
  } else if (*known != total) {
    return nc.error() << "shape " << str(spec) << " has " << *known
                      << " elements but the input " << str(in) << " has "
                      << total,
           failure();
  }
  return out;
}

LogicalResult importReshape(NodeContext &nc, Results &out) {
  FailureOr<Value> x = nc.requiredInput(0);
  if (failed(x))
    return failure();
  FailureOr<std::optional<Ints>> spec = intsAttrOrInput(nc, "shape", 1, 5);
  if (failed(spec))
    return failure();
  if (!*spec)
    return nc.error() << "expects a shape", failure();
  FailureOr<Ints> shape = reshapeTarget(nc, shapeOf(*x), **spec,
                                        nc.attrInt("allowzero", 0) != 0);
  if (failed(shape))
    return failure();
  out.push_back(nc.bb.reshape(*x, *shape));
  return success();
}

LogicalResult importFlatten(NodeContext &nc, Results &out) {
  FailureOr<Value> x = nc.requiredInput(0);
  if (failed(x))
    return failure();
  ArrayRef<int64_t> shape = shapeOf(*x);
  int64_t rank = shape.size(), axis = nc.attrInt("axis", 1);
  if (axis < -rank || axis > rank)
    return nc.error() << "axis " << axis << " is out of range for rank "
                      << rank,
           failure();
  if (axis < 0)
    axis += rank;
  out.push_back(nc.bb.reshape(*x, {numElements(shape.take_front(axis)),
                                   numElements(shape.drop_front(axis))}));
  return success();
}

LogicalResult importSqueeze(NodeContext &nc, Results &out) {
  FailureOr<Value> x = nc.requiredInput(0);
  if (failed(x))
    return failure();
  ArrayRef<int64_t> shape = shapeOf(*x);
  FailureOr<std::optional<Ints>> axesIn = intsAttrOrInput(nc, "axes", 1, 13);
  if (failed(axesIn))
    return failure();
  Ints axes;
  if (*axesIn && !(*axesIn)->empty()) {
    FailureOr<Ints> norm = normalizedAxes(nc, **axesIn, shape.size());
    if (failed(norm))
      return failure();
    axes = *norm;
    for (int64_t a : axes)
      if (shape[a] != 1)
        return nc.error() << "cannot squeeze axis " << a << " of size "
                          << shape[a],
               failure();
  } else {
    for (auto [i, d] : llvm::enumerate(shape))
      if (d == 1)
        axes.push_back(i);
  }
  out.push_back(nc.bb.reshape(*x, reducedShape(shape, axes, false)));
  return success();
}

LogicalResult importUnsqueeze(NodeContext &nc, Results &out) {
  FailureOr<Value> x = nc.requiredInput(0);
  if (failed(x))
    return failure();
  FailureOr<std::optional<Ints>> axesIn = intsAttrOrInput(nc, "axes", 1, 13);
  if (failed(axesIn))
    return failure();
  if (!*axesIn)
    return nc.error() << "expects axes", failure();
  ArrayRef<int64_t> shape = shapeOf(*x);
  int64_t rank = shape.size() + (*axesIn)->size();
  FailureOr<Ints> axes = normalizedAxes(nc, **axesIn, rank);
  if (failed(axes))
    return failure();
  Ints result;
  const int64_t *next = shape.begin();
  for (int64_t i = 0; i < rank; ++i)
    result.push_back(llvm::is_contained(*axes, i) ? 1 : *next++);
  out.push_back(nc.bb.reshape(*x, result));
  return success();
}

//===----------------------------------------------------------------------===//
// Permutation, concatenation, splitting, slicing
//===----------------------------------------------------------------------===//

LogicalResult importTranspose(NodeContext &nc, Results &out) {
  FailureOr<Value> x = nc.requiredInput(0);
  if (failed(x))
    return failure();
  int64_t rank = rankOf(*x);
  Ints perm;
  if (std::optional<Ints> p = nc.attrInts("perm")) {
    perm = *p;
  } else {
    for (int64_t i = rank - 1; i >= 0; --i)
      perm.push_back(i);
  }
  Ints sorted(perm);
  llvm::sort(sorted);
  bool valid = (int64_t)perm.size() == rank;
  for (int64_t i = 0; valid && i < rank; ++i)
    valid = sorted[i] == i;
  if (!valid)
    return nc.error() << "perm " << str(perm)
                      << " is not a permutation of rank " << rank,
           failure();
  out.push_back(nc.bb.transpose(*x, perm));
  return success();
}

LogicalResult importConcat(NodeContext &nc, Results &out) {
  if (nc.numInputs() == 0)
    return nc.error() << "expects at least one input", failure();
  if (!nc.hasAttr("axis"))
    return nc.error() << "expects an axis attribute", failure();
  SmallVector<Value> xs;
  for (int i = 0; i < nc.numInputs(); ++i) {
    FailureOr<Value> x = nc.requiredInput(i);
    if (failed(x))
      return failure();
    xs.push_back(*x);
  }
  FailureOr<int64_t> axis = nc.axis(nc.attrInt("axis", 0), rankOf(xs[0]));
  if (failed(axis))
    return failure();
  for (Value x : xs) {
    ArrayRef<int64_t> s = shapeOf(x), s0 = shapeOf(xs[0]);
    bool same = s.size() == s0.size() && eltOf(x) == eltOf(xs[0]);
    for (size_t d = 0; same && d < s.size(); ++d)
      same = (int64_t)d == *axis || s[d] == s0[d];
    if (!same)
      return nc.error() << "input shapes " << str(s0) << " and " << str(s)
                        << " do not concatenate along axis " << *axis,
             failure();
  }
  out.push_back(nc.bb.concat(xs, *axis));
  return success();
}

/// Split's part sizes: the `split` list when given, else num_outputs parts
/// (the last one smaller) from opset 18, else equal parts.
FailureOr<Ints> splitSizes(NodeContext &nc, int64_t dim) {
  int64_t n = nc.node.output_size();
  FailureOr<std::optional<Ints>> split = intsAttrOrInput(nc, "split", 1, 13);
  if (failed(split))
    return failure();
  if (*split && !(*split)->empty()) {
    Ints sizes = **split;
    int64_t sum = 0;
    for (int64_t s : sizes)
      sum += s;
    if ((int64_t)sizes.size() != n ||
        llvm::any_of(sizes, [](int64_t s) { return s < 0; }) || sum != dim)
      return nc.error() << "split " << str(sizes) << " does not split a dim of "
                        << dim << " into " << n << " outputs",
             failure();
    return sizes;
  }
  if (nc.opset >= 18 && nc.hasAttr("num_outputs")) {
    int64_t parts = nc.attrInt("num_outputs", 0);
    if (parts != n || parts <= 0)
      return nc.error() << "num_outputs=" << parts << " but the node has " << n
                        << " outputs",
             failure();
    int64_t chunk = (dim + parts - 1) / parts;
    if (chunk * (parts - 1) > dim)
      return nc.error() << "num_outputs=" << parts << " cannot split a dim of "
                        << dim,
             failure();
    Ints sizes(parts - 1, chunk);
    sizes.push_back(dim - chunk * (parts - 1));
    return sizes;
  }
  if (n <= 0 || dim % n)
    return nc.error() << "cannot split a dim of " << dim << " equally into "
                      << n << " outputs",
           failure();
  return Ints(n, dim / n);
}

LogicalResult importSplit(NodeContext &nc, Results &out) {
  FailureOr<Value> x = nc.requiredInput(0);
  if (failed(x))
    return failure();
  ArrayRef<int64_t> shape = shapeOf(*x);
  FailureOr<int64_t> axis = nc.axis(nc.attrInt("axis", 0), shape.size());
  if (failed(axis))
    return failure();
  FailureOr<Ints> sizes = splitSizes(nc, shape[*axis]);
  if (failed(sizes))
    return failure();
  Ints starts(shape.size(), 0), steps(shape.size(), 1), size(shape);
  for (int64_t s : *sizes) {
    size[*axis] = s;
    out.push_back(nc.bb.slice(*x, starts, size, steps));
    starts[*axis] += s;
  }
  return success();
}

/// Clamps one ONNX Slice range to `dim` and returns {start, size}.
std::pair<int64_t, int64_t> clampSlice(int64_t start, int64_t end,
                                       int64_t step, int64_t dim) {
  if (dim == 0)
    return {0, 0};
  if (start < 0)
    start += dim;
  if (end < 0)
    end += dim;
  int64_t size;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
    size = end > start ? (end - start - 1) / step + 1 : 0;
  } else {
    start = std::clamp<int64_t>(start, 0, dim - 1);
    end = std::clamp<int64_t>(end, -1, dim - 1);
    int64_t back = step == INT64_MIN ? INT64_MAX : -step;
    size = start > end ? (start - end - 1) / back + 1 : 0;
  }
  return {size ? start : 0, size};
}

LogicalResult importSlice(NodeContext &nc, Results &out) {
  FailureOr<Value> x = nc.requiredInput(0);
  if (failed(x))
    return failure();
  ArrayRef<int64_t> shape = shapeOf(*x);
  int64_t rank = shape.size();
  Ints starts, ends, axes, steps;
  if (nc.opset < 10) {
    std::optional<Ints> s = nc.attrInts("starts"), e = nc.attrInts("ends");
    if (!s || !e)
      return nc.error() << "expects starts and ends attributes", failure();
    starts = *s;
    ends = *e;
    axes = nc.attrInts("axes").value_or(Ints());
  } else {
    FailureOr<Ints> s = constantInput(nc, 1, "starts");
    if (failed(s))
      return failure();
    FailureOr<Ints> e = constantInput(nc, 2, "ends");
    if (failed(e))
      return failure();
    starts = *s;
    ends = *e;
    if (nc.input(3)) {
      FailureOr<Ints> a = constantInput(nc, 3, "axes");
      if (failed(a))
        return failure();
      axes = *a;
    }
    if (nc.input(4)) {
      FailureOr<Ints> st = constantInput(nc, 4, "steps");
      if (failed(st))
        return failure();
      steps = *st;
    }
  }
  if (axes.empty() && !nc.hasAttr("axes") && !nc.input(3))
    for (int64_t i = 0; i < (int64_t)starts.size(); ++i)
      axes.push_back(i);
  if (steps.empty())
    steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() ||
      steps.size() != starts.size())
    return nc.error() << "starts " << str(starts) << ", ends " << str(ends)
                      << ", axes " << str(axes) << " and steps " << str(steps)
                      << " differ in length",
           failure();
  if (failed(normalizedAxes(nc, axes, rank)))
    return failure();

  Ints begin(rank, 0), size(shape), stride(rank, 1);
  for (size_t k = 0; k < axes.size(); ++k) {
    int64_t a = axes[k] < 0 ? axes[k] + rank : axes[k];
    if (steps[k] == 0)
      return nc.error() << "steps " << str(steps) << " has a zero step",
             failure();
    std::tie(begin[a], size[a]) =
        clampSlice(starts[k], ends[k], steps[k], shape[a]);
    stride[a] = steps[k];
  }
  out.push_back(nc.bb.slice(*x, begin, size, stride));
  return success();
}

//===----------------------------------------------------------------------===//
// Gather, Expand, Tile, Pad
//===----------------------------------------------------------------------===//

LogicalResult importGather(NodeContext &nc, Results &out) {
  FailureOr<Value> data = nc.requiredInput(0), idx = nc.requiredInput(1);
  if (failed(data) || failed(idx))
    return failure();
  FailureOr<int64_t> axis = nc.axis(nc.attrInt("axis", 0), rankOf(*data));
  if (failed(axis))
    return failure();
  int64_t dim = shapeOf(*data)[*axis];
  Value indices = *idx;
  if (std::optional<Ints> vals = nc.constInts(1)) {
    for (int64_t &v : *vals) {
      if (v < -dim || v >= dim)
        return nc.error() << "index " << v << " is out of range for axis "
                          << *axis << " of size " << dim,
               failure();
      if (v < 0)
        v += dim;
    }
    auto type = RankedTensorType::get(shapeOf(*idx),
                                      nc.bb.builder().getI64Type());
    indices = nc.bb.constant(DenseElementsAttr::get(type, ArrayRef(*vals)));
  } else if (!eltOf(indices).isInteger(32) && !eltOf(indices).isInteger(64)) {
    return nc.error() << "expects i32 or i64 indices", failure();
  }
  Ints shape(shapeOf(*data).take_front(*axis));
  llvm::append_range(shape, shapeOf(indices));
  llvm::append_range(shape, shapeOf(*data).drop_front(*axis + 1));
  OpBuilder &b = nc.bb.builder();
  out.push_back(b.createOrFold<GatherOp>(
      nc.getLoc(), RankedTensorType::get(shape, eltOf(*data)), *data, indices,
      b.getI64IntegerAttr(*axis)));
  return success();
}

LogicalResult importExpand(NodeContext &nc, Results &out) {
  FailureOr<Value> x = nc.requiredInput(0);
  if (failed(x))
    return failure();
  FailureOr<Ints> shape = constantInput(nc, 1, "shape");
  if (failed(shape) || failed(checkShape(nc, *shape, "shape")))
    return failure();
  std::optional<Ints> result = broadcastShapes(shapeOf(*x), *shape);
  if (!result)
    return nc.error() << "input shape " << str(shapeOf(*x))
                      << " does not broadcast with shape " << str(*shape),
           failure();
  out.push_back(nc.bb.broadcastTo(*x, *result));
  return success();
}

LogicalResult importTile(NodeContext &nc, Results &out) {
  FailureOr<Value> x = nc.requiredInput(0);
  if (failed(x))
    return failure();
  FailureOr<Ints> repeats = constantInput(nc, 1, "repeats");
  if (failed(repeats))
    return failure();
  ArrayRef<int64_t> shape = shapeOf(*x);
  if (repeats->size() != shape.size() ||
      llvm::any_of(*repeats, [](int64_t r) { return r < 0; }))
    return nc.error() << "repeats " << str(*repeats)
                      << " must hold one non-negative count per dim of "
                      << str(shape),
           failure();
  // x -> [1, d0, 1, d1, ...] -> [r0, d0, r1, d1, ...] -> [r0*d0, r1*d1, ...].
  Ints spread, tiled, result;
  for (auto [d, r] : llvm::zip(shape, *repeats)) {
    spread.append({1, d});
    tiled.append({r, d});
    result.push_back(r * d);
  }
  if (failed(checkShape(nc, tiled, "tiled shape")))
    return failure();
  Value t = nc.bb.broadcastTo(nc.bb.reshape(*x, spread), tiled);
  out.push_back(nc.bb.reshape(t, result));
  return success();
}

/// Pad's mode, value and begin-then-end pads of every dim, from attributes
/// (opset < 11) or inputs.
struct PadSpec {
  PadMode mode;
  double value = 0;
  Ints pads;
};

FailureOr<PadSpec> padSpec(NodeContext &nc, int64_t rank) {
  PadSpec spec;
  std::string mode = nc.attrString("mode", "constant");
  if (mode == "constant")
    spec.mode = PadMode::constant;
  else if (mode == "reflect")
    spec.mode = PadMode::reflect;
  else if (mode == "edge")
    spec.mode = PadMode::edge;
  else
    return nc.error() << "unsupported mode '" << mode << "'", failure();

  Ints pads, axes;
  if (nc.opset < 11) {
    std::optional<Ints> p = nc.attrInts(nc.opset < 2 ? "paddings" : "pads");
    if (!p)
      return nc.error() << "expects a pads attribute", failure();
    pads = *p;
    spec.value = nc.attrFloat("value", 0.0);
  } else {
    FailureOr<Ints> p = constantInput(nc, 1, "pads");
    if (failed(p))
      return failure();
    pads = *p;
    if (nc.input(2)) {
      std::optional<SmallVector<double>> v = nc.constFloats(2);
      if (!v)
        return nc.error() << "'constant_value' input must be a constant",
               failure();
      if (v->size() != 1)
        return nc.error() << "'constant_value' input must be a scalar",
               failure();
      spec.value = (*v)[0];
    }
    if (nc.opset >= 18 && nc.input(3)) {
      FailureOr<Ints> a = constantInput(nc, 3, "axes");
      if (failed(a))
        return failure();
      axes = *a;
    }
  }
  if (axes.empty())
    for (int64_t i = 0; i < rank; ++i)
      axes.push_back(i);
  int64_t n = axes.size();
  if ((int64_t)pads.size() != 2 * n)
    return nc.error() << "pads " << str(pads) << " must hold " << 2 * n
                      << " values",
           failure();
  if (llvm::any_of(pads, [](int64_t p) { return p > kMaxPad || p < -kMaxPad; }))
    return nc.error() << "pads " << str(pads) << " are out of range",
           failure();
  // Repeated axes are an error; normalizedAxes also checks the range.
  if (failed(normalizedAxes(nc, axes, rank)))
    return failure();
  spec.pads.assign(2 * rank, 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t a = axes[k] < 0 ? axes[k] + rank : axes[k];
    spec.pads[a] = pads[k];
    spec.pads[rank + a] = pads[n + k];
  }
  return spec;
}

LogicalResult importPad(NodeContext &nc, Results &out) {
  FailureOr<Value> x = nc.requiredInput(0);
  if (failed(x))
    return failure();
  int64_t rank = rankOf(*x);
  FailureOr<PadSpec> spec = padSpec(nc, rank);
  if (failed(spec))
    return failure();
  // Negative pads crop: a slice first, then the positive part as bwc.pad.
  ArrayRef<int64_t> shape = shapeOf(*x);
  Ints starts(rank, 0), sizes(shape), steps(rank, 1), pads(2 * rank, 0);
  for (int64_t i = 0; i < rank; ++i) {
    int64_t lo = spec->pads[i], hi = spec->pads[rank + i];
    starts[i] = std::max<int64_t>(-lo, 0);
    sizes[i] += std::min<int64_t>(lo, 0) + std::min<int64_t>(hi, 0);
    if (sizes[i] < 0)
      return nc.error() << "pads " << str(spec->pads) << " crop dim " << i
                        << " of size " << shape[i] << " below zero",
             failure();
    if (sizes[i] == 0)
      starts[i] = 0;
    pads[i] = std::max<int64_t>(lo, 0);
    pads[rank + i] = std::max<int64_t>(hi, 0);
    bool padded = pads[i] || pads[rank + i];
    if (spec->mode == PadMode::reflect && padded &&
        (pads[i] >= sizes[i] || pads[rank + i] >= sizes[i]))
      return nc.error() << "reflect pads " << str(spec->pads)
                        << " must be smaller than dim " << i << " (size "
                        << sizes[i] << ")",
             failure();
    if (spec->mode == PadMode::edge && padded && sizes[i] == 0)
      return nc.error() << "edge padding of the empty dim " << i, failure();
  }
  Value y = nc.bb.slice(*x, starts, sizes, steps);
  if (llvm::any_of(pads, [](int64_t p) { return p != 0; })) {
    Ints result(sizes);
    for (int64_t i = 0; i < rank; ++i)
      result[i] += pads[i] + pads[rank + i];
    y = PadOp::create(nc.bb.builder(), nc.getLoc(),
                      RankedTensorType::get(result, eltOf(y)), spec->mode, y,
                      pads, scalarAttr(eltOf(y), spec->value));
  }
  out.push_back(y);
  return success();
}

//===----------------------------------------------------------------------===//
// Depth <-> space
//===----------------------------------------------------------------------===//

/// Checks a rank-4 input and a positive blocksize.
FailureOr<int64_t> blockSize(NodeContext &nc, Value x) {
  if (rankOf(x) != 4)
    return nc.error() << "expects a rank-4 input but got rank " << rankOf(x),
           failure();
  int64_t b = nc.attrInt("blocksize", 0);
  // The bound keeps b * b * channels far from overflow.
  if (b <= 0 || b > (int64_t(1) << 20))
    return nc.error() << "blocksize " << b << " must be in [1, 2^20]",
           failure();
  return b;
}

LogicalResult importDepthToSpace(NodeContext &nc, Results &out) {
  FailureOr<Value> x = nc.requiredInput(0);
  if (failed(x))
    return failure();
  FailureOr<int64_t> bs = blockSize(nc, *x);
  if (failed(bs))
    return failure();
  int64_t b = *bs;
  ArrayRef<int64_t> s = shapeOf(*x);
  int64_t n = s[0], c = s[1], h = s[2], w = s[3];
  if (c % (b * b))
    return nc.error() << "channels " << c << " are not divisible by blocksize^2 "
                      << b * b,
           failure();
  std::string mode = nc.attrString("mode", "DCR");
  Value t;
  if (mode == "DCR") {
    t = nc.bb.reshape(*x, {n, b, b, c / (b * b), h, w});
    t = nc.bb.transpose(t, {0, 3, 4, 1, 5, 2});
  } else if (mode == "CRD") {
    t = nc.bb.reshape(*x, {n, c / (b * b), b, b, h, w});
    t = nc.bb.transpose(t, {0, 1, 4, 2, 5, 3});
  } else {
    return nc.error() << "unsupported mode '" << mode << "'", failure();
  }
  out.push_back(nc.bb.reshape(t, {n, c / (b * b), h * b, w * b}));
  return success();
}

LogicalResult importSpaceToDepth(NodeContext &nc, Results &out) {
  FailureOr<Value> x = nc.requiredInput(0);
  if (failed(x))
    return failure();
  FailureOr<int64_t> bs = blockSize(nc, *x);
  if (failed(bs))
    return failure();
  int64_t b = *bs;
  ArrayRef<int64_t> s = shapeOf(*x);
  int64_t n = s[0], c = s[1], h = s[2], w = s[3];
  if (h % b || w % b)
    return nc.error() << "spatial dims " << h << "x" << w
                      << " are not divisible by blocksize " << b,
           failure();
  Value t = nc.bb.reshape(*x, {n, c, h / b, b, w / b, b});
  t = nc.bb.transpose(t, {0, 3, 5, 1, 2, 4});
  out.push_back(nc.bb.reshape(t, {n, c * b * b, h / b, w / b}));
  return success();
}

//===----------------------------------------------------------------------===//
// Shape queries and generators
//===----------------------------------------------------------------------===//

LogicalResult importShape(NodeContext &nc, Results &out) {
  FailureOr<Value> x = nc.requiredInput(0);
  if (failed(x))
    return failure();
  ArrayRef<int64_t> shape = shapeOf(*x);
  int64_t rank = shape.size();
  auto clampDim = [&](int64_t v) {
    return std::clamp<int64_t>(v < 0 ? v + rank : v, 0, rank);
  };
  int64_t start = clampDim(nc.attrInt("start", 0));
  int64_t end = clampDim(nc.attrInt("end", rank));
  out.push_back(nc.bb.i64Vector(
      end > start ? shape.slice(start, end - start) : ArrayRef<int64_t>()));
  return success();
}

LogicalResult importSize(NodeContext &nc, Results &out) {
  FailureOr<Value> x = nc.requiredInput(0);
  if (failed(x))
    return failure();
  auto type = RankedTensorType::get({}, nc.bb.builder().getI64Type());
  out.push_back(nc.bb.constant(
      DenseElementsAttr::get(type, BWCBuilder::typeOf(*x).getNumElements())));
  return success();
}

LogicalResult importConstantOfShape(NodeContext &nc, Results &out) {
  FailureOr<Ints> shape = constantInput(nc, 0, "shape");
  if (failed(shape) || failed(checkShape(nc, *shape, "shape")))
    return failure();
  Attribute value = FloatAttr::get(nc.bb.builder().getF32Type(), 0.0);
  if (const auto *a = nc.attr("value")) {
    const onnx::TensorProto &t = a->t();
    Type elt = elementTypeFor(nc.getContext(), t.data_type());
    if (!elt)
      return nc.error() << "value has unsupported data type "
                        << onnxTypeName(t.data_type()),
             failure();
    Ints dims(t.dims().begin(), t.dims().end());
    if (product(dims) != 1)
      return nc.error() << "value must hold exactly one element", failure();
    FailureOr<ElementsAttr> attr = tensorToAttr(
        t, RankedTensorType::get(dims, elt),
        std::numeric_limits<int64_t>::max(),
        [&]() -> InFlightDiagnostic { return nc.error() << "value "; });
    if (failed(attr))
      return failure();
    value = *cast<DenseElementsAttr>(*attr).getValues<Attribute>().begin();
  }
  auto type =
      RankedTensorType::get(*shape, cast<TypedAttr>(value).getType());
  out.push_back(nc.bb.constant(DenseElementsAttr::get(type, {value})));
  return success();
}

LogicalResult importRange(NodeContext &nc, Results &out) {
  FailureOr<Value> start = nc.requiredInput(0);
  if (failed(start))
    return failure();
  std::optional<SmallVector<double>> s = nc.constFloats(0),
                                     l = nc.constFloats(1),
                                     d = nc.constFloats(2);
  if (!s || !l || !d)
    return nc.error() << "start, limit and delta must be constants (a "
                         "non-constant Range is not supported)",
           failure();
  if (s->size() != 1 || l->size() != 1 || d->size() != 1)
    return nc.error() << "start, limit and delta must be scalars", failure();
  Type elt = eltOf(*start);
  if (isa<FloatType>(elt)) {
    double s0 = (*s)[0], lim = (*l)[0], delta = (*d)[0];
    if (delta == 0 || !std::isfinite(s0) || !std::isfinite(lim) ||
        !std::isfinite(delta))
      return nc.error() << "delta " << delta << " must be non-zero and bounds "
                        << "finite",
             failure();
    double count = std::max(std::ceil((lim - s0) / delta), 0.0);
    if (count > kMaxGeneratedElements)
      return nc.error() << "range of " << count << " elements is too large",
             failure();
    SmallVector<double> vals;
    for (int64_t i = 0; i < (int64_t)count; ++i)
      vals.push_back(s0 + i * delta);
    out.push_back(vectorConstant(nc, elt, vals, {}));
    return success();
  }
  int64_t s0 = *nc.constInts(0)->begin(), lim = *nc.constInts(1)->begin();
  int64_t delta = *nc.constInts(2)->begin();
  if (delta == 0)
    return nc.error() << "delta must be non-zero", failure();
  __int128 span = (__int128)lim - s0;
  __int128 count = span / delta + (span % delta != 0 && (span > 0) == (delta > 0));
  if (count > kMaxGeneratedElements)
    return nc.error() << "range of " << (int64_t)std::min<__int128>(
                                            count, INT64_MAX)
                      << " elements is too large",
           failure();
  Ints vals;
  for (int64_t k = 0; k < (int64_t)count; ++k)
    vals.push_back(s0 + k * delta);
  out.push_back(vectorConstant(nc, elt, {}, vals));
  return success();
}

/// Trilu's mask over the last two dims, for a constant `k`:
/// keep(i, j) = j - i >= k (upper) or j - i <= k (lower).
Value triluMask(NodeContext &nc, int64_t rows, int64_t cols, int64_t k,
                bool upper) {
  SmallVector<bool> keep;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      keep.push_back(upper ? j - i >= k : j - i <= k);
  auto type = RankedTensorType::get({rows, cols}, nc.bb.builder().getI1Type());
  return nc.bb.constant(DenseElementsAttr::get(type, keep));
}

/// The same mask for a run-time `k`: a constant j - i compared with k.
Value triluMask(NodeContext &nc, int64_t rows, int64_t cols, Value k,
                bool upper) {
  Ints diag;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      diag.push_back(j - i);
  auto type = RankedTensorType::get({rows, cols}, nc.bb.builder().getI64Type());
  Value d = nc.bb.constant(DenseElementsAttr::get(type, ArrayRef(diag)));
  k = nc.bb.cast(nc.bb.reshape(k, {}), nc.bb.builder().getI64Type());
  return nc.bb.binary(upper ? BinaryFn::ge : BinaryFn::le, d, k);
}

LogicalResult importTrilu(NodeContext &nc, Results &out) {
  FailureOr<Value> x = nc.requiredInput(0);
  if (failed(x))
    return failure();
  int64_t rank = rankOf(*x);
  if (rank < 2)
    return nc.error() << "expects an input of rank >= 2 but got rank " << rank,
           failure();
  bool upper = nc.attrInt("upper", 1) != 0;
  int64_t rows = shapeOf(*x)[rank - 2], cols = shapeOf(*x)[rank - 1];
  if (product({rows, cols}).value_or(INT64_MAX) > kMaxGeneratedElements)
    return nc.error() << "mask of " << rows << "x" << cols
                      << " is too large to build",
           failure();
  Value mask;
  if (Value k = nc.input(1)) {
    if (BWCBuilder::typeOf(k).getNumElements() != 1)
      return nc.error() << "'k' input must be a scalar", failure();
    if (std::optional<Ints> kv = nc.constInts(1))
      mask = triluMask(nc, rows, cols, (*kv)[0], upper);
    else
      mask = triluMask(nc, rows, cols, k, upper);
  } else {
    mask = triluMask(nc, rows, cols, 0, upper);
  }
  out.push_back(nc.bb.select(mask, *x, nc.bb.scalar(0, eltOf(*x))));
  return success();
}

} // namespace

void onnx_import::registerDataMovementHandlers(HandlerTable &t) {
  t["Reshape"] = importReshape;
  t["Flatten"] = importFlatten;
  t["Squeeze"] = importSqueeze;
  t["Unsqueeze"] = importUnsqueeze;
  t["Transpose"] = importTranspose;
  t["Concat"] = importConcat;
  t["Split"] = importSplit;
  t["Slice"] = importSlice;
  t["Gather"] = importGather;
  t["Expand"] = importExpand;
  t["Tile"] = importTile;
  t["Pad"] = importPad;
  t["DepthToSpace"] = importDepthToSpace;
  t["SpaceToDepth"] = importSpaceToDepth;
  t["Shape"] = importShape;
  t["Size"] = importSize;
  t["ConstantOfShape"] = importConstantOfShape;
  t["Range"] = importRange;
  t["Trilu"] = importTrilu;
}
