// RUN: rm -f %t.128.json %t.512.json
// RUN: env BWC_CUDA_DRIVER=%fake_cuda FAKE_CUDA_BEST_BLOCK=128 BWC_PTXAS=none bwc-compile %s --target=cuda --tune --tuning-cache=%t.128.json -o %t.bwc
// RUN: FileCheck %s --check-prefix=CACHE128 < %t.128.json
// RUN: env BWC_CUDA_DRIVER=%fake_cuda FAKE_CUDA_BEST_BLOCK=512 BWC_PTXAS=none bwc-compile %s --target=cuda --tune --tuning-cache=%t.512.json --emit=gpu -o %t.512.gpu
// RUN: FileCheck %s --check-prefix=CACHE512 < %t.512.json
// RUN: FileCheck %s --check-prefix=GPU512 < %t.512.gpu
// RUN: env BWC_CUDA_DRIVER=%t.no-such-driver.so BWC_PTXAS=none bwc-compile %s --target=cuda --tuning-cache=%t.128.json --emit=gpu -o %t.reuse.gpu
// RUN: FileCheck %s --check-prefix=REUSE < %t.reuse.gpu
// RUN: env BWC_CUDA_DRIVER=%t.no-such-driver.so BWC_PTXAS=none bwc-compile %s --target=cuda --tuning-cache=%t.128.json --tune-gpu="Fake CUDA device" -o %t.reuse.bwc --report | FileCheck %s --check-prefix=REPORT
// RUN: env BWC_CUDA_DRIVER=%t.no-such-driver.so not bwc-compile %s --target=cuda --tune --tuning-cache=%t.none.json -o %t.bwc 2>&1 | FileCheck %s --check-prefix=NODRIVER
// RUN: env BWC_CUDA_DRIVER=%fake_cuda FAKE_CUDA_NO_DEVICE=1 not bwc-compile %s --target=cuda --tune --tuning-cache=%t.none.json -o %t.bwc 2>&1 | FileCheck %s --check-prefix=NODEVICE
// RUN: not bwc-compile %s --target=cuda --tuning-cache=%t.128.json --tune-gpu=H200 -o %t.bwc 2>&1 | FileCheck %s --check-prefix=OTHERGPU
// RUN: echo '{"version": 0}' > %t.old.json
// RUN: env BWC_CUDA_DRIVER=%fake_cuda not bwc-compile %s --target=cuda --tune --tuning-cache=%t.old.json -o %t.bwc 2>&1 | FileCheck %s --check-prefix=CORRUPT
// RUN: env BWC_CUDA_DRIVER=%fake_cuda BWC_PTXAS=none not bwc-compile %s --target=cuda --tune --tuning-cache=%t.no-such-dir/cache.json -o %t.bwc 2>&1 | FileCheck %s --check-prefix=WRITE
// RUN: env BWC_CUDA_DRIVER=%fake_cuda FAKE_CUDA_MEM_LIMIT=1000 not bwc-compile %s --target=cuda --tune --tuning-cache=%t.none.json -o %t.bwc 2>&1 | FileCheck %s --check-prefix=OOM
// RUN: not bwc-compile %s --tune --tuning-cache=%t.128.json -o %t.bwc 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: not bwc-compile %s --target=cuda --tune -o %t.bwc 2>&1 | FileCheck %s --check-prefix=NOCACHE
// RUN: not bwc-compile %s --target=cuda --tune --tune-gpu=H200 --tuning-cache=%t.128.json -o %t.bwc 2>&1 | FileCheck %s --check-prefix=BOTH

// Tests bwc-compile --tune end to end on the fake CUDA driver, whose
// synthetic clock makes a launch take 1 + |log2(block / best)| ms: the
// loop kernel (exp on 1024x1024 f32, heuristic block 256) is timed at
// blocks 128/256/512 with vector 4 and 1; the tuner keeps the block the
// driver was told is best (128, then 512: the choice follows the
// measurements), writes every candidate's median, and a later compile with
// no driver at all reuses the cache. Without a driver or a GPU --tune is
// an error, as are a corrupt cache, a cache it cannot write, device memory
// it cannot allocate, a GPU the cache does not hold and bad option mixes.

// CACHE128: "gpus": {
// CACHE128-NEXT: "Fake CUDA device": {
// CACHE128-NEXT: "{{[0-9a-f]+}}": {
// CACHE128-NEXT: "candidates": [
// CACHE128: "block": 256,
// CACHE128: "vector": 4
// CACHE128: "median_ms": 2
// CACHE128: "block": 128,
// CACHE128: "median_ms": 1
// CACHE128: "block": 512,
// CACHE128: "median_ms": 3
// CACHE128: "block": 128,
// CACHE128: "vector": 1
// CACHE128: "median_ms": 1
// CACHE128: ],
// CACHE128-NEXT: "config": {
// CACHE128-NEXT: "block": 128,
// CACHE128-NEXT: "elements_per_thread": 4,
// CACHE128-NEXT: "emitter": "loop",
// CACHE128-NEXT: "grid": 2048,
// CACHE128-NEXT: "vector": 4
// CACHE128-NEXT: },
// CACHE128-NEXT: "kernel": "main_k0_unary_exp"
// CACHE128: "version": 1

// CACHE512: ],
// CACHE512-NEXT: "config": {
// CACHE512-NEXT: "block": 512,
// CACHE512-NEXT: "elements_per_thread": 4,
// CACHE512-NEXT: "emitter": "loop",
// CACHE512-NEXT: "grid": 512,
// GPU512: gpu.func @main_k0_unary_exp_bwc{{.*}}block = 512 : i64{{.*}}known_block_size = array<i32: 512, 1, 1>

// REUSE: gpu.func @main_k0_unary_exp_bwc{{.*}}block = 128 : i64{{.*}}known_block_size = array<i32: 128, 1, 1>
// REPORT: coalescing 1.000

// NODRIVER: error: --tune needs a CUDA GPU: no CUDA driver found (cannot load '{{.*}}no-such-driver.so'
// NODEVICE: error: --tune needs a CUDA GPU: the CUDA driver {{.*}} sees no GPU
// CORRUPT: error: tuning cache '{{.*}}old.json': expects version 1 but got 0
// WRITE: error: cannot write tuning cache '{{.*}}no-such-dir/cache.json': {{[Nn]}}o such file or directory
// OOM: error: --tune: cannot allocate 4194304 bytes: CUDA_ERROR_OUT_OF_MEMORY (out of memory)
// OTHERGPU: error: expects gpu 'H200' in tuning cache '{{.*}}' but it has 'Fake CUDA device'
// CPU: bwc-compile: --tune, --tuning-cache and --tune-gpu expect --target=cuda but got --target=cpu
// NOCACHE: bwc-compile: --tune expects --tuning-cache=FILE
// BOTH: bwc-compile: --tune-gpu expects no --tune (the GPU being tuned names the entries) but got both
func.func @main(%x: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %0 = bwc.unary exp %x : (tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %0 : tensor<1024x1024xf32>
}
