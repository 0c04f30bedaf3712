// RUN: bwc-opt %s --split-input-file --bwc-configure-kernels --verify-diagnostics | FileCheck %s

// Tests that an elementwise f32 kernel gets the loop emitter, 16-byte vectors
// (4 x f32) and a grid capped at one wave of the chip.
// CHECK-LABEL: func.func private @k_exp
// CHECK-SAME: bwc.config = {block = 256 : i64, elements_per_thread = 4 : i64, emitter = "loop", grid = 1024 : i64, vector = 4 : i64}
func.func private @k_exp(%x: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> attributes {bwc.kernel} {
  %0 = bwc.unary exp %x : (tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %0 : tensor<1024x1024xf32>
}

// -----

// Tests that the vector width is halved until it divides the element count
// (f16: 8 per 16 bytes, 6 elements: 2) and that i1 results get no vectors.
// CHECK-LABEL: func.func private @k_half
// CHECK-SAME: emitter = "loop", grid = 1 : i64, vector = 2 : i64
// CHECK-LABEL: func.func private @k_bool
// CHECK-SAME: emitter = "loop", grid = 1 : i64, vector = 1 : i64
func.func private @k_half(%x: tensor<6xf16>) -> tensor<6xf16> attributes {bwc.kernel} {
  %0 = bwc.unary neg %x : (tensor<6xf16>) -> tensor<6xf16>
  return %0 : tensor<6xf16>
}
func.func private @k_bool(%x: tensor<64xf32>, %y: tensor<64xf32>) -> tensor<64xi1> attributes {bwc.kernel} {
  %0 = bwc.binary lt %x, %y : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xi1>
  return %0 : tensor<64xi1>
}

// -----

// Tests that a softmax over the last axis gets the row-reduction emitter:
// one block per row, 1000 / 4 rounded up to 256 threads, the row kept in
// registers (4 consecutive elements per thread: vector 4).
// CHECK-LABEL: func.func private @k_softmax
// CHECK-SAME: bwc.config = {block = 256 : i64, cache_row = 1 : i64, elements_per_thread = 4 : i64, emitter = "row_reduction", grid = 8 : i64, row = 1000 : i64, rows = 8 : i64, rows_per_block = 1 : i64, threads_per_row = 256 : i64, vector = 4 : i64}
func.func private @k_softmax(%x: tensor<8x1000xf32>) -> tensor<8x1000xf32> attributes {bwc.kernel} {
  %m = bwc.reduce max %x axes = [1] keepdims = true : (tensor<8x1000xf32>) -> tensor<8x1xf32>
  %d = bwc.binary sub %x, %m : (tensor<8x1000xf32>, tensor<8x1xf32>) -> tensor<8x1000xf32>
  %e = bwc.unary exp %d : (tensor<8x1000xf32>) -> tensor<8x1000xf32>
  %s = bwc.reduce sum %e axes = [1] keepdims = true : (tensor<8x1000xf32>) -> tensor<8x1xf32>
  %r = bwc.binary div %e, %s : (tensor<8x1000xf32>, tensor<8x1xf32>) -> tensor<8x1000xf32>
  return %r : tensor<8x1000xf32>
}

// -----

// Tests that short rows get one warp per row, packed into blocks of up to
// 256 threads (4 rows here, one block).
// CHECK-LABEL: func.func private @k_mean
// CHECK-SAME: block = 128 : i64, cache_row = 1 : i64, elements_per_thread = 2 : i64, emitter = "row_reduction", grid = 1 : i64, row = 64 : i64, rows = 4 : i64, rows_per_block = 4 : i64, threads_per_row = 32 : i64, vector = 2 : i64
func.func private @k_mean(%x: tensor<4x64xf32>) -> tensor<4xf32> attributes {bwc.kernel} {
  %m = bwc.reduce mean %x axes = [1] keepdims = false : (tensor<4x64xf32>) -> tensor<4xf32>
  return %m : tensor<4xf32>
}

// -----

// Tests that 128-element rows get 32 threads each, 8 rows per block of 256,
// and that a row of 65536 (128 elements per thread of 512, the most threads
// a row gets) is not cached.
// CHECK-LABEL: func.func private @k_short_rows
// CHECK-SAME: block = 256 : i64, cache_row = 1 : i64, elements_per_thread = 4 : i64, emitter = "row_reduction", grid = 125 : i64, row = 128 : i64, rows = 1000 : i64, rows_per_block = 8 : i64, threads_per_row = 32 : i64
// CHECK-LABEL: func.func private @k_long_row
// CHECK-SAME: block = 512 : i64, cache_row = 0 : i64, elements_per_thread = 128 : i64, emitter = "row_reduction", grid = 2 : i64, row = 65536 : i64, rows = 2 : i64, rows_per_block = 1 : i64, threads_per_row = 512 : i64
func.func private @k_short_rows(%x: tensor<1000x128xf32>) -> tensor<1000x1xf32> attributes {bwc.kernel} {
  %m = bwc.reduce max %x axes = [1] keepdims = true : (tensor<1000x128xf32>) -> tensor<1000x1xf32>
  return %m : tensor<1000x1xf32>
}
func.func private @k_long_row(%x: tensor<2x65536xf32>) -> tensor<2x1xf32> attributes {bwc.kernel} {
  %m = bwc.reduce sum %x axes = [1] keepdims = true : (tensor<2x65536xf32>) -> tensor<2x1xf32>
  return %m : tensor<2x1xf32>
}

// -----

// Tests that a LayerNorm-like kernel caches its row (gamma is read
// separately) but a kernel that also reads its reduced input transposed does
// not: the cache holds the thread's own positions only.
// CHECK-LABEL: func.func private @k_layernorm
// CHECK-SAME: cache_row = 1 : i64
// CHECK-SAME: emitter = "row_reduction"
// CHECK-LABEL: func.func private @k_transposed_reuse
// CHECK-SAME: cache_row = 0 : i64
// CHECK-SAME: emitter = "row_reduction"
func.func private @k_layernorm(%x: tensor<16x256xf32>, %g: tensor<256xf32>) -> tensor<16x256xf32> attributes {bwc.kernel} {
  %m = bwc.reduce mean %x axes = [1] keepdims = true : (tensor<16x256xf32>) -> tensor<16x1xf32>
  %d = bwc.binary sub %x, %m : (tensor<16x256xf32>, tensor<16x1xf32>) -> tensor<16x256xf32>
  %q = bwc.binary mul %d, %d : (tensor<16x256xf32>, tensor<16x256xf32>) -> tensor<16x256xf32>
  %v = bwc.reduce mean %q axes = [1] keepdims = true : (tensor<16x256xf32>) -> tensor<16x1xf32>
  %s = bwc.unary sqrt %v : (tensor<16x1xf32>) -> tensor<16x1xf32>
  %n = bwc.binary div %d, %s : (tensor<16x256xf32>, tensor<16x1xf32>) -> tensor<16x256xf32>
  %y = bwc.binary mul %n, %g : (tensor<16x256xf32>, tensor<256xf32>) -> tensor<16x256xf32>
  return %y : tensor<16x256xf32>
}
func.func private @k_transposed_reuse(%x: tensor<8x8xf32>) -> tensor<8x8xf32> attributes {bwc.kernel} {
  %m = bwc.reduce sum %x axes = [1] keepdims = true : (tensor<8x8xf32>) -> tensor<8x1xf32>
  %t = bwc.transpose %x perm = [1, 0] : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %y = bwc.binary sub %t, %m : (tensor<8x8xf32>, tensor<8x1xf32>) -> tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}

// -----

// Tests that a column reduction (not the trailing axis) gets the
// column-reduction emitter: 32 adjacent outputs x 8 slices of the 64 reduced
// positions; a row reduction whose per-row value is combined with another
// row's (numpy broadcasting of a non-keepdims result) get the
// thread-per-output emitter; an f32 matmul gets 64x64x16 shared tiles, a
// bf16 one the same tiles on the tensor cores (mma = 1), an i32 one and one
// with a second output of another shape thread-per-output.
// CHECK-LABEL: func.func private @k_column
// CHECK-SAME: bwc.config = {block = 1024 : i64, cache_column = 0 : i64, columns_per_block = 32 : i64, elements_per_thread = 2 : i64, emitter = "column_reduction", grid = 1 : i64, passes = 1 : i64, slices = 32 : i64, unroll = 2 : i64}
// CHECK-LABEL: func.func private @k_cross_row
// CHECK-SAME: emitter = "thread_per_output"
// CHECK-LABEL: func.func private @k_matmul
// CHECK-SAME: bwc.config = {block = 256 : i64, elements_per_thread = 16 : i64, emitter = "contraction_tiled", grid = 1 : i64, mma = 0 : i64, tile_k = 16 : i64, tile_m = 64 : i64, tile_n = 64 : i64}
// CHECK-LABEL: func.func private @k_matmul_bf16
// CHECK-SAME: emitter = "contraction_tiled", grid = 1 : i64, mma = 1 : i64
// CHECK-LABEL: func.func private @k_matmul_int
// CHECK-SAME: emitter = "thread_per_output"
// CHECK-LABEL: func.func private @k_matmul_two_shapes
// CHECK-SAME: emitter = "thread_per_output"
func.func private @k_column(%x: tensor<64x8xf32>) -> tensor<8xf32> attributes {bwc.kernel} {
  %m = bwc.reduce sum %x axes = [0] keepdims = false : (tensor<64x8xf32>) -> tensor<8xf32>
  return %m : tensor<8xf32>
}
func.func private @k_cross_row(%x: tensor<4x4xf32>) -> tensor<4x4xf32> attributes {bwc.kernel} {
  %m = bwc.reduce max %x axes = [1] keepdims = false : (tensor<4x4xf32>) -> tensor<4xf32>
  %d = bwc.binary sub %x, %m : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4x4xf32>
  return %d : tensor<4x4xf32>
}
func.func private @k_matmul(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> attributes {bwc.kernel} {
  %0 = bwc.matmul %a, %b : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}
func.func private @k_matmul_bf16(%a: tensor<4x8xbf16>, %b: tensor<8x16xbf16>) -> tensor<4x16xbf16> attributes {bwc.kernel} {
  %0 = bwc.matmul %a, %b : (tensor<4x8xbf16>, tensor<8x16xbf16>) -> tensor<4x16xbf16>
  return %0 : tensor<4x16xbf16>
}
func.func private @k_matmul_int(%a: tensor<4x8xi32>, %b: tensor<8x16xi32>) -> tensor<4x16xi32> attributes {bwc.kernel} {
  %0 = bwc.matmul %a, %b : (tensor<4x8xi32>, tensor<8x16xi32>) -> tensor<4x16xi32>
  return %0 : tensor<4x16xi32>
}
func.func private @k_matmul_two_shapes(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> (tensor<4x16xf32>, tensor<4x8xf32>) attributes {bwc.kernel} {
  %0 = bwc.matmul %a, %b : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %1 = bwc.unary neg %a : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0, %1 : tensor<4x16xf32>, tensor<4x8xf32>
}

// -----

// Tests that a column mean with an elementwise epilogue and a second,
// independent reduction is one column-reduction kernel (2 reduced positions:
// 2 slices, two passes over two inputs: not cached); that a reduction
// reading another's result (16 positions: 16 slices) and an epilogue that
// broadcasts the result back to the input shape (a walk per reduction plus
// one for the whole-shaped result) are column reductions too, with the
// thread's one position of the input cached in registers (one pass); and
// that integer inputs keep thread-per-output.
// CHECK-LABEL: func.func private @k_column_epilogue
// CHECK-SAME: block = 64 : i64, cache_column = 0 : i64, columns_per_block = 32 : i64, elements_per_thread = 1 : i64, emitter = "column_reduction", grid = 30 : i64, passes = 2 : i64, slices = 2 : i64, unroll = 1 : i64
// CHECK-LABEL: func.func private @k_column_softmax
// CHECK-SAME: block = 512 : i64, cache_column = 1 : i64, columns_per_block = 32 : i64, elements_per_thread = 1 : i64, emitter = "column_reduction", grid = 1 : i64, passes = 1 : i64, slices = 16 : i64, unroll = 1 : i64
// CHECK-LABEL: func.func private @k_column_broadcast
// CHECK-SAME: cache_column = 1 : i64
// CHECK-SAME: emitter = "column_reduction", grid = 1 : i64, passes = 1 : i64
// CHECK-LABEL: func.func private @k_column_int
// CHECK-SAME: emitter = "thread_per_output"
func.func private @k_column_epilogue(%x: tensor<3x2x320xf32>, %y: tensor<3x2x320xf32>) -> (tensor<3x1x320xf32>, tensor<3x1x320xf32>) attributes {bwc.kernel} {
  %m = bwc.reduce mean %x axes = [1] keepdims = true : (tensor<3x2x320xf32>) -> tensor<3x1x320xf32>
  %n = bwc.reduce max %y axes = [1] keepdims = true : (tensor<3x2x320xf32>) -> tensor<3x1x320xf32>
  %s = bwc.binary sub %m, %n : (tensor<3x1x320xf32>, tensor<3x1x320xf32>) -> tensor<3x1x320xf32>
  return %s, %n : tensor<3x1x320xf32>, tensor<3x1x320xf32>
}
func.func private @k_column_softmax(%x: tensor<16x32xf32>) -> tensor<1x32xf32> attributes {bwc.kernel} {
  %m = bwc.reduce max %x axes = [0] keepdims = true : (tensor<16x32xf32>) -> tensor<1x32xf32>
  %d = bwc.binary sub %x, %m : (tensor<16x32xf32>, tensor<1x32xf32>) -> tensor<16x32xf32>
  %s = bwc.reduce sum %d axes = [0] keepdims = true : (tensor<16x32xf32>) -> tensor<1x32xf32>
  return %s : tensor<1x32xf32>
}
func.func private @k_column_broadcast(%x: tensor<16x32xf32>) -> tensor<16x32xf32> attributes {bwc.kernel} {
  %m = bwc.reduce max %x axes = [0] keepdims = true : (tensor<16x32xf32>) -> tensor<1x32xf32>
  %d = bwc.binary sub %x, %m : (tensor<16x32xf32>, tensor<1x32xf32>) -> tensor<16x32xf32>
  return %d : tensor<16x32xf32>
}
func.func private @k_column_int(%x: tensor<16x32xi32>) -> tensor<32xi32> attributes {bwc.kernel} {
  %m = bwc.reduce sum %x axes = [0] keepdims = false : (tensor<16x32xi32>) -> tensor<32xi32>
  return %m : tensor<32xi32>
}

// -----

// Tests the issue-10 shapes: a column sum of 16384x4096 (128 groups of 32
// columns) gets 32 slices (1024 threads per block: 128 x 1024 threads on
// 132 SMs), 8 loads in flight per thread and one pass; a softmax over
// axis 0 of the same shape (max and sum of exp(x - max) in one online
// walk, then the whole-shaped output) is one column-reduction kernel with
// two passes over the input (512 positions per thread: too many to cache).
// CHECK-LABEL: func.func private @k_colsum_wide
// CHECK-SAME: bwc.config = {block = 1024 : i64, cache_column = 0 : i64, columns_per_block = 32 : i64, elements_per_thread = 512 : i64, emitter = "column_reduction", grid = 128 : i64, passes = 1 : i64, slices = 32 : i64, unroll = 8 : i64}
// CHECK-LABEL: func.func private @k_softmax_axis0
// CHECK-SAME: bwc.config = {block = 1024 : i64, cache_column = 0 : i64, columns_per_block = 32 : i64, elements_per_thread = 512 : i64, emitter = "column_reduction", grid = 128 : i64, passes = 2 : i64, slices = 32 : i64, unroll = 8 : i64}
func.func private @k_colsum_wide(%x: tensor<16384x4096xf32>) -> tensor<4096xf32> attributes {bwc.kernel} {
  %0 = bwc.reduce sum %x axes = [0] keepdims = false : (tensor<16384x4096xf32>) -> tensor<4096xf32>
  return %0 : tensor<4096xf32>
}
func.func private @k_softmax_axis0(%x: tensor<16384x4096xf32>) -> tensor<16384x4096xf32> attributes {bwc.kernel} {
  %m = bwc.reduce max %x axes = [0] keepdims = true : (tensor<16384x4096xf32>) -> tensor<1x4096xf32>
  %d = bwc.binary sub %x, %m : (tensor<16384x4096xf32>, tensor<1x4096xf32>) -> tensor<16384x4096xf32>
  %e = bwc.unary exp %d : (tensor<16384x4096xf32>) -> tensor<16384x4096xf32>
  %s = bwc.reduce sum %e axes = [0] keepdims = true : (tensor<16384x4096xf32>) -> tensor<1x4096xf32>
  %y = bwc.binary div %e, %s : (tensor<16384x4096xf32>, tensor<1x4096xf32>) -> tensor<16384x4096xf32>
  return %y : tensor<16384x4096xf32>
}

// -----

// Tests that a softmax over axis 0 of 100x40 keeps the thread's 4
// positions (100 over 32 slices) in registers: one pass; with the
// exponent taken of x + r (a second input of the full size) it walks the
// inputs three times.
// CHECK-LABEL: func.func private @k_softmax_axis0_small
// CHECK-SAME: bwc.config = {block = 1024 : i64, cache_column = 1 : i64, columns_per_block = 32 : i64, elements_per_thread = 4 : i64, emitter = "column_reduction", grid = 2 : i64, passes = 1 : i64, slices = 32 : i64, unroll = 4 : i64}
// CHECK-LABEL: func.func private @k_softmax_axis0_two_inputs
// CHECK-SAME: cache_column = 0 : i64
// CHECK-SAME: passes = 3 : i64
func.func private @k_softmax_axis0_small(%x: tensor<100x40xf32>) -> tensor<100x40xf32> attributes {bwc.kernel} {
  %m = bwc.reduce max %x axes = [0] keepdims = true : (tensor<100x40xf32>) -> tensor<1x40xf32>
  %d = bwc.binary sub %x, %m : (tensor<100x40xf32>, tensor<1x40xf32>) -> tensor<100x40xf32>
  %e = bwc.unary exp %d : (tensor<100x40xf32>) -> tensor<100x40xf32>
  %s = bwc.reduce sum %e axes = [0] keepdims = true : (tensor<100x40xf32>) -> tensor<1x40xf32>
  %y = bwc.binary div %e, %s : (tensor<100x40xf32>, tensor<1x40xf32>) -> tensor<100x40xf32>
  return %y : tensor<100x40xf32>
}
func.func private @k_softmax_axis0_two_inputs(%x: tensor<100x40xf32>, %r: tensor<100x40xf32>) -> tensor<100x40xf32> attributes {bwc.kernel} {
  %m = bwc.reduce max %x axes = [0] keepdims = true : (tensor<100x40xf32>) -> tensor<1x40xf32>
  %a = bwc.binary add %x, %r : (tensor<100x40xf32>, tensor<100x40xf32>) -> tensor<100x40xf32>
  %d = bwc.binary sub %a, %m : (tensor<100x40xf32>, tensor<1x40xf32>) -> tensor<100x40xf32>
  %e = bwc.unary exp %d : (tensor<100x40xf32>) -> tensor<100x40xf32>
  %s = bwc.reduce sum %e axes = [0] keepdims = true : (tensor<100x40xf32>) -> tensor<1x40xf32>
  %y = bwc.binary div %e, %s : (tensor<100x40xf32>, tensor<1x40xf32>) -> tensor<100x40xf32>
  return %y : tensor<100x40xf32>
}

// -----

// Tests which per-column values the column driver may bind: a
// non-keepdims sum over the leading axis broadcasts into its own column
// (column_reduction), one over a middle axis would be read at another
// column by numpy broadcasting ([4,16] against [4,4,16]), and a transpose
// of a value computed from a reduction reads other columns: both keep
// thread-per-output.
// CHECK-LABEL: func.func private @k_column_leading_broadcast
// CHECK-SAME: emitter = "column_reduction"
// CHECK-LABEL: func.func private @k_column_middle_broadcast
// CHECK-SAME: emitter = "thread_per_output"
// CHECK-LABEL: func.func private @k_column_transposed
// CHECK-SAME: emitter = "thread_per_output"
func.func private @k_column_leading_broadcast(%x: tensor<16x32xf32>) -> tensor<16x32xf32> attributes {bwc.kernel} {
  %s = bwc.reduce sum %x axes = [0] keepdims = false : (tensor<16x32xf32>) -> tensor<32xf32>
  %d = bwc.binary sub %x, %s : (tensor<16x32xf32>, tensor<32xf32>) -> tensor<16x32xf32>
  return %d : tensor<16x32xf32>
}
func.func private @k_column_middle_broadcast(%x: tensor<4x4x16xf32>) -> tensor<4x4x16xf32> attributes {bwc.kernel} {
  %s = bwc.reduce sum %x axes = [1] keepdims = false : (tensor<4x4x16xf32>) -> tensor<4x16xf32>
  %d = bwc.binary sub %x, %s : (tensor<4x4x16xf32>, tensor<4x16xf32>) -> tensor<4x4x16xf32>
  return %d : tensor<4x4x16xf32>
}
func.func private @k_column_transposed(%x: tensor<32x32xf32>) -> tensor<32x32xf32> attributes {bwc.kernel} {
  %m = bwc.reduce max %x axes = [0] keepdims = true : (tensor<32x32xf32>) -> tensor<1x32xf32>
  %d = bwc.binary sub %x, %m : (tensor<32x32xf32>, tensor<1x32xf32>) -> tensor<32x32xf32>
  %t = bwc.transpose %d perm = [1, 0] : (tensor<32x32xf32>) -> tensor<32x32xf32>
  return %t : tensor<32x32xf32>
}

// -----

// Tests that an NCHW -> NHWC transpose with a bias add gets 32x32 shared
// tiles (2 x 20 x ceil(40/32) x ceil(64/32) = 160 tiles), that two
// transposes with one permutation and input shape share the tiling, and
// that a transpose whose new innermost dimension has 3 elements, one that
// keeps the innermost dimension, two transposes with different
// permutations and six f64 transposes (6 x 32 x 33 x 8 bytes > 48 KiB of
// shared tiles) stay `loop`.
// CHECK-LABEL: func.func private @k_nhwc
// CHECK-SAME: bwc.config = {block = 256 : i64, elements_per_thread = 4 : i64, emitter = "transpose_tiled", grid = 160 : i64, tile = 32 : i64}
// CHECK-LABEL: func.func private @k_nhwc_rgb
// CHECK-SAME: emitter = "loop"
// CHECK-LABEL: func.func private @k_keeps_inner
// CHECK-SAME: emitter = "loop"
// CHECK-LABEL: func.func private @k_two_transposes
// CHECK-SAME: bwc.config = {block = 256 : i64, elements_per_thread = 4 : i64, emitter = "transpose_tiled", grid = 4 : i64, tile = 32 : i64}
// CHECK-LABEL: func.func private @k_two_perms
// CHECK-SAME: emitter = "loop"
// CHECK-LABEL: func.func private @k_six_f64_transposes
// CHECK-SAME: emitter = "loop"
func.func private @k_nhwc(%x: tensor<2x64x20x40xf32>, %b: tensor<64xf32>) -> tensor<2x20x40x64xf32> attributes {bwc.kernel} {
  %t = bwc.transpose %x perm = [0, 2, 3, 1] : (tensor<2x64x20x40xf32>) -> tensor<2x20x40x64xf32>
  %y = bwc.binary add %t, %b : (tensor<2x20x40x64xf32>, tensor<64xf32>) -> tensor<2x20x40x64xf32>
  return %y : tensor<2x20x40x64xf32>
}
func.func private @k_nhwc_rgb(%x: tensor<1x3x64x64xf32>) -> tensor<1x64x64x3xf32> attributes {bwc.kernel} {
  %t = bwc.transpose %x perm = [0, 2, 3, 1] : (tensor<1x3x64x64xf32>) -> tensor<1x64x64x3xf32>
  return %t : tensor<1x64x64x3xf32>
}
func.func private @k_keeps_inner(%x: tensor<32x64x48xf32>) -> tensor<64x32x48xf32> attributes {bwc.kernel} {
  %t = bwc.transpose %x perm = [1, 0, 2] : (tensor<32x64x48xf32>) -> tensor<64x32x48xf32>
  return %t : tensor<64x32x48xf32>
}
func.func private @k_two_transposes(%x: tensor<64x48xf32>, %y: tensor<64x48xf32>) -> tensor<48x64xf32> attributes {bwc.kernel} {
  %t = bwc.transpose %x perm = [1, 0] : (tensor<64x48xf32>) -> tensor<48x64xf32>
  %u = bwc.transpose %y perm = [1, 0] : (tensor<64x48xf32>) -> tensor<48x64xf32>
  %s = bwc.binary add %t, %u : (tensor<48x64xf32>, tensor<48x64xf32>) -> tensor<48x64xf32>
  return %s : tensor<48x64xf32>
}
func.func private @k_two_perms(%x: tensor<16x32x48xf32>, %y: tensor<32x48x16xf32>) -> tensor<16x48x32xf32> attributes {bwc.kernel} {
  %t = bwc.transpose %x perm = [0, 2, 1] : (tensor<16x32x48xf32>) -> tensor<16x48x32xf32>
  %u = bwc.transpose %y perm = [2, 1, 0] : (tensor<32x48x16xf32>) -> tensor<16x48x32xf32>
  %s = bwc.binary add %t, %u : (tensor<16x48x32xf32>, tensor<16x48x32xf32>) -> tensor<16x48x32xf32>
  return %s : tensor<16x48x32xf32>
}
func.func private @k_six_f64_transposes(%x: tensor<64x48xf64>) -> tensor<48x64xf64> attributes {bwc.kernel} {
  %e = bwc.unary exp %x : (tensor<64x48xf64>) -> tensor<64x48xf64>
  %n = bwc.unary neg %x : (tensor<64x48xf64>) -> tensor<64x48xf64>
  %a = bwc.unary abs %x : (tensor<64x48xf64>) -> tensor<64x48xf64>
  %q = bwc.unary sqrt %x : (tensor<64x48xf64>) -> tensor<64x48xf64>
  %h = bwc.unary tanh %x : (tensor<64x48xf64>) -> tensor<64x48xf64>
  %t0 = bwc.transpose %x perm = [1, 0] : (tensor<64x48xf64>) -> tensor<48x64xf64>
  %t1 = bwc.transpose %e perm = [1, 0] : (tensor<64x48xf64>) -> tensor<48x64xf64>
  %t2 = bwc.transpose %n perm = [1, 0] : (tensor<64x48xf64>) -> tensor<48x64xf64>
  %t3 = bwc.transpose %a perm = [1, 0] : (tensor<64x48xf64>) -> tensor<48x64xf64>
  %t4 = bwc.transpose %q perm = [1, 0] : (tensor<64x48xf64>) -> tensor<48x64xf64>
  %t5 = bwc.transpose %h perm = [1, 0] : (tensor<64x48xf64>) -> tensor<48x64xf64>
  %s0 = bwc.binary add %t0, %t1 : (tensor<48x64xf64>, tensor<48x64xf64>) -> tensor<48x64xf64>
  %s1 = bwc.binary add %s0, %t2 : (tensor<48x64xf64>, tensor<48x64xf64>) -> tensor<48x64xf64>
  %s2 = bwc.binary add %s1, %t3 : (tensor<48x64xf64>, tensor<48x64xf64>) -> tensor<48x64xf64>
  %s3 = bwc.binary add %s2, %t4 : (tensor<48x64xf64>, tensor<48x64xf64>) -> tensor<48x64xf64>
  %s4 = bwc.binary add %s3, %t5 : (tensor<48x64xf64>, tensor<48x64xf64>) -> tensor<48x64xf64>
  return %s4 : tensor<48x64xf64>
}

// -----

// Tests the diagnostic for a kernel without a body.
// expected-error @+1 {{expects a kernel with a body}}
func.func private @decl(tensor<4xf32>) -> tensor<4xf32> attributes {bwc.kernel}

// -----

// Tests the diagnostic for an impossible block size.
// RUN: not bwc-opt %s --bwc-configure-kernels="loop-block=100" 2>&1 | FileCheck %s --check-prefix=BLOCK
// BLOCK: expects sm-count >= 1 and loop-block, max-threads multiples of 32 with loop-block <= max-threads <= 1024 but got sm-count=132 loop-block=100 max-threads=1024

// -----

// Tests reductions followed by reshapes and transposes as the last steps
// (relaid): a channel mean moved channels-last and a LayerNorm-like row
// whose result is transposed get the row driver (it stores each element
// where the chain moves it); a transpose whose result feeds more
// arithmetic still mixes rows: thread_per_output.
// CHECK-LABEL: func.func private @k_mean_relaid
// CHECK-SAME: emitter = "row_reduction"
// CHECK-SAME: row = 64 : i64, rows = 8 : i64
// CHECK-LABEL: func.func private @k_row_transposed
// CHECK-SAME: emitter = "row_reduction"
// CHECK-LABEL: func.func private @k_transpose_then_add
// CHECK-SAME: emitter = "thread_per_output"
func.func private @k_mean_relaid(%x: tensor<1x8x8x8xf32>) -> tensor<1x1x1x8xf32> attributes {bwc.kernel} {
  %m = bwc.reduce mean %x axes = [2, 3] keepdims = true : (tensor<1x8x8x8xf32>) -> tensor<1x8x1x1xf32>
  %t = bwc.transpose %m perm = [0, 2, 3, 1] : (tensor<1x8x1x1xf32>) -> tensor<1x1x1x8xf32>
  return %t : tensor<1x1x1x8xf32>
}
func.func private @k_row_transposed(%x: tensor<4x6xf32>) -> tensor<1x6x4xf32> attributes {bwc.kernel} {
  %m = bwc.reduce mean %x axes = [1] keepdims = true : (tensor<4x6xf32>) -> tensor<4x1xf32>
  %d = bwc.binary sub %x, %m : (tensor<4x6xf32>, tensor<4x1xf32>) -> tensor<4x6xf32>
  %r = bwc.reshape %d : (tensor<4x6xf32>) -> tensor<1x4x6xf32>
  %t = bwc.transpose %r perm = [0, 2, 1] : (tensor<1x4x6xf32>) -> tensor<1x6x4xf32>
  return %t : tensor<1x6x4xf32>
}
func.func private @k_transpose_then_add(%x: tensor<4x4xf32>) -> tensor<4x4xf32> attributes {bwc.kernel} {
  %m = bwc.reduce mean %x axes = [1] keepdims = true : (tensor<4x4xf32>) -> tensor<4x1xf32>
  %d = bwc.binary sub %x, %m : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %t = bwc.transpose %d perm = [1, 0] : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %s = bwc.binary add %t, %d : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %s : tensor<4x4xf32>
}

// -----

// Tests conv-gemm-fill: a groups-1 convolution with 1 64x64 tile is an
// implicit GEMM only with sm-count 1 or conv-gemm-fill=false; with the
// default 132 SMs it runs one thread per output. A matmul of one tile is
// tiled either way.
// CHECK-LABEL: func.func private @k_conv_one_tile
// CHECK-SAME: emitter = "thread_per_output"
// CHECK-LABEL: func.func private @k_matmul_one_tile
// CHECK-SAME: emitter = "contraction_tiled"
// FILL1-LABEL: func.func private @k_conv_one_tile
// FILL1-SAME: emitter = "contraction_tiled", grid = 1 : i64
// NOFILL-LABEL: func.func private @k_conv_one_tile
// NOFILL-SAME: emitter = "contraction_tiled", grid = 1 : i64
// RUN: bwc-opt %s --split-input-file "--bwc-configure-kernels=sm-count=1" --verify-diagnostics | FileCheck %s --check-prefix=FILL1
// RUN: bwc-opt %s --split-input-file "--bwc-configure-kernels=conv-gemm-fill=false" --verify-diagnostics | FileCheck %s --check-prefix=NOFILL
func.func private @k_conv_one_tile(%x: tensor<1x8x6x6xf32>, %w: tensor<16x8x3x3xf32>) -> tensor<1x16x6x6xf32> attributes {bwc.kernel} {
  %c = bwc.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] groups = 1 : (tensor<1x8x6x6xf32>, tensor<16x8x3x3xf32>) -> tensor<1x16x6x6xf32>
  return %c : tensor<1x16x6x6xf32>
}
func.func private @k_matmul_one_tile(%a: tensor<8x16xf32>, %b: tensor<16x8xf32>) -> tensor<8x8xf32> attributes {bwc.kernel} {
  %c = bwc.matmul %a, %b : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
  return %c : tensor<8x8xf32>
}
