// RUN: bwc-opt %s --split-input-file --convert-bwc-to-linalg | FileCheck %s

// Tests that a matmul is one generic over (m, n, k) with k a reduction,
// accumulating into a zero-filled output.
// CHECK-DAG: #[[LHS:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[RHS:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @matmul
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32)
// CHECK: linalg.generic {indexing_maps = [#[[LHS]], #[[RHS]], #[[OUT]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME: outs(%[[INIT]] : tensor<3x5xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
func.func @matmul(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) -> tensor<3x5xf32> {
  %0 = bwc.matmul %a, %b : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// Tests that broadcast batch dims read index 0 (size 1) or are dropped
// (missing), and that integers multiply-accumulate in the element type.
// CHECK-DAG: #[[LHS:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, 0, d2, d4)>
// CHECK-DAG: #[[RHS:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d4, d3)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @matmul_broadcast
// CHECK: linalg.generic {indexing_maps = [#[[LHS]], #[[RHS]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
// CHECK: arith.muli
// CHECK: arith.addi
func.func @matmul_broadcast(%a: tensor<2x1x3x4xi32>, %b: tensor<3x4x5xi32>) -> tensor<2x3x3x5xi32> {
  %0 = bwc.matmul %a, %b : (tensor<2x1x3x4xi32>, tensor<3x4x5xi32>) -> tensor<2x3x3x5xi32>
  return %0 : tensor<2x3x3x5xi32>
}

// -----

// Tests that a grouped, strided, padded convolution pads with zeros, finds
// the input channel with floordiv on the output channel, and adds the bias
// after the reduction.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, (d1 floordiv 4) * 2 + d4, d2 * 2 + d5, d3 * 2 + d6)>
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[CHAN:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @conv_grouped
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x6x6xf32>, %[[F:.*]]: tensor<8x2x3x3xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK: %[[ZEROS:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x4x7x7xf32>)
// CHECK: %[[BOX:.*]] = tensor.extract_slice %[[ZEROS]][0, 0, 1, 1] [1, 4, 6, 6] [1, 1, 1, 1]
// CHECK: %[[COPY:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<1x4x6x6xf32>) outs(%[[BOX]] : tensor<1x4x6x6xf32>)
// CHECK: %[[PADDED:.*]] = tensor.insert_slice %[[COPY]] into %[[ZEROS]][0, 0, 1, 1] [1, 4, 6, 6] [1, 1, 1, 1]
// CHECK: %[[CONV:.*]] = linalg.generic {indexing_maps = [#[[IN]], #[[W]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
// CHECK-SAME: ins(%[[PADDED]], %[[F]] : tensor<1x4x7x7xf32>, tensor<8x2x3x3xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[CHAN]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%[[CONV]], %[[B]] : tensor<1x8x3x3xf32>, tensor<8xf32>)
// CHECK: arith.addf
func.func @conv_grouped(%x: tensor<1x4x6x6xf32>, %w: tensor<8x2x3x3xf32>, %b: tensor<8xf32>) -> tensor<1x8x3x3xf32> {
  %0 = bwc.conv %x, %w, %b strides = [2, 2] dilations = [1, 1] pads = [1, 1, 0, 0] groups = 2 : (tensor<1x4x6x6xf32>, tensor<8x2x3x3xf32>, tensor<8xf32>) -> tensor<1x8x3x3xf32>
  return %0 : tensor<1x8x3x3xf32>
}

// -----

// Tests that a strided transposed convolution is a direct one over the
// input with zeros inserted (a strided slice of a zero tensor), padded by
// d * (k - 1) - pad (+ output_padding at the end), with the filter flipped
// and its channel dims swapped per group.
// CHECK-DAG: #[[FLIP:.*]] = affine_map<(d0, d1, d2) -> ((d0 floordiv 2) * 2 + d1, d0 mod 2, -d2 + 2)>
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, (d1 floordiv 2) * 2 + d3, d2 + d4)>
// CHECK-LABEL: func.func @conv_transposed
// CHECK: %[[ZEROS:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x4x13xf32>)
// CHECK: tensor.extract_slice %[[ZEROS]][0, 0, 1] [1, 4, 5] [1, 1, 2]
// CHECK: %[[DILATED:.*]] = tensor.insert_slice %{{.*}} into %[[ZEROS]][0, 0, 1] [1, 4, 5] [1, 1, 2]
// CHECK: %[[FILTER:.*]] = linalg.generic {indexing_maps = [#[[FLIP]], #{{.*}}]
// CHECK-SAME: ins(%{{.*}} : tensor<4x2x3xf32>) outs(%{{.*}} : tensor<4x2x3xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]}
// CHECK-SAME: ins(%[[DILATED]], %[[FILTER]] : tensor<1x4x13xf32>, tensor<4x2x3xf32>)
func.func @conv_transposed(%x: tensor<1x4x5xf32>, %w: tensor<4x2x3xf32>) -> tensor<1x4x11xf32> {
  %0 = bwc.conv %x, %w strides = [2] dilations = [1] pads = [1, 0] groups = 2 {transposed, output_padding = array<i64: 1>} : (tensor<1x4x5xf32>, tensor<4x2x3xf32>) -> tensor<1x4x11xf32>
  return %0 : tensor<1x4x11xf32>
}

// -----

// Tests that pads larger than d * (k - 1) slice the input of a transposed
// convolution instead of padding it.
// CHECK-LABEL: func.func @conv_transposed_crop
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x5xf32>
// CHECK: %[[CROP:.*]] = tensor.extract_slice %[[X]][0, 0, 1] [1, 2, 4] [1, 1, 1]
// CHECK: linalg.generic {{.*}} ins(%[[CROP]], %{{.*}} : tensor<1x2x4xf32>, tensor<1x2x2xf32>) outs(%{{.*}} : tensor<1x1x3xf32>)
func.func @conv_transposed_crop(%x: tensor<1x2x5xf32>, %w: tensor<2x1x2xf32>) -> tensor<1x1x3xf32> {
  %0 = bwc.conv %x, %w strides = [1] dilations = [1] pads = [2, 1] groups = 1 {transposed, output_padding = array<i64: 0>} : (tensor<1x2x5xf32>, tensor<2x1x2xf32>) -> tensor<1x1x3xf32>
  return %0 : tensor<1x1x3xf32>
}

// -----

// Tests that a ceil_mode max pool pads with -inf past the end so the last
// window is in bounds, and iterates the window through an unused operand.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 * 2 + d3)>
// CHECK-DAG: #[[WIN:.*]] = affine_map<(d0, d1, d2, d3) -> (d3)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @maxpool_ceil
// CHECK: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: linalg.fill ins(%[[NEGINF]] : f32) outs(%{{.*}} : tensor<1x1x6xf32>)
// CHECK: %[[PADDED:.*]] = tensor.insert_slice %{{.*}}[0, 0, 0] [1, 1, 5] [1, 1, 1] : tensor<1x1x5xf32> into tensor<1x1x6xf32>
// CHECK: %[[WINDOW:.*]] = tensor.empty() : tensor<2xf32>
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[WIN]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[PADDED]], %[[WINDOW]] : tensor<1x1x6xf32>, tensor<2xf32>)
// CHECK: arith.maximumf
func.func @maxpool_ceil(%x: tensor<1x1x5xf32>) -> tensor<1x1x3xf32> {
  %0 = bwc.pool max %x kernel = [2] strides = [2] dilations = [1] pads = [0, 0] ceil_mode = true count_include_pad = false : (tensor<1x1x5xf32>) -> tensor<1x1x3xf32>
  return %0 : tensor<1x1x3xf32>
}

