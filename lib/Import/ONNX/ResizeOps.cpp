//===- ResizeOps.cpp - ONNX Resize and Upsample into bwc ------------------===//
//
// Resize (every opset: scales or sizes, axes, keep_aspect_ratio_policy,
// the coordinate and nearest modes) and Upsample, both into bwc.resize.
// Scales and sizes must be constants.
//
// coordinate_transformation_mode tf_crop_and_resize (a constant roi) is
// not a bwc.resize: each resized axis gets a constant [out, in]
// interpolation matrix (nearest one tap, linear two, cubic four, edge
// indices clamped as ONNX's reference pads), applied as a matmul along the
// axis; an output whose source coordinate leaves [0, in - 1] along any
// axis takes extrapolation_value, as in the reference. antialias=1 (linear
// and cubic, opset 18) is built the same way, from the widened filter's
// weights (antialiasResize).
//
//===----------------------------------------------------------------------===//
#include "NodeImporter.h"

#include "bwc/Dialect/BWC/Utils/ShapeUtils.h"
#include <cmath>

using namespace mlir;
using namespace mlir::bwc;
using namespace mlir::bwc::onnx_import;

namespace {

/// Upsample and Resize-10 know nearest and linear; Resize-11+ adds cubic.
FailureOr<ResizeMode> readResizeMode(NodeContext &nc, bool allowCubic) {
  std::string s = nc.attrString("mode", "nearest");
  if (s == "nearest")
    return ResizeMode::nearest;
  if (s == "linear" || s == "bilinear" || s == "trilinear")
    return ResizeMode::linear;
  if (s == "cubic" && allowCubic)
    return ResizeMode::cubic;
  return nc.error() << "unsupported mode '" << s << "'", failure();
}

/// Reads input X of Resize or Upsample, which must be numeric, then the
/// mode.
FailureOr<ResizeMode> readResizeInput(NodeContext &nc, bool allowCubic,
                                      Value &x) {
  FailureOr<Value> xi = nc.requiredInput(0);
  if (failed(xi))
    return failure();
  x = *xi;
  if (eltOf(x).isInteger(1))
    return nc.error() << "expects a numeric input but got " << eltOf(x),
           failure();
  return readResizeMode(nc, allowCubic);
}

/// Builds the bwc.resize of `x` to `outShape` with the ratios `scales`.
Value buildResize(NodeContext &nc, Value x, ResizeMode mode,
                  ArrayRef<double> scales, ArrayRef<int64_t> outShape,
                  CoordMode coord, NearestMode nearest) {
  auto op = ResizeOp::create(nc.bb.builder(), nc.getLoc(),
                             RankedTensorType::get(outShape, eltOf(x)), mode,
                             x, scales, coord, nearest, /*cubic_coeff_a=*/nullptr,
                             /*exclude_outside=*/false);
  if (mode == ResizeMode::cubic) {
    op.setCubicCoeffAAttr(
        nc.bb.builder().getF64FloatAttr(nc.attrFloat("cubic_coeff_a", -0.75)));
    if (nc.attrInt("exclude_outside", 0))
      op.setExcludeOutside(true);
  }
  return op;
}

/// Output sizes from per-dim scales: floor(in * scale), computed in float
/// as ONNX shape inference does.
FailureOr<SmallVector<int64_t>> sizesFromScales(NodeContext &nc,
                                                ArrayRef<int64_t> in,
                                                ArrayRef<double> scales) {
  SmallVector<int64_t> outShape;
  for (auto [i, s] : llvm::enumerate(scales)) {
    if (!(s > 0.0))
      return nc.error() << "expects positive scales but got " << s
                        << " for dim " << i,
             failure();
    float size = std::floor(static_cast<float>(in[i]) * static_cast<float>(s));
    if (size < 1.0f || size > float(int64_t(1) << 40))
      return nc.error() << "scale " << s << " turns dim " << i << " of size "
                        << in[i] << " into size " << size,
             failure();
    outShape.push_back(static_cast<int64_t>(size));
  }
  return outShape;
}

/// Reads a constant float input holding one value per entry of `axes`.
/// Returns an empty vector when the input is absent or empty.
FailureOr<SmallVector<double>> constFloatInput(NodeContext &nc, int i,
                                               StringRef name) {
  if (!nc.input(i))
    return SmallVector<double>();
  std::optional<SmallVector<double>> v = nc.constFloats(i);
  if (!v)
    return nc.error() << "unsupported non-constant '" << name
                      << "' input (it must be a constant)",
           failure();
  return *v;
}

/// The source coordinate's taps and weights along one axis (ONNX's
/// reference: nearest per `nearest`, linear, or cubic with coefficient `a`
/// and exclude_outside), indices clamped into [0, in - 1].
SmallVector<std::pair<int64_t, double>>
interpolationTaps(ResizeMode mode, NearestMode nearest, double a,
                  bool excludeOutside, double x, int64_t in) {
  auto clampIndex = [&](int64_t i) {
    return std::clamp<int64_t>(i, 0, in - 1);
  };
  double lo = std::floor(x), r = x - lo;
  int64_t i0 = (int64_t)lo;
  if (mode == ResizeMode::nearest) {
    int64_t i;
    switch (nearest) {
    case NearestMode::floor: i = i0; break;
    case NearestMode::ceil: i = (int64_t)std::ceil(x); break;
    case NearestMode::round_prefer_ceil: i = r >= 0.5 ? i0 + 1 : i0; break;
    default: i = r > 0.5 ? i0 + 1 : i0; break;
    }
    return {{clampIndex(i), 1.0}};
  }
  if (mode == ResizeMode::linear)
    return {{clampIndex(i0), 1.0 - r}, {clampIndex(i0 + 1), r}};
  // Keys' cubic kernel at distances 1 + r, r, 1 - r, 2 - r.
  auto near = [&](double d) { return ((a + 2) * d - (a + 3)) * d * d + 1; };
  auto far = [&](double d) {
    return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a;
  };
  double w[4] = {far(1 + r), near(r), near(1 - r), far(2 - r)};
  SmallVector<std::pair<int64_t, double>> taps;
  double sum = 0;
  for (int k = 0; k < 4; ++k) {
    int64_t i = i0 - 1 + k;
    if (excludeOutside && (i < 0 || i >= in))
      continue;
    taps.push_back({clampIndex(i), w[k]});
    sum += w[k];
  }
  if (excludeOutside && sum != 0)
    for (auto &t : taps)
      t.second /= sum;
  return taps;
}

/// Resize with tf_crop_and_resize coordinates (file comment).
FailureOr<Value> cropAndResize(NodeContext &nc, Value x, ResizeMode mode,
                               NearestMode nearest, ArrayRef<int64_t> axes,
                               ArrayRef<int64_t> outShape) {
  ArrayRef<int64_t> in = shapeOf(x);
  int64_t rank = in.size(), n = axes.size();
  std::optional<SmallVector<double>> roi =
      nc.input(1) ? nc.constFloats(1) : std::nullopt;
  if (!roi || (int64_t)roi->size() != 2 * n)
    return nc.error() << "expects a constant roi of " << 2 * n
                      << " values for tf_crop_and_resize",
           failure();
  SmallVector<double> start(rank, 0.0), end(rank, 1.0);
  for (int64_t i = 0; i < n; ++i) {
    start[axes[i]] = (*roi)[i];
    end[axes[i]] = (*roi)[n + i];
  }
  BWCBuilder &bb = nc.bb;
  Type elt = eltOf(x);
  if (!isa<FloatType>(elt))
    return nc.error() << "supports tf_crop_and_resize of float tensors only",
           failure();
  double a = nc.attrFloat("cubic_coeff_a", -0.75);
  bool exclude = nc.attrInt("exclude_outside", 0) != 0;
  Value y = x, valid;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t inD = in[d], outD = outShape[d];
    if (outD == inD && start[d] == 0.0 && end[d] == 1.0)
      continue;
    std::optional<int64_t> elements = product({outD, inD});
    if (!elements || *elements > (int64_t(1) << 24))
      return nc.error() << "resizes dim " << d << " from " << inD << " to "
                        << outD << ", too large for its interpolation matrix",
             failure();
    // Transposed matrix [in, out] so that y[..., in] x m gives [..., out].
    SmallVector<double> m(inD * outD, 0.0), inside(outD, 1.0);
    bool anyOutside = false;
    for (int64_t o = 0; o < outD; ++o) {
      double src = outD > 1 ? start[d] * (inD - 1) +
                                  o * (end[d] - start[d]) * (inD - 1) /
                                      double(outD - 1)
                            : 0.5 * (start[d] + end[d]) * (inD - 1);
      if (src < 0 || src > double(inD - 1)) {
        inside[o] = 0.0;
        anyOutside = true;
        continue;
      }
      for (auto [i, w] :
           interpolationTaps(mode, nearest, a, exclude, src, inD))
        m[i * outD + o] += w;
    }
    SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
    std::swap(perm[d], perm[rank - 1]);
    Value t = d == rank - 1 ? y : bb.transpose(y, perm);
    auto constantOf = [&](ArrayRef<int64_t> shape, ArrayRef<double> v) {
      SmallVector<Attribute> attrs;
      for (double e : v)
        attrs.push_back(scalarAttr(elt, e));
      return bb.constant(
          DenseElementsAttr::get(RankedTensorType::get(shape, elt), attrs));
    };
    Value mat = constantOf({inD, outD}, m);
    t = bb.matmul(t, mat);
    y = d == rank - 1 ? t : bb.transpose(t, perm);
    if (anyOutside) {
      SmallVector<int64_t> along(rank, 1);
      along[d] = outD;
      Value v = constantOf(along, inside);
      valid = valid ? bb.mul(valid, v) : v;
    }
  }
  if (valid) {
    Value keep = bb.binary(BinaryFn::gt, valid, bb.scalar(0.5, elt));
    y = bb.select(keep, y,
                  bb.scalar(nc.attrFloat("extrapolation_value", 0.0), elt));
  }
  return y;
}

