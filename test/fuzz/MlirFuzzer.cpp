//===- MlirFuzzer.cpp - libFuzzer target: bwc-dialect .mlir text ----------===//
//
// Text in the bwc dialect (the form `bwc-opt` reads and bwc-compile accepts
// besides ONNX): parse, verify and the whole CPU pipeline up to the
// artifact (FuzzCompile.h says what is checked). The seeds are the bwc
// programs of the lit tests; the dictionary holds the dialect's op names,
// types and attributes.
//
// scripts/fuzz.sh mlir SECONDS builds and runs it.
//
//===----------------------------------------------------------------------===//

#include "FuzzCompile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::bwc::fuzz::compileInput(data, size, mlir::bwc::ModelSource::Format::mlir);
  return 0;
}
