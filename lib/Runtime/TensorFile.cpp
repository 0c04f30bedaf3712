//===- TensorFile.cpp - Minimal onnx.TensorProto wire-format codec --------===//
//
// See TensorFile.h for why this exists and which fields it understands.
// Protobuf wire format: each field is a varint key (number << 3 | wire type)
// followed by a varint (0), 8 bytes (1), a varint length and that many bytes
// (2), a group up to the matching end-group key (3/4) or 4 bytes (5).
//
//===----------------------------------------------------------------------===//

#include "bwc/Runtime/TensorFile.h"

#include "FileUtil.h"
#include <cerrno>
#include <cstring>
#include <sys/stat.h>

#include <cstring>

namespace bwc::rt {
namespace {

enum WireType {
  kVarint = 0,
  kFixed64 = 1,
  kLen = 2,
  kStartGroup = 3,
  kEndGroup = 4,
  kFixed32 = 5
};

enum Field {
  kDims = 1,
  kDataType = 2,
  kFloatData = 4,
  kInt32Data = 5,
  kStringData = 6,
  kInt64Data = 7,
  kName = 8,
  kRawData = 9,
  kDoubleData = 10,
  kUint64Data = 11,
  kDataLocation = 14
};

/// A bounded cursor over protobuf bytes; the first error sticks.
struct Wire {
  const uint8_t *p, *end;
  std::string error;

  bool ok() const { return error.empty(); }
  bool fail(const std::string &e) {
    if (error.empty())
      error = e;
    return false;
  }
  uint64_t varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p == end)
        return fail("truncated varint"), 0;
      uint8_t b = *p++;
      v |= uint64_t(b & 0x7f) << shift;
      if (!(b & 0x80))
        return v;
    }
    return fail("varint longer than 10 bytes"), 0;
  }
  /// Returns the next `n` bytes as a sub-cursor.
  Wire take(uint64_t n) {
    if (n > static_cast<uint64_t>(end - p))
      return fail("truncated field"), Wire{end, end, {}};
    Wire sub{p, p + n, {}};
    p += n;
    return sub;
  }
  uint64_t fixed(int n) {
    Wire w = take(n);
    uint64_t v = 0;
    for (int i = 0; ok() && i < n; ++i)
      v |= uint64_t(w.p[i]) << (8 * i);
    return v;
  }
  /// Skips a field's value; `depth` bounds nested groups.
  bool skip(int wireType, int number, int depth = 0) {
    switch (wireType) {
    case kVarint:
      varint();
      return ok();
    case kFixed64:
      take(8);
      return ok();
    case kFixed32:
      take(4);
      return ok();
    case kLen:
      take(varint());
      return ok();
    case kStartGroup:
      if (depth > 64)
        return fail("groups nested too deeply");
      while (ok()) {
        uint64_t key = varint();
        if (!ok())
          break;
        if ((key & 7) == kEndGroup)
          return (key >> 3) == uint64_t(number) || fail("mismatched end-group");
        skip(key & 7, key >> 3, depth + 1);
      }
      return false;
    default:
      return fail("invalid wire type " + std::to_string(wireType));
    }
  }
};

/// Collects a repeated scalar field given packed (one length-delimited run)
/// or unpacked (one value per key). `fixedBytes` is 0 for varints.
bool readRepeated(Wire &w, int wireType, int fixedBytes,
                  std::vector<uint64_t> &out, const char *field) {
  int scalarType = fixedBytes == 0   ? kVarint
                   : fixedBytes == 4 ? kFixed32
                                     : kFixed64;
  auto one = [&](Wire &from) {
    out.push_back(fixedBytes ? from.fixed(fixedBytes) : from.varint());
    if (!from.ok())
      w.fail(from.error + " in " + field);
  };
  if (wireType == scalarType) {
    one(w);
  } else if (wireType == kLen) {
    Wire run = w.take(w.varint());
    if (fixedBytes && (run.end - run.p) % fixedBytes)
      return w.fail(std::string("packed ") + field + " has a partial value");
    while (w.ok() && run.p != run.end)
      one(run);
  } else {
    return w.fail(std::string(field) + " has wire type " +
                  std::to_string(wireType));
  }
  return w.ok();
}

