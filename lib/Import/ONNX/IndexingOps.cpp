//===- IndexingOps.cpp - Hardmax, OneHot, CumSum, TopK, Compress, ... -----===//
//
// Index-shaped ops written with the ops every later pass already fuses,
// plans and runs on both targets:
// - Hardmax and OneHot compare an index tensor with an iota along the axis;
// - EyeLike is a constant;
// - CumSum is a Hillis-Steele scan: ceil(log2 n) shifted adds (exact for
//   integers, O(n log n) work, no n x n operand);
// - TopK with a static K takes K rounds of (arg-reduce, mask the pick), so
//   ties resolve to the lower index, as ONNX Runtime's do, also when the
//   input holds the mask value itself (-inf for largest). K is bounded
//   (kMaxTopK); a larger K is an error naming the node;
// - Compress (constant condition) is a gather, ReverseSequence a one-hot
//   contraction over the time axis, Det (n <= 4) the Leibniz formula.
//
//===----------------------------------------------------------------------===//
#include "NodeImporter.h"

#include "bwc/Dialect/BWC/Utils/ShapeUtils.h"
#include <algorithm>

using namespace mlir;
using namespace mlir::bwc;
using namespace mlir::bwc::onnx_import;

namespace {

/// TopK's rounds each add an arg-reduce and a mask; past this K the
/// decomposition is too large to be the right kernel.
constexpr int64_t kMaxTopK = 256;

/// A tensor of `shape` (element type `elt`) filled with `value`.
Value filled(BWCBuilder &bb, ArrayRef<int64_t> shape, Type elt, double value) {
  return bb.broadcastTo(bb.scalar(value, elt), shape);
}

/// One-hot of the index the arg-reduce picks along `axis`, as i1.
Value argOneHot(BWCBuilder &bb, Value x, int64_t axis, ArgReduceKind kind) {
  RankedTensorType type = BWCBuilder::typeOf(x);
  OpBuilder &b = bb.builder();
  auto resultType = RankedTensorType::get(
      reducedShape(type.getShape(), {axis}, /*keepDims=*/true),
      b.getI64Type());
  Value idx = ArgReduceOp::create(b, bb.getLoc(), resultType, kind, x, axis,
                                  /*keepdims=*/true,
                                  /*select_last_index=*/false);
  Value iota = iotaAlong(bb, type.getRank(), axis, type.getDimSize(axis),
                         b.getI64Type());
  return bb.binary(BinaryFn::eq, idx, iota);
}

LogicalResult importHardmax(NodeContext &nc, Results &out) {
  FailureOr<Value> x = nc.requiredInput(0);
  if (failed(x))
    return failure();
  int64_t rank = rankOf(*x);
  FailureOr<int64_t> axis =
      nc.axis(nc.attrInt("axis", nc.opset < 13 ? 1 : -1), rank);
  if (failed(axis))
    return failure();
  Type elt = eltOf(*x);
  if (!isa<FloatType>(elt))
    return nc.error() << "expects a float input", failure();
  if (nc.opset >= 13) {
    out.push_back(
        nc.bb.cast(argOneHot(nc.bb, *x, *axis, ArgReduceKind::argmax), elt));
    return success();
  }
  // Before opset 13 the input is coerced to 2-D at `axis`.
  ArrayRef<int64_t> shape = shapeOf(*x);
  std::optional<int64_t> rows = product(shape.take_front(*axis));
  std::optional<int64_t> cols = product(shape.drop_front(*axis));
  if (!rows || !cols)
    return nc.error() << "has too many elements", failure();
  Value flat = nc.bb.reshape(*x, {*rows, *cols});
  Value y = nc.bb.cast(argOneHot(nc.bb, flat, 1, ArgReduceKind::argmax), elt);
  out.push_back(nc.bb.reshape(y, shape));
  return success();
}

LogicalResult importOneHot(NodeContext &nc, Results &out) {
  FailureOr<Value> indices = nc.requiredInput(0), values = nc.requiredInput(2);
  if (failed(indices) || failed(values))
    return failure();
  std::optional<SmallVector<double>> depths = nc.constFloats(1);
  if (!depths || depths->size() != 1)
    return nc.error() << "expects a constant scalar depth (bind the input "
                         "with --input-value)",
           failure();
  double depthValue = (*depths)[0];
  if (!(depthValue >= 1) || depthValue > (1 << 24))
    return nc.error() << "expects a depth in [1, 2^24] but got "
                      << depthValue,
           failure();
  int64_t depth = (int64_t)depthValue;
  if (BWCBuilder::typeOf(*values).getNumElements() != 2)
    return nc.error() << "expects values of 2 elements [off, on]", failure();
  int64_t rank = rankOf(*indices) + 1;
  FailureOr<int64_t> axis = nc.axis(nc.attrInt("axis", -1), rank);
  if (failed(axis))
    return failure();
  BWCBuilder &bb = nc.bb;
  Type i64 = bb.builder().getI64Type();
  // Float indices are truncated to integers; negative ones count from the
  // end.
  Value idx = bb.cast(*indices, i64);
  Value neg = bb.binary(BinaryFn::lt, idx, bb.scalar(0, i64));
  idx = bb.select(neg, bb.add(idx, bb.scalar((double)depth, i64)), idx);
  SmallVector<int64_t> expanded(shapeOf(idx));
  expanded.insert(expanded.begin() + *axis, 1);
  Value hit = bb.binary(BinaryFn::eq, bb.reshape(idx, expanded),
                        iotaAlong(bb, rank, *axis, depth, i64));
  Value flat = bb.reshape(*values, {2});
  Value off = bb.reshape(bb.slice(flat, {0}, {1}, {1}), {});
  Value on = bb.reshape(bb.slice(flat, {1}, {1}, {1}), {});
  out.push_back(bb.select(hit, on, off));
  return success();
}

LogicalResult importEyeLike(NodeContext &nc, Results &out) {
  FailureOr<Value> x = nc.requiredInput(0);
  if (failed(x))
    return failure();
  if (rankOf(*x) != 2)
    return nc.error() << "expects a 2-D input", failure();
  Type elt = eltOf(*x);
  if (nc.hasAttr("dtype")) {
    int dtype = nc.attrInt("dtype", 0);
    elt = elementTypeFor(nc.getContext(), dtype);
    if (!elt)
      return nc.error() << "unsupported dtype " << onnxTypeName(dtype),
             failure();
  }
  int64_t k = nc.attrInt("k", 0);
  ArrayRef<int64_t> shape = shapeOf(*x);
  // Each dim's index is an iota constant: bound them (a fuzzed [2^31, 4]
  // input ran out of memory building one).
  constexpr int64_t kMaxDim = int64_t(1) << 20;
  if (shape[0] > kMaxDim || shape[1] > kMaxDim)
    return nc.error() << "expects dims of at most " << kMaxDim << " but got "
                      << shape[0] << "x" << shape[1],
           failure();
  // i == j - k, as i64 comparisons of two iotas (folded to a constant).
  BWCBuilder &bb = nc.bb;
  Type i64 = bb.builder().getI64Type();
  Value rows = iotaAlong(bb, 2, 0, shape[0], i64);
  Value cols = bb.sub(iotaAlong(bb, 2, 1, shape[1], i64),
                      bb.scalar((double)k, i64));
  Value eye = bb.binary(BinaryFn::eq, rows, cols);
  out.push_back(bb.cast(bb.broadcastTo(eye, shape), elt));
  return success();
}

/// `y` shifted by `s` along `axis` towards higher indices (or lower ones
/// when `reverse`), zeros shifted in.
Value shifted(BWCBuilder &bb, Value y, int64_t axis, int64_t s,
              bool reverse) {
  ArrayRef<int64_t> shape = BWCBuilder::shapeOf(y);
  int64_t n = shape[axis];
  if (s >= n) // everything shifted out
    return filled(bb, shape, BWCBuilder::elementTypeOf(y), 0);
  SmallVector<int64_t> zerosShape(shape), starts(shape.size(), 0),
      sizes(shape), steps(shape.size(), 1);
  zerosShape[axis] = s;
  sizes[axis] = n - s;
  Value zeros = filled(bb, zerosShape, BWCBuilder::elementTypeOf(y), 0);
  if (reverse) {
    starts[axis] = s;
    return bb.concat({bb.slice(y, starts, sizes, steps), zeros}, axis);
  }
  return bb.concat({zeros, bb.slice(y, starts, sizes, steps)}, axis);
}

LogicalResult importCumSum(NodeContext &nc, Results &out) {
  FailureOr<Value> x = nc.requiredInput(0);
  if (failed(x))
    return failure();
  FailureOr<Ints> axes = constantInput(nc, 1, "axis");
  if (failed(axes))
    return failure();
  if (axes->size() != 1)
    return nc.error() << "expects a scalar axis", failure();
  FailureOr<int64_t> axis = nc.axis((*axes)[0], rankOf(*x));
  if (failed(axis))
    return failure();
  if (eltOf(*x).isInteger(1))
    return nc.error() << "expects a numeric input", failure();
  bool exclusive = nc.attrInt("exclusive", 0) != 0;
  bool reverse = nc.attrInt("reverse", 0) != 0;
  int64_t n = shapeOf(*x)[*axis];
  Value y = *x;
  for (int64_t s = 1; s < n; s *= 2)
    y = nc.bb.add(y, shifted(nc.bb, y, *axis, s, reverse));
  if (exclusive && n > 0)
    y = shifted(nc.bb, y, *axis, 1, reverse);
  out.push_back(y);
  return success();
}

LogicalResult importTopK(NodeContext &nc, Results &out) {
  FailureOr<Value> x = nc.requiredInput(0);
  if (failed(x))
    return failure();
  int64_t k;
  if (nc.opset < 10) {
    k = nc.attrInt("k", -1);
  } else {
    FailureOr<Ints> ks = constantInput(nc, 1, "K");
    if (failed(ks))
      return failure();
    if (ks->size() != 1)
      return nc.error() << "expects a single K", failure();
    k = (*ks)[0];
  }
  int64_t rank = rankOf(*x);
  FailureOr<int64_t> axis = nc.axis(nc.attrInt("axis", -1), rank);
  if (failed(axis))
    return failure();
  int64_t n = shapeOf(*x)[*axis];
  if (k < 0 || k > n)
    return nc.error() << "expects K in [0, " << n << "] but got " << k,
           failure();
  if (k > kMaxTopK)
    return nc.error() << "supports K up to " << kMaxTopK << " but got " << k,
           failure();
  if (k == 0)
    return nc.error() << "expects K >= 1 (an empty result has no kernel)",
           failure();
  // sorted=0 allows any order; the sorted one is returned.
  bool largest = nc.opset < 11 || nc.attrInt("largest", 1) != 0;
  Type elt = eltOf(*x);
  if (elt.isInteger(1))
    return nc.error() << "expects a numeric input", failure();
  BWCBuilder &bb = nc.bb;
  OpBuilder &b = bb.builder();
  ArgReduceKind kind = largest ? ArgReduceKind::argmax : ArgReduceKind::argmin;
  auto idxType = RankedTensorType::get(
      reducedShape(shapeOf(*x), {*axis}, /*keepDims=*/true), b.getI64Type());
  Value iota = iotaAlong(bb, rank, *axis, n, b.getI64Type());
  // What a picked element is overwritten with: the worst value of its type.
  Value mask = extremeScalar(bb, elt, /*highest=*/!largest);
  SmallVector<Value> values, indices;
  Value rest = *x, taken;
  Value isMaskValue = bb.binary(BinaryFn::eq, *x, mask);
  for (int64_t i = 0; i < k; ++i) {
    Value idx = ArgReduceOp::create(b, nc.getLoc(), idxType, kind, rest,
                                    *axis, /*keepdims=*/true,
                                    /*select_last_index=*/false);
    if (taken) {
      // When the best left equals the mask, the arg-reduce may land on a
      // taken element: pick the first untaken element of that value.
      Value free = bb.cast(
          bb.binary(BinaryFn::and_, bb.unary(UnaryFn::not_, taken),
                    isMaskValue),
          b.getI32Type());
      Value firstFree = ArgReduceOp::create(
          b, nc.getLoc(), idxType, ArgReduceKind::argmax, free, *axis,
          /*keepdims=*/true, /*select_last_index=*/false);
      Value best = bb.reduce(largest ? ReduceKind::max : ReduceKind::min,
                             rest, {*axis}, /*keepDims=*/true);
      idx = bb.select(bb.binary(BinaryFn::eq, best, mask), firstFree, idx);
    }
    Value hit = bb.binary(BinaryFn::eq, idx, iota);
    // The picked value, read from the input (exact, also for the masked
    // extremes of integer types).
    values.push_back(bb.reduce(ReduceKind::sum,
                               bb.select(hit, *x, bb.scalar(0, elt)), {*axis},
                               /*keepDims=*/true));
    indices.push_back(idx);
    if (i + 1 < k) {
      rest = bb.select(hit, mask, rest);
      taken = taken ? bb.binary(BinaryFn::or_, taken, hit) : hit;
    }
  }
  out.push_back(values.size() == 1 ? values[0] : bb.concat(values, *axis));
  out.push_back(indices.size() == 1 ? indices[0] : bb.concat(indices, *axis));
  return success();
}

/// Compress with a constant condition: a gather of the kept positions
/// (the input flattened when there is no axis). A runtime condition gives
/// a data-dependent shape: an error saying to bind it.
LogicalResult importCompress(NodeContext &nc, Results &out) {
  FailureOr<Value> x = nc.requiredInput(0);
  if (failed(x))
    return failure();
  std::optional<Ints> cond = nc.constInts(1);
  if (!cond)
    return nc.error() << "has a runtime condition, so its output shape "
                         "depends on data: bind it with --input-value",
           failure();
  Value data = *x;
  int64_t axis = 0;
  if (nc.hasAttr("axis")) {
    FailureOr<int64_t> a = nc.axis(nc.attrInt("axis", 0), rankOf(*x));
    if (failed(a))
      return failure();
    axis = *a;
  } else {
    std::optional<int64_t> n = product(shapeOf(*x));
    if (!n)
      return nc.error() << "has too many elements", failure();
    data = nc.bb.reshape(*x, {*n});
  }
  int64_t dim = shapeOf(data)[axis];
  if ((int64_t)cond->size() > dim)
    return nc.error() << "has a condition of " << cond->size()
                      << " elements for an axis of " << dim,
           failure();
  Ints kept;
  for (auto [i, c] : llvm::enumerate(*cond))
    if (c)
      kept.push_back(i);
  if (kept.empty())
    return nc.error() << "keeps nothing (an empty tensor has no kernel)",
           failure();
  OpBuilder &b = nc.bb.builder();
  Value idx = nc.bb.i64Vector(kept);
  Ints shape(shapeOf(data));
  shape[axis] = kept.size();
  out.push_back(b.createOrFold<GatherOp>(
      nc.getLoc(), RankedTensorType::get(shape, eltOf(data)), data, idx,
      b.getI64IntegerAttr(axis)));
  return success();
}

/// ReverseSequence: out[b, t] = in[b, len[b] - 1 - t] for t < len[b], else
/// in[b, t]; a one-hot contraction over the time axis (T selects per
/// element), so sequence_lens may be a runtime input.
LogicalResult importReverseSequence(NodeContext &nc, Results &out) {
  FailureOr<Value> x = nc.requiredInput(0), lens = nc.requiredInput(1);
  if (failed(x) || failed(lens))
    return failure();
  int64_t rank = rankOf(*x);
  FailureOr<int64_t> ta = nc.axis(nc.attrInt("time_axis", 0), rank),
                     ba = nc.axis(nc.attrInt("batch_axis", 1), rank);
  if (failed(ta) || failed(ba))
    return failure();
  ArrayRef<int64_t> xs = shapeOf(*x);
  if (*ta == *ba || rank < 2 || shapeOf(*lens) != ArrayRef<int64_t>{xs[*ba]} ||
      !isa<IntegerType>(eltOf(*lens)))
    return nc.error() << "expects distinct batch and time axes and integer "
                         "sequence_lens [" << xs[*ba] << "]",
           failure();
  BWCBuilder &bb = nc.bb;
  Type i64 = bb.builder().getI64Type();
  int64_t t = xs[*ta];
  Value time = iotaAlong(bb, rank, *ta, t, i64);
  Ints lenShape(rank, 1);
  lenShape[*ba] = xs[*ba];
  Value len = bb.reshape(bb.cast(*lens, i64), lenShape);
  Value src = bb.select(bb.binary(BinaryFn::lt, time, len),
                        bb.sub(bb.sub(len, bb.scalar(1, i64)), time), time);
  // src [.., 1] == iota over a new last axis of T
  Ints srcShape(shapeOf(src));
  srcShape.push_back(1);
  Value hit = bb.binary(BinaryFn::eq, bb.reshape(src, srcShape),
                        iotaAlong(bb, rank + 1, rank, t, i64));
  // The input with its time axis moved last and a unit dim in its place.
  Ints perm;
  for (int64_t d = 0; d < rank; ++d)
    if (d != *ta)
      perm.push_back(d);
  perm.push_back(*ta);
  Ints dataShape(xs);
  dataShape[*ta] = 1;
  dataShape.push_back(t);
  Value data = bb.reshape(bb.transpose(*x, perm), dataShape);
  out.push_back(bb.reduce(ReduceKind::sum,
                          bb.select(hit, data, bb.scalar(0, eltOf(*x))),
                          {rank}, /*keepDims=*/false));
  return success();
}

/// Det of [..., n, n] by the Leibniz formula (n! products of n elements),
/// for n <= 4.
LogicalResult importDet(NodeContext &nc, Results &out) {
  FailureOr<Value> x = nc.requiredInput(0);
  if (failed(x))
    return failure();
  int64_t rank = rankOf(*x);
  ArrayRef<int64_t> xs = shapeOf(*x);
  if (!isa<FloatType>(eltOf(*x)) || rank < 2 || xs[rank - 1] != xs[rank - 2])
    return nc.error() << "expects float square matrices [..., n, n]",
           failure();
  int64_t n = xs[rank - 1];
  if (n < 1 || n > 4)
    return nc.error() << "supports matrices up to 4 x 4 but got " << n
                      << " x " << n,
           failure();
  BWCBuilder &bb = nc.bb;
  Ints batch(xs.drop_back(2));
  auto at = [&](int64_t i, int64_t j) {
    Ints starts(rank, 0), sizes(xs), steps(rank, 1);
    starts[rank - 2] = i;
    starts[rank - 1] = j;
    sizes[rank - 2] = sizes[rank - 1] = 1;
    return bb.reshape(bb.slice(*x, starts, sizes, steps), batch);
  };
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, n));
  Value det;
  do {
    int inversions = 0;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = i + 1; j < n; ++j)
        inversions += perm[i] > perm[j];
    Value term = at(0, perm[0]);
    for (int64_t i = 1; i < n; ++i)
      term = bb.mul(term, at(i, perm[i]));
    if (!det)
      det = term;
    else
      det = inversions % 2 ? bb.sub(det, term) : bb.add(det, term);
  } while (std::next_permutation(perm.begin(), perm.end()));
  out.push_back(det);
  return success();
}

} // namespace

void onnx_import::registerIndexingHandlers(HandlerTable &t) {
  t["ReverseSequence"] = importReverseSequence;
  t["Det"] = importDet;
  t["Compress"] = importCompress;
  t["Hardmax"] = importHardmax;
  t["OneHot"] = importOneHot;
  t["EyeLike"] = importEyeLike;
  t["CumSum"] = importCumSum;
  t["TopK"] = importTopK;
}
