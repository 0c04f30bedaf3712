//===- BWCGradients.cpp - Reverse-mode rules of bwc ops -------------------===//
//
// DifferentiableOpInterface for every bwc op: the adjoint of each operand
// from the adjoint of the result, written with the bwc builder so that the
// backward program is ordinary bwc IR (fused, planned and rematerialized
// like the forward one). docs/passes/bwc-grad.md lists the rules.
//
// Conventions: a null operand adjoint means no gradient flows there; the
// rules reduce broadcasting back (`unbroadcast`); convolution and pooling
// adjoints are convolutions again (a transposed convolution for the data, a
// convolution with batch and channels exchanged for the filter), so they
// reuse the contraction emitters.
//
//===----------------------------------------------------------------------===//
#include "bwc/Dialect/BWC/IR/BWCOps.h"
#include "bwc/Dialect/BWC/Utils/BWCBuilder.h"
#include "bwc/Dialect/BWC/Utils/ShapeUtils.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/STLExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::bwc;

#include "bwc/Dialect/BWC/IR/BWCInterfaces.cpp.inc"

namespace {

using B = BWCBuilder;

bool isFloatValue(Value v) { return isa<FloatType>(B::elementTypeOf(v)); }

/// Sums `g` (of a broadcast result's shape) back to `shape`: the leading
/// dims the operand lacks and the dims where it has size 1.
Value unbroadcast(B &b, Value g, ArrayRef<int64_t> shape) {
  ArrayRef<int64_t> from = B::shapeOf(g);
  if (from == shape)
    return g;
  int64_t lead = from.size() - shape.size();
  SmallVector<int64_t> axes;
  for (int64_t i = 0; i < (int64_t)from.size(); ++i)
    if (i < lead || (shape[i - lead] == 1 && from[i] != 1))
      axes.push_back(i);
  Value r = axes.empty() ? g : b.reduce(ReduceKind::sum, g, axes, true);
  return b.reshape(r, shape);
}

/// Sizes `grads` to one null adjoint per operand; true when the single
/// operand `x` that the rule differentiates is wanted and a float tensor.
bool wantsAdjoint(SmallVectorImpl<Value> &grads, unsigned operands,
                  ArrayRef<bool> wanted, Value x) {
  grads.assign(operands, nullptr);
  return wanted[0] && isFloatValue(x);
}

Value zero(B &b, Value like) { return b.scalar(0.0, B::elementTypeOf(like)); }

TypedAttr zeroAttr(Type elt) {
  if (auto f = dyn_cast<FloatType>(elt))
    return FloatAttr::get(f, 0.0);
  return IntegerAttr::get(elt, 0);
}

/// Zero padding (constant mode) of `x` by `pads` (begins then ends).
Value zeroPad(B &b, Value x, ArrayRef<int64_t> pads) {
  if (llvm::all_of(pads, [](int64_t p) { return p == 0; }))
    return x;
  ArrayRef<int64_t> s = B::shapeOf(x);
  int64_t rank = s.size();
  SmallVector<int64_t> shape(s);
  for (int64_t i = 0; i < rank; ++i)
    shape[i] += pads[i] + pads[rank + i];
  Type elt = B::elementTypeOf(x);
  return PadOp::create(b.builder(), b.getLoc(),
                       RankedTensorType::get(shape, elt), PadMode::constant, x,
                       b.builder().getDenseI64ArrayAttr(pads), zeroAttr(elt));
}

/// Contiguous slice of `x`: `sizes` elements from `starts`.
Value window(B &b, Value x, ArrayRef<int64_t> starts, ArrayRef<int64_t> sizes) {
  if (llvm::all_of(starts, [](int64_t s) { return s == 0; }) &&
      ArrayRef<int64_t>(sizes) == B::shapeOf(x))
    return x;
  return b.slice(x, starts, sizes, SmallVector<int64_t>(starts.size(), 1));
}

/// An f32/f16/... constant of `shape` from doubles.
Value floatConstant(B &b, ArrayRef<int64_t> shape, Type elt,
                    ArrayRef<double> values) {
  auto ft = cast<FloatType>(elt);
  SmallVector<APFloat> v;
  v.reserve(values.size());
  for (double d : values) {
    APFloat f(d);
    bool lost;
    f.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    v.push_back(f);
  }
  return b.constant(
      DenseElementsAttr::get(RankedTensorType::get(shape, elt), v));
}

/// The integers 0..n-1 of element type `elt` (i32 or i64).
Value iota(B &b, int64_t n, Type elt) {
  auto it = cast<IntegerType>(elt);
  SmallVector<APInt> v;
  for (int64_t i = 0; i < n; ++i)
    v.push_back(APInt(it.getWidth(), i, /*isSigned=*/true));
  return b.constant(DenseElementsAttr::get(RankedTensorType::get({n}, elt), v));
}

Value convOp(B &b, Value x, Value w, ArrayRef<int64_t> strides,
             ArrayRef<int64_t> dilations, ArrayRef<int64_t> pads,
             int64_t groups, bool transposed) {
  ArrayRef<int64_t> xs = B::shapeOf(x), ws = B::shapeOf(w);
  int64_t spatial = xs.size() - 2;
  SmallVector<int64_t> shape = {xs[0], transposed ? ws[1] * groups : ws[0]};
  for (int64_t i = 0; i < spatial; ++i) {
    int64_t pb = pads[i], pe = pads[spatial + i];
    shape.push_back(
        (transposed ? transposedConvOutputSize(xs[2 + i], ws[2 + i],
                                               strides[i], dilations[i], pb,
                                               pe, 0)
                    : windowOutputSize(xs[2 + i], ws[2 + i], strides[i],
                                       dilations[i], pb, pe, false))
            .value_or(0));
  }
  OpBuilder &ob = b.builder();
  return ConvOp::create(
      ob, b.getLoc(), RankedTensorType::get(shape, B::elementTypeOf(x)), x, w,
      /*bias=*/nullptr, ob.getDenseI64ArrayAttr(strides),
      ob.getDenseI64ArrayAttr(dilations), ob.getDenseI64ArrayAttr(pads), groups,
      transposed, /*output_padding=*/nullptr, /*acc_type=*/nullptr,
      /*channels_last=*/false);
}

/// The spatial window [padBegin, padBegin + in) of `v` ([N, C, E...]), the
/// unpadded input's positions: zeros appended where E falls short.
Value cropToInput(B &b, Value v, ArrayRef<int64_t> padBegin,
                  ArrayRef<int64_t> inSpatial) {
  ArrayRef<int64_t> s = B::shapeOf(v);
  int64_t rank = s.size(), spatial = rank - 2;
  SmallVector<int64_t> pads(2 * rank, 0);
  bool short_ = false;
  for (int64_t i = 0; i < spatial; ++i) {
    int64_t need = padBegin[i] + inSpatial[i];
    if (s[2 + i] < need) {
      pads[rank + 2 + i] = need - s[2 + i];
      short_ = true;
    }
  }
  if (short_)
    v = zeroPad(b, v, pads);
  SmallVector<int64_t> starts = {0, 0}, sizes = {s[0], s[1]};
  for (int64_t i = 0; i < spatial; ++i) {
    starts.push_back(padBegin[i]);
    sizes.push_back(inSpatial[i]);
  }
  return window(b, v, starts, sizes);
}

/// The filter adjoint of a direct convolution of `x` ([N, C, D...]) whose
/// result adjoint is `g` ([N, F, O...]), filter [F, C/groups, K...]:
/// dW[f, c, k] = sum_{n,o} g[n, f, o] * xpad[n, group(f) * C/groups + c,
/// o * stride + k * dilation], a convolution of x with batch and channels
/// exchanged, g as its filter, stride and dilation exchanged.
Value convFilterGrad(B &b, Value x, Value g, ArrayRef<int64_t> strides,
                     ArrayRef<int64_t> dilations, ArrayRef<int64_t> padBegin,
                     ArrayRef<int64_t> kernel, int64_t groups) {
  ArrayRef<int64_t> xs = B::shapeOf(x), gs = B::shapeOf(g);
  int64_t rank = xs.size(), spatial = rank - 2;
  int64_t n = xs[0], c = xs[1], f = gs[1], cg = c / groups, fg = f / groups;
  // The padded input, cut to exactly the extent the taps reach.
  SmallVector<int64_t> pads(2 * rank, 0), sizes(xs);
  for (int64_t i = 0; i < spatial; ++i) {
    int64_t reach =
        (kernel[i] - 1) * dilations[i] + strides[i] * (gs[2 + i] - 1) + 1;
    pads[2 + i] = padBegin[i];
    pads[rank + 2 + i] = std::max<int64_t>(0, reach - xs[2 + i] - padBegin[i]);
    sizes[2 + i] = reach;
  }
  Value xp = zeroPad(b, x, pads);
  xp = window(b, xp, SmallVector<int64_t>(rank, 0), sizes);
  // [N, G, Cg, D...] -> [Cg, G, N, D...] -> [Cg, G*N, D...].
  SmallVector<int64_t> spatialD(sizes.begin() + 2, sizes.end());
  SmallVector<int64_t> s5 = {n, groups, cg};
  s5.append(spatialD);
  SmallVector<int64_t> perm = {2, 1, 0};
  for (int64_t i = 0; i < spatial; ++i)
    perm.push_back(3 + i);
  Value xt = b.transpose(b.reshape(xp, s5), perm);
  SmallVector<int64_t> xShape = {cg, groups * n};
  xShape.append(spatialD);
  xt = b.reshape(xt, xShape);
  // g [N, G, Fg, O...] -> [G, Fg, N, O...] -> [F, N, O...].
  SmallVector<int64_t> spatialO(gs.begin() + 2, gs.end());
  SmallVector<int64_t> g5 = {n, groups, fg};
  g5.append(spatialO);
  SmallVector<int64_t> gperm = {1, 2, 0};
  for (int64_t i = 0; i < spatial; ++i)
    gperm.push_back(3 + i);
  Value gt = b.transpose(b.reshape(g, g5), gperm);
  SmallVector<int64_t> wShape = {f, n};
  wShape.append(spatialO);
  gt = b.reshape(gt, wShape);
  Value dw = convOp(b, xt, gt, dilations, strides,
                    SmallVector<int64_t>(2 * spatial, 0), groups, false);
  // [Cg, F, K...] -> [F, Cg, K...].
  SmallVector<int64_t> back = {1, 0};
  for (int64_t i = 0; i < spatial; ++i)
    back.push_back(2 + i);
  return b.transpose(dw, back);
}

/// Sum of `g` ([N, C, ...]) over all dims but 1: a bias adjoint.
Value channelSum(B &b, Value g) {
  SmallVector<int64_t> axes = {0};
  for (int64_t i = 2; i < (int64_t)B::shapeOf(g).size(); ++i)
    axes.push_back(i);
  return b.reduce(ReduceKind::sum, g, axes, false);
}

} // namespace