/// The source coordinate of output index `o` along an axis scaled by `s`
/// from `in` to `out` elements (ONNX's coordinate_transformation_mode).
double sourceCoordinate(CoordMode coord, double o, double s, int64_t in,
                        int64_t out) {
  switch (coord) {
  case CoordMode::asymmetric:
    return o / s;
  case CoordMode::align_corners:
    return out > 1 ? o * double(in - 1) / double(out - 1) : 0.0;
  case CoordMode::pytorch_half_pixel:
    return out > 1 ? (o + 0.5) / s - 0.5 : 0.0;
  case CoordMode::tf_half_pixel_for_nn:
    return (o + 0.5) / s;
  case CoordMode::half_pixel:
    break;
  }
  return (o + 0.5) / s - 0.5;
}

/// Resize with antialias=1 (opset 18), linear or cubic: downscaling by s
/// widens the filter to 1/s input pixels (ONNX's reference: the triangle
/// or Keys kernel evaluated at (i - x) * s over the 2 * ceil-ish(1/s)
/// nearest indices, normalized to sum 1, indices past the edge reading the
/// edge, or dropped and renormalized with exclude_outside). The weights
/// are constants, so each resized axis is one constant [in, out] matmul,
/// as tf_crop_and_resize; an axis scaled up (s >= 1) has the plain
/// filter's weights.
FailureOr<Value> antialiasResize(NodeContext &nc, Value x, ResizeMode mode,
                                 CoordMode coord, ArrayRef<double> scales,
                                 ArrayRef<int64_t> outShape) {
  ArrayRef<int64_t> in = shapeOf(x);
  int64_t rank = in.size();
  BWCBuilder &bb = nc.bb;
  Type elt = eltOf(x);
  if (!isa<FloatType>(elt))
    return nc.error() << "supports antialias on float tensors only",
           failure();
  double a = nc.attrFloat("cubic_coeff_a", -0.75);
  bool exclude = nc.attrInt("exclude_outside", 0) != 0;
  bool cubic = mode == ResizeMode::cubic;
  auto kernel = [&](double t) {
    t = std::abs(t);
    if (!cubic)
      return std::max(0.0, 1.0 - t);
    if (t < 1)
      return ((a + 2) * t - (a + 3)) * t * t + 1;
    if (t < 2)
      return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a;
    return 0.0;
  };
  Value y = x;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t inD = in[d], outD = outShape[d];
    double s = scales[d];
    if (outD == inD && s == 1.0)
      continue;
    std::optional<int64_t> elements = product({outD, inD});
    if (!elements || *elements > (int64_t(1) << 24) || !(s > 0))
      return nc.error() << "resizes dim " << d << " from " << inD << " to "
                        << outD << ", too large for its interpolation matrix",
             failure();
    double f = std::min(s, 1.0);
    // Taps k in [start, start + n) around floor(x), as ONNX's reference.
    int64_t start = (int64_t)std::floor((cubic ? -2.0 : -1.0) / f) + 1;
    int64_t n = 2 - 2 * start;
    SmallVector<double> m(inD * outD, 0.0);
    for (int64_t o = 0; o < outD; ++o) {
      double src = sourceCoordinate(coord, double(o), s, inD, outD);
      double lo = std::floor(src);
      // ONNX's reference takes ratio 1 at an integer coordinate: the
      // window then starts one lower (the weights are the same).
      double ratio = src - lo;
      int64_t base = (int64_t)lo;
      if (ratio == 0.0)
        ratio = 1.0, base -= 1;
      SmallVector<std::pair<int64_t, double>> taps;
      double sum = 0;
      for (int64_t k = start; k < start + n; ++k) {
        int64_t i = base + k;
        double w = kernel((double(k) - ratio) * f);
        if (exclude && (i < 0 || i >= inD))
          continue;
        taps.push_back({std::clamp<int64_t>(i, 0, inD - 1), w});
        sum += w;
      }
      if (sum == 0)
        continue;
      for (auto [i, w] : taps)
        m[i * outD + o] += w / sum;
    }
    SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
    std::swap(perm[d], perm[rank - 1]);
    Value t = d == rank - 1 ? y : bb.transpose(y, perm);
    SmallVector<Attribute> attrs;
    for (double e : m)
      attrs.push_back(scalarAttr(elt, e));
    Value mat = bb.constant(
        DenseElementsAttr::get(RankedTensorType::get({inD, outD}, elt), attrs));
    t = bb.matmul(t, mat);
    y = d == rank - 1 ? t : bb.transpose(t, perm);
  }
  return y;
}

