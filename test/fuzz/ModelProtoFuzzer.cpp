//===- ModelProtoFuzzer.cpp - libFuzzer target: ONNX models, mutated as such =//
//
// Structure-aware: libFuzzer's custom mutator parses the input as a
// ModelProto and applies 1 to 3 mutations of ModelMutator.h (graphs rewired,
// attributes, shapes and dtypes changed), so that nearly every input is a
// valid protobuf that reaches the importer's graph logic and the passes
// behind it, where blind byte mutations mostly end in the protobuf parser.
// An input that does not parse gets libFuzzer's byte mutations until it
// does. The input then runs like OnnxFuzzer.cpp's: import, verify, the
// whole CPU pipeline to the artifact (FuzzCompile.h).
//
// Debian has no libprotobuf-mutator, which ONNX Runtime's structure-aware
// target uses; the mutations here are ONNX-specific rather than generic
// field edits, which is what reaches the importer's checks.
//
// scripts/fuzz.sh modelproto SECONDS builds and runs it.
//
//===----------------------------------------------------------------------===//

#include "FuzzCompile.h"
#include "ModelMutator.h"

#include <cstring>

extern "C" __attribute__((weak)) size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t maxSize);

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::bwc::fuzz::compileInput(data, size, mlir::bwc::ModelSource::Format::onnx);
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size,
                                          size_t maxSize, unsigned int seed) {
  onnx::ModelProto model;
  if (!model.ParseFromArray(data, static_cast<int>(size)))
    return LLVMFuzzerMutate(data, size, maxSize);
  std::mt19937_64 rng(seed);
  std::string kind;
  int count = 1 + static_cast<int>(rng() % 3);
  for (int i = 0; i < count; ++i)
    mlir::bwc::fuzz::mutateModel(model, rng, kind);
  std::string bytes = model.SerializeAsString();
  if (bytes.empty() || bytes.size() > maxSize)
    return LLVMFuzzerMutate(data, size, maxSize);
  std::memcpy(data, bytes.data(), bytes.size());
  return bytes.size();
}
