// RUN: bwc-opt %s --split-input-file --bwc-tile --verify-diagnostics | FileCheck %s --check-prefix=LANDED
// RUN: bwc-opt %s --split-input-file "--bwc-tile=emitters=loop,thread_per_output,row_reduction,column_reduction,transpose_tiled,contraction_tiled" --verify-diagnostics | FileCheck %s --check-prefix=ALL
// RUN: bwc-opt %s --split-input-file "--bwc-tile=emitters=loop,thread_per_output,transpose_tiled shared-memory-bytes=4096" --verify-diagnostics | FileCheck %s --check-prefix=SMALL
// RUN: bwc-opt %s --split-input-file "--bwc-tile=emitters=loop,thread_per_output,transpose_tiled shared-memory-bytes=8000" --verify-diagnostics | FileCheck %s --check-prefix=TILES

// The kernels carry preset configurations (what bwc-configure-kernels
// could give) so that each case checks bwc-tile's decision alone.

// Tests that a transpose under the loop emitter reads one f32 per 32-byte
// sector (2/9 for the kernel: 1 MiB read at 1/8, 1 MiB written at 1) when
// the 32x33 f32 tile does not fit the shared memory, and that
// transpose_tiled (landed) coalesces both sides otherwise.
// LANDED-LABEL: func.func private @k_transpose
// LANDED-SAME: bwc.coalescing = 1.000000e+00 : f64, bwc.config = {block = 256 : i64, elements_per_thread = 4 : i64, emitter = "transpose_tiled", grid = 256 : i64, tile = 32 : i64, vector = 1 : i64}
// ALL-LABEL: func.func private @k_transpose
// ALL-SAME: emitter = "transpose_tiled"
// SMALL-LABEL: func.func private @k_transpose
// SMALL-SAME: bwc.coalescing = 2.222220e-01 : f64, bwc.config = {block = 256 : i64, elements_per_thread = 4 : i64, emitter = "loop", grid = 256 : i64, vector = 4 : i64}
func.func private @k_transpose(%x: tensor<512x512xf32>) -> tensor<512x512xf32> attributes {bwc.kernel, bwc.config = {block = 256 : i64, elements_per_thread = 4 : i64, emitter = "loop", grid = 256 : i64, vector = 4 : i64}} {
  %0 = bwc.transpose %x perm = [1, 0] : (tensor<512x512xf32>) -> tensor<512x512xf32>
  %1 = bwc.unary exp %0 : (tensor<512x512xf32>) -> tensor<512x512xf32>
  return %1 : tensor<512x512xf32>
}

// -----

