// RUN: bwc-opt %s --split-input-file --convert-bwc-to-linalg | FileCheck %s

// Tests that a transpose becomes linalg.transpose with the same permutation.
// CHECK-LABEL: func.func @transpose
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<8x2x4xf32>
// CHECK: %[[T:.*]] = linalg.transpose ins(%{{.*}} : tensor<4x8x2xf32>) outs(%[[EMPTY]] : tensor<8x2x4xf32>) permutation = [1, 2, 0]
// CHECK: return %[[T]]
func.func @transpose(%x: tensor<4x8x2xf32>) -> tensor<8x2x4xf32> {
  %0 = bwc.transpose %x perm = [1, 2, 0] : (tensor<4x8x2xf32>) -> tensor<8x2x4xf32>
  return %0 : tensor<8x2x4xf32>
}

// -----

// Tests that a reshape merging dims is one tensor.collapse_shape.
// CHECK-LABEL: func.func @reshape_collapse
// CHECK: %[[C:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
// CHECK: return %[[C]]
func.func @reshape_collapse(%x: tensor<2x3x4xf32>) -> tensor<6x4xf32> {
  %0 = bwc.reshape %x : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// -----

// Tests that a reshape adding unit dims is one tensor.expand_shape, on the
// signless type of an unsigned tensor.
// CHECK-LABEL: func.func @reshape_expand
// CHECK: %[[E:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2]] output_shape [1, 6, 4] : tensor<6x4xi8> into tensor<1x6x4xi8>
// CHECK: return %[[E]]
func.func @reshape_expand(%x: tensor<6x4xui8>) -> tensor<1x6x4xui8> {
  %0 = bwc.reshape %x : (tensor<6x4xui8>) -> tensor<1x6x4xui8>
  return %0 : tensor<1x6x4xui8>
}

// -----

// Tests that a reshape whose dims do not group goes through 1-D.
// CHECK-LABEL: func.func @reshape_regroup
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1]] : tensor<4x6xf32> into tensor<24xf32>
// CHECK: %[[E:.*]] = tensor.expand_shape %[[FLAT]] {{\[}}[0, 1]] output_shape [3, 8] : tensor<24xf32> into tensor<3x8xf32>
// CHECK: return %[[E]]
func.func @reshape_regroup(%x: tensor<4x6xf32>) -> tensor<3x8xf32> {
  %0 = bwc.reshape %x : (tensor<4x6xf32>) -> tensor<3x8xf32>
  return %0 : tensor<3x8xf32>
}

// -----

