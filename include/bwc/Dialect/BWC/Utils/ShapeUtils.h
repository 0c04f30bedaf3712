//===- ShapeUtils.h - Shape rules shared by verifiers and import -*- C++
//-*-===//
//
// Pure functions on shapes: numpy broadcasting, axis normalization, and the
// output-size formulas of convolution and pooling. The verifiers, the ONNX
// importer and the folders all use these, so each rule is written once.
//
//===----------------------------------------------------------------------===//
#ifndef BWC_DIALECT_BWC_UTILS_SHAPEUTILS_H
#define BWC_DIALECT_BWC_UTILS_SHAPEUTILS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include <cstdint>
#include <optional>

namespace mlir::bwc {

/// Numpy broadcast of two shapes; std::nullopt when they do not broadcast.
std::optional<llvm::SmallVector<int64_t>>
broadcastShapes(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b);

/// True when `from` broadcasts to exactly `to` (ONNX Expand's rule, one way).
bool broadcastsTo(llvm::ArrayRef<int64_t> from, llvm::ArrayRef<int64_t> to);

/// Maps an axis in [-rank, rank) to [0, rank); std::nullopt when out of range.
std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank);

/// Normalizes, sorts and deduplicates a list of axes; std::nullopt when any
/// axis is out of range or repeated.
std::optional<llvm::SmallVector<int64_t>>
normalizeAxes(llvm::ArrayRef<int64_t> axes, int64_t rank);

/// Shape after reducing `axes` (normalized) of `shape`.
llvm::SmallVector<int64_t> reducedShape(llvm::ArrayRef<int64_t> shape,
                                        llvm::ArrayRef<int64_t> axes,
                                        bool keepDims);

/// Output size of one spatial dim of a sliding window (conv or pool);
/// std::nullopt when the window does not fit even once or the arithmetic
/// overflows int64.
std::optional<int64_t> windowOutputSize(int64_t in, int64_t kernel,
                                        int64_t stride, int64_t dilation,
                                        int64_t padBegin, int64_t padEnd,
                                        bool ceilMode);

/// Output size of one spatial dim of a transposed convolution;
/// std::nullopt when the arithmetic overflows int64.
std::optional<int64_t> transposedConvOutputSize(int64_t in, int64_t kernel,
                                                int64_t stride,
                                                int64_t dilation,
                                                int64_t padBegin,
                                                int64_t padEnd,
                                                int64_t outputPadding);

/// The average pool's divisor at every output position (row-major over
/// `outSpatial`): the window taps inside the input, or inside the padded
/// input with `countIncludePad`. A window is a box, so this is a product of
/// per-dim counts. The CPU lowering divides by it and bwc-grad's rule for
/// bwc.pool avg scales by it, so both agree on every edge window.
llvm::SmallVector<double> avgPoolDivisors(llvm::ArrayRef<int64_t> inSpatial,
                                          llvm::ArrayRef<int64_t> outSpatial,
                                          llvm::ArrayRef<int64_t> kernel,
                                          llvm::ArrayRef<int64_t> strides,
                                          llvm::ArrayRef<int64_t> dilations,
                                          llvm::ArrayRef<int64_t> pads,
                                          bool countIncludePad);

/// Number of elements of a static shape.
int64_t numElements(llvm::ArrayRef<int64_t> shape);

/// Row-major strides of a static shape.
llvm::SmallVector<int64_t> rowMajorStrides(llvm::ArrayRef<int64_t> shape);

/// Layout permutations (docs/passes/bwc-select-layout.md). A permutation
/// `perm` says physical dim i holds logical dim perm[i], exactly as the
/// `perm` of bwc.transpose: physical = transpose(logical, perm).
///
/// Channels-last data of rank r: logical (N, C, D...) stored as (N, D..., C),
/// perm [0, 2, ..., r-1, 1].
llvm::SmallVector<int64_t> channelsLastPerm(int64_t rank);
/// Channels-last filter of rank r: logical (A, B, K...) (direct conv:
/// (F, C/groups, K...); transposed: (C, F/groups, K...)) stored as
/// (K..., B, A), perm [2, ..., r-1, 1, 0].
llvm::SmallVector<int64_t> channelsLastFilterPerm(int64_t rank);
/// The identity permutation of `rank` dims.
llvm::SmallVector<int64_t> identityPerm(int64_t rank);
/// The inverse permutation: invertPerm(p)[p[i]] = i.
llvm::SmallVector<int64_t> invertPerm(llvm::ArrayRef<int64_t> perm);
/// physical[i] = logical[perm[i]] (shapes or indices).
llvm::SmallVector<int64_t> permute(llvm::ArrayRef<int64_t> logical,
                                   llvm::ArrayRef<int64_t> perm);
/// The inverse of permute: logical[perm[i]] = physical[i].
llvm::SmallVector<int64_t> unpermute(llvm::ArrayRef<int64_t> physical,
                                     llvm::ArrayRef<int64_t> perm);

} // namespace mlir::bwc

#endif // BWC_DIALECT_BWC_UTILS_SHAPEUTILS_H
