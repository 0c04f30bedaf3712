// RUN: bwc-opt %s --split-input-file --bwc-grad --canonicalize --cse | FileCheck %s
// RUN: bwc-opt %s --split-input-file --bwc-grad="loss=cross-entropy" --canonicalize --cse | FileCheck %s --check-prefix=CE

// The training step of a dense layer: the target argument appended, the
// results replaced by loss and one grad.<name> per parameter, in argument
// order; the initializer (bwc.initial_value) is a constant again, the
// parameter without one stays an input. The bias adjoint sums the broadcast
// rows back; the weight adjoint is x^T times the adjoint of the product.
// The forward matmul is marked bwc.forward, the adjoint's is not.
// CHECK-LABEL: func.func @main
// CHECK-SAME: %[[X:[^:]*]]: tensor<4x3xf32> {bwc.name = "x"}
// CHECK-SAME: %[[W:[^:]*]]: tensor<3x2xf32> {bwc.name = "w", bwc.trainable}
// CHECK-SAME: %[[T:[^:]*]]: tensor<4x2xf32> {bwc.name = "target"}
// CHECK-SAME: -> (tensor<f32> {bwc.name = "loss"}, tensor<3x2xf32> {bwc.name = "grad.w"}, tensor<2xf32> {bwc.name = "grad.b"})
// CHECK-SAME: bwc.training = {loss = "mse", optimizer = "none", params = ["w", "b"]}
// CHECK-DAG: %[[B:.*]] = bwc.constant dense<[5.000000e-01, -1.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[EIGHTH:.*]] = bwc.constant dense<1.250000e-01> : tensor<4x2xf32>
// CHECK: %[[M:.*]] = bwc.matmul %[[X]], %[[W]] {bwc.forward}
// CHECK: %[[Y:.*]] = bwc.binary add %[[M]], %[[B]]
// CHECK: %[[D:.*]] = bwc.binary sub %[[Y]], %[[T]]
// CHECK: %[[SQ:.*]] = bwc.binary mul %[[D]], %[[D]]
// CHECK: %[[LOSS:.*]] = bwc.reduce mean %[[SQ]] axes = [0, 1] keepdims = false
// CHECK: %[[G1:.*]] = bwc.binary mul %[[EIGHTH]], %[[D]]
// CHECK: %[[G:.*]] = bwc.binary add %[[G1]], %[[G1]]
// CHECK: %[[GB1:.*]] = bwc.reduce sum %[[G]] axes = [0] keepdims = true
// CHECK: %[[GB:.*]] = bwc.reshape %[[GB1]] : (tensor<1x2xf32>) -> tensor<2xf32>
// CHECK: %[[XT:.*]] = bwc.transpose %[[X]] perm = [1, 0]
// CHECK: %[[GW:.*]] = bwc.matmul %[[XT]], %[[G]] :
// CHECK: return %[[LOSS]], %[[GW]], %[[GB]]
func.func @main(%x: tensor<4x3xf32> {bwc.name = "x"},
                %w: tensor<3x2xf32> {bwc.name = "w", bwc.trainable},
                %b: tensor<2xf32> {bwc.name = "b", bwc.trainable,
                                   bwc.initial_value = dense<[0.5, -1.0]> : tensor<2xf32>})
    -> (tensor<4x2xf32> {bwc.name = "y"}) {
  %0 = bwc.matmul %x, %w : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  %1 = bwc.binary add %0, %b : (tensor<4x2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
  return %1 : tensor<4x2xf32>
}

// -----

// Cross-entropy: the target is i64 class indices (the output's shape less
// its last dim); logsumexp along the last axis minus the picked logit (a
// one-hot from eq against the class ids), averaged over rows.
// CE-LABEL: func.func @main
// CE-SAME: %{{.*}}: tensor<4xi64> {bwc.name = "target"}
// CE-DAG: %[[IDS:.*]] = bwc.constant dense<[{{\[}}0, 1, 2]]> : tensor<1x3xi64>
// CE: bwc.reduce max %{{.*}} axes = [1] keepdims = true
// CE: bwc.unary exp
// CE: bwc.unary log
// CE: %[[L:.*]] = bwc.reshape %{{.*}} : (tensor<4xi64>) -> tensor<4x1xi64>
// CE: bwc.binary eq %[[L]], %[[IDS]] : (tensor<4x1xi64>, tensor<1x3xi64>) -> tensor<4x3xi1>
// CE: bwc.reduce mean %{{.*}} axes = [0, 1] keepdims = false : (tensor<4x1xf32>) -> tensor<f32>
func.func @main(%x: tensor<4x2xf32> {bwc.name = "x"},
                %w: tensor<2x3xf32> {bwc.name = "w", bwc.trainable})
    -> (tensor<4x3xf32> {bwc.name = "logits"}) {
  %0 = bwc.matmul %x, %w : (tensor<4x2xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// A parameter the loss does not read gets a zero gradient; values read
// twice sum their adjoints.
// CHECK-LABEL: func.func @main
// CHECK-DAG: %[[Z:.*]] = bwc.constant dense<0.000000e+00> : tensor<3xf32>
// CHECK-DAG: %[[THIRD:.*]] = bwc.constant dense<0.333333343> : tensor<3xf32>
// CHECK: %[[P:.*]] = bwc.binary mul %[[THIRD]], %{{.*}}
// CHECK: %[[DY:.*]] = bwc.binary add %[[P]], %[[P]]
// CHECK: %[[S:.*]] = bwc.binary add %[[DY]], %[[DY]]
// CHECK: return %{{.*}}, %[[S]], %[[Z]]
func.func @main(%a: tensor<3xf32> {bwc.name = "a", bwc.trainable},
                %u: tensor<3xf32> {bwc.name = "unused", bwc.trainable})
    -> (tensor<3xf32> {bwc.name = "y"}) {
  %0 = bwc.binary add %a, %a : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// tf_half_pixel_for_nn maps o to o + 0.5 on an unscaled axis, so linear
// mixes rows 0 and 1 there: that axis gets an adjoint contraction too. The
// one-hot rows of each axis's weight matrix sit at rows 2i + 1 of a
// [2n, n] constant that the op halves (0.5 maps row o to 2o + 1 exactly).
// CHECK-LABEL: func.func @main(%arg0: tensor<2x3xf32> {bwc.name = "x", bwc.trainable}
// CHECK-DAG: %[[R1:.*]] = bwc.constant dense<{{\[\[}}0.000000e+00, 0.000000e+00, 0.000000e+00], [1.000000e+00, 0.000000e+00, 0.000000e+00], [0.000000e+00, 0.000000e+00, 0.000000e+00], [0.000000e+00, 1.000000e+00, 0.000000e+00], [0.000000e+00, 0.000000e+00, 0.000000e+00], [0.000000e+00, 0.000000e+00, 1.000000e+00]]> : tensor<6x3xf32>
// CHECK-DAG: %[[R0:.*]] = bwc.constant dense<{{\[\[}}0.000000e+00, 0.000000e+00], [1.000000e+00, 0.000000e+00], [0.000000e+00, 0.000000e+00], [0.000000e+00, 1.000000e+00]]> : tensor<4x2xf32>
// CHECK: bwc.resize linear %arg0 scales = [1.000000e+00, 2.000000e+00] coord = tf_half_pixel_for_nn
// CHECK: %[[W0:.*]] = bwc.resize linear %[[R0]] scales = [5.000000e-01, 1.000000e+00] coord = tf_half_pixel_for_nn {{.*}} -> tensor<2x2xf32>
// CHECK: bwc.transpose %[[W0]] perm = [1, 0]
// CHECK: %[[W1:.*]] = bwc.resize linear %[[R1]] scales = [5.000000e-01, 2.000000e+00] coord = tf_half_pixel_for_nn {{.*}} -> tensor<3x6xf32>
// CHECK: bwc.transpose %[[W1]] perm = [1, 0]
// CHECK: return
func.func @main(%x: tensor<2x3xf32> {bwc.name = "x", bwc.trainable}) -> (tensor<2x6xf32> {bwc.name = "y"}) {
  %0 = bwc.resize linear %x scales = [1.0, 2.0] coord = tf_half_pixel_for_nn nearest_mode = floor : (tensor<2x3xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}
