//===- SignalOps.cpp - DFT, STFT, windows and MelWeightMatrix into bwc ----===//
//
// HannWindow, HammingWindow, BlackmanWindow and MelWeightMatrix depend only
// on their scalar inputs, which a static compiler needs as constants (bound
// with --input-value; the ONNX backend binds them at the first run). Each is
// computed here in double precision, as ONNX's reference does, and becomes
// one constant of the requested type. DFT and STFT are contractions with
// constant cosine/sine tables (STFT frames its signal with one gather), so
// they run as the matmul kernels do; O(n^2) work per transform, bounded at
// 65536 points.
//
//===----------------------------------------------------------------------===//
#include "NodeImporter.h"

#include <cmath>

using namespace mlir;
using namespace mlir::bwc;
using namespace mlir::bwc::onnx_import;

namespace {

/// Signal constants above this many elements are refused (they would be
/// weights larger than any real front end's).
constexpr int64_t kMaxSignalElements = int64_t(1) << 24;

/// Scalar input `i` as a double, which must be a constant.
FailureOr<double> scalarInput(NodeContext &nc, int i, StringRef name) {
  std::optional<SmallVector<double>> v = nc.constFloats(i);
  if (!v || v->size() != 1)
    return nc.error() << "expects a constant scalar " << name
                      << " (bind the input with --input-value)",
           failure();
  return (*v)[0];
}

/// A constant of `shape` and ONNX type `onnxType` holding `values`.
FailureOr<Value> makeConstant(NodeContext &nc, ArrayRef<int64_t> shape,
                              int onnxType, ArrayRef<double> values) {
  Type elt = elementTypeFor(nc.getContext(), onnxType);
  if (!elt || elt.isInteger(1))
    return nc.error() << "unsupported output_datatype "
                      << onnxTypeName(onnxType),
           failure();
  auto type = RankedTensorType::get(shape, elt);
  SmallVector<Attribute> elems;
  for (double v : values)
    elems.push_back(scalarAttr(elt, v));
  return nc.bb.constant(DenseElementsAttr::get(type, elems));
}

/// A window sum_k a_k cos(2 pi k n / N) for n in [0, size), N = size
/// (periodic, the default) or size - 1 (symmetric).
NodeHandler cosineWindow(SmallVector<double> coefficients) {
  return [coefficients](NodeContext &nc, Results &out) -> LogicalResult {
    FailureOr<double> sizeValue = scalarInput(nc, 0, "size");
    if (failed(sizeValue))
      return failure();
    if (!(*sizeValue >= 1) || *sizeValue > kMaxSignalElements)
      return nc.error() << "expects a size in [1, " << kMaxSignalElements
                        << "] but got " << *sizeValue,
             failure();
    int64_t size = (int64_t)*sizeValue;
    bool periodic = nc.attrInt("periodic", 1) != 0;
    double n = periodic ? size : size - 1;
    SmallVector<double> y(size, 0.0);
    for (int64_t i = 0; i < size; ++i)
      for (size_t k = 0; k < coefficients.size(); ++k)
        y[i] += coefficients[k] *
                (n == 0 ? 1.0 : std::cos(2 * M_PI * double(k) * i / n));
    FailureOr<Value> c = makeConstant(
        nc, {size}, nc.attrInt("output_datatype", 1 /*FLOAT*/), y);
    if (failed(c))
      return failure();
    out.push_back(*c);
    return success();
  };
}

/// ONNX's reference construction: triangular filters between mel points
/// spaced evenly from lower to upper edge, snapped to DFT bins.
LogicalResult importMelWeightMatrix(NodeContext &nc, Results &out) {
  FailureOr<double> melBins = scalarInput(nc, 0, "num_mel_bins"),
                    dftLength = scalarInput(nc, 1, "dft_length"),
                    sampleRate = scalarInput(nc, 2, "sample_rate"),
                    lower = scalarInput(nc, 3, "lower_edge_hertz"),
                    upper = scalarInput(nc, 4, "upper_edge_hertz");
  if (failed(melBins) || failed(dftLength) || failed(sampleRate) ||
      failed(lower) || failed(upper))
    return failure();
  if (!(*melBins >= 1) || !(*dftLength >= 1) || !(*sampleRate > 0) ||
      !(*lower >= 0) || !(*upper > *lower) ||
      *melBins * (*dftLength / 2 + 1) > kMaxSignalElements)
    return nc.error() << "expects num_mel_bins, dft_length, sample_rate >= 1 "
                         "and 0 <= lower_edge_hertz < upper_edge_hertz",
           failure();
  int64_t mels = (int64_t)*melBins;
  int64_t spectrogramBins = (int64_t)*dftLength / 2 + 1;
  auto toMel = [](double hz) { return 2595 * std::log10(1 + hz / 700); };
  double lowMel = toMel(*lower), highMel = toMel(*upper);
  double step = (highMel - lowMel) / double(mels + 2);
  SmallVector<int64_t> bins;
  for (int64_t i = 0; i < mels + 2; ++i) {
    double hz = 700 * (std::pow(10.0, (i * step + lowMel) / 2595) - 1);
    bins.push_back((int64_t)std::floor((*dftLength + 1) * hz / *sampleRate));
  }
  SmallVector<double> w(spectrogramBins * mels, 0.0);
  auto at = [&](int64_t j, int64_t i) -> double * {
    return j >= 0 && j < spectrogramBins ? &w[j * mels + i] : nullptr;
  };
  for (int64_t i = 0; i < mels; ++i) {
    int64_t left = bins[i], center = bins[i + 1], right = bins[i + 2];
    if (center == left) {
      if (double *p = at(center, i))
        *p = 1;
    } else {
      for (int64_t j = left; j <= center; ++j)
        if (double *p = at(j, i))
          *p = double(j - left) / double(center - left);
    }
    for (int64_t j = center; j < right; ++j)
      if (double *p = at(j, i))
        *p = double(right - j) / double(right - center);
  }
  FailureOr<Value> c =
      makeConstant(nc, {spectrogramBins, mels},
                   nc.attrInt("output_datatype", 1 /*FLOAT*/), w);
  if (failed(c))
    return failure();
  out.push_back(*c);
  return success();
}

/// The DFT of `x` [..., n, 1 or 2] (real or complex, last dim) along its
/// second-to-last axis, as two contractions with constant cosine and sine
/// tables (angles reduced modulo n in integers, so they are exact):
/// [..., k, 2] with k = n, or n / 2 + 1 when `onesided`. `inverse` takes
/// the conjugate kernel and divides by n.
Value dftLast(BWCBuilder &bb, Value x, bool inverse, bool onesided) {
  ArrayRef<int64_t> shape = BWCBuilder::shapeOf(x);
  int64_t rank = shape.size(), n = shape[rank - 2];
  int64_t k = onesided ? n / 2 + 1 : n;
  Type elt = BWCBuilder::elementTypeOf(x);
  Ints starts(rank, 0), sizes(shape), steps(rank, 1);
  sizes.back() = 1;
  Value re = bb.slice(x, starts, sizes, steps);
  Value im;
  if (shape.back() == 2) {
    starts.back() = 1;
    im = bb.slice(x, starts, sizes, steps);
  }
  // [..., n, 1] -> [..., 1, n] rows for the contraction.
  Ints row(shape.drop_back(2));
  row.append({1, n});
  re = bb.reshape(re, row);
  if (im)
    im = bb.reshape(im, row);
  SmallVector<Attribute> cosv, sinv;
  double scale = inverse ? 1.0 / n : 1.0;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < k; ++j) {
      double angle = 2 * M_PI * double((i * j) % n) / double(n);
      cosv.push_back(scalarAttr(elt, std::cos(angle) * scale));
      sinv.push_back(scalarAttr(elt, std::sin(angle) * scale));
    }
  auto table = RankedTensorType::get({n, k}, elt);
  Value c = bb.constant(DenseElementsAttr::get(table, cosv));
  Value sn = bb.constant(DenseElementsAttr::get(table, sinv));
  // forward: Re = a.cos + b.sin, Im = b.cos - a.sin; inverse: the signs of
  // the sine terms flip.
  auto mm = [&](Value a, Value t) {
    Ints lhs(BWCBuilder::shapeOf(a));
    int64_t batch = 1;
    for (int64_t d : ArrayRef<int64_t>(lhs).drop_back(2))
      batch *= d;
    Value y = bb.matmul(bb.reshape(a, {batch, n}), t);
    Ints out(lhs.begin(), lhs.end() - 2);
    out.append({k, 1});
    return bb.reshape(y, out);
  };
  Value yRe = mm(re, c), yIm = bb.unary(UnaryFn::neg, mm(re, sn));
  if (inverse)
    yIm = bb.unary(UnaryFn::neg, yIm);
  if (im) {
    Value bs = mm(im, sn);
    yRe = inverse ? bb.sub(yRe, bs) : bb.add(yRe, bs);
    yIm = bb.add(yIm, mm(im, c));
  }
  return bb.concat({yRe, yIm}, rank - 1);
}