// Tests that a coalesced elementwise kernel keeps its loop configuration
// (a tie in efficiency and blocks keeps the default).
// ALL-LABEL: func.func private @k_exp
// ALL-SAME: bwc.coalescing = 1.000000e+00 : f64, bwc.config = {block = 256 : i64, elements_per_thread = 4 : i64, emitter = "loop", grid = 1024 : i64, vector = 4 : i64}
func.func private @k_exp(%x: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> attributes {bwc.kernel, bwc.config = {block = 256 : i64, elements_per_thread = 4 : i64, emitter = "loop", grid = 1024 : i64, vector = 4 : i64}} {
  %0 = bwc.unary exp %x : (tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %0 : tensor<1024x1024xf32>
}

// -----

// Tests that a column sum under thread_per_output (4096 threads, 16
// blocks) becomes a column_reduction with bwc-configure-kernels' launch
// (128 blocks of 32 columns x 32 slices, 8 loads in flight; equally
// coalesced, more blocks) with the landed emitters, and stays when
// column_reduction is not listed.
// LANDED-LABEL: func.func private @k_colsum
// LANDED-SAME: bwc.coalescing = 1.000000e+00 : f64, bwc.config = {block = 1024 : i64, cache_column = 0 : i64, columns_per_block = 32 : i64, elements_per_thread = 512 : i64, emitter = "column_reduction", grid = 128 : i64, passes = 1 : i64, slices = 32 : i64, unroll = 8 : i64}
// SMALL-LABEL: func.func private @k_colsum
// SMALL-SAME: emitter = "thread_per_output", grid = 16 : i64
func.func private @k_colsum(%x: tensor<16384x4096xf32>) -> tensor<4096xf32> attributes {bwc.kernel, bwc.config = {block = 256 : i64, elements_per_thread = 1 : i64, emitter = "thread_per_output", grid = 16 : i64}} {
  %0 = bwc.reduce sum %x axes = [0] keepdims = false : (tensor<16384x4096xf32>) -> tensor<4096xf32>
  return %0 : tensor<4096xf32>
}

// -----

// Tests that a softmax over axis 0 under thread_per_output (one block) is
// offered the column driver (dependent reductions, whole-shaped output;
// 32 positions per thread: cached, one pass) and takes it (equally
// coalesced, 2 blocks), and that an
// i32 column sum (the CUDA driver takes float reductions only) is never
// offered it. (The score does not see that thread_per_output walks the
// column twice per output: with a preset grid of more blocks it would keep
// thread_per_output; bwc-configure-kernels never presets that.)
// LANDED-LABEL: func.func private @k_softmax_axis0
// LANDED-SAME: cache_column = 1 : i64
// LANDED-SAME: emitter = "column_reduction", grid = 2 : i64, passes = 1 : i64, slices = 32 : i64
// LANDED-LABEL: func.func private @k_colsum_i32
// LANDED-SAME: emitter = "thread_per_output"
func.func private @k_softmax_axis0(%x: tensor<1024x64xf32>) -> tensor<1024x64xf32> attributes {bwc.kernel, bwc.config = {block = 256 : i64, elements_per_thread = 256 : i64, emitter = "thread_per_output", grid = 1 : i64}} {
  %m = bwc.reduce max %x axes = [0] keepdims = true : (tensor<1024x64xf32>) -> tensor<1x64xf32>
  %d = bwc.binary sub %x, %m : (tensor<1024x64xf32>, tensor<1x64xf32>) -> tensor<1024x64xf32>
  %e = bwc.unary exp %d : (tensor<1024x64xf32>) -> tensor<1024x64xf32>
  %s = bwc.reduce sum %e axes = [0] keepdims = true : (tensor<1024x64xf32>) -> tensor<1x64xf32>
  %y = bwc.binary div %e, %s : (tensor<1024x64xf32>, tensor<1x64xf32>) -> tensor<1024x64xf32>
  return %y : tensor<1024x64xf32>
}
func.func private @k_colsum_i32(%x: tensor<1024x64xi32>) -> tensor<64xi32> attributes {bwc.kernel, bwc.config = {block = 256 : i64, elements_per_thread = 1 : i64, emitter = "thread_per_output", grid = 1 : i64}} {
  %0 = bwc.reduce sum %x axes = [0] keepdims = false : (tensor<1024x64xi32>) -> tensor<64xi32>
  return %0 : tensor<64xi32>
}

// -----

// Tests that a sum over the innermost axis is never offered
// column_reduction: its row_reduction stays.
// ALL-LABEL: func.func private @k_rowsum
// ALL-SAME: emitter = "row_reduction"
func.func private @k_rowsum(%x: tensor<8x1000xf32>) -> tensor<8xf32> attributes {bwc.kernel, bwc.config = {block = 256 : i64, elements_per_thread = 4 : i64, emitter = "row_reduction", grid = 8 : i64, row = 1000 : i64, rows = 8 : i64, rows_per_block = 1 : i64}} {
  %0 = bwc.reduce sum %x axes = [1] keepdims = false : (tensor<8x1000xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Tests that two transposes with one permutation and input shape (the
// CUDA driver stages each in its own tile) are offered transpose_tiled
// and take it (both sides coalesced), and that two with different
// permutations (which the driver cannot stage) are never offered it.
// With 8000 bytes of shared memory one f32 tile (4224 bytes) fits, two
// (8448 bytes) do not.
// TILES-LABEL: func.func private @k_transpose
// TILES-SAME: emitter = "transpose_tiled"
// TILES-LABEL: func.func private @k_two_transposes
// TILES-SAME: emitter = "loop"
// ALL-LABEL: func.func private @k_two_transposes
// ALL-SAME: bwc.coalescing = 1.000000e+00 : f64, bwc.config = {block = 256 : i64, elements_per_thread = 4 : i64, emitter = "transpose_tiled", grid = 8 : i64, tile = 32 : i64, vector = 1 : i64}
// ALL-LABEL: func.func private @k_two_perms
// ALL-SAME: emitter = "loop"
func.func private @k_two_transposes(%x: tensor<64x128xf32>, %y: tensor<64x128xf32>) -> tensor<128x64xf32> attributes {bwc.kernel, bwc.config = {block = 256 : i64, elements_per_thread = 4 : i64, emitter = "loop", grid = 8 : i64, vector = 4 : i64}} {
  %0 = bwc.transpose %x perm = [1, 0] : (tensor<64x128xf32>) -> tensor<128x64xf32>
  %1 = bwc.transpose %y perm = [1, 0] : (tensor<64x128xf32>) -> tensor<128x64xf32>
  %2 = bwc.binary add %0, %1 : (tensor<128x64xf32>, tensor<128x64xf32>) -> tensor<128x64xf32>
  return %2 : tensor<128x64xf32>
}
func.func private @k_two_perms(%x: tensor<16x32x48xf32>, %y: tensor<32x48x16xf32>) -> tensor<16x48x32xf32> attributes {bwc.kernel, bwc.config = {block = 256 : i64, elements_per_thread = 4 : i64, emitter = "loop", grid = 24 : i64, vector = 4 : i64}} {
  %0 = bwc.transpose %x perm = [0, 2, 1] : (tensor<16x32x48xf32>) -> tensor<16x48x32xf32>
  %1 = bwc.transpose %y perm = [2, 1, 0] : (tensor<32x48x16xf32>) -> tensor<16x48x32xf32>
  %2 = bwc.binary add %0, %1 : (tensor<16x48x32xf32>, tensor<16x48x32xf32>) -> tensor<16x48x32xf32>
  return %2 : tensor<16x48x32xf32>
}

// -----

// Tests that a matmul gets contraction_tiled, with the driver's only tile
// (64x64x16), when it is allowed and its tiles fill the GPU: 2048x1024
// outputs are 512 tiles (at least 2 per SM, a tie with the default's
// blocks, which the specialized emitter wins). A 32x32 tile was offered
// before 2026-11-30 although the driver refuses it (found by review).
// Without contraction_tiled (LANDED, the pass's default list) the matmul
// is contraction_thread: as coalesced as one thread per output (1.0), as
// many blocks (capped at 2 per SM), and the tie goes to the most rows per
// thread (4: B read once for 4 rows) with A's rows in 16-byte chunks
// along K (K = 256, lhs a kernel argument).
// LANDED-LABEL: func.func private @k_matmul
// LANDED-SAME: bwc.coalescing = 1.000000e+00 : f64, bwc.config = {block = 128 : i64, chunk = 4 : i64, elements_per_thread = 8 : i64, emitter = "contraction_thread", grid = 2112 : i64, rows = 4 : i64}
// ALL-LABEL: func.func private @k_matmul
// ALL-SAME: bwc.config = {block = 256 : i64, elements_per_thread = 16 : i64, emitter = "contraction_tiled", grid = 512 : i64, mma = 0 : i64, tile_k = 16 : i64, tile_m = 64 : i64, tile_n = 64 : i64}
func.func private @k_matmul(%a: tensor<2048x256xf32>, %b: tensor<256x1024xf32>) -> tensor<2048x1024xf32> attributes {bwc.kernel, bwc.config = {block = 256 : i64, elements_per_thread = 8 : i64, emitter = "thread_per_output", grid = 264 : i64}} {
  %0 = bwc.matmul %a, %b : (tensor<2048x256xf32>, tensor<256x1024xf32>) -> tensor<2048x1024xf32>
  return %0 : tensor<2048x1024xf32>
}

// -----

// Tests that a bf16 matmul gets the tensor-core tiles: mma = 1 and mma = 0
// have the same global accesses (a tie), and only mma = 1 wins a tie.
// bf16 chunks are 8 elements (16 bytes).
// LANDED-LABEL: func.func private @k_matmul_bf16
// LANDED-SAME: chunk = 8 : i64, elements_per_thread = 8 : i64, emitter = "contraction_thread", grid = 2112 : i64, rows = 4 : i64
// ALL-LABEL: func.func private @k_matmul_bf16
// ALL-SAME: emitter = "contraction_tiled", grid = 512 : i64, mma = 1 : i64
func.func private @k_matmul_bf16(%a: tensor<2048x256xbf16>, %b: tensor<256x1024xbf16>) -> tensor<2048x1024xbf16> attributes {bwc.kernel, bwc.config = {block = 256 : i64, elements_per_thread = 8 : i64, emitter = "thread_per_output", grid = 264 : i64}} {
  %0 = bwc.matmul %a, %b : (tensor<2048x256xbf16>, tensor<256x1024xbf16>) -> tensor<2048x1024xbf16>
  return %0 : tensor<2048x1024xbf16>
}

// -----

// Tests a channels-last 1x1 convolution with 24 output channels (N = 24):
// one thread per output, a warp straddles two output positions and each of
// its broadcast input loads touches two sectors where one is ideal
// (0.805 with the landed emitters minus contraction_thread, SMALL); as
// contraction_thread the lanes round N up to a warp (lanes = 32, 8 idle),
// 4 positions per thread and 16-byte input chunks: every request
// coalesced (1.0).
// LANDED-LABEL: func.func private @k_conv_f24
// LANDED-SAME: bwc.coalescing = 1.000000e+00 : f64, bwc.config = {block = 32 : i64, chunk = 4 : i64, elements_per_thread = 4 : i64, emitter = "contraction_thread", grid = 64 : i64, lanes = 32 : i64, rows = 4 : i64}
// SMALL-LABEL: func.func private @k_conv_f24
// SMALL-SAME: bwc.coalescing = 0.804877{{[0-9]*}} : f64, bwc.config = {block = 256 : i64, elements_per_thread = 1 : i64, emitter = "thread_per_output"
func.func private @k_conv_f24(%x: tensor<1x16x16x32xf32>, %w: tensor<1x1x32x24xf32>) -> tensor<1x16x16x24xf32> attributes {bwc.kernel, bwc.config = {block = 256 : i64, elements_per_thread = 1 : i64, emitter = "thread_per_output", grid = 24 : i64}} {
  %0 = bwc.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 1 {channels_last} : (tensor<1x16x16x32xf32>, tensor<1x1x32x24xf32>) -> tensor<1x16x16x24xf32>
  return %0 : tensor<1x16x16x24xf32>
}

// -----

// Tests that a channels-last depthwise convolution (with its epilogue)
// becomes a `loop` kernel of 16-byte channel groups (4 f32, 8 bf16 per
// thread; loopGroupedConv): as coalesced as one thread per output (1.0)
// and 4x as wide, so bwc-tile's wider-request rule takes it, at the most
// blocks of the three sizes offered (128 threads). The channels-first one
// stays one thread per output: its consecutive outputs are along W, whose
// padded taps are not 16-byte aligned (not offered).
// LANDED-LABEL: func.func private @k_depthwise_nhwc
// LANDED-SAME: bwc.coalescing = 1.000000e+00 : f64, bwc.config = {block = 128 : i64, elements_per_thread = 4 : i64, emitter = "loop", grid = 16 : i64, vector = 4 : i64}
func.func private @k_depthwise_nhwc(%x: tensor<1x16x16x32xf32>, %w: tensor<3x3x1x32xf32>, %b: tensor<32xf32>) -> tensor<1x16x16x32xf32> attributes {bwc.kernel, bwc.config = {block = 256 : i64, elements_per_thread = 1 : i64, emitter = "thread_per_output", grid = 32 : i64}} {
  %0 = bwc.conv %x, %w, %b strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] groups = 32 {channels_last} : (tensor<1x16x16x32xf32>, tensor<3x3x1x32xf32>, tensor<32xf32>) -> tensor<1x16x16x32xf32>
  %1 = bwc.unary relu %0 : (tensor<1x16x16x32xf32>) -> tensor<1x16x16x32xf32>
  return %1 : tensor<1x16x16x32xf32>
}

// -----

// LANDED-LABEL: func.func private @k_depthwise_nhwc_bf16
// LANDED-SAME: emitter = "loop", grid = 2 : i64, vector = 8 : i64
func.func private @k_depthwise_nhwc_bf16(%x: tensor<1x16x16x32xbf16>, %w: tensor<3x3x1x32xbf16>) -> tensor<1x8x8x32xbf16> attributes {bwc.kernel, bwc.config = {block = 256 : i64, elements_per_thread = 1 : i64, emitter = "thread_per_output", grid = 8 : i64}} {
  %0 = bwc.conv %x, %w strides = [2, 2] dilations = [1, 1] pads = [1, 1, 1, 1] groups = 32 {channels_last} : (tensor<1x16x16x32xbf16>, tensor<3x3x1x32xbf16>) -> tensor<1x8x8x32xbf16>
  return %0 : tensor<1x8x8x32xbf16>
}

// -----

// LANDED-LABEL: func.func private @k_depthwise_nchw
// LANDED-SAME: emitter = "thread_per_output"
func.func private @k_depthwise_nchw(%x: tensor<1x32x16x16xf32>, %w: tensor<32x1x3x3xf32>) -> tensor<1x32x16x16xf32> attributes {bwc.kernel, bwc.config = {block = 256 : i64, elements_per_thread = 1 : i64, emitter = "thread_per_output", grid = 32 : i64}} {
  %0 = bwc.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] groups = 32 : (tensor<1x32x16x16xf32>, tensor<32x1x3x3xf32>) -> tensor<1x32x16x16xf32>
  return %0 : tensor<1x32x16x16xf32>
}
