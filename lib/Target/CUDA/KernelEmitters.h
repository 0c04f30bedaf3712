//===- KernelEmitters.h - CUDA kernel drivers (internal) --------*- C++ -*-===//
//
// Internal to lib/Target/CUDA. Each driver fills the body of one gpu.func
// for one outlined kernel, mapping output elements to threads and asking
// the ElementalEmitter for the scalar code of each element.
//
//===----------------------------------------------------------------------===//
#ifndef BWC_LIB_TARGET_CUDA_KERNELEMITTERS_H
#define BWC_LIB_TARGET_CUDA_KERNELEMITTERS_H

#include "bwc/Analysis/GemmView.h"
#include "bwc/Target/Elemental/ElementalEmitter.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::bwc::cuda {

/// An integer field of a kernel's `bwc.config`, or failure after an error
/// naming the kernel.
FailureOr<int64_t> configField(func::FuncOp kernel, DictionaryAttr config,
                               StringRef name);

/// What every driver gets: the kernel (tensor form), its gpu.func (body
/// empty, builder at its start), the emitter over the input buffers, the
/// output buffers and the `bwc.config` the driver obeys.
struct KernelContext {
  func::FuncOp kernel;
  gpu::GPUFuncOp func;
  ElementalEmitter &elements;
  SmallVector<Value> outputs;
  DictionaryAttr config;

  FailureOr<int64_t> field(StringRef name) const {
    return configField(kernel, config, name);
  }
};

/// Grid-stride loop over groups of `vector` consecutive elements; one
/// vector store per group and output.
LogicalResult emitLoopKernel(OpBuilder &b, KernelContext &k);
/// Grid-stride loop over output elements, one thread each; the elemental
/// emitter loops over reduced or K/window positions inside the thread.
LogicalResult emitThreadPerOutputKernel(OpBuilder &b, KernelContext &k);
/// One block per row: strided f32 partial sums, warp shuffles, shared
/// memory across warps, then the epilogue for every output of the row.
LogicalResult emitRowReductionKernel(OpBuilder &b, KernelContext &k);
/// Reductions keeping the innermost axis: 32 adjacent outputs x `slices`
/// threads per block, slices combined in shared memory.
LogicalResult emitColumnReductionKernel(OpBuilder &b, KernelContext &k);
/// A transpose (with elementwise ops around it) in 32x32 tiles staged
/// through shared memory, 32x8 threads: coalesced reads and writes.
LogicalResult emitTransposeTiledKernel(OpBuilder &b, KernelContext &k);
/// A float matmul or direct convolution with groups 1 (its GEMM view) in
/// 64x64 output tiles, K through shared memory in steps of 16, 4x4
/// outputs per thread of 256, the epilogue per output; tensor cores for
/// f16/bf16 (`mma`).
LogicalResult emitContractionTiledKernel(OpBuilder &b, KernelContext &k);
/// The same op without shared memory: `rows` outputs of one column per
/// thread, A read in 16-byte chunks along K where it is contiguous.
LogicalResult emitContractionThreadKernel(OpBuilder &b, KernelContext &k);

/// The epilogue of both contraction drivers for output (batch, m, n) of
/// `view`: the result from its sum `acc` (bias, rounding) bound, and every
/// kernel output emitted at its index and stored; the emitter's cache
/// cleared after.
LogicalResult emitContractionEpilogue(OpBuilder &b, Location loc,
                                      KernelContext &k, const GemmView &view,
                                      Value acc, ArrayRef<Value> batchIndex,
                                      Value m, Value n);

/// Global thread id and total threads of the launch (index values).
std::pair<Value, Value> globalThreadAndStride(OpBuilder &b, Location loc);
Value indexConstant(OpBuilder &b, Location loc, int64_t v);
/// `for (g = blockIdx.x; g < count; g += gridDim.x)`: the loop every
/// block-level driver walks its groups (rows, column groups, tiles) with, so
/// any grid size is correct. The builder is left at the start of its body.
scf::ForOp blockStrideLoop(OpBuilder &b, Location loc, int64_t count);

/// `body` under `if (inRange)`: with `fallback` empty (stores only) an if
/// without results; else its values, `fallback` outside the range. The
/// builder is left after the if.
FailureOr<SmallVector<Value>>
guarded(OpBuilder &b, Location loc, Value inRange, ValueRange fallback,
        function_ref<FailureOr<SmallVector<Value>>()> body);

} // namespace mlir::bwc::cuda

#endif // BWC_LIB_TARGET_CUDA_KERNELEMITTERS_H
