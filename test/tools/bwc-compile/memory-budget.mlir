// RUN: bwc-compile %s -o %t.bwc --fusion=none --memory-budget=8KiB --remat-strategy=greedy --report --report-json=%t.json | FileCheck %s
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// RUN: bwc-compile %s -o %t.free.bwc --fusion=none --report | FileCheck %s --check-prefix=FREE
// RUN: not bwc-compile %s -o %t.bwc --fusion=none --memory-budget=1 2>&1 | FileCheck %s --check-prefix=REFUSED
// RUN: bwc-compile %s -o %t.bwc --fusion=none --memory-budget=1 2>/dev/null; test $? -eq 1
// RUN: not bwc-compile %s -o %t.bwc --memory-budget=8XB 2>&1 | FileCheck %s --check-prefix=UNIT
// RUN: not bwc-compile %s -o %t.bwc --memory-budget=8KiB --remat-strategy=ilp 2>&1 | FileCheck %s --check-prefix=STRATEGY

// Tests that --memory-budget runs bwc-rematerialize: a skip connection
// (exp %x, read again at the end) is recomputed so that the arena fits
// 8 KiB, the report shows the figures, and an impossible budget exits with
// code 1 naming the minimum reachable arena. One kernel per op
// (--fusion=none), since fusion would make the whole program one kernel.

// CHECK: == rematerialization (budget 8192 bytes, greedy)
// CHECK-NEXT: arena before 12288 bytes, after 8192 bytes; recomputed_ops 1, extra_flops 1024

// JSON: "remat": {
// JSON-DAG: "budget_bytes": 8192
// JSON-DAG: "recomputed_ops": 1
// JSON-DAG: "extra_flops": 1024
// JSON-DAG: "strategy": "greedy"

// FREE-NOT: rematerialization

// REFUSED: error: memory budget 1 B cannot be met: minimum reachable arena is {{.*}} KiB ({{[0-9]+}} B)
// UNIT: error: expects memory-budget as BYTES with an optional B, KiB, MiB or GiB suffix but got '8XB'
// STRATEGY: error: expects strategy greedy, checkpoints or best but got 'ilp'

func.func @main(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %0 = bwc.unary exp %x : (tensor<1024xf32>) -> tensor<1024xf32>
  %1 = bwc.unary neg %0 : (tensor<1024xf32>) -> tensor<1024xf32>
  %2 = bwc.unary abs %1 : (tensor<1024xf32>) -> tensor<1024xf32>
  %3 = bwc.binary mul %1, %2 : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %4 = bwc.unary tanh %3 : (tensor<1024xf32>) -> tensor<1024xf32>
  %5 = bwc.binary add %4, %0 : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  return %5 : tensor<1024xf32>
}