LogicalResult importDFT(NodeContext &nc, Results &out) {
  FailureOr<Value> xIn = nc.requiredInput(0);
  if (failed(xIn))
    return failure();
  Value x = *xIn;
  int64_t rank = rankOf(x);
  if (!isa<FloatType>(eltOf(x)) || rank < 2 ||
      (shapeOf(x).back() != 1 && shapeOf(x).back() != 2))
    return nc.error() << "expects a float input [..., n, 1 or 2]", failure();
  int64_t axisAttr = nc.attrInt("axis", 1);
  FailureOr<int64_t> axis = nc.axis(axisAttr, rank);
  if (failed(axis))
    return failure();
  if (*axis == rank - 1)
    return nc.error() << "expects an axis other than the last (the real and "
                         "imaginary parts)",
           failure();
  bool inverse = nc.attrInt("inverse", 0) != 0;
  bool onesided = nc.attrInt("onesided", 0) != 0;
  if (inverse && onesided)
    return nc.error() << "expects onesided=0 with inverse=1", failure();
  BWCBuilder &bb = nc.bb;
  // Move the signal axis next to the last one.
  Ints perm;
  for (int64_t d = 0; d < rank - 1; ++d)
    if (d != *axis)
      perm.push_back(d);
  perm.append({*axis, rank - 1});
  Value t = bb.transpose(x, perm);
  int64_t n = shapeOf(t)[rank - 2];
  if (nc.input(1)) {
    FailureOr<Ints> len = constantInput(nc, 1, "dft_length");
    if (failed(len))
      return failure();
    if (len->size() != 1 || (*len)[0] < 1 || (*len)[0] > (1 << 16))
      return nc.error() << "expects a dft_length in [1, 65536]", failure();
    int64_t want = (*len)[0];
    Ints shape(shapeOf(t)), starts(rank, 0), steps(rank, 1);
    if (want < n) {
      shape[rank - 2] = want;
      t = bb.slice(t, starts, shape, steps);
    } else if (want > n) {
      shape[rank - 2] = want - n;
      t = bb.concat({t, bb.broadcastTo(bb.scalar(0, eltOf(t)), shape)},
                    rank - 2);
    }
    n = want;
  }
  if (n > (1 << 16))
    return nc.error() << "supports transforms of at most 65536 points",
           failure();
  Value y = dftLast(bb, t, inverse, onesided);
  Ints back(rank);
  for (int64_t d = 0; d < rank; ++d)
    back[perm[d]] = d;
  out.push_back(bb.transpose(y, back));
  return success();
}

