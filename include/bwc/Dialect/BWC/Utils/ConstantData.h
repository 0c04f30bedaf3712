//===- ConstantData.h - The bytes of a constant, and back -*- C++ -*-===//
//
// Graph passes that rewrite weights at compile time (bwc-select-layout's
// transposed filters, bwc-pad-channels' padded ones) read a constant's
// row-major bytes whatever its form (dense, splat, dense_resource) and
// build the rewritten one in the same form.
//
//===----------------------------------------------------------------------===//
#ifndef BWC_DIALECT_BWC_UTILS_CONSTANTDATA_H
#define BWC_DIALECT_BWC_UTILS_CONSTANTDATA_H

#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "mlir/IR/BuiltinTypes.h"
#include <optional>
#include <vector>

namespace mlir::bwc {

/// The row-major bytes of `attr` (a splat expanded); std::nullopt when they
/// cannot be read (an unreadable resource, sub-byte elements, another
/// attribute kind).
std::optional<std::vector<char>> constantBytes(ElementsAttr attr);

/// A constant of `type` holding `bytes`: a dense_resource named after
/// `like`'s resource plus `suffix` when `like` is one, else dense.
ElementsAttr constantFromBytes(ElementsAttr like, RankedTensorType type,
                               const std::vector<char> &bytes,
                               llvm::StringRef suffix);

} // namespace mlir::bwc

#endif // BWC_DIALECT_BWC_UTILS_CONSTANTDATA_H
