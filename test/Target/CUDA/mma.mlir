// Tensor-core matmuls: contraction_tiled with mma = 1 for f16/bf16
// operands (f32 accumulation), K in steps of tile_k = 32 through 3 shared
// stages of A [64][32] and B [32][64] in the operand type. Operands that
// are kernel arguments contiguous along a multiple of 8 elements are
// staged by cp.async (16 bytes, zero-filled outside), the others element by
// element through registers (loaded before the step's math, stored after
// it). Per 16 K a warp loads A with one ldmatrix.x4 and B with two
// ldmatrix.x4.trans into four mma.sync.m16n8k16; the 16 accumulators go
// as 8 pair stores through the [64][64] f32 result tile (columns swizzled
// by row) to the same epilogue as the f32 path. bf16 pairs go to the mma as i32. The fragment coordinates are
// checked against the PTX ISA in test/unit/Target/CUDA/MmaLayoutTest.cpp,
// ldmatrix in test/unit/Runtime/SimExecutionTest.cpp, and the kernels run
// on cuda-sim in test/e2e/cuda-sim-edges.sh.
// RUN: bwc-compile %s --target=cuda --emit=gpu -o - | FileCheck %s --check-prefix=GPU
// RUN: bwc-compile %s --target=cuda --emit=ptx -o - | FileCheck %s --check-prefix=PTX
// RUN: bwc-compile %s --target=cuda --tensor-cores=off --emit=gpu -o - | FileCheck %s --check-prefix=OFF
// RUN: not bwc-compile %s --target=cuda --tensor-cores=maybe --emit=gpu -o - 2>&1 | FileCheck %s --check-prefix=BAD
// ptxas runs on this file in the cuda-ptx-real-models ctest.

// Tests --tensor-cores=off: the f32 tiling's stages (mma = 0, tile_k 16),
// the f16 operands widened to f32 through registers (cp.async cannot
// convert), no nvvm.mma.sync.
// OFF-LABEL: gpu.func @main_k1_matmul_bwc
// OFF-SAME: memref<3x64x16xf32, #gpu.address_space<workgroup>>
// OFF-SAME: mma = 0
// OFF-LABEL: gpu.func @main_k0_fusion_contraction_bwc
// OFF-SAME: mma = 0
// OFF-NOT: nvvm.mma.sync
// OFF-NOT: nvgpu.device_async_copy
// BAD: bwc-compile: --tensor-cores expects on or off but got 'maybe'

// GPU: gpu.module @bwc_kernels

// Tests the f16 matmul (64x32 @ 32x48): both operands by cp.async (K = 32,
// N = 48), one K step (the prologue's second tile is past K: an empty
// group), 2 x (1 + 2) ldmatrix and 8 mma, the guarded epilogue from the
// result tile.
// GPU-LABEL: gpu.func @main_k1_matmul_bwc
// GPU-SAME: workgroup(%[[AS:.*]] : memref<3x64x32xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[BS:.*]] : memref<3x32x64xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[CS:.*]] : memref<64x64xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// GPU-SAME: emitter = "contraction_tiled"
// GPU-SAME: mma = 1
// GPU-SAME: tile_k = 32
// GPU: nvgpu.device_async_copy %arg0[%{{.*}}], %[[AS]][%{{.*}}, %{{.*}}, %{{.*}}], 8, %{{.*}} {bypassL1}
// GPU: nvgpu.device_async_copy %arg1[%{{.*}}], %[[BS]][%{{.*}}, %{{.*}}, %{{.*}}], 8, %{{.*}} {bypassL1}
// GPU: nvvm.cp.async.commit.group
// GPU-NEXT: nvvm.cp.async.commit.group
// GPU: scf.for %{{.*}} = %c0{{.*}} to %c1{{.*}} step %c1
// GPU-NEXT: nvvm.cp.async.wait.group 1
// GPU-NEXT: gpu.barrier
// GPU: scf.if
// GPU: nvgpu.device_async_copy
// GPU: nvgpu.device_async_copy
// GPU: nvvm.cp.async.commit.group
// GPU: nvgpu.ldmatrix %[[AS]][{{.*}}] {numTiles = 4 : i32, transpose = false} : memref<3x64x32xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// GPU: nvgpu.ldmatrix %[[BS]][{{.*}}] {numTiles = 4 : i32, transpose = true} : memref<3x32x64xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// GPU: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// GPU-COUNT-7: nvvm.mma.sync
// GPU: scf.yield
// GPU-NEXT: }
// GPU-NEXT: nvvm.cp.async.wait.group 0
// GPU-COUNT-8: vector.store %{{.*}}, %[[CS]][%{{.*}}, %{{.*}}] {alignment = 8 : i64} : memref<64x64xf32, #gpu.address_space<workgroup>>, vector<2xf32>
// GPU: gpu.barrier
// GPU: scf.if
// GPU: memref.load %[[CS]]
// GPU: arith.truncf %{{.*}} : f32 to f16
// GPU: gpu.barrier
// GPU: gpu.return

