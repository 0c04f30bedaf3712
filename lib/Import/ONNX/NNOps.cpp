//===- NNOps.cpp - ONNX neural-network ops into bwc -----------------------===//
//
// MatMul and Gemm (bwc.matmul), Conv and ConvTranspose (bwc.conv), the
// pools (bwc.pool, or bwc.reduce for the global ones), the inference forms
// of BatchNormalization and InstanceNormalization (decomposed into
// elementwise ops), and Resize/Upsample (bwc.resize). ONNX defaults and
// auto_pad rules are resolved here into explicit attributes.
//
//===----------------------------------------------------------------------===//
#include "NodeImporter.h"

#include "bwc/Dialect/BWC/Utils/ShapeUtils.h"
#include "llvm/Support/MathExtras.h"
#include <cmath>

using namespace mlir;
using namespace mlir::bwc;
using namespace mlir::bwc::onnx_import;

namespace {

using Results = SmallVectorImpl<Value>;

ArrayRef<int64_t> shapeOf(Value v) { return BWCBuilder::shapeOf(v); }
int64_t rankOf(Value v) { return BWCBuilder::typeOf(v).getRank(); }
Type eltOf(Value v) { return BWCBuilder::elementTypeOf(v); }

/// Prints a list of integers as `[a, b, c]` into a diagnostic.
template <typename T>
InFlightDiagnostic &&printList(InFlightDiagnostic &&diag, ArrayRef<T> xs) {
  diag << "[";
  llvm::interleaveComma(xs, diag);
  diag << "]";
  return std::move(diag);
}

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

/// Errors unless `x` has rank >= `minRank`.
LogicalResult requireRank(NodeContext &nc, Value x, int64_t minRank,
                          StringRef what) {
  if (rankOf(x) < minRank)
    return nc.error() << "expects " << what << " of rank >= " << minRank
                      << " but got rank " << rankOf(x),
           failure();
  return success();
}

/// True when output `i` of the node is requested (present and named).
bool outputRequested(NodeContext &nc, int i) {
  return i < nc.node.output_size() && !nc.node.output(i).empty();
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
    return printList(nc.error() << "expects positive '" << name << "' but got ",
                     ArrayRef<int64_t>(*v)),
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
    return printList(nc.error() << "unsupported negative 'pads' ",
                     ArrayRef<int64_t>(*v)),
           failure();
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
    return printList(
               printList(nc.error() << "kernel_shape ", ArrayRef<int64_t>(*ks))
                   << " does not match the weights' spatial dims ",
               kernel),
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
    return printList(nc.error()
                         << "expects bias of shape [" << f << "] but got ",
                     shapeOf(bias)),
           failure();
  return bias;
}

//===----------------------------------------------------------------------===//
// MatMul, Gemm
//===----------------------------------------------------------------------===//

/// Errors unless `lhs` [..., M, K] and `rhs` [..., K, N] fit bwc.matmul.
LogicalResult checkMatmul(NodeContext &nc, Value lhs, Value rhs) {
  ArrayRef<int64_t> l = shapeOf(lhs), r = shapeOf(rhs);
  if (eltOf(lhs) != eltOf(rhs))
    return nc.error() << "expects inputs of one element type but got "
                      << eltOf(lhs) << " and " << eltOf(rhs),
           failure();
  if (l.back() != r[r.size() - 2])
    return nc.error() << "contraction dims differ: " << l.back() << " vs "
                      << r[r.size() - 2],
           failure();
  if (!broadcastShapes(l.drop_back(2), r.drop_back(2)))
    return nc.error() << "batch dims do not broadcast", failure();
  return success();
}

LogicalResult importMatMul(NodeContext &nc, Results &out) {
  FailureOr<Value> a = nc.requiredInput(0), b = nc.requiredInput(1);
  if (failed(a) || failed(b))
    return failure();
  if (failed(requireRank(nc, *a, 1, "inputs")) ||
      failed(requireRank(nc, *b, 1, "inputs")))
    return failure();
  bool vecA = rankOf(*a) == 1, vecB = rankOf(*b) == 1;
  Value lhs = vecA ? nc.bb.reshape(*a, {1, shapeOf(*a)[0]}) : *a;
  Value rhs = vecB ? nc.bb.reshape(*b, {shapeOf(*b)[0], 1}) : *b;
  if (failed(checkMatmul(nc, lhs, rhs)))
    return failure();
  Value y = nc.bb.matmul(lhs, rhs);
  if (vecA || vecB) {
    SmallVector<int64_t> shape(shapeOf(y));
    int64_t r = shape.size();
    if (vecB)
      shape.erase(shape.begin() + r - 1);
    if (vecA)
      shape.erase(shape.begin() + r - 2);
    y = nc.bb.reshape(y, shape);
  }
  out.push_back(y);
  return success();
}

LogicalResult importGemm(NodeContext &nc, Results &out) {
  FailureOr<Value> a = nc.requiredInput(0), b = nc.requiredInput(1);
  if (failed(a) || failed(b))
    return failure();
  if (rankOf(*a) != 2 || rankOf(*b) != 2)
    return nc.error() << "expects A and B of rank 2 but got ranks "
                      << rankOf(*a) << " and " << rankOf(*b),
           failure();
  Value lhs = nc.attrInt("transA", 0) ? nc.bb.transpose(*a, {1, 0}) : *a;
  Value rhs = nc.attrInt("transB", 0) ? nc.bb.transpose(*b, {1, 0}) : *b;
  if (failed(checkMatmul(nc, lhs, rhs)))
    return failure();
  Type elt = eltOf(lhs);
  Value y = nc.bb.matmul(lhs, rhs);
  double alpha = nc.attrFloat("alpha", 1.0), beta = nc.attrFloat("beta", 1.0);
  if (alpha != 1.0)
    y = nc.bb.mul(y, nc.bb.scalar(alpha, elt));
  if (Value c = nc.input(2); c && beta != 0.0) {
    if (eltOf(c) != elt)
      return nc.error() << "expects C of element type " << elt << " but got "
                        << eltOf(c),
             failure();
    if (!broadcastsTo(shapeOf(c), shapeOf(y)))
      return printList(printList(nc.error() << "C of shape ", shapeOf(c))
                           << " does not broadcast to ",
                       shapeOf(y)),
             failure();
    if (beta != 1.0)
      c = nc.bb.mul(c, nc.bb.scalar(beta, elt));
    y = nc.bb.add(y, c);
  }
  out.push_back(y);
  return success();
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
    return printList(nc.error() << "expects non-empty weights but got shape ",
                     shapeOf(w)),
           failure();
  return checkKernelShape(nc, shapeOf(w).drop_front(2));
}

LogicalResult importConv(NodeContext &nc, Results &out) {
  Value x, w;
  if (failed(readConvOperands(nc, x, w)))
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
  FailureOr<Value> bias = readBias(nc, x, ws[0]);
  FailureOr<Window> win = readWindow(nc, xs.drop_front(2), ws.drop_front(2));
  if (failed(bias) || failed(win))
    return failure();
  FailureOr<SmallVector<int64_t>> spatialOut =
      windowOutput(nc, xs.drop_front(2), *win, /*ceilMode=*/false);
  if (failed(spatialOut))
    return failure();
  SmallVector<int64_t> shape = {xs[0], ws[0]};
  shape.append(spatialOut->begin(), spatialOut->end());
  out.push_back(ConvOp::create(nc.bb.builder(), nc.getLoc(),
                               RankedTensorType::get(shape, eltOf(x)), x, w,
                               *bias, win->strides, win->dilations, win->pads,
                               *group, /*transposed=*/false,
                               /*output_padding=*/nullptr));
  return success();
}

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
      return printList(nc.error() << "expects " << spatial
                                  << " non-negative values in "
                                     "'output_padding' but got ",
                       ArrayRef<int64_t>(*op)),
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
      return printList(nc.error() << "expects " << spatial
                                  << " positive values in 'output_shape' "
                                     "but got ",
                       ArrayRef<int64_t>(*nc.attrInts("output_shape"))),
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
    int64_t d = transposedConvOutputSize(in[i], kernel[i], (*strides)[i],
                                         (*dilations)[i], pads[i],
                                         pads[spatial + i], outputPadding[i]);
    if (d <= 0)
      return nc.error() << "the pads leave spatial dim " << i
                        << " of the output empty",
             failure();
    shape.push_back(d);
  }
  OpBuilder &b = nc.bb.builder();
  out.push_back(ConvOp::create(
      b, nc.getLoc(), RankedTensorType::get(shape, eltOf(x)), x, w, *bias,
      *strides, *dilations, pads, *group, /*transposed=*/true,
      b.getDenseI64ArrayAttr(outputPadding)));
  return success();
}

