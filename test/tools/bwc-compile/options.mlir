// RUN: bwc-compile %s -o %t.bwc --report --report-json=%t.json | FileCheck %s
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// RUN: bwc-compile %s -o %t.none.bwc --fusion=none --report | FileCheck %s --check-prefix=NONE
// RUN: not bwc-compile %s -o %t.bwc --emit=ptx 2>&1 | FileCheck %s --check-prefix=CUDA
// RUN: not bwc-compile %s -o %t.bwc --target=cuda --emit=llvm 2>&1 | FileCheck %s --check-prefix=LLVMCUDA
// RUN: bwc-compile %s -o %t.ll --emit=llvm && FileCheck %s --check-prefix=LLVM < %t.ll
// RUN: bwc-compile %s -o %t.elemental.ll --emit=llvm --codegen=elemental && FileCheck %s --check-prefix=LLVM < %t.elemental.ll
// RUN: not bwc-compile %s -o %t.bwc --target=tpu 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not bwc-compile %s -o %t.bwc --fusion=some 2>&1 | FileCheck %s --check-prefix=FUSION
// RUN: bwc-compile %s -o %t.elemental.bwc --codegen=elemental
// RUN: not bwc-compile %s -o %t.bwc --codegen=loops 2>&1 | FileCheck %s --check-prefix=CODEGEN
// RUN: not bwc-compile %s -o %t.bwc --codegen=elemental --elemental-conv=winograd 2>&1 | FileCheck %s --check-prefix=ELEMCONV
// RUN: not bwc-compile %s -o %t.bwc --peak-bw=0 2>&1 | FileCheck %s --check-prefix=PEAK
// RUN: not bwc-compile %s -o %t.bwc --input-shape=x=4x8 2>&1 | FileCheck %s --check-prefix=SHAPE
// RUN: not bwc-compile %t.missing.mlir -o %t.bwc 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not bwc-compile %s -o %t.nodir/sub/out.bwc 2>&1 | FileCheck %s --check-prefix=OUT

// Tests bwc-compile's report on a softmax written out as ops: unfused it
// is five kernels, fused one reduction kernel that reads x once and writes
// y once; and the one-line errors for bad options.

// CHECK: == unfused (one kernel per op)
// CHECK: == fused
// CHECK-NEXT: kernel
// CHECK-NEXT: 0    fusion.reduction 32768 32768
// CHECK: unfused {{ *}}5 kernels
// CHECK: fused {{ *}}1 kernels {{ *}}65536 DRAM bytes {{ *}}0 intermediate bytes
// CHECK: ratio {{ *}}5.00x fewer kernels
// CHECK: == memory

// JSON: "fusion": "default"
// JSON: "bytes_read": 32768
// JSON: "ops": "reduce,binary.sub,unary.exp,reduce,binary.div"
// JSON: "memory": {
// JSON: "ratios": {
// JSON-NEXT: "bytes": 4.01
// JSON-NEXT: "kernels": 5
// JSON: "totals": {
// JSON: "kernels": 1
// JSON: "unfused": {

// NONE: == compiled (--fusion=none)
// NONE: compiled {{ *}}5 kernels

// CUDA: bwc-compile: --emit expects artifact, or ptx, gpu or sim with --target=cuda, or llvm with --target=cpu, but got 'ptx' for --target=cpu
// LLVMCUDA: bwc-compile: --emit expects artifact, or ptx, gpu or sim with --target=cuda, or llvm with --target=cpu, but got 'llvm' for --target=cuda

// --emit=llvm: the kernels' LLVM IR before LLVM's optimizer, with the
// exported entry point the runtime calls.
// LLVM: ModuleID = 'bwc_kernels'
// LLVM: define void @{{.*}}_bwc(ptr
// TARGET: bwc-compile: unknown --target 'tpu' (expected cpu or cuda)
// FUSION: bwc-compile: unknown --fusion 'some' (expected none or default)
// CODEGEN: bwc-compile: --codegen expects linalg or elemental but got 'loops'
// ELEMCONV: bwc-compile: --elemental-conv expects direct or gemm but got 'winograd'
// PEAK: bwc-compile: --peak-bw expects a positive GB/s figure
// SHAPE: error: --input-shape and --input-value apply to ONNX models only
// MISSING: error
// OUT: bwc-compile: {{.*}}out.bwc

func.func @main(%x: tensor<64x128xf32> {bwc.name = "x"}) -> (tensor<64x128xf32> {bwc.name = "y"}) {
  %m = bwc.reduce max %x axes = [1] keepdims = true : (tensor<64x128xf32>) -> tensor<64x1xf32>
  %d = bwc.binary sub %x, %m : (tensor<64x128xf32>, tensor<64x1xf32>) -> tensor<64x128xf32>
  %e = bwc.unary exp %d : (tensor<64x128xf32>) -> tensor<64x128xf32>
  %s = bwc.reduce sum %e axes = [1] keepdims = true : (tensor<64x128xf32>) -> tensor<64x1xf32>
  %y = bwc.binary div %e, %s : (tensor<64x128xf32>, tensor<64x1xf32>) -> tensor<64x128xf32>
  return %y : tensor<64x128xf32>
}
