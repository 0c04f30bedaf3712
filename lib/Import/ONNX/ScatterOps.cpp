//===- ScatterOps.cpp - GatherND, ScatterElements, ScatterND into bwc -----===//
//
// GatherND linearizes each index tuple (negative entries from the end, the
// batch dims folded in) and gathers rows of the data viewed as
// [prod(indexed dims), rest...] with bwc.gather.
//
// The scatters are one-hot reductions, like GatherElements: an output
// position takes the updates whose index equals it,
//   contrib[p] = reduce_{u : index[u] == p} updates[u]
//   count[p]   = #{u : index[u] == p}
// and the reduction attribute combines contrib with the data (none: the
// update where count > 0; add/mul/max/min: the data combined with it).
// Everything is elementwise ops and reductions that fuse into reduction
// kernels on both targets, exact for integers. Work is (updates x indexed
// positions); above kMaxScatterWork the node is refused with its name.
// Duplicate indices with reduction "none" (undefined in ONNX) add up.
//
// MaxUnpool is the same one-hot scatter over the flattened output (its
// indices are MaxPool's, flattened over the whole tensor): zeros except
// y.flat[I.flat[i]] = X.flat[i] over the inferred shape (in - 1) * stride +
// kernel - pads per spatial dim, then padded with zeros at the end of each
// dim to `output_shape` (a constant) when given, as ONNX's reference does.
//
//===----------------------------------------------------------------------===//
#include "NodeImporter.h"

#include "bwc/Dialect/BWC/Utils/ShapeUtils.h"

using namespace mlir;
using namespace mlir::bwc;
using namespace mlir::bwc::onnx_import;

