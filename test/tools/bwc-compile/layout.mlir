// RUN: rm -rf %t && mkdir -p %t
// RUN: /usr/bin/python3 %S/Inputs/make_conv_chain_case.py %t
// RUN: bwc-compile %t/chain.mlir -o %t/nhwc.bwc --layout=nhwc --report | FileCheck %s --check-prefix=NHWC
// RUN: bwc-run %t/nhwc.bwc --check %t | FileCheck %s --check-prefix=PASS
// RUN: bwc-compile %t/chain.mlir -o %t/nhwc-el.bwc --layout=nhwc --codegen=elemental
// RUN: bwc-run %t/nhwc-el.bwc --check %t | FileCheck %s --check-prefix=PASS
// RUN: bwc-compile %t/chain.mlir -o %t/nchw.bwc --layout=nchw --report | FileCheck %s --check-prefix=NCHW
// RUN: bwc-run %t/nchw.bwc --check %t | FileCheck %s --check-prefix=PASS
// RUN: bwc-compile %t/chain.mlir -o %t/auto.bwc
// RUN: bwc-run %t/auto.bwc --check %t | FileCheck %s --check-prefix=PASS
// RUN: not bwc-compile %t/chain.mlir -o %t/x.bwc --layout=chw 2>&1 | FileCheck %s --check-prefix=BAD

// Tests --layout end to end on the CPU: a conv chain (1x1 conv + bias,
// ReLU, depthwise 3x3 stride 2, ReLU, 1x1 conv, max pool) compiled
// channels-last (both code generators), channels-first and as the cost
// model decides meets one numpy reference. Channels-last, the input and
// output conversions are the only transposes; bwc-fuse does not fold a
// transpose into a convolution or pool kernel, so each is a kernel of its
// own (what bwc-select-layout's boundary price assumes).
// NHWC: == fused
// NHWC-NEXT: kernel
// NHWC-NEXT: 0    bwc.transpose 4096 4096
// NHWC-NEXT: 1    fusion.contraction {{.*}} conv,unary.relu
// NHWC-NEXT: 2    fusion.contraction {{.*}} conv,unary.relu
// NHWC-NEXT: 3    bwc.conv
// NHWC-NEXT: 4    bwc.pool
// NHWC-NEXT: 5    bwc.transpose 256 256
// NHWC-NEXT: == totals
// NCHW: == fused
// NCHW-NOT: transpose
// NCHW: == totals
// PASS: output 0 'y' f32 1x4x4x4: rel-l2 {{.*}} PASS
// PASS: check: 1 passed, 0 failed
// BAD: bwc-compile: unknown --layout 'chw' (expected auto, nchw or nhwc)