// Tests that a slice with a negative step reads a positive-stride
// extract_slice through a generic that reverses that dim.
// CHECK-DAG: #[[REV:.*]] = affine_map<(d0, d1) -> (d0, -d1 + 7)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @slice_negative_step
// CHECK: %[[BOX:.*]] = tensor.extract_slice %{{.*}}[1, 0] [2, 8] [2, 1] : tensor<4x8xf32> to tensor<2x8xf32>
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<2x8xf32>
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[REV]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[BOX]] : tensor<2x8xf32>) outs(%[[EMPTY]] : tensor<2x8xf32>)
// CHECK: return %[[R]]
func.func @slice_negative_step(%x: tensor<4x8xf32>) -> tensor<2x8xf32> {
  %0 = bwc.slice %x starts = [1, 7] steps = [2, -1] : (tensor<4x8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// Tests that a zero-sized slice is just an empty tensor.
// CHECK-LABEL: func.func @slice_empty
// CHECK: %[[E:.*]] = tensor.empty() : tensor<0x8xf32>
// CHECK-NOT: linalg.generic
// CHECK: return %[[E]]
func.func @slice_empty(%x: tensor<4x8xf32>) -> tensor<0x8xf32> {
  %0 = bwc.slice %x starts = [9, 0] steps = [1, 1] : (tensor<4x8xf32>) -> tensor<0x8xf32>
  return %0 : tensor<0x8xf32>
}

// -----

// Tests that concat copies each input into its box of one destination
// (extract_slice, copy, insert_slice at the running offset).
// CHECK-LABEL: func.func @concat
// CHECK-SAME: (%[[A:.*]]: tensor<2x8xf32>, %[[B:.*]]: tensor<2x3xf32>)
// CHECK: %[[DEST:.*]] = tensor.empty() : tensor<2x11xf32>
// CHECK: %[[BOX0:.*]] = tensor.extract_slice %[[DEST]][0, 0] [2, 8] [1, 1]
// CHECK: %[[C0:.*]] = linalg.generic {{.*}} ins(%[[A]] : tensor<2x8xf32>) outs(%[[BOX0]] : tensor<2x8xf32>)
// CHECK: %[[D1:.*]] = tensor.insert_slice %[[C0]] into %[[DEST]][0, 0] [2, 8] [1, 1]
// CHECK: %[[BOX1:.*]] = tensor.extract_slice %[[D1]][0, 8] [2, 3] [1, 1]
// CHECK: %[[C1:.*]] = linalg.generic {{.*}} ins(%[[B]] : tensor<2x3xf32>) outs(%[[BOX1]] : tensor<2x3xf32>)
// CHECK: %[[D2:.*]] = tensor.insert_slice %[[C1]] into %[[D1]][0, 8] [2, 3] [1, 1]
// CHECK: return %[[D2]]
func.func @concat(%a: tensor<2x8xf32>, %b: tensor<2x3xf32>) -> tensor<2x11xf32> {
  %0 = bwc.concat %a, %b axis = 1 : (tensor<2x8xf32>, tensor<2x3xf32>) -> tensor<2x11xf32>
  return %0 : tensor<2x11xf32>
}

// -----

// Tests that constant padding fills the result with the (signless) value
// and copies the input into the interior.
// CHECK-LABEL: func.func @pad_constant
// CHECK: %[[V:.*]] = arith.constant -56 : i8
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<5x10xi8>
// CHECK: %[[FILL:.*]] = linalg.fill ins(%[[V]] : i8) outs(%[[EMPTY]] : tensor<5x10xi8>)
// CHECK: %[[BOX:.*]] = tensor.extract_slice %[[FILL]][1, 2] [4, 8] [1, 1]
// CHECK: %[[COPY:.*]] = linalg.generic {{.*}} outs(%[[BOX]] : tensor<4x8xi8>)
// CHECK: %[[R:.*]] = tensor.insert_slice %[[COPY]] into %[[FILL]][1, 2] [4, 8] [1, 1]
// CHECK: return %[[R]]
func.func @pad_constant(%x: tensor<4x8xui8>) -> tensor<5x10xui8> {
  %0 = bwc.pad constant %x pads = [1, 2, 0, 0] value = 200 : ui8 : (tensor<4x8xui8>) -> tensor<5x10xui8>
  return %0 : tensor<5x10xui8>
}

// -----

// Tests that reflect padding reads the mirrored source index (no repeated
// edge: |j| then 2*(len-1) - j) with tensor.extract; unpadded dims read
// the output index.
// CHECK-LABEL: func.func @pad_reflect
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<4x12xf32>)
// CHECK: %[[I0:.*]] = linalg.index 0 : index
// CHECK: %[[I1:.*]] = linalg.index 1 : index
// CHECK: %[[J:.*]] = arith.subi %[[I1]], %{{.*}} : index
// CHECK: %[[NEG:.*]] = arith.subi %{{.*}}, %[[J]] : index
// CHECK: %[[ABS:.*]] = arith.maxsi %[[J]], %[[NEG]] : index
// CHECK: %[[C14:.*]] = arith.constant 14 : index
// CHECK: %[[BACK:.*]] = arith.subi %[[C14]], %[[ABS]] : index
// CHECK: %[[M:.*]] = arith.minsi %[[ABS]], %[[BACK]] : index
// CHECK: %[[LO:.*]] = arith.maxsi %[[M]], %{{.*}} : index
// CHECK: %[[SRC:.*]] = arith.minsi %[[LO]], %{{.*}} : index
// CHECK: %[[E:.*]] = tensor.extract %[[X]][%[[I0]], %[[SRC]]] : tensor<4x8xf32>
// CHECK: linalg.yield %[[E]] : f32
func.func @pad_reflect(%x: tensor<4x8xf32>) -> tensor<4x12xf32> {
  %0 = bwc.pad reflect %x pads = [0, 2, 0, 2] value = 0.0 : f32 : (tensor<4x8xf32>) -> tensor<4x12xf32>
  return %0 : tensor<4x12xf32>
}

// -----

// Tests that edge padding clamps the source index into the input.
// CHECK-LABEL: func.func @pad_edge
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<7xi64>)
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK: %[[J:.*]] = arith.subi %[[I]], %{{.*}} : index
// CHECK: %[[LO:.*]] = arith.maxsi %[[J]], %{{.*}} : index
// CHECK: %[[SRC:.*]] = arith.minsi %[[LO]], %{{.*}} : index
// CHECK: tensor.extract %{{.*}}[%[[SRC]]] : tensor<3xi64>
func.func @pad_edge(%x: tensor<3xi64>) -> tensor<7xi64> {
  %0 = bwc.pad edge %x pads = [2, 2] value = 0 : i64 : (tensor<3xi64>) -> tensor<7xi64>
  return %0 : tensor<7xi64>
}

