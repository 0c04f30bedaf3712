// RUN: bwc-opt %s --split-input-file --bwc-cuda-sim-host -verify-diagnostics

// Tests that an NVVM op without a host model is an error naming it and
// the kernel.
module attributes {gpu.container_module} {
  gpu.module @bwc_kernels {
    llvm.func @k(%arg0: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel} {
      // expected-error @+1 {{cuda-sim cannot emulate 'nvvm.read.ptx.sreg.clock' in kernel k}}
      %0 = nvvm.read.ptx.sreg.clock : i32
      llvm.return
    }
  }
}

// -----

// Tests that a global other than a workgroup array is refused.
module attributes {gpu.container_module} {
  gpu.module @bwc_kernels {
    llvm.mlir.global internal constant @table(dense<1.0> : tensor<4xf32>) {addr_space = 1 : i32} : !llvm.array<4 x f32>
    llvm.func @k(%arg0: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel} {
      // expected-error @+1 {{cuda-sim has no host model for global @table (only workgroup arrays) in kernel k}}
      %0 = llvm.mlir.addressof @table : !llvm.ptr<1>
      llvm.return
    }
  }
}

// -----

// Tests that a memory op the access hook does not cover is refused.
module attributes {gpu.container_module} {
  gpu.module @bwc_kernels {
    llvm.func @k(%arg0: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel} {
      %c = llvm.mlir.constant(1.0 : f32) : f32
      // expected-error @+1 {{cuda-sim has no access check for 'llvm.atomicrmw' in kernel k}}
      %0 = llvm.atomicrmw fadd %arg0, %c acq_rel : !llvm.ptr, f32
      llvm.return
    }
  }
}

// -----

// Tests that a function that is not a kernel is refused.
module attributes {gpu.container_module} {
  gpu.module @bwc_kernels {
    // expected-error @+1 {{expects only kernels in the gpu.module}}
    llvm.func @helper() {
      llvm.return
    }
  }
}

// -----

// Tests that the pass needs the kernels' gpu.module.
// expected-error @+1 {{expects a gpu.module @bwc_kernels}}
module {
}