//===----------------------------------------------------------------------===//
// Constants, elementwise
//===----------------------------------------------------------------------===//

LogicalResult ConstantOp::buildVJP(BWCBuilder &, Value, ArrayRef<bool>,
                                   SmallVectorImpl<Value> &) {
  return success();
}

LogicalResult UnaryOp::buildVJP(BWCBuilder &b, Value g, ArrayRef<bool> wanted,
                                SmallVectorImpl<Value> &grads) {
  Value x = getInput(), y = getResult();
  if (!wantsAdjoint(grads, 1, wanted, x))
    return success();
  Type elt = B::elementTypeOf(x);
  auto c = [&](double v) { return b.scalar(v, elt); };
  switch (getFn()) {
  case UnaryFn::abs:
    grads[0] = b.mul(g, b.unary(UnaryFn::sign, x));
    break;
  case UnaryFn::neg:
    grads[0] = b.unary(UnaryFn::neg, g);
    break;
  case UnaryFn::exp:
    grads[0] = b.mul(g, y);
    break;
  case UnaryFn::log:
    grads[0] = b.div(g, x);
    break;
  case UnaryFn::sqrt:
    grads[0] = b.div(b.mul(g, c(0.5)), y);
    break;
  case UnaryFn::rsqrt: // d/dx x^-1/2 = -y^3 / 2
    grads[0] = b.mul(b.mul(g, c(-0.5)), b.mul(y, b.mul(y, y)));
    break;
  case UnaryFn::reciprocal:
    grads[0] = b.unary(UnaryFn::neg, b.mul(g, b.mul(y, y)));
    break;
  case UnaryFn::sigmoid:
    grads[0] = b.mul(g, b.mul(y, b.sub(c(1), y)));
    break;
  case UnaryFn::tanh:
    grads[0] = b.mul(g, b.sub(c(1), b.mul(y, y)));
    break;
  case UnaryFn::erf: // 2/sqrt(pi) exp(-x^2)
    grads[0] = b.mul(b.mul(g, c(2.0 / std::sqrt(M_PI))),
                     b.unary(UnaryFn::exp, b.unary(UnaryFn::neg, b.mul(x, x))));
    break;
  case UnaryFn::sin:
    grads[0] = b.mul(g, b.unary(UnaryFn::cos, x));
    break;
  case UnaryFn::cos:
    grads[0] = b.unary(UnaryFn::neg, b.mul(g, b.unary(UnaryFn::sin, x)));
    break;
  case UnaryFn::relu:
    grads[0] = b.select(b.binary(BinaryFn::gt, x, c(0)), g, zero(b, g));
    break;
  case UnaryFn::tan: // 1 + tan^2
    grads[0] = b.mul(g, b.add(c(1), b.mul(y, y)));
    break;
  case UnaryFn::asin: // 1 / sqrt(1 - x^2)
    grads[0] = b.div(g, b.unary(UnaryFn::sqrt, b.sub(c(1), b.mul(x, x))));
    break;
  case UnaryFn::acos:
    grads[0] = b.unary(UnaryFn::neg,
                       b.div(g, b.unary(UnaryFn::sqrt,
                                        b.sub(c(1), b.mul(x, x)))));
    break;
  case UnaryFn::atan: // 1 / (1 + x^2)
    grads[0] = b.div(g, b.add(c(1), b.mul(x, x)));
    break;
  case UnaryFn::sinh:
    grads[0] = b.mul(g, b.unary(UnaryFn::cosh, x));
    break;
  case UnaryFn::cosh:
    grads[0] = b.mul(g, b.unary(UnaryFn::sinh, x));
    break;
  case UnaryFn::asinh: // 1 / sqrt(x^2 + 1)
    grads[0] = b.div(g, b.unary(UnaryFn::sqrt, b.add(b.mul(x, x), c(1))));
    break;
  case UnaryFn::acosh: // 1 / sqrt(x^2 - 1)
    grads[0] = b.div(g, b.unary(UnaryFn::sqrt, b.sub(b.mul(x, x), c(1))));
    break;
  case UnaryFn::atanh: // 1 / (1 - x^2)
    grads[0] = b.div(g, b.sub(c(1), b.mul(x, x)));
    break;
  case UnaryFn::floor:
  case UnaryFn::ceil:
  case UnaryFn::round:
  case UnaryFn::sign:
  case UnaryFn::not_:
    break; // piecewise constant: no gradient
  }
  return success();
}

