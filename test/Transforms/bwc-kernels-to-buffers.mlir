// RUN: bwc-opt %s --split-input-file --bwc-kernels-to-buffers --verify-diagnostics | FileCheck %s

// Tests the buffer ABI: memref inputs, then memref outputs, no results.
// CHECK-LABEL: func.func private @k(
// CHECK-SAME: %[[A:.*]]: memref<4xf32>, %[[B:.*]]: memref<f32>, %[[OUT:.*]]: memref<4xf32>)
// CHECK-SAME: attributes {bwc.kernel}
// CHECK-DAG: %[[TA:.*]] = bufferization.to_tensor %[[A]] restrict : memref<4xf32> to tensor<4xf32>
// CHECK-DAG: %[[TB:.*]] = bufferization.to_tensor %[[B]] restrict : memref<f32> to tensor<f32>
// CHECK: %[[R:.*]] = bwc.binary add %[[TA]], %[[TB]]
// CHECK: bufferization.materialize_in_destination %[[R]] in restrict writable %[[OUT]]
// CHECK-NEXT: return
// CHECK-NOT: bwc.kernel
// CHECK-LABEL: func.func @not_a_kernel(%{{.*}}: tensor<4xf32>) -> tensor<4xf32>
func.func private @k(%a: tensor<4xf32>, %b: tensor<f32>) -> tensor<4xf32> attributes {bwc.kernel} {
  %0 = bwc.binary add %a, %b : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @not_a_kernel(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}

// -----

// expected-error @+1 {{expects a kernel on ranked tensors but got 'i32'}}
func.func private @bad(%a: i32) attributes {bwc.kernel} {
  return
}
