//===- ConvPoolOps.cpp - ONNX convolutions and pools into bwc -------------===//
//
// Conv and ConvTranspose (bwc.conv), MaxPool and AveragePool (bwc.pool) and
// GlobalAveragePool/GlobalMaxPool (bwc.reduce over the spatial dims). The
// ONNX window attributes (strides, dilations, pads, auto_pad, kernel_shape,
// group) and their defaults are resolved here into explicit attributes.
//
//===----------------------------------------------------------------------===//
#include "NodeImporter.h"

#include "bwc/Dialect/BWC/Utils/ShapeUtils.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::bwc;
using namespace mlir::bwc::onnx_import;

namespace {

/// Errors unless every value has a float element type equal to the first's.
LogicalResult requireSameFloat(NodeContext &nc, ArrayRef<Value> vs) {
  for (Value v : vs) {
    if (!v)
      continue;
    if (!isa<FloatType>(eltOf(v)))
      return nc.error() << "expects float inputs but got " << eltOf(v),
             failure();
    if (eltOf(v) != eltOf(vs.front()))
      return nc.error() << "expects inputs of one element type but got "
                        << eltOf(vs.front()) << " and " << eltOf(v),
             failure();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Sliding-window attributes (Conv, ConvTranspose, pools)
//===----------------------------------------------------------------------===//

enum class AutoPad { NotSet, SameUpper, SameLower, Valid };

FailureOr<AutoPad> readAutoPad(NodeContext &nc) {
  std::string s = nc.attrString("auto_pad", "NOTSET");
  if (s == "NOTSET" || s.empty())
    return AutoPad::NotSet;
  if (s == "SAME_UPPER")
    return AutoPad::SameUpper;
  if (s == "SAME_LOWER")
    return AutoPad::SameLower;
  if (s == "VALID")
    return AutoPad::Valid;
  return nc.error() << "unsupported auto_pad '" << s << "'", failure();
}

/// An int-list attribute with one value per spatial dim (strides,
/// dilations, kernel_shape); `dflt` fills it when absent.
FailureOr<SmallVector<int64_t>> spatialInts(NodeContext &nc, StringRef name,
                                            int64_t spatial, int64_t dflt) {
  std::optional<SmallVector<int64_t>> v = nc.attrInts(name);
  if (!v)
    return SmallVector<int64_t>(spatial, dflt);
  if ((int64_t)v->size() != spatial)
    return nc.error() << "expects " << spatial << " values in '" << name
                      << "' but got " << v->size(),
           failure();
  if (llvm::any_of(*v, [](int64_t x) { return x <= 0; }))
    return nc.error() << "expects positive '" << name << "' but got "
                      << str(*v),
           failure();
  return *v;
}

/// The explicit `pads` attribute (begin pads then end pads), zeros when
/// absent.
FailureOr<SmallVector<int64_t>> explicitPads(NodeContext &nc, int64_t spatial) {
  std::optional<SmallVector<int64_t>> v = nc.attrInts("pads");
  if (!v)
    return SmallVector<int64_t>(2 * spatial, 0);
  if ((int64_t)v->size() != 2 * spatial)
    return nc.error() << "expects " << 2 * spatial
                      << " values in 'pads' but got " << v->size(),
           failure();
  if (llvm::any_of(*v, [](int64_t x) { return x < 0; }))
    return nc.error() << "unsupported negative 'pads' " << str(*v), failure();
  return *v;
}

/// Kernel, strides, dilations and explicit pads of a forward window.
struct Window {
  SmallVector<int64_t> kernel, strides, dilations, pads;
  AutoPad autoPad = AutoPad::NotSet;
};

/// Reads strides, dilations and pads for a forward window (Conv, pools)
/// over `in` (the spatial dims) with `kernel`, resolving auto_pad:
/// SAME_* pads so that out = ceil(in / stride), the odd pad at the end
/// (UPPER) or the beginning (LOWER).
FailureOr<Window> readWindow(NodeContext &nc, ArrayRef<int64_t> in,
                             ArrayRef<int64_t> kernel) {
  int64_t spatial = in.size();
  Window w;
  w.kernel.assign(kernel.begin(), kernel.end());
  FailureOr<SmallVector<int64_t>> strides =
      spatialInts(nc, "strides", spatial, 1);
  FailureOr<SmallVector<int64_t>> dilations =
      spatialInts(nc, "dilations", spatial, 1);
  FailureOr<AutoPad> autoPad = readAutoPad(nc);
  if (failed(strides) || failed(dilations) || failed(autoPad))
    return failure();
  w.strides = *strides;
  w.dilations = *dilations;
  w.autoPad = *autoPad;
  switch (*autoPad) {
  case AutoPad::NotSet: {
    FailureOr<SmallVector<int64_t>> pads = explicitPads(nc, spatial);
    if (failed(pads))
      return failure();
    w.pads = *pads;
    break;
  }
  case AutoPad::Valid:
    w.pads.assign(2 * spatial, 0);
    break;
  case AutoPad::SameUpper:
  case AutoPad::SameLower:
    w.pads.assign(2 * spatial, 0);
    for (int64_t i = 0; i < spatial; ++i) {
      int64_t s = w.strides[i];
      int64_t out = (in[i] + s - 1) / s;
      int64_t span = (kernel[i] - 1) * w.dilations[i] + 1;
      int64_t total = std::max<int64_t>(0, (out - 1) * s + span - in[i]);
      int64_t small = total / 2, large = total - small;
      bool upper = *autoPad == AutoPad::SameUpper;
      w.pads[i] = upper ? small : large;
      w.pads[spatial + i] = upper ? large : small;
    }
    break;
  }
  return w;
}

/// Output spatial sizes of a forward window, or an error naming the dim
/// the window does not fit.
FailureOr<SmallVector<int64_t>> windowOutput(NodeContext &nc,
                                             ArrayRef<int64_t> in,
                                             const Window &w, bool ceilMode) {
  int64_t spatial = in.size();
  SmallVector<int64_t> out;
  for (int64_t i = 0; i < spatial; ++i) {
    std::optional<int64_t> d =
        windowOutputSize(in[i], w.kernel[i], w.strides[i], w.dilations[i],
                         w.pads[i], w.pads[spatial + i], ceilMode);
    if (!d || *d <= 0)
      return nc.error() << "the window (kernel " << w.kernel[i] << ", dilation "
                        << w.dilations[i] << ") does not fit spatial dim " << i
                        << " of size " << in[i] << " with pads " << w.pads[i]
                        << " and " << w.pads[spatial + i],
             failure();
    out.push_back(*d);
  }
  return out;
}

/// Checks an optional kernel_shape attribute against the filter's dims.
LogicalResult checkKernelShape(NodeContext &nc, ArrayRef<int64_t> kernel) {
  std::optional<SmallVector<int64_t>> ks = nc.attrInts("kernel_shape");
  if (ks && ArrayRef<int64_t>(*ks) != kernel)
    return nc.error() << "kernel_shape " << str(*ks)
                      << " does not match the weights' spatial dims "
                      << str(kernel),
           failure();
  return success();
}

/// The `group` attribute, checked against the input channels.
FailureOr<int64_t> readGroup(NodeContext &nc, int64_t channels) {
  int64_t group = nc.attrInt("group", 1);
  if (group <= 0 || channels % group != 0)
    return nc.error() << "group " << group << " does not divide the "
                      << channels << " input channels",
           failure();
  return group;
}

/// The optional bias input 2 of Conv/ConvTranspose: shape [F].
FailureOr<Value> readBias(NodeContext &nc, Value x, int64_t f) {
  Value bias = nc.input(2);
  if (!bias)
    return Value();
  if (failed(requireSameFloat(nc, {x, bias})))
    return failure();
  if (rankOf(bias) != 1 || shapeOf(bias)[0] != f)
    return nc.error() << "expects bias of shape [" << f << "] but got "
                      << str(shapeOf(bias)),
           failure();
  return bias;
}

//===----------------------------------------------------------------------===//
// Conv, ConvTranspose
//===----------------------------------------------------------------------===//

/// Reads X and W of a (transposed) convolution and checks their types and
/// ranks.
LogicalResult readConvOperands(NodeContext &nc, Value &x, Value &w) {
  FailureOr<Value> xi = nc.requiredInput(0), wi = nc.requiredInput(1);
  if (failed(xi) || failed(wi))
    return failure();
  x = *xi;
  w = *wi;
  if (failed(requireSameFloat(nc, {x, w})) ||
      failed(requireRank(nc, x, 3, "input")))
    return failure();
  if (rankOf(w) != rankOf(x))
    return nc.error() << "expects weights of rank " << rankOf(x)
                      << " but got rank " << rankOf(w),
           failure();
  if (llvm::is_contained(shapeOf(w), 0))
    return nc.error() << "expects non-empty weights but got shape "
                      << str(shapeOf(w)),
           failure();
  return checkKernelShape(nc, shapeOf(w).drop_front(2));
}

LogicalResult importConv(NodeContext &nc, Results &out) {
  Value x, w;
  if (failed(readConvOperands(nc, x, w)))
    return failure();
  FailureOr<Value> bias = readBias(nc, x, shapeOf(w)[0]);
  if (failed(bias))
    return failure();
  FailureOr<Value> y = onnxConv(nc, x, w, *bias);
  if (failed(y))
    return failure();
  out.push_back(*y);
  return success();
}

} // namespace

FailureOr<Value> onnx_import::onnxConv(NodeContext &nc, Value x, Value w,
                                       Value bias) {
  if (failed(requireRank(nc, x, 3, "input")))
    return failure();
  if (rankOf(w) != rankOf(x))
    return nc.error() << "expects weights of rank " << rankOf(x)
                      << " but got rank " << rankOf(w),
           failure();
  if (failed(checkKernelShape(nc, shapeOf(w).drop_front(2))))
    return failure();
  ArrayRef<int64_t> xs = shapeOf(x), ws = shapeOf(w);
  FailureOr<int64_t> group = readGroup(nc, xs[1]);
  if (failed(group))
    return failure();
  if (ws[1] * *group != xs[1])
    return nc.error() << "weights take " << ws[1] << " channels per group but "
                      << "the input has " << xs[1] << " channels in " << *group
                      << " groups",
           failure();
  if (ws[0] % *group != 0)
    return nc.error() << "group " << *group << " does not divide the " << ws[0]
                      << " output channels",
           failure();
  FailureOr<Window> win = readWindow(nc, xs.drop_front(2), ws.drop_front(2));
  if (failed(win))
    return failure();
  FailureOr<SmallVector<int64_t>> spatialOut =
      windowOutput(nc, xs.drop_front(2), *win, /*ceilMode=*/false);
  if (failed(spatialOut))
    return failure();
  SmallVector<int64_t> shape = {xs[0], ws[0]};
  shape.append(spatialOut->begin(), spatialOut->end());
  return ConvOp::create(nc.bb.builder(), nc.getLoc(),
                        RankedTensorType::get(shape, eltOf(x)), x, w, bias,
                        win->strides, win->dilations, win->pads, *group,
                        /*transposed=*/false,
                        /*output_padding=*/nullptr,
                        /*acc_type=*/nullptr,
                        /*channels_last=*/false)
      .getResult();
}

namespace {

/// Pads of a transposed convolution that produce `target` (output_shape,
/// or in * stride for SAME_*): the ONNX ConvTranspose rule, where
/// SAME_UPPER puts the smaller half first and every other mode the larger.
SmallVector<int64_t> convTransposePads(ArrayRef<int64_t> in,
                                       ArrayRef<int64_t> kernel,
                                       ArrayRef<int64_t> strides,
                                       ArrayRef<int64_t> dilations,
                                       ArrayRef<int64_t> outputPadding,
                                       ArrayRef<int64_t> target, bool upper) {
  int64_t spatial = in.size();
  SmallVector<int64_t> pads(2 * spatial, 0);
  for (int64_t i = 0; i < spatial; ++i) {
    int64_t total = strides[i] * (in[i] - 1) + outputPadding[i] +
                    (kernel[i] - 1) * dilations[i] + 1 - target[i];
    int64_t half = llvm::divideFloorSigned(total, 2);
    pads[i] = upper ? half : total - half;
    pads[spatial + i] = total - pads[i];
  }
  return pads;
}

LogicalResult importConvTranspose(NodeContext &nc, Results &out) {
  Value x, w;
  if (failed(readConvOperands(nc, x, w)))
    return failure();
  ArrayRef<int64_t> xs = shapeOf(x), ws = shapeOf(w);
  ArrayRef<int64_t> in = xs.drop_front(2), kernel = ws.drop_front(2);
  int64_t spatial = in.size();
  FailureOr<int64_t> group = readGroup(nc, xs[1]);
  if (failed(group))
    return failure();
  if (ws[0] != xs[1])
    return nc.error() << "weights take " << ws[0] << " input channels but "
                      << "the input has " << xs[1],
           failure();
  int64_t f = ws[1] * *group;
  FailureOr<Value> bias = readBias(nc, x, f);
  FailureOr<SmallVector<int64_t>> strides =
      spatialInts(nc, "strides", spatial, 1);
  FailureOr<SmallVector<int64_t>> dilations =
      spatialInts(nc, "dilations", spatial, 1);
  FailureOr<AutoPad> autoPad = readAutoPad(nc);
  if (failed(bias) || failed(strides) || failed(dilations) || failed(autoPad))
    return failure();

  SmallVector<int64_t> outputPadding(spatial, 0);
  if (auto op = nc.attrInts("output_padding")) {
    if ((int64_t)op->size() != spatial ||
        llvm::any_of(*op, [](int64_t v) { return v < 0; }))
      return nc.error() << "expects " << spatial
                        << " non-negative values in 'output_padding' but got "
                        << str(*op),
             failure();
    outputPadding = *op;
  }

  std::optional<SmallVector<int64_t>> target = nc.attrInts("output_shape");
  if (target) {
    // Some exporters write the full [N, C, D...] shape.
    if ((int64_t)target->size() == spatial + 2)
      target->erase(target->begin(), target->begin() + 2);
    if ((int64_t)target->size() != spatial ||
        llvm::any_of(*target, [](int64_t v) { return v <= 0; }))
      return nc.error() << "expects " << spatial
                        << " positive values in 'output_shape' but got "
                        << str(*nc.attrInts("output_shape")),
             failure();
  } else if (*autoPad == AutoPad::SameUpper || *autoPad == AutoPad::SameLower) {
    target.emplace();
    for (int64_t i = 0; i < spatial; ++i)
      target->push_back(in[i] * (*strides)[i]);
  }

  SmallVector<int64_t> pads;
  if (target) {
    pads = convTransposePads(in, kernel, *strides, *dilations, outputPadding,
                             *target, *autoPad == AutoPad::SameUpper);
  } else if (*autoPad == AutoPad::Valid) {
    pads.assign(2 * spatial, 0);
  } else {
    FailureOr<SmallVector<int64_t>> p = explicitPads(nc, spatial);
    if (failed(p))
      return failure();
    pads = *p;
  }
  // A negative end pad extends the output: that is output padding.
  for (int64_t i = 0; i < spatial; ++i) {
    if (pads[i] < 0)
      return nc.error() << "unsupported output_shape: it needs a negative "
                           "begin pad in spatial dim "
                        << i,
             failure();
    if (pads[spatial + i] < 0) {
      outputPadding[i] -= pads[spatial + i];
      pads[spatial + i] = 0;
    }
  }

  SmallVector<int64_t> shape = {xs[0], f};
  for (int64_t i = 0; i < spatial; ++i) {
    std::optional<int64_t> d = transposedConvOutputSize(
        in[i], kernel[i], (*strides)[i], (*dilations)[i], pads[i],
        pads[spatial + i], outputPadding[i]);
    if (!d || *d <= 0)
      return nc.error() << "the pads leave spatial dim " << i
                        << " of the output empty",
             failure();
    shape.push_back(*d);
  }
  OpBuilder &b = nc.bb.builder();
  out.push_back(ConvOp::create(
      b, nc.getLoc(), RankedTensorType::get(shape, eltOf(x)), x, w, *bias,
      *strides, *dilations, pads, *group, /*transposed=*/true,
      b.getDenseI64ArrayAttr(outputPadding), /*acc_type=*/nullptr,
      /*channels_last=*/false));
  return success();
}

//===----------------------------------------------------------------------===//
// Pools
//===----------------------------------------------------------------------===//

/// MaxPool's Indices output: for each window, the flat index into the
/// input (N, C, then the spatial dims row-major, or column-major with
/// storage_order 1) of its first maximum, as ONNX Runtime picks it. One
/// strided slice of the input (padded with the lowest value) per kernel
/// tap, each with its index tensor (an affine function of iotas), folded
/// by strict greater-than selects in window order; it fuses into one loop
/// kernel. K = the kernel's size taps, so large windows are an error.
FailureOr<Value> maxPoolIndices(NodeContext &nc, Value x, const Window &win,
                                ArrayRef<int64_t> outShape,
                                bool columnMajor) {
  constexpr int64_t kMaxTaps = 1024;
  BWCBuilder &bb = nc.bb;
  Ints xs(shapeOf(x));
  int64_t rank = xs.size(), spatial = rank - 2;
  std::optional<int64_t> taps = product(win.kernel);
  if (!taps || *taps > kMaxTaps)
    return nc.error() << "computes 'Indices' over windows of more than "
                      << kMaxTaps << " elements",
           failure();
  Type elt = eltOf(x), i64 = bb.builder().getI64Type();
  // Pad so that every tap's strided slice stays inside.
  Ints pads(2 * rank, 0), padded(xs);
  for (int64_t i = 0; i < spatial; ++i) {
    int64_t need = (win.kernel[i] - 1) * win.dilations[i] +
                   (outShape[2 + i] - 1) * win.strides[i] + 1;
    pads[2 + i] = win.pads[i];
    pads[rank + 2 + i] =
        std::max<int64_t>(0, need - win.pads[i] - xs[2 + i]);
    padded[2 + i] += pads[2 + i] + pads[rank + 2 + i];
  }
  double lowest = isa<FloatType>(elt)
                      ? -std::numeric_limits<double>::infinity()
                      : (elt.isUnsignedInteger()
                             ? 0.0
                             : -std::ldexp(1.0, elt.getIntOrFloatBitWidth() - 1));
  Value xp = x;
  if (llvm::any_of(pads, [](int64_t p) { return p != 0; }))
    xp = PadOp::create(bb.builder(), nc.getLoc(),
                       RankedTensorType::get(padded, elt), PadMode::constant, x,
                       pads, scalarAttr(elt, lowest));
  // The flat index of output position o at tap k: the (n, c) part plus,
  // per spatial dim, (o * stride + k * dilation - pad) * its weight.
  Ints weight(rank, 1);
  if (columnMajor) {
    // Spatial dims column-major (the first fastest), then C, then N.
    int64_t w = 1;
    for (int64_t i = 2; i < rank; ++i)
      weight[i] = w, w *= xs[i];
    weight[1] = w;
    weight[0] = w * xs[1];
  } else {
    for (int64_t i = rank - 2; i >= 0; --i)
      weight[i] = weight[i + 1] * xs[i + 1];
  }
  Value base = nullptr;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t step = i < 2 ? 1 : win.strides[i - 2];
    int64_t offset = i < 2 ? 0 : -win.pads[i - 2];
    Value term = bb.add(
        bb.mul(iotaAlong(bb, rank, i, outShape[i], i64),
               bb.scalar((double)(step * weight[i]), i64)),
        bb.scalar((double)(offset * weight[i]), i64));
    base = base ? bb.add(base, term) : term;
  }
  base = bb.broadcastTo(base, outShape);
  Value best, index;
  Ints tap(spatial, 0);
  for (int64_t t = 0; t < *taps; ++t) {
    Ints starts(rank, 0), sizes(outShape), steps(rank, 1);
    int64_t shift = 0;
    for (int64_t i = 0; i < spatial; ++i) {
      starts[2 + i] = tap[i] * win.dilations[i];
      steps[2 + i] = win.strides[i];
      shift += tap[i] * win.dilations[i] * weight[2 + i];
    }
    Value v = bb.slice(xp, starts, sizes, steps);
    Value idx = shift ? bb.add(base, bb.scalar((double)shift, i64)) : base;
    if (!best) {
      best = v;
      index = idx;
    } else {
      Value better = bb.binary(BinaryFn::gt, v, best);
      best = bb.select(better, v, best);
      index = bb.select(better, idx, index);
    }
    // Next tap, the last spatial dim fastest (window order).
    for (int64_t i = spatial - 1; i >= 0; --i) {
      if (++tap[i] < win.kernel[i])
        break;
      tap[i] = 0;
    }
  }
  return index;
}

LogicalResult importPool(NodeContext &nc, Results &out, PoolKind kind) {
  FailureOr<Value> x = nc.requiredInput(0);
  if (failed(x) || failed(requireRank(nc, *x, 3, "input")))
    return failure();
  ArrayRef<int64_t> in = shapeOf(*x).drop_front(2);
  int64_t spatial = in.size();
  if (!nc.hasAttr("kernel_shape"))
    return nc.error() << "expects a 'kernel_shape' attribute", failure();
  FailureOr<SmallVector<int64_t>> kernel =
      spatialInts(nc, "kernel_shape", spatial, 1);
  if (failed(kernel))
    return failure();
  int64_t storageOrder = 0;
  if (kind == PoolKind::max) {
    storageOrder = nc.attrInt("storage_order", 0);
    if (storageOrder != 0 && storageOrder != 1)
      return nc.error() << "unsupported storage_order=" << storageOrder,
             failure();
  }
  FailureOr<Window> win = readWindow(nc, in, *kernel);
  if (failed(win))
    return failure();
  int64_t ceilAttr = nc.attrInt("ceil_mode", 0);
  if (ceilAttr != 0 && ceilAttr != 1)
    return nc.error() << "unsupported ceil_mode=" << ceilAttr, failure();
  // With SAME_* the pads already give out = ceil(in / stride).
  bool ceilMode = ceilAttr == 1 && (win->autoPad == AutoPad::NotSet ||
                                    win->autoPad == AutoPad::Valid);
  bool countIncludePad =
      kind == PoolKind::avg && nc.attrInt("count_include_pad", 0) != 0;
  FailureOr<SmallVector<int64_t>> spatialOut =
      windowOutput(nc, in, *win, ceilMode);
  if (failed(spatialOut))
    return failure();
  SmallVector<int64_t> shape(shapeOf(*x).take_front(2));
  shape.append(spatialOut->begin(), spatialOut->end());
  out.push_back(PoolOp::create(nc.bb.builder(), nc.getLoc(),
                               RankedTensorType::get(shape, eltOf(*x)), kind,
                               *x, win->kernel, win->strides, win->dilations,
                               win->pads, ceilMode, countIncludePad,
                               /*acc_type=*/nullptr,
                               /*channels_last=*/false));
  if (kind == PoolKind::max && outputRequested(nc, 1)) {
    FailureOr<Value> indices =
        maxPoolIndices(nc, *x, *win, shape, storageOrder == 1);
    if (failed(indices))
      return failure();
    out.push_back(*indices);
  }
  return success();
}

NodeHandler globalPool(ReduceKind kind) {
  return [kind](NodeContext &nc, Results &out) -> LogicalResult {
    FailureOr<Value> x = nc.requiredInput(0);
    if (failed(x) || failed(requireRank(nc, *x, 3, "input")))
      return failure();
    out.push_back(nc.bb.reduce(kind, *x, spatialAxes(*x), /*keepDims=*/true));
    return success();
  };
}

} // namespace

void onnx_import::registerConvPoolHandlers(HandlerTable &t) {
  t["Conv"] = importConv;
  t["ConvTranspose"] = importConvTranspose;
  t["MaxPool"] = [](NodeContext &nc, Results &out) {
    return importPool(nc, out, PoolKind::max);
  };
  t["AveragePool"] = [](NodeContext &nc, Results &out) {
    return importPool(nc, out, PoolKind::avg);
  };
  t["GlobalAveragePool"] = globalPool(ReduceKind::mean);
  t["GlobalMaxPool"] = globalPool(ReduceKind::max);
}