/// STFT: the frames (one gather of a constant [frames, length] index
/// table), times the window, then the DFT of each frame.
LogicalResult importSTFT(NodeContext &nc, Results &out) {
  FailureOr<Value> signal = nc.requiredInput(0);
  if (failed(signal))
    return failure();
  if (!isa<FloatType>(eltOf(*signal)) || rankOf(*signal) != 3 ||
      shapeOf(*signal)[2] > 2)
    return nc.error() << "expects a float signal [batch, length, 1 or 2]",
           failure();
  FailureOr<Ints> step = constantInput(nc, 1, "frame_step");
  if (failed(step))
    return failure();
  Value window = nc.input(2);
  int64_t length = window ? shapeOf(window)[0] : 0;
  if (nc.input(3)) {
    FailureOr<Ints> fl = constantInput(nc, 3, "frame_length");
    if (failed(fl))
      return failure();
    length = (*fl)[0];
  }
  int64_t total = shapeOf(*signal)[1];
  if (step->size() != 1 || (*step)[0] < 1 || length < 1 || length > total ||
      (window && (rankOf(window) != 1 || shapeOf(window)[0] != length)))
    return nc.error() << "expects frame_step >= 1 and a frame length (or "
                         "window) within the signal",
           failure();
  int64_t hop = (*step)[0];
  int64_t frames = (total - length) / hop + 1;
  if (frames * length > (int64_t(1) << 26))
    return nc.error() << "has too many frames", failure();
  Ints idx;
  for (int64_t f = 0; f < frames; ++f)
    for (int64_t i = 0; i < length; ++i)
      idx.push_back(f * hop + i);
  BWCBuilder &bb = nc.bb;
  OpBuilder &b = bb.builder();
  Value table = bb.reshape(bb.i64Vector(idx), {frames, length});
  Ints shape{shapeOf(*signal)[0], frames, length, shapeOf(*signal)[2]};
  Value framed = b.createOrFold<GatherOp>(
      nc.getLoc(), RankedTensorType::get(shape, eltOf(*signal)), *signal,
      table, b.getI64IntegerAttr(1));
  if (window)
    framed = bb.mul(framed, bb.reshape(bb.cast(window, eltOf(*signal)),
                                       {1, 1, length, 1}));
  out.push_back(dftLast(bb, framed, /*inverse=*/false,
                        nc.attrInt("onesided", 1) != 0));
  return success();
}

} // namespace

void onnx_import::registerSignalHandlers(HandlerTable &t) {
  t["DFT"] = importDFT;
  t["STFT"] = importSTFT;
  t["HannWindow"] = cosineWindow({0.5, -0.5});
  t["HammingWindow"] = cosineWindow({25.0 / 46.0, -21.0 / 46.0});
  t["BlackmanWindow"] = cosineWindow({0.42, -0.5, 0.08});
  t["MelWeightMatrix"] = importMelWeightMatrix;
}
