// RUN: bwc-opt %s --split-input-file --bwc-grad="optimizer=sgd lr=0.5" --canonicalize --cse | FileCheck %s
// RUN: bwc-opt %s --split-input-file --bwc-grad="optimizer=adam lr=0.001" --canonicalize --cse | FileCheck %s --check-prefix=ADAM
// RUN: bwc-opt %s --bwc-grad="optimizer=sgd lr=0.5 loss-scale=dynamic growth-interval=3" --canonicalize --cse | FileCheck %s --check-prefix=DYN
// RUN: not bwc-opt %s --bwc-grad="loss-scale=-4" 2>&1 | FileCheck %s --check-prefix=BADSCALE
// RUN: not bwc-opt %s --bwc-grad="optimizer=sgd lr=-1" 2>&1 | FileCheck %s --check-prefix=BADLR
// RUN: not bwc-opt %s --bwc-grad="optimizer=rmsprop" 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// An optimizer step: the parameter stays an argument, marked state with its
// initial value; the results are the loss and the new value, marked
// bwc.state_update (sgd: w - lr * g).
// CHECK-LABEL: func.func @main
// CHECK-SAME: %[[W:[^:]*]]: tensor<3xf32> {bwc.initial_value = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>, bwc.name = "w", bwc.state, bwc.trainable}
// CHECK-SAME: -> (tensor<f32> {bwc.name = "loss"}, tensor<3xf32> {bwc.state_update = "w"})
// CHECK-SAME: bwc.training = {loss = "mse", lr = 5.000000e-01 : f64, optimizer = "sgd", params = ["w"]}
// CHECK-DAG: %[[RATE:.*]] = bwc.constant dense<5.000000e-01> : tensor<f32>
// CHECK: %[[STEP:.*]] = bwc.binary mul %[[RATE]], %[[G:.*]] :
// CHECK: %[[NEW:.*]] = bwc.binary sub %[[W]], %[[STEP]]
// CHECK: return %{{.*}}, %[[NEW]]

// Adam adds its moments and step count as zero-initialized state.
// ADAM-LABEL: func.func @main
// ADAM-SAME: {bwc.initial_value = dense<0.000000e+00> : tensor<f32>, bwc.name = "adam.step", bwc.state}
// ADAM-SAME: {bwc.initial_value = dense<0.000000e+00> : tensor<3xf32>, bwc.name = "adam.m.w", bwc.state}
// ADAM-SAME: {bwc.initial_value = dense<0.000000e+00> : tensor<3xf32>, bwc.name = "adam.v.w", bwc.state}
// ADAM-SAME: {bwc.state_update = "w"}, tensor<3xf32> {bwc.state_update = "adam.m.w"}, tensor<3xf32> {bwc.state_update = "adam.v.w"}, tensor<f32> {bwc.state_update = "adam.step"})
// ADAM: bwc.unary sqrt

// Dynamic loss scaling: the scale and the good-step count are state; the
// seed is the scale, the gradient is divided by it, a step whose gradient
// is not finite (|g| > the largest f32) keeps w, and the scale halves (or
// doubles after growth-interval good steps).
// DYN-LABEL: func.func @main
// DYN-SAME: %[[W:arg[0-9]+]]: tensor<3xf32> {bwc.initial_value = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>, bwc.name = "w", bwc.state, bwc.trainable}
// DYN-SAME: %[[S:arg[0-9]+]]: tensor<f32> {bwc.initial_value = dense<6.553600e+04> : tensor<f32>, bwc.name = "loss_scale.scale", bwc.state}
// DYN-SAME: %[[N:arg[0-9]+]]: tensor<f32> {bwc.initial_value = dense<0.000000e+00> : tensor<f32>, bwc.name = "loss_scale.good", bwc.state}
// DYN-SAME: -> (tensor<f32> {bwc.name = "loss"}, tensor<f32> {bwc.name = "loss_scale"}, tensor<f32> {bwc.name = "skipped"}, tensor<3xf32> {bwc.state_update = "w"}, tensor<f32> {bwc.state_update = "loss_scale.scale"}, tensor<f32> {bwc.state_update = "loss_scale.good"})
// DYN-DAG: %[[BIG:.*]] = bwc.constant dense<3.40282347E+38> : tensor<f32>
// DYN: %[[G:.*]] = bwc.binary div %{{.*}}, %[[S]] : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
// DYN: %[[A:.*]] = bwc.unary abs %[[G]]
// DYN: bwc.binary le %[[A]], %[[BIG]]
// DYN: %[[OK:.*]] = bwc.binary gt
// DYN: %[[NEW:.*]] = bwc.binary sub %[[W]],
// DYN: %[[KEEP:.*]] = bwc.select %[[OK]], %[[NEW]], %[[W]]
// DYN: return %{{.*}}, %[[S]], %{{.*}}, %[[KEEP]], %{{.*}}, %{{.*}} :

// BADSCALE: error: bwc-grad: loss-scale expects none, dynamic or a positive factor but got '-4'
// BADLR: error: bwc-grad: the learning rate must be positive and finite but is -1
// UNKNOWN: error: bwc-grad: unknown optimizer 'rmsprop' (expected none, sgd or adam)
func.func @main(%x: tensor<3xf32> {bwc.name = "x"},
                %w: tensor<3xf32> {bwc.name = "w", bwc.trainable,
                                   bwc.initial_value = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>})
    -> (tensor<3xf32> {bwc.name = "y"}) {
  %0 = bwc.binary mul %x, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
