// RUN: bwc-opt %s --split-input-file --bwc-pad-channels --mlir-elide-elementsattrs-if-larger=16 | FileCheck %s

// Tests that oww_melspec's STFT convolution (257 channels, channels-last)
// computes 288: the access model prices it alone at 841067 fetched bytes
// and 765568 padded (each warp on one output position, each filter row on
// a sector boundary), and the fused program agrees (1040499 -> 1000620,
// two kernels either way). The scalar pow that reads it alone runs on the
// padded channels; the slice takes the real ones back before the
// transpose.
// CHECK-LABEL: module attributes {bwc.pad_check = {padded_fetched_bytes = 1000620 : i64, padded_kernels = 2 : i64, plain_fetched_bytes = 1040499 : i64, plain_kernels = 2 : i64}}
// CHECK: %[[W:.*]] = bwc.constant {{.*}} : tensor<512x1x288xf32>
// CHECK-NEXT: %[[C:.*]] = bwc.conv %arg0, %[[W]] {{.*}} {bwc.pad_channels = {channels = 257 : i64, chosen = true, fetched_bytes = 841067 : i64, padded = 288 : i64, padded_fetched_bytes = 765568 : i64}, channels_last} : (tensor<1x16000x1xf32>, tensor<512x1x288xf32>) -> tensor<1x97x288xf32>
// CHECK-NEXT: %[[TWO:.*]] = bwc.constant dense<2.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[P:.*]] = bwc.binary pow %[[C]], %[[TWO]] : (tensor<1x97x288xf32>, tensor<f32>) -> tensor<1x97x288xf32>
// CHECK-NEXT: %[[S:.*]] = bwc.slice %[[P]] starts = [0, 0, 0] steps = [1, 1, 1] : (tensor<1x97x288xf32>) -> tensor<1x97x257xf32>
// CHECK-NEXT: bwc.transpose %[[S]] perm = [0, 2, 1]
func.func @main(%x: tensor<1x16000x1xf32>) -> tensor<1x97x257xf32> {
  %w = bwc.constant dense<5.000000e-01> : tensor<512x1x257xf32>
  %c = bwc.conv %x, %w strides = [160] dilations = [1] pads = [0, 0] groups = 1 {channels_last} : (tensor<1x16000x1xf32>, tensor<512x1x257xf32>) -> tensor<1x97x257xf32>
  %two = bwc.constant dense<2.000000e+00> : tensor<f32>
  %p = bwc.binary pow %c, %two : (tensor<1x97x257xf32>, tensor<f32>) -> tensor<1x97x257xf32>
  %t = bwc.transpose %p perm = [0, 2, 1] : (tensor<1x97x257xf32>) -> tensor<1x257x97xf32>
  %e = bwc.unary exp %t : (tensor<1x257x97xf32>) -> tensor<1x257x97xf32>
  %r = bwc.transpose %e perm = [0, 2, 1] : (tensor<1x257x97xf32>) -> tensor<1x97x257xf32>
  return %r : tensor<1x97x257xf32>
}

// -----

// Tests that a padding which saves less than 5% of the convolution's
// fetched bytes alone is not tried on the fused program (no
// bwc.pad_check): 60 -> 64 channels, 3744537 -> 3604736 bytes. The
// plain convolution is contraction_thread with its 60 lanes rounded up
// to 64, which already keeps warps off the row boundaries the padding
// fixed (one thread per output: 4410762 bytes, and the fused program
// then refused it, 5025785 against 5007245 bytes, before 2026-12-07).
// CHECK-LABEL: module {
// CHECK: bwc.conv {{.*}} {bwc.pad_channels = {channels = 60 : i64, chosen = false, fetched_bytes = 3744537 : i64, padded = 64 : i64, padded_fetched_bytes = 3604736 : i64}, channels_last} : (tensor<1x40x40x480xf32>, tensor<1x1x480x60xf32>, tensor<60xf32>) -> tensor<1x40x40x60xf32>
// CHECK-NOT: bwc.slice
func.func @main(%x: tensor<1x40x40x480xf32>) -> tensor<1x40x40x32xf32> {
  %w = bwc.constant dense<5.000000e-01> : tensor<1x1x480x60xf32>
  %b = bwc.constant dense<1.000000e-01> : tensor<60xf32>
  %c = bwc.conv %x, %w, %b strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 1 {channels_last} : (tensor<1x40x40x480xf32>, tensor<1x1x480x60xf32>, tensor<60xf32>) -> tensor<1x40x40x60xf32>
  %s = bwc.constant dense<3.000000e-01> : tensor<1x1x1x60xf32>
  %m = bwc.binary mul %c, %s : (tensor<1x40x40x60xf32>, tensor<1x1x1x60xf32>) -> tensor<1x40x40x60xf32>
  %w2 = bwc.constant dense<5.000000e-01> : tensor<1x1x60x32xf32>
  %c2 = bwc.conv %m, %w2 strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 1 {channels_last} : (tensor<1x40x40x60xf32>, tensor<1x1x60x32xf32>) -> tensor<1x40x40x32xf32>
  return %c2 : tensor<1x40x40x32xf32>
}

// -----

// Tests what is no candidate: 64 channels (whole warps), 6 channels
// (padding to 32 would compute 5x as many), a grouped convolution.
// CHECK-LABEL: func.func @main(%arg0: tensor<1x16x16x8xf32>)
// CHECK-NOT: bwc.pad_channels
// CHECK-NOT: bwc.slice
// CHECK: return
func.func @main(%x: tensor<1x16x16x8xf32>) -> (tensor<1x16x16x64xf32>, tensor<1x16x16x6xf32>, tensor<1x16x16x48xf32>) {
  %w = bwc.constant dense<5.000000e-01> : tensor<3x3x8x64xf32>
  %a = bwc.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] groups = 1 {channels_last} : (tensor<1x16x16x8xf32>, tensor<3x3x8x64xf32>) -> tensor<1x16x16x64xf32>
  %w6 = bwc.constant dense<5.000000e-01> : tensor<3x3x8x6xf32>
  %b = bwc.conv %x, %w6 strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] groups = 1 {channels_last} : (tensor<1x16x16x8xf32>, tensor<3x3x8x6xf32>) -> tensor<1x16x16x6xf32>
  %wg = bwc.constant dense<5.000000e-01> : tensor<3x3x4x48xf32>
  %g = bwc.conv %x, %wg strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] groups = 2 {channels_last} : (tensor<1x16x16x8xf32>, tensor<3x3x4x48xf32>) -> tensor<1x16x16x48xf32>
  return %a, %b, %g : tensor<1x16x16x64xf32>, tensor<1x16x16x6xf32>, tensor<1x16x16x48xf32>
}
