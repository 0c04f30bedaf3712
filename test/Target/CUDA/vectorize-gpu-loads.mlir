// RUN: env BWC_PTXAS=none bwc-compile %s --target=cuda --emit=gpu -o - | FileCheck %s --check-prefixes=CHECK,TILED
// RUN: env BWC_PTXAS=none bwc-compile %s --target=cuda --emit=gpu --tile=none -o - | FileCheck %s --check-prefixes=CHECK,NONE

// Tests (2026-12-04) a 3-D operand read at its own index through the
// emitter's three-level delinearize-then-linearize, ((e mod 200) +
// ((e div 200) mod 96) * 200 + (e div 19200) * 19200, which is e): one
// 16-byte load at e, as the 2-level case below (ppocr_cls's SE-block
// multiplies were four scalar loads per thread, sector efficiency 0.5).
// CHECK-LABEL: gpu.func @main_k5_binary_mul_bwc
// CHECK-NOT: memref.load
// CHECK: %[[E:.*]] = arith.muli %{{.*}}, %c4{{.*}} : index
// CHECK-NOT: memref.load
// CHECK: vector.load %arg0[%[[E]]] {alignment = 16 : i64} : memref<38400xf32>, vector<4xf32>
// CHECK-NOT: memref.load
// CHECK: vector.load %arg1[%{{.*}}] {alignment = 16 : i64} : memref<200xf32>, vector<4xf32>
// CHECK-NOT: memref.load
// CHECK: gpu.return

// Tests (2026-12-04) 2-D bf16 kernels with a broadcast row operand: the
// matrix is read at (e mod C) + (e div C) * C, which is e, and the bias at
// e mod C for 8 consecutive e from a multiple of 8. With rows of 60 (a
// multiple of 4, not 8) a group of 8 may straddle two rows from its fifth
// element: the bias is two 8-byte loads, at e mod 60 and (e + 4) mod 60
// (e + 4 a multiple of 4 and so is 60: no wrap inside either; the second
// stayed 4 scalar loads until the constant inside the modulo joined the
// key, 2026-12-04) (with --tile=none: bwc-configure-kernels' vector 8). With rows of 64, the
// bias is one 16-byte load at (e mod 64). Also an f32 bias feeding a bf16
// result: groups of 8 (16 bytes of bf16), the bias as two 16-byte loads
// at (e mod 64) and (e mod 64) + 4 (again --tile=none).
// bwc-tile takes vector 4 for both of those kernels: its requests
// are whole (the f32 operands' two 16-byte loads per lane at vector 8
// were 32 bytes apart, half of each request's sectors; rows of 60 hold
// whole groups of 4).
// CHECK-LABEL: gpu.func @main_k4_fusion_loop_bwc
// (On cuda-sim, e2e-conformance-cuda-sim-bf16's node/test_stft_with_window
// reads such a bias; its memcheck found the second load at e + 4 in the
// first version of this change.)
// NONE: vector.load %arg1[%{{.*}}] {alignment = 16 : i64} : memref<64xf32>, vector<4xf32>
// NONE: vector.load %arg0[%{{.*}}] {alignment = 16 : i64} : memref<2048xf32>, vector<4xf32>
// NONE: %[[R:.*]] = arith.remui %{{.*}}, %{{.*}} : index
// NONE-NEXT: %[[FOUR:.*]] = arith.constant 4 : index
// NONE-NEXT: %[[C4:.*]] = arith.addi %[[R]], %[[FOUR]] : index
// NONE-NEXT: vector.load %arg1[%[[C4]]] {alignment = 16 : i64} : memref<64xf32>, vector<4xf32>
// TILED-SAME: vector = 4
// TILED: vector.load %arg0[%{{.*}}] {alignment = 16 : i64} : memref<2048xf32>, vector<4xf32>
// TILED: vector.load %arg1[%{{.*}}] {alignment = 16 : i64} : memref<64xf32>, vector<4xf32>
// CHECK-NOT: memref.load %arg1
// CHECK: gpu.return
// CHECK-LABEL: gpu.func @main_k3_binary_add_bwc
// NONE: vector.load %arg0[%{{.*}}] {alignment = 16 : i64} : memref<1920xbf16>, vector<8xbf16>
// NONE: vector.load %arg1[%{{.*}}] {alignment = 8 : i64} : memref<60xbf16>, vector<4xbf16>
// NONE: %[[K4:.*]] = arith.addi %{{.*}}, %c4{{.*}} : index
// NONE: %[[R4:.*]] = arith.remui %[[K4]], %c60{{.*}} : index
// NONE-NEXT: vector.load %arg1[%[[R4]]] {alignment = 8 : i64} : memref<60xbf16>, vector<4xbf16>
// TILED-SAME: vector = 4
// TILED: vector.load %arg0[%{{.*}}] {alignment = 8 : i64} : memref<1920xbf16>, vector<4xbf16>
// TILED: vector.load %arg1[%{{.*}}] {alignment = 8 : i64} : memref<60xbf16>, vector<4xbf16>
// CHECK-NOT: memref.load
// CHECK: gpu.return
// CHECK-LABEL: gpu.func @main_k2_binary_add_bwc
// CHECK-NOT: memref.load
// CHECK: vector.load %arg0[%{{.*}}] {alignment = 16 : i64} : memref<2048xbf16>, vector<8xbf16>
// CHECK: %[[COL:.*]] = arith.remui %{{.*}}, %{{.*}} : index
// CHECK-NEXT: vector.load %arg1[%[[COL]]] {alignment = 16 : i64} : memref<64xbf16>, vector<8xbf16>
// CHECK-NOT: memref.load
// CHECK: gpu.return

