// Tensor-core matmuls: contraction_tiled with mma = 1 for f16/bf16
// operands (f32 accumulation). The tiles stay in the operand type, [64][24]
// (K innermost, padded), each K step loads one A fragment (4 x 32-bit) and
// four B fragments (2 x 32-bit) per warp into four mma.sync.m16n8k16, the
// 16 accumulators go through the [64][65] f32 result tile to the same
// epilogue as the f32 path. bf16 pairs go to the mma as i32. The fragment
// coordinates are checked against the PTX ISA in
// test/unit/Target/CUDA/MmaLayoutTest.cpp; never run on a GPU here.
// RUN: bwc-compile %s --target=cuda --emit=gpu -o - | FileCheck %s --check-prefix=GPU
// RUN: bwc-compile %s --target=cuda --emit=ptx -o - | FileCheck %s --check-prefix=PTX
// RUN: bwc-compile %s --target=cuda --tensor-cores=off --emit=gpu -o - | FileCheck %s --check-prefix=OFF
// RUN: not bwc-compile %s --target=cuda --tensor-cores=maybe --emit=gpu -o - 2>&1 | FileCheck %s --check-prefix=BAD
// ptxas runs on this file in the cuda-ptx-real-models ctest.

// Tests --tensor-cores=off: the same tiles, staged as f32 (mma = 0), no
// nvvm.mma.sync.
// OFF-LABEL: gpu.func @main_k1_matmul_bwc
// OFF-SAME: memref<16x64xf32, #gpu.address_space<workgroup>>
// OFF-SAME: mma = 0
// OFF-LABEL: gpu.func @main_k0_fusion_contraction_bwc
// OFF-SAME: mma = 0
// OFF-NOT: nvvm.mma.sync
// BAD: bwc-compile: --tensor-cores expects on or off but got 'maybe'

// GPU: gpu.module @bwc_kernels

// Tests the f16 matmul (64x32 @ 32x48): 2 K steps of 4 mma each, guarded
// epilogue from the result tile.
// GPU-LABEL: gpu.func @main_k1_matmul_bwc
// GPU-SAME: workgroup(%[[AS:.*]] : memref<64x24xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[BS:.*]] : memref<64x24xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[CS:.*]] : memref<64x65xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// GPU-SAME: emitter = "contraction_tiled"
// GPU-SAME: mma = 1
// GPU: scf.for %{{.*}} = %c0{{.*}} to %c32{{.*}} step %c16
// GPU-COUNT-4: memref.store %{{.*}}, %[[AS]]
// GPU: gpu.barrier
// GPU-COUNT-4: vector.load %[[AS]][%{{.*}}, %{{.*}}] {alignment = 4 : i64} : memref<64x24xf16, #gpu.address_space<workgroup>>, vector<2xf16>
// GPU: vector.load %[[BS]]
// GPU: vector.load %[[BS]]
// GPU-NEXT: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// GPU-COUNT-3: nvvm.mma.sync
// GPU: gpu.barrier
// GPU: scf.yield
// GPU-COUNT-16: memref.store %{{.*}}, %[[CS]]
// GPU: gpu.barrier
// GPU: scf.if
// GPU: memref.load %[[CS]]
// GPU: arith.truncf %{{.*}} : f32 to f16
// GPU: gpu.barrier
// GPU: gpu.return

// Tests the bf16 batched matmul with a bias epilogue (2x70x40 @ 40x33):
// 2 x 2 x 1 tiles, 3 K steps (the last one partial, zero-filled).
// GPU-LABEL: gpu.func @main_k0_fusion_contraction_bwc
// GPU-SAME: memref<64x24xbf16, #gpu.address_space<workgroup>>
// GPU-SAME: mma = 1
// GPU: scf.for %{{.*}} = %block_id_x to %c4 step %grid_dim_x
// GPU: scf.for %{{.*}} = %c0{{.*}} to %c40{{.*}} step %c16
// GPU: llvm.bitcast %{{.*}} : vector<2xbf16> to i32
// GPU: nvvm.mma.sync {{.*}} multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>{{.*}} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// GPU: arith.addf %{{.*}} : bf16

// PTX-LABEL: .visible .entry main_k1_matmul_bwc(
// PTX: .shared .align 16 .b8
// PTX: ld.shared.b32
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// PTX-LABEL: .visible .entry main_k0_fusion_contraction_bwc(
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32

func.func @main(%a: tensor<2x70x40xbf16>, %w: tensor<40x33xbf16>, %bias: tensor<33xbf16>, %c: tensor<64x32xf16>, %d: tensor<32x48xf16>) -> (tensor<2x70x33xbf16>, tensor<64x48xf16>) {
  %mm = bwc.matmul %a, %w : (tensor<2x70x40xbf16>, tensor<40x33xbf16>) -> tensor<2x70x33xbf16>
  %y = bwc.binary add %mm, %bias : (tensor<2x70x33xbf16>, tensor<33xbf16>) -> tensor<2x70x33xbf16>
  %m2 = bwc.matmul %c, %d : (tensor<64x32xf16>, tensor<32x48xf16>) -> tensor<64x48xf16>
  return %y, %m2 : tensor<2x70x33xbf16>, tensor<64x48xf16>
}
