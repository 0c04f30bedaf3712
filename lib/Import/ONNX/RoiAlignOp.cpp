//===- RoiAlignOp.cpp - ONNX RoiAlign into contractions -------------------===//
//
// RoiAlign (opsets 10 and 16) in `avg` mode is separable, like GridSample:
// each output bin averages bilinear samples on a grid_h x grid_w grid, and a
// bilinear sample's weights are a row weight times a column weight, so
//   out[r, c, ph, pw] = sum_h sum_w X[b(r), c, h, w] * Wy[r, ph, h]
//                                                    * Wx[r, pw, w],
// where Wy averages, over the grid rows, the two taps' weights (0 for a
// sample outside [-1, H]) placed where the tap's index equals h. The batch
// pick b(r) is a one-hot contraction over N, then the w sum and the h sum
// are batched bwc.matmuls: kernels the pipeline already has, on both
// targets, with rois and batch_indices as runtime inputs.
//
// Sampling follows ONNX Runtime (which ONNX's test data matches): with
// `half_pixel` (opset 16's default) coordinates shift by -0.5 and a roi may
// be smaller than a pixel; `output_half_pixel` keeps opset 10's behaviour
// (no shift, rois at least 1 x 1). A sample below 0 clamps to 0, one past
// the last row reads the last row only. `sampling_ratio` 0 (adaptive: the
// grid depends on each roi's size) needs constant rois.
//
// `max` mode is not separable: ONNX Runtime (and ONNX's reference) takes,
// per bin, the max over its samples of the max over each sample's four
// weighted taps (w * X at the tap; a sample outside [-1, H] has weight 0).
// Each axis gets a one-hot tap selection [R, P*G*2, L] and the taps'
// weights [R, P, G*2]; two batched matmuls gather every tap value of every
// sample, [R, P, G*2, C, Q, G*2], which is weighted and max-reduced over
// the two tap axes (bounded: kMaxMaxModeElements).
//
//===----------------------------------------------------------------------===//
#include "NodeImporter.h"

#include <cmath>

using namespace mlir;
using namespace mlir::bwc;
using namespace mlir::bwc::onnx_import;

