//===- BWCDialect.cpp - bwc dialect registration --------------------------===//
#include "bwc/Dialect/BWC/IR/BWCDialect.h"
#include "bwc/Dialect/BWC/IR/BWCOps.h"

using namespace mlir;
using namespace mlir::bwc;

#include "bwc/Dialect/BWC/IR/BWCDialect.cpp.inc"

void BWCDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "bwc/Dialect/BWC/IR/BWCOps.cpp.inc"
      >();
}

Operation *BWCDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                           Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, elements);
}
