// RUN: bwc-opt %s --split-input-file --bwc-outline-kernels --verify-diagnostics | FileCheck %s

// Tests that every op becomes one kernel called in program order, that a
// weight-sized constant is passed as an argument and a scalar one is cloned,
// and that each kernel records its kind.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:.*]]: tensor<4x32xf32>)
// CHECK: %[[W:.*]] = bwc.constant dense<1.000000e+00> : tensor<32xf32>
// CHECK-NOT: bwc.constant
// CHECK: %[[A:.*]] = call @main_k0_binary_add(%[[X]], %[[W]])
// CHECK: %[[B:.*]] = call @main_k1_binary_mul(%[[A]])
// CHECK: %[[C:.*]] = call @main_k2_reduce(%[[B]])
// CHECK: return %[[C]]
// CHECK: func.func private @main_k2_reduce(%{{.*}}: tensor<4x32xf32>) -> tensor<4xf32> attributes {bwc.kernel, bwc.kind = "reduction"}
// CHECK-NEXT: bwc.reduce sum
// CHECK: func.func private @main_k1_binary_mul(%[[IN:.*]]: tensor<4x32xf32>) -> tensor<4x32xf32> attributes {bwc.kernel, bwc.kind = "loop"}
// CHECK-NEXT: %[[TWO:.*]] = bwc.constant dense<2.000000e+00> : tensor<f32>
// CHECK-NEXT: bwc.binary mul %[[IN]], %[[TWO]]
// CHECK: func.func private @main_k0_binary_add(%{{.*}}: tensor<4x32xf32>, %{{.*}}: tensor<32xf32>) -> tensor<4x32xf32> attributes {bwc.kernel, bwc.kind = "loop"}
func.func @main(%x: tensor<4x32xf32>) -> tensor<4xf32> {
  %w = bwc.constant dense<1.0> : tensor<32xf32>
  %two = bwc.constant dense<2.0> : tensor<f32>
  %0 = bwc.binary add %x, %w : (tensor<4x32xf32>, tensor<32xf32>) -> tensor<4x32xf32>
  %1 = bwc.binary mul %0, %two : (tensor<4x32xf32>, tensor<f32>) -> tensor<4x32xf32>
  %2 = bwc.reduce sum %1 axes = [1] keepdims = false : (tensor<4x32xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----

// Tests that a value used twice by one op is passed once.
// CHECK-LABEL: func.func @main
// CHECK: call @main_k0_binary_mul(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
// CHECK: func.func private @main_k0_binary_mul(%[[A:.*]]: tensor<8xf32>)
// CHECK-NEXT: bwc.binary mul %[[A]], %[[A]]
func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = bwc.binary mul %x, %x : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Tests the diagnostic for a module without the program function.
// expected-error @+1 {{expects a program function named 'main'}}
module {
  func.func @other() {
    return
  }
}

// -----

// Tests that an op with an empty result launches nothing.
// CHECK-LABEL: func.func @main
// CHECK-NEXT: %[[E:.*]] = bwc.constant dense<> : tensor<3x0xf32>
// CHECK-NEXT: return %[[E]]
// CHECK-NOT: func.func private
func.func @main(%x: tensor<3x0xf32>) -> tensor<3x0xf32> {
  %0 = bwc.unary exp %x : (tensor<3x0xf32>) -> tensor<3x0xf32>
  return %0 : tensor<3x0xf32>
}

// -----

// Tests that a fusion region becomes one kernel with the region as body.
// CHECK-LABEL: func.func @main
// CHECK: %[[R:.*]]:2 = call @main_k0_fusion_reduction(%arg0) : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x1xf32>)
// CHECK: return %[[R]]#0, %[[R]]#1
// CHECK: func.func private @main_k0_fusion_reduction(%[[X:.*]]: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x1xf32>) attributes {bwc.kernel, bwc.kind = "reduction"}
// CHECK-NEXT: %[[M:.*]] = bwc.reduce max %[[X]]
// CHECK-NEXT: %[[D:.*]] = bwc.binary sub %[[X]], %[[M]]
// CHECK-NEXT: return %[[D]], %[[M]]
func.func @main(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x1xf32>) {
  %r:2 = bwc.fusion reduction (%x) : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x1xf32>) {
  ^bb0(%a: tensor<4x8xf32>):
    %m = bwc.reduce max %a axes = [1] keepdims = true : (tensor<4x8xf32>) -> tensor<4x1xf32>
    %d = bwc.binary sub %a, %m : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
    bwc.yield %d, %m : tensor<4x8xf32>, tensor<4x1xf32>
  }
  return %r#0, %r#1 : tensor<4x8xf32>, tensor<4x1xf32>
}
