//===- ShapeOps.cpp - ONNX shape queries and generators into bwc ----------===//
//
// The shape queries Shape and Size and the generators ConstantOfShape and
// Range, all into constants, and Trilu (a mask and a bwc.select).
// ConstantOfShape's shape and Range's bounds must be constants, since bwc
// tensors are static; Trilu's k may be a run-time value.
//
//===----------------------------------------------------------------------===//
#include "NodeImporter.h"

#include "bwc/Dialect/BWC/Utils/ShapeUtils.h"
#include <algorithm>
#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::bwc;
using namespace mlir::bwc::onnx_import;

namespace {

/// Above this many elements a generated constant (Range, Trilu's mask) is
/// refused rather than materialized.
constexpr int64_t kMaxGeneratedElements = int64_t(1) << 26;

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

void onnx_import::registerShapeHandlers(HandlerTable &t) {
  t["Shape"] = importShape;
  t["Size"] = importSize;
  t["ConstantOfShape"] = importConstantOfShape;
  t["Range"] = importRange;
  t["Trilu"] = importTrilu;
}
