//===- GridSampleOp.cpp - ONNX GridSample into contractions ---------------===//
//
// GridSample (opset 16, 2-D) is separable: each output position reads the
// input through a weight per input column and a weight per input row,
//   out[n, c, p] = sum_h sum_w X[n, c, h, w] * Ky[n, p, h] * Kx[n, p, w],
// where K sums, over the mode's taps (nearest 1, bilinear 2, bicubic 4),
// the tap's weight where the tap's (padded) index equals w. The w sum is a
// batched bwc.matmul and the h sum a multiply and reduction, so the op is
// kernels the pipeline already has, on both targets.
//
// Coordinates follow PyTorch's grid_sampler_2d, which ONNX's test data
// comes from: unnormalize (align_corners), then for nearest and bilinear
// pad the coordinate (border: clamp; reflection: reflect, then clamp), and
// for bicubic pad each tap index; taps outside the input read 0 (they match
// no w). Cost: H + W weights per output position and H x W x C
// multiply-adds, refused above kMaxWork.
//
//===----------------------------------------------------------------------===//
#include "NodeImporter.h"

using namespace mlir;
using namespace mlir::bwc;
using namespace mlir::bwc::onnx_import;

namespace {

constexpr int64_t kMaxWork = int64_t(1) << 32;

enum class Padding { Zeros, Border, Reflection };

struct Axis {
  BWCBuilder &bb;
  Type elt;
  int64_t size;
  bool alignCorners;
  Padding padding;

  Value c(double v) { return bb.scalar(v, elt); }

  Value unnormalize(Value g) {
    if (alignCorners)
      return bb.mul(bb.mul(bb.add(g, c(1)), c(0.5)), c(size - 1));
    return bb.mul(bb.sub(bb.mul(bb.add(g, c(1)), c(size)), c(1)), c(0.5));
  }

  Value clip(Value x) { return bb.min(bb.max(x, c(0)), c(size - 1)); }

  Value reflect(Value x) {
    double lo = alignCorners ? 0 : -1, hi = alignCorners ? 2 * (size - 1)
                                                         : 2 * size - 1;
    if (lo == hi)
      return bb.mul(x, c(0));
    double min = lo / 2, span = (hi - lo) / 2;
    Value v = bb.unary(UnaryFn::abs, bb.sub(x, c(min)));
    Value extra = bb.binary(BinaryFn::fmod, v, c(span));
    Value flips = bb.unary(UnaryFn::floor, bb.div(v, c(span)));
    Value even = bb.binary(BinaryFn::eq,
                           bb.binary(BinaryFn::fmod, flips, c(2)), c(0));
    return bb.select(even, bb.add(extra, c(min)),
                     bb.add(bb.sub(c(span), extra), c(min)));
  }

  /// PyTorch's compute_coordinates.
  Value pad(Value x) {
    if (padding == Padding::Border)
      return clip(x);
    if (padding == Padding::Reflection)
      return clip(reflect(x));
    return x;
  }

  /// K [n, p, size]: sum over taps of weight * (index == w).
  Value kernel(ArrayRef<std::pair<Value, Value>> taps) {
    Ints shape(BWCBuilder::shapeOf(taps.front().first));
    Ints col(shape);
    col.push_back(1);
    Ints iotaShape(shape.size(), 1);
    iotaShape.push_back(size);
    SmallVector<Attribute> ids;
    for (int64_t i = 0; i < size; ++i)
      ids.push_back(scalarAttr(elt, i));
    Value iota = bb.constant(
        DenseElementsAttr::get(RankedTensorType::get(iotaShape, elt), ids));
    Value k;
    for (auto [index, weight] : taps) {
      Value hit = bb.binary(BinaryFn::eq, bb.reshape(index, col), iota);
      Value term = bb.select(hit, bb.reshape(weight, col), c(0));
      k = k ? bb.add(k, term) : term;
    }
    return k;
  }

