// RUN: bwc-compile --help > %t.help
// RUN: FileCheck %s < %t.help
// RUN: test $(wc -l < %t.help) -lt 80
// RUN: not grep -E -- "--(amdgpu|arm|bpf|x86|nvptx|debug-pass)" %t.help
// RUN: bwc-compile --version | FileCheck %s --check-prefix=VERSION

// Tests that --help lists bwc's options only, grouped, in under 80 lines
// (LLVM's back ends register hundreds of their own), and --version.

// CHECK: USAGE: bwc-compile [options] <model.onnx|model.mlir>
// CHECK-DAG: Input and output:
// CHECK-DAG: Pipeline (both targets):
// CHECK-DAG: Target: CUDA:
// CHECK-DAG: Tuning (CUDA):
// CHECK-DAG: Training:
// CHECK-DAG: --train=
// CHECK-DAG: --loss=
// CHECK-DAG: --trainable=
// CHECK-DAG: --target=
// CHECK-DAG: --emit=
// CHECK-DAG: -o
// CHECK-DAG: --input-shape=
// CHECK-DAG: --input-value=
// CHECK-DAG: --report
// CHECK-DAG: --report-json=
// CHECK-DAG: --sign-key=
// CHECK-DAG: --fusion=
// CHECK-DAG: --precision=
// CHECK-DAG: --io-precision=
// CHECK-DAG: --layout=
// CHECK-DAG: --pad-channels=
// CHECK-DAG: --memory-budget=
// CHECK-DAG: --remat-strategy=
// CHECK-DAG: --tile=
// CHECK-DAG: --tile-emitters=
// CHECK-DAG: --peak-bw=
// CHECK-DAG: --codegen=
// CHECK-DAG: --elemental-conv=
// CHECK-DAG: --sm-count=
// CHECK-DAG: --conv-kernels=
// CHECK-DAG: --cuda-sim=
// CHECK-DAG: --gpu-module=
// CHECK-DAG: --tensor-cores=
// CHECK-DAG: --tune
// CHECK-DAG: --tuning-cache=
// CHECK-DAG: --tune-export=
// CHECK-DAG: --tune-import=
// CHECK-DAG: --tune-gpu=
// CHECK-DAG: --version

// VERSION: bwc {{[0-9]+\.[0-9]+\.[0-9]+}} (MLIR/LLVM 22

// Every tool has --version, and bwc-tune-run's --help goes to stdout.
// RUN: bwc-opt --version | FileCheck %s --check-prefix=OPT
// RUN: bwc-run --version | FileCheck %s --check-prefix=RUNV
// RUN: bwc-tune-run --version | FileCheck %s --check-prefix=TUNE
// RUN: bwc-tune-run --help | FileCheck %s --check-prefix=TUNEHELP
// OPT: bwc-opt (bwc {{[0-9.]+}}, MLIR/LLVM 22
// RUNV: bwc-run (bwc {{[0-9.]+}})
// TUNE: bwc-tune-run (bwc {{[0-9.]+}})
// TUNEHELP: usage: bwc-tune-run DIR
