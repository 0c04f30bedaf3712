//===- WeightsTemplate.h - The model a training step writes back -*- C++ -*-===//
//
// `bwc-run --save-weights OUT.onnx` writes the trained model as ONNX, but the
// runtime reads no ONNX (no protobuf, no libonnx). So the compiler stores in
// a training artifact the model without its trained parameters, and the
// runtime appends one `graph { initializer: ... }` record per parameter:
// protobuf merges a repeated embedded message field, so the file parses as
// the model with those initializers (docs/training.md, "Saving").
//
//===----------------------------------------------------------------------===//
#ifndef BWC_IMPORT_ONNX_WEIGHTSTEMPLATE_H
#define BWC_IMPORT_ONNX_WEIGHTSTEMPLATE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <string>
#include <vector>

namespace mlir::bwc {

/// A tensor the trained model takes from the step's state.
struct TrainedTensor {
  std::string name;
  /// ONNX TensorProto.DataType.
  int32_t dtype = 0;
  std::vector<int64_t> shape;
};

/// `model` (a serialized ModelProto: OnnxImportOptions::modelCopy) without
/// the top-level initializers named by `state`, in `out`; `parameters`
/// receives the index into `state` of each one removed (state entries that
/// name no initializer, an optimizer's moments, are left out). An
/// initializer whose data type or shape differs from its state entry's is
/// an error naming it (the runtime writes the state's bytes as they are).
bool makeWeightsTemplate(llvm::StringRef model,
                         llvm::ArrayRef<TrainedTensor> state, std::string &out,
                         std::vector<uint32_t> &parameters,
                         std::string &error);

} // namespace mlir::bwc

#endif // BWC_IMPORT_ONNX_WEIGHTSTEMPLATE_H
