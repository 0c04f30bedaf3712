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

//===----------------------------------------------------------------------===//
// Elemental kernels (lib/Target/CPU/ElementalKernels.cpp)
//===----------------------------------------------------------------------===//

def EmitElementalKernelsPass : Pass<"bwc-emit-elemental-kernels",
                                    "::mlir::ModuleOp"> {
  let summary = "Rewrite every kernel into scalar loops with the elemental emitter";
  let description = [{
    Each `bwc.kernel` function on tensors becomes a function on flat
    buffers, `(memref<N x T> in..., memref<N x T> out...) -> ()` (the CPU
    kernel ABI: bare pointers after the LLVM conversion), whose body is
    scf loops over the elements computed by the ElementalEmitter
    (docs/targets/elemental.md). A kernel whose `bwc.reduce` ops share one
    row structure (a `reduction` fusion) runs a row loop: each reduction of
    the row once, then the row's outputs; other kernels loop over each
    output's elements. With `conv-via-gemm`, every float direct
    convolution with groups 1 is computed as the sum over k of its
    GemmView's A(m, k) * B(k, n) (include/bwc/Analysis/GemmView.h), an
    element whose view index does not map back to itself is NaN: the
    CPU check of the implicit-GEMM indices the CUDA driver uses. The driver records its choice as
    `bwc.elemental = "rows"` or `"elements"` on the function. With
    `polynomial-math`, math functions become the polynomial approximations
    the GPU uses, so the CPU checks the GPU's math.

    Example:
    ```mlir
    func.func private @k(%a: tensor<4xf32>) -> tensor<4xf32> attributes {bwc.kernel}
    // becomes
    func.func private @k(%a: memref<4xf32>, %out: memref<4xf32>)
        attributes {bwc.kernel, bwc.elemental = "elements"} { scf.for ... }
    ```
  }];
  let options = [
    Option<"polynomialMath", "polynomial-math", "bool", "true",
           "Expand math functions into polynomial approximations">,
    Option<"convViaGemm", "conv-via-gemm", "bool", "false",
           "Compute every float direct convolution with groups 1 through "
           "its GemmView (the implicit GEMM the CUDA contraction_tiled "
           "driver stages), a CPU check of the view's index arithmetic">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
  ];
}

//===----------------------------------------------------------------------===//
// bf16 memory as i16 (lib/Target/CPU/Bf16MemoryAsI16.cpp)
//===----------------------------------------------------------------------===//

def Bf16MemoryAsI16Pass : Pass<"bwc-bf16-memory-as-i16", "::mlir::ModuleOp"> {
  let summary = "Load, store and select bf16 values as i16 in the LLVM dialect";
  let description = [{
    The CPU pipeline computes bf16 arithmetic in f32 and expands the
    conversions into integer arithmetic, so no bf16 libcall is asked for.
    What is left are bf16 values that are only moved: loads, stores,
    constants and selects of copy kernels (broadcast, transpose, pad). The
    x86 back end promotes such a value to f32 when it shuffles it, and
    truncates it back with `__truncsfbf2` when storing it: a libcall per
    element, and a symbol Debian 12's libgcc does not have. This pass gives
    every such operation the i16 (or vector of i16) type of the same bits,
    with bitcasts where a bf16 value meets other code, which LLVM then folds
    away: a bf16 copy becomes an integer copy.

    Example:
    ```mlir
    %v = llvm.load %p : !llvm.ptr -> bf16
    llvm.store %v, %q : bf16, !llvm.ptr
    // becomes
    %0 = llvm.load %p : !llvm.ptr -> i16
    %v = llvm.bitcast %0 : i16 to bf16
    %1 = llvm.bitcast %v : bf16 to i16
    llvm.store %1, %q : i16, !llvm.ptr
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // BWC_CONVERSION_PASSES_TD
