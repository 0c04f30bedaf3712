//===- ShapeUtils.cpp - Shape rules shared by verifiers and import --------===//
#include "bwc/Dialect/BWC/Utils/ShapeUtils.h"

#include "llvm/Support/CheckedArithmetic.h"

#include <algorithm>

using namespace llvm;

namespace mlir::bwc {

std::optional<SmallVector<int64_t>> broadcastShapes(ArrayRef<int64_t> a,
                                                    ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  SmallVector<int64_t> out(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da == db || db == 1)
      out[i] = da;
    else if (da == 1)
      out[i] = db;
    else
      return std::nullopt;
  }
  return out;
}

bool broadcastsTo(ArrayRef<int64_t> from, ArrayRef<int64_t> to) {
  if (from.size() > to.size())
    return false;
  size_t lead = to.size() - from.size();
  for (size_t i = 0; i < from.size(); ++i)
    if (from[i] != to[lead + i] && from[i] != 1)
      return false;
  return true;
}

std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

std::optional<SmallVector<int64_t>> normalizeAxes(ArrayRef<int64_t> axes,
                                                  int64_t rank) {
  SmallVector<int64_t> out;
  for (int64_t axis : axes) {
    std::optional<int64_t> norm = normalizeAxis(axis, rank);
    if (!norm)
      return std::nullopt;
    out.push_back(*norm);
  }
  llvm::sort(out);
  if (std::adjacent_find(out.begin(), out.end()) != out.end())
    return std::nullopt;
  return out;
}

SmallVector<int64_t> reducedShape(ArrayRef<int64_t> shape,
                                  ArrayRef<int64_t> axes, bool keepDims) {
  SmallVector<int64_t> out;
  for (int64_t i = 0, e = shape.size(); i < e; ++i) {
    if (!llvm::is_contained(axes, i))
      out.push_back(shape[i]);
    else if (keepDims)
      out.push_back(1);
  }
  return out;
}

std::optional<int64_t> windowOutputSize(int64_t in, int64_t kernel,
                                        int64_t stride, int64_t dilation,
                                        int64_t padBegin, int64_t padEnd,
                                        bool ceilMode) {
  // Attributes come from the model: any step may overflow int64.
  std::optional<int64_t> span = llvm::checkedMul(dilation, kernel - 1);
  if (span)
    span = llvm::checkedAdd(*span, int64_t(1));
  std::optional<int64_t> padded = llvm::checkedAdd(in, padBegin);
  if (padded)
    padded = llvm::checkedAdd(*padded, padEnd);
  std::optional<int64_t> avail =
      span && padded ? llvm::checkedSub(*padded, *span) : std::nullopt;
  if (!avail || *avail < 0 || stride <= 0 || kernel < 1)
    return std::nullopt;
  int64_t out = ceilMode ? *avail / stride + (*avail % stride != 0) + 1
                         : *avail / stride + 1;
  // As in PyTorch and ONNX Runtime: with ceil mode, the last window must
  // start inside the input or the begin padding: (out - 1) * stride <
  // in + padBegin (which fits: checked above), compared without the
  // product.
  int64_t start = in + padBegin;
  if (ceilMode && out - 1 >= start / stride + (start % stride > 0))
    --out;
  return out;
}

std::optional<int64_t> transposedConvOutputSize(int64_t in, int64_t kernel,
                                                int64_t stride,
                                                int64_t dilation,
                                                int64_t padBegin,
                                                int64_t padEnd,
                                                int64_t outputPadding) {
  std::optional<int64_t> a = llvm::checkedMul(stride, in - 1);
  std::optional<int64_t> b = llvm::checkedMul(kernel - 1, dilation);
  std::optional<int64_t> out = a && b ? llvm::checkedAdd(*a, *b) : std::nullopt;
  for (int64_t term : {outputPadding, int64_t(1)})
    if (out)
      out = llvm::checkedAdd(*out, term);
  for (int64_t term : {padBegin, padEnd})
    if (out)
      out = llvm::checkedSub(*out, term);
  return out;
}

SmallVector<double>
avgPoolDivisors(ArrayRef<int64_t> inSpatial, ArrayRef<int64_t> outSpatial,
                ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
                ArrayRef<int64_t> dilations, ArrayRef<int64_t> pads,
                bool countIncludePad) {
  int64_t spatial = outSpatial.size();
  // Per dim: the taps of output position o inside [lo, hi).
  SmallVector<SmallVector<int64_t>> counts(spatial);
  for (int64_t i = 0; i < spatial; ++i) {
    int64_t pb = pads[i], pe = pads[spatial + i];
    int64_t lo = countIncludePad ? -pb : 0;
    int64_t hi = inSpatial[i] + (countIncludePad ? pe : 0);
    for (int64_t o = 0; o < outSpatial[i]; ++o) {
      int64_t count = 0;
      for (int64_t k = 0; k < kernel[i]; ++k) {
        int64_t p = o * strides[i] - pb + k * dilations[i];
        count += p >= lo && p < hi;
      }
      counts[i].push_back(count);
    }
  }
  SmallVector<int64_t> rowStrides = rowMajorStrides(outSpatial);
  SmallVector<double> divisors;
  for (int64_t flat = 0, total = numElements(outSpatial); flat < total;
       ++flat) {
    double v = 1;
    for (int64_t i = 0; i < spatial; ++i)
      v *= (double)counts[i][(flat / rowStrides[i]) % outSpatial[i]];
    divisors.push_back(v);
  }
  return divisors;
}

int64_t numElements(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

SmallVector<int64_t> rowMajorStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

SmallVector<int64_t> channelsLastPerm(int64_t rank) {
  SmallVector<int64_t> perm = {0};
  for (int64_t d = 2; d < rank; ++d)
    perm.push_back(d);
  perm.push_back(1);
  return perm;
}

SmallVector<int64_t> channelsLastFilterPerm(int64_t rank) {
  SmallVector<int64_t> perm;
  for (int64_t d = 2; d < rank; ++d)
    perm.push_back(d);
  perm.push_back(1);
  perm.push_back(0);
  return perm;
}

SmallVector<int64_t> identityPerm(int64_t rank) {
  SmallVector<int64_t> perm;
  for (int64_t d = 0; d < rank; ++d)
    perm.push_back(d);
  return perm;
}

SmallVector<int64_t> invertPerm(ArrayRef<int64_t> perm) {
  SmallVector<int64_t> inv(perm.size());
  for (size_t i = 0; i < perm.size(); ++i)
    inv[perm[i]] = i;
  return inv;
}

SmallVector<int64_t> permute(ArrayRef<int64_t> logical,
                             ArrayRef<int64_t> perm) {
  SmallVector<int64_t> physical;
  for (int64_t p : perm)
    physical.push_back(logical[p]);
  return physical;
}

SmallVector<int64_t> unpermute(ArrayRef<int64_t> physical,
                               ArrayRef<int64_t> perm) {
  SmallVector<int64_t> logical(physical.size());
  for (size_t i = 0; i < perm.size(); ++i)
    logical[perm[i]] = physical[i];
  return logical;
}

} // namespace mlir::bwc
