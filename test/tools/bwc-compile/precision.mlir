// RUN: rm -rf %t && mkdir -p %t
// RUN: /usr/bin/python3 %S/Inputs/make_matmul_case.py %t
// RUN: bwc-compile %s -o %t/f16.bwc --precision=fp16 --io-precision=fp16 --report-json=%t/f16.json
// RUN: FileCheck %s --check-prefix=JSON < %t/f16.json
// RUN: bwc-run %t/f16.bwc --check %t --tolerance=1e-2 | FileCheck %s --check-prefix=IO
// RUN: not bwc-run %t/f16.bwc --check %t | FileCheck %s --check-prefix=NOTOL
// RUN: bwc-compile %s -o %t/bf16.bwc --precision=bf16
// RUN: bwc-run %t/bf16.bwc --check %t --tolerance=3e-2 | FileCheck %s --check-prefix=DECLARED
// RUN: not bwc-compile %s -o %t/x.bwc --precision=fp8 2>&1 | FileCheck %s --check-prefix=PREC
// RUN: not bwc-compile %s -o %t/x.bwc --precision=fp16 --io-precision=bf16 2>&1 | FileCheck %s --check-prefix=IOPREC
// RUN: not bwc-compile %s -o %t/x.bwc --io-precision=fp16 2>&1 | FileCheck %s --check-prefix=IOFP32

// Tests --precision and --io-precision end to end: a matmul summed over 64
// products in f16 (acc_type = f32) with f16 input and output; bwc-run
// rounds the f32 input file to f16 and compares the f16 output with the
// f32 reference at the given tolerance (and refuses without one). In bf16
// with declared I/O the program keeps its f32 input and output.

// JSON: "precision": "fp16"
// JSON: "totals": {
// JSON: "bytes": 1600
// IO: output 0 'y' f16 4x8: rel-l2 {{.*}} PASS
// IO: check: 1 passed, 0 failed
// NOTOL: output 0 'y' f16 4x8: {{.*}} FAIL: a f16 output needs --tolerance against a f32 reference
// DECLARED: output 0 'y' f32 4x8: rel-l2 {{.*}} PASS
// PREC: bwc-compile: unknown --precision 'fp8' (expected fp32, fp16 or bf16)
// IOPREC: bwc-compile: --io-precision expects fp32 or the --precision value 'fp16' but got 'bf16'
// IOFP32: bwc-compile: --io-precision expects fp32 or the --precision value 'fp32' but got 'fp16'

func.func @main(%x: tensor<4x64xf32> {bwc.name = "x"}) -> (tensor<4x8xf32> {bwc.name = "y"}) {
  %w = bwc.constant dense<0.5> : tensor<64x8xf32>
  %y = bwc.matmul %x, %w : (tensor<4x64xf32>, tensor<64x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
