//===- NNOps.cpp - ONNX NN ops into bwc ---------------------------===//
#include "NodeImporter.h"

using namespace mlir;
using namespace mlir::bwc;
using namespace mlir::bwc::onnx_import;

void onnx_import::registerNNHandlers(HandlerTable &table) {}
