// Convolutions as implicit GEMMs: a direct float convolution with groups 1
// is contraction_tiled over its GemmView (include/bwc/Analysis/GemmView.h):
// channels-first M = F, N = output positions, K = C x taps (the input
// staged along the output positions, padding taps 0); channels_last M =
// output positions, N = F, K = taps x C (channels innermost), on the
// tensor cores in bf16. The bias and the epilogue (relu) bind to the sum
// as for a matmul. A depthwise convolution (groups 8) stays
// thread_per_output. The view's indices are checked on the CPU
// (GemmViewTest; e2e-real-models-conv-gemm). These convolutions have 1
// and 4 tiles, fewer than the H200's 132 SMs, so the default
// (--conv-kernels=auto) runs them as direct convolutions (AUTO; measured
// faster at that size, docs/benchmarks.md): one thread per output, or
// contraction_thread where bwc-tile finds it no less coalesced (rows
// outputs per thread, the NHWC input in 16-byte chunks);
// --conv-kernels=gemm makes every one an implicit GEMM, as the GPU and PTX
// prefixes test.
// RUN: bwc-compile %s --target=cuda --layout=nchw --conv-kernels=gemm --emit=gpu -o - | FileCheck %s --check-prefix=GPU
// RUN: bwc-compile %s --target=cuda --layout=nchw --conv-kernels=gemm --emit=ptx -o - | FileCheck %s --check-prefix=PTX
// RUN: bwc-compile %s --target=cuda --layout=nchw --emit=gpu -o - | FileCheck %s --check-prefix=AUTO
// RUN: bwc-compile %s --target=cuda --layout=nchw --sm-count=4 --emit=gpu -o - | FileCheck %s --check-prefix=FOUR
// RUN: bwc-compile %s --target=cuda --layout=nchw --conv-kernels=direct --emit=gpu -o - | FileCheck %s --check-prefix=DIRECT
// RUN: not bwc-compile %s --target=cuda --conv-kernels=winograd --emit=gpu -o - 2>&1 | FileCheck %s --check-prefix=BAD
// ptxas runs on this file in the cuda-ptx-real-models ctest.

// Tests --conv-kernels=direct (the escape hatch and the GPU check's A/B):
// no convolution an implicit GEMM; the bf16 NHWC one is contraction_thread
// (4 output positions per thread, 8 bf16 channels per load).
// DIRECT-LABEL: gpu.func @main_k2_conv_bwc
// DIRECT-SAME: emitter = "thread_per_output"
// DIRECT-LABEL: gpu.func @main_k1_conv_bwc
// DIRECT-SAME: chunk = 8 : i64, elements_per_thread = {{[0-9]+}} : i64, emitter = "contraction_thread"
// DIRECT-SAME: rows = 4 : i64
// DIRECT-LABEL: gpu.func @main_k0_fusion_contraction_bwc
// DIRECT-SAME: emitter = "contraction_thread"
// BAD: bwc-compile: --conv-kernels expects auto, gemm or direct but got 'winograd'

// Tests the default: below sm-count tiles (132), direct convolutions.
// AUTO-LABEL: gpu.func @main_k1_conv_bwc
// AUTO-SAME: emitter = "contraction_thread"
// AUTO-LABEL: gpu.func @main_k0_fusion_contraction_bwc
// AUTO-SAME: chunk = 4 : i64, elements_per_thread = {{[0-9]+}} : i64, emitter = "contraction_thread"
// AUTO-SAME: lanes = 128 : i64, rows = 4 : i64

// Tests the threshold: with 4 SMs the 4-tile convolution fills them (an
// implicit GEMM), the 1-tile one does not.
// FOUR-LABEL: gpu.func @main_k1_conv_bwc
// FOUR-SAME: emitter = "contraction_thread"
// FOUR-LABEL: gpu.func @main_k0_fusion_contraction_bwc
// FOUR-SAME: emitter = "contraction_tiled", grid = 4 : i64

// GPU: gpu.module @bwc_kernels

// Tests the depthwise convolution: one thread per output.
// GPU-LABEL: gpu.func @main_k2_conv_bwc
// GPU-SAME: emitter = "thread_per_output"

