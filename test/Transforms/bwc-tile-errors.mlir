// RUN: bwc-opt %s --split-input-file --bwc-tile --verify-diagnostics
// RUN: not bwc-opt %s --split-input-file --bwc-configure-kernels "--bwc-tile=emitters=loop,warp_magic" 2>&1 | FileCheck %s --check-prefix=EMITTER
// RUN: not bwc-opt %s --split-input-file --bwc-configure-kernels "--bwc-tile=sm-count=0" 2>&1 | FileCheck %s --check-prefix=SM

// EMITTER: error: expects emitters among loop, thread_per_output, row_reduction, column_reduction, transpose_tiled, contraction_tiled, contraction_thread but got 'warp_magic'
// SM: error: expects sm-count >= 1 and shared-memory-bytes >= 0 but got sm-count=0 shared-memory-bytes=49152

// Tests that a kernel bwc-configure-kernels did not configure is an error.
// expected-error @+1 {{expects a bwc.config with an emitter (from bwc-configure-kernels) but got unit}}
func.func private @k_unconfigured(%x: tensor<4xf32>) -> tensor<4xf32> attributes {bwc.kernel} {
  %0 = bwc.unary exp %x : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests that a configuration naming an unknown emitter is an error.
// expected-error @+1 {{expects bwc.config emitter loop, thread_per_output, row_reduction, column_reduction, transpose_tiled, contraction_tiled or contraction_thread but got 'warp_magic'}}
func.func private @k_unknown(%x: tensor<4xf32>) -> tensor<4xf32> attributes {bwc.kernel, bwc.config = {emitter = "warp_magic", block = 32 : i64, grid = 1 : i64}} {
  %0 = bwc.unary exp %x : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests that a configuration without a block size is an error.
// expected-error @+1 {{expects bwc.config field 'block' >= 1 but got 0}}
func.func private @k_noblock(%x: tensor<4xf32>) -> tensor<4xf32> attributes {bwc.kernel, bwc.config = {emitter = "loop", grid = 1 : i64}} {
  %0 = bwc.unary exp %x : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests that column_reduction on a kernel without a reduction is an error.
// expected-error @+1 {{expects a bwc.reduce in a column_reduction kernel but got none}}
func.func private @k_nocolumn(%x: tensor<4xf32>) -> tensor<4xf32> attributes {bwc.kernel, bwc.config = {emitter = "column_reduction", block = 256 : i64, grid = 1 : i64}} {
  %0 = bwc.unary exp %x : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests that contraction_tiled on a kernel without a matmul is an error.
// expected-error @+1 {{expects a bwc.matmul or a direct bwc.conv with groups 1 in a contraction_tiled kernel but got none}}
func.func private @k_nomatmul(%x: tensor<4xf32>) -> tensor<4xf32> attributes {bwc.kernel, bwc.config = {emitter = "contraction_tiled", block = 256 : i64, grid = 1 : i64}} {
  %0 = bwc.unary exp %x : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
