//===- BWCOps.h - bwc dialect operations ------------------------*- C++ -*-===//
#ifndef BWC_DIALECT_BWC_IR_BWCOPS_H
#define BWC_DIALECT_BWC_IR_BWCOPS_H

#include "bwc/Dialect/BWC/IR/BWCDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "bwc/Dialect/BWC/IR/BWCEnums.h.inc"

namespace mlir::bwc {
class BWCBuilder;
} // namespace mlir::bwc

#include "bwc/Dialect/BWC/IR/BWCInterfaces.h.inc"

#define GET_OP_CLASSES
#include "bwc/Dialect/BWC/IR/BWCOps.h.inc"

#endif // BWC_DIALECT_BWC_IR_BWCOPS_H
