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

// -----

// Tests that a cp.async whose shared destination cannot be traced to a
// workgroup array is refused (its landing could not be checked).
module attributes {gpu.container_module} {
  gpu.module @bwc_kernels {
    llvm.func @k(%arg0: !llvm.ptr, %arg1: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel} {
      %d = llvm.addrspacecast %arg0 : !llvm.ptr to !llvm.ptr<3>
      %s = llvm.addrspacecast %arg1 : !llvm.ptr to !llvm.ptr<1>
      // expected-error @+1 {{cuda-sim cannot trace this cp.async destination to its shared array in kernel k}}
      nvvm.cp.async.shared.global %d, %s, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
      llvm.return
    }
  }
}

// -----

// Tests that an ldmatrix whose address cannot be traced to a workgroup
// array is refused.
module attributes {gpu.container_module} {
  gpu.module @bwc_kernels {
    llvm.func @k(%arg0: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel} {
      %d = llvm.addrspacecast %arg0 : !llvm.ptr to !llvm.ptr<3>
      // expected-error @+1 {{cuda-sim cannot trace this ldmatrix address to its shared array in kernel k}}
      %l = nvvm.ldmatrix %d {num = 4 : i32, layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>, eltType = #nvvm.ld_st_matrix_elt_type<b16>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
      llvm.return
    }
  }
}

// -----

// Tests that an ldmatrix other than m8n8 of b16 is refused.
module attributes {gpu.container_module} {
  gpu.module @bwc_kernels {
    llvm.mlir.global internal @tile() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<256 x i8>
    llvm.func @k(%arg0: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel} {
      %d = llvm.mlir.addressof @tile : !llvm.ptr<3>
      // expected-error @+1 {{cuda-sim models ldmatrix m8n8 of b16 (x1, x2, x4) only, in kernel k}}
      %l = nvvm.ldmatrix %d {num = 1 : i32, layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 16>, eltType = #nvvm.ld_st_matrix_elt_type<b8x16.b6x16_p32>} : (!llvm.ptr<3>) -> i32
      llvm.return
    }
  }
}
