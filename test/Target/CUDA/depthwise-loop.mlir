// RUN: env BWC_PTXAS=none bwc-compile %s --target=cuda --emit=gpu -o - | FileCheck %s
// RUN: env BWC_PTXAS=none bwc-compile %s --target=cuda --emit=gpu --tile=none -o - | FileCheck %s --check-prefix=NONE

// Tests (2026-12-07) a channels-last depthwise convolution with its bias
// and a relu as a `loop` kernel of vector 4 (bwc-tile's choice,
// loopGroupedConv): each thread computes 4 consecutive channels of one
// position in one 3x3 loop nest with 4 accumulators (no channel loop: one
// channel per group), so each tap reads the input and the filter as one
// 16-byte vector load each (bwc-vectorize-gpu-loads, the group's channel
// index a multiple of 4), the bias as one more, and the 4 outputs go out as
// one 16-byte store. Without bwc-tile it is one thread per output, 4-byte
// loads.
// CHECK-LABEL: gpu.func @main_k0_fusion_contraction_bwc
// CHECK-SAME: emitter = "loop"
// CHECK-SAME: vector = 4 : i64
// CHECK: scf.for
// CHECK: %{{.*}}:4 = scf.for
// CHECK-NEXT: %{{.*}}:4 = scf.for
// CHECK-NOT: memref.load
// CHECK: vector.load %arg0[%{{.*}}] {alignment = 16 : i64} : memref<8192xf32>, vector<4xf32>
// CHECK-NOT: memref.load
// CHECK: vector.load %arg1[%{{.*}}] {alignment = 16 : i64} : memref<288xf32>, vector<4xf32>
// CHECK-NOT: memref.load
// CHECK: scf.yield %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : f32, f32, f32, f32
// CHECK-NOT: memref.load
// CHECK: vector.load %arg2[%{{.*}}] {alignment = 16 : i64} : memref<32xf32>, vector<4xf32>
// CHECK-NOT: memref.load
// CHECK: vector.store %{{.*}}, %arg3[%{{.*}}] {alignment = 16 : i64} : memref<8192xf32>, vector<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: gpu.return
// NONE-LABEL: gpu.func @main_k0_fusion_contraction_bwc
// NONE-SAME: emitter = "thread_per_output"
// NONE: memref.load %arg0
// NONE: memref.load %arg1
// NONE-NOT: vector.load
// NONE: gpu.return
func.func @main(%x: tensor<1x16x16x32xf32>, %w: tensor<3x3x1x32xf32>, %b: tensor<32xf32>) -> tensor<1x16x16x32xf32> {
  %0 = bwc.conv %x, %w, %b strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] groups = 32 {channels_last} : (tensor<1x16x16x32xf32>, tensor<3x3x1x32xf32>, tensor<32xf32>) -> tensor<1x16x16x32xf32>
  %1 = bwc.unary relu %0 : (tensor<1x16x16x32xf32>) -> tensor<1x16x16x32xf32>
  return %1 : tensor<1x16x16x32xf32>
}
