// RUN: printf 'this is not a model' > %t.onnx
// RUN: not bwc-opt %t.onnx 2>&1 | FileCheck %s --check-prefix=NOTONNX
// RUN: head -c 150 %S/../Inputs/mlp_dynamic_batch.onnx > %t.trunc.onnx
// RUN: not bwc-opt %t.trunc.onnx --input-shape=x=1x8 2>&1 | FileCheck %s --check-prefix=TRUNC
// RUN: not bwc-opt %t.missing.onnx 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not bwc-opt %S/../Inputs/mlp_dynamic_batch.onnx --input-shape=y=4x8 2>&1 | FileCheck %s --check-prefix=NAME
// RUN: not bwc-opt %S/../Inputs/mlp_dynamic_batch.onnx --input-shape=x=4 2>&1 | FileCheck %s --check-prefix=RANK
// RUN: not bwc-opt %S/../Inputs/mlp_dynamic_batch.onnx --input-shape=x=4xq 2>&1 | FileCheck %s --check-prefix=SYNTAX

// Tests the one-line errors for files that are not (whole) ONNX models and
// for --input-shape values that do not fit the model.
// NOTONNX: error: is not an ONNX model
// TRUNC: error:
// MISSING: error: cannot be read
// NAME: error: --input-shape names 'y', which is not a graph input (inputs: 'x')
// RANK: error: --input-shape gives input 'x' rank 1 but the model declares rank 2
// SYNTAX: --input-shape: expected non-negative dims in 'x=4xq'