LogicalResult BinaryOp::buildVJP(BWCBuilder &b, Value g, ArrayRef<bool> wanted,
                                 SmallVectorImpl<Value> &grads) {
  grads.assign(2, nullptr);
  Value l = getLhs(), r = getRhs(), y = getResult();
  if (!isFloatValue(l) || isComparison())
    return success();
  Value dl, dr;
  switch (getFn()) {
  case BinaryFn::add:
    dl = g;
    dr = g;
    break;
  case BinaryFn::sub:
    dl = g;
    if (wanted[1])
      dr = b.unary(UnaryFn::neg, g);
    break;
  case BinaryFn::mul:
    if (wanted[0])
      dl = b.mul(g, r);
    if (wanted[1])
      dr = b.mul(g, l);
    break;
  case BinaryFn::div:
    if (wanted[0])
      dl = b.div(g, r);
    if (wanted[1])
      dr = b.unary(UnaryFn::neg, b.div(b.mul(g, y), r));
    break;
  case BinaryFn::pow:
    if (wanted[0])
      dl = b.mul(b.mul(g, r),
                 b.binary(BinaryFn::pow, l,
                          b.sub(r, b.scalar(1, B::elementTypeOf(r)))));
    if (wanted[1])
      dr = b.mul(b.mul(g, y), b.unary(UnaryFn::log, l));
    break;
  case BinaryFn::max:
  case BinaryFn::min: {
    // Ties go to the left operand, as the forward pick does.
    Value pickLeft =
        b.binary(getFn() == BinaryFn::max ? BinaryFn::ge : BinaryFn::le, l, r);
    if (wanted[0])
      dl = b.select(pickLeft, g, zero(b, g));
    if (wanted[1])
      dr = b.select(pickLeft, zero(b, g), g);
    break;
  }
  case BinaryFn::mod:
  case BinaryFn::fmod:
    dl = g; // x - q * y with q piecewise constant
    if (wanted[1])
      return emitOpError() << "has no gradient rule for its divisor ("
                           << stringifyBinaryFn(getFn())
                           << " of a trainable value)";
    break;
  default:
    return success();
  }
  if (wanted[0] && dl)
    grads[0] = unbroadcast(b, dl, B::shapeOf(l));
  if (wanted[1] && dr)
    grads[1] = unbroadcast(b, dr, B::shapeOf(r));
  return success();
}

