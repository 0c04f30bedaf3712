// RUN: env BWC_PTXAS=none bwc-compile %s --target=cuda --emit=gpu -o - | FileCheck %s

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
func.func @main(%a: tensor<1001xf32>, %b: tensor<1001xf32>, %x: tensor<1024xf32>, %y: tensor<1024xf32>) -> (tensor<1001xf32>, tensor<1024xf32>) {
  %c = bwc.binary add %a, %b : (tensor<1001xf32>, tensor<1001xf32>) -> tensor<1001xf32>
  %s = bwc.binary add %x, %y : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  return %c, %s : tensor<1001xf32>, tensor<1024xf32>
}