// Tests that bwc-vectorize-gpu-loads merges the loop kernel's four scalar
// loads of each input (x[4t], x[4t+1], x[4t+2], x[4t+3], vector 4) into one
// aligned 16-byte vector load, and leaves a 1001-element kernel (vector 1:
// no width divides its index) scalar.
// CHECK-LABEL: gpu.func @main_k1_binary_add_bwc
// CHECK-NOT: memref.load
// CHECK: vector.load %arg0[%{{.*}}] {alignment = 16 : i64} : memref<1024xf32>, vector<4xf32>
// CHECK-NOT: memref.load
// CHECK: vector.load %arg1[%{{.*}}] {alignment = 16 : i64} : memref<1024xf32>, vector<4xf32>
// CHECK-NOT: memref.load
// CHECK: gpu.return
// CHECK-LABEL: gpu.func @main_k0_binary_add_bwc
// CHECK-NOT: vector.load
// CHECK: memref.load %arg0
// CHECK: memref.load %arg1
// CHECK-NOT: vector.load
// CHECK: gpu.return

func.func @main(%a: tensor<1001xf32>, %b: tensor<1001xf32>, %x: tensor<1024xf32>, %y: tensor<1024xf32>, %m: tensor<32x64xbf16>, %bias: tensor<64xbf16>, %n: tensor<32x60xbf16>, %bias60: tensor<60xbf16>, %f: tensor<32x64xf32>, %fbias: tensor<64xf32>, %p: tensor<2x96x200xf32>, %q: tensor<200xf32>) -> (tensor<1001xf32>, tensor<1024xf32>, tensor<32x64xbf16>, tensor<32x60xbf16>, tensor<32x64xbf16>, tensor<2x96x200xf32>) {
  %c = bwc.binary add %a, %b : (tensor<1001xf32>, tensor<1001xf32>) -> tensor<1001xf32>
  %s = bwc.binary add %x, %y : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %t = bwc.binary add %m, %bias : (tensor<32x64xbf16>, tensor<64xbf16>) -> tensor<32x64xbf16>
  %u = bwc.binary add %n, %bias60 : (tensor<32x60xbf16>, tensor<60xbf16>) -> tensor<32x60xbf16>
  %v = bwc.binary add %f, %fbias : (tensor<32x64xf32>, tensor<64xf32>) -> tensor<32x64xf32>
  %w = bwc.cast %v : tensor<32x64xf32> to tensor<32x64xbf16>
  %r = bwc.binary mul %p, %q : (tensor<2x96x200xf32>, tensor<200xf32>) -> tensor<2x96x200xf32>
  return %c, %s, %t, %u, %w, %r : tensor<1001xf32>, tensor<1024xf32>, tensor<32x64xbf16>, tensor<32x60xbf16>, tensor<32x64xbf16>, tensor<2x96x200xf32>
}
