//===- NodeImporter.cpp - Per-node import context -------------------------===//
#include "NodeImporter.h"

#include "bwc/Dialect/BWC/Utils/ShapeUtils.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fcntl.h>
#include <limits>
#include <sys/stat.h>
#include <unistd.h>

using namespace mlir;
using namespace mlir::bwc;
using namespace mlir::bwc::onnx_import;

Type onnx_import::elementTypeFor(MLIRContext *ctx, int t) {
  Builder b(ctx);
  switch (t) {
  case onnx::TensorProto::FLOAT:
    return b.getF32Type();
  case onnx::TensorProto::FLOAT16:
    return b.getF16Type();
  case onnx::TensorProto::BFLOAT16:
    return b.getBF16Type();
  case onnx::TensorProto::DOUBLE:
    return b.getF64Type();
  case onnx::TensorProto::INT64:
    return b.getI64Type();
  case onnx::TensorProto::INT32:
    return b.getI32Type();
  case onnx::TensorProto::INT16:
    return b.getI16Type();
  case onnx::TensorProto::UINT16:
    return IntegerType::get(ctx, 16, IntegerType::Unsigned);
  case onnx::TensorProto::UINT32:
    return IntegerType::get(ctx, 32, IntegerType::Unsigned);
  case onnx::TensorProto::UINT64:
    return IntegerType::get(ctx, 64, IntegerType::Unsigned);
  case onnx::TensorProto::INT8:
    return b.getI8Type();
  case onnx::TensorProto::UINT8:
    return IntegerType::get(ctx, 8, IntegerType::Unsigned);
  case onnx::TensorProto::BOOL:
    return b.getI1Type();
  default:
    return nullptr;
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

namespace {

/// A decimal integer with nothing else in the string.
bool parseDecimal(const std::string &text, int64_t &value) {
  if (text.empty() || text.size() > 19)
    return false;
  for (char c : text)
    if (c < '0' || c > '9')
      return false;
  value = std::strtoll(text.c_str(), nullptr, 10);
  return true;
}

/// Closes a descriptor on every path.
struct Descriptor {
  int fd = -1;
  ~Descriptor() {
    if (fd >= 0)
      ::close(fd);
  }
};

} // namespace

// External data is read as ONNX 1.16+ and ONNX Runtime read it, so that a
// model from the internet cannot make bwc read another file into its
// weights (CVE-2022-25882, CVE-2024-27318 and the symlink variant): the
// location must be relative and stay in the model's folder component by
// component (no "..", no symbolic link anywhere on the way: each folder is
// opened with O_NOFOLLOW relative to the previous one, so nothing can be
// swapped in between the checks and the read), and the file must be a
// regular file with one hard link, its offset and length inside it.
LogicalResult
onnx_import::loadExternalData(onnx::TensorProto &t, StringRef baseDir,
                              std::function<InFlightDiagnostic()> err) {
  if (t.data_location() != onnx::TensorProto::EXTERNAL)
    return success();
  std::string location, offsetText, lengthText;
  for (const auto &kv : t.external_data()) {
    if (kv.key() == "location")
      location = kv.value();
    else if (kv.key() == "offset")
      offsetText = kv.value();
    else if (kv.key() == "length")
      lengthText = kv.value();
  }
  int64_t offset = 0, length = -1;
  if (!offsetText.empty() && !parseDecimal(offsetText, offset))
    return err() << "has a malformed external data offset '" << offsetText
                 << "'",
           failure();
  if (!lengthText.empty() && !parseDecimal(lengthText, length))
    return err() << "has a malformed external data length '" << lengthText
                 << "'",
           failure();
  auto refuse = [&](StringRef why) {
    return err() << "has external data location '" << location << "', which "
                 << why
                 << " (external data must be a file inside the model's "
                    "folder)",
           failure();
  };
  if (location.empty())
    return refuse("is empty");
  if (location.find('\0') != std::string::npos)
    return refuse("holds a NUL byte");
  if (llvm::sys::path::is_absolute(location) || location[0] == '/' ||
      location[0] == '\\')
    return refuse("is absolute");
  SmallVector<std::string> parts;
  for (StringRef part : llvm::split(StringRef(location), '/')) {
    if (part.empty() || part == ".")
      continue;
    if (part == ".." || part.contains('\\'))
      return refuse("leaves the model's folder");
    parts.push_back(part.str());
  }
  if (parts.empty())
    return refuse("names no file");

  std::string base = baseDir.empty() ? std::string(".") : baseDir.str();
  Descriptor dir;
  dir.fd = ::open(base.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir.fd < 0)
    return err() << "external data folder '" << base
                 << "' cannot be opened: " << std::strerror(errno),
           failure();
  std::string walked;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    walked += parts[i] + "/";
    int next = ::openat(dir.fd, parts[i].c_str(),
                        O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (next < 0)
      return errno == ELOOP || errno == ENOTDIR
                 ? refuse(("goes through '" + walked +
                           "', which is a symbolic link or not a folder")
                              .c_str())
                 : (err() << "external data folder '" << walked
                          << "' cannot be opened: " << std::strerror(errno),
                    failure());
    ::close(dir.fd);
    dir.fd = next;
  }
  Descriptor file;
  file.fd = ::openat(dir.fd, parts.back().c_str(),
                     O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (file.fd < 0)
    return errno == ELOOP
               ? refuse("is a symbolic link")
               : (err() << "external data file '" << location
                        << "' cannot be read: " << std::strerror(errno),
                  failure());
  struct stat st;
  if (::fstat(file.fd, &st) != 0)
    return err() << "external data file '" << location
                 << "' cannot be read: " << std::strerror(errno),
           failure();
  if (!S_ISREG(st.st_mode))
    return refuse("is not a regular file");
  if (st.st_nlink > 1)
    return refuse(("has " + std::to_string(st.st_nlink) +
                   " hard links (a link may point outside the folder)")
                      .c_str());
  int64_t size = st.st_size;
  if (offset > size)
    return err() << "external data offset " << offset << " is past the end of '"
                 << location << "' (" << size << " bytes)",
           failure();
  if (length < 0)
    length = size - offset;
  if (length > size - offset)
    return err() << "external data range [" << offset << ", " << offset + length
                 << ") is outside '" << location << "' (" << size << " bytes)",
           failure();
  std::string bytes(length, '\0');
  for (int64_t done = 0; done < length;) {
    ssize_t n =
        ::pread(file.fd, bytes.data() + done, length - done, offset + done);
    if (n <= 0)
      return err() << "external data file '" << location << "' cannot be read: "
                   << (n < 0 ? std::strerror(errno) : "it shrank"),
             failure();
    done += n;
  }
  t.set_raw_data(std::move(bytes));
  t.clear_external_data();
  t.set_data_location(onnx::TensorProto::DEFAULT);
  return success();
}

/// Reads an initializer's elements into an attribute of `type`.
FailureOr<ElementsAttr>
onnx_import::tensorToAttr(const onnx::TensorProto &t, RankedTensorType type,
                          int64_t inlineLimit,
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
      for (float v : t.float_data())
        put(&v, 4);
      break;
    case onnx::TensorProto::DOUBLE:
      for (double v : t.double_data())
        put(&v, 8);
      break;
    case onnx::TensorProto::INT64:
      for (int64_t v : t.int64_data())
        put(&v, 8);
      break;
    case onnx::TensorProto::INT32:
      for (int32_t v : t.int32_data())
        put(&v, 4);
      break;
    case onnx::TensorProto::FLOAT16:
    case onnx::TensorProto::BFLOAT16:
    case onnx::TensorProto::INT16:
    case onnx::TensorProto::UINT16:
      for (int32_t v : t.int32_data()) {
        uint16_t h = v;
        put(&h, 2);
      }
      break;
    case onnx::TensorProto::UINT32:
      for (uint64_t v : t.uint64_data()) {
        uint32_t w = v;
        put(&w, 4);
      }
      break;
    case onnx::TensorProto::UINT64:
      for (uint64_t v : t.uint64_data())
        put(&v, 8);
      break;
    case onnx::TensorProto::INT8:
    case onnx::TensorProto::UINT8:
    case onnx::TensorProto::BOOL:
      for (int32_t v : t.int32_data()) {
        uint8_t c = v;
        put(&c, 1);
      }
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
  if (std::optional<DenseElementsAttr> frozenValue = freeze(input(i)))
    return intsOf(*frozenValue);
  return constantInts(input(i));
}

std::optional<DenseElementsAttr> NodeContext::freeze(Value v) {
  auto arg = dyn_cast_or_null<BlockArgument>(v);
  if (!arg || !frozen)
    return std::nullopt;
  auto f = dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp());
  if (!f || !f.getArgAttr(arg.getArgNumber(), "bwc.trainable"))
    return std::nullopt;
  auto init = dyn_cast_or_null<DenseElementsAttr>(
      f.getArgAttr(arg.getArgNumber(), "bwc.initial_value"));
  if (!init)
    return std::nullopt;
  frozen->insert(arg);
  return init;
}

void NodeContext::freezeInput(int i) {
  auto arg = dyn_cast_or_null<BlockArgument>(input(i));
  if (!arg || !frozen)
    return;
  auto f = dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp());
  if (f && f.getArgAttr(arg.getArgNumber(), "bwc.trainable"))
    frozen->insert(arg);
}

std::optional<SmallVector<int64_t>> NodeContext::constantInts(Value v) {
  DenseElementsAttr attr;
  if (!v || !matchPattern(v, m_Constant(&attr)))
    return std::nullopt;
  return intsOf(attr);
}

SmallVector<int64_t> NodeContext::intsOf(DenseElementsAttr attr) {
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
  if (std::optional<DenseElementsAttr> frozenValue = freeze(v))
    attr = *frozenValue;
  else if (!v || !matchPattern(v, m_Constant(&attr)))
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
                             << node.op_type() << ", opset " << opset << "): ";
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

Value onnx_import::iotaAlong(BWCBuilder &bb, int64_t rank, int64_t axis,
                             int64_t n, Type elt) {
  SmallVector<int64_t> shape(rank, 1);
  shape[axis] = n;
  if (auto ft = dyn_cast<FloatType>(elt)) {
    SmallVector<APFloat> ids;
    for (int64_t i = 0; i < n; ++i) {
      APFloat v((double)i);
      bool lost;
      v.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      ids.push_back(v);
    }
    return bb.constant(
        DenseElementsAttr::get(RankedTensorType::get(shape, elt), ids));
  }
  SmallVector<APInt> ids;
  for (int64_t i = 0; i < n; ++i)
    ids.push_back(APInt(elt.getIntOrFloatBitWidth(), i, /*isSigned=*/true));
  return bb.constant(
      DenseElementsAttr::get(RankedTensorType::get(shape, elt), ids));
}

Value onnx_import::extremeScalar(BWCBuilder &bb, Type elt, bool highest) {
  if (isa<FloatType>(elt))
    return bb.scalar(highest ? std::numeric_limits<double>::infinity()
                             : -std::numeric_limits<double>::infinity(),
                     elt);
  auto it = cast<IntegerType>(elt);
  unsigned w = it.getWidth();
  bool isUnsigned = it.isUnsigned() || w == 1;
  APInt v = isUnsigned ? (highest ? APInt::getMaxValue(w) : APInt(w, 0))
                       : (highest ? APInt::getSignedMaxValue(w)
                                  : APInt::getSignedMinValue(w));
  return bb.constant(DenseElementsAttr::get(RankedTensorType::get({}, elt), v));
}
