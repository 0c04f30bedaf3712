// RUN: bwc-opt %s --convert-bwc-to-linalg --linalg-fuse-elementwise-ops --bwc-kernels-to-buffers --canonicalize --eliminate-empty-tensors --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" | FileCheck %s

// The first steps of buildCPULoweringPipeline (lib/Target/CPU/Pipeline.cpp),
// up to bufferization. bwc-compile lets bwc-plan-buffers write an update
// fused into a contraction's or reduction's epilogue over its state on
// every code generator (`epilogues`, docs/passes/bwc-plan-buffers.md): at
// run time the output buffer is the state's own. That holds on the linalg
// path only while the contraction accumulates in a buffer of its own and
// the epilogue reads the state at the element it writes, in one loop, as
// checked here. Were the output buffer ever the accumulator (filled before
// the epilogue reads the state), the state would be lost.

// CHECK-LABEL: func.func private @sgd_matmul(
// CHECK-SAME: %[[X:[a-z0-9]+]]: memref<16x32xf32>, %[[DY:[a-z0-9]+]]: memref<16x8xf32>, %[[W:[a-z0-9]+]]: memref<32x8xf32>, %[[OUT:[a-z0-9]+]]: memref<32x8xf32>)
// CHECK: %[[ACC:.*]] = memref.alloc() {{.*}} : memref<32x8xf32>
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[ACC]] : memref<32x8xf32>)
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}} outs(%[[ACC]] : memref<32x8xf32>)
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]} ins(%[[W]], %[[ACC]] : memref<32x8xf32>, memref<32x8xf32>) outs(%[[OUT]] : memref<32x8xf32>)
func.func private @sgd_matmul(%x: tensor<16x32xf32>, %dy: tensor<16x8xf32>, %w: tensor<32x8xf32>) -> tensor<32x8xf32> attributes {bwc.kernel} {
  %lr = bwc.constant dense<0.1> : tensor<f32>
  %xt = bwc.transpose %x perm = [1, 0] : (tensor<16x32xf32>) -> tensor<32x16xf32>
  %g = bwc.matmul %xt, %dy : (tensor<32x16xf32>, tensor<16x8xf32>) -> tensor<32x8xf32>
  %s = bwc.binary mul %lr, %g : (tensor<f32>, tensor<32x8xf32>) -> tensor<32x8xf32>
  %u = bwc.binary sub %w, %s : (tensor<32x8xf32>, tensor<32x8xf32>) -> tensor<32x8xf32>
  return %u : tensor<32x8xf32>
}

// CHECK-LABEL: func.func private @sgd_bias(
// CHECK-SAME: %[[DY:[a-z0-9]+]]: memref<16x8xf32>, %[[B:[a-z0-9]+]]: memref<8xf32>, %[[OUT:[a-z0-9]+]]: memref<8xf32>)
// CHECK: %[[ACC:.*]] = memref.alloc() {{.*}} : memref<8xf32>
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[ACC]] : memref<8xf32>)
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]{{.*}} outs(%[[ACC]] : memref<8xf32>)
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel"]} ins(%[[B]], %[[ACC]] : memref<8xf32>, memref<8xf32>) outs(%[[OUT]] : memref<8xf32>)
func.func private @sgd_bias(%dy: tensor<16x8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> attributes {bwc.kernel} {
  %lr = bwc.constant dense<0.1> : tensor<f32>
  %g = bwc.reduce sum %dy axes = [0] keepdims = false : (tensor<16x8xf32>) -> tensor<8xf32>
  %s = bwc.binary mul %lr, %g : (tensor<f32>, tensor<8xf32>) -> tensor<8xf32>
  %u = bwc.binary sub %b, %s : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %u : tensor<8xf32>
}

// A convolution's filter update (the conv reads the input and the output
// gradient, never the filter): nothing is written to the output buffer
// before the epilogue, which reads the filter where it writes.
// CHECK-LABEL: func.func private @sgd_conv_filter(
// CHECK-SAME: %{{[a-z0-9]+}}: memref<2x1x6x6xf32>, %{{[a-z0-9]+}}: memref<4x1x4x4xf32>, %[[F:[a-z0-9]+]]: memref<4x2x3x3xf32>, %[[OUT:[a-z0-9]+]]: memref<4x2x3x3xf32>)
// CHECK: %[[ACC:.*]] = memref.alloc() {{.*}} : memref<2x4x3x3xf32>
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[ACC]] : memref<2x4x3x3xf32>)
// CHECK-NOT: outs(%[[OUT]]
// CHECK: linalg.generic {{.*}}"reduction"]{{.*}} outs(%[[ACC]] : memref<2x4x3x3xf32>)
// CHECK-NOT: outs(%[[OUT]]
// CHECK: %[[T:.*]] = memref.alloc() {{.*}} : memref<4x2x3x3xf32>
// CHECK: linalg.transpose ins(%[[ACC]] : memref<2x4x3x3xf32>) outs(%[[T]] : memref<4x2x3x3xf32>)
// CHECK: ins(%[[F]], %[[T]] : memref<4x2x3x3xf32>, memref<4x2x3x3xf32>) outs(%[[OUT]] : memref<4x2x3x3xf32>)
func.func private @sgd_conv_filter(%x: tensor<2x1x6x6xf32>, %dy: tensor<4x1x4x4xf32>, %f: tensor<4x2x3x3xf32>) -> tensor<4x2x3x3xf32> attributes {bwc.kernel} {
  %lr = bwc.constant dense<0.1> : tensor<f32>
  %g = bwc.conv %x, %dy strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 1 : (tensor<2x1x6x6xf32>, tensor<4x1x4x4xf32>) -> tensor<2x4x3x3xf32>
  %gt = bwc.transpose %g perm = [1, 0, 2, 3] : (tensor<2x4x3x3xf32>) -> tensor<4x2x3x3xf32>
  %s = bwc.binary mul %lr, %gt : (tensor<f32>, tensor<4x2x3x3xf32>) -> tensor<4x2x3x3xf32>
  %u = bwc.binary sub %f, %s : (tensor<4x2x3x3xf32>, tensor<4x2x3x3xf32>) -> tensor<4x2x3x3xf32>
  return %u : tensor<4x2x3x3xf32>
}