// Tests the channels_last bf16 convolution (3x3, stride 2, pad 1; 9x9x16
// -> 5x5x32): M = 25, N = 32, K = 144 in 5 steps of 32, mma.sync. Both
// operands by cp.async: A (the NHWC input) in chunks of 8 channels of one
// tap, a padding tap's chunk zero-filled (8 or 0 source elements by
// select); B (the [K][32] filter) along F.
// GPU-LABEL: gpu.func @main_k1_conv_bwc
// GPU-SAME: emitter = "contraction_tiled", grid = 1 : i64, mma = 1 : i64, tile_k = 32
// GPU: %[[N:.*]] = arith.select %{{.*}}, %c8{{.*}}, %c0{{.*}} : index
// GPU: nvgpu.device_async_copy %arg0[%{{.*}}], %arg3[%{{.*}}, %{{.*}}, %{{.*}}], 8, %[[N]] {bypassL1}
// GPU: nvgpu.device_async_copy %arg1
// GPU: scf.for %{{.*}} = %c0{{.*}} to %c5{{.*}} step %c1
// GPU: nvvm.mma.sync {{.*}} multiplicandAPtxType = #nvvm.mma_type<bf16>

// Tests the channels-first f32 convolution with bias and relu (2 images,
// 8 -> 16 channels, 3x3, pad 1, 10x12): M = 16, N = 120 (2 tiles per
// image), K = 72 in 5 steps of 16; the filter (A, [16][72]) by cp.async,
// the input's im2col (B) through registers with padding taps staged as 0
// (select); the bias added to the sum, then relu, in the epilogue.
// GPU-LABEL: gpu.func @main_k0_fusion_contraction_bwc
// GPU-SAME: emitter = "contraction_tiled", grid = 4 : i64, mma = 0 : i64
// GPU: nvgpu.device_async_copy %arg1
// GPU: arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
// GPU: scf.for %{{.*}} = %c0{{.*}} to %c5{{.*}} step %c1
// GPU: gpu.barrier
// GPU-COUNT-16: arith.mulf
// GPU: %[[BIAS:.*]] = memref.load %arg2
// GPU-NEXT: %[[SUM:.*]] = arith.addf %{{.*}}, %[[BIAS]] : f32
// GPU: arith.cmpf olt, %[[SUM]]
// GPU: %[[RELU:.*]] = arith.select %{{.*}}, %{{.*}}, %[[SUM]]
// GPU-NEXT: memref.store %[[RELU]], %arg3

// PTX-LABEL: .visible .entry main_k1_conv_bwc(
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// PTX-LABEL: .visible .entry main_k0_fusion_contraction_bwc(
// PTX: bar.sync

func.func @main(%x: tensor<2x8x10x12xf32>, %w: tensor<16x8x3x3xf32>, %b: tensor<16xf32>, %y: tensor<1x9x9x16xbf16>, %v: tensor<3x3x16x32xbf16>, %dw: tensor<8x1x3x3xf32>) -> (tensor<2x16x10x12xf32>, tensor<1x5x5x32xbf16>, tensor<2x8x10x12xf32>) {
  %c = bwc.conv %x, %w, %b strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] groups = 1 : (tensor<2x8x10x12xf32>, tensor<16x8x3x3xf32>, tensor<16xf32>) -> tensor<2x16x10x12xf32>
  %r = bwc.unary relu %c : (tensor<2x16x10x12xf32>) -> tensor<2x16x10x12xf32>
  %n = bwc.conv %y, %v strides = [2, 2] dilations = [1, 1] pads = [1, 1, 1, 1] groups = 1 {channels_last} : (tensor<1x9x9x16xbf16>, tensor<3x3x16x32xbf16>) -> tensor<1x5x5x32xbf16>
  %d = bwc.conv %x, %dw strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] groups = 8 : (tensor<2x8x10x12xf32>, tensor<8x1x3x3xf32>) -> tensor<2x8x10x12xf32>
  return %r, %n, %d : tensor<2x16x10x12xf32>, tensor<1x5x5x32xbf16>, tensor<2x8x10x12xf32>
}