/// Stores `values` (each the low bits of a typed-field entry) as `size`-byte
/// little-endian elements.
void storeValues(const std::vector<uint64_t> &values, size_t size,
                 std::vector<uint8_t> &data) {
  data.resize(values.size() * size);
  for (size_t i = 0; i < values.size(); ++i)
    for (size_t b = 0; b < size; ++b)
      data[i * size + b] = static_cast<uint8_t>(values[i] >> (8 * b));
}

/// The typed field ONNX uses for `t`.
int typedFieldFor(DType t) {
  switch (t) {
  case DType::f32:
    return kFloatData;
  case DType::i64:
    return kInt64Data;
  case DType::f64:
    return kDoubleData;
  case DType::u32:
  case DType::u64:
    return kUint64Data;
  default:
    return kInt32Data;
  }
}

void writeVarint(std::string &out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

} // namespace

std::string formatShape(const std::vector<int64_t> &shape) {
  if (shape.empty())
    return "scalar";
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "x" : "") + std::to_string(shape[i]);
  return s;
}

bool parseTensorProto(const std::string &bytes, HostTensor &t,
                      std::string &error) {
  auto *begin = reinterpret_cast<const uint8_t *>(bytes.data());
  Wire w{begin, begin + bytes.size(), {}};
  std::vector<uint64_t> dims, typed;
  int typedField = 0;
  uint64_t dataType = 0;
  std::string name, raw;
  bool hasRaw = false;
  while (w.ok() && w.p != w.end) {
    uint64_t key = w.varint();
    int type = key & 7;
    uint64_t number = key >> 3;
    if (!w.ok())
      break;
    auto typedData = [&](int fixedBytes, const char *field) {
      if (typedField && typedField != int(number))
        return (void)w.fail("tensor has more than one typed data field");
      typedField = number;
      readRepeated(w, type, fixedBytes, typed, field);
    };
    auto bytesField = [&](std::string &into, const char *field) {
      if (type != kLen)
        return (void)w.fail(std::string(field) + " has wire type " +
                            std::to_string(type));
      Wire s = w.take(w.varint());
      into.assign(reinterpret_cast<const char *>(s.p), s.end - s.p);
    };
    switch (number) {
    case kDims:
      readRepeated(w, type, 0, dims, "dims");
      break;
    case kDataType: {
      std::vector<uint64_t> v;
      if (readRepeated(w, type, 0, v, "data_type") && !v.empty())
        dataType = v.back();
      break;
    }
    case kFloatData:
      typedData(4, "float_data");
      break;
    case kInt32Data:
      typedData(0, "int32_data");
      break;
    case kInt64Data:
      typedData(0, "int64_data");
      break;
    case kDoubleData:
      typedData(8, "double_data");
      break;
    case kUint64Data:
      typedData(0, "uint64_data");
      break;
    case kName:
      bytesField(name, "name");
      break;
    case kRawData:
      bytesField(raw, "raw_data");
      hasRaw = true;
      break;
    case kStringData:
      w.fail("string tensors are not supported");
      break;
    case kDataLocation: {
      std::vector<uint64_t> v;
      if (readRepeated(w, type, 0, v, "data_location") && !v.empty() &&
          v.back() == 1)
        w.fail("tensors with external data are not supported");
      break;
    }
    default:
      if (number == 0)
        w.fail("invalid field number 0");
      else if (type == kEndGroup)
        w.fail("unexpected end-group");
      else
        w.skip(type, number);
    }
  }
  if (!w.ok())
    return error = "malformed TensorProto: " + w.error, false;

  HostTensor out;
  out.desc.name = name;
  if (dataType > 0x7fffffff || !isValidDType(static_cast<int32_t>(dataType)))
    return error = "TensorProto '" + name + "' has unsupported data_type " +
                   std::to_string(dataType),
           false;
  out.desc.dtype = static_cast<DType>(dataType);
  // Bound the element count so that bytes() cannot overflow.
  uint64_t elements = 1, limit = uint64_t(1) << 60;
  for (uint64_t d : dims) {
    if (static_cast<int64_t>(d) < 0)
      return error = "TensorProto '" + name + "' has a negative dimension",
             false;
    if (d != 0 && elements > limit / d)
      return error = "TensorProto '" + name + "' is too large", false;
    elements *= d;
    out.desc.shape.push_back(static_cast<int64_t>(d));
  }
  size_t size = dtypeSize(out.desc.dtype);
  std::string where = "TensorProto '" + name + "' (" +
                      dtypeName(out.desc.dtype) + " " +
                      formatShape(out.desc.shape) + ")";
  if (hasRaw && typedField)
    return error = where + " has both raw_data and typed data", false;
  if (hasRaw) {
    if (raw.size() != elements * size)
      return error = where + " needs " + std::to_string(elements * size) +
                     " bytes but raw_data has " + std::to_string(raw.size()),
             false;
    out.data.assign(raw.begin(), raw.end());
  } else {
    if (typedField && typedField != typedFieldFor(out.desc.dtype))
      return error = where + " stores its values in the wrong typed field",
             false;
    if (typed.size() != elements)
      return error = where + " needs " + std::to_string(elements) +
                     " values but has " + std::to_string(typed.size()),
             false;
    storeValues(typed, size, out.data);
  }
  t = std::move(out);
  return true;
}

