//===- ShapeUtils.h - Shape rules shared by verifiers and import -*- C++ -*-===//
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
/// std::nullopt when the window does not fit even once.
std::optional<int64_t> windowOutputSize(int64_t in, int64_t kernel,
                                        int64_t stride, int64_t dilation,
                                        int64_t padBegin, int64_t padEnd,
                                        bool ceilMode);

/// Output size of one spatial dim of a transposed convolution.
int64_t transposedConvOutputSize(int64_t in, int64_t kernel, int64_t stride,
                                 int64_t dilation, int64_t padBegin,
                                 int64_t padEnd, int64_t outputPadding);

/// Number of elements of a static shape.
int64_t numElements(llvm::ArrayRef<int64_t> shape);

/// Row-major strides of a static shape.
llvm::SmallVector<int64_t> rowMajorStrides(llvm::ArrayRef<int64_t> shape);

} // namespace mlir::bwc

#endif // BWC_DIALECT_BWC_UTILS_SHAPEUTILS_H
