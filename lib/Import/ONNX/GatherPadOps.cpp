//===- GatherPadOps.cpp - ONNX Gather, Expand, Tile, Pad into bwc ---------===//
//
// Gather (bwc.gather, constant indices normalized), Expand and Tile
// (bwc.broadcast plus reshapes) and Pad (bwc.pad, negative pads as a
// bwc.slice). Expand's shape, Tile's repeats and Pad's pads must be
// constants once the builder has folded the exporters' shape arithmetic.
//
//===----------------------------------------------------------------------===//
#include "NodeImporter.h"

#include "bwc/Dialect/BWC/Utils/ShapeUtils.h"
#include <algorithm>

using namespace mlir;
using namespace mlir::bwc;
using namespace mlir::bwc::onnx_import;

namespace {

/// Pads beyond this size are rejected (they would overflow shape math).
constexpr int64_t kMaxPad = int64_t(1) << 40;

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
    auto type =
        RankedTensorType::get(shapeOf(*idx), nc.bb.builder().getI64Type());
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

/// GatherElements: out[p] = data[p with axis replaced by index[p]] as a
/// one-hot contraction over the axis (K = data's axis size):
///   sum_k data'[..., k moved last] * (index[p] == k)
/// where data' is data sliced to the index's extent on the other axes.
/// K multiply-adds per output; exact (one term is non-zero). Negative
/// indices count from the end; out-of-range ones select nothing (0).
LogicalResult importGatherElements(NodeContext &nc, Results &out) {
  FailureOr<Value> data = nc.requiredInput(0), idx = nc.requiredInput(1);
  if (failed(data) || failed(idx))
    return failure();
  int64_t rank = rankOf(*data);
  FailureOr<int64_t> axis = nc.axis(nc.attrInt("axis", 0), rank);
  if (failed(axis))
    return failure();
  Type idxElt = eltOf(*idx), elt = eltOf(*data);
  if (!idxElt.isInteger(32) && !idxElt.isInteger(64))
    return nc.error() << "expects i32 or i64 indices", failure();
  if (!isa<FloatType>(elt) &&
      !(isa<IntegerType>(elt) && elt.getIntOrFloatBitWidth() > 1))
    return nc.error() << "expects float or integer data", failure();
  ArrayRef<int64_t> ds = shapeOf(*data), is = shapeOf(*idx);
  if ((int64_t)is.size() != rank)
    return nc.error() << "expects indices of the data's rank", failure();
  for (int64_t d = 0; d < rank; ++d)
    if (d != *axis && is[d] > ds[d])
      return nc.error() << "indices dim " << d << " (" << is[d]
                        << ") exceeds the data's (" << ds[d] << ")",
             failure();
  BWCBuilder &bb = nc.bb;
  int64_t k = ds[*axis];
  // data' : the index's extent on every axis but `axis`, moved last.
  Ints starts(rank, 0), sizes(is.begin(), is.end()), steps(rank, 1);
  sizes[*axis] = k;
  Value d = bb.slice(*data, starts, sizes, steps);
  Ints perm;
  for (int64_t i = 0; i < rank; ++i)
    if (i != *axis)
      perm.push_back(i);
  perm.push_back(*axis);
  d = bb.transpose(d, perm);
  Ints dShape;
  for (int64_t i = 0; i < rank; ++i)
    dShape.push_back(i == *axis ? 1 : is[i]);
  dShape.push_back(k);
  d = bb.reshape(d, dShape); // [..., 1 at axis, ..., K]
  // Negative indices from the end, then the one-hot over a last axis.
  unsigned bits = idxElt.getIntOrFloatBitWidth();
  auto scalarInt = [&](int64_t v) {
    return bb.constant(DenseElementsAttr::get(
        RankedTensorType::get({}, idxElt), APInt(bits, v, /*isSigned=*/true)));
  };
  Value zero = scalarInt(0), kv = scalarInt(k);
  Value i =
      bb.select(bb.binary(BinaryFn::lt, *idx, zero), bb.add(*idx, kv), *idx);
  Ints iShape(is.begin(), is.end());
  iShape.push_back(1);
  Value iota = iotaAlong(bb, rank + 1, rank, k, idxElt);
  Value onehot =
      bb.cast(bb.binary(BinaryFn::eq, bb.reshape(i, iShape), iota), elt);
  out.push_back(bb.reduce(ReduceKind::sum, bb.mul(d, onehot), {rank},
                          /*keepDims=*/false));
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
    return nc.error() << "pads " << str(pads) << " are out of range", failure();
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

} // namespace

void onnx_import::registerGatherPadHandlers(HandlerTable &t) {
  t["Gather"] = importGather;
  t["GatherElements"] = importGatherElements;
  t["Expand"] = importExpand;
  t["Tile"] = importTile;
  t["Pad"] = importPad;
}
