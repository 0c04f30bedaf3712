// RUN: env BWC_CUDA_DRIVER=%fake_cuda BWC_PTXAS=none bwc-compile %s --target=cuda --tune --tuning-cache=%t.json --emit=gpu -o %t.gpu 2>&1 | count 0
// RUN: FileCheck %s < %t.gpu

// Tests that --tune's column_reduction variants of a softmax over axis 0
// whose column is cached in registers (1024 positions over 32 slices: 32
// per thread) are configurations the CUDA driver accepts: halving the
// slices (64 per thread, over the 32 a thread may cache) drops the cache
// instead of asking the driver for it, so no candidate is skipped
// (nothing on stderr).
// CHECK: gpu.func @main_k0_fusion_reduction_bwc{{.*}}emitter = "column_reduction"
func.func @main(%x: tensor<1024x64xf32>) -> tensor<1024x64xf32> {
  %m = bwc.reduce max %x axes = [0] keepdims = true : (tensor<1024x64xf32>) -> tensor<1x64xf32>
  %d = bwc.binary sub %x, %m : (tensor<1024x64xf32>, tensor<1x64xf32>) -> tensor<1024x64xf32>
  %e = bwc.unary exp %d : (tensor<1024x64xf32>) -> tensor<1024x64xf32>
  %s = bwc.reduce sum %e axes = [0] keepdims = true : (tensor<1024x64xf32>) -> tensor<1x64xf32>
  %y = bwc.binary div %e, %s : (tensor<1024x64xf32>, tensor<1x64xf32>) -> tensor<1024x64xf32>
  return %y : tensor<1024x64xf32>
}
