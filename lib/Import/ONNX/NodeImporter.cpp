//===- NodeImporter.cpp - Per-node import context -------------------------===//
#include "NodeImporter.h"

#include "bwc/Dialect/BWC/Utils/ShapeUtils.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::bwc;
using namespace mlir::bwc::onnx_import;

Type onnx_import::elementTypeFor(MLIRContext *ctx, int t) {
  Builder b(ctx);
  switch (t) {
  case onnx::TensorProto::FLOAT: return b.getF32Type();
  case onnx::TensorProto::FLOAT16: return b.getF16Type();
  case onnx::TensorProto::BFLOAT16: return b.getBF16Type();
  case onnx::TensorProto::DOUBLE: return b.getF64Type();
  case onnx::TensorProto::INT64: return b.getI64Type();
  case onnx::TensorProto::INT32: return b.getI32Type();
  case onnx::TensorProto::INT16: return b.getI16Type();
  case onnx::TensorProto::UINT16:
    return IntegerType::get(ctx, 16, IntegerType::Unsigned);
  case onnx::TensorProto::UINT32:
    return IntegerType::get(ctx, 32, IntegerType::Unsigned);
  case onnx::TensorProto::UINT64:
    return IntegerType::get(ctx, 64, IntegerType::Unsigned);
  case onnx::TensorProto::INT8: return b.getI8Type();
  case onnx::TensorProto::UINT8:
    return IntegerType::get(ctx, 8, IntegerType::Unsigned);
  case onnx::TensorProto::BOOL: return b.getI1Type();
  default: return nullptr;
  }
}

std::string onnx_import::displayName(const onnx::NodeProto &node) {
  if (!node.name().empty())
    return node.name();
  for (const auto &out : node.output())
    if (!out.empty())
      return out;
  return node.op_type();
}

const char *onnx_import::onnxTypeName(int t) {
  if (onnx::TensorProto::DataType_IsValid(t))
    return onnx::TensorProto::DataType_Name(
               static_cast<onnx::TensorProto::DataType>(t))
        .c_str();
  return "UNKNOWN";
}

/// Reads an initializer's elements into an attribute of `type`.
LogicalResult
onnx_import::loadExternalData(onnx::TensorProto &t, StringRef baseDir,
                              std::function<InFlightDiagnostic()> err) {
  if (t.data_location() != onnx::TensorProto::EXTERNAL)
    return success();
  std::string location;
  int64_t offset = 0, length = -1;
  for (const auto &kv : t.external_data()) {
    if (kv.key() == "location")
      location = kv.value();
    else if (kv.key() == "offset")
      offset = std::strtoll(kv.value().c_str(), nullptr, 10);
    else if (kv.key() == "length")
      length = std::strtoll(kv.value().c_str(), nullptr, 10);
  }
  if (location.empty() || location.find("..") != std::string::npos ||
      llvm::sys::path::is_absolute(location))
    return err() << "has an invalid external data location '" << location
                 << "'",
           failure();
  SmallString<256> path(baseDir);
  llvm::sys::path::append(path, location);
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (!buf)
    return err() << "external data file '" << path
                 << "' cannot be read: " << buf.getError().message(),
           failure();
  StringRef all = (*buf)->getBuffer();
  if (length < 0)
    length = (int64_t)all.size() - offset;
  if (offset < 0 || offset > (int64_t)all.size() || length < 0 ||
      length > (int64_t)all.size() - offset)
    return err() << "external data range [" << offset << ", "
                 << offset + length << ") is outside '" << path << "' ("
                 << all.size() << " bytes)",
           failure();
  t.set_raw_data(all.substr(offset, length).str());
  t.clear_external_data();
  t.set_data_location(onnx::TensorProto::DEFAULT);
  return success();
}

