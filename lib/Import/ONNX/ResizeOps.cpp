//===- ResizeOps.cpp - ONNX Resize and Upsample into bwc ------------------===//
//
// Resize (every opset: scales or sizes, axes, keep_aspect_ratio_policy,
// the coordinate and nearest modes) and Upsample, both into bwc.resize.
// Scales and sizes must be constants.
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
  std::optional<CoordMode> coord = symbolizeCoordMode(coordName);
  if (!coord)
    return nc.error() << "unsupported coordinate_transformation_mode '"
                      << coordName << "'",
           failure();
  std::string nearestName = nc.attrString("nearest_mode", "round_prefer_floor");
  std::optional<NearestMode> nearest = symbolizeNearestMode(nearestName);
  if (!nearest)
    return nc.error() << "unsupported nearest_mode '" << nearestName << "'",
           failure();
  if (int64_t v = nc.attrInt("antialias", 0); v != 0)
    return nc.error() << "unsupported antialias=" << v, failure();
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