  /// The taps of `mode` at normalized coordinates `g` [n, p].
  Value weights(StringRef mode, Value g) {
    if (mode == "nearest")
      return kernel({{bb.unary(UnaryFn::round, pad(unnormalize(g))), c(1)}});
    if (mode == "bilinear") {
      Value x = pad(unnormalize(g));
      Value x0 = bb.unary(UnaryFn::floor, x);
      Value t = bb.sub(x, x0);
      return kernel({{x0, bb.sub(c(1), t)}, {bb.add(x0, c(1)), t}});
    }
    // bicubic (A = -0.75), padding applied to each tap index
    Value x = unnormalize(g);
    Value x0 = bb.unary(UnaryFn::floor, x);
    Value t = bb.sub(x, x0);
    double a = -0.75;
    auto conv1 = [&](Value v) { // ((A + 2) v - (A + 3)) v^2 + 1
      return bb.add(bb.mul(bb.sub(bb.mul(v, c(a + 2)), c(a + 3)),
                           bb.mul(v, v)),
                    c(1));
    };
    auto conv2 = [&](Value v) { // ((A v - 5A) v + 8A) v - 4A
      return bb.sub(
          bb.mul(bb.add(bb.mul(bb.sub(bb.mul(v, c(a)), c(5 * a)), v),
                        c(8 * a)),
                 v),
          c(4 * a));
    };
    Value u = bb.sub(c(1), t);
    Value w[4] = {conv2(bb.add(t, c(1))), conv1(t), conv1(u),
                  conv2(bb.add(u, c(1)))};
    SmallVector<std::pair<Value, Value>> taps;
    for (int k = 0; k < 4; ++k)
      taps.push_back({bb.unary(UnaryFn::floor,
                               pad(bb.add(x0, c(k - 1)))),
                      w[k]});
    return kernel(taps);
  }
};

LogicalResult importGridSample(NodeContext &nc, Results &out) {
  FailureOr<Value> x = nc.requiredInput(0), grid = nc.requiredInput(1);
  if (failed(x) || failed(grid))
    return failure();
  Type elt = eltOf(*x);
  ArrayRef<int64_t> xs = shapeOf(*x), gs = shapeOf(*grid);
  if (!isa<FloatType>(elt) || xs.size() != 4 || gs.size() != 4 ||
      gs[0] != xs[0] || gs[3] != 2)
    return nc.error() << "expects a float input [N, C, H, W] and a grid "
                         "[N, Ho, Wo, 2] (2-D sampling)",
           failure();
  std::string mode = nc.attrString("mode", "bilinear");
  std::string padName = nc.attrString("padding_mode", "zeros");
  if (mode != "bilinear" && mode != "nearest" && mode != "bicubic")
    return nc.error() << "unsupported mode '" << mode << "'", failure();
  if (padName != "zeros" && padName != "border" && padName != "reflection")
    return nc.error() << "unsupported padding_mode '" << padName << "'",
           failure();
  Padding padding = padName == "zeros"    ? Padding::Zeros
                    : padName == "border" ? Padding::Border
                                          : Padding::Reflection;
  bool align = nc.attrInt("align_corners", 0) != 0;
  int64_t n = xs[0], ch = xs[1], h = xs[2], w = xs[3];
  int64_t p = gs[1] * gs[2];
  if (double(n) * p * (h + w) * ch > double(kMaxWork) ||
      double(n) * p * h * w > double(kMaxWork))
    return nc.error() << "samples too large an input for the separable "
                         "contraction",
           failure();
  BWCBuilder &bb = nc.bb;
  Value g = bb.cast(bb.reshape(*grid, {n, p, 2}), elt);
  auto coord = [&](int64_t k) {
    return bb.reshape(bb.slice(g, {0, 0, k}, {n, p, 1}, {1, 1, 1}), {n, p});
  };
  Axis ax{bb, elt, w, align, padding}, ay{bb, elt, h, align, padding};
  Value kx = ax.weights(mode, coord(0)); // [n, p, w]
  Value ky = ay.weights(mode, coord(1)); // [n, p, h]
  // sum over w: [n, c*h, w] x [n, w, p]
  Value t = bb.matmul(bb.reshape(*x, {n, ch * h, w}),
                      bb.transpose(kx, {0, 2, 1}));
  // sum over h: [n, c, h, p] * [n, 1, h, p]
  Value kyT = bb.reshape(bb.transpose(ky, {0, 2, 1}), {n, 1, h, p});
  Value y = bb.reduce(ReduceKind::sum,
                      bb.mul(bb.reshape(t, {n, ch, h, p}), kyT), {2},
                      /*keepDims=*/false);
  out.push_back(bb.reshape(y, {n, ch, gs[1], gs[2]}));
  return success();
}

} // namespace

void onnx_import::registerGridSampleHandlers(HandlerTable &t) {
  t["GridSample"] = importGridSample;
}