// -----

// Tests that an average pool sums over zero padding and divides by a
// constant divisor that, without count_include_pad, counts only the
// positions inside the input.
// CHECK-DAG: #[[SPATIAL:.*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @avgpool
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x1x7xf32>)
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK: arith.addf
// CHECK: %[[DIV:.*]] = arith.constant dense<[2.000000e+00, 3.000000e+00, 2.000000e+00]> : tensor<3xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[SPATIAL]], #{{.*}}]
// CHECK-SAME: ins(%[[SUM]], %[[DIV]] : tensor<1x1x3xf32>, tensor<3xf32>)
// CHECK: arith.divf
func.func @avgpool(%x: tensor<1x1x5xf32>) -> tensor<1x1x3xf32> {
  %0 = bwc.pool avg %x kernel = [3] strides = [2] dilations = [1] pads = [1, 1] ceil_mode = false count_include_pad = false : (tensor<1x1x5xf32>) -> tensor<1x1x3xf32>
  return %0 : tensor<1x1x3xf32>
}

// -----

// Tests that with count_include_pad the divisor counts the explicit
// padding but not the extra end padding that ceil_mode adds.
// CHECK-LABEL: func.func @avgpool_include_pad_ceil
// CHECK: arith.constant dense<[3.000000e+00, 3.000000e+00, 2.000000e+00]> : tensor<3xf32>
func.func @avgpool_include_pad_ceil(%x: tensor<1x1x5xf32>) -> tensor<1x1x3xf32> {
  %0 = bwc.pool avg %x kernel = [3] strides = [2] dilations = [1] pads = [1, 0] ceil_mode = true count_include_pad = true : (tensor<1x1x5xf32>) -> tensor<1x1x3xf32>
  return %0 : tensor<1x1x3xf32>
}
