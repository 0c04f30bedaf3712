// RUN: bwc-opt %s --split-input-file --convert-bwc-to-linalg | FileCheck %s

// Tests that nearest resize is one generic over the output reading one
// element: unit dims read index 0, unresized dims the output index, and
// resized dims the rounded, clamped coordinate.
// CHECK-LABEL: func.func @nearest_asymmetric_floor
// CHECK-SAME: (%[[X:.*]]: tensor<1x3x4x4xf32>)
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<1x3x8x8xf32>
// CHECK: %[[R:.*]] = linalg.generic {{.*}} outs(%[[EMPTY]] : tensor<1x3x8x8xf32>)
// CHECK: %[[C:.*]] = linalg.index 1 : index
// CHECK: %[[H:.*]] = linalg.index 2 : index
// CHECK: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK: %[[HI:.*]] = arith.index_cast %[[H]] : index to i64
// CHECK: %[[HF:.*]] = arith.sitofp %[[HI]] : i64 to f32
// CHECK: %[[S:.*]] = arith.constant 2.000000e+00 : f32
// CHECK: %[[Q:.*]] = arith.divf %[[HF]], %[[S]] : f32
// CHECK: %[[FL:.*]] = math.floor %[[Q]] : f32
// CHECK: %[[FI:.*]] = arith.fptosi %[[FL]] : f32 to i64
// CHECK: %[[IX:.*]] = arith.index_cast %[[FI]] : i64 to index
// CHECK: %[[LO:.*]] = arith.maxsi %[[IX]], %{{.*}} : index
// CHECK: %[[ROW:.*]] = arith.minsi %[[LO]], %{{.*}} : index
// CHECK: %[[E:.*]] = tensor.extract %[[X]][%[[ZERO]], %[[C]], %[[ROW]], %{{.*}}] : tensor<1x3x4x4xf32>
// CHECK: linalg.yield %[[E]] : f32
// CHECK: return %[[R]]
func.func @nearest_asymmetric_floor(%x: tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32> {
  %0 = bwc.resize nearest %x scales = [1.0, 1.0, 2.0, 2.0] coord = asymmetric nearest_mode = floor : (tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32>
  return %0 : tensor<1x3x8x8xf32>
}

// -----

// Tests that round_prefer_floor rounds with ceil(x - 0.5) after the
// half_pixel transform (x + 0.5) / scale - 0.5.
// CHECK-LABEL: func.func @nearest_half_pixel_prefer_floor
// CHECK: %[[ADD:.*]] = arith.addf %{{.*}}, %{{.*}} : f32
// CHECK: %[[DIV:.*]] = arith.divf %[[ADD]], %{{.*}} : f32
// CHECK: %[[COORD:.*]] = arith.subf %[[DIV]], %{{.*}} : f32
// CHECK: %[[SHIFT:.*]] = arith.subf %[[COORD]], %{{.*}} : f32
// CHECK: math.ceil %[[SHIFT]] : f32
// CHECK: tensor.extract
func.func @nearest_half_pixel_prefer_floor(%x: tensor<6xf32>) -> tensor<4xf32> {
  %0 = bwc.resize nearest %x scales = [0.6666666666666666] coord = half_pixel nearest_mode = round_prefer_floor : (tensor<6xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests that linear resize of an unsigned integer image clamps the
// coordinate, reads 2 taps along the resized dim only, accumulates in f32
// and rounds and saturates the result to the u8 range.
// CHECK-LABEL: func.func @linear_u8
// CHECK-SAME: (%[[X:.*]]: tensor<4x4xi8>) -> tensor<4x8xi8>
// CHECK: %[[ROW:.*]] = linalg.index 0 : index
// CHECK: %[[C0:.*]] = arith.maximumf %{{.*}}, %{{.*}} : f32
// CHECK: %[[C:.*]] = arith.minimumf %[[C0]], %{{.*}} : f32
// CHECK: %[[FL:.*]] = math.floor %[[C]] : f32
// CHECK: %[[W1:.*]] = arith.subf %[[C]], %[[FL]] : f32
// CHECK: %[[W0:.*]] = arith.subf %{{.*}}, %[[W1]] : f32
// CHECK: %[[A:.*]] = tensor.extract %[[X]][%[[ROW]], %{{.*}}] : tensor<4x4xi8>
// CHECK: %[[AF:.*]] = arith.uitofp %[[A]] : i8 to f32
// CHECK: %[[AW:.*]] = arith.mulf %[[AF]], %[[W0]] : f32
// CHECK: %[[B:.*]] = tensor.extract %[[X]][%[[ROW]], %{{.*}}] : tensor<4x4xi8>
// CHECK: %[[BF:.*]] = arith.uitofp %[[B]] : i8 to f32
// CHECK: %[[BW:.*]] = arith.mulf %[[BF]], %[[W1]] : f32
// CHECK: %[[SUM:.*]] = arith.addf %[[AW]], %[[BW]] : f32
// CHECK-NOT: tensor.extract
// CHECK: %[[RD:.*]] = math.round %[[SUM]] : f32
// CHECK: %[[LOW:.*]] = arith.maximumf %[[RD]], %{{.*}} : f32
// CHECK: %[[MAX:.*]] = arith.constant 2.550000e+02 : f32
// CHECK: %[[SAT:.*]] = arith.minimumf %[[LOW]], %[[MAX]] : f32
// CHECK: %[[Y:.*]] = arith.fptoui %[[SAT]] : f32 to i8
// CHECK: linalg.yield %[[Y]] : i8
func.func @linear_u8(%x: tensor<4x4xui8>) -> tensor<4x8xui8> {
  %0 = bwc.resize linear %x scales = [1.0, 2.0] coord = half_pixel nearest_mode = floor : (tensor<4x4xui8>) -> tensor<4x8xui8>
  return %0 : tensor<4x8xui8>
}

// -----

// Tests that bilinear resize reads 2x2 taps.
// CHECK-LABEL: func.func @bilinear
// CHECK-COUNT-4: tensor.extract
// CHECK-NOT: tensor.extract
// CHECK: linalg.yield
func.func @bilinear(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32> {
  %0 = bwc.resize linear %x scales = [1.0, 1.0, 2.0, 2.0] coord = align_corners nearest_mode = floor : (tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

// -----

// Tests that align_corners divides x * (in - 1) by the unrounded
// in * scale - 1 (here 5 * 1.8 - 1 = 8), and that cubic with
// exclude_outside zeroes the weights of outside taps and renormalizes the
// four weights by their sum, accumulating f16 in f32.
// CHECK-LABEL: func.func @cubic_exclude_outside
// CHECK: %[[IN1:.*]] = arith.constant 4.000000e+00 : f32
// CHECK: %[[NUM:.*]] = arith.mulf %{{.*}}, %[[IN1]] : f32
// CHECK: %[[OUT1:.*]] = arith.constant 8.000000e+00 : f32
// CHECK: arith.divf %[[NUM]], %[[OUT1]] : f32
// CHECK-COUNT-4: arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK-COUNT-4: arith.divf %{{.*}}, %[[SUM:.*]] : f32
// CHECK-COUNT-4: arith.extf %{{.*}} : f16 to f32
// CHECK: %[[Y:.*]] = arith.truncf %{{.*}} : f32 to f16
// CHECK: linalg.yield %[[Y]] : f16
func.func @cubic_exclude_outside(%x: tensor<1x5xf16>) -> tensor<1x9xf16> {
  %0 = bwc.resize cubic %x scales = [1.0, 1.8] coord = align_corners nearest_mode = floor {cubic_coeff_a = -0.5 : f64, exclude_outside} : (tensor<1x5xf16>) -> tensor<1x9xf16>
  return %0 : tensor<1x9xf16>
}

// -----

// Tests that cubic resize of two dims reads 4x4 taps.
// CHECK-LABEL: func.func @bicubic
// CHECK-COUNT-16: tensor.extract
// CHECK-NOT: tensor.extract
// CHECK: linalg.yield
func.func @bicubic(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x8x8xf32> {
  %0 = bwc.resize cubic %x scales = [1.0, 1.0, 2.0, 2.0] coord = half_pixel nearest_mode = floor {cubic_coeff_a = -0.75 : f64} : (tensor<1x1x4x4xf32>) -> tensor<1x1x8x8xf32>
  return %0 : tensor<1x1x8x8xf32>
}
