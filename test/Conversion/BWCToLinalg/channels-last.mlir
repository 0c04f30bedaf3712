// RUN: bwc-opt %s --split-input-file --convert-bwc-to-linalg | FileCheck %s

// Tests that a channels_last conv reads NHWC input and a [K..., C, F]
// filter through the channels-first maps with permuted results, loops
// n, o..., f then k..., c (channel innermost), and adds the bias on the
// last dim.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 + d4, d2 + d5, d6)>
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d3)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[BIAS:.*]] = affine_map<(d0, d1, d2, d3) -> (d3)>
// CHECK-LABEL: func.func @conv
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[W]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
// CHECK-SAME: outs(%{{.*}} : tensor<1x3x3x4xf32>)
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[BIAS]], #{{.*}}]
func.func @conv(%x: tensor<1x5x5x2xf32>, %w: tensor<3x3x2x4xf32>, %b: tensor<4xf32>) -> tensor<1x3x3x4xf32> {
  %0 = bwc.conv %x, %w, %b strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 1 {channels_last}
      : (tensor<1x5x5x2xf32>, tensor<3x3x2x4xf32>, tensor<4xf32>) -> tensor<1x3x3x4xf32>
  return %0 : tensor<1x3x3x4xf32>
}

// -----

// Tests that a padded, grouped channels_last conv pads dims 1 and 2 (not
// the channel dim) and finds the input channel from f (loop d3) by floordiv.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 * 2 + d4, d2 * 2 + d5, (d3 floordiv 3) * 2 + d6)>
// CHECK-LABEL: func.func @grouped
// CHECK: tensor.extract_slice %{{.*}}[0, 1, 1, 0] [1, 6, 6, 4] [1, 1, 1, 1] : tensor<1x8x8x4xf32> to tensor<1x6x6x4xf32>
// CHECK: linalg.generic {indexing_maps = [#[[IN]],
// CHECK-SAME: outs(%{{.*}} : tensor<1x3x3x6xf32>)
func.func @grouped(%x: tensor<1x6x6x4xf32>, %w: tensor<3x3x2x6xf32>) -> tensor<1x3x3x6xf32> {
  %0 = bwc.conv %x, %w strides = [2, 2] dilations = [1, 1] pads = [1, 1, 1, 1] groups = 2 {channels_last}
      : (tensor<1x6x6x4xf32>, tensor<3x3x2x6xf32>) -> tensor<1x3x3x6xf32>
  return %0 : tensor<1x3x3x6xf32>
}

// -----

// Tests that a transposed channels_last conv dilates dims 1 and 2 by the
// stride and flips a [K..., F/groups, C] filter into [K..., C/groups, F].
// CHECK-DAG: #[[FLIP:.*]] = affine_map<(d0, d1, d2, d3) -> (-d0 + 1, -d1 + 1, d3, d2)>
// CHECK-LABEL: func.func @transposed
// CHECK: tensor.extract_slice %{{.*}}[0, 1, 1, 0] [1, 3, 3, 2] [1, 2, 2, 1]
// CHECK: linalg.generic {indexing_maps = [#[[FLIP]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%{{.*}} : tensor<2x2x3x2xf32>) outs(%{{.*}} : tensor<2x2x2x3xf32>)
func.func @transposed(%x: tensor<1x3x3x2xf32>, %w: tensor<2x2x3x2xf32>) -> tensor<1x6x6x3xf32> {
  %0 = bwc.conv %x, %w strides = [2, 2] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 1 {channels_last, transposed}
      : (tensor<1x3x3x2xf32>, tensor<2x2x3x2xf32>) -> tensor<1x6x6x3xf32>
  return %0 : tensor<1x6x6x3xf32>
}

// -----

// Tests that a channels_last avg pool loops n, o..., c then the window,
// and divides by a divisor indexed by the spatial dims 1 and 2.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 * 2 + d4, d2 * 2 + d5, d3)>
// CHECK-DAG: #[[WIN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[DIV:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d2)>
// CHECK-LABEL: func.func @avg_pool
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[WIN]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
// CHECK: arith.constant dense<{{.*}}> : tensor<3x2xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[DIV]], #{{.*}}]
func.func @avg_pool(%x: tensor<1x5x4x3xf32>) -> tensor<1x3x2x3xf32> {
  %0 = bwc.pool avg %x kernel = [2, 2] strides = [2, 2] dilations = [1, 1] pads = [0, 0, 0, 0]
      ceil_mode = true count_include_pad = false {channels_last} : (tensor<1x5x4x3xf32>) -> tensor<1x3x2x3xf32>
  return %0 : tensor<1x3x2x3xf32>
}
