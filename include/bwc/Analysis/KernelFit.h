//===- KernelFit.h - Which emitter may take a kernel ------------*- C++ -*-===//
//
// The kernel attributes (`bwc.kernel`, `bwc.kind`, `bwc.config`) and the
// predicates that say which CUDA emitter computes a kernel exactly (row and
// column reductions, shared-memory transposes, tiled contractions), with
// the launch shapes those emitters need. bwc-configure-kernels, bwc-tile,
// the tile candidates and the CUDA drivers share them
// (lib/Analysis/KernelFit.cpp, lib/Analysis/ColumnReductionFit.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef BWC_ANALYSIS_KERNELFIT_H
#define BWC_ANALYSIS_KERNELFIT_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir::bwc {

/// Unit attribute marking a function as one kernel (one launch).
constexpr llvm::StringLiteral kKernelAttrName = "bwc.kernel";
/// String attribute on a kernel: `loop`, `reduction` or `contraction`.
constexpr llvm::StringLiteral kKernelKindAttrName = "bwc.kind";
/// Dictionary attribute on a kernel: its emitter and launch configuration
/// (bwc-configure-kernels).
constexpr llvm::StringLiteral kKernelConfigAttrName = "bwc.config";

/// Whether every value computed from `seeds` (through any op but a
/// reduction, whose result its driver binds) is elementwise on `shape`, so
/// a driver that binds the seeds' elements at one index is only asked for
/// that index; with `reductionsAreSeeds`, a reduction result is a seed and
/// no reduction may read a value computed from one.
bool elementwiseFrom(func::FuncOp kernel, llvm::SmallPtrSet<Value, 16> seeds,
                     ArrayRef<int64_t> shape, bool reductionsAreSeeds);

class ReduceOp;
/// Whether every value computed from the results of `reduces` (which
/// reduce one input shape over the same axes) stays in its row, so that a
/// driver binding each reduction to one value per row computes the kernel
/// exactly: such values are computed only by unary, cast, binary, select
/// and broadcast ops, per row (the keepdims shape) or whole-row (the input
/// shape), a per-row operand meeting a whole-row one only in the keepdims
/// shape, and a reduction reads them only on the input shape. Last, they
/// may be relaid by reshapes and transposes (only those that
/// keepLinearOrder unless `anyRelayout`), whose results only such ops or
/// the return read: a driver then stores a relaid result at the index
/// relayoutChain maps its source's to. Shared by the CUDA row-reduction
/// fit (any relayout) and the CPU elemental driver's "rows".
bool reductionValuesStayInRow(func::FuncOp kernel, ArrayRef<ReduceOp> reduces,
                              bool anyRelayout = false);

/// Whether `op` is a bwc.reshape, cast or unary op, or a bwc.transpose that
/// keeps the input dims of extent > 1 in their order: each element keeps
/// its linear index.
bool keepsLinearOrder(Operation *op);

/// The bwc.reshape, transpose, cast and unary ops that compute `v` from
/// the value before them (its source), source first; empty when `v` is not
/// computed by one. The walk stops at a value of `rowSources` (the
/// reductions' inputs): those are in the row's own order, whatever
/// transposes computed them (ppocr_rec's LayerNorm over a transposed
/// activation returns its input too: stored in row order, not strided).
SmallVector<Operation *> relayoutChain(Value v, ValueRange rowSources = {});

/// The linear index in the chain's result of the source's element
/// `linear` (reshapes keep it; transposes permute it).
int64_t relaidIndex(ArrayRef<Operation *> chain, int64_t linear);

/// The kernel's reductions in order; empty when there are none or when it
/// also holds an arg_reduce, matmul, conv or pool (the reductions the row
/// and column drivers may take).
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
/// bwc-tile, CUDA driver; lib/Analysis/ColumnReductionFit.cpp).
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
ColumnReductionLaunch
columnReductionLaunch(func::FuncOp kernel, int64_t smCount, int64_t maxThreads);

/// The transposes a `transpose_tiled` kernel stages through shared memory,
/// one padded 32x33 tile each: every transpose of the kernel, all with the
/// same permutation and input shape, moving a non-innermost dimension
/// (>= 16 elements) innermost (>= 16 elements), of 16- to 64-bit elements,
/// their tiles within 48 KiB, with every value computed from them
/// elementwise on their shape, the shape of every result, and no
/// reduce/arg_reduce/matmul/conv/pool; else empty.
class TransposeOp;
SmallVector<TransposeOp, 2> tiledTransposes(func::FuncOp kernel);

/// The columns of a transpose_tiled kernel's padded [32][columns] shared
/// tile for `bits`-bit elements: a row an odd number of 4-byte banks, so
/// that a warp reading a column (one element per row) touches 32 banks:
/// 33 for 32-bit elements (and 64-bit ones, whose reads go by half
/// warps), 34 for 16-bit (17 banks; 33 was 16.5, 1.2 conflict ways on
/// cuda-sim), 36 for 8-bit.
int64_t transposeTileColumns(unsigned bits);

/// The op a `contraction_tiled` kernel computes in shared-memory tiles: a
/// matmul (operands of rank >= 2) or a direct convolution with groups 1
/// (as an implicit GEMM, GemmView), the kernel's only windowed op,
/// f16/bf16/f32 operands of its element type summed in f32 (no other
/// acc_type), every value computed from it elementwise on its shape, the
/// shape of every result; else null. Without `convs`, matmuls only.
Operation *tiledContraction(func::FuncOp kernel, bool convs = true);

class ConvOp;
/// The convolution a `loop` kernel with `vector` > 1 computes for each
/// thread's `vector` consecutive outputs in one loop nest
/// (ElementalEmitter::emitGroup): the kernel's only reduce, arg_reduce,
/// matmul, conv or pool, a float convolution, every value computed from it
/// elementwise on its shape, the shape of every result, its innermost
/// dimension a multiple of `vector`; else null. bwc-tile offers it (a
/// channels-last depthwise convolution: lanes on consecutive channel
/// groups, 16-byte loads of the input and the filter).
ConvOp loopGroupedConv(func::FuncOp kernel, int64_t vector);

/// The 64x64 output tiles of `contraction`'s GemmView (batches included):
/// the blocks of its contraction_tiled kernel.
int64_t contractionTiles(Operation *contraction);

/// Whether `contraction` keeps every SM busy as a contraction_tiled
/// kernel: a matmul always; a convolution (an implicit GEMM) with at least
/// `smCount` tiles. Measured on the H200 (2026-12-04, docs/benchmarks.md):
/// ppocr_det's implicit GEMMs of 1 to 100 tiles ran 1.2-3.2x slower than
/// the same convolutions one thread per output.
bool implicitGemmFills(Operation *contraction, int64_t smCount);

} // namespace mlir::bwc

#endif // BWC_ANALYSIS_KERNELFIT_H
