// REQUIRES: shared-models
// RUN: bwc-opt %shared_models/ppocr_cls/model.onnx --input-shape=x=1x3x48x192 | FileCheck %s --check-prefix=CLS
// RUN: bwc-opt %shared_models/ppocr_det/model.onnx --input-shape=x=1x3x320x320 | FileCheck %s --check-prefix=DET
// RUN: bwc-opt %shared_models/ppocr_rec/model.onnx --input-shape=x=1x3x48x320 | FileCheck %s --check-prefix=REC
// RUN: bwc-opt %shared_models/oww_melspec/model.onnx --input-shape=input=1x16000 | FileCheck %s --check-prefix=MEL
// RUN: bwc-opt %shared_models/oww_embedding/model.onnx --input-shape=input_1=1x76x32x1 | FileCheck %s --check-prefix=EMB

// Tests that the five real models import with static shapes everywhere
// (the bwc ops accept nothing else, so verification proves it) and that
// their shape arithmetic (Shape -> Gather -> Concat -> Reshape ...) folded
// away: these models compute on floats only, so no i64 tensor may be left.

// CLS: func.func @main(%{{.*}}: tensor<1x3x48x192xf32> {bwc.name = "x"}) -> (tensor<1x2xf32>
// CLS-NOT: xi64>
// DET: func.func @main(%{{.*}}: tensor<1x3x320x320xf32> {bwc.name = "x"}) -> (tensor<1x1x320x320xf32>
// DET-NOT: xi64>
// REC: func.func @main(%{{.*}}: tensor<1x3x48x320xf32> {bwc.name = "x"})
// REC-NOT: xi64>
// MEL: func.func @main(%{{.*}}: tensor<1x16000xf32> {bwc.name = "input"})
// MEL-NOT: xi64>
// EMB: func.func @main(%{{.*}}: tensor<1x76x32x1xf32> {bwc.name = "input_1"})
// EMB-NOT: xi64>
