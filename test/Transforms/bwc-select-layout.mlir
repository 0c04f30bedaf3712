// RUN: bwc-opt %s --split-input-file --bwc-select-layout | FileCheck %s
// RUN: bwc-opt %s --split-input-file "--bwc-select-layout=mode=nhwc" | FileCheck %s --check-prefix=NHWC
// RUN: bwc-opt %s --split-input-file "--bwc-select-layout=mode=nchw" | FileCheck %s --check-prefix=NCHW

// Tests that a chain of 1x1 convolutions, two of them strided, goes
// channels-last. As implicit GEMMs (contraction_tiled) a channels-first
// strided conv stages its input along the output positions, every other
// element (half of each sector), while channels-last tiles read
// consecutive channels (2338230 -> 1327104 and 606208 -> 344064 fetched
// bytes); with 16 channels at both edges the conversions are tiled
// transposes (coalesced), so the chain costs 3638355 bytes instead of
// 4345270, and the fused program agrees (3638611 against 4345526
// fetched, bwc.layout_check). Constant filters are stored
// [K..., C, F] at compile time, the per-channel bias [64, 1, 1] becomes
// [1, 1, 1, 64]; the chain's inside has no transpose.
// CHECK-LABEL: module attributes {bwc.layout_check = {chosen_fetched_bytes = 3638611 : i64, nchw_fetched_bytes = 4345526 : i64, nhwc_bias = 1.000000e+00 : f64}}
// CHECK-NEXT: func.func @main
// CHECK-NEXT: %[[X:.*]] = bwc.transpose %arg0 perm = [0, 2, 3, 1] : (tensor<1x16x64x64xf32>) -> tensor<1x64x64x16xf32>
// CHECK-NEXT: %[[W0:.*]] = bwc.constant dense<5.000000e-01> : tensor<1x1x16x64xf32>
// CHECK-NEXT: %[[C0:.*]] = bwc.conv %[[X]], %[[W0]] {{.*}} {bwc.layout = "nhwc", bwc.layout_cost = {chain = 0 : i64, chain_bytes = 3638355 : i64, chain_nchw_bytes = 4345270 : i64, nchw_bytes = 1314816 : i64, nhwc_bytes = 1314816 : i64}, channels_last} : (tensor<1x64x64x16xf32>, tensor<1x1x16x64xf32>) -> tensor<1x64x64x64xf32>
// CHECK-NEXT: %[[R0:.*]] = bwc.unary relu %[[C0]] : (tensor<1x64x64x64xf32>) -> tensor<1x64x64x64xf32>
// CHECK-NEXT: %[[B:.*]] = bwc.constant dense<2.500000e-01> : tensor<1x1x1x64xf32>
// CHECK-NEXT: %[[A:.*]] = bwc.binary add %[[R0]], %[[B]] : (tensor<1x64x64x64xf32>, tensor<1x1x1x64xf32>) -> tensor<1x64x64x64xf32>
// CHECK-NEXT: %[[W1:.*]] = bwc.constant dense<5.000000e-01> : tensor<1x1x64x64xf32>
// CHECK-NEXT: bwc.conv %[[A]], %[[W1]] strides = [2, 2] {{.*}} {bwc.layout = "nhwc", bwc.layout_cost = {chain = 0 : i64, chain_bytes = 3638355 : i64, chain_nchw_bytes = 4345270 : i64, nchw_bytes = 2338230 : i64, nhwc_bytes = 1327104 : i64}, channels_last} : (tensor<1x64x64x64xf32>, tensor<1x1x64x64xf32>) -> tensor<1x32x32x64xf32>
// CHECK-NEXT: bwc.unary relu
// CHECK-NEXT: bwc.constant
// CHECK-NEXT: bwc.conv {{.*}} strides = [2, 2] {{.*}}channels_last} : (tensor<1x32x32x64xf32>, tensor<1x1x64x64xf32>) -> tensor<1x16x16x64xf32>
// CHECK-NEXT: bwc.unary relu
// CHECK-NEXT: bwc.constant dense<5.000000e-01> : tensor<1x1x64x16xf32>
// CHECK-NEXT: %[[C3:.*]] = bwc.conv {{.*}} channels_last} : (tensor<1x16x16x64xf32>, tensor<1x1x64x16xf32>) -> tensor<1x16x16x16xf32>
// CHECK-NEXT: %[[Y:.*]] = bwc.transpose %[[C3]] perm = [0, 3, 1, 2] : (tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
// CHECK-NEXT: %[[R3:.*]] = bwc.unary relu %[[Y]]
// CHECK-NEXT: return %[[R3]]
// NCHW-LABEL: func.func @main
// NCHW-NOT: bwc.transpose
// NCHW-NOT: channels_last
// NCHW: return
func.func @main(%x: tensor<1x16x64x64xf32>) -> tensor<1x16x16x16xf32> {
  %w0 = bwc.constant dense<0.5> : tensor<64x16x1x1xf32>
  %c0 = bwc.conv %x, %w0 strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 1 : (tensor<1x16x64x64xf32>, tensor<64x16x1x1xf32>) -> tensor<1x64x64x64xf32>
  %r0 = bwc.unary relu %c0 : (tensor<1x64x64x64xf32>) -> tensor<1x64x64x64xf32>
  %b = bwc.constant dense<0.25> : tensor<64x1x1xf32>
  %a = bwc.binary add %r0, %b : (tensor<1x64x64x64xf32>, tensor<64x1x1xf32>) -> tensor<1x64x64x64xf32>
  %w1 = bwc.constant dense<0.5> : tensor<64x64x1x1xf32>
  %c1 = bwc.conv %a, %w1 strides = [2, 2] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 1 : (tensor<1x64x64x64xf32>, tensor<64x64x1x1xf32>) -> tensor<1x64x32x32xf32>
  %r1 = bwc.unary relu %c1 : (tensor<1x64x32x32xf32>) -> tensor<1x64x32x32xf32>
  %w2 = bwc.constant dense<0.5> : tensor<64x64x1x1xf32>
  %c2 = bwc.conv %r1, %w2 strides = [2, 2] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 1 : (tensor<1x64x32x32xf32>, tensor<64x64x1x1xf32>) -> tensor<1x64x16x16xf32>
  %r2 = bwc.unary relu %c2 : (tensor<1x64x16x16xf32>) -> tensor<1x64x16x16xf32>
  %w3 = bwc.constant dense<0.5> : tensor<16x64x1x1xf32>
  %c3 = bwc.conv %r2, %w3 strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 1 : (tensor<1x64x16x16xf32>, tensor<16x64x1x1xf32>) -> tensor<1x16x16x16xf32>
  %r3 = bwc.unary relu %c3 : (tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
  return %r3 : tensor<1x16x16x16xf32>
}

// -----

// Tests that the labeling is per op, not per chain (an exact minimum cut):
// the chain above followed by a 1x1 conv expanding 16 -> 128 channels.
// Moving that conv too would convert its 128 KiB output instead of the
// 16 KiB tensor before it, so the layout changes back at the smallest
// tensor (3784704 priced, 3784704 fetched once fused, against 4538368).
// CHECK-LABEL: module attributes {bwc.layout_check = {chosen_fetched_bytes = 3794003 : i64, nchw_fetched_bytes = 4500918 : i64, nhwc_bias = 1.000000e+00 : f64}}
// CHECK-NEXT: func.func @main
// CHECK: bwc.transpose %arg0 perm = [0, 2, 3, 1]
// CHECK: bwc.conv {{.*}}bwc.layout = "nhwc", bwc.layout_cost = {chain = 0 : i64, chain_bytes = 3794003 : i64, chain_nchw_bytes = 4500918 : i64
// CHECK: bwc.conv {{.*}}strides = [2, 2] {{.*}}bwc.layout = "nhwc"
// CHECK: bwc.conv {{.*}}strides = [2, 2] {{.*}}bwc.layout = "nhwc"
// CHECK: %[[C3:.*]] = bwc.conv {{.*}}bwc.layout = "nhwc"{{.*}} -> tensor<1x16x16x16xf32>
// CHECK-NEXT: %[[B:.*]] = bwc.transpose %[[C3]] perm = [0, 3, 1, 2] : (tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
// CHECK-NEXT: bwc.unary relu %[[B]] : (tensor<1x16x16x16xf32>)
// CHECK: bwc.conv {{.*}}bwc.layout = "nchw"{{.*}} : (tensor<1x16x16x16xf32>, tensor<128x16x1x1xf32>) -> tensor<1x128x16x16xf32>
// CHECK-NOT: bwc.transpose
// CHECK: return
// NHWC-LABEL: func.func @main
// NHWC: bwc.transpose %arg0 perm = [0, 2, 3, 1] : (tensor<1x16x64x64xf32>)
// NHWC: bwc.layout = "nhwc"{{.*}} -> tensor<1x16x16x128xf32>
func.func @main(%x: tensor<1x16x64x64xf32>) -> tensor<1x128x16x16xf32> {
  %w0 = bwc.constant dense<0.5> : tensor<64x16x1x1xf32>
  %c0 = bwc.conv %x, %w0 strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 1 : (tensor<1x16x64x64xf32>, tensor<64x16x1x1xf32>) -> tensor<1x64x64x64xf32>
  %r0 = bwc.unary relu %c0 : (tensor<1x64x64x64xf32>) -> tensor<1x64x64x64xf32>
  %w1 = bwc.constant dense<0.5> : tensor<64x64x1x1xf32>
  %c1 = bwc.conv %r0, %w1 strides = [2, 2] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 1 : (tensor<1x64x64x64xf32>, tensor<64x64x1x1xf32>) -> tensor<1x64x32x32xf32>
  %r1 = bwc.unary relu %c1 : (tensor<1x64x32x32xf32>) -> tensor<1x64x32x32xf32>
  %w2 = bwc.constant dense<0.5> : tensor<64x64x1x1xf32>
  %c2 = bwc.conv %r1, %w2 strides = [2, 2] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 1 : (tensor<1x64x32x32xf32>, tensor<64x64x1x1xf32>) -> tensor<1x64x16x16xf32>
  %r2 = bwc.unary relu %c2 : (tensor<1x64x16x16xf32>) -> tensor<1x64x16x16xf32>
  %w3 = bwc.constant dense<0.5> : tensor<16x64x1x1xf32>
  %c3 = bwc.conv %r2, %w3 strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 1 : (tensor<1x64x16x16xf32>, tensor<16x64x1x1xf32>) -> tensor<1x16x16x16xf32>
  %r3 = bwc.unary relu %c3 : (tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
  %w4 = bwc.constant dense<0.5> : tensor<128x16x1x1xf32>
  %c4 = bwc.conv %r3, %w4 strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 1 : (tensor<1x16x16x16xf32>, tensor<128x16x1x1xf32>) -> tensor<1x128x16x16xf32>
  %r4 = bwc.unary relu %c4 : (tensor<1x128x16x16xf32>) -> tensor<1x128x16x16xf32>
  return %r4 : tensor<1x128x16x16xf32>
}

// -----

// Tests that a lone strided conv stays channels-first: its saving
// (290071 -> 167936 fetched bytes) is less than the two transposes it
// would need (a read and a write of its 128 KiB input and 32 KiB output,
// at least 327680 bytes). mode=nhwc converts it anyway.
// CHECK-LABEL: func.func @lone
// CHECK-NOT: bwc.transpose
// CHECK: bwc.conv %arg0, %{{.*}} {bwc.layout = "nchw", bwc.layout_cost = {chain = 0 : i64, chain_bytes = 290071 : i64, chain_nchw_bytes = 290071 : i64, nchw_bytes = 290071 : i64, nhwc_bytes = 167936 : i64}} : (tensor<1x32x32x32xf32>, tensor<32x32x1x1xf32>) -> tensor<1x32x16x16xf32>
// NHWC-LABEL: func.func @lone
// NHWC: bwc.transpose %arg0 perm = [0, 2, 3, 1]
// NHWC: bwc.conv {{.*}}bwc.layout = "nhwc"{{.*}}channels_last} : (tensor<1x32x32x32xf32>, tensor<1x1x32x32xf32>) -> tensor<1x16x16x32xf32>
// NHWC: bwc.transpose {{.*}} perm = [0, 3, 1, 2]
func.func @lone(%x: tensor<1x32x32x32xf32>) -> tensor<1x32x16x16xf32> {
  %w = bwc.constant dense<0.5> : tensor<32x32x1x1xf32>
  %c = bwc.conv %x, %w strides = [2, 2] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 1 : (tensor<1x32x32x32xf32>, tensor<32x32x1x1xf32>) -> tensor<1x32x16x16xf32>
  return %c : tensor<1x32x16x16xf32>
}

// -----

// Tests that the ops between convolutions keep their meaning channels-last:
// pool and conv keep their spatial lists (pads, strides), pad and slice
// permute their per-dim lists, concat its axis (1 -> 3),
// a keepdims reduction its axes ([2, 3] -> [1, 2]), resize its scales, a
// depthwise filter is stored [K..., 1, C], and a value also read outside
// the chain (%m, by the reshape) is converted back for that reader only.
// NHWC-LABEL: func.func @ops
// NHWC: bwc.pool max %{{.*}} kernel = [2, 2] strides = [2, 2] dilations = [1, 1] pads = [0, 0, 1, 1] {{.*}}channels_last} : (tensor<1x8x8x4xf32>) -> tensor<1x4x4x4xf32>
// NHWC: bwc.pad constant %{{.*}} pads = [0, 1, 2, 0, 0, 1, 2, 0] {{.*}} : (tensor<1x4x4x4xf32>) -> tensor<1x6x8x4xf32>
// NHWC: bwc.slice %{{.*}} starts = [0, 1, 2, 0] steps = [1, 1, 1, 1] : (tensor<1x6x8x4xf32>) -> tensor<1x4x4x4xf32>
// NHWC: bwc.conv %{{.*}} groups = 4 {{.*}}channels_last} : (tensor<1x4x4x4xf32>, tensor<3x3x1x4xf32>) -> tensor<1x4x4x4xf32>
// NHWC: %[[CAT:.*]] = bwc.concat %{{.*}}, %{{.*}} axis = 3 : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x8xf32>
// NHWC: %[[M:.*]] = bwc.reduce mean %[[CAT]] axes = [1, 2] keepdims = true : (tensor<1x4x4x8xf32>) -> tensor<1x1x1x8xf32>
// NHWC: %[[BACK:.*]] = bwc.transpose %[[M]] perm = [0, 3, 1, 2] : (tensor<1x1x1x8xf32>) -> tensor<1x8x1x1xf32>
// NHWC: bwc.binary mul %[[CAT]], %[[M]] : (tensor<1x4x4x8xf32>, tensor<1x1x1x8xf32>) -> tensor<1x4x4x8xf32>
// NHWC: bwc.resize nearest %{{.*}} scales = [1.000000e+00, 2.000000e+00, 2.000000e+00, 1.000000e+00] {{.*}} : (tensor<1x4x4x8xf32>) -> tensor<1x8x8x8xf32>
// NHWC: bwc.reshape %[[BACK]]
// CHECK-LABEL: func.func @ops
// CHECK: bwc.pool {{.*}}bwc.layout = "{{nchw|nhwc}}"
func.func @ops(%x: tensor<1x4x8x8xf32>) -> (tensor<1x8x8x8xf32>, tensor<1x8xf32>) {
  %p = bwc.pool max %x kernel = [2, 2] strides = [2, 2] dilations = [1, 1] pads = [0, 0, 1, 1] ceil_mode = false count_include_pad = false : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  %zero = bwc.constant dense<0.0> : tensor<f32>
  %pd = bwc.pad constant %p pads = [0, 0, 1, 2, 0, 0, 1, 2] value = 0.0 : f32 : (tensor<1x4x4x4xf32>) -> tensor<1x4x6x8xf32>
  %s = bwc.slice %pd starts = [0, 0, 1, 2] steps = [1, 1, 1, 1] : (tensor<1x4x6x8xf32>) -> tensor<1x4x4x4xf32>
  %w = bwc.constant dense<0.5> : tensor<4x1x3x3xf32>
  %c = bwc.conv %s, %w strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] groups = 4 : (tensor<1x4x4x4xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x4x4xf32>
  %cat = bwc.concat %c, %s axis = 1 : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x8x4x4xf32>
  %m = bwc.reduce mean %cat axes = [2, 3] keepdims = true : (tensor<1x8x4x4xf32>) -> tensor<1x8x1x1xf32>
  %g = bwc.binary mul %cat, %m : (tensor<1x8x4x4xf32>, tensor<1x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %r = bwc.resize nearest %g scales = [1.0, 1.0, 2.0, 2.0] coord = asymmetric nearest_mode = floor : (tensor<1x8x4x4xf32>) -> tensor<1x8x8x8xf32>
  %flat = bwc.reshape %m : (tensor<1x8x1x1xf32>) -> tensor<1x8xf32>
  return %r, %flat : tensor<1x8x8x8xf32>, tensor<1x8xf32>
}

// -----

// Tests that a transpose of a constant becomes a transposed constant in
// every mode, element by element (here a matmul's weight, as ONNX Gemm
// with transB imports).
// CHECK-LABEL: func.func @baked
// CHECK-NEXT: %[[W:.*]] = bwc.constant dense<{{\[}}[1.000000e+00, 4.000000e+00], [2.000000e+00, 5.000000e+00], [3.000000e+00, 6.000000e+00]]> : tensor<3x2xf32>
// CHECK-NEXT: bwc.matmul %arg0, %[[W]]
// NCHW-LABEL: func.func @baked
// NCHW-NOT: bwc.transpose
func.func @baked(%x: tensor<4x3xf32>) -> tensor<4x2xf32> {
  %w = bwc.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %t = bwc.transpose %w perm = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %y = bwc.matmul %x, %t : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}