std::string serializeTensorProto(const HostTensor &t) {
  std::string out;
  for (int64_t d : t.desc.shape) {
    writeVarint(out, kDims << 3 | kVarint);
    writeVarint(out, static_cast<uint64_t>(d));
  }
  writeVarint(out, kDataType << 3 | kVarint);
  writeVarint(out, static_cast<uint64_t>(t.desc.dtype));
  if (!t.desc.name.empty()) {
    writeVarint(out, kName << 3 | kLen);
    writeVarint(out, t.desc.name.size());
    out += t.desc.name;
  }
  writeVarint(out, kRawData << 3 | kLen);
  writeVarint(out, t.data.size());
  out.append(t.data.begin(), t.data.end());
  return out;
}

bool readTensorFile(const std::string &path, HostTensor &t,
                    std::string &error) {
  std::string bytes;
  if (!readWholeFile(path, bytes, error))
    return false;
  if (!parseTensorProto(bytes, t, error)) {
    error = path + ": " + error;
    return false;
  }
  return true;
}

bool makeDirectories(const std::string &path, std::string &error) {
  if (path.empty())
    return error = "empty folder name", false;
  for (size_t i = 1; i <= path.size(); ++i) {
    if (i != path.size() && path[i] != '/')
      continue;
    std::string part = path.substr(0, i);
    struct stat st;
    if (stat(part.c_str(), &st) == 0) {
      if (!S_ISDIR(st.st_mode))
        return error = "'" + part + "' exists and is not a folder", false;
      continue;
    }
    if (mkdir(part.c_str(), 0777) != 0 && errno != EEXIST)
      return error = "cannot create '" + part + "': " + std::strerror(errno),
             false;
  }
  return true;
}

bool serializeTrainedModel(const Artifact &a,
                           const std::vector<HostTensor> &state,
                           std::string &out, std::string &error) {
  if (a.modelTemplate.empty())
    return error = "the artifact carries no ONNX model to write the weights "
                   "into (it was not compiled from ONNX with --train=sgd:LR "
                   "or adam:LR); give a folder for .pb files instead",
           false;
  if (state.size() != a.state.size())
    return error = "expected " + std::to_string(a.state.size()) +
                   " state tensors but got " + std::to_string(state.size()),
           false;
  constexpr uint64_t kGraph = 7, kInitializer = 5;
  std::string graph;
  for (uint32_t p : a.modelParameters) {
    if (p >= state.size())
      return error = "model parameter " + std::to_string(p) +
                     " is not a state tensor",
             false;
    std::string t = serializeTensorProto(state[p]);
    writeVarint(graph, kInitializer << 3 | kLen);
    writeVarint(graph, t.size());
    graph += t;
  }
  out = a.modelTemplate;
  writeVarint(out, kGraph << 3 | kLen);
  writeVarint(out, graph.size());
  out += graph;
  return true;
}

bool writeTrainedModel(const std::string &path, const Artifact &a,
                       const std::vector<HostTensor> &state,
                       std::string &error) {
  std::string bytes;
  return serializeTrainedModel(a, state, bytes, error) &&
         writeWholeFile(path, bytes, error);
}

bool writeTensorFile(const std::string &path, const HostTensor &t,
                     std::string &error) {
  return writeWholeFile(path, serializeTensorProto(t), error);
}

} // namespace bwc::rt