//===----------------------------------------------------------------------===//
// Pools
//===----------------------------------------------------------------------===//

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
  if (kind == PoolKind::max) {
    if (int64_t order = nc.attrInt("storage_order", 0); order != 0)
      return nc.error() << "unsupported storage_order=" << order, failure();
    if (outputRequested(nc, 1))
      return nc.error() << "unsupported output 'Indices'", failure();
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
                               win->pads, ceilMode, countIncludePad));
  return success();
}

/// The spatial axes [2, rank) of an NC... tensor.
SmallVector<int64_t> spatialAxes(Value x) {
  return llvm::to_vector(llvm::seq<int64_t>(2, rankOf(x)));
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

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

/// Reshapes a per-channel vector of shape [C] to [C, 1, ...] so that it
/// broadcasts over `x` ([N, C, D...]); a vector already of shape
/// x.shape[1:] (BatchNormalization with spatial=0) stays as it is.
Value channelBroadcast(NodeContext &nc, Value v, Value x) {
  if (rankOf(v) != 1)
    return v;
  SmallVector<int64_t> shape(rankOf(x) - 1, 1);
  shape[0] = shapeOf(v)[0];
  return nc.bb.reshape(v, shape);
}

/// Reads per-channel inputs `first..first+n` of a normalization over `x`,
/// cast to x's element type; all must have shape [C] (or, when
/// `allowFull`, x.shape[1:]).
FailureOr<SmallVector<Value>> channelInputs(NodeContext &nc, Value x, int first,
                                            int n, bool allowFull) {
  static const char *names[] = {"X", "scale", "B", "mean", "var"};
  int64_t c = shapeOf(x)[1];
  SmallVector<Value> vs;
  for (int i = first; i < first + n; ++i) {
    FailureOr<Value> v = nc.requiredInput(i);
    if (failed(v))
      return failure();
    if (!isa<FloatType>(eltOf(*v)))
      return nc.error() << "expects float '" << names[i] << "' but got "
                        << eltOf(*v),
             failure();
    bool ok = (rankOf(*v) == 1 && shapeOf(*v)[0] == c) ||
              (allowFull && shapeOf(*v) == shapeOf(x).drop_front(1));
    if (!ok || (!vs.empty() && shapeOf(*v) != shapeOf(vs.front())))
      return printList(nc.error() << "expects '" << names[i] << "' of shape ["
                                  << c << "] but got ",
                       shapeOf(*v)),
             failure();
    vs.push_back(nc.bb.cast(*v, eltOf(x)));
  }
  return vs;
}

LogicalResult importBatchNorm(NodeContext &nc, Results &out) {
  FailureOr<Value> x = nc.requiredInput(0);
  if (failed(x) || failed(requireRank(nc, *x, 2, "input")))
    return failure();
  if (!isa<FloatType>(eltOf(*x)))
    return nc.error() << "expects a float input", failure();
  if (int64_t t = nc.attrInt("training_mode", 0); t != 0)
    return nc.error() << "unsupported training_mode=" << t
                      << " (bwc compiles inference graphs)",
           failure();
  for (int i = 1; i < nc.node.output_size(); ++i)
    if (outputRequested(nc, i))
      return nc.error() << "unsupported output " << i
                        << " (training-mode statistics); only Y is supported",
             failure();
  bool spatial = nc.opset >= 9 || nc.attrInt("spatial", 1) != 0;
  FailureOr<SmallVector<Value>> vs =
      channelInputs(nc, *x, 1, 4, /*allowFull=*/!spatial);
  if (failed(vs))
    return failure();
  Value scale = (*vs)[0], bias = (*vs)[1], mean = (*vs)[2], var = (*vs)[3];
  Type elt = eltOf(*x);
  double eps = nc.attrFloat("epsilon", 1e-5);
  // y = x * a + b with a = scale / sqrt(var + eps), b = B - mean * a; both
  // fold when the statistics are constants.
  Value a =
      nc.bb.div(scale, nc.bb.unary(UnaryFn::sqrt,
                                   nc.bb.add(var, nc.bb.scalar(eps, elt))));
  Value b = nc.bb.sub(bias, nc.bb.mul(mean, a));
  Value y = nc.bb.mul(*x, channelBroadcast(nc, a, *x));
  out.push_back(nc.bb.add(y, channelBroadcast(nc, b, *x)));
  return success();
}

LogicalResult importInstanceNorm(NodeContext &nc, Results &out) {
  FailureOr<Value> x = nc.requiredInput(0);
  if (failed(x) || failed(requireRank(nc, *x, 3, "input")))
    return failure();
  if (!isa<FloatType>(eltOf(*x)))
    return nc.error() << "expects a float input", failure();
  FailureOr<SmallVector<Value>> vs =
      channelInputs(nc, *x, 1, 2, /*allowFull=*/false);
  if (failed(vs))
    return failure();
  Type elt = eltOf(*x);
  double eps = nc.attrFloat("epsilon", 1e-5);
  SmallVector<int64_t> axes = spatialAxes(*x);
  Value mean = nc.bb.reduce(ReduceKind::mean, *x, axes, /*keepDims=*/true);
  Value d = nc.bb.sub(*x, mean);
  Value var = nc.bb.reduce(ReduceKind::mean, nc.bb.mul(d, d), axes,
                           /*keepDims=*/true);
  Value norm = nc.bb.div(
      d, nc.bb.unary(UnaryFn::sqrt, nc.bb.add(var, nc.bb.scalar(eps, elt))));
  Value y = nc.bb.mul(norm, channelBroadcast(nc, (*vs)[0], *x));
  out.push_back(nc.bb.add(y, channelBroadcast(nc, (*vs)[1], *x)));
  return success();
}

//===----------------------------------------------------------------------===//
// Resize, Upsample
//===----------------------------------------------------------------------===//

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
  FailureOr<Value> xi = nc.requiredInput(0);
  if (failed(xi))
    return failure();
  Value x = *xi;
  if (!isa<FloatType>(eltOf(x)))
    return nc.error() << "expects a float input but got " << eltOf(x),
           failure();
  ArrayRef<int64_t> in = shapeOf(x);
  int64_t rank = in.size();
  FailureOr<ResizeMode> mode = readResizeMode(nc, nc.opset >= 11);
  if (failed(mode))
    return failure();

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
      return printList(nc.error() << "has invalid axes ",
                       ArrayRef<int64_t>(*a)),
             failure();
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
  FailureOr<Value> xi = nc.requiredInput(0);
  if (failed(xi))
    return failure();
  Value x = *xi;
  if (!isa<FloatType>(eltOf(x)))
    return nc.error() << "expects a float input but got " << eltOf(x),
           failure();
  FailureOr<ResizeMode> mode = readResizeMode(nc, /*allowCubic=*/false);
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

void onnx_import::registerNNHandlers(HandlerTable &t) {
  t["MatMul"] = importMatMul;
  t["Gemm"] = importGemm;
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
  t["BatchNormalization"] = importBatchNorm;
  t["InstanceNormalization"] = importInstanceNorm;
  t["Resize"] = importResize;
  t["Upsample"] = importUpsample;
}
