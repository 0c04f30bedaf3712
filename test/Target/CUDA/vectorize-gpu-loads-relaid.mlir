// RUN: bwc-opt %s --bwc-vectorize-gpu-loads | FileCheck %s

// Tests (2026-12-04) that bwc-vectorize-gpu-loads reads an index the way
// the elemental emitter builds it through a reshape it has just undone:
// element p = 4t + j of row r (r < 40) of x[120][40] seen as [40][120] is
// x[((r + 40p) mod 40) * 120 + ((r + 40p) div 40) mod 120]. With r < 40
// evident (r = b mod 40), (r + 40p) mod 40 is r and (r + 40p) div 40 is p,
// so the four loads are (p mod 120) + 120r for consecutive p from a
// multiple of 4: one 16-byte load. The dead index arithmetic goes (one
// remui for the vector load is left).
// CHECK-LABEL: gpu.func @relaid
// CHECK-NOT: memref.load
// CHECK-NOT: arith.divui
// CHECK-COUNT-2: arith.remui
// CHECK-NOT: arith.remui
// CHECK: vector.load %arg0[%{{.*}}] {alignment = 16 : i64} : memref<4800xf32>, vector<4xf32>
// CHECK-NOT: memref.load
// CHECK: gpu.return
module attributes {gpu.container_module} {
  gpu.module @bwc_kernels {
    gpu.func @relaid(%x: memref<4800xf32> {llvm.align = 16 : i64}, %out: memref<1024xf32> {llvm.align = 16 : i64}) kernel {
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %c40 = arith.constant 40 : index
      %c120 = arith.constant 120 : index
      %t = gpu.thread_id x
      %b = gpu.block_id x
      %r = arith.remui %b, %c40 : index
      %p0 = arith.muli %t, %c4 : index
      %a0 = arith.muli %p0, %c40 : index
      %s0 = arith.addi %r, %a0 : index
      %m0 = arith.remui %s0, %c40 : index
      %d0 = arith.divui %s0, %c40 : index
      %e0 = arith.remui %d0, %c120 : index
      %i0 = arith.muli %m0, %c120 : index
      %k0 = arith.addi %e0, %i0 : index
      %v0 = memref.load %x[%k0] : memref<4800xf32>
      %p1 = arith.addi %p0, %c1 : index
      %a1 = arith.muli %p1, %c40 : index
      %s1 = arith.addi %r, %a1 : index
      %m1 = arith.remui %s1, %c40 : index
      %d1 = arith.divui %s1, %c40 : index
      %e1 = arith.remui %d1, %c120 : index
      %i1 = arith.muli %m1, %c120 : index
      %k1 = arith.addi %e1, %i1 : index
      %v1 = memref.load %x[%k1] : memref<4800xf32>
      %p2 = arith.addi %p0, %c2 : index
      %a2 = arith.muli %p2, %c40 : index
      %s2 = arith.addi %r, %a2 : index
      %m2 = arith.remui %s2, %c40 : index
      %d2 = arith.divui %s2, %c40 : index
      %e2 = arith.remui %d2, %c120 : index
      %i2 = arith.muli %m2, %c120 : index
      %k2 = arith.addi %e2, %i2 : index
      %v2 = memref.load %x[%k2] : memref<4800xf32>
      %p3 = arith.addi %p0, %c3 : index
      %a3 = arith.muli %p3, %c40 : index
      %s3 = arith.addi %r, %a3 : index
      %m3 = arith.remui %s3, %c40 : index
      %d3 = arith.divui %s3, %c40 : index
      %e3 = arith.remui %d3, %c120 : index
      %i3 = arith.muli %m3, %c120 : index
      %k3 = arith.addi %e3, %i3 : index
      %v3 = memref.load %x[%k3] : memref<4800xf32>
      %w0 = arith.addf %v0, %v1 : f32
      %w1 = arith.addf %w0, %v2 : f32
      %w2 = arith.addf %w1, %v3 : f32
      memref.store %w2, %out[%t] : memref<1024xf32>
      gpu.return
    }
  }
}