// -----

// Tests that gather reads the indices through the result dims they span,
// wraps negative indices, clamps them into the axis and extracts.
// CHECK-DAG: #[[IDX:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d2)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @gather_axis1
// CHECK-SAME: (%[[DATA:.*]]: tensor<10x8x5xf32>, %[[IND:.*]]: tensor<3x2xi32>)
// CHECK: linalg.generic {indexing_maps = [#[[IDX]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%[[IND]] : tensor<3x2xi32>)
// CHECK: ^bb0(%[[IN:.*]]: i32, %{{.*}}: f32):
// CHECK: %[[I:.*]] = arith.index_cast %[[IN]] : i32 to index
// CHECK: %[[NEG:.*]] = arith.cmpi slt, %[[I]], %{{.*}} : index
// CHECK: %[[C8:.*]] = arith.constant 8 : index
// CHECK: %[[WRAP:.*]] = arith.addi %[[I]], %[[C8]] : index
// CHECK: %[[S:.*]] = arith.select %[[NEG]], %[[WRAP]], %[[I]] : index
// CHECK: %[[LO:.*]] = arith.maxsi %[[S]], %{{.*}} : index
// CHECK: %[[C7:.*]] = arith.constant 7 : index
// CHECK: %[[K:.*]] = arith.minsi %[[LO]], %[[C7]] : index
// CHECK: %[[D0:.*]] = linalg.index 0 : index
// CHECK: %[[D3:.*]] = linalg.index 3 : index
// CHECK: %[[E:.*]] = tensor.extract %[[DATA]][%[[D0]], %[[K]], %[[D3]]] : tensor<10x8x5xf32>
// CHECK: linalg.yield %[[E]] : f32
func.func @gather_axis1(%x: tensor<10x8x5xf32>, %i: tensor<3x2xi32>) -> tensor<10x3x2x5xf32> {
  %0 = bwc.gather %x[%i] axis = 1 : (tensor<10x8x5xf32>, tensor<3x2xi32>) -> tensor<10x3x2x5xf32>
  return %0 : tensor<10x3x2x5xf32>
}

// -----

// Tests that a scalar index gathers with an indices map of no results.
// CHECK-DAG: #[[SCALAR:.*]] = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func @gather_scalar
// CHECK: linalg.generic {indexing_maps = [#[[SCALAR]], #{{.*}}]
// CHECK-SAME: ins(%{{.*}} : tensor<i64>) outs(%{{.*}} : tensor<5xf16>)
// CHECK: arith.index_cast %{{.*}} : i64 to index
// CHECK: tensor.extract %{{.*}}[%{{.*}}, %{{.*}}] : tensor<2x5xf16>
func.func @gather_scalar(%x: tensor<2x5xf16>, %i: tensor<i64>) -> tensor<5xf16> {
  %0 = bwc.gather %x[%i] axis = 0 : (tensor<2x5xf16>, tensor<i64>) -> tensor<5xf16>
  return %0 : tensor<5xf16>
}
