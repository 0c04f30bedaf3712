//===- SignalOps.cpp - Window functions and MelWeightMatrix into bwc ------===//
//
// HannWindow, HammingWindow, BlackmanWindow and MelWeightMatrix depend only
// on their scalar inputs, which a static compiler needs as constants (bound
// with --input-value; the ONNX backend binds them at the first run). Each is
// computed here in double precision, as ONNX's reference does, and becomes
// one constant of the requested type.
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

} // namespace

void onnx_import::registerSignalHandlers(HandlerTable &t) {
  t["HannWindow"] = cosineWindow({0.5, -0.5});
  t["HammingWindow"] = cosineWindow({25.0 / 46.0, -21.0 / 46.0});
  t["BlackmanWindow"] = cosineWindow({0.42, -0.5, 0.08});
  t["MelWeightMatrix"] = importMelWeightMatrix;
}