FailureOr<ElementsAttr> onnx_import::tensorToAttr(const onnx::TensorProto &t,
                                     RankedTensorType type, int64_t inlineLimit,
                                     std::function<InFlightDiagnostic()> err) {
  int64_t n = type.getNumElements();
  Type elt = type.getElementType();
  int64_t width = elt.isInteger(1) ? 1 : (elt.getIntOrFloatBitWidth() + 7) / 8;
  std::string bytes;
  if (t.data_location() == onnx::TensorProto::EXTERNAL) {
    return err() << "has external data that was not loaded", failure();
  } else if (t.has_raw_data()) {
    bytes = t.raw_data();
  } else {
    // Typed fields: ONNX stores f16/bf16/(u)i8/(u)i16/bool/i32 in
    // int32_data and u32/u64 in uint64_data.
    auto put = [&](const void *p, size_t size) {
      bytes.append(static_cast<const char *>(p), size);
    };
    switch (t.data_type()) {
    case onnx::TensorProto::FLOAT:
      for (float v : t.float_data()) put(&v, 4);
      break;
    case onnx::TensorProto::DOUBLE:
      for (double v : t.double_data()) put(&v, 8);
      break;
    case onnx::TensorProto::INT64:
      for (int64_t v : t.int64_data()) put(&v, 8);
      break;
    case onnx::TensorProto::INT32:
      for (int32_t v : t.int32_data()) put(&v, 4);
      break;
    case onnx::TensorProto::FLOAT16:
    case onnx::TensorProto::BFLOAT16:
    case onnx::TensorProto::INT16:
    case onnx::TensorProto::UINT16:
      for (int32_t v : t.int32_data()) { uint16_t h = v; put(&h, 2); }
      break;
    case onnx::TensorProto::UINT32:
      for (uint64_t v : t.uint64_data()) { uint32_t w = v; put(&w, 4); }
      break;
    case onnx::TensorProto::UINT64:
      for (uint64_t v : t.uint64_data()) put(&v, 8);
      break;
    case onnx::TensorProto::INT8:
    case onnx::TensorProto::UINT8:
    case onnx::TensorProto::BOOL:
      for (int32_t v : t.int32_data()) { uint8_t c = v; put(&c, 1); }
      break;
    default:
      break;
    }
  }
  if ((int64_t)bytes.size() != n * width)
    return err() << "holds " << bytes.size() << " bytes but its shape needs "
                 << n * width,
           failure();
  if (elt.isInteger(1)) {
    SmallVector<bool> bits;
    for (char c : bytes)
      bits.push_back(c != 0);
    return ElementsAttr(DenseElementsAttr::get(type, bits));
  }
  ArrayRef<char> raw(bytes.data(), bytes.size());
  if (n > inlineLimit && isa<FloatType>(elt)) {
    std::string blobName = t.name().empty() ? "weight" : t.name();
    return ElementsAttr(DenseResourceElementsAttr::get(
        type, blobName,
        HeapAsmResourceBlob::allocateAndCopyWithAlign(raw, alignof(double))));
  }
  if (n == 0)
    return ElementsAttr(DenseElementsAttr::get(type, ArrayRef<Attribute>{}));
  bool detectedSplat = false;
  if (!DenseElementsAttr::isValidRawBuffer(type, raw, detectedSplat))
    return err() << "holds data that does not match its type", failure();
  return ElementsAttr(DenseElementsAttr::getFromRawBuffer(type, raw));
}

Value NodeContext::input(int i) {
  if (i >= node.input_size() || node.input(i).empty())
    return nullptr;
  auto it = values.find(node.input(i));
  return it == values.end() ? nullptr : it->second;
}

FailureOr<Value> NodeContext::requiredInput(int i) {
  if (Value v = input(i))
    return v;
  return error() << "expects input " << i, failure();
}

std::optional<SmallVector<int64_t>> NodeContext::constInts(int i) {
  Value v = input(i);
  DenseElementsAttr attr;
  if (!v || !matchPattern(v, m_Constant(&attr)))
    return std::nullopt;
  SmallVector<int64_t> out;
  if (isa<FloatType>(attr.getElementType())) {
    for (APFloat f : attr.getValues<APFloat>())
      out.push_back((int64_t)f.convertToDouble());
    return out;
  }
  bool isUnsigned = attr.getElementType().isUnsignedInteger() ||
                    attr.getElementType().isInteger(1);
  for (APInt x : attr.getValues<APInt>())
    out.push_back(isUnsigned ? (int64_t)x.getZExtValue() : x.getSExtValue());
  return out;
}

std::optional<SmallVector<double>> NodeContext::constFloats(int i) {
  Value v = input(i);
  DenseElementsAttr attr;
  if (!v || !matchPattern(v, m_Constant(&attr)))
    return std::nullopt;
  SmallVector<double> out;
  if (isa<FloatType>(attr.getElementType())) {
    for (APFloat f : attr.getValues<APFloat>())
      out.push_back(f.convertToDouble());
  } else {
    bool isUnsigned = attr.getElementType().isUnsignedInteger() ||
                      attr.getElementType().isInteger(1);
    for (APInt x : attr.getValues<APInt>())
      out.push_back(isUnsigned ? (double)x.getZExtValue()
                               : (double)x.getSExtValue());
  }
  return out;
}

