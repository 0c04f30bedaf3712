//===- Passes.h - bwc graph and program passes ------------------*- C++ -*-===//
#ifndef BWC_TRANSFORMS_PASSES_H
#define BWC_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::bwc {

/// Unit attribute marking a function as one kernel (one launch).
constexpr llvm::StringLiteral kKernelAttrName = "bwc.kernel";
/// String attribute on a kernel: `loop`, `reduction` or `contraction`.
constexpr llvm::StringLiteral kKernelKindAttrName = "bwc.kind";
/// Dictionary attribute on a kernel: its emitter and launch configuration
/// (bwc-configure-kernels).
constexpr llvm::StringLiteral kKernelConfigAttrName = "bwc.config";

/// The kernel's reductions in order; empty when there are none or when it
/// also holds an arg_reduce, matmul, conv or pool (the reductions the row
/// and column drivers may take).
class ReduceOp;
SmallVector<ReduceOp, 4> plainReductions(func::FuncOp kernel);

/// Whether a row-reduction kernel may keep its first reduction's input in
/// registers (`cache_row`): every value computed from it (not through a
/// reduction) is elementwise on the input shape, so the kernel asks for it
/// only at the index the thread cached (bwc-configure-kernels, CUDA driver).
bool rowReductionCanCacheInput(func::FuncOp kernel);

/// The `vector` width of a cached row reduction (`cache_row`): a thread
/// holds groups of V consecutive positions of its row (16 bytes of the
/// cached input: 4 f32, 8 f16/bf16), so its loads and stores can be
/// 16-byte vectors. The largest power of two with the row a multiple of V,
/// V <= the thread's scalar share, and at most 32 positions per thread
/// (ceil(row / (threadsPerRow * V)) * V); 1 when none fits.
int64_t rowReductionVector(func::FuncOp kernel, int64_t row,
                           int64_t threadsPerRow);

/// Whether the column-reduction emitter computes `kernel` exactly: its
/// f16/bf16/f32 reductions keep the innermost axis and share one input
/// type, axes and result type; a reduction may read an earlier one's result
/// (softmax over axis 0); every value computed from a reduction is
/// per-column (the result shape, or one broadcasting into the input at the
/// column) or whole (the input shape), a per-column operand meets only
/// values of its own column (elementwise, or broadcast into the input), and
/// every kernel result is per-column or whole (bwc-configure-kernels,
/// bwc-tile, CUDA driver; lib/Transforms/ColumnReductionFit.cpp).
bool fitsColumnReduction(func::FuncOp kernel);

/// Whether a column reduction's two reductions are softmax's statistics on
/// f32: max(X) then sum(exp(X - max)) over the same axes, the max read
/// directly or broadcast. The CUDA driver then computes both in one walk
/// (online: the sum rescaled whenever the max grows), so the kernel reads X
/// twice (statistics, epilogue) instead of three times.
bool onlineSoftmaxReductions(func::FuncOp kernel);

/// The launch of a `column_reduction` kernel, the fields of its
/// `bwc.config`: `columnsPerBlock` (32) adjacent columns x `slices` threads
/// per block (enough threads for `smCount` SMs: at least 8 slices, at most
/// 32, no more than the reduced positions), `grid` (one block per group of
/// 32 columns, at most two 1024-thread waves), `perThread` positions per
/// thread and pass, `unroll` loads in flight per thread, `passes` over the
/// input in DRAM (one per reduction, softmax's two as one when
/// onlineSoftmaxReductions, one more for a whole-shaped result;
/// 1 with `cache`: the thread's <= 32 positions of the first reduction's
/// input, its only full-size argument, kept in registers, `cache_column`).
struct ColumnReductionLaunch {
  int64_t columnsPerBlock = 32, slices = 1, block = 32, grid = 1;
  int64_t columns = 1, reduced = 1, perThread = 1, unroll = 1, passes = 1;
  bool cache = false;
};
ColumnReductionLaunch columnReductionLaunch(func::FuncOp kernel,
                                            int64_t smCount,
                                            int64_t maxThreads);

/// The transposes a `transpose_tiled` kernel stages through shared memory,
/// one padded 32x33 tile each: every transpose of the kernel, all with the
/// same permutation and input shape, moving a non-innermost dimension
/// (>= 16 elements) innermost (>= 16 elements), of 16- to 64-bit elements,
/// their tiles within 48 KiB, with every value computed from them
/// elementwise on their shape, the shape of every result, and no
/// reduce/arg_reduce/matmul/conv/pool; else empty.
class TransposeOp;
SmallVector<TransposeOp, 2> tiledTransposes(func::FuncOp kernel);

/// The op a `contraction_tiled` kernel computes in shared-memory tiles: a
/// matmul (operands of rank >= 2) or a direct convolution with groups 1
/// (as an implicit GEMM, GemmView), the kernel's only windowed op,
/// f16/bf16/f32 operands of its element type summed in f32 (no other
/// acc_type), every value computed from it elementwise on its shape, the
/// shape of every result; else null. Without `convs`, matmuls only.
Operation *tiledContraction(func::FuncOp kernel, bool convs = true);

/// The program function `name` of `module`, or null after an error naming
/// it (every program pass starts here).
inline func::FuncOp lookupProgram(ModuleOp module, StringRef name) {
  auto program = module.lookupSymbol<func::FuncOp>(name);
  if (!program)
    module.emitError() << "expects a program function named '" << name << "'";
  return program;
}

/// The kernel calls of an outlined program function in launch order, and
/// the values it returns; an error (naming the op) when it holds anything
/// but constants, calls and the return.
inline LogicalResult collectLaunches(func::FuncOp program,
                                     SmallVectorImpl<func::CallOp> &calls,
                                     llvm::DenseSet<Value> &returned) {
  for (Operation &op : program.getBody().front()) {
    if (auto call = dyn_cast<func::CallOp>(op))
      calls.push_back(call);
    else if (auto ret = dyn_cast<func::ReturnOp>(op))
      returned.insert(ret.getOperands().begin(), ret.getOperands().end());
    else if (op.getName().getStringRef() != "bwc.constant")
      return op.emitError() << "expects only constants, kernel calls and a "
                               "return in '"
                            << program.getName()
                            << "' (run bwc-outline-kernels first)";
  }
  return success();
}

#define GEN_PASS_DECL
#include "bwc/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "bwc/Transforms/Passes.h.inc"

} // namespace mlir::bwc

#endif // BWC_TRANSFORMS_PASSES_H
