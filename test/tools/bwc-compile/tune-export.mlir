// RUN: rm -rf %t && mkdir -p %t
// RUN: env BWC_PTXAS=none bwc-compile %s --target=cuda --tune-export=%t/bundle -o %t/a.bwc
// RUN: FileCheck %s --check-prefix=BUNDLE < %t/bundle/bundle.tsv
// RUN: env BWC_CUDA_DRIVER=%fake_cuda FAKE_CUDA_BEST_BLOCK=512 bwc-tune-run %t/bundle --runs 3 | FileCheck %s --check-prefix=TIMED
// RUN: FileCheck %s --check-prefix=RESULTS < %t/bundle/results.tsv
// RUN: env BWC_CUDA_DRIVER=%t.no-such-driver.so BWC_PTXAS=none bwc-compile %s --target=cuda --tune-import=%t/bundle --tuning-cache=%t/cache.json --emit=gpu -o %t/tuned.gpu
// RUN: FileCheck %s --check-prefix=CACHE < %t/cache.json
// RUN: FileCheck %s --check-prefix=TUNED < %t/tuned.gpu
// RUN: env BWC_CUDA_DRIVER=%t.no-such-driver.so not bwc-tune-run %t/bundle 2>&1 | FileCheck %s --check-prefix=NODRIVER
// RUN: not bwc-tune-run %t/nothing-here 2>&1 | FileCheck %s --check-prefix=NOBUNDLE
// RUN: not bwc-compile %s --target=cuda --tune-import=%t/nothing-here --tuning-cache=%t/x.json -o %t/x.bwc 2>&1 | FileCheck %s --check-prefix=NOIMPORT
// RUN: mkdir -p %t/bad && cp %t/bundle/bundle.tsv %t/bad/ && printf '# gpu\tFake CUDA device\nc0.ptx\tfast\n' > %t/bad/results.tsv
// RUN: not bwc-compile %s --target=cuda --tune-import=%t/bad --tuning-cache=%t/x.json -o %t/x.bwc 2>&1 | FileCheck %s --check-prefix=BADLINE
// RUN: not bwc-compile %s --target=cuda --tune-import=%t/bundle -o %t/x.bwc 2>&1 | FileCheck %s --check-prefix=NOCACHE
// RUN: not bwc-compile %s --tune-export=%t/cpu -o %t/x.bwc 2>&1 | FileCheck %s --check-prefix=CPU

// Tests tuning split across two machines, as the GPU check runs it (the
// GPU machine has no LLVM): bwc-compile --tune-export writes each distinct
// kernel's candidate configurations as PTX with a bundle.tsv (here the
// 1024x1024 exp loop kernel: blocks 128/256/512, vector 4 and 1, the
// heuristic's first); bwc-tune-run, runtime only, times them (the fake
// driver's clock makes block 512 fastest) into results.tsv; bwc-compile
// --tune-import merges them into the cache with no driver at all and the
// compile uses block 512. Missing files, a malformed results line, a
// missing cache option and a CPU target are errors.

// BUNDLE: # bwc tuning bundle v1
// BUNDLE-NEXT: {{[0-9a-f]+}}	main_k0_unary_exp	main_k0_unary_exp{{.*}}	{{[0-9]+}}	256	4194304,4194304	c0.ptx	{block = 256 : i64,{{.*}}emitter = "loop"
// BUNDLE: c1.ptx

// TIMED: bwc-tune-run: {{[0-9]+}} candidates timed, 0 skipped on Fake CUDA device; merge with bwc-compile --tune-import=
// RESULTS: # gpu	Fake CUDA device
// RESULTS-NEXT: c0.ptx	2
// CACHE: "Fake CUDA device": {
// CACHE: "block": 512,
// CACHE: "median_ms": 1
// CACHE: ],
// CACHE-NEXT: "config": {
// CACHE-NEXT: "block": 512,
// TUNED: gpu.func @main_k0_unary_exp_bwc{{.*}}block = 512 : i64{{.*}}known_block_size = array<i32: 512, 1, 1>
// NODRIVER: bwc-tune-run: needs a CUDA GPU:
// NOBUNDLE: bwc-tune-run: cannot read {{.*}}nothing-here/bundle.tsv (bwc-compile --tune-export={{.*}} writes it)
// NOIMPORT: error: --tune-import: cannot read {{.*}}nothing-here/bundle.tsv
// BADLINE: error: --tune-import: {{.*}}results.tsv:2: expects 'PTX-FILE<TAB>MS' or 'PTX-FILE<TAB>skip<TAB>WHY' but got 'c0.ptx	fast'
// NOCACHE: bwc-compile: --tune-import expects --tuning-cache=FILE and no --tune
// CPU: bwc-compile: --tune-export and --tune-import expect --target=cuda but got --target=cpu

func.func @main(%x: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %0 = bwc.unary exp %x : (tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %0 : tensor<1024x1024xf32>
}