LogicalResult importResize(NodeContext &nc, Results &out) {
  Value x;
  FailureOr<ResizeMode> mode = readResizeInput(nc, nc.opset >= 11, x);
  if (failed(mode))
    return failure();
  ArrayRef<int64_t> in = shapeOf(x);
  int64_t rank = in.size();

  if (nc.opset < 11) {
    // Resize-10: as Upsample, asymmetric coordinates and floor rounding.
    FailureOr<SmallVector<double>> scales = constFloatInput(nc, 1, "scales");
    if (failed(scales))
      return failure();
    if ((int64_t)scales->size() != rank)
      return nc.error() << "expects " << rank << " scales but got "
                        << scales->size(),
             failure();
    FailureOr<SmallVector<int64_t>> outShape = sizesFromScales(nc, in, *scales);
    if (failed(outShape))
      return failure();
    out.push_back(buildResize(nc, x, *mode, *scales, *outShape,
                              CoordMode::asymmetric, NearestMode::floor));
    return success();
  }

  std::string coordName =
      nc.attrString("coordinate_transformation_mode", "half_pixel");
  bool crop = coordName == "tf_crop_and_resize";
  std::optional<CoordMode> coord =
      crop ? CoordMode::asymmetric : symbolizeCoordMode(coordName);
  if (!coord)
    return nc.error() << "unsupported coordinate_transformation_mode '"
                      << coordName << "'",
           failure();
  std::string nearestName = nc.attrString("nearest_mode", "round_prefer_floor");
  std::optional<NearestMode> nearest = symbolizeNearestMode(nearestName);
  if (!nearest)
    return nc.error() << "unsupported nearest_mode '" << nearestName << "'",
           failure();
  int64_t antialias = nc.attrInt("antialias", 0);
  if (antialias != 0 && antialias != 1)
    return nc.error() << "expects antialias 0 or 1 but got " << antialias,
           failure();
  if (antialias && crop)
    return nc.error() << "unsupported antialias with tf_crop_and_resize",
           failure();
  if (int64_t v = nc.attrInt("exclude_outside", 0);
      v != 0 && *mode != ResizeMode::cubic)
    return nc.error() << "unsupported exclude_outside=" << v
                      << " outside cubic mode",
           failure();
  std::string policy = nc.attrString("keep_aspect_ratio_policy", "stretch");
  if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller")
    return nc.error() << "unsupported keep_aspect_ratio_policy '" << policy
                      << "'",
           failure();

  SmallVector<int64_t> axes = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  if (auto a = nc.attrInts("axes")) {
    std::optional<SmallVector<int64_t>> norm = normalizeAxes(*a, rank);
    if (!norm || norm->size() != a->size())
      return nc.error() << "has invalid axes " << str(*a), failure();
    // Sizes and scales follow the attribute's order, not the sorted one.
    axes.clear();
    for (int64_t v : *a)
      axes.push_back(v < 0 ? v + rank : v);
  }
  int64_t n = axes.size();

  FailureOr<SmallVector<double>> scalesIn = constFloatInput(nc, 2, "scales");
  if (failed(scalesIn))
    return failure();
  std::optional<SmallVector<int64_t>> sizesIn;
  if (nc.input(3)) {
    sizesIn = nc.constInts(3);
    if (!sizesIn)
      return nc.error() << "unsupported non-constant 'sizes' input (it must "
                           "be a constant)",
             failure();
    if (sizesIn->empty())
      sizesIn.reset();
  }
  if (sizesIn && !scalesIn->empty())
    return nc.error() << "expects only one of 'scales' and 'sizes'", failure();
  if (!sizesIn && scalesIn->empty())
    return nc.error() << "expects 'scales' or 'sizes'", failure();

  SmallVector<double> scales(rank, 1.0);
  SmallVector<int64_t> outShape(in);
  if (sizesIn) {
    if ((int64_t)sizesIn->size() != n)
      return nc.error() << "expects " << n << " sizes but got "
                        << sizesIn->size(),
             failure();
    for (int64_t i = 0; i < n; ++i)
      if ((*sizesIn)[i] <= 0 || in[axes[i]] <= 0)
        return nc.error() << "cannot resize dim " << axes[i] << " of size "
                          << in[axes[i]] << " to size " << (*sizesIn)[i],
               failure();
    if (policy == "stretch") {
      for (int64_t i = 0; i < n; ++i) {
        outShape[axes[i]] = (*sizesIn)[i];
        scales[axes[i]] = double((*sizesIn)[i]) / double(in[axes[i]]);
      }
    } else {
      // One scale for all the axes, the largest (not_larger: smallest) that
      // keeps the aspect ratio.
      double s = policy == "not_larger" ? 1e300 : 0.0;
      for (int64_t i = 0; i < n; ++i) {
        double r = double((*sizesIn)[i]) / double(in[axes[i]]);
        s = policy == "not_larger" ? std::min(s, r) : std::max(s, r);
      }
      for (int64_t i = 0; i < n; ++i) {
        scales[axes[i]] = s;
        outShape[axes[i]] =
            std::max<int64_t>(1, (int64_t)std::round(s * in[axes[i]]));
      }
    }
  } else {
    if ((int64_t)scalesIn->size() != n)
      return nc.error() << "expects " << n << " scales but got "
                        << scalesIn->size(),
             failure();
    for (int64_t i = 0; i < n; ++i)
      scales[axes[i]] = (*scalesIn)[i];
    FailureOr<SmallVector<int64_t>> sizes = sizesFromScales(nc, in, scales);
    if (failed(sizes))
      return failure();
    outShape = *sizes;
  }
  if (crop) {
    FailureOr<Value> y = cropAndResize(nc, x, *mode, *nearest, axes, outShape);
    if (failed(y))
      return failure();
    out.push_back(*y);
    return success();
  }
  // Antialias changes only linear and cubic (nearest ignores it).
  if (antialias && *mode != ResizeMode::nearest) {
    FailureOr<Value> y =
        antialiasResize(nc, x, *mode, *coord, scales, outShape);
    if (failed(y))
      return failure();
    out.push_back(*y);
    return success();
  }
  out.push_back(buildResize(nc, x, *mode, scales, outShape, *coord, *nearest));
  return success();
}

