// RUN: not bwc-opt %s --bwc-apply-tuning 2>&1 | FileCheck %s --check-prefix=NOCACHE
// RUN: not bwc-opt %s --bwc-apply-tuning=cache=%t.missing.json 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: echo 'not json' > %t.bad.json
// RUN: not bwc-opt %s --bwc-apply-tuning=cache=%t.bad.json 2>&1 | FileCheck %s --check-prefix=JSON
// RUN: echo '[1, 2]' > %t.array.json
// RUN: not bwc-opt %s --bwc-apply-tuning=cache=%t.array.json 2>&1 | FileCheck %s --check-prefix=ARRAY
// RUN: echo '{"version": 2, "gpus": {}}' > %t.v2.json
// RUN: not bwc-opt %s --bwc-apply-tuning=cache=%t.v2.json 2>&1 | FileCheck %s --check-prefix=VERSION
// RUN: echo '{"version": 1}' > %t.nogpus.json
// RUN: not bwc-opt %s --bwc-apply-tuning=cache=%t.nogpus.json 2>&1 | FileCheck %s --check-prefix=NOGPUS
// RUN: echo '{"version": 1, "gpus": {"A": 3}}' > %t.gpu.json
// RUN: not bwc-opt %s --bwc-apply-tuning=cache=%t.gpu.json 2>&1 | FileCheck %s --check-prefix=GPU
// RUN: echo '{"version": 1, "gpus": {"A": {"0123456789abcdef": {"kernel": "k"}}}}' > %t.noconfig.json
// RUN: not bwc-opt %s --bwc-apply-tuning=cache=%t.noconfig.json 2>&1 | FileCheck %s --check-prefix=NOCONFIG
// RUN: echo '{"version": 1, "gpus": {"A": {"0123456789abcdef": {"config": {"emitter": "warp_magic", "block": 32, "grid": 1}}}}}' > %t.emitter.json
// RUN: not bwc-opt %s --bwc-apply-tuning=cache=%t.emitter.json 2>&1 | FileCheck %s --check-prefix=EMITTER
// RUN: echo '{"version": 1, "gpus": {"A": {"0123456789abcdef": {"config": {"emitter": "loop", "block": "big", "grid": 1}}}}}' > %t.field.json
// RUN: not bwc-opt %s --bwc-apply-tuning=cache=%t.field.json 2>&1 | FileCheck %s --check-prefix=FIELD
// RUN: echo '{"version": 1, "gpus": {"A": {"0123456789abcdef": {"config": {"emitter": "loop", "grid": 1}}}}}' > %t.noblock.json
// RUN: not bwc-opt %s --bwc-apply-tuning=cache=%t.noblock.json 2>&1 | FileCheck %s --check-prefix=NOBLOCK
// RUN: echo '{"version": 1, "gpus": {"A": {"0123456789abcdef": {"config": {"block": 32, "grid": 1}}}}}' > %t.noemitter.json
// RUN: not bwc-opt %s --bwc-apply-tuning=cache=%t.noemitter.json 2>&1 | FileCheck %s --check-prefix=NOEMITTER
// RUN: echo '{"version": 1, "gpus": {"A": {"0123456789abcdef": {"config": {"emitter": "loop", "block": 32, "grid": 1}, "candidates": [{"config": {"emitter": "loop", "block": 32, "grid": 1}}]}}}}' > %t.median.json
// RUN: not bwc-opt %s --bwc-apply-tuning=cache=%t.median.json 2>&1 | FileCheck %s --check-prefix=MEDIAN
// RUN: not bwc-opt %s --bwc-apply-tuning=cache=%S/Inputs/apply-tuning/two-gpus.json 2>&1 | FileCheck %s --check-prefix=SEVERAL
// RUN: not bwc-opt %s "--bwc-apply-tuning=cache=%S/Inputs/apply-tuning/two-gpus.json gpu=H200" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not bwc-opt %s --bwc-apply-tuning=cache=%S/Inputs/apply-tuning/rejected.json 2>&1 | FileCheck %s --check-prefix=REJECTED

// Tests every error of bwc-apply-tuning: no cache option, an unreadable or
// corrupt cache (not JSON, not an object, another version, no GPUs, an
// entry without a config, an unknown emitter, a non-integer or missing
// field, a candidate without a time), naming the file and the entry; a
// cache of several GPUs without gpu=, a GPU the cache does not hold; and a
// cached configuration the access model rejects for the kernel (a
// column_reduction for an elementwise kernel) is an error, not used.

// NOCACHE: error: expects a tuning cache file (cache=FILE) but got none
// MISSING: error: cannot read tuning cache '{{.*}}missing.json': {{[Nn]}}o such file or directory
// JSON: error: tuning cache '{{.*}}bad.json': expects JSON but got
// ARRAY: error: tuning cache '{{.*}}array.json': expects a JSON object
// VERSION: error: tuning cache '{{.*}}v2.json': expects version 1 but got 2
// NOGPUS: error: tuning cache '{{.*}}nogpus.json': expects a 'gpus' object
// GPU: error: tuning cache '{{.*}}gpu.json' gpu 'A': expects an object of entries
// NOCONFIG: error: tuning cache '{{.*}}noconfig.json' entry 'A/0123456789abcdef': expects a 'config' object
// EMITTER: error: tuning cache '{{.*}}emitter.json' entry 'A/0123456789abcdef': expects an emitter among loop, thread_per_output, row_reduction, column_reduction, transpose_tiled, contraction_tiled, contraction_thread but got 'warp_magic'
// FIELD: error: tuning cache '{{.*}}field.json' entry 'A/0123456789abcdef': expects config field 'block' to be an integer
// NOBLOCK: error: tuning cache '{{.*}}noblock.json' entry 'A/0123456789abcdef': expects config field 'block'
// NOEMITTER: error: tuning cache '{{.*}}noemitter.json' entry 'A/0123456789abcdef': expects the config to name an 'emitter'
// MEDIAN: error: tuning cache '{{.*}}median.json' entry 'A/0123456789abcdef': expects every candidate to have a number 'median_ms'
// SEVERAL: error: expects gpu=NAME to choose among the GPUs of tuning cache '{{.*}}two-gpus.json' but got none: 'GPU A', 'GPU B'
// UNKNOWN: error: expects gpu 'H200' in tuning cache '{{.*}}two-gpus.json' but it has 'GPU A', 'GPU B'
// REJECTED: error: expects tuning cache '{{.*}}rejected.json' entry 'GPU A/[[SIG:[0-9a-f]+]]' to hold a configuration the access model accepts for this kernel but got {block = 256 : i64, columns_per_block = 32 : i64, emitter = "column_reduction", grid = 1 : i64, slices = 8 : i64}
func.func private @k_exp(%x: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> attributes {bwc.kernel, bwc.config = {block = 256 : i64, elements_per_thread = 4 : i64, emitter = "loop", grid = 1024 : i64, vector = 4 : i64}} {
  %0 = bwc.unary exp %x : (tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %0 : tensor<1024x1024xf32>
}
