// Kernel structure (gpu.func per kernel, drivers) and the key PTX of each
// emitter; ptxas runs on this file in the cuda-ptx-real-models ctest.
// Kernels appear in reverse launch order (outlining inserts each after the
// program function).
// RUN: bwc-compile %s --target=cuda --emit=gpu -o - | FileCheck %s --check-prefix=GPU
// RUN: bwc-compile %s --target=cuda --emit=ptx -o - | FileCheck %s --check-prefix=PTX
// RUN: bwc-compile %s --target=cuda --emit=ptx -o - | FileCheck %s --check-prefix=NOLIB
// NOLIB-NOT: __nv_

// GPU: gpu.module @bwc_kernels

// Tests that two transposes with one permutation and input shape (an
// STFT's real and imaginary parts, then pow/pow/add) are each staged
// through their own 32x33 shared tile: both operands are stored to their
// tile in each of the 4 read rows, both tiles are loaded in each of the 4
// write rows (1 x ceil(257/32) x ceil(40/32) = 18 tiles).
// GPU-LABEL: gpu.func @main_k7_fusion_loop_bwc
// GPU-SAME: workgroup(%[[RE:.*]] : memref<32x33xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[IM:.*]] : memref<32x33xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// GPU-SAME: emitter = "transpose_tiled"
// GPU-SAME: grid = 18 : i64
// GPU-COUNT-4: memref.store %{{.*}}, %[[IM]]
// GPU: gpu.barrier
// GPU: memref.load %[[RE]]
// GPU-NEXT: memref.load %[[IM]]
// GPU: gpu.barrier
// PTX-LABEL: .visible .entry main_k7_fusion_loop_bwc(
// PTX-COUNT-8: st.shared.b32
// PTX: bar.sync
// PTX-COUNT-8: ld.shared.b32

// Tests that exp, an NCHW -> NHWC transpose and a per-channel bias add go
// through 32x33 shared tiles: the transpose's operand (exp of the input)
// is read with the warp along W (the input's innermost dimension), the
// outputs are emitted with the warp along C from the tile read as
// [tx][row], the bias read at the output index; 4 guarded rows per thread
// on each side of a barrier, and another barrier before the next tile.
// GPU-LABEL: gpu.func @main_k6_fusion_loop_bwc
// GPU-SAME: workgroup(%[[TILE:.*]] : memref<32x33xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// GPU-SAME: emitter = "transpose_tiled"
// GPU-SAME: tile = 32 : i64
// GPU: %[[TX:.*]] = arith.remui %thread_id_x, %c32
// GPU: scf.for
// GPU-COUNT-4: math.exp
// GPU: gpu.barrier
// GPU: scf.if
// GPU-NEXT: memref.load %[[TILE]][%[[TX]], %{{.*}}]
// GPU: arith.addf
// GPU: gpu.barrier
// PTX-LABEL: .visible .entry main_k6_fusion_loop_bwc(
// PTX-COUNT-4: st.shared.b32
// PTX: bar.sync
// PTX-COUNT-4: ld.shared.b32

// Tests that a sum over axis 0 (512x96, then tanh) is a column reduction:
// 32 adjacent outputs x 32 slices per block (3 column groups: the biggest
// block), each slice's partial in shared memory, the slices combined after
// a barrier, the epilogue and the store by slice 0 of in-range columns; no
// shuffles.
// GPU-LABEL: gpu.func @main_k5_fusion_reduction_bwc
// GPU-SAME: workgroup(%[[SLAB:.*]] : memref<1024xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// GPU-SAME: columns_per_block = 32 : i64
// GPU-SAME: emitter = "column_reduction"
// GPU-SAME: slices = 32 : i64
// GPU: scf.for
// GPU: memref.store %{{.*}}, %[[SLAB]]
// GPU: gpu.barrier
// GPU-COUNT-32: memref.load %[[SLAB]]
// GPU: gpu.barrier
// GPU: scf.if
// GPU: math.tanh
// GPU: memref.store
// PTX-LABEL: .visible .entry main_k5_fusion_reduction_bwc(
// PTX-NOT: shfl.sync
// PTX: st.shared.b32
// PTX: bar.sync
// PTX-NOT: shfl.sync

// Tests that short f16 rows (96) get a warp per row, 8 rows per block:
// shuffles only (no shared memory, no barrier), the row in registers in
// pairs (vector 2: 2 pair loads per thread, unrolled, the second pair
// guarded as a whole).
// GPU-LABEL: gpu.func @main_k4_reduce_bwc
// GPU-NOT: workgroup
// GPU-SAME: cache_row = 1
// GPU-SAME: rows_per_block = 8 : i64, threads_per_row = 32 : i64, vector = 2 : i64
// GPU: gpu.shuffle  xor
// GPU-NOT: gpu.barrier
// PTX-LABEL: .visible .entry main_k4_reduce_bwc(
// PTX-NOT: bar.sync
// PTX: shfl.sync.bfly.b32
// PTX-NOT: bar.sync
// PTX-COUNT-2: ld.global.v2.b16
// PTX-NOT: ld.global
// PTX-NOT: bar.sync

