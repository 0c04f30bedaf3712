//===- DataMovementOps.cpp - ONNX DataMovement ops into bwc ---------------------------===//
#include "NodeImporter.h"

using namespace mlir;
using namespace mlir::bwc;
using namespace mlir::bwc::onnx_import;

void onnx_import::registerDataMovementHandlers(HandlerTable &table) {}
