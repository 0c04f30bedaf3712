// RUN: env BWC_PTXAS=none bwc-compile %s --target=cuda --emit=gpu -o - | FileCheck %s
// RUN: bwc-opt %s --bwc-fuse --bwc-outline-kernels --bwc-plan-buffers | FileCheck %s --check-prefix=PLAN

// Tests that a loop kernel computes every output before it stores any:
// here the loop kernel's first output (neg x) is planned in place over
// its input x, and its second output (exp(neg x)) reads x again at the
// same positions. Storing the first output before computing the second
// would make the second exp(x) (a review found the driver did, 2026-11-30).
// Also that shared arrays are declared 16-byte aligned (LLVM merges their
// loads into 16-byte vectors).
// PLAN: call @main_k1_fusion_loop(%{{.*}}) {bwc.inplace = array<i64: 0, -1>
// CHECK-LABEL: gpu.func @main_k3_matmul_bwc
// CHECK-SAME: workgroup(%{{.*}} : memref<3x64x16xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %{{.*}} : memref<3x16x64xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK-LABEL: gpu.func @main_k1_fusion_loop_bwc
// CHECK-NOT: vector.store
// CHECK: math.exp
// CHECK-NOT: vector.store
// CHECK: math.exp
// CHECK-NOT: vector.store
// CHECK: math.exp
// CHECK-NOT: vector.store
// CHECK: math.exp
// CHECK-NOT: memref.load
// CHECK: vector.store %{{.*}}, %arg1
// CHECK-NEXT: vector.from_elements
// CHECK-NEXT: vector.store %{{.*}}, %arg2
func.func @main(%t: tensor<1x1x64x48xf32>, %w: tensor<48x16xf32>) -> (tensor<1x1x64x16xf32>, tensor<1x1x64x16xf32>) {
  %x = bwc.pool max %t kernel = [1, 1] strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] ceil_mode = false count_include_pad = false : (tensor<1x1x64x48xf32>) -> tensor<1x1x64x48xf32>
  %b = bwc.unary neg %x : (tensor<1x1x64x48xf32>) -> tensor<1x1x64x48xf32>
  %a = bwc.unary exp %b : (tensor<1x1x64x48xf32>) -> tensor<1x1x64x48xf32>
  %c = bwc.matmul %b, %w : (tensor<1x1x64x48xf32>, tensor<48x16xf32>) -> tensor<1x1x64x16xf32>
  %d = bwc.matmul %a, %w : (tensor<1x1x64x48xf32>, tensor<48x16xf32>) -> tensor<1x1x64x16xf32>
  return %c, %d : tensor<1x1x64x16xf32>, tensor<1x1x64x16xf32>
}