namespace {

constexpr int64_t kMaxGrid = 64;
/// Largest tap tensor of max mode (R * C * OH * OW * 4 * grid_h * grid_w).
constexpr int64_t kMaxMaxModeElements = int64_t(1) << 26;

/// The bilinear taps of every sample along one axis, each [R, P, G]: the
/// low and high index and their weights (0 for a sample outside
/// [-1, len]), as ONNX Runtime's pre-calculation. `start` and `bin` are
/// [R, 1, 1] (the roi's first coordinate and bin size along the axis).
struct SampleTaps {
  Value low, high, wLow, wHigh;
};

SampleTaps sampleTaps(BWCBuilder &bb, Value start, Value bin, int64_t p,
                      int64_t grid, int64_t len, Type f) {
  auto c = [&](double v) { return bb.scalar(v, f); };
  // Sample coordinates [R, P, G]: start + p * bin + (g + 0.5) * bin / grid.
  Value pi = iotaAlong(bb, 3, 1, p, f), gi = iotaAlong(bb, 3, 2, grid, f);
  Value y = bb.add(start, bb.add(bb.mul(pi, bin),
                                 bb.mul(bb.add(gi, c(0.5)),
                                        bb.div(bin, c((double)grid)))));
  // Outside [-1, len]: the sample contributes nothing.
  Value valid = bb.binary(
      BinaryFn::and_, bb.binary(BinaryFn::ge, y, c(-1)),
      bb.binary(BinaryFn::le, y, c((double)len)));
  Value yc = bb.max(y, c(0));
  Value low = bb.unary(UnaryFn::floor, yc);
  Value atEnd = bb.binary(BinaryFn::ge, low, c((double)(len - 1)));
  Value last = c((double)(len - 1));
  low = bb.select(atEnd, last, low);
  Value high = bb.select(atEnd, last, bb.add(low, c(1)));
  Value frac = bb.select(atEnd, c(0), bb.sub(yc, low));
  Value zero = c(0);
  return {low, high, bb.select(valid, bb.sub(c(1), frac), zero),
          bb.select(valid, frac, zero)};
}

/// Max mode's taps along one axis: the one-hot selection [R, P * G * 2, L]
/// of each sample's low and high tap, and their weights [R, P, G * 2].
std::pair<Value, Value> axisTaps(BWCBuilder &bb, Value start, Value bin,
                                 int64_t p, int64_t grid, int64_t len,
                                 Type f) {
  SampleTaps t = sampleTaps(bb, start, bin, p, grid, len, f);
  // [R, P, G, 2]: low then high.
  Ints s4(BWCBuilder::shapeOf(t.low));
  s4.push_back(1);
  Value taps = bb.concat({bb.reshape(t.low, s4), bb.reshape(t.high, s4)}, 3);
  Value weights =
      bb.concat({bb.reshape(t.wLow, s4), bb.reshape(t.wHigh, s4)}, 3);
  int64_t r = s4[0];
  // One-hot over the axis: [R, P*G*2, 1] against [1, 1, L].
  Value sel = bb.cast(
      bb.binary(BinaryFn::eq, bb.reshape(taps, {r, p * grid * 2, 1}),
                iotaAlong(bb, 3, 2, len, f)),
      f);
  return {sel, bb.reshape(weights, {r, p, grid * 2})};
}

/// Wy[r, p, h] (or Wx) of shape [R, P, L]: the averaged bilinear weights
/// of the P bins of each roi along one axis of length L.
Value axisWeights(BWCBuilder &bb, Value start, Value bin, int64_t p,
                  int64_t grid, int64_t len, Type f) {
  auto c = [&](double v) { return bb.scalar(v, f); };
  auto [low, high, wLow, wHigh] = sampleTaps(bb, start, bin, p, grid, len, f);
  Value zero = c(0);
  // Place the taps: [R, P, G, 1] against [1, 1, 1, L], summed over G.
  auto col = [&](Value v) {
    Ints s(BWCBuilder::shapeOf(v));
    s.push_back(1);
    return bb.reshape(v, s);
  };
  Value li = iotaAlong(bb, 4, 3, len, f);
  Value w = bb.add(
      bb.select(bb.binary(BinaryFn::eq, col(low), li), col(wLow), zero),
      bb.select(bb.binary(BinaryFn::eq, col(high), li), col(wHigh), zero));
  Value sum = bb.reduce(ReduceKind::sum, w, {2}, /*keepDims=*/false);
  return bb.mul(sum, c(1.0 / (double)grid));
}

LogicalResult importRoiAlign(NodeContext &nc, Results &out) {
  FailureOr<Value> x = nc.requiredInput(0);
  if (failed(x))
    return failure();
  FailureOr<Value> rois = nc.requiredInput(1);
  if (failed(rois))
    return failure();
  FailureOr<Value> batch = nc.requiredInput(2);
  if (failed(batch))
    return failure();
  BWCBuilder &bb = nc.bb;
  Ints xs(shapeOf(*x)), rs(shapeOf(*rois)), bs(shapeOf(*batch));
  if (xs.size() != 4)
    return nc.error() << "expects a 4-D input but got rank " << xs.size(),
           failure();
  if (rs.size() != 2 || rs[1] != 4 || bs.size() != 1 || bs[0] != rs[0])
    return nc.error() << "expects rois [R, 4] and batch_indices [R] but got "
                      << str(rs) << " and " << str(bs),
           failure();
  Type f = eltOf(*x);
  if (!isa<FloatType>(f) || eltOf(*rois) != f)
    return nc.error() << "expects float X and rois of the same type",
           failure();
  std::string mode = nc.attrString("mode", "avg");
  if (mode != "avg" && mode != "max")
    return nc.error() << "unsupported mode '" << mode
                      << "' (expects 'avg' or 'max')",
           failure();
  std::string ctm = nc.attrString("coordinate_transformation_mode",
                                  nc.opset >= 16 ? "half_pixel"
                                                 : "output_half_pixel");
  if (ctm != "half_pixel" && ctm != "output_half_pixel")
    return nc.error() << "unsupported coordinate_transformation_mode '" << ctm
                      << "'",
           failure();
  bool halfPixel = ctm == "half_pixel";
  int64_t oh = nc.attrInt("output_height", 1), ow = nc.attrInt("output_width", 1);
  int64_t ratio = nc.attrInt("sampling_ratio", 0);
  double scale = nc.attrFloat("spatial_scale", 1.0);
  if (oh <= 0 || ow <= 0 || ratio < 0)
    return nc.error() << "expects positive output sizes and a non-negative "
                         "sampling_ratio",
           failure();
  int64_t r = rs[0], n = xs[0], ch = xs[1], h = xs[2], w = xs[3];
  // The grid per axis: sampling_ratio, or adaptive from constant rois.
  int64_t gridH = ratio, gridW = ratio;
  if (ratio == 0) {
    std::optional<SmallVector<double>> box = nc.constFloats(1);
    if (!box)
      return nc.error() << "has sampling_ratio 0 (a grid from each roi's "
                           "size) with runtime rois: set sampling_ratio or "
                           "make the rois constant",
             failure();
    // One grid for all rois: bwc's weights share it, so take each axis's
    // largest (a roi's own grid is then checked to be that one).
    for (int64_t i = 0; i < r; ++i) {
      double rw = ((*box)[4 * i + 2] - (*box)[4 * i]) * scale;
      double rh = ((*box)[4 * i + 3] - (*box)[4 * i + 1]) * scale;
      if (!halfPixel)
        rw = std::max(rw, 1.0), rh = std::max(rh, 1.0);
      int64_t gh = (int64_t)std::ceil(rh / oh), gw = (int64_t)std::ceil(rw / ow);
      if (i > 0 && (gh != gridH || gw != gridW))
        return nc.error() << "has sampling_ratio 0 and rois whose adaptive "
                             "grids differ: set sampling_ratio",
               failure();
      gridH = gh, gridW = gw;
    }
    gridH = std::max<int64_t>(gridH, 1), gridW = std::max<int64_t>(gridW, 1);
  }
  if (gridH > kMaxGrid || gridW > kMaxGrid)
    return nc.error() << "samples a grid of " << gridH << " x " << gridW
                      << " per bin, more than " << kMaxGrid << " per axis",
           failure();
  auto c = [&](double v) { return bb.scalar(v, f); };
  // Roi coordinates [R, 1, 1] each.
  auto coord = [&](int64_t k) {
    Value v = bb.slice(*rois, {0, k}, {r, 1}, {1, 1});
    v = bb.sub(bb.mul(v, c(scale)), c(halfPixel ? 0.5 : 0.0));
    return bb.reshape(v, {r, 1, 1});
  };
  Value x1 = coord(0), y1 = coord(1), x2 = coord(2), y2 = coord(3);
  Value rw = bb.sub(x2, x1), rh = bb.sub(y2, y1);
  if (!halfPixel)
    rw = bb.max(rw, c(1)), rh = bb.max(rh, c(1));
  // X of each roi's image: one-hot [R, N] x [N, C*H*W].
  Type i64 = bb.builder().getI64Type();
  Value bi = bb.reshape(bb.cast(*batch, i64), {r, 1});
  Value pick = bb.cast(bb.binary(BinaryFn::eq, bi, iotaAlong(bb, 2, 1, n, i64)),
                       f);
  Value xr = bb.matmul(pick, bb.reshape(*x, {n, ch * h * w}));
  if (mode == "max") {
    std::optional<int64_t> elements =
        product({r, ch, oh, ow, 4 * gridH * gridW});
    if (!elements || *elements > kMaxMaxModeElements)
      return nc.error() << "in max mode gathers " << r << " x " << ch
                        << " x " << oh << " x " << ow << " x "
                        << 4 * gridH * gridW << " tap values, more than "
                        << kMaxMaxModeElements,
             failure();
    auto [sy, wy] =
        axisTaps(bb, y1, bb.div(rh, c((double)oh)), oh, gridH, h, f);
    auto [sx, wx] =
        axisTaps(bb, x1, bb.div(rw, c((double)ow)), ow, gridW, w, f);
    int64_t ty = oh * gridH * 2;
    // Rows: [R, TY, H] x [R, H, C*W] -> [R, TY, C*W].
    Value xt = bb.transpose(bb.reshape(xr, {r, ch, h, w}), {0, 2, 1, 3});
    Value rows = bb.matmul(sy, bb.reshape(xt, {r, h, ch * w}));
    // Columns: [R, TY*C, W] x [R, W, TX] -> [R, TY*C, TX], TX = OW*GW*2.
    Value taps = bb.matmul(bb.reshape(rows, {r, ty * ch, w}),
                           bb.transpose(sx, {0, 2, 1}));
    Value v = bb.reshape(taps, {r, oh, gridH * 2, ch, ow, gridW * 2});
    v = bb.mul(v, bb.reshape(wy, {r, oh, gridH * 2, 1, 1, 1}));
    v = bb.mul(v, bb.reshape(wx, {r, 1, 1, 1, ow, gridW * 2}));
    Value m = bb.reduce(ReduceKind::max, v, {2, 5}, /*keepDims=*/false);
    out.push_back(bb.transpose(m, {0, 2, 1, 3}));
    return success();
  }
  Value wy = axisWeights(bb, y1, bb.div(rh, c((double)oh)), oh, gridH, h, f);
  Value wx = axisWeights(bb, x1, bb.div(rw, c((double)ow)), ow, gridW, w, f);
  // The w sum: [R, C*H, W] x [R, W, OW].
  Value t = bb.matmul(bb.reshape(xr, {r, ch * h, w}),
                      bb.transpose(wx, {0, 2, 1}));
  // The h sum: [R, 1, OH, H] x [R, C, H, OW] -> [R, C, OH, OW].
  FailureOr<Value> y = onnxMatmul(nc, bb.reshape(wy, {r, 1, oh, h}),
                                  bb.reshape(t, {r, ch, h, ow}));
  if (failed(y))
    return failure();
  out.push_back(*y);
  return success();
}

} // namespace

void onnx_import::registerRoiAlignHandlers(HandlerTable &t) {
  t["RoiAlign"] = importRoiAlign;
}
