// RUN: env BWC_PTXAS=none bwc-compile %s --target=cuda --emit=gpu -o - | FileCheck %s

// Tests (2026-12-07) that transpose_tiled pads a 16-bit tile to 34
// columns (17 four-byte banks per row, an odd number: a warp's column
// read touches 32 banks) and a 32-bit one to 33 (transposeTileColumns).
// With 33 bf16 columns (16.5 banks) cuda-sim counted 1.20 conflict ways
// on the nchw_nhwc_bf16 microbenchmark; 1.00 with 34
// (docs/benchmarks.md, "Counters").
// CHECK-LABEL: gpu.func @main_k1_
// CHECK-SAME: workgroup(%{{.*}} : memref<32x33xf32, #gpu.address_space<workgroup>>
// CHECK-SAME: emitter = "transpose_tiled"
// CHECK-LABEL: gpu.func @main_k0_
// CHECK-SAME: workgroup(%{{.*}} : memref<32x34xbf16, #gpu.address_space<workgroup>>
// CHECK-SAME: emitter = "transpose_tiled"
func.func @main(%x: tensor<64x96xbf16>, %y: tensor<64x96xf32>) -> (tensor<96x64xbf16>, tensor<96x64xf32>) {
  %0 = bwc.transpose %x perm = [1, 0] : (tensor<64x96xbf16>) -> tensor<96x64xbf16>
  %1 = bwc.transpose %y perm = [1, 0] : (tensor<64x96xf32>) -> tensor<96x64xf32>
  return %0, %1 : tensor<96x64xbf16>, tensor<96x64xf32>
}
