// RUN: bwc-opt %s "--bwc-apply-tuning=cache=%S/Inputs/apply-tuning/two-gpus.json gpu='GPU A'" | FileCheck %s --check-prefix=GPUA
// RUN: bwc-opt %s "--bwc-apply-tuning=cache=%S/Inputs/apply-tuning/two-gpus.json gpu='GPU B'" | FileCheck %s --check-prefix=GPUB
// RUN: bwc-opt %s --bwc-apply-tuning=cache=%S/Inputs/apply-tuning/one-gpu.json | FileCheck %s --check-prefix=ONLY
// RUN: bwc-opt %s --bwc-apply-tuning=cache=%S/Inputs/apply-tuning/no-gpus.json | FileCheck %s --check-prefix=EMPTY

// The cache files hold entries for the signature of @k_exp (exp on
// 1024x1024 f32); "GPU A" chose block 128, "GPU B" block 512, and an
// entry for another signature that no kernel here has.

// Tests that a kernel with a cached entry takes the cached configuration
// of the chosen GPU, is re-scored and marked bwc.tuned; that a kernel of
// the same ops and types under another name and configuration (@k_exp_twin)
// has the same signature and takes the same entry; that a kernel of another
// signature (@k_neg) only gets its signature recorded; that without gpu=
// the cache's only GPU is used; and that a cache with no GPU changes no
// configuration.
// GPUA-LABEL: func.func private @k_exp
// GPUA-SAME: bwc.coalescing = 1.000000e+00 : f64, bwc.config = {block = 128 : i64, elements_per_thread = 4 : i64, emitter = "loop", grid = 2048 : i64, vector = 4 : i64}, bwc.kernel, bwc.signature = "[[SIG:[0-9a-f]+]]", bwc.tuned
// GPUA-LABEL: func.func private @k_exp_twin
// GPUA-SAME: bwc.config = {block = 128 : i64, {{.*}} bwc.signature = "[[SIG]]", bwc.tuned
// GPUA-LABEL: func.func private @k_neg
// GPUA-SAME: bwc.config = {block = 256 : i64, {{.*}} bwc.signature = "[[NEG:[0-9a-f]+]]"}
// GPUA-NOT: bwc.tuned
// GPUB-LABEL: func.func private @k_exp
// GPUB-SAME: bwc.config = {block = 512 : i64, elements_per_thread = 4 : i64, emitter = "loop", grid = 512 : i64, vector = 4 : i64}, bwc.kernel, bwc.signature = "{{[0-9a-f]+}}", bwc.tuned
// GPUB-LABEL: func.func private @k_exp_twin
// GPUB-SAME: block = 512 : i64
// ONLY-LABEL: func.func private @k_exp
// ONLY-SAME: block = 128 : i64{{.*}}bwc.tuned
// EMPTY-LABEL: func.func private @k_exp
// EMPTY-SAME: bwc.config = {block = 256 : i64
// EMPTY-NOT: bwc.tuned
func.func private @k_exp(%x: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> attributes {bwc.kernel, bwc.config = {block = 256 : i64, elements_per_thread = 4 : i64, emitter = "loop", grid = 1024 : i64, vector = 4 : i64}} {
  %0 = bwc.unary exp %x : (tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %0 : tensor<1024x1024xf32>
}

func.func private @k_exp_twin(%y: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> attributes {bwc.kernel, bwc.config = {block = 64 : i64, elements_per_thread = 16 : i64, emitter = "loop", grid = 1024 : i64, vector = 4 : i64}, bwc.coalescing = 1.0 : f64} {
  %0 = bwc.unary exp %y : (tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %0 : tensor<1024x1024xf32>
}

func.func private @k_neg(%x: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> attributes {bwc.kernel, bwc.config = {block = 256 : i64, elements_per_thread = 4 : i64, emitter = "loop", grid = 1024 : i64, vector = 4 : i64}} {
  %0 = bwc.unary neg %x : (tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %0 : tensor<1024x1024xf32>
}
