//===- BWCInterfaces.td - bwc dialect op interfaces ---------*- tablegen -*-===//
//
// The reverse-mode rule of every op (docs/passes/bwc-grad.md): each op says
// how the adjoints of its operands follow from the adjoint of its result, so
// bwc-grad is one sweep over the program and never a switch over op names.
//
//===----------------------------------------------------------------------===//
#ifndef BWC_DIALECT_BWC_IR_BWCINTERFACES_TD
#define BWC_DIALECT_BWC_IR_BWCINTERFACES_TD

include "mlir/IR/OpBase.td"

def BWC_DifferentiableOpInterface : OpInterface<"DifferentiableOpInterface"> {
  let description = [{
    An op's vector-Jacobian product: given the adjoint of its result (the
    gradient of a scalar loss with respect to it, same type as the result),
    builds the adjoint of each operand with the bwc builder `b`. An entry of
    `operandGrads` left null means the operand receives no gradient: an
    integer or boolean operand, or a function that is piecewise constant
    (floor, sign, comparisons). `wanted[i]` says whether operand i needs its
    adjoint at all, so rules skip work for constants. A rule that cannot
    differentiate the op as configured (a reflect pad, a cubic resize)
    emits an error on the op naming what is missing and fails.
  }];
  let cppNamespace = "::mlir::bwc";
  let methods = [
    InterfaceMethod<
      "Builds the operands' adjoints from the result's adjoint.",
      "::llvm::LogicalResult", "buildVJP",
      (ins "::mlir::bwc::BWCBuilder &":$b, "::mlir::Value":$resultGrad,
           "::llvm::ArrayRef<bool>":$wanted,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$operandGrads)>,
  ];
}

#endif // BWC_DIALECT_BWC_IR_BWCINTERFACES_TD
