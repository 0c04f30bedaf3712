//===- ConstantData.cpp - The bytes of a constant, and back ---------------===//

#include "bwc/Dialect/BWC/Utils/ConstantData.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <cstring>

using namespace mlir;

std::optional<std::vector<char>> mlir::bwc::constantBytes(ElementsAttr attr) {
  auto type = cast<ShapedType>(attr.getType());
  unsigned bits = type.getElementTypeBitWidth();
  if (bits % 8)
    return std::nullopt;
  int64_t n = type.getNumElements(), size = bits / 8;
  ArrayRef<char> raw;
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    raw = dense.getRawData();
    if (dense.isSplat() && (int64_t)raw.size() == size) {
      std::vector<char> out(n * size);
      for (int64_t i = 0; i < n; ++i)
        std::memcpy(&out[i * size], raw.data(), size);
      return out;
    }
  } else if (auto res = dyn_cast<DenseResourceElementsAttr>(attr)) {
    AsmResourceBlob *blob = res.getRawHandle().getBlob();
    if (!blob)
      return std::nullopt;
    raw = blob->getData();
  } else {
    return std::nullopt;
  }
  if ((int64_t)raw.size() != n * size)
    return std::nullopt;
  return std::vector<char>(raw.begin(), raw.end());
}

ElementsAttr mlir::bwc::constantFromBytes(ElementsAttr like,
                                          RankedTensorType type,
                                          const std::vector<char> &bytes,
                                          llvm::StringRef suffix) {
  if (auto res = dyn_cast<DenseResourceElementsAttr>(like))
    return DenseResourceElementsAttr::get(
        type, (res.getRawHandle().getKey() + suffix).str(),
        HeapAsmResourceBlob::allocateAndCopyWithAlign(bytes, alignof(double)));
  return DenseElementsAttr::getFromRawBuffer(type, bytes);
}
