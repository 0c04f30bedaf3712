// RUN: bwc-compile %s -o %t.bwc --report --report-json=%t.json | FileCheck %s
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// RUN: bwc-compile %s -o %t.none.bwc --report --tile=none | FileCheck %s --check-prefix=NONE
// RUN: not bwc-compile %s -o %t.bwc --tile=all 2>&1 | FileCheck %s --check-prefix=TILE
// RUN: not bwc-compile %s -o %t.bwc --tile-emitters=loop,warp_magic 2>&1 | FileCheck %s --check-prefix=EMITTERS

// Tests the access model's figures in bwc-compile's report: exp of every
// other element of x (a stride-2 slice fused into a loop kernel) uses half
// of every sector it reads: 32 KiB read at 0.5 and 16 KiB written at 1
// give the kernel and the program 49152 / 81920 = 0.6; --tile=none is
// reported; bad options are errors.

// CHECK: == unfused
// CHECK: 0    bwc.slice {{.*}} -  slice
// CHECK: == fused
// CHECK: 0    fusion.loop {{.*}} 0.600  slice,unary.exp
// CHECK: coalescing 0.600 (bytes-weighted, CUDA configuration, --tile=default)
// JSON: "coalescing": {{0.6|0.59999}}
// JSON: "coalescing_efficiency": {{0.6|0.59999}}
// NONE: coalescing 0.600 (bytes-weighted, CUDA configuration, --tile=none)
// TILE: bwc-compile: unknown --tile 'all' (expected default or none)
// EMITTERS: error: expects emitters among loop, thread_per_output, row_reduction, column_reduction, transpose_tiled, contraction_tiled but got 'warp_magic'
func.func @main(%x: tensor<8192xf32>) -> tensor<4096xf32> {
  %0 = bwc.slice %x starts = [0] steps = [2] : (tensor<8192xf32>) -> tensor<4096xf32>
  %1 = bwc.unary exp %0 : (tensor<4096xf32>) -> tensor<4096xf32>
  return %1 : tensor<4096xf32>
}