LogicalResult SelectOp::buildVJP(BWCBuilder &b, Value g, ArrayRef<bool> wanted,
                                 SmallVectorImpl<Value> &grads) {
  grads.assign(3, nullptr);
  if (!isFloatValue(getOnTrue()))
    return success();
  if (wanted[1])
    grads[1] = unbroadcast(b, b.select(getCond(), g, zero(b, g)),
                           B::shapeOf(getOnTrue()));
  if (wanted[2])
    grads[2] = unbroadcast(b, b.select(getCond(), zero(b, g), g),
                           B::shapeOf(getOnFalse()));
  return success();
}

LogicalResult CastOp::buildVJP(BWCBuilder &b, Value g, ArrayRef<bool> wanted,
                               SmallVectorImpl<Value> &grads) {
  if (wantsAdjoint(grads, 1, wanted, getInput()) && isFloatValue(getResult()))
    grads[0] = b.cast(g, B::elementTypeOf(getInput()));
  return success();
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

LogicalResult ReduceOp::buildVJP(BWCBuilder &b, Value g, ArrayRef<bool> wanted,
                                 SmallVectorImpl<Value> &grads) {
  Value x = getInput();
  if (!wantsAdjoint(grads, 1, wanted, x))
    return success();
  ArrayRef<int64_t> xs = B::shapeOf(x);
  if (getAxes().empty()) {
    grads[0] = g;
    return success();
  }
  SmallVector<int64_t> kept = reducedShape(xs, getAxes(), /*keepDims=*/true);
  auto spread = [&](Value v) { return b.broadcastTo(b.reshape(v, kept), xs); };
  Type elt = B::elementTypeOf(x);
  int64_t count = 1;
  for (int64_t a : getAxes())
    count *= xs[a];
  switch (getKind()) {
  case ReduceKind::sum:
    grads[0] = spread(g);
    break;
  case ReduceKind::mean:
    grads[0] = spread(b.div(g, b.scalar((double)count, elt)));
    break;
  case ReduceKind::max:
  case ReduceKind::min: {
    // Split evenly among the elements equal to the extremum.
    Value hit = b.cast(b.binary(BinaryFn::eq, x, spread(getResult())), elt);
    Value ties = b.reduce(ReduceKind::sum, hit, getAxes(), true);
    grads[0] = b.mul(hit, b.broadcastTo(b.div(b.reshape(g, kept), ties), xs));
    break;
  }
  case ReduceKind::prod:
    grads[0] = b.div(b.mul(spread(g), spread(getResult())), x);
    break;
  }
  return success();
}

LogicalResult ArgReduceOp::buildVJP(BWCBuilder &, Value, ArrayRef<bool>,
                                    SmallVectorImpl<Value> &grads) {
  grads.assign(1, nullptr); // integer result
  return success();
}

//===----------------------------------------------------------------------===//
// Contraction, convolution, pooling
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::buildVJP(BWCBuilder &b, Value g, ArrayRef<bool> wanted,
                                 SmallVectorImpl<Value> &grads) {
  grads.assign(2, nullptr);
  Value l = getLhs(), r = getRhs();
  auto swapLast = [&](Value v) {
    SmallVector<int64_t> perm = identityPerm(B::shapeOf(v).size());
    std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
    return b.transpose(v, perm);
  };
  if (wanted[0])
    grads[0] = unbroadcast(b, b.matmul(g, swapLast(r)), B::shapeOf(l));
  if (wanted[1])
    grads[1] = unbroadcast(b, b.matmul(swapLast(l), g), B::shapeOf(r));
  return success();
}

LogicalResult ConvOp::buildVJP(BWCBuilder &b, Value g, ArrayRef<bool> wanted,
                               SmallVectorImpl<Value> &grads) {
  grads.assign(getNumOperands(), nullptr);
  if (getChannelsLast())
    return emitOpError() << "is channels_last: bwc-grad runs before "
                            "bwc-select-layout";
  Value x = getInput(), w = getFilter();
  ArrayRef<int64_t> xs = B::shapeOf(x), ws = B::shapeOf(w);
  int64_t spatial = xs.size() - 2;
  ArrayRef<int64_t> pads = getPads();
  SmallVector<int64_t> padBegin(pads.begin(), pads.begin() + spatial);
  SmallVector<int64_t> inSpatial(xs.begin() + 2, xs.end());
  SmallVector<int64_t> kernel(ws.begin() + 2, ws.end());
  SmallVector<int64_t> zeroPads(2 * spatial, 0);
  int64_t groups = getGroups();
  if (!getTransposed()) {
    // dx: the transposed convolution of g by the same filter, cropped to
    // the unpadded input.
    if (wanted[0])
      grads[0] = cropToInput(b,
                             convOp(b, g, w, getStrides(), getDilations(),
                                    zeroPads, groups, /*transposed=*/true),
                             padBegin, inSpatial);
    if (wanted[1])
      grads[1] = convFilterGrad(b, x, g, getStrides(), getDilations(), padBegin,
                                kernel, groups);
  } else {
    // y = convT(x, W): dx is the direct convolution of g by W (the end pad
    // less the output padding, which only added positions past the end).
    if (wanted[0]) {
      SmallVector<int64_t> p(pads);
      for (int64_t i = 0; i < spatial; ++i) {
        int64_t op = getOutputPadding() ? (*getOutputPadding())[i] : 0;
        p[spatial + i] = std::max<int64_t>(0, pads[spatial + i] - op);
      }
      grads[0] = convOp(b, g, w, getStrides(), getDilations(), p, groups,
                        /*transposed=*/false);
    }
    // dW[c, f, k] = sum x[n, c, i] g[n, f, i*s + k*d - pad]: the direct
    // convolution's filter rule with g as the input and x as the adjoint.
    if (wanted[1])
      grads[1] = convFilterGrad(b, g, x, getStrides(), getDilations(), padBegin,
                                kernel, groups);
  }
  if (getBias() && wanted[2])
    grads[2] = channelSum(b, g);
  return success();
}

LogicalResult PoolOp::buildVJP(BWCBuilder &b, Value g, ArrayRef<bool> wanted,
                               SmallVectorImpl<Value> &grads) {
  Value x = getInput();
  if (!wantsAdjoint(grads, 1, wanted, x))
    return success();
  if (getChannelsLast())
    return emitOpError() << "is channels_last: bwc-grad runs before "
                            "bwc-select-layout";
  ArrayRef<int64_t> xs = B::shapeOf(x), ys = B::shapeOf(getResult());
  Type elt = B::elementTypeOf(x);
  int64_t rank = xs.size(), spatial = rank - 2, c = xs[1];
  ArrayRef<int64_t> kernel = getKernel(), strides = getStrides(),
                    dilations = getDilations(), pads = getPads();
  SmallVector<int64_t> padBegin(pads.begin(), pads.begin() + spatial);
  SmallVector<int64_t> inSpatial(xs.begin() + 2, xs.end());
  SmallVector<int64_t> outSpatial(ys.begin() + 2, ys.end());
  SmallVector<int64_t> zeroPads(2 * spatial, 0);
  int64_t taps = numElements(kernel);

  // Spreading a per-tap adjoint [N, C*taps, O...] back over the window is a
  // grouped transposed convolution whose filter [C*taps, 1, K...] holds a
  // one at each tap (max) or ones (avg: [C, 1, K...]).
  SmallVector<int64_t> kshape(kernel);
  if (getKind() == PoolKind::avg) {
    SmallVector<double> div =
        avgPoolDivisors(inSpatial, outSpatial, kernel, strides, dilations, pads,
                        getCountIncludePad());
    Value scaled = b.div(g, floatConstant(b, outSpatial, elt, div));
    SmallVector<int64_t> fshape = {c, 1};
    fshape.append(kshape);
    Value ones = b.broadcastTo(b.scalar(1, elt), fshape);
    grads[0] = cropToInput(b,
                           convOp(b, scaled, ones, strides, dilations, zeroPads,
                                  c, /*transposed=*/true),
                           padBegin, inSpatial);
    return success();
  }

  // Max: the first tap equal to the maximum takes the adjoint (the
  // forward's pick). The input padded with the lowest value covers every
  // window, ceil_mode ones too.
  SmallVector<int64_t> xpads(2 * rank, 0);
  for (int64_t i = 0; i < spatial; ++i) {
    int64_t reach =
        (outSpatial[i] - 1) * strides[i] + (kernel[i] - 1) * dilations[i] + 1;
    xpads[2 + i] = padBegin[i];
    xpads[rank + 2 + i] =
        std::max<int64_t>(0, reach - inSpatial[i] - padBegin[i]);
  }
  auto ft = cast<FloatType>(elt);
  Value xp = x;
  if (llvm::any_of(xpads, [](int64_t p) { return p; })) {
    SmallVector<int64_t> shape(xs);
    for (int64_t i = 0; i < rank; ++i)
      shape[i] += xpads[i] + xpads[rank + i];
    xp = PadOp::create(
        b.builder(), b.getLoc(), RankedTensorType::get(shape, elt),
        PadMode::constant, x, b.builder().getDenseI64ArrayAttr(xpads),
        FloatAttr::get(ft, APFloat::getInf(ft.getFloatSemantics(), true)));
  }
  SmallVector<int64_t> kstrides = rowMajorStrides(kernel);
  SmallVector<Value> parts;
  Value taken;
  SmallVector<int64_t> partShape = {xs[0], c, 1};
  partShape.append(outSpatial);
  for (int64_t t = 0; t < taps; ++t) {
    SmallVector<int64_t> starts = {0, 0}, steps = {1, 1};
    for (int64_t i = 0; i < spatial; ++i) {
      starts.push_back(((t / kstrides[i]) % kernel[i]) * dilations[i]);
      steps.push_back(strides[i]);
    }
    Value tap = b.slice(xp, starts, ys, steps);
    Value hit = b.binary(BinaryFn::eq, tap, getResult());
    Value first = hit;
    if (taken) {
      first = b.binary(BinaryFn::and_, hit, b.unary(UnaryFn::not_, taken));
      taken = b.binary(BinaryFn::or_, taken, hit);
    } else {
      taken = hit;
    }
    parts.push_back(b.reshape(b.select(first, g, zero(b, g)), partShape));
  }
  Value stacked = b.concat(parts, 2);
  SmallVector<int64_t> sshape = {xs[0], c * taps};
  sshape.append(outSpatial);
  stacked = b.reshape(stacked, sshape);
  SmallVector<int64_t> fshape = {c * taps, 1};
  fshape.append(kshape);
  SmallVector<double> onehot(c * taps * taps, 0.0);
  for (int64_t ch = 0; ch < c; ++ch)
    for (int64_t t = 0; t < taps; ++t)
      onehot[(ch * taps + t) * taps + t] = 1.0;
  Value filter = floatConstant(b, fshape, elt, onehot);
  grads[0] = cropToInput(b,
                         convOp(b, stacked, filter, strides, dilations,
                                zeroPads, c, /*transposed=*/true),
                         padBegin, inSpatial);
  return success();
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

LogicalResult TransposeOp::buildVJP(BWCBuilder &b, Value g,
                                    ArrayRef<bool> wanted,
                                    SmallVectorImpl<Value> &grads) {
  if (wantsAdjoint(grads, 1, wanted, getInput()))
    grads[0] = b.transpose(g, invertPerm(getPerm()));
  return success();
}

LogicalResult ReshapeOp::buildVJP(BWCBuilder &b, Value g, ArrayRef<bool> wanted,
                                  SmallVectorImpl<Value> &grads) {
  if (wantsAdjoint(grads, 1, wanted, getInput()))
    grads[0] = b.reshape(g, B::shapeOf(getInput()));
  return success();
}

LogicalResult BroadcastOp::buildVJP(BWCBuilder &b, Value g,
                                    ArrayRef<bool> wanted,
                                    SmallVectorImpl<Value> &grads) {
  if (wantsAdjoint(grads, 1, wanted, getInput()))
    grads[0] = unbroadcast(b, g, B::shapeOf(getInput()));
  return success();
}

LogicalResult SliceOp::buildVJP(BWCBuilder &b, Value g, ArrayRef<bool> wanted,
                                SmallVectorImpl<Value> &grads) {
  Value x = getInput();
  if (!wantsAdjoint(grads, 1, wanted, x))
    return success();
  ArrayRef<int64_t> xs = B::shapeOf(x);
  int64_t rank = xs.size();
  SmallVector<int64_t> pads(2 * rank, 0);
  for (int64_t d = 0; d < rank; ++d) {
    SmallVector<int64_t> s(B::shapeOf(g));
    int64_t m = s[d], start = getStarts()[d], step = getSteps()[d];
    if (step < 0 && m > 1) {
      // Reverse, then it is the positive-step slice from the last index.
      SmallVector<int64_t> starts(rank, 0), steps(rank, 1);
      starts[d] = m - 1;
      steps[d] = -1;
      g = b.slice(g, starts, s, steps);
    }
    if (step < 0) {
      start += (m - 1) * step;
      step = -step;
    }
    if (step > 1 && m > 1) {
      // Interleave step-1 zeros: [.., m, 1, ..] padded to [.., m, step, ..].
      SmallVector<int64_t> split(s);
      split.insert(split.begin() + d + 1, 1);
      SmallVector<int64_t> p(2 * (rank + 1), 0);
      p[(rank + 1) + d + 1] = step - 1;
      Value spread = zeroPad(b, b.reshape(g, split), p);
      SmallVector<int64_t> merged(s);
      merged[d] = m * step;
      g = b.reshape(spread, merged);
      SmallVector<int64_t> sizes(merged);
      sizes[d] = (m - 1) * step + 1;
      g = window(b, g, SmallVector<int64_t>(rank, 0), sizes);
    }
    pads[d] = start;
    pads[rank + d] = xs[d] - start - B::shapeOf(g)[d];
  }
  grads[0] = zeroPad(b, g, pads);
  return success();
}

LogicalResult ConcatOp::buildVJP(BWCBuilder &b, Value g, ArrayRef<bool> wanted,
                                 SmallVectorImpl<Value> &grads) {
  grads.assign(getNumOperands(), nullptr);
  int64_t axis = getAxis(), offset = 0;
  for (auto [i, in] : llvm::enumerate(getInputs())) {
    ArrayRef<int64_t> s = B::shapeOf(in);
    if (wanted[i] && isFloatValue(in)) {
      SmallVector<int64_t> starts(s.size(), 0);
      starts[axis] = offset;
      grads[i] = window(b, g, starts, s);
    }
    offset += s[axis];
  }
  return success();
}

/// The adjoint of an op that is linear in its input and separable per
/// axis (resize, reflect/edge padding): along each axis k of `axes` the
/// result is W_k applied to the input, so the adjoint contracts `g` with
/// each W_k along its axis. `transposedMatrix(k)` builds W_k^T
/// ([n_k, out_k]) as the op itself applied along the last axis of the
/// [n_k, n_k] identity (row i is what input element i gives each output),
/// so the rule cannot drift from the forward semantics.
static Value separableAdjoint(B &b, Value g, ArrayRef<int64_t> axes,
                       function_ref<Value(int64_t)> transposedMatrix) {
  for (int64_t k : axes) {
    int64_t rank = B::shapeOf(g).size(), out = B::shapeOf(g)[k];
    Value wt = transposedMatrix(k);
    int64_t n = B::shapeOf(wt)[0];
    SmallVector<int64_t> perm, inverse(rank);
    for (int64_t d = 0; d < rank; ++d)
      if (d != k)
        perm.push_back(d);
    perm.push_back(k);
    for (int64_t d = 0; d < rank; ++d)
      inverse[perm[d]] = d;
    Value t = b.transpose(g, perm);
    SmallVector<int64_t> ts(B::shapeOf(t));
    int64_t rows = numElements(ts) / out;
    Value m = b.matmul(b.reshape(t, {rows, out}), b.transpose(wt, {1, 0}));
    ts.back() = n;
    g = b.transpose(b.reshape(m, ts), inverse);
  }
  return g;
}

/// The [n, n] identity of element type `elt`.
static Value identity(B &b, int64_t n, Type elt) {
  SmallVector<double> v(n * n, 0.0);
  for (int64_t i = 0; i < n; ++i)
    v[i * n + i] = 1.0;
  return floatConstant(b, {n, n}, elt, v);
}

LogicalResult PadOp::buildVJP(BWCBuilder &b, Value g, ArrayRef<bool> wanted,
                              SmallVectorImpl<Value> &grads) {
  Value x = getInput();
  if (!wantsAdjoint(grads, 1, wanted, x))
    return success();
  ArrayRef<int64_t> xs = B::shapeOf(x);
  int64_t rank = xs.size();
  ArrayRef<int64_t> pads = getPads();
  if (getMode() == PadMode::constant) {
    grads[0] = window(b, g, pads.take_front(rank), xs);
    return success();
  }
  // reflect and edge: each padded element copies one input element of its
  // axis, so the adjoint adds it back there (W_k per padded axis).
  SmallVector<int64_t> axes;
  for (int64_t k = 0; k < rank; ++k)
    if (pads[k] != 0 || pads[rank + k] != 0)
      axes.push_back(k);
  Type elt = B::elementTypeOf(x);
  grads[0] = separableAdjoint(b, g, axes, [&](int64_t k) {
    int64_t n = xs[k];
    int64_t out = n + pads[k] + pads[rank + k];
    SmallVector<int64_t> p{0, pads[k], 0, pads[rank + k]};
    return Value(PadOp::create(b.builder(), b.getLoc(),
                               RankedTensorType::get({n, out}, elt), getMode(),
                               identity(b, n, elt),
                               b.builder().getDenseI64ArrayAttr(p),
                               zeroAttr(elt))
                     .getResult());
  });
  return success();
}

LogicalResult GatherOp::buildVJP(BWCBuilder &b, Value g, ArrayRef<bool> wanted,
                                 SmallVectorImpl<Value> &grads) {
  Value data = getData(), idx = getIndices();
  if (!wantsAdjoint(grads, 2, wanted, data))
    return success();
  // dData[A, j, B] = sum_I [idx[I] == j] g[A, I, B]: a matmul with the
  // one-hot matrix of the (normalized) indices.
  ArrayRef<int64_t> ds = B::shapeOf(data);
  int64_t axis = getAxis(), n = ds[axis];
  int64_t outer = numElements(ds.take_front(axis));
  int64_t inner = numElements(ds.drop_front(axis + 1));
  int64_t count = numElements(B::shapeOf(idx));
  Type it = B::elementTypeOf(idx);
  Value flat = b.reshape(idx, {count, 1});
  flat = b.select(b.binary(BinaryFn::lt, flat, b.scalar(0, it)),
                  b.add(flat, b.scalar((double)n, it)), flat);
  Value onehot =
      b.cast(b.binary(BinaryFn::eq, flat, b.reshape(iota(b, n, it), {1, n})),
             B::elementTypeOf(data));
  Value g3 = b.reshape(g, {outer, count, inner});
  Value d = b.matmul(b.transpose(onehot, {1, 0}), g3);
  grads[0] = b.reshape(d, ds);
  return success();
}

LogicalResult ResizeOp::buildVJP(BWCBuilder &b, Value g, ArrayRef<bool> wanted,
                                 SmallVectorImpl<Value> &grads) {
  Value x = getInput();
  if (!wantsAdjoint(grads, 1, wanted, x))
    return success();
  // Every mode is separable (nearest picks one source per axis, linear and
  // cubic weights are products of per-axis weights), so the adjoint is one
  // contraction per resized axis by the [n, out] matrix of that axis's
  // weights, which is the op itself applied to one-hot rows. An axis with
  // scale 1 and unchanged size maps each element to itself, except where
  // tf_half_pixel_for_nn moves the source by half a pixel and the rounding
  // or interpolation then reaches the next one: such an axis is resized too.
  bool shiftsUnscaled =
      getCoord() == CoordMode::tf_half_pixel_for_nn &&
      (getMode() != ResizeMode::nearest ||
       getNearestMode() == NearestMode::ceil ||
       getNearestMode() == NearestMode::round_prefer_ceil);
  ArrayRef<int64_t> xs = B::shapeOf(x), ys = B::shapeOf(getResult());
  ArrayRef<double> scales = getScales();
  SmallVector<int64_t> axes;
  for (int64_t k = 0; k < (int64_t)xs.size(); ++k)
    if (xs[k] != ys[k] || scales[k] != 1.0 || (shiftsUnscaled && xs[k] > 1))
      axes.push_back(k);
  Type elt = B::elementTypeOf(x);
  grads[0] = separableAdjoint(b, g, axes, [&](int64_t k) {
    int64_t n = xs[k];
    // The one-hot rows sit on an axis the op resizes too (it has one
    // coordinate mode for all), so that axis must map row i to row i
    // exactly. Every mode but tf_half_pixel_for_nn leaves an axis of scale
    // 1 and unchanged size alone. tf_half_pixel_for_nn maps row o to
    // (o + 0.5) / s: with s = 0.5 that is the integer 2o + 1 (exact in
    // f32), where nearest rounding of any kind, linear and cubic (Keys'
    // kernel is 1 at distance 0 and 0 at 1 and 2) all take that one row.
    // So one-hot row i is put at row 2i + 1 of a [2n, n] matrix, zeros
    // between, and halved back to n rows.
    Value rows = identity(b, n, elt);
    double rowScale = 1.0;
    if (getCoord() == CoordMode::tf_half_pixel_for_nn && n > 1) {
      SmallVector<double> v(2 * n * n, 0.0);
      for (int64_t i = 0; i < n; ++i)
        v[(2 * i + 1) * n + i] = 1.0;
      rows = floatConstant(b, {2 * n, n}, elt, v);
      rowScale = 0.5;
    }
    auto r = ResizeOp::create(
        b.builder(), b.getLoc(), RankedTensorType::get({n, ys[k]}, elt),
        getMode(), rows, ArrayRef<double>{rowScale, scales[k]}, getCoord(),
        getNearestMode(), /*cubic_coeff_a=*/nullptr,
        /*exclude_outside=*/false);
    r.setCubicCoeffAAttr(getCubicCoeffAAttr());
    r.setExcludeOutside(getExcludeOutside());
    return Value(r.getResult());
  });
  return success();
}
