// RUN: bwc-compile %s -o %t.bwc --report --report-json=%t.json | FileCheck %s
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// RUN: bwc-compile %s -o %t.all.bwc --report --tile-emitters=loop,thread_per_output,transpose_tiled | FileCheck %s --check-prefix=TILED
// RUN: bwc-compile %s -o %t.none.bwc --report --tile=none --tile-emitters=loop,transpose_tiled | FileCheck %s --check-prefix=NONE
// RUN: not bwc-compile %s -o %t.bwc --tile=all 2>&1 | FileCheck %s --check-prefix=TILE
// RUN: not bwc-compile %s -o %t.bwc --tile-emitters=loop,warp_magic 2>&1 | FileCheck %s --check-prefix=EMITTERS

// Tests the access model's figures in bwc-compile's report: a transpose
// fused with exp under the loop emitter reads one f32 per 32-byte sector
// (1/8; 2/9 for the kernel, which also writes 256 KiB coalesced); with
// transpose_tiled allowed, bwc-tile coalesces both sides; --tile=none keeps
// the default configuration whatever the emitters; bad options are errors.

// CHECK: == fused
// CHECK: 0    fusion.loop {{.*}} 0.222  transpose,unary.exp
// CHECK: coalescing 0.222 (bytes-weighted, CUDA configuration, --tile=default)
// JSON: "coalescing": 0.2222
// JSON: "coalescing_efficiency": 0.2222
// TILED: 0    fusion.loop {{.*}} 1.000  transpose,unary.exp
// TILED: coalescing 1.000
// NONE: coalescing 0.222 (bytes-weighted, CUDA configuration, --tile=none)
// TILE: bwc-compile: unknown --tile 'all' (expected default or none)
// EMITTERS: error: expects emitters among loop, thread_per_output, row_reduction, column_reduction, transpose_tiled, contraction_tiled but got 'warp_magic'
func.func @main(%x: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %0 = bwc.transpose %x perm = [1, 0] : (tensor<256x256xf32>) -> tensor<256x256xf32>
  %1 = bwc.unary exp %0 : (tensor<256x256xf32>) -> tensor<256x256xf32>
  return %1 : tensor<256x256xf32>
}
