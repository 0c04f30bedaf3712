// RUN: bwc-compile %s -o %t.bwc --report --report-json=%t.json | FileCheck %s
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// RUN: bwc-compile %s -o %t.none.bwc --report --tile=none | FileCheck %s --check-prefix=NONE
// RUN: not bwc-compile %s -o %t.bwc --tile=all 2>&1 | FileCheck %s --check-prefix=TILE
// RUN: not bwc-compile %s -o %t.bwc --tile-emitters=loop,warp_magic 2>&1 | FileCheck %s --check-prefix=EMITTERS

// Tests the access model's figures in bwc-compile's report: exp of every
// other element of x (a stride-2 slice fused into a loop kernel). With
// bwc-configure-kernels' vector 4 each thread reads 4 elements 8 bytes
// apart, four requests of 32 sectors where 4 would do, and writes one
// 16-sector vector: (4 x 4 + 16) / (4 x 32 + 16) = 0.222 (--tile=none).
// bwc-tile's vector 1 candidate reads 8 sectors for 4 and writes 4 per
// warp: 8 / 12 = 0.667, the kernel and the program. cuda-sim's counters
// give the same 0.667 and 0.222 (`bwc-run ART --device=cuda-sim
// --profile`, 2026-12-04). --tile=none is reported; bad options are
// errors.

// CHECK: == unfused
// CHECK: 0    bwc.slice {{.*}} -  slice
// CHECK: == fused
// CHECK: 0    fusion.loop {{.*}} 0.667  slice,unary.exp
// CHECK: coalescing 0.667 (bytes-weighted, CUDA configuration, --tile=default)
// JSON: "coalescing": {{0.666|0.667}}
// JSON: "coalescing_efficiency": {{0.666|0.667}}
// NONE: 0    fusion.loop {{.*}} 0.222  slice,unary.exp
// NONE: coalescing 0.222 (bytes-weighted, CUDA configuration, --tile=none)
// TILE: bwc-compile: unknown --tile 'all' (expected default or none)
// EMITTERS: error: expects emitters among loop, thread_per_output, row_reduction, column_reduction, transpose_tiled, contraction_tiled, contraction_thread but got 'warp_magic'
func.func @main(%x: tensor<8192xf32>) -> tensor<4096xf32> {
  %0 = bwc.slice %x starts = [0] steps = [2] : (tensor<8192xf32>) -> tensor<4096xf32>
  %1 = bwc.unary exp %0 : (tensor<4096xf32>) -> tensor<4096xf32>
  return %1 : tensor<4096xf32>
}
