//===- BWCDialect.h - bwc dialect declaration -------------------*- C++ -*-===//
#ifndef BWC_DIALECT_BWC_IR_BWCDIALECT_H
#define BWC_DIALECT_BWC_IR_BWCDIALECT_H

#include "mlir/IR/Dialect.h"

#include "bwc/Dialect/BWC/IR/BWCDialect.h.inc"

#endif // BWC_DIALECT_BWC_IR_BWCDIALECT_H