const onnx::AttributeProto *NodeContext::attr(StringRef name) const {
  for (const auto &a : node.attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

int64_t NodeContext::attrInt(StringRef name, int64_t dflt) const {
  const auto *a = attr(name);
  return a ? a->i() : dflt;
}

double NodeContext::attrFloat(StringRef name, double dflt) const {
  const auto *a = attr(name);
  return a ? a->f() : dflt;
}

std::string NodeContext::attrString(StringRef name, StringRef dflt) const {
  const auto *a = attr(name);
  return a ? a->s() : dflt.str();
}

std::optional<SmallVector<int64_t>>
NodeContext::attrInts(StringRef name) const {
  const auto *a = attr(name);
  if (!a)
    return std::nullopt;
  return SmallVector<int64_t>(a->ints().begin(), a->ints().end());
}

std::optional<SmallVector<double>>
NodeContext::attrFloats(StringRef name) const {
  const auto *a = attr(name);
  if (!a)
    return std::nullopt;
  return SmallVector<double>(a->floats().begin(), a->floats().end());
}

InFlightDiagnostic NodeContext::error() {
  return emitError(getLoc()) << "node '" << displayName(node) << "' ("
                             << node.op_type() << ", opset " << opset
                             << "): ";
}

FailureOr<int64_t> NodeContext::axis(int64_t value, int64_t rank) {
  if (std::optional<int64_t> a = normalizeAxis(value, rank))
    return *a;
  return error() << "axis " << value << " is out of range for rank " << rank,
         failure();
}

//===----------------------------------------------------------------------===//
// Helpers shared by the op families
//===----------------------------------------------------------------------===//

std::string onnx_import::str(ArrayRef<int64_t> xs) {
  std::string s = "[";
  for (auto [i, x] : llvm::enumerate(xs))
    s += (i ? ", " : "") + std::to_string(x);
  return s + "]";
}

std::optional<int64_t> onnx_import::product(ArrayRef<int64_t> dims) {
  int64_t p = 1;
  for (int64_t d : dims) {
    std::optional<int64_t> next = llvm::checkedMul(p, d);
    if (!next)
      return std::nullopt;
    p = *next;
  }
  return p;
}

LogicalResult onnx_import::requireRank(NodeContext &nc, Value x,
                                       int64_t minRank, StringRef what) {
  if (rankOf(x) < minRank)
    return nc.error() << "expects " << what << " of rank >= " << minRank
                      << " but got rank " << rankOf(x),
           failure();
  return success();
}

LogicalResult onnx_import::checkShape(NodeContext &nc, ArrayRef<int64_t> shape,
                                      StringRef what) {
  if (llvm::any_of(shape, [](int64_t d) { return d < 0; }) || !product(shape))
    return nc.error() << what << " " << str(shape) << " is not a valid shape",
           failure();
  return success();
}

FailureOr<Ints> onnx_import::constantInput(NodeContext &nc, int i,
                                           StringRef name) {
  if (!nc.input(i))
    return nc.error() << "expects the '" << name << "' input", failure();
  if (std::optional<Ints> v = nc.constInts(i))
    return *v;
  return nc.error() << "'" << name
                    << "' input must be a constant (a non-constant " << name
                    << " is not supported)",
         failure();
}

FailureOr<Ints> onnx_import::normalizedAxes(NodeContext &nc,
                                            ArrayRef<int64_t> axes,
                                            int64_t rank) {
  if (std::optional<Ints> norm = normalizeAxes(axes, rank))
    return *norm;
  return nc.error() << "axes " << str(axes)
                    << " are out of range or repeated for rank " << rank,
         failure();
}

TypedAttr onnx_import::scalarAttr(Type elt, double v) {
  if (auto ft = dyn_cast<FloatType>(elt)) {
    APFloat f(v);
    bool lost;
    f.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    return FloatAttr::get(elt, f);
  }
  auto it = cast<IntegerType>(elt);
  // Saturating, as out-of-range double -> int64 casts are undefined.
  double clamped = std::isnan(v) ? 0 : std::clamp(v, -0x1p63, 0x1p63 - 1024);
  int64_t i = it.getWidth() == 1 ? (v != 0) : (int64_t)clamped;
  return IntegerAttr::get(elt, APInt(it.getWidth(), (uint64_t)i,
                                     /*isSigned=*/!it.isUnsigned(),
                                     /*implicitTrunc=*/true));
}
