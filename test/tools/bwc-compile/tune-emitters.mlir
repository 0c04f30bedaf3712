// RUN: rm -f %t.json
// RUN: env BWC_CUDA_DRIVER=%fake_cuda FAKE_CUDA_BEST_BLOCK=128 BWC_PTXAS=none bwc-compile %s --target=cuda --tune --tuning-cache=%t.json --emit=gpu -o %t.gpu 2>&1 | count 0
// RUN: FileCheck %s < %t.gpu
// RUN: FileCheck %s --check-prefix=CACHE < %t.json

// Tests that --tune's launch-shape variants of the reduction and matmul
// emitters are configurations their CUDA drivers accept: every candidate of
// a softmax (row_reduction: rows_per_block and threads_per_row halved and
// doubled), a column sum (column_reduction: slices halved and doubled) and
// a matmul (contraction_tiled: its one shape) compiles and runs on the fake
// driver with no "skips configuration" remark (nothing on stderr), and the
// row reduction takes the 128-thread shape the driver was told is fastest.
// CHECK-DAG: gpu.func @main_k0_fusion_reduction_bwc{{.*}}block = 128 : i64{{.*}}emitter = "row_reduction"{{.*}}threads_per_row = 128 : i64
// CHECK-DAG: gpu.func @main_k1_reduce_bwc{{.*}}emitter = "column_reduction"
// CHECK-DAG: gpu.func @main_k2_matmul_bwc{{.*}}emitter = "contraction_tiled"
// CACHE-COUNT-3: "kernel": "main_k
func.func @main(%x: tensor<64x1000xf32>, %y: tensor<4096x256xf32>, %a: tensor<64x128xf32>, %b: tensor<128x96xf32>) -> (tensor<64x1000xf32>, tensor<256xf32>, tensor<64x96xf32>) {
  %m = bwc.reduce max %x axes = [1] keepdims = true : (tensor<64x1000xf32>) -> tensor<64x1xf32>
  %d = bwc.binary sub %x, %m : (tensor<64x1000xf32>, tensor<64x1xf32>) -> tensor<64x1000xf32>
  %e = bwc.unary exp %d : (tensor<64x1000xf32>) -> tensor<64x1000xf32>
  %s = bwc.reduce sum %e axes = [1] keepdims = true : (tensor<64x1000xf32>) -> tensor<64x1xf32>
  %o = bwc.binary div %e, %s : (tensor<64x1000xf32>, tensor<64x1xf32>) -> tensor<64x1000xf32>
  %c = bwc.reduce sum %y axes = [0] keepdims = false : (tensor<4096x256xf32>) -> tensor<256xf32>
  %mm = bwc.matmul %a, %b : (tensor<64x128xf32>, tensor<128x96xf32>) -> tensor<64x96xf32>
  return %o, %c, %mm : tensor<64x1000xf32>, tensor<256xf32>, tensor<64x96xf32>
}
