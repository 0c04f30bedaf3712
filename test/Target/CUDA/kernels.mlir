// Kernel structure (gpu.func per kernel, drivers) and the key PTX of each
// emitter; ptxas runs on this file in the cuda-ptx-real-models ctest.
// Kernels appear in reverse launch order (outlining inserts each after the
// program function).
// RUN: bwc-compile %s --target=cuda --emit=gpu -o - | FileCheck %s --check-prefix=GPU
// RUN: bwc-compile %s --target=cuda --emit=ptx -o - | FileCheck %s --check-prefix=PTX
// RUN: bwc-compile %s --target=cuda --emit=ptx -o - | FileCheck %s --check-prefix=NOLIB
// NOLIB-NOT: __nv_

// Tests that a matmul is thread-per-output with the K loop inside.
// GPU: gpu.module @bwc_kernels
// GPU-LABEL: gpu.func @main_k2_matmul_bwc
// GPU-SAME: emitter = "thread_per_output"
// GPU: scf.for
// GPU: scf.for
// PTX: .visible .entry main_k2_matmul_bwc(
// PTX: mul.rn.f32
// PTX-NEXT: add.rn.f32

// Tests that softmax is one block per row: strided loop, xor shuffles,
// shared memory across warps between barriers, the reductions bound.
// GPU-LABEL: gpu.func @main_k1_fusion_reduction_bwc
// GPU-SAME: workgroup(%[[SMEM:.*]] : memref<32xf32, #gpu.address_space<workgroup>>)
// GPU-SAME: emitter = "row_reduction"
// GPU: gpu.shuffle  xor
// GPU: gpu.barrier
// GPU: memref.load %[[SMEM]]
// PTX: .visible .entry main_k1_fusion_reduction_bwc(
// PTX: .shared .align 4 .b8
// PTX: shfl.sync.bfly.b32
// PTX: bar.sync

// Tests that the elementwise kernel is a grid-stride loop of 4-wide groups
// whose result goes out as one aligned vector store (st.global.v4), with
// the same-shaped loads merged into ld.global.v4.
// GPU-LABEL: gpu.func @main_k0_fusion_loop_bwc(%{{.*}}: memref<4096xf32> {llvm.align = 16 : i64}, %{{.*}}: memref<4096xf32> {llvm.align = 16 : i64}, %{{.*}}: memref<4096xf32> {llvm.align = 16 : i64}) kernel
// GPU-SAME: emitter = "loop"
// GPU-SAME: known_block_size = array<i32: 256, 1, 1>
// GPU: scf.for
// GPU: vector.from_elements {{.*}} : vector<4xf32>
// GPU: vector.store {{.*}} {alignment = 16 : i64} : memref<4096xf32>, vector<4xf32>
// PTX: .visible .entry main_k0_fusion_loop_bwc(
// PTX: ld.global.v4
// PTX: st.global.v4
func.func @main(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>, %x: tensor<16x1024xf32>, %c: tensor<64x48xf32>, %w: tensor<48x32xf32>) -> (tensor<64x64xf32>, tensor<16x1024xf32>, tensor<64x32xf32>) {
  %0 = bwc.binary add %a, %b : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %1 = bwc.unary tanh %0 : (tensor<64x64xf32>) -> tensor<64x64xf32>
  %m = bwc.reduce max %x axes = [1] keepdims = true : (tensor<16x1024xf32>) -> tensor<16x1xf32>
  %d = bwc.binary sub %x, %m : (tensor<16x1024xf32>, tensor<16x1xf32>) -> tensor<16x1024xf32>
  %e = bwc.unary exp %d : (tensor<16x1024xf32>) -> tensor<16x1024xf32>
  %s = bwc.reduce sum %e axes = [1] keepdims = true : (tensor<16x1024xf32>) -> tensor<16x1xf32>
  %r = bwc.binary div %e, %s : (tensor<16x1024xf32>, tensor<16x1xf32>) -> tensor<16x1024xf32>
  %mm = bwc.matmul %c, %w : (tensor<64x48xf32>, tensor<48x32xf32>) -> tensor<64x32xf32>
  return %1, %r, %mm : tensor<64x64xf32>, tensor<16x1024xf32>, tensor<64x32xf32>
}
