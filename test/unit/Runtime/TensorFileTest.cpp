//===- TensorFileTest.cpp - TensorProto codec vs libprotobuf --------------===//
//
// The runtime's own TensorProto reader is cross-checked against bytes that
// libprotobuf writes with libonnx's generated TensorProto class, and its
// writer against what that class parses back.
//
//===----------------------------------------------------------------------===//

#include "bwc/Runtime/TensorFile.h"

#include "onnx/onnx_pb.h"
#include <gtest/gtest.h>

#include <cstring>
#include <random>

using namespace bwc::rt;

namespace {

HostTensor parseOk(const std::string &bytes) {
  HostTensor t;
  std::string error;
  EXPECT_TRUE(parseTensorProto(bytes, t, error)) << error;
  return t;
}

std::string parseError(const std::string &bytes) {
  HostTensor t;
  std::string error;
  EXPECT_FALSE(parseTensorProto(bytes, t, error));
  return error;
}

template <typename T> std::vector<uint8_t> bytesOf(std::vector<T> values) {
  std::vector<uint8_t> out(values.size() * sizeof(T));
  std::memcpy(out.data(), values.data(), out.size());
  return out;
}

onnx::TensorProto proto(int dataType, std::vector<int64_t> dims) {
  onnx::TensorProto p;
  p.set_name("t");
  p.set_data_type(dataType);
  for (int64_t d : dims)
    p.add_dims(d);
  return p;
}

std::string key(int field, int wireType) {
  return std::string(1, static_cast<char>(field << 3 | wireType));
}

} // namespace

TEST(TensorFileTest, TypedFieldsForEveryDType) {
  using TP = onnx::TensorProto;
  struct Case {
    TP p;
    DType dtype;
    std::vector<uint8_t> data;
  };
  std::vector<Case> cases;
  auto add = [&](TP p, DType d, std::vector<uint8_t> data) {
    cases.push_back({std::move(p), d, std::move(data)});
  };
  TP p = proto(TP::FLOAT, {2, 2});
  for (float v : {1.5f, -2.0f, 0.0f, 3e38f})
    p.add_float_data(v);
  add(p, DType::f32, bytesOf<float>({1.5f, -2.0f, 0.0f, 3e38f}));
  p = proto(TP::DOUBLE, {2});
  p.add_double_data(-0.25), p.add_double_data(1e300);
  add(p, DType::f64, bytesOf<double>({-0.25, 1e300}));
  p = proto(TP::INT64, {3});
  for (int64_t v : {int64_t(-1), int64_t(1) << 40, int64_t(7)})
    p.add_int64_data(v);
  add(p, DType::i64, bytesOf<int64_t>({-1, int64_t(1) << 40, 7}));
  p = proto(TP::INT32, {2});
  p.add_int32_data(-5), p.add_int32_data(1 << 30);
  add(p, DType::i32, bytesOf<int32_t>({-5, 1 << 30}));
  p = proto(TP::INT16, {2});
  p.add_int32_data(-300), p.add_int32_data(300);
  add(p, DType::i16, bytesOf<int16_t>({-300, 300}));
  p = proto(TP::UINT16, {1});
  p.add_int32_data(65535);
  add(p, DType::u16, bytesOf<uint16_t>({65535}));
  p = proto(TP::INT8, {2});
  p.add_int32_data(-128), p.add_int32_data(127);
  add(p, DType::i8, bytesOf<int8_t>({-128, 127}));
  p = proto(TP::UINT8, {2});
  p.add_int32_data(255), p.add_int32_data(0);
  add(p, DType::u8, bytesOf<uint8_t>({255, 0}));
  p = proto(TP::BOOL, {3});
  p.add_int32_data(1), p.add_int32_data(0), p.add_int32_data(1);
  add(p, DType::boolean, bytesOf<uint8_t>({1, 0, 1}));
  p = proto(TP::FLOAT16, {2});
  p.add_int32_data(0x3c00), p.add_int32_data(0xc000); // 1.0, -2.0
  add(p, DType::f16, bytesOf<uint16_t>({0x3c00, 0xc000}));
  p = proto(TP::BFLOAT16, {1});
  p.add_int32_data(0x3f80); // 1.0
  add(p, DType::bf16, bytesOf<uint16_t>({0x3f80}));
  p = proto(TP::UINT32, {1});
  p.add_uint64_data(4000000000u);
  add(p, DType::u32, bytesOf<uint32_t>({4000000000u}));
  p = proto(TP::UINT64, {1});
  p.add_uint64_data(~uint64_t(0));
  add(p, DType::u64, bytesOf<uint64_t>({~uint64_t(0)}));
  p = proto(TP::FLOAT, {}); // a scalar
  p.add_float_data(4);
  add(p, DType::f32, bytesOf<float>({4}));
  add(proto(TP::INT64, {0, 3}), DType::i64, {}); // an empty tensor

  for (const Case &c : cases) {
    SCOPED_TRACE(c.p.DebugString());
    HostTensor t = parseOk(c.p.SerializeAsString());
    EXPECT_EQ(t.desc.name, "t");
    EXPECT_EQ(t.desc.dtype, c.dtype);
    EXPECT_EQ(t.desc.shape,
              std::vector<int64_t>(c.p.dims().begin(), c.p.dims().end()));
    EXPECT_EQ(t.data, c.data);

    // The same values as raw_data, both ways: our writer is byte-identical
    // to libprotobuf's, and libprotobuf reads it back.
    onnx::TensorProto raw = proto(c.p.data_type(), {});
    *raw.mutable_dims() = c.p.dims();
    raw.set_raw_data(std::string(c.data.begin(), c.data.end()));
    EXPECT_EQ(parseOk(raw.SerializeAsString()).data, c.data);
    EXPECT_EQ(serializeTensorProto(t), raw.SerializeAsString());
    onnx::TensorProto back;
    ASSERT_TRUE(back.ParseFromString(serializeTensorProto(t)));
    EXPECT_EQ(back.raw_data(), raw.raw_data());
  }
}

