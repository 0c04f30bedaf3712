// RUN: bwc-opt %s --split-input-file --convert-bwc-to-linalg | FileCheck %s

// Tests that a sum reduces to the kept dims from a zero init, with the
// reduced dims as reduction iterators.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[KEPT:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @sum_middle
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<2x4xf32>
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]] : tensor<2x4xf32>)
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[KEPT]]], iterator_types = ["parallel", "reduction", "parallel"]}
// CHECK-SAME: ins(%{{.*}} : tensor<2x3x4xf32>) outs(%[[INIT]] : tensor<2x4xf32>)
// CHECK: arith.addf
// CHECK: return %[[R]]
func.func @sum_middle(%x: tensor<2x3x4xf32>) -> tensor<2x4xf32> {
  %0 = bwc.reduce sum %x axes = [1] keepdims = false : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Tests that a mean divides the sum by the reduced element count and that
// keepdims re-inserts the unit dims with tensor.expand_shape.
// CHECK-LABEL: func.func @mean_keepdims
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "parallel", "reduction"]
// CHECK-SAME: outs(%{{.*}} : tensor<3xf32>)
// CHECK: arith.addf
// CHECK: %[[MEAN:.*]] = linalg.generic {{.*}} iterator_types = ["parallel"]
// CHECK-SAME: ins(%[[SUM]] : tensor<3xf32>)
// CHECK: %[[N:.*]] = arith.constant 8.000000e+00 : f32
// CHECK: arith.divf %{{.*}}, %[[N]] : f32
// CHECK: tensor.expand_shape %[[MEAN]] {{\[}}[0, 1, 2]] output_shape [1, 3, 1] : tensor<3xf32> into tensor<1x3x1xf32>
func.func @mean_keepdims(%x: tensor<2x3x4xf32>) -> tensor<1x3x1xf32> {
  %0 = bwc.reduce mean %x axes = [0, 2] keepdims = true : (tensor<2x3x4xf32>) -> tensor<1x3x1xf32>
  return %0 : tensor<1x3x1xf32>
}

// -----

// Tests that an integer mean uses signed integer division.
// CHECK-LABEL: func.func @mean_int
// CHECK: arith.addi
// CHECK: %[[N:.*]] = arith.constant 4 : i32
// CHECK: arith.divsi %{{.*}}, %[[N]] : i32
func.func @mean_int(%x: tensor<3x4xi32>) -> tensor<3xi32> {
  %0 = bwc.reduce mean %x axes = [1] keepdims = false : (tensor<3x4xi32>) -> tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

// Tests that a float max starts from -inf and propagates NaN (maximumf),
// and that reducing every dim with keepdims expands a 0-d tensor.
// CHECK-LABEL: func.func @max_all
// CHECK: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: linalg.fill ins(%[[NEGINF]] : f32) outs(%{{.*}} : tensor<f32>)
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]
// CHECK: arith.maximumf
// CHECK: tensor.expand_shape %{{.*}} [] output_shape [1, 1] : tensor<f32> into tensor<1x1xf32>
func.func @max_all(%x: tensor<3x4xf32>) -> tensor<1x1xf32> {
  %0 = bwc.reduce max %x axes = [0, 1] keepdims = true : (tensor<3x4xf32>) -> tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}

// -----

// Tests that an unsigned min starts from the largest unsigned value and
// compares unsigned, on signless tensors.
// CHECK-LABEL: func.func @min_unsigned
// CHECK-SAME: (%{{.*}}: tensor<3x4xi8>) -> tensor<3xi8>
// CHECK: %[[MAX:.*]] = arith.constant -1 : i8
// CHECK: linalg.fill ins(%[[MAX]] : i8)
// CHECK: arith.minui
func.func @min_unsigned(%x: tensor<3x4xui8>) -> tensor<3xui8> {
  %0 = bwc.reduce min %x axes = [1] keepdims = false : (tensor<3x4xui8>) -> tensor<3xui8>
  return %0 : tensor<3xui8>
}

// -----

