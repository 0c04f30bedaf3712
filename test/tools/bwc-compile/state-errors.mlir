// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import sys; t = open(sys.argv[1]).read().split('// ' + '-----'); [open('%t/case%%d.mlir' %% i, 'w').write(s) for i, s in enumerate(t)]" %s
// RUN: not bwc-compile %t/case1.mlir -o %t/a.bwc 2>&1 | FileCheck %s --check-prefix=NOINIT
// RUN: not bwc-compile %t/case2.mlir -o %t/a.bwc 2>&1 | FileCheck %s --check-prefix=NOUPDATE
// RUN: not bwc-compile %t/case3.mlir -o %t/a.bwc 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// Tests that bwc MLIR whose training state is malformed (written by hand,
// not by bwc-grad) is refused by the artifact builder, naming the argument
// or result.
// NOINIT: error: expects state argument 0 to have a name and an initial value
// NOUPDATE: error: expects state 'w' to have an update result
// UNKNOWN: error: expects result 1 (the update of state 'v') to be a kernel result of a state argument

// -----
func.func @main(%w: tensor<4xf32> {bwc.state}) -> (tensor<4xf32> {bwc.state_update = "w"}) {
  %0 = bwc.unary exp %w : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
// -----
func.func @main(%w: tensor<4xf32> {bwc.name = "w", bwc.state, bwc.initial_value = dense<1.0> : tensor<4xf32>}) -> (tensor<4xf32> {bwc.name = "y"}) {
  %0 = bwc.unary exp %w : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
// -----
func.func @main(%w: tensor<4xf32> {bwc.name = "w", bwc.state, bwc.initial_value = dense<1.0> : tensor<4xf32>}) -> (tensor<4xf32> {bwc.name = "y"}, tensor<4xf32> {bwc.state_update = "v"}) {
  %0 = bwc.unary exp %w : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %0 : tensor<4xf32>, tensor<4xf32>
}
