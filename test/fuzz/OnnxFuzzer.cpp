//===- OnnxFuzzer.cpp - libFuzzer target: raw ONNX bytes ------------------===//
//
// Raw bytes as a serialized ONNX ModelProto: import, verify and the whole
// CPU pipeline up to the artifact (FuzzCompile.h says what is checked).
// libFuzzer mutates the bytes blindly; ModelProtoFuzzer.cpp mutates the
// same inputs as models.
//
// scripts/fuzz.sh onnx SECONDS builds and runs it (clang-22, libFuzzer,
// AddressSanitizer and UndefinedBehaviorSanitizer).
//
//===----------------------------------------------------------------------===//

#include "FuzzCompile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::bwc::fuzz::compileInput(data, size, mlir::bwc::ModelSource::Format::onnx);
  return 0;
}