// Tests that a LayerNorm (row 200: 64 threads per row, 4 rows per block)
// reads its row once (vector 4: one 16-byte load per thread, guarded as a
// group), the second reduction and the epilogue from registers, gamma
// separately (one more 16-byte load in the epilogue: its 4 elements at
// (row * 200 + 4t + j) mod 200, merged since 2026-12-04; 4 scalar loads
// before), and stores 4 consecutive outputs with one st.global.v4.
// GPU-LABEL: gpu.func @main_k3_fusion_reduction_bwc
// GPU-SAME: workgroup
// GPU-SAME: cache_row = 1
// GPU-SAME: rows_per_block = 4 : i64, threads_per_row = 64 : i64, vector = 4 : i64
// PTX-LABEL: .visible .entry main_k3_fusion_reduction_bwc(
// PTX: ld.global.v4.b32
// PTX: bar.sync
// PTX-NOT: ld.global.b32
// PTX: ld.global.v4.b32
// PTX-NOT: ld.global
// PTX: st.global.v4.b32

// Tests that an f32 matmul (64x48 @ 48x32) is contraction_tiled through
// the 3-stage pipeline: A [64][16] and B [16][64] f32 stages filled by
// 16-byte cp.async chunks of 4 elements (both operands are kernel
// arguments, K = 48 and N = 32 multiples of 4), tiles 0 and 1 in the
// prologue, 3 K steps each waiting for its tile and a barrier, then the
// 16-step inner loop of 16 accumulators (4x4 per thread), multiply then
// add as the elemental emitter does; a barrier before the next tile,
// guarded stores.
// GPU-LABEL: gpu.func @main_k2_matmul_bwc
// GPU-SAME: workgroup(%[[AS:.*]] : memref<3x64x16xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[BS:.*]] : memref<3x16x64xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// GPU-SAME: emitter = "contraction_tiled"
// GPU: scf.for
// GPU: nvgpu.device_async_copy %arg0[%{{.*}}], %[[AS]][%{{.*}}, %{{.*}}, %{{.*}}], 4, %{{.*}} {bypassL1}
// GPU: nvgpu.device_async_copy %arg1[%{{.*}}], %[[BS]][%{{.*}}, %{{.*}}, %{{.*}}], 4, %{{.*}} {bypassL1}
// GPU: nvvm.cp.async.commit.group
// GPU: nvvm.cp.async.commit.group
// GPU: scf.for %{{.*}} = %c0{{.*}} to %c3{{.*}} step %c1{{.*}} iter_args
// GPU-NEXT: nvvm.cp.async.wait.group 1
// GPU-NEXT: gpu.barrier
// GPU: scf.for %{{.*}} = %c0{{.*}} to %c16{{.*}} step %c1{{.*}} iter_args
// GPU: memref.load %[[AS]]
// GPU: memref.load %[[BS]]
// GPU-COUNT-16: arith.mulf
// GPU: nvvm.cp.async.wait.group 0
// GPU-NEXT: gpu.barrier
// PTX-LABEL: .visible .entry main_k2_matmul_bwc(
// PTX: cp.async.cg.shared.global
// PTX: bar.sync
// PTX: ld.shared
// PTX: mul.rn.f32
// PTX-NEXT: add.rn.f32

// Tests that softmax is one block per row: the row in registers (one
// 16-byte load of 4 elements per thread, a single pass over DRAM: max, sum
// and the epilogue reuse them), xor shuffles, shared memory across warps
// between barriers, the reductions bound, one 16-byte store.
// GPU-LABEL: gpu.func @main_k1_fusion_reduction_bwc
// GPU-SAME: workgroup(%[[SMEM:.*]] : memref<32xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// GPU-SAME: cache_row = 1
// GPU-SAME: emitter = "row_reduction"
// GPU: gpu.shuffle  xor
// GPU: gpu.barrier
// GPU: memref.load %[[SMEM]]
// PTX-LABEL: .visible .entry main_k1_fusion_reduction_bwc(
// PTX: .shared .align 16 .b8
// PTX-NOT: ld.global.b32
// PTX: st.global.v4.b32
// PTX: ld.global.v4.b32
// PTX-NOT: ld.global
// PTX: shfl.sync.bfly.b32
// PTX: bar.sync
// PTX-NOT: ld.global

