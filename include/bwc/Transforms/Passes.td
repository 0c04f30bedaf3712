//===- Passes.td - bwc graph and program passes ------------*- tablegen -*-===//
#ifndef BWC_TRANSFORMS_PASSES_TD
#define BWC_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// Program structure
//===----------------------------------------------------------------------===//

def OutlineKernelsPass : Pass<"bwc-outline-kernels", "::mlir::ModuleOp"> {
  let summary = "Outline every kernel of the program into its own function";
  let description = [{
    Each op of the program function (`main` by default) other than constants
    becomes one kernel: a private `func.func` marked `bwc.kernel`, called
    from the program function. A kernel is what one launch runs on every
    backend. Small constants (at most `inline-constant-elements` elements)
    are cloned into the kernel as literals; larger ones (weights) are passed
    as arguments. Until fusion (M1.4) forms larger regions, each kernel
    holds one op.

    Example:
    ```mlir
    %y = bwc.unary exp %x : (tensor<4xf32>) -> tensor<4xf32>
    // becomes
    %y = func.call @main_k0_unary(%x) : (tensor<4xf32>) -> tensor<4xf32>
    ```
  }];
  let options = [
    Option<"funcName", "func", "std::string", "\"main\"",
           "The program function">,
    Option<"inlineConstantElements", "inline-constant-elements", "int64_t",
           "16", "Constants up to this many elements are cloned into kernels">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def KernelsToBuffersPass : Pass<"bwc-kernels-to-buffers", "::mlir::ModuleOp"> {
  let summary = "Give kernels the buffer ABI: memref inputs, then memref outputs";
  let description = [{
    Rewrites every `bwc.kernel` function from tensors to destination-passing
    style on memrefs: `(in0, ..., out0, ...) -> ()`. Inputs are read through
    `bufferization.to_tensor restrict`, results are written with
    `bufferization.materialize_in_destination ... restrict writable`, so that
    One-Shot Bufferize computes straight into the caller's buffers. This is
    the calling convention of every launch in the artifact.
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect",
                           "::mlir::memref::MemRefDialect"];
}

def CopiesToLinalgPass : Pass<"bwc-copies-to-linalg"> {
  let summary = "Rewrite memref.copy as linalg.copy";
  let description = [{
    Bufferization inserts `memref.copy`, which the LLVM lowering turns into
    a call to MLIR's C runner utilities when the copy is strided. The
    runtime does not ship those, so copies become `linalg.copy` and lower to
    loops like every other kernel body.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

#endif // BWC_TRANSFORMS_PASSES_TD
