//===- ModelMutator.h - Structure-aware mutations of ONNX models -*- C++ -*-===//
//
// Mutations that keep a ModelProto a valid protobuf but change the graph the
// way a broken exporter or a hostile file would: nodes dropped, duplicated,
// reordered or rewired to another value, op types swapped, attributes
// dropped, retyped or set to extreme values, shapes and element types of
// inputs and initializers changed, initializer bytes cut, the opset
// changed, subgraphs reached. Shared by the structure-aware fuzz target
// (ModelProtoFuzzer.cpp) and the importer's robustness driver
// (test/unit/Import/ONNX/ImportRobustness.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef BWC_TEST_FUZZ_MODELMUTATOR_H
#define BWC_TEST_FUZZ_MODELMUTATOR_H

#include "onnx/onnx_pb.h"

#include <random>
#include <string>

namespace mlir::bwc::fuzz {

/// Applies one structural mutation to `model`, chosen by `rng`; `kind`
/// names it (for the robustness driver's tally). A mutation that finds
/// nothing to act on leaves the model as it was.
void mutateModel(onnx::ModelProto &model, std::mt19937_64 &rng,
                 std::string &kind);

} // namespace mlir::bwc::fuzz

#endif // BWC_TEST_FUZZ_MODELMUTATOR_H
