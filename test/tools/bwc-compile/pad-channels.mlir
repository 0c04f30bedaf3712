// RUN: rm -rf %t && mkdir -p %t
// RUN: /usr/bin/python3 %S/Inputs/make_padded_conv_case.py %t
// RUN: bwc-opt %t/stft.mlir --pass-pipeline='builtin.module(bwc-select-layout,canonicalize,cse,bwc-pad-channels)' --mlir-elide-elementsattrs-if-larger=16 | FileCheck %s
// RUN: env BWC_PTXAS=none bwc-compile %t/stft.mlir --target=cuda -o %t/padded.bwc
// RUN: bwc-run %t/padded.bwc --device=cuda-sim --sanitize=all --check %t --profile | FileCheck %s --check-prefixes=PASS,PADDED
// RUN: env BWC_PTXAS=none bwc-compile %t/stft.mlir --target=cuda --pad-channels=none -o %t/plain.bwc
// RUN: bwc-run %t/plain.bwc --device=cuda-sim --check %t --profile | FileCheck %s --check-prefixes=PASS,PLAIN
// RUN: not bwc-compile %t/stft.mlir --target=cuda --pad-channels=yes -o %t/x.bwc 2>&1 | FileCheck %s --check-prefix=BAD

// Tests bwc-pad-channels end to end: an STFT-like convolution (257
// output channels, with bias) that bwc-select-layout makes channels-last
// computes 288 channels, zero filter columns and bias entries, the real
// 257 sliced back; under every sanitizer on cuda-sim it meets the numpy
// reference padded and not, and the convolution's kernel reads whole
// sectors padded (cuda-sim's sector efficiency 1.000) where the plain one
// does not (both contraction_thread since 2026-12-07: 9.82 and 7.92 bytes
// per request, 16-byte input chunks along the window).
// CHECK: bwc.pad_check = {padded_fetched_bytes = {{[0-9]+}} : i64, padded_kernels = 2 : i64, plain_fetched_bytes = {{[0-9]+}} : i64, plain_kernels = 2 : i64}
// CHECK: %[[W:.*]] = bwc.constant {{.*}} : tensor<128x1x288xf32>
// CHECK: %[[B:.*]] = bwc.constant {{.*}} : tensor<288xf32>
// CHECK: %[[C:.*]] = bwc.conv %{{.*}}, %[[W]], %[[B]] {{.*}}bwc.pad_channels = {channels = 257 : i64, chosen = true, {{.*}}padded = 288 : i64{{.*}}} : (tensor<1x4000x1xf32>, tensor<128x1x288xf32>, tensor<288xf32>) -> tensor<1x97x288xf32>
// CHECK-NEXT: bwc.slice %[[C]] starts = [0, 0, 0] steps = [1, 1, 1] : (tensor<1x97x288xf32>) -> tensor<1x97x257xf32>
// PASS: check: 1 passed, 0 failed
// PADDED: main_k0_fusion_contraction_bwc {{.*}} 1.000 {{ *}}9.82
// PLAIN: main_k0_fusion_contraction_bwc {{.*}} 0.{{[0-8][0-9]*}} {{ *}}7.92
// BAD: unknown --pad-channels 'yes' (expected auto or none)
