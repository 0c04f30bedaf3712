// RUN: bwc-opt %s --split-input-file --bwc-emit-elemental-kernels="polynomial-math=false" | FileCheck %s

// Tests that a softmax-like reduction kernel runs the row driver: per row
// the max, then the sum (reading the bound max), then the row's outputs.
// CHECK-LABEL: func.func private @softmax(
// CHECK-SAME: bwc.elemental = "rows"
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[MAX:.*]] = scf.for {{.*}} iter_args
// CHECK: arith.maximumf
// CHECK: %[[SUM:.*]] = scf.for {{.*}} iter_args
// CHECK: arith.subf %{{.*}}, %[[MAX]]
// CHECK: math.exp
// CHECK: arith.addf
// CHECK: scf.for
// CHECK: arith.divf %{{.*}}, %[[SUM]]
// CHECK: memref.store
func.func private @softmax(%x: tensor<2x8xf32>) -> tensor<2x8xf32> attributes {bwc.kernel} {
  %m = bwc.reduce max %x axes = [1] keepdims = true : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %d = bwc.binary sub %x, %m : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %e = bwc.unary exp %d : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %s = bwc.reduce sum %e axes = [1] keepdims = true : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %y = bwc.binary div %e, %s : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

// Tests that an f16 mean accumulates in f32 and rounds once.
// CHECK-LABEL: func.func private @mean_f16(
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.addf %{{.*}} : f32
// CHECK: arith.divf %{{.*}} : f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func private @mean_f16(%x: tensor<4x8xf16>) -> tensor<4xf16> attributes {bwc.kernel} {
  %0 = bwc.reduce mean %x axes = [1] keepdims = false : (tensor<4x8xf16>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// Tests that argmax carries the best value and index through the loop.
// CHECK-LABEL: func.func private @argmax(
// CHECK-SAME: bwc.elemental = "elements"
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (f32, i64)
// CHECK: arith.cmpf ogt
func.func private @argmax(%x: tensor<3x5xf32>) -> tensor<3xi64> attributes {bwc.kernel} {
  %0 = bwc.arg_reduce argmax %x axis = 1 keepdims = false select_last_index = false : (tensor<3x5xf32>) -> tensor<3xi64>
  return %0 : tensor<3xi64>
}

// -----

// Tests that a reduction whose element does not change inside the loops
// around it is emitted before them, once per place: a LayerNorm-like
// kernel on the elements driver (the transposed result fails the row
// check) computes its means and variance ahead of the output loop nest,
// no loop deeper than the reduction's own two (before 2026-12-05 each
// reduction ran inside the loop of the one using it: difftest's finding
// 3, two chained LayerNorms, hours on cuda-sim).
// CHECK-LABEL: func.func private @nested_mean(
// CHECK-SAME: bwc.elemental = "elements"
// CHECK: scf.for
// CHECK: scf.for
// CHECK-NOT: scf.for
// CHECK: scf.yield
// CHECK: scf.yield
// CHECK: arith.divf
// CHECK: scf.for
// CHECK: scf.for
// CHECK-NOT: scf.for
// CHECK: scf.yield
// CHECK: scf.yield
// CHECK: arith.divf
// CHECK: scf.for
// CHECK: scf.for
// CHECK-NOT: scf.for
// CHECK: scf.yield
// CHECK: scf.yield
// CHECK: arith.divf
// CHECK: scf.for
// CHECK: scf.for
// CHECK-NOT: scf.for
// CHECK: memref.store
func.func private @nested_mean(%a: tensor<4x16xf32>) -> tensor<16x4xf32> attributes {bwc.kernel} {
  %m = bwc.reduce mean %a axes = [0, 1] keepdims = true : (tensor<4x16xf32>) -> tensor<1x1xf32>
  %d = bwc.binary sub %a, %m : (tensor<4x16xf32>, tensor<1x1xf32>) -> tensor<4x16xf32>
  %s = bwc.binary mul %d, %d : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %v = bwc.reduce mean %s axes = [0, 1] keepdims = true : (tensor<4x16xf32>) -> tensor<1x1xf32>
  %r = bwc.binary div %d, %v : (tensor<4x16xf32>, tensor<1x1xf32>) -> tensor<4x16xf32>
  %t = bwc.transpose %r perm = [1, 0] : (tensor<4x16xf32>) -> tensor<16x4xf32>
  return %t : tensor<16x4xf32>
}

// -----

// Tests that a reduction over an empty constant (what ReduceSumSquare of a
// 3x2x0 input folds to) emits a zero for the element no index reaches,
// instead of reading the last of no values (a segfault in bwc-compile
// --codegen=elemental and --target=cuda, found by fuzz-modelproto on
// 2026-12-07).
// CHECK-LABEL: func.func private @sum_of_empty_constant(
// CHECK: scf.for %{{.*}} = %{{.*}} to %c0{{(_[0-9]+)?}} step %{{.*}} iter_args
// CHECK-NEXT: %[[E:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: arith.addf %{{.*}}, %[[E]] : f32
// CHECK: memref.store
func.func private @sum_of_empty_constant() -> tensor<1x1x1xf32> attributes {bwc.kernel} {
  %c = bwc.constant dense<> : tensor<3x2x0xf32>
  %s = bwc.reduce sum %c axes = [0, 1, 2] keepdims = true : (tensor<3x2x0xf32>) -> tensor<1x1x1xf32>
  return %s : tensor<1x1x1xf32>
}
