//===- WeightsTemplate.cpp - The model a training step writes back --------===//
//
// See include/bwc/Import/ONNX/WeightsTemplate.h.
//
//===----------------------------------------------------------------------===//
#include "bwc/Import/ONNX/WeightsTemplate.h"

#include "llvm/ADT/StringMap.h"
#include "onnx/onnx_pb.h"

#include <algorithm>
#include <climits>

using namespace mlir::bwc;

bool mlir::bwc::makeWeightsTemplate(llvm::StringRef model,
                                    llvm::ArrayRef<TrainedTensor> state,
                                    std::string &out,
                                    std::vector<uint32_t> &parameters,
                                    std::string &error) {
  onnx::ModelProto m;
  if (model.size() > size_t(INT_MAX) ||
      !m.ParseFromArray(model.data(), int(model.size()))) {
    error = "the model copy does not parse as a ModelProto";
    return false;
  }
  llvm::StringMap<uint32_t> byName;
  for (auto [i, t] : llvm::enumerate(state))
    byName[t.name] = uint32_t(i);
  parameters.clear();
  auto *inits = m.mutable_graph()->mutable_initializer();
  for (int i = inits->size() - 1; i >= 0; --i) {
    const onnx::TensorProto &init = inits->Get(i);
    auto it = byName.find(init.name());
    if (it == byName.end())
      continue;
    const TrainedTensor &t = state[it->second];
    std::vector<int64_t> dims(init.dims().begin(), init.dims().end());
    if (init.data_type() != t.dtype || dims != t.shape) {
      error = "initializer '" + init.name() +
              "' differs in data type or shape from the trained state "
              "tensor of that name";
      return false;
    }
    parameters.push_back(it->second);
    byName.erase(it);
    inits->DeleteSubrange(i, 1);
  }
  // In the order of the state list, as the runtime appends them.
  std::sort(parameters.begin(), parameters.end());
  if (!m.SerializeToString(&out)) {
    error = "the model cannot be serialized (over 2 GiB?)";
    return false;
  }
  return true;
}
