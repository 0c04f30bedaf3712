//===- Passes.td - CUDA target passes ----------------------*- tablegen -*-===//
#ifndef BWC_TARGET_CUDA_PASSES
#define BWC_TARGET_CUDA_PASSES

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

def VectorizeGpuLoadsPass : Pass<"bwc-vectorize-gpu-loads", "::mlir::ModuleOp"> {
  let summary = "Merge consecutive scalar loads of a kernel buffer into "
                "vector loads";
  let description = [{
    In every gpu.func, scalar `memref.load`s of one 1-D kernel buffer in
    one block, at `base + c` for consecutive constants c, with no op that
    may write memory between them, become one `vector.load` (up to 16
    bytes) and `vector.extract`s, when the address is provably aligned to
    the vector's size: `base` a known multiple of the width (products with
    constants) and the buffer argument's `llvm.align` at least the vector's
    bytes. LLVM's NVPTX back end would merge them into the same
    `ld.global.v4` (its load/store vectorizer); doing it in the gpu.module
    makes cuda-sim, which starts from the NVVM-level IR, issue and count
    the accesses as the GPU does.

    Since 2026-12-04 the index is read as the elemental emitter builds it:
    first (a + b * C) mod C = a and (a + b * C) div C = b where a < C is
    evident (a constant, x mod C', min(x, C')), then CSE of the
    gpu.module (each element's index is computed on its own); an index is
    (sum of terms + c) [mod M] + other terms, where ((x div d_i) mod n_i)
    * d_i with d_0 = 1 and d_(i+1) = d_i n_i are x mod (d_k n_k)
    (delinearize-then-linearize at any depth), and loads whose term sets
    agree and whose constants are consecutive merge (a modulo group only
    within one period).
  }];
  let dependentDialects = ["::mlir::vector::VectorDialect",
                           "::mlir::arith::ArithDialect"];
}

//===----------------------------------------------------------------------===//
// cuda-sim
//===----------------------------------------------------------------------===//

def CudaSimHostPass : Pass<"bwc-cuda-sim-host", "::mlir::ModuleOp"> {
  let summary = "Lower the NVVM-level gpu.module @bwc_kernels for the host "
                "(cuda-sim)";
  let description = [{
    Takes the module holding `gpu.module @bwc_kernels` after the same NVVM
    conversion the PTX path runs (`lowerGpuModuleToNVVM`) and makes it a
    host module whose kernels call the cuda-sim emulator through the hook
    table `@__bwcsim_hooks` (include/bwc/Runtime/CudaSim.h):

    - `nvvm.read.ptx.sreg.*` (thread, block, grid ids and sizes, lane id)
      become calls of the `sreg` hook;
    - `nvvm.barrier0` calls the `barrier` hook, `nvvm.shfl.sync` the
      `shfl` hook with its operands exactly as the NVVM lowering encodes
      them (member mask, offset, mask-and-clamp), `nvvm.mma.sync`
      (m16n8k16, f16/bf16 operands, f32 accumulators) the `mma` hook;
    - each workgroup (address space 3) global a kernel uses becomes one
      of its shared arrays, at a 16-byte aligned offset of the block's
      shared arena, addressed through the `shared` hook;
    - every `llvm.load` and `llvm.store` not on the thread's stack first
      passes its address through the `access` hook, which returns the
      pointer to use.

    Each hook call carries a site number. The decisions are attributes:
    `bwc.sim.sites` on the module lists every site (kernel, kind, space,
    bytes, alignment, the parameter or shared array the address derives
    from, location) and `bwc.sim.kernel` on each kernel its parameter
    count, shared arrays and whether it synchronizes. Finally the kernels
    leave the gpu.module: each becomes an internal body behind an exported
    `void <kernel>(void **params)` that reads the device pointers
    `cuLaunchKernel` passes. Any NVVM op without a host model, or a memory
    op the hooks do not cover, is an error naming it and its kernel.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // BWC_TARGET_CUDA_PASSES
