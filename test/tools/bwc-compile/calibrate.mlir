// RUN: rm -rf %t && mkdir -p %t/empty
// RUN: /usr/bin/python3 %S/Inputs/make_matmul_case.py %t
// RUN: bwc-compile %s -o %t/c.bwc --precision=fp16 --calibrate=%t --report --report-json=%t/c.json | FileCheck %s
// RUN: FileCheck %s --check-prefix=JSON < %t/c.json
// RUN: not bwc-compile %s -o %t/x.bwc --calibrate=%t 2>&1 | FileCheck %s --check-prefix=FP32
// RUN: not bwc-compile %s -o %t/x.bwc --precision=fp16 --calibrate=%t/empty 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: not bwc-compile %s -o %t/x.bwc --precision=fp16 --calibrate=%t --calibrate-trials=0 2>&1 | FileCheck %s --check-prefix=TRIALS
// RUN: not bwc-compile %s -o %t/x.bwc --precision=fp16 --calibrate=%t --calibrate-tolerance=-1 2>&1 | FileCheck %s --check-prefix=TOL

// Tests --calibrate end to end on one data set: the matmul of x * 1e5
// (its result reaches ~1.8e5, over half fp16's largest value) stays f32
// for its recorded range, the overflow named; x @ w fits and the
// validation search gives it fp16 in one trial (the trial gives both
// matmuls the low type; the range keeps the first f32); the report lists
// what was kept and why, the bytes of the chosen program and of the one
// with every contraction f32, and the trial log. Then the option
// errors: no --precision, a folder without data, a trial budget of 0, a
// negative tolerance.

// CHECK: == calibration (1 data sets, 6 f32 values): 1 ops kept in f32
// CHECK: validation: 1 trial programs, tolerance 2.5e-03 (relative L2 per output), chosen program
// CHECK-NEXT: static DRAM bytes (CPU target, as the trials compile): [[CHOSEN:[0-9]+]] chosen, [[ALL:[0-9]+]] with every contraction f32
// CHECK: bwc.matmul at {{.*}}calibrate.mlir{{.*}}: overflow: |x| reaches 1.{{[0-9]+}}e+05, over half fp16's largest value 6.55e+04
// JSON: "calibration": {
// JSON: "data_sets": 1,
// JSON: "reason": "overflow: |x| reaches
// JSON: "trial_log": [
// JSON-NEXT: {
// JSON-NEXT: "accepted": true,
// JSON-NEXT: "bytes":
// JSON-NEXT: "error":
// JSON-NEXT: "low": 2
// JSON: "trials": 1,
// FP32: bwc-compile: --calibrate expects --precision=fp16 or bf16 (it decides what stays f32)
// EMPTY: error: --calibrate: '{{.*}}empty' holds no test_data_set_* folder and no input_0.pb
// TRIALS: bwc-compile: --calibrate-trials expects a positive count
// TOL: bwc-compile: --calibrate-tolerance expects a positive relative L2 bound

func.func @main(%x: tensor<4x64xf32> {bwc.name = "x"}) -> (tensor<4x8xf32> {bwc.name = "y"}, tensor<4x8xf32> {bwc.name = "big"}) {
  %w = bwc.constant dense<0.5> : tensor<64x8xf32>
  %c = bwc.constant dense<1.0e5> : tensor<f32>
  %m = bwc.matmul %x, %w : (tensor<4x64xf32>, tensor<64x8xf32>) -> tensor<4x8xf32>
  %y = bwc.unary neg %m : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = bwc.binary mul %x, %c : (tensor<4x64xf32>, tensor<f32>) -> tensor<4x64xf32>
  %mb = bwc.matmul %s, %w : (tensor<4x64xf32>, tensor<64x8xf32>) -> tensor<4x8xf32>
  %b = bwc.unary neg %mb : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y, %b : tensor<4x8xf32>, tensor<4x8xf32>
}
