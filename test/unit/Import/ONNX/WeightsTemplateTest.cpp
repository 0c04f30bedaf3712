//===- WeightsTemplateTest.cpp - The model a training step writes back ----===//
#include "bwc/Import/ONNX/WeightsTemplate.h"

#include "onnx/onnx_pb.h"
#include <gtest/gtest.h>

using namespace mlir::bwc;

namespace {

onnx::ModelProto modelWith(std::vector<std::string> names) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  for (const std::string &n : names) {
    onnx::TensorProto *t = m.mutable_graph()->add_initializer();
    t->set_name(n);
    t->set_data_type(onnx::TensorProto::FLOAT);
    t->add_dims(2);
    t->set_raw_data(std::string(8, '\0'));
  }
  return m;
}

} // namespace

TEST(WeightsTemplateTest, RemovesTheTrainedInitializers) {
  std::string model = modelWith({"w", "frozen", "b"}).SerializeAsString();
  std::vector<TrainedTensor> state = {{"b", 1, {2}},
                                      {"adam.m.b", 1, {2}},
                                      {"w", 1, {2}}};
  std::string out, error;
  std::vector<uint32_t> params;
  ASSERT_TRUE(makeWeightsTemplate(model, state, out, params, error)) << error;
  EXPECT_EQ(params, (std::vector<uint32_t>{0, 2}));
  onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(out));
  ASSERT_EQ(m.graph().initializer_size(), 1);
  EXPECT_EQ(m.graph().initializer(0).name(), "frozen");
  EXPECT_EQ(m.ir_version(), 8);
}

TEST(WeightsTemplateTest, NamesAMismatchedInitializer) {
  std::string model = modelWith({"w"}).SerializeAsString();
  std::string out, error;
  std::vector<uint32_t> params;
  EXPECT_FALSE(makeWeightsTemplate(model, {{"w", 10, {2}}}, out, params,
                                   error));
  EXPECT_EQ(error, "initializer 'w' differs in data type or shape from the "
                   "trained state tensor of that name");
  EXPECT_FALSE(makeWeightsTemplate(model, {{"w", 1, {1, 2}}}, out, params,
                                   error));
  EXPECT_FALSE(makeWeightsTemplate("\xff\xff", {}, out, params, error));
  EXPECT_EQ(error, "the model copy does not parse as a ModelProto");
}
