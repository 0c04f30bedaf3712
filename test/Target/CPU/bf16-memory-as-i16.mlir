// RUN: bwc-opt %s --bwc-bf16-memory-as-i16 | FileCheck %s

// Tests that bwc-bf16-memory-as-i16 moves bf16 values as i16: loads and
// stores of bf16 and of bf16 vectors, bf16 constants (scalar and dense) and
// selects carry the same bits as i16, with bitcasts where a bf16 value meets
// other code; f32 and i16 code is left alone.

// CHECK-LABEL: llvm.func @copy
// CHECK: %[[L:.*]] = llvm.load %arg0 : !llvm.ptr -> i16
// CHECK: %[[V:.*]] = llvm.bitcast %[[L]] : i16 to bf16
// CHECK: %[[B:.*]] = llvm.bitcast %[[V]] : bf16 to i16
// CHECK: llvm.store %[[B]], %arg1 : i16, !llvm.ptr
llvm.func @copy(%p: !llvm.ptr, %q: !llvm.ptr) {
  %v = llvm.load %p : !llvm.ptr -> bf16
  llvm.store %v, %q : bf16, !llvm.ptr
  llvm.return
}

// CHECK-LABEL: llvm.func @vector_copy
// CHECK: llvm.load %arg0 {alignment = 8 : i64} : !llvm.ptr -> vector<4xi16>
// CHECK: llvm.store %{{.*}}, %arg1 : vector<4xi16>, !llvm.ptr
llvm.func @vector_copy(%p: !llvm.ptr, %q: !llvm.ptr) {
  %v = llvm.load %p {alignment = 8 : i64} : !llvm.ptr -> vector<4xbf16>
  llvm.store %v, %q : vector<4xbf16>, !llvm.ptr
  llvm.return
}

// -inf in bf16 is 0xFF80, i.e. -128 as a signed i16.
// CHECK-LABEL: llvm.func @fill_and_select
// CHECK-DAG: llvm.mlir.constant(-128 : i16) : i16
// CHECK-DAG: llvm.mlir.constant(dense<[16256, 0]> : vector<2xi16>) : vector<2xi16>
// CHECK: %[[S:.*]] = llvm.select %arg2, %{{.*}}, %{{.*}} : i1, i16
// CHECK: llvm.bitcast %[[S]] : i16 to bf16
// CHECK-NOT: : bf16, !llvm.ptr
// CHECK: llvm.return
llvm.func @fill_and_select(%p: !llvm.ptr, %q: !llvm.ptr, %c: i1) {
  %ninf = llvm.mlir.constant(0xFF80 : bf16) : bf16
  %pair = llvm.mlir.constant(dense<[1.0, 0.0]> : vector<2xbf16>) : vector<2xbf16>
  %v = llvm.load %p : !llvm.ptr -> bf16
  %s = llvm.select %c, %ninf, %v : i1, bf16
  llvm.store %s, %q : bf16, !llvm.ptr
  llvm.store %pair, %q : vector<2xbf16>, !llvm.ptr
  llvm.return
}

// CHECK-LABEL: llvm.func @untouched
// CHECK-NOT: llvm.bitcast
// CHECK: llvm.load %arg0 : !llvm.ptr -> f32
// CHECK: llvm.store %{{.*}}, %arg1 : i16, !llvm.ptr
llvm.func @untouched(%p: !llvm.ptr, %q: !llvm.ptr) {
  %v = llvm.load %p : !llvm.ptr -> f32
  %h = llvm.mlir.constant(7 : i16) : i16
  llvm.store %v, %p : f32, !llvm.ptr
  llvm.store %h, %q : i16, !llvm.ptr
  llvm.return
}
