//===- Passes.h - bwc conversion passes -------------------------*- C++ -*-===//
#ifndef BWC_CONVERSION_PASSES_H
#define BWC_CONVERSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;
class TypeConverter;
namespace bwc {

#define GEN_PASS_DECL
#include "bwc/Conversion/Passes.h.inc"

/// Patterns lowering every bwc op to linalg/tensor/arith/math. `converter`
/// maps unsigned-integer tensors to signless ones (see BWCTypeConverter).
void populateBWCToLinalgPatterns(const TypeConverter &converter,
                                 RewritePatternSet &patterns);

#define GEN_PASS_REGISTRATION
#include "bwc/Conversion/Passes.h.inc"

} // namespace bwc
} // namespace mlir

#endif // BWC_CONVERSION_PASSES_H
