// The column_reduction emitter on the issue-10 shapes (16384x4096 f32):
// a column sum and a softmax over axis 0 (reductions that depend on each
// other, then a whole-shaped output), and a small softmax over axis 0
// whose column stays in registers. ptxas runs on this file in the
// cuda-ptx-real-models ctest.
// RUN: bwc-compile %s --target=cuda --emit=gpu -o - | FileCheck %s --check-prefix=GPU
// RUN: bwc-compile %s --target=cuda --emit=ptx -o - | FileCheck %s --check-prefix=PTX

// GPU: gpu.module @bwc_kernels

// Tests that a softmax over axis 0 of 100x40 (32 slices: 4 positions per
// thread, the last one past the end for slices 4..31) keeps the thread's
// positions of the input in registers: 4 loads in the whole kernel (the
// max reads them, the sum and the epilogue use the registers), 4 stores,
// the 4th of each guarded.
// GPU-LABEL: gpu.func @main_k2_fusion_reduction_bwc
// GPU-SAME: cache_column = 1 : i64
// GPU-SAME: passes = 1 : i64
// GPU-NOT: scf.for %{{.*}} = %c0 to
// GPU: gpu.barrier
// PTX-LABEL: .visible .entry main_k2_fusion_reduction_bwc(
// PTX-COUNT-4: ld.global.b32
// PTX-NOT: ld.global
// PTX-COUNT-4: st.global.b32
// PTX-NOT: st.global

// Tests that a softmax over axis 0 is one column-reduction kernel: 32
// columns x 32 slices per block, 8 positions per unrolled step; max and
// sum in one online walk (the running sum rescaled by exp(old max - new
// max) whenever the max grows: 2 passes over the input, not 3), both into
// their slabs, one barrier, the 32 slices combined the same way; the
// barrier before the next group; then the epilogue walks the positions
// again (8 per step, then the rest) and stores exp(x - max) / sum at each.
// GPU-LABEL: gpu.func @main_k1_fusion_reduction_bwc
// GPU-SAME: workgroup(%[[MAX:.*]] : memref<1024xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[SUM:.*]] : memref<1024xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// GPU-SAME: emitter = "column_reduction"
// GPU-SAME: passes = 2 : i64, slices = 32 : i64, unroll = 8 : i64
// GPU: scf.for
// GPU-COUNT-8: arith.maximumf
// GPU: scf.yield
// GPU: scf.for
// GPU: arith.maximumf
// GPU: math.exp
// GPU: memref.store %{{.*}}, %[[MAX]]
// GPU-NEXT: memref.store %{{.*}}, %[[SUM]]
// GPU-NEXT: gpu.barrier
// GPU-COUNT-32: memref.load %[[MAX]]
// GPU: gpu.barrier
// GPU-NEXT: scf.if
// GPU: scf.for
// GPU-COUNT-8: arith.divf
// GPU: scf.for
// GPU: arith.divf
// GPU-NEXT: memref.store
// PTX-LABEL: .visible .entry main_k1_fusion_reduction_bwc(
// PTX-COUNT-8: ld.global.b32
// PTX: bar.sync
// PTX-NOT: shfl.sync

// Tests that a column sum of 16384x4096 fills the chip: 128 groups of 32
// columns, 1024 threads each (32 slices), 8 loads per unrolled step (the
// positions s + u * 32), the rest one at a time, and the store by slice 0.
// GPU-LABEL: gpu.func @main_k0_fusion_reduction_bwc
// GPU-SAME: workgroup(%[[SLAB:.*]] : memref<1024xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// GPU-SAME: bwc.config = {block = 1024 : i64, cache_column = 0 : i64, columns_per_block = 32 : i64, elements_per_thread = 512 : i64, emitter = "column_reduction", grid = 128 : i64, passes = 1 : i64, slices = 32 : i64, unroll = 8 : i64}
// GPU: scf.for %{{.*}} = %c0 to %c16384 step %c256
// GPU-COUNT-8: memref.load %arg0
// GPU: scf.yield
// GPU: scf.for
// GPU: memref.load %arg0
// GPU: memref.store %{{.*}}, %[[SLAB]]
// GPU: gpu.barrier
// GPU-COUNT-32: memref.load %[[SLAB]]
// GPU: gpu.barrier
// GPU: scf.if
// GPU: math.tanh
// GPU: memref.store
// PTX-LABEL: .visible .entry main_k0_fusion_reduction_bwc(
// PTX-COUNT-8: ld.global.b32
// PTX: bar.sync
// PTX-NOT: shfl.sync

func.func @main(%x: tensor<16384x4096xf32>, %y: tensor<16384x4096xf32>, %z: tensor<100x40xf32>) -> (tensor<4096xf32>, tensor<16384x4096xf32>, tensor<100x40xf32>) {
  %cs = bwc.reduce sum %x axes = [0] keepdims = false : (tensor<16384x4096xf32>) -> tensor<4096xf32>
  %ct = bwc.unary tanh %cs : (tensor<4096xf32>) -> tensor<4096xf32>
  %m = bwc.reduce max %y axes = [0] keepdims = true : (tensor<16384x4096xf32>) -> tensor<1x4096xf32>
  %d = bwc.binary sub %y, %m : (tensor<16384x4096xf32>, tensor<1x4096xf32>) -> tensor<16384x4096xf32>
  %e = bwc.unary exp %d : (tensor<16384x4096xf32>) -> tensor<16384x4096xf32>
  %s = bwc.reduce sum %e axes = [0] keepdims = true : (tensor<16384x4096xf32>) -> tensor<1x4096xf32>
  %o = bwc.binary div %e, %s : (tensor<16384x4096xf32>, tensor<1x4096xf32>) -> tensor<16384x4096xf32>
  %zm = bwc.reduce max %z axes = [0] keepdims = true : (tensor<100x40xf32>) -> tensor<1x40xf32>
  %zd = bwc.binary sub %z, %zm : (tensor<100x40xf32>, tensor<1x40xf32>) -> tensor<100x40xf32>
  %ze = bwc.unary exp %zd : (tensor<100x40xf32>) -> tensor<100x40xf32>
  %zs = bwc.reduce sum %ze axes = [0] keepdims = true : (tensor<100x40xf32>) -> tensor<1x40xf32>
  %zo = bwc.binary div %ze, %zs : (tensor<100x40xf32>, tensor<1x40xf32>) -> tensor<100x40xf32>
  return %ct, %o, %zo : tensor<4096xf32>, tensor<16384x4096xf32>, tensor<100x40xf32>
}
