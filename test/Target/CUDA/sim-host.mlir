// RUN: env BWC_PTXAS=none bwc-compile %s --target=cuda --emit=sim -o - | FileCheck %s --dump-input=never --implicit-check-not="{{^ *(%[^ ]+ = )?nvvm\.}}"

// Tests that bwc-cuda-sim-host lowers the NVVM-level kernels for the host:
// no NVVM op is left; every barrier, shuffle, mma and ldmatrix is a site of
// the table (mma with bf16 operands: bytes = 1; ldmatrix: bytes = its matrix
// count, plus a 16-byte shared load site for the row each lane addresses);
// a cp.async is a 16-byte global load site and a 16-byte shared store site;
// shared arrays are laid out 16-byte
// aligned per kernel; global and shared accesses name the parameter or
// array they derive from; a kernel with no barrier, shuffle or mma is
// marked sync = false (its threads run as a plain loop); each kernel is an
// internal body behind an exported entry that reads the device pointers.
// CHECK: module attributes {bwc.sim.sites = [
// CHECK-SAME: {align = 16 : i32, bytes = 16 : i32, kernel = 0 : i32, kind = 1 : i32, loc = "main_k2_unary_tanh_bwc: llvm.store at {{[^"]*}}sim-host.mlir:{{[0-9]+}}:{{[0-9]+}}", root = 1 : i32, space = 0 : i32}
// CHECK-SAME: {align = 16 : i32, bytes = 16 : i32, kernel = 1 : i32, kind = 0 : i32, loc = "main_k1_matmul_bwc: nvvm.cp.async.shared.global at {{[^"]*}}", root = 0 : i32, space = 0 : i32}
// CHECK-SAME: {align = 16 : i32, bytes = 16 : i32, kernel = 1 : i32, kind = 1 : i32, loc = "main_k1_matmul_bwc: nvvm.cp.async.shared.global at {{[^"]*}}", root = 2 : i32, space = 1 : i32}
// CHECK-SAME: {align = 16 : i32, bytes = 16 : i32, kernel = 1 : i32, kind = 0 : i32, loc = "main_k1_matmul_bwc: nvvm.cp.async.shared.global at {{[^"]*}}", root = 1 : i32, space = 0 : i32}
// CHECK-SAME: {align = 16 : i32, bytes = 16 : i32, kernel = 1 : i32, kind = 1 : i32, loc = "main_k1_matmul_bwc: nvvm.cp.async.shared.global at {{[^"]*}}", root = 1 : i32, space = 1 : i32}
// CHECK-SAME: {align = 1 : i32, bytes = 0 : i32, kernel = 1 : i32, kind = 2 : i32, loc = "main_k1_matmul_bwc: nvvm.barrier0 at
// CHECK-SAME: {align = 1 : i32, bytes = 4 : i32, kernel = 1 : i32, kind = 5 : i32, loc = "main_k1_matmul_bwc: nvvm.ldmatrix at
// CHECK-SAME: {align = 16 : i32, bytes = 16 : i32, kernel = 1 : i32, kind = 0 : i32, loc = "main_k1_matmul_bwc: nvvm.ldmatrix at {{[^"]*}}", root = 2 : i32, space = 1 : i32}
// CHECK-SAME: {align = 1 : i32, bytes = 1 : i32, kernel = 1 : i32, kind = 4 : i32, loc = "main_k1_matmul_bwc: nvvm.mma.sync at
// CHECK-SAME: {align = 1 : i32, bytes = 0 : i32, kernel = 2 : i32, kind = 3 : i32, loc = "main_k0_fusion_reduction_bwc: nvvm.shfl.sync at
// CHECK-SAME: {align = 4 : i32, bytes = 4 : i32, kernel = 2 : i32, kind = 1 : i32, loc = "main_k0_fusion_reduction_bwc: llvm.store at {{[^"]*}}", root = 0 : i32, space = 1 : i32}
// CHECK: llvm.mlir.global external @__bwcsim_hooks() {{.*}} : !llvm.array<10 x ptr>
// CHECK: llvm.mlir.global external constant @__bwcsim_abi(2 : i32)
// CHECK: llvm.func weak_odr hidden @__truncsfbf2(%arg0: f32) -> bf16
// CHECK-DAG: llvm.func @main_k1_matmul_bwc(%arg0: !llvm.ptr) attributes {bwc.sim.kernel = {params = 3 : i32, shared = [array<i64: 0, 16384>, array<i64: 16384, 12288>, array<i64: 28672, 12288>], shared_bytes = 40960 : i32, sync = true}}
// CHECK-DAG: llvm.func @main_k0_fusion_reduction_bwc(%arg0: !llvm.ptr) attributes {bwc.sim.kernel = {params = 2 : i32, shared = [array<i64: 0, 128>], shared_bytes = 128 : i32, sync = true}}
// CHECK-DAG: llvm.func @main_k2_unary_tanh_bwc(%arg0: !llvm.ptr) attributes {bwc.sim.kernel = {params = 2 : i32, shared = [], shared_bytes = 0 : i32, sync = false}}
// CHECK-DAG: llvm.func internal @__bwcsim_body_main_k1_matmul_bwc(
// CHECK-DAG: llvm.call @__bwcsim_body_main_k1_matmul_bwc(
// CHECK-DAG: llvm.call %{{.*}} : !llvm.ptr, (i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
// CHECK-DAG: llvm.call %{{.*}} : !llvm.ptr, (i32, i32, i32, i32, i32, i32) -> i64
// CHECK-DAG: llvm.call %{{.*}} : !llvm.ptr, (i32, i32, !llvm.ptr, !llvm.ptr, i32) -> ()
// CHECK-DAG: llvm.call %{{.*}} : !llvm.ptr, () -> ()
// CHECK-DAG: llvm.call %{{.*}} : !llvm.ptr, (i32) -> ()
// CHECK-DAG: llvm.call %{{.*}} : !llvm.ptr, (i32, i32, !llvm.ptr, i32, i32, !llvm.ptr) -> ()
func.func @main(%x: tensor<8x1000xf32>, %a: tensor<20x24xbf16>, %b: tensor<24x40xbf16>, %y: tensor<1000xf32>) -> (tensor<8x1000xf32>, tensor<20x40xbf16>, tensor<1000xf32>) {
  %m = bwc.reduce max %x axes = [1] keepdims = true : (tensor<8x1000xf32>) -> tensor<8x1xf32>
  %d = bwc.binary sub %x, %m : (tensor<8x1000xf32>, tensor<8x1xf32>) -> tensor<8x1000xf32>
  %e = bwc.unary exp %d : (tensor<8x1000xf32>) -> tensor<8x1000xf32>
  %s = bwc.reduce sum %e axes = [1] keepdims = true : (tensor<8x1000xf32>) -> tensor<8x1xf32>
  %o = bwc.binary div %e, %s : (tensor<8x1000xf32>, tensor<8x1xf32>) -> tensor<8x1000xf32>
  %mm = bwc.matmul %a, %b : (tensor<20x24xbf16>, tensor<24x40xbf16>) -> tensor<20x40xbf16>
  %t = bwc.unary tanh %y : (tensor<1000xf32>) -> tensor<1000xf32>
  return %o, %mm, %t : tensor<8x1000xf32>, tensor<20x40xbf16>, tensor<1000xf32>
}