// Tests the bf16 batched matmul with a bias epilogue (2x70x40 @ 40x33):
// 2 x 2 x 1 tiles, 2 K steps (the last one partial). A (K = 40) by
// cp.async; B (N = 33, not a multiple of 8) through registers: 8 guarded
// elements per thread stored to the stage in the prologue, and in the K
// loop loaded before the math and stored after it.
// GPU-LABEL: gpu.func @main_k0_fusion_contraction_bwc
// GPU-SAME: memref<3x64x32xbf16, #gpu.address_space<workgroup>>
// GPU-SAME: mma = 1
// GPU: scf.for %{{.*}} = %block_id_x to %c4 step %grid_dim_x
// GPU: nvgpu.device_async_copy %arg0
// GPU-COUNT-8: scf.if %{{.*}} -> (bf16)
// GPU-COUNT-8: memref.store %{{.*}}, %arg5[
// GPU: nvvm.cp.async.commit.group
// GPU: scf.for %{{.*}} = %c0{{.*}} to %c2{{.*}} step %c1
// GPU: nvvm.cp.async.wait.group 1
// GPU: %[[REGS:.*]]:8 = scf.if %{{.*}} -> (bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16)
// GPU: nvgpu.device_async_copy %arg0
// GPU: nvvm.cp.async.commit.group
// GPU: llvm.bitcast %{{.*}} : vector<2xbf16> to i32
// GPU: nvvm.mma.sync {{.*}} multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>{{.*}} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// GPU: scf.if
// GPU: memref.store %[[REGS]]#0, %arg5[
// GPU: arith.addf %{{.*}} : bf16

// PTX-LABEL: .visible .entry main_k1_matmul_bwc(
// PTX: .shared .align 16 .b8
// PTX: cp.async.cg.shared.global [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], 16, {{16|%r[0-9]+}};
// PTX: cp.async.commit_group;
// PTX: cp.async.wait_group {{[[:space:]]*}}1;
// PTX: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// PTX-LABEL: .visible .entry main_k0_fusion_contraction_bwc(
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32

func.func @main(%a: tensor<2x70x40xbf16>, %w: tensor<40x33xbf16>, %bias: tensor<33xbf16>, %c: tensor<64x32xf16>, %d: tensor<32x48xf16>) -> (tensor<2x70x33xbf16>, tensor<64x48xf16>) {
  %mm = bwc.matmul %a, %w : (tensor<2x70x40xbf16>, tensor<40x33xbf16>) -> tensor<2x70x33xbf16>
  %y = bwc.binary add %mm, %bias : (tensor<2x70x33xbf16>, tensor<33xbf16>) -> tensor<2x70x33xbf16>
  %m2 = bwc.matmul %c, %d : (tensor<64x32xf16>, tensor<32x48xf16>) -> tensor<64x48xf16>
  return %y, %m2 : tensor<2x70x33xbf16>, tensor<64x48xf16>
}