namespace {

constexpr int64_t kMaxScatterWork = int64_t(1) << 31;

enum class Combine { None, Add, Mul, Max, Min };

FailureOr<Combine> combineOf(NodeContext &nc) {
  std::string r = nc.attrString("reduction", "none");
  if (r == "none")
    return Combine::None;
  if (r == "add")
    return Combine::Add;
  if (r == "mul")
    return Combine::Mul;
  if (r == "max")
    return Combine::Max;
  if (r == "min")
    return Combine::Min;
  return nc.error() << "unsupported reduction '" << r << "'", failure();
}

/// An integer constant of `shape` and type `elt` holding `values`.
Value intConstant(BWCBuilder &bb, ArrayRef<int64_t> shape, Type elt,
                  ArrayRef<int64_t> values) {
  SmallVector<APInt> v;
  for (int64_t x : values)
    v.push_back(APInt(elt.getIntOrFloatBitWidth(), x, /*isSigned=*/true));
  return bb.constant(
      DenseElementsAttr::get(RankedTensorType::get(shape, elt), v));
}

Value iota(BWCBuilder &bb, int64_t rank, int64_t axis, int64_t n) {
  return iotaAlong(bb, rank, axis, n, bb.builder().getI64Type());
}

/// `x` with a unit dim inserted at `at`.
Value insertUnit(BWCBuilder &bb, Value x, int64_t at) {
  Ints shape(BWCBuilder::shapeOf(x));
  shape.insert(shape.begin() + at, 1);
  return bb.reshape(x, shape);
}

/// The value a position no update reaches contributes to each reduction.
Value identityOf(BWCBuilder &bb, Combine c, Type elt) {
  switch (c) {
  case Combine::Mul:
    return bb.scalar(1, elt);
  case Combine::Max:
    return extremeScalar(bb, elt, /*highest=*/false);
  case Combine::Min:
    return extremeScalar(bb, elt, /*highest=*/true);
  default:
    return bb.scalar(0, elt);
  }
}

/// Reduces `picked` (updates where hit, the identity elsewhere) over
/// `axis` by `c` (none and add sum).
Value reduceBy(BWCBuilder &bb, Combine c, Value picked, int64_t axis) {
  ReduceKind kind = c == Combine::Mul   ? ReduceKind::prod
                    : c == Combine::Max ? ReduceKind::max
                    : c == Combine::Min ? ReduceKind::min
                                        : ReduceKind::sum;
  return bb.reduce(kind, picked, {axis}, /*keepDims=*/false);
}

/// The data combined with the reduced updates (`count` > 0 where any
/// update reached the position).
Value combineWith(BWCBuilder &bb, Combine c, Value data, Value contrib,
                  Value count) {
  Value hit = bb.binary(BinaryFn::gt, count,
                        bb.scalar(0, BWCBuilder::elementTypeOf(count)));
  switch (c) {
  case Combine::None:
    return bb.select(hit, contrib, data);
  case Combine::Add:
    return bb.add(data, contrib);
  case Combine::Mul:
    return bb.mul(data, contrib);
  case Combine::Max:
    return bb.select(hit, bb.max(data, contrib), data);
  case Combine::Min:
    return bb.select(hit, bb.min(data, contrib), data);
  }
  return data;
}

/// Pads `x` along every dim where it is shorter than `shape` with `fill`
/// (rank 0).
Value padTo(BWCBuilder &bb, Value x, ArrayRef<int64_t> shape, Value fill) {
  for (int64_t d = 0; d < (int64_t)shape.size(); ++d) {
    Ints have(BWCBuilder::shapeOf(x));
    if (have[d] == shape[d])
      continue;
    Ints rest(have);
    rest[d] = shape[d] - have[d];
    x = bb.concat({x, bb.broadcastTo(fill, rest)}, d);
  }
  return x;
}

/// A scatter's operands (data, indices, updates) and its reduction.
struct ScatterInputs {
  Value data, indices, updates;
  Combine combine;
};

FailureOr<ScatterInputs> scatterInputs(NodeContext &nc) {
  FailureOr<Value> data = nc.requiredInput(0), idx = nc.requiredInput(1),
                   upd = nc.requiredInput(2);
  if (failed(data) || failed(idx) || failed(upd))
    return failure();
  Type elt = eltOf(*data);
  if (!isa<FloatType>(elt) && !(isa<IntegerType>(elt) && !elt.isInteger(1)))
    return nc.error() << "expects float or integer data", failure();
  FailureOr<Combine> combine = combineOf(nc);
  if (failed(combine))
    return failure();
  return ScatterInputs{*data, *idx, *upd, *combine};
}

/// ScatterElements (and Scatter, its opset 9-10 name).
LogicalResult importScatterElements(NodeContext &nc, Results &out) {
  FailureOr<ScatterInputs> in = scatterInputs(nc);
  if (failed(in))
    return failure();
  Value *data = &in->data, *idx = &in->indices, *upd = &in->updates;
  Combine *combine = &in->combine;
  int64_t rank = rankOf(*data);
  FailureOr<int64_t> axis = nc.axis(nc.attrInt("axis", 0), rank);
  if (failed(axis))
    return failure();
  ArrayRef<int64_t> ds = shapeOf(*data), is = shapeOf(*idx);
  if (!eltOf(*idx).isInteger(32) && !eltOf(*idx).isInteger(64))
    return nc.error() << "expects i32 or i64 indices", failure();
  if (shapeOf(*upd) != is || (int64_t)is.size() != rank ||
      eltOf(*upd) != eltOf(*data))
    return nc.error() << "expects indices and updates of one shape, of the "
                         "data's rank and updates of its type",
           failure();
  for (int64_t d = 0; d < rank; ++d)
    if (d != *axis && is[d] > ds[d])
      return nc.error() << "indices dim " << d << " (" << is[d]
                        << ") exceeds the data's (" << ds[d] << ")",
             failure();
  std::optional<int64_t> work = product(is);
  if (!work || *work > kMaxScatterWork / std::max<int64_t>(ds[*axis], 1))
    return nc.error() << "has too many updates x positions for the one-hot "
                         "scatter",
           failure();
  BWCBuilder &bb = nc.bb;
  Type i64 = bb.builder().getI64Type();
  Type elt = eltOf(*data);
  int64_t k = ds[*axis];
  Value i = bb.cast(*idx, i64);
  i = bb.select(bb.binary(BinaryFn::lt, i, bb.scalar(0, i64)),
                bb.add(i, bb.scalar((double)k, i64)), i);
  // [U..., with D_axis inserted after the axis]: hit[u, p] = index[u] == p.
  Value hit = bb.binary(BinaryFn::eq, insertUnit(bb, i, *axis + 1),
                        iota(bb, rank + 1, *axis + 1, k));
  Value picked = bb.select(hit, insertUnit(bb, *upd, *axis + 1),
                           identityOf(bb, *combine, elt));
  Value contrib = reduceBy(bb, *combine, picked, *axis);
  Value count = bb.reduce(ReduceKind::sum, bb.cast(hit, bb.builder().getI32Type()),
                          {*axis}, /*keepDims=*/false);
  contrib = padTo(bb, contrib, ds, identityOf(bb, *combine, elt));
  count = padTo(bb, count, ds, bb.scalar(0, eltOf(count)));
  out.push_back(combineWith(bb, *combine, *data, contrib, count));
  return success();
}

/// The linear index into data's dims [batch, batch + k) of each index
/// tuple of `idx` ([..., k], negative entries from the end), plus the
/// position's batch offset when `batch` > 0: shape idx.shape[:-1].
Value linearIndex(BWCBuilder &bb, Value idx, ArrayRef<int64_t> dataShape,
                  int64_t batch) {
  Type i64 = bb.builder().getI64Type();
  ArrayRef<int64_t> is = BWCBuilder::shapeOf(idx);
  int64_t k = is.back(), outRank = is.size() - 1;
  Ints dims(dataShape.begin() + batch, dataShape.begin() + batch + k);
  Ints strides(k, 1);
  for (int64_t j = k - 2; j >= 0; --j)
    strides[j] = strides[j + 1] * dims[j + 1];
  Ints vecShape(outRank, 1);
  vecShape.push_back(k);
  Value i = bb.cast(idx, i64);
  i = bb.select(bb.binary(BinaryFn::lt, i, bb.scalar(0, i64)),
                bb.add(i, intConstant(bb, vecShape, i64, dims)), i);
  Value lin = bb.reduce(ReduceKind::sum,
                        bb.mul(i, intConstant(bb, vecShape, i64, strides)),
                        {outRank}, /*keepDims=*/false);
  int64_t inner = 1;
  for (int64_t d : dims)
    inner *= d;
  for (int64_t b = batch - 1; b >= 0; --b) {
    lin = bb.add(lin, bb.mul(iota(bb, outRank, b, is[b]),
                             bb.scalar((double)inner, i64)));
    inner *= dataShape[b];
  }
  return lin;
}

LogicalResult importGatherND(NodeContext &nc, Results &out) {
  FailureOr<Value> data = nc.requiredInput(0), idx = nc.requiredInput(1);
  if (failed(data) || failed(idx))
    return failure();
  ArrayRef<int64_t> ds = shapeOf(*data), is = shapeOf(*idx);
  int64_t batch = nc.attrInt("batch_dims", 0);
  if (is.empty() || is.back() < 1 || !isa<IntegerType>(eltOf(*idx)) ||
      batch < 0 ||
      batch >= (int64_t)is.size() || batch + is.back() > (int64_t)ds.size() ||
      is.take_front(batch) != ds.take_front(batch))
    return nc.error() << "expects integer indices [batch..., ..., k] with "
                         "batch + k <= the data's rank and matching batch "
                         "dims",
           failure();
  int64_t k = is.back();
  std::optional<int64_t> rows = product(ds.take_front(batch + k));
  if (!rows)
    return nc.error() << "has too many elements", failure();
  Ints flat{*rows};
  llvm::append_range(flat, ds.drop_front(batch + k));
  Value table = nc.bb.reshape(*data, flat);
  Value lin = linearIndex(nc.bb, *idx, ds, batch);
  Ints shape(is.drop_back());
  llvm::append_range(shape, ds.drop_front(batch + k));
  OpBuilder &b = nc.bb.builder();
  out.push_back(b.createOrFold<GatherOp>(
      nc.getLoc(), RankedTensorType::get(shape, eltOf(*data)), table, lin,
      b.getI64IntegerAttr(0)));
  return success();
}

LogicalResult importScatterND(NodeContext &nc, Results &out) {
  FailureOr<ScatterInputs> in = scatterInputs(nc);
  if (failed(in))
    return failure();
  Value *data = &in->data, *idx = &in->indices, *upd = &in->updates;
  Combine *combine = &in->combine;
  ArrayRef<int64_t> ds = shapeOf(*data), is = shapeOf(*idx);
  if (is.empty() || is.back() < 1 || !isa<IntegerType>(eltOf(*idx)) ||
      is.back() > (int64_t)ds.size())
    return nc.error() << "expects integer indices [..., k] with k <= the "
                         "data's rank",
           failure();
  int64_t k = is.back();
  Ints updShape(is.drop_back());
  llvm::append_range(updShape, ds.drop_front(k));
  if (shapeOf(*upd) != ArrayRef<int64_t>(updShape) ||
      eltOf(*upd) != eltOf(*data))
    return nc.error() << "expects updates of shape " << str(updShape)
                      << " and the data's type",
           failure();
  std::optional<int64_t> n = product(is.drop_back()),
                         positions = product(ds.take_front(k)),
                         rest = product(ds.drop_front(k));
  if (!n || !positions || !rest || *n == 0 ||
      *n > kMaxScatterWork / std::max<int64_t>(*positions, 1) /
               std::max<int64_t>(*rest, 1))
    return nc.error() << "has too many updates x positions for the one-hot "
                         "scatter",
           failure();
  BWCBuilder &bb = nc.bb;
  Type elt = eltOf(*data);
  Ints restShape(ds.drop_front(k));
  int64_t restRank = restShape.size();
  // Updates [n, 1, rest...] against positions [1, P, 1...].
  Value lin = bb.reshape(linearIndex(bb, *idx, ds, 0), {*n, 1});
  Value hit = bb.binary(BinaryFn::eq, lin, iota(bb, 2, 1, *positions));
  Ints hitShape{*n, *positions};
  hitShape.append(restRank, 1);
  Value hitX = bb.reshape(hit, hitShape);
  Ints u{*n, 1};
  llvm::append_range(u, restShape);
  Value picked = bb.select(hitX, bb.reshape(*upd, u),
                           identityOf(bb, *combine, elt));
  Value contrib = reduceBy(bb, *combine, picked, 0); // [P, rest...]
  Ints countShape{*positions};
  countShape.append(restRank, 1);
  Value count = bb.reshape(
      bb.reduce(ReduceKind::sum, bb.cast(hit, bb.builder().getI32Type()), {0},
                /*keepDims=*/false),
      countShape);
  Ints flat{*positions};
  llvm::append_range(flat, restShape);
  Value y = combineWith(bb, *combine, bb.reshape(*data, flat), contrib, count);
  out.push_back(bb.reshape(y, ds));
  return success();
}

LogicalResult importMaxUnpool(NodeContext &nc, Results &out) {
  FailureOr<Value> x = nc.requiredInput(0), idx = nc.requiredInput(1);
  if (failed(x) || failed(idx))
    return failure();
  ArrayRef<int64_t> xs = shapeOf(*x);
  int64_t rank = xs.size(), spatial = rank - 2;
  if (rank < 3 || shapeOf(*idx) != xs || !isa<IntegerType>(eltOf(*idx)))
    return nc.error() << "expects X of rank >= 3 and integer indices of its "
                         "shape",
           failure();
  std::optional<Ints> kernel = nc.attrInts("kernel_shape");
  Ints strides = nc.attrInts("strides").value_or(Ints(spatial, 1));
  Ints pads = nc.attrInts("pads").value_or(Ints(2 * spatial, 0));
  if (!kernel || (int64_t)kernel->size() != spatial ||
      (int64_t)strides.size() != spatial ||
      (int64_t)pads.size() != 2 * spatial)
    return nc.error() << "expects kernel_shape, strides and pads for its "
                      << spatial << " spatial dims",
           failure();
  // The indices address the inferred shape; an output_shape pads it at the
  // end of each dim (as ONNX's reference does).
  Ints inferred(xs.begin(), xs.begin() + 2);
  // A transposed window's size (overflow-checked: the attributes come
  // from the model); an overflow is an invalid shape.
  for (int64_t d = 0; d < spatial; ++d)
    inferred.push_back(transposedConvOutputSize(xs[2 + d], (*kernel)[d],
                                                strides[d], 1, pads[d],
                                                pads[spatial + d], 0)
                           .value_or(0));
  if (llvm::any_of(inferred, [](int64_t e) { return e < 1; }))
    return nc.error() << "has an invalid output shape " << str(inferred),
           failure();
  Ints shape = inferred;
  if (nc.input(2)) {
    std::optional<Ints> given = nc.constInts(2);
    if (!given)
      return nc.error() << "expects a constant output_shape", failure();
    shape = *given;
    if ((int64_t)shape.size() != rank ||
        llvm::any_of(llvm::zip(shape, inferred), [](auto p) {
          return std::get<0>(p) < std::get<1>(p);
        }))
      return nc.error() << "expects an output_shape of rank " << rank
                        << " no smaller than " << str(inferred)
                        << " but got " << str(shape),
             failure();
  }
  std::optional<int64_t> n = product(xs), positions = product(inferred);
  if (!n || !positions || *n == 0 ||
      *n > kMaxScatterWork / std::max<int64_t>(*positions, 1))
    return nc.error() << "has too many inputs x output positions for the "
                         "one-hot scatter",
           failure();
  BWCBuilder &bb = nc.bb;
  Type elt = eltOf(*x);
  Value lin = bb.reshape(bb.cast(*idx, bb.builder().getI64Type()), {*n, 1});
  Value hit = bb.binary(BinaryFn::eq, lin, iota(bb, 2, 1, *positions));
  Value picked = bb.select(hit, bb.reshape(*x, {*n, 1}), bb.scalar(0, elt));
  Value y = bb.reduce(ReduceKind::sum, picked, {0}, /*keepDims=*/false);
  out.push_back(padTo(bb, bb.reshape(y, inferred), shape, bb.scalar(0, elt)));
  return success();
}

} // namespace

void onnx_import::registerScatterHandlers(HandlerTable &t) {
  t["MaxUnpool"] = importMaxUnpool;
  t["GatherND"] = importGatherND;
  t["ScatterElements"] = importScatterElements;
  t["Scatter"] = importScatterElements;
  t["ScatterND"] = importScatterND;
}