// Tests that a signed integer max starts from INT_MIN and a product from 1.
// CHECK-LABEL: func.func @max_prod_int
// CHECK: arith.constant -2147483648 : i32
// CHECK: arith.maxsi
// CHECK: arith.constant 1 : i64
// CHECK: arith.muli
func.func @max_prod_int(%x: tensor<3x4xi32>, %y: tensor<3x4xi64>) -> (tensor<4xi32>, tensor<4xi64>) {
  %0 = bwc.reduce max %x axes = [0] keepdims = false : (tensor<3x4xi32>) -> tensor<4xi32>
  %1 = bwc.reduce prod %y axes = [0] keepdims = false : (tensor<3x4xi64>) -> tensor<4xi64>
  return %0, %1 : tensor<4xi32>, tensor<4xi64>
}

// -----

// Tests that empty axes are the identity.
// CHECK-LABEL: func.func @no_axes
// CHECK-SAME: (%[[X:.*]]: tensor<3x4xf32>)
// CHECK-NOT: linalg.generic
// CHECK: return %[[X]]
func.func @no_axes(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = bwc.reduce sum %x axes = [] keepdims = true : (tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// Tests that argmax carries the best value and its index in two outputs,
// replaces only on a strictly greater value (first index on ties) and lets
// a NaN win.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[KEPT:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @argmax
// CHECK: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[BEST:.*]] = linalg.fill ins(%[[NEGINF]] : f32)
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK: %[[IDX:.*]] = linalg.fill ins(%[[ZERO]] : i64)
// CHECK: %[[R:.*]]:2 = linalg.generic {indexing_maps = [#[[ID]], #[[KEPT]], #[[KEPT]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME: outs(%[[BEST]], %[[IDX]] : tensor<4xf32>, tensor<4xi64>)
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf uno
// CHECK: %[[I:.*]] = linalg.index 1 : index
// CHECK: arith.index_cast %[[I]] : index to i64
// CHECK: return %[[R]]#1
func.func @argmax(%x: tensor<4x8xf32>) -> tensor<4xi64> {
  %0 = bwc.arg_reduce argmax %x axis = 1 keepdims = false select_last_index = false : (tensor<4x8xf32>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// Tests that argmin with select_last_index replaces on less-or-equal,
// compares unsigned for unsigned elements, and keeps the reduced dim.
// CHECK-LABEL: func.func @argmin_last
// CHECK: arith.constant -1 : i8
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]
// CHECK: arith.cmpi ule
// CHECK: linalg.index 0 : index
// CHECK: tensor.expand_shape %{{.*}}#1 {{\[}}[0, 1]] output_shape [1, 8] : tensor<8xi64> into tensor<1x8xi64>
func.func @argmin_last(%x: tensor<4x8xui8>) -> tensor<1x8xi64> {
  %0 = bwc.arg_reduce argmin %x axis = 0 keepdims = true select_last_index = true : (tensor<4x8xui8>) -> tensor<1x8xi64>
  return %0 : tensor<1x8xi64>
}

// -----

// Tests that a bf16 mean accumulates in f32 (f32 init, each element
// extended) and rounds once after the division, and that a bf16 max stays
// in bf16 (exact).
// CHECK-LABEL: func.func @mean_bf16
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<3xf32>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<3x4xbf16>) outs(%{{.*}} : tensor<3xf32>)
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: arith.addf %{{.*}} : f32
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<3xf32>) outs(%{{.*}} : tensor<3xbf16>)
// CHECK: arith.divf %{{.*}} : f32
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK-LABEL: func.func @max_f16
// CHECK: linalg.fill ins(%{{.*}} : f16) outs(%{{.*}} : tensor<3xf16>)
// CHECK: arith.maximumf %{{.*}} : f16
// CHECK-NOT: arith.truncf
func.func @mean_bf16(%x: tensor<3x4xbf16>) -> tensor<3xbf16> {
  %0 = bwc.reduce mean %x axes = [1] keepdims = false : (tensor<3x4xbf16>) -> tensor<3xbf16>
  return %0 : tensor<3xbf16>
}
func.func @max_f16(%x: tensor<3x4xf16>) -> tensor<3xf16> {
  %0 = bwc.reduce max %x axes = [1] keepdims = false : (tensor<3x4xf16>) -> tensor<3xf16>
  return %0 : tensor<3xf16>
}