LogicalResult importUpsample(NodeContext &nc, Results &out) {
  Value x;
  FailureOr<ResizeMode> mode = readResizeInput(nc, /*allowCubic=*/false, x);
  if (failed(mode))
    return failure();
  SmallVector<double> scales;
  if (nc.opset < 9) {
    std::optional<SmallVector<double>> s = nc.attrFloats("scales");
    if (!s)
      return nc.error() << "expects a 'scales' attribute", failure();
    scales = *s;
  } else {
    FailureOr<Value> s = nc.requiredInput(1);
    if (failed(s))
      return failure();
    FailureOr<SmallVector<double>> c = constFloatInput(nc, 1, "scales");
    if (failed(c))
      return failure();
    scales = *c;
  }
  int64_t rank = rankOf(x);
  if ((int64_t)scales.size() != rank)
    return nc.error() << "expects " << rank << " scales but got "
                      << scales.size(),
           failure();
  FailureOr<SmallVector<int64_t>> outShape =
      sizesFromScales(nc, shapeOf(x), scales);
  if (failed(outShape))
    return failure();
  out.push_back(buildResize(nc, x, *mode, scales, *outShape,
                            CoordMode::asymmetric, NearestMode::floor));
  return success();
}

} // namespace

void onnx_import::registerResizeHandlers(HandlerTable &t) {
  t["Resize"] = importResize;
  t["Upsample"] = importUpsample;
}
