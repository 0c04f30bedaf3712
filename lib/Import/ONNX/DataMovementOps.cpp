//===- DataMovementOps.cpp - ONNX data movement ops into bwc --------------===//
//
// Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Concat, Split, Slice,
// DepthToSpace and SpaceToDepth (into bwc.reshape/transpose/slice/concat).
// Gather, Expand, Tile and Pad are in GatherPadOps.cpp; Shape, Size and the
// generators in ShapeOps.cpp.
//
// Shape operands (Reshape's shape, Slice's starts, Split's split, ...) must be
// constants once the builder has folded the exporters' shape arithmetic;
// a non-constant one is a clear error, since bwc tensors are static.
//
//===----------------------------------------------------------------------===//
#include "NodeImporter.h"

#include "bwc/Dialect/BWC/Utils/ShapeUtils.h"
#include <algorithm>

using namespace mlir;
using namespace mlir::bwc;
using namespace mlir::bwc::onnx_import;

namespace {

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
  t["DepthToSpace"] = importDepthToSpace;
  t["SpaceToDepth"] = importSpaceToDepth;
}
