//===- Passes.td - bwc conversion passes -------------------*- tablegen -*-===//
#ifndef BWC_CONVERSION_PASSES_TD
#define BWC_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// BWCToLinalg
//===----------------------------------------------------------------------===//

def ConvertBWCToLinalgPass : Pass<"convert-bwc-to-linalg"> {
  let summary = "Lower bwc ops to linalg, tensor, arith and math on tensors";
  let description = [{
    Every bwc op becomes destination-style tensor code: elementwise ops and
    broadcasts are `linalg.generic` with broadcasting indexing maps,
    reductions are `linalg.generic` with reduction iterators, matmul,
    convolution and pooling are `linalg.generic` contractions/windows, data
    movement ops are `linalg.generic` with index arithmetic (`linalg.index`
    plus `tensor.extract`) or plain index maps. The result bufferizes with
    One-Shot Bufferize. Backends (CPU loops, GPU kernels) start from here.
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect",
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
  ];
}

#endif // BWC_CONVERSION_PASSES_TD
