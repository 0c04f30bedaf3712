// RUN: bwc-opt %s --split-input-file --bwc-emit-elemental-kernels="polynomial-math=false" | FileCheck %s

// Tests that a loop kernel becomes one loop nest over the output on flat
// buffers and that broadcasting folds into the operand's index: b[j] is
// read at the inner index only.
// CHECK-LABEL: func.func private @bcast_add(
// CHECK-SAME: %[[A:.*]]: memref<12xf32>, %[[B:.*]]: memref<4xf32>, %[[OUT:.*]]: memref<12xf32>)
// CHECK-SAME: bwc.elemental = "elements"
// CHECK: scf.for %[[I:.*]] =
// CHECK: scf.for %[[J:.*]] =
// CHECK: %[[X:.*]] = memref.load %[[A]]
// CHECK: %[[Y:.*]] = memref.load %[[B]][%[[J]]]
// CHECK: %[[S:.*]] = arith.addf %[[X]], %[[Y]]
// CHECK: memref.store %[[S]], %[[OUT]]
func.func private @bcast_add(%a: tensor<3x4xf32>, %b: tensor<4xf32>) -> tensor<3x4xf32> attributes {bwc.kernel} {
  %0 = bwc.binary add %a, %b : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// Tests that a value used twice (gelu-like x * sigmoid(x)) is loaded once
// per element (memoization).
// CHECK-LABEL: func.func private @reuse(
// CHECK: memref.load
// CHECK-NOT: memref.load
// CHECK: memref.store
func.func private @reuse(%a: tensor<8xf32>) -> tensor<8xf32> attributes {bwc.kernel} {
  %0 = bwc.unary sigmoid %a : (tensor<8xf32>) -> tensor<8xf32>
  %1 = bwc.binary mul %a, %0 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %1 : tensor<8xf32>
}

// -----

// Tests that unsigned integers keep their signedness (ui8 division is
// divui) on signless buffers, and casts to bf16 go through the shared
// scalar cast.
// CHECK-LABEL: func.func private @unsigned(
// CHECK-SAME: memref<4xi8>
// CHECK: arith.divui
// CHECK: arith.uitofp
func.func private @unsigned(%a: tensor<4xui8>, %b: tensor<4xui8>) -> tensor<4xbf16> attributes {bwc.kernel} {
  %0 = bwc.binary div %a, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %1 = bwc.cast %0 : tensor<4xui8> to tensor<4xbf16>
  return %1 : tensor<4xbf16>
}

// -----

// Tests that a small inline constant is a select chain on the linear index.
// CHECK-LABEL: func.func private @small_constant(
// CHECK: arith.cmpi eq
// CHECK: arith.select
// CHECK: arith.mulf
func.func private @small_constant(%a: tensor<2xf32>) -> tensor<2xf32> attributes {bwc.kernel} {
  %c = bwc.constant dense<[2.0, 3.0]> : tensor<2xf32>
  %0 = bwc.binary mul %a, %c : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Tests that a large inline constant becomes a private memref.global.
// CHECK: memref.global "private" constant @__bwc_constant : memref<20xf32>
// CHECK-LABEL: func.func private @large_constant(
// CHECK: memref.get_global @__bwc_constant
func.func private @large_constant(%a: tensor<20xf32>) -> tensor<20xf32> attributes {bwc.kernel} {
  %c = bwc.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0]> : tensor<20xf32>
  %0 = bwc.binary mul %a, %c : (tensor<20xf32>, tensor<20xf32>) -> tensor<20xf32>
  return %0 : tensor<20xf32>
}

// -----

// Tests that polynomial-math expands tanh (no libm call is left).
// RUN: bwc-opt %s --split-input-file --bwc-emit-elemental-kernels | FileCheck %s --check-prefix=POLY
// POLY-LABEL: func.func private @poly(
// POLY-NOT: math.tanh
// POLY: return
func.func private @poly(%a: tensor<4xf32>) -> tensor<4xf32> attributes {bwc.kernel} {
  %0 = bwc.unary tanh %a : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests that bit shifts guard the shift amount: from the bit width on,
// arith's shifts are poison and ONNX BitShift gives 0, so the amount is
// compared with the width and the result selected; ui8 shifts right
// logically.
// CHECK-LABEL: func.func private @shifts(
// CHECK: %[[W:.*]] = arith.constant 8 : i8
// CHECK: %[[FAR:.*]] = arith.cmpi uge, %[[R:.*]], %[[W]] : i8
// CHECK: arith.select %[[FAR]]
// CHECK: %[[L:.*]] = arith.shli
// CHECK: arith.select %[[FAR]], {{.*}}, %[[L]]
// CHECK: arith.shrui
func.func private @shifts(%a: tensor<4xui8>, %b: tensor<4xui8>) -> (tensor<4xui8>, tensor<4xui8>) attributes {bwc.kernel} {
  %0 = bwc.binary shl %a, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %1 = bwc.binary shr %a, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  return %0, %1 : tensor<4xui8>, tensor<4xui8>
}

// -----

// Tests that the inverse and hyperbolic trigonometric functions become the
// math dialect's ops (expanded or approximated per target later).
// CHECK-LABEL: func.func private @trig(
// CHECK: math.tan
// CHECK: math.asin
// CHECK: math.acos
// CHECK: math.atan
// CHECK: math.sinh
// CHECK: math.cosh
// CHECK: math.asinh
// CHECK: math.acosh
// CHECK: math.atanh
func.func private @trig(%a: tensor<4xf32>) -> tensor<4xf32> attributes {bwc.kernel} {
  %0 = bwc.unary tan %a : (tensor<4xf32>) -> tensor<4xf32>
  %1 = bwc.unary asin %0 : (tensor<4xf32>) -> tensor<4xf32>
  %2 = bwc.unary acos %1 : (tensor<4xf32>) -> tensor<4xf32>
  %3 = bwc.unary atan %2 : (tensor<4xf32>) -> tensor<4xf32>
  %4 = bwc.unary sinh %3 : (tensor<4xf32>) -> tensor<4xf32>
  %5 = bwc.unary cosh %4 : (tensor<4xf32>) -> tensor<4xf32>
  %6 = bwc.unary asinh %5 : (tensor<4xf32>) -> tensor<4xf32>
  %7 = bwc.unary acosh %6 : (tensor<4xf32>) -> tensor<4xf32>
  %8 = bwc.unary atanh %7 : (tensor<4xf32>) -> tensor<4xf32>
  return %8 : tensor<4xf32>
}
