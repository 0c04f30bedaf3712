// RUN: bwc-opt %s --split-input-file --bwc-emit-elemental-kernels="polynomial-math=false" | FileCheck %s

// Tests that transpose swaps the index: out[i, j] = in[j, i], loaded at
// j * 3 + i.
// CHECK-LABEL: func.func private @transpose(
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[M:.*]] = arith.muli %[[J]], %{{.*}}
// CHECK: %[[L:.*]] = arith.addi %[[I]], %[[M]]
// CHECK: memref.load %{{.*}}[%[[L]]]
func.func private @transpose(%a: tensor<4x3xf32>) -> tensor<3x4xf32> attributes {bwc.kernel} {
  %0 = bwc.transpose %a perm = [1, 0] : (tensor<4x3xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// Tests that concat reads only the input the element lies in (scf.if).
// CHECK-LABEL: func.func private @concat(
// CHECK: arith.cmpi slt
// CHECK: scf.if
// CHECK: memref.load %arg0
// CHECK: } else {
// CHECK: memref.load %arg1
func.func private @concat(%a: tensor<2xf32>, %b: tensor<3xf32>) -> tensor<5xf32> attributes {bwc.kernel} {
  %0 = bwc.concat %a, %b axis = 0 : (tensor<2xf32>, tensor<3xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

// Tests that constant padding reads the input only inside it.
// CHECK-LABEL: func.func private @pad(
// CHECK: arith.cmpi ult
// CHECK: scf.if
// CHECK: memref.load
// CHECK: } else {
// CHECK: arith.constant 0.0
func.func private @pad(%a: tensor<4xf32>) -> tensor<6xf32> attributes {bwc.kernel} {
  %0 = bwc.pad constant %a pads = [1, 1] value = 0.0 : f32 : (tensor<4xf32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// -----

// Tests that gather wraps negative indices and clamps into the axis.
// CHECK-LABEL: func.func private @gather(
// CHECK: arith.index_cast
// CHECK: arith.select
// CHECK: arith.maxsi
// CHECK: arith.minsi
// CHECK: memref.load %arg0
func.func private @gather(%d: tensor<5x2xf32>, %i: tensor<3xi64>) -> tensor<3x2xf32> attributes {bwc.kernel} {
  %0 = bwc.gather %d[%i] axis = 0 : (tensor<5x2xf32>, tensor<3xi64>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// Tests that a negative-step slice computes start + i * step.
// CHECK-LABEL: func.func private @slice(
// CHECK: arith.muli %{{.*}}, %c-1
// CHECK: arith.addi %{{.*}}, %c7
func.func private @slice(%a: tensor<8xf32>) -> tensor<8xf32> attributes {bwc.kernel} {
  %0 = bwc.slice %a starts = [7] steps = [-1] : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
