// RUN: not bwc-compile %s --target=cuda --emit=ptx -o /dev/null 2>&1 | FileCheck %s
// RUN: not bwc-compile %s --target=cpu --emit=ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=EMIT
// RUN: not bwc-compile %s --target=cuda --sm-count=0 -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM
// RUN: env BWC_PTXAS=/bin/false not bwc-compile %S/kernels.mlir --target=cuda -o /dev/null 2>&1 | FileCheck %s --check-prefix=PTXAS

// Tests that a math function without a libdevice-free GPU lowering (exp on
// f64: the polynomial approximations are f32) is an error naming the op
// and the kernel, and that bad options and a failing ptxas are reported.
// CHECK: error: expects math ops with a GPU lowering that needs no libdevice but got 'math.exp' on 'f64' in kernel main_k0_unary_exp_bwc
// EMIT: bwc-compile: --emit expects artifact, or ptx, gpu or sim with --target=cuda, or llvm with --target=cpu, but got 'ptx' for --target=cpu
// SM: bwc-compile: --sm-count expects a positive count
// PTXAS: error: expects ptxas (/bin/false) to assemble the PTX but it failed (exit 1)
func.func @main(%x: tensor<8xf64>) -> tensor<8xf64> {
  %0 = bwc.unary exp %x : (tensor<8xf64>) -> tensor<8xf64>
  return %0 : tensor<8xf64>
}