TEST(TensorFileTest, PackedAndUnpackedEncodings) {
  // libprotobuf writes dims unpacked and typed data packed (onnx.proto is
  // proto2); other writers may do the opposite.
  std::string packedDims = key(1, 2) + "\x02\x02\x03";
  std::string unpackedFloats;
  for (float v : {1.f, 2.f, 3.f, 4.f, 5.f, 6.f}) {
    unpackedFloats += key(4, 5);
    unpackedFloats.append(reinterpret_cast<const char *>(&v), 4);
  }
  HostTensor t = parseOk(packedDims + key(2, 0) + "\x01" + unpackedFloats);
  EXPECT_EQ(t.desc.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(t.data, bytesOf<float>({1, 2, 3, 4, 5, 6}));

  // Unpacked int64 varints, including a 10-byte negative one.
  std::string s = key(1, 0) + "\x02" + key(2, 0) + "\x07" + key(7, 0) + "\x05" +
                  key(7, 0) +
                  std::string("\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 10);
  EXPECT_EQ(parseOk(s).data, bytesOf<int64_t>({5, -1}));
  // Unpacked double, unpacked uint64.
  double d = 2.5;
  s = key(1, 0) + "\x01" + key(2, 0) + "\x0b" + key(10, 1) +
      std::string(reinterpret_cast<const char *>(&d), 8);
  EXPECT_EQ(parseOk(s).data, bytesOf<double>({2.5}));
  s = key(2, 0) + "\x0d" + key(11, 0) + "\x09";
  EXPECT_EQ(parseOk(s).data, bytesOf<uint64_t>({9}));
}

TEST(TensorFileTest, UnknownFieldsAreSkipped) {
  onnx::TensorProto p = proto(onnx::TensorProto::FLOAT, {2});
  p.add_float_data(1), p.add_float_data(2);
  p.set_doc_string("documentation");
  p.mutable_segment()->set_begin(0);
  p.mutable_segment()->set_end(2);
  p.set_data_location(onnx::TensorProto::DEFAULT);
  auto *kv = p.add_external_data(); // ignored while data_location is DEFAULT
  kv->set_key("k"), kv->set_value("v");
  std::string bytes = p.SerializeAsString();
  // Field 99 (two-byte key) as varint, fixed64, length-delimited, fixed32
  // and a group holding a nested varint.
  auto key99 = [](int wt) { return std::string{char(0x98 | wt), '\x06'}; };
  bytes += key99(0) + "\x96\x01";
  bytes += key99(1) + std::string(8, 'a');
  bytes += key99(2) + "\x03xyz";
  bytes += key99(5) + std::string(4, 'b');
  bytes += key99(3) + key(1, 0) + "\x05" + key99(4);
  HostTensor t = parseOk(bytes);
  EXPECT_EQ(t.desc.shape, std::vector<int64_t>{2});
  EXPECT_EQ(t.data, bytesOf<float>({1, 2}));
}

/// The trained model bwc-run --save-weights OUT.onnx writes parses, with
/// libprotobuf and libonnx's ModelProto, as the template's model with the
/// listed state tensors appended to its initializers (a repeated `graph`
/// field merges), the other state left out.
TEST(TensorFileTest, TrainedModelMergesIntoTheTemplate) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  onnx::GraphProto *g = m.mutable_graph();
  g->set_name("g");
  g->add_node()->set_op_type("MatMul");
  *g->add_initializer() = proto(onnx::TensorProto::INT64, {1});
  g->mutable_initializer(0)->add_int64_data(7);
  Artifact a;
  a.modelTemplate = m.SerializeAsString();
  a.state = {{{"w", DType::f32, {2}}, 0, 0}, {{"adam.step", DType::f32, {}}, 0, 0},
             {{"b", DType::f32, {1}}, 0, 0}};
  a.modelParameters = {0, 2};
  std::vector<HostTensor> state = {{a.state[0].desc, bytesOf<float>({1, 2})},
                                   {a.state[1].desc, bytesOf<float>({3})},
                                   {a.state[2].desc, bytesOf<float>({4})}};
  std::string bytes, error;
  ASSERT_TRUE(serializeTrainedModel(a, state, bytes, error)) << error;
  onnx::ModelProto back;
  ASSERT_TRUE(back.ParseFromString(bytes));
  EXPECT_EQ(back.ir_version(), 8);
  EXPECT_EQ(back.graph().name(), "g");
  ASSERT_EQ(back.graph().node_size(), 1);
  ASSERT_EQ(back.graph().initializer_size(), 3);
  EXPECT_EQ(back.graph().initializer(0).name(), "t");
  EXPECT_EQ(back.graph().initializer(1).name(), "w");
  EXPECT_EQ(back.graph().initializer(1).raw_data(),
            std::string(reinterpret_cast<const char *>(state[0].data.data()),
                        8));
  EXPECT_EQ(back.graph().initializer(2).name(), "b");
  // No template: the error says what to do instead.
  a.modelTemplate.clear();
  EXPECT_FALSE(serializeTrainedModel(a, state, bytes, error));
  EXPECT_NE(error.find("give a folder for .pb files instead"),
            std::string::npos);
}

TEST(TensorFileTest, Errors) {
  using TP = onnx::TensorProto;
  TP p = proto(TP::FLOAT, {2, 3});
  p.add_float_data(1);
  EXPECT_EQ(parseError(p.SerializeAsString()),
            "TensorProto 't' (f32 2x3) needs 6 values but has 1");
  p = proto(TP::FLOAT, {2});
  p.set_raw_data(std::string(7, '\0'));
  EXPECT_EQ(parseError(p.SerializeAsString()),
            "TensorProto 't' (f32 2) needs 8 bytes but raw_data has 7");
  p = proto(TP::STRING, {1});
  p.add_string_data("hello");
  EXPECT_EQ(parseError(p.SerializeAsString()),
            "malformed TensorProto: string tensors are not supported");
  p = proto(TP::FLOAT, {1});
  p.set_data_location(TP::EXTERNAL);
  EXPECT_EQ(parseError(p.SerializeAsString()),
            "malformed TensorProto: tensors with external data are not "
            "supported");
  p = proto(TP::COMPLEX64, {1});
  EXPECT_EQ(parseError(p.SerializeAsString()),
            "TensorProto 't' has unsupported data_type 14");
  p = proto(TP::INT64, {1});
  p.add_float_data(1);
  EXPECT_EQ(parseError(p.SerializeAsString()),
            "TensorProto 't' (i64 1) stores its values in the wrong typed "
            "field");
  p = proto(TP::FLOAT, {-1});
  EXPECT_EQ(parseError(p.SerializeAsString()),
            "TensorProto 't' has a negative dimension");
  p = proto(TP::FLOAT, {1 << 30, 1 << 30, 1 << 30});
  EXPECT_EQ(parseError(p.SerializeAsString()), "TensorProto 't' is too large");
  EXPECT_EQ(parseError(key(2, 0) + "\x01" + key(1, 2) + "\x05\x01"),
            "malformed TensorProto: truncated field");
  EXPECT_EQ(parseError(key(2, 0) + "\x81\x80"),
            "malformed TensorProto: truncated varint");
  EXPECT_EQ(parseError(key(2, 0) + std::string(11, '\xff')),
            "malformed TensorProto: varint longer than 10 bytes");
  EXPECT_EQ(parseError(key(2, 0) + "\x01" + key(4, 2) +
                       std::string("\x03\x00\x00\x00", 4)),
            "malformed TensorProto: packed float_data has a partial value");
  EXPECT_EQ(parseError(key(8, 0) + "\x01"),
            "malformed TensorProto: name has wire type 0");
  EXPECT_EQ(parseError(key(15, 7)),
            "malformed TensorProto: invalid wire type 7");
  EXPECT_EQ(parseError(key(15, 4)),
            "malformed TensorProto: unexpected end-group");
  EXPECT_EQ(parseError(key(15, 3) + key(1, 0) + "\x01"),
            "malformed TensorProto: truncated varint");
}

TEST(TensorFileTest, TruncatedAtEveryOffsetNeverCrashes) {
  onnx::TensorProto p = proto(onnx::TensorProto::INT64, {3});
  p.clear_name(); // so that the last field is the data
  for (int64_t v : {int64_t(-1), int64_t(300), int64_t(1) << 50})
    p.add_int64_data(v);
  std::string bytes = p.SerializeAsString();
  for (size_t n = 0; n < bytes.size(); ++n) {
    HostTensor t;
    std::string error;
    EXPECT_FALSE(parseTensorProto(bytes.substr(0, n), t, error)) << n;
    EXPECT_FALSE(error.empty());
  }
}

TEST(TensorFileTest, RandomMutationsNeverCrash) {
  onnx::TensorProto p = proto(onnx::TensorProto::FLOAT, {2, 3});
  for (int i = 0; i < 6; ++i)
    p.add_float_data(i);
  p.set_doc_string("doc");
  std::string bytes = p.SerializeAsString();
  std::mt19937 rng(7);
  for (int iter = 0; iter < 20000; ++iter) {
    std::string bad = bytes;
    for (int e = 1 + rng() % 3; e > 0; --e)
      bad[rng() % bad.size()] = static_cast<char>(rng());
    HostTensor t;
    std::string error;
    if (parseTensorProto(bad, t, error))
      EXPECT_EQ(t.data.size(), t.desc.bytes());
    else
      EXPECT_FALSE(error.empty());
  }
}