// Tests that the elementwise kernel is a grid-stride loop of 4-wide groups
// whose result goes out as one aligned vector store (st.global.v4), with
// the same-shaped loads merged into ld.global.v4.
// GPU-LABEL: gpu.func @main_k0_fusion_loop_bwc(%{{.*}}: memref<4096xf32> {llvm.align = 16 : i64}, %{{.*}}: memref<4096xf32> {llvm.align = 16 : i64}, %{{.*}}: memref<4096xf32> {llvm.align = 16 : i64}) kernel
// GPU-SAME: emitter = "loop"
// GPU-SAME: known_block_size = array<i32: 256, 1, 1>
// GPU: scf.for
// GPU: vector.from_elements {{.*}} : vector<4xf32>
// GPU: vector.store {{.*}} {alignment = 16 : i64} : memref<4096xf32>, vector<4xf32>
// PTX-LABEL: .visible .entry main_k0_fusion_loop_bwc(
// PTX: ld.global.v4
// PTX: st.global.v4
func.func @main(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>, %x: tensor<16x1024xf32>, %c: tensor<64x48xf32>, %w: tensor<48x32xf32>, %ln: tensor<30x200xf32>, %g: tensor<200xf32>, %sr: tensor<1000x96xf16>, %cr: tensor<512x96xf32>, %nchw: tensor<2x64x20x40xf32>, %bias: tensor<64xf32>, %re: tensor<1x257x40xf32>, %im: tensor<1x257x40xf32>) -> (tensor<64x64xf32>, tensor<16x1024xf32>, tensor<64x32xf32>, tensor<30x200xf32>, tensor<1000x1xf16>, tensor<96xf32>, tensor<2x20x40x64xf32>, tensor<1x40x257xf32>) {
  %0 = bwc.binary add %a, %b : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %1 = bwc.unary tanh %0 : (tensor<64x64xf32>) -> tensor<64x64xf32>
  %m = bwc.reduce max %x axes = [1] keepdims = true : (tensor<16x1024xf32>) -> tensor<16x1xf32>
  %d = bwc.binary sub %x, %m : (tensor<16x1024xf32>, tensor<16x1xf32>) -> tensor<16x1024xf32>
  %e = bwc.unary exp %d : (tensor<16x1024xf32>) -> tensor<16x1024xf32>
  %s = bwc.reduce sum %e axes = [1] keepdims = true : (tensor<16x1024xf32>) -> tensor<16x1xf32>
  %r = bwc.binary div %e, %s : (tensor<16x1024xf32>, tensor<16x1xf32>) -> tensor<16x1024xf32>
  %mm = bwc.matmul %c, %w : (tensor<64x48xf32>, tensor<48x32xf32>) -> tensor<64x32xf32>
  %lm = bwc.reduce mean %ln axes = [1] keepdims = true : (tensor<30x200xf32>) -> tensor<30x1xf32>
  %ld = bwc.binary sub %ln, %lm : (tensor<30x200xf32>, tensor<30x1xf32>) -> tensor<30x200xf32>
  %lq = bwc.binary mul %ld, %ld : (tensor<30x200xf32>, tensor<30x200xf32>) -> tensor<30x200xf32>
  %lv = bwc.reduce mean %lq axes = [1] keepdims = true : (tensor<30x200xf32>) -> tensor<30x1xf32>
  %ls = bwc.unary sqrt %lv : (tensor<30x1xf32>) -> tensor<30x1xf32>
  %lz = bwc.binary div %ld, %ls : (tensor<30x200xf32>, tensor<30x1xf32>) -> tensor<30x200xf32>
  %ly = bwc.binary mul %lz, %g : (tensor<30x200xf32>, tensor<200xf32>) -> tensor<30x200xf32>
  %sm = bwc.reduce sum %sr axes = [1] keepdims = true : (tensor<1000x96xf16>) -> tensor<1000x1xf16>
  %cs = bwc.reduce sum %cr axes = [0] keepdims = false : (tensor<512x96xf32>) -> tensor<96xf32>
  %ct = bwc.unary tanh %cs : (tensor<96xf32>) -> tensor<96xf32>
  %te = bwc.unary exp %nchw : (tensor<2x64x20x40xf32>) -> tensor<2x64x20x40xf32>
  %tt = bwc.transpose %te perm = [0, 2, 3, 1] : (tensor<2x64x20x40xf32>) -> tensor<2x20x40x64xf32>
  %tb = bwc.binary add %tt, %bias : (tensor<2x20x40x64xf32>, tensor<64xf32>) -> tensor<2x20x40x64xf32>
  %rt = bwc.transpose %re perm = [0, 2, 1] : (tensor<1x257x40xf32>) -> tensor<1x40x257xf32>
  %it = bwc.transpose %im perm = [0, 2, 1] : (tensor<1x257x40xf32>) -> tensor<1x40x257xf32>
  %two = bwc.constant dense<2.0> : tensor<f32>
  %r2 = bwc.binary pow %rt, %two : (tensor<1x40x257xf32>, tensor<f32>) -> tensor<1x40x257xf32>
  %i2 = bwc.binary pow %it, %two : (tensor<1x40x257xf32>, tensor<f32>) -> tensor<1x40x257xf32>
  %pw = bwc.binary add %r2, %i2 : (tensor<1x40x257xf32>, tensor<1x40x257xf32>) -> tensor<1x40x257xf32>
  return %1, %r, %mm, %ly, %sm, %ct, %tb, %pw : tensor<64x64xf32>, tensor<16x1024xf32>, tensor<64x32xf32>, tensor<30x200xf32>, tensor<1000x1xf16>, tensor<96xf32>, tensor<2x20x40x64xf32>, tensor<1x40x257xf32>
}
