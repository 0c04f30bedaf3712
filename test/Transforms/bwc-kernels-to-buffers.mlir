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

// -----

// Tests that a buffer with no element and rank >= 2 is declared 1-D
// (memref<0xT>), reshaped inside: the bare-pointer calling convention of
// the CPU lowering refuses memref<3x2x0xf32> (ReduceSum of an empty input
// failed to compile until 2026-12-07).
// CHECK-LABEL: func.func private @empty(
// CHECK-SAME: %[[X:.*]]: memref<0xf32>, %[[OUT:.*]]: memref<3x1x1xf32>, %[[E:.*]]: memref<0xf32>)
// CHECK: %[[T:.*]] = bufferization.to_tensor %[[X]] restrict : memref<0xf32> to tensor<0xf32>
// CHECK: %[[S:.*]] = tensor.expand_shape %[[T]] {{\[\[}}0, 1, 2]] output_shape [3, 2, 0] : tensor<0xf32> into tensor<3x2x0xf32>
// CHECK: %[[R:.*]] = bwc.reduce sum %[[S]]
// CHECK: bufferization.materialize_in_destination %[[R]] in restrict writable %[[OUT]]
// CHECK: %[[C:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<4x0xf32> into tensor<0xf32>
// CHECK: bufferization.materialize_in_destination %[[C]] in restrict writable %[[E]]
func.func private @empty(%x: tensor<3x2x0xf32>) -> (tensor<3x1x1xf32>, tensor<4x0xf32>) attributes {bwc.kernel} {
  %s = bwc.reduce sum %x axes = [1, 2] keepdims = true : (tensor<3x2x0xf32>) -> tensor<3x1x1xf32>
  %e = bwc.constant dense<> : tensor<4x0xf32>
  return %s, %e : tensor<3x1x1xf32>, tensor<4x0xf32>
}
