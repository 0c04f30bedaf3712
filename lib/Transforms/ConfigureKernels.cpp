//===- ConfigureKernels.cpp - GPU emitter and launch configuration --------===//
//
// One decision per kernel, recorded as the `bwc.config` dictionary that the
// CUDA target obeys: which emitter builds the kernel and with which block,
// grid, vector width and elements per thread. The row-reduction emitter
// binds a row's reductions to one scalar per block, so it is chosen only
// where every value downstream of a reduction provably uses the value of
// its own row; anything else gets the thread-per-output emitter, which is
// correct for every kernel.
//
//===----------------------------------------------------------------------===//
#include "bwc/Transforms/Passes.h"

#include "bwc/Analysis/GemmView.h"
#include "bwc/Dialect/BWC/IR/BWCOps.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::bwc {
#define GEN_PASS_DEF_CONFIGUREKERNELSPASS
#include "bwc/Transforms/Passes.h.inc"
} // namespace mlir::bwc

using namespace mlir;
using namespace mlir::bwc;

namespace {

/// Threads one SM keeps resident (sm_80/sm_90).
constexpr int64_t kThreadsPerSM = 2048;

int64_t elementBytes(Type t) {
  return std::max<int64_t>(1, t.getIntOrFloatBitWidth() / 8);
}

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// The row shape facts of a kernel whose reductions all reduce the same
/// trailing axes of one input shape.
struct RowShape {
  ArrayRef<int64_t> input;   ///< shape of every reduce's input
  SmallVector<int64_t> kept; ///< input shape with reduced axes set to 1
  int64_t rows = 1, row = 1; ///< rows x row == input elements
};

/// Whether the row-reduction emitter computes `kernel` exactly; fills
/// `shape` when it does.
bool fitsRowReduction(func::FuncOp kernel, RowShape &shape) {
  SmallVector<ReduceOp, 4> reduces = plainReductions(kernel);
  if (reduces.empty())
    return false;
  auto inType = cast<RankedTensorType>(reduces.front().getInput().getType());
  ArrayRef<int64_t> axes = reduces.front().getAxes();
  int64_t rank = inType.getRank();
  if (axes.empty())
    return false;
  for (auto [i, a] : llvm::enumerate(axes))
    if (a != rank - (int64_t)axes.size() + (int64_t)i)
      return false; // not the trailing, contiguous axes
  for (ReduceOp r : reduces) {
    Type e = r.getInput().getType().getElementType();
    if (r.getInput().getType() != inType || r.getAxes() != axes ||
        !(e.isF16() || e.isBF16() || e.isF32()))
      return false;
  }
  shape.input = inType.getShape();
  shape.kept.assign(shape.input.begin(), shape.input.end());
  for (int64_t a : axes) {
    shape.row *= shape.input[a];
    shape.kept[a] = 1;
  }
  shape.rows = inType.getNumElements() / std::max<int64_t>(1, shape.row);
  if (shape.row == 0 || shape.rows > INT32_MAX)
    return false;

  if (!reductionValuesStayInRow(kernel, reduces, /*anyRelayout=*/true))
    return false;
  // Per-row results (one value per row) and whole-row ones (the input's
  // element count; relaid ones stored where their relayoutChain maps).
  for (Type t : kernel.getResultTypes()) {
    auto rt = cast<RankedTensorType>(t);
    if (rt.getNumElements() != shape.rows &&
        rt.getNumElements() != inType.getNumElements())
      return false;
  }
  return true;
}

/// The row-reduction launch shape: threads per row (about four elements
/// each, whole warps, at most 512), rows per block (short rows packed up to 256
/// threads), and whether the row stays in registers.
struct RowLaunch {
  int64_t threadsPerRow, rowsPerBlock, perThread, vector = 1;
  bool cacheRow;
};

RowLaunch rowLaunch(func::FuncOp kernel, const RowShape &row,
                    int64_t maxThreads) {
  RowLaunch l;
  // At most 512 threads per row: on the H200 (2026-12-04, bwc-tune-run on
  // the 16384x4096 LayerNorm, softmax and bias_gelu_res_ln) 512 threads of
  // 8 elements ran 1.46-1.70x faster than 1024 of 4 (docs/benchmarks.md).
  l.threadsPerRow =
      std::clamp<int64_t>(llvm::PowerOf2Ceil(ceilDiv(row.row, 4)), 32,
                          std::min<int64_t>(maxThreads, 512));
  l.rowsPerBlock = 1;
  while (l.threadsPerRow * l.rowsPerBlock * 2 <=
             std::min<int64_t>(256, maxThreads) &&
         l.rowsPerBlock * 2 <= (int64_t)llvm::PowerOf2Ceil(row.rows))
    l.rowsPerBlock *= 2;
  l.perThread = ceilDiv(row.row, l.threadsPerRow);
  l.cacheRow = l.perThread <= 32 && rowReductionCanCacheInput(kernel);
  if (l.cacheRow)
    l.vector = rowReductionVector(kernel, row.row, l.threadsPerRow);
  return l;
}

struct ConfigureKernelsPass
    : public bwc::impl::ConfigureKernelsPassBase<ConfigureKernelsPass> {
  using ConfigureKernelsPassBase::ConfigureKernelsPassBase;

  /// Blocks of a grid-stride loop over `work` items, `block` per block.
  int64_t strideGrid(int64_t work, int64_t block) {
    return std::clamp<int64_t>(ceilDiv(work, block), 1,
                               smCount * (kThreadsPerSM / block));
  }

  DictionaryAttr configure(func::FuncOp kernel) {
    Builder b(kernel.getContext());
    SmallVector<NamedAttribute> attrs;
    auto set = [&](StringRef name, int64_t v) {
      attrs.push_back(b.getNamedAttr(name, b.getI64IntegerAttr(v)));
    };
    auto emitter = [&](StringRef name) {
      attrs.push_back(b.getNamedAttr("emitter", b.getStringAttr(name)));
    };
    ArrayRef<Type> results = kernel.getResultTypes();
    int64_t maxElements = 1;
    for (Type t : results)
      maxElements =
          std::max(maxElements, cast<RankedTensorType>(t).getNumElements());

    bool windowed = false;
    kernel.walk([&](Operation *op) {
      if (isa<ReduceOp, ArgReduceOp, MatmulOp, ConvOp, PoolOp>(op))
        windowed = true;
    });
    bool oneShape = llvm::all_equal(llvm::map_range(
        results, [](Type t) { return cast<ShapedType>(t).getShape(); }));
    RowShape row;
    SmallVector<TransposeOp, 2> staged;
    if (!windowed && oneShape)
      staged = tiledTransposes(kernel);
    if (!staged.empty()) {
      TransposeOp transpose = staged.front();
      // 32x32 tiles through shared memory, 32x8 threads: both sides
      // coalesced. Tiles: the other dimensions x both tiled ones.
      ArrayRef<int64_t> shape = transpose.getType().getShape();
      int64_t rank = shape.size();
      int64_t p = llvm::find(transpose.getPerm(), rank - 1) -
                  transpose.getPerm().begin();
      int64_t tiles = 1;
      for (int64_t d = 0; d < rank; ++d)
        tiles *= d == p || d == rank - 1 ? ceilDiv(shape[d], 32) : shape[d];
      int64_t grid = strideGrid(tiles * 256, 256);
      emitter("transpose_tiled");
      set("block", 256);
      set("grid", grid);
      set("tile", 32);
      set("elements_per_thread", ceilDiv(tiles, grid) * 4);
    } else if (!windowed && oneShape) {
      int64_t widest = 1;
      bool anyBool = false;
      for (Type t : results) {
        Type e = cast<ShapedType>(t).getElementType();
        widest = std::max(widest, elementBytes(e));
        anyBool |= e.isInteger(1);
      }
      int64_t vector = anyBool ? 1 : 16 / widest;
      while (vector > 1 && maxElements % vector)
        vector /= 2;
      int64_t block = loopBlock;
      int64_t grid = strideGrid(maxElements / vector, block);
      emitter("loop");
      set("block", block);
      set("grid", grid);
      set("vector", vector);
      set("elements_per_thread",
          ceilDiv(maxElements / vector, grid * block) * vector);
    } else if (fitsRowReduction(kernel, row)) {
      RowLaunch l = rowLaunch(kernel, row, maxThreads);
      emitter("row_reduction");
      set("block", l.threadsPerRow * l.rowsPerBlock);
      set("grid",
          std::min<int64_t>(ceilDiv(row.rows, l.rowsPerBlock), INT32_MAX));
      set("rows_per_block", l.rowsPerBlock);
      set("threads_per_row", l.threadsPerRow);
      attrs.push_back(
          b.getNamedAttr("cache_row", b.getI64IntegerAttr(l.cacheRow)));
      set("row", row.row);
      set("rows", row.rows);
      set("vector", l.vector);
      set("elements_per_thread", l.perThread);
    } else if (Operation *mm = tiledContraction(kernel, convGemm);
               mm && (!convGemmFill || implicitGemmFills(mm, smCount))) {
      // 64x64 output tiles of its GEMM view, K in steps of 16 through
      // shared memory, 4x4 outputs per thread of 256 (in the epilogue).
      GemmView view = *GemmView::get(mm);
      int64_t batches = 1;
      for (int64_t d : view.batchShape)
        batches *= d;
      int64_t tiles = ceilDiv(view.n, 64) * ceilDiv(view.m, 64) * batches;
      int64_t grid = strideGrid(tiles * 256, 256);
      emitter("contraction_tiled");
      set("block", 256);
      set("grid", grid);
      set("tile_m", 64);
      set("tile_n", 64);
      // Tensor cores (mma.sync m16n8k16, f32 accumulation) for 16-bit
      // operands, K in steps of 32 through a 3-stage cp.async pipeline.
      Type elt = cast<ShapedType>(view.result().getType()).getElementType();
      bool mma = tensorCores && (elt.isF16() || elt.isBF16());
      set("tile_k", mma ? 32 : 16);
      set("mma", mma ? 1 : 0);
      set("elements_per_thread", ceilDiv(tiles, grid) * 16);
    } else if (fitsColumnReduction(kernel)) {
      ColumnReductionLaunch l =
          columnReductionLaunch(kernel, smCount, maxThreads);
      emitter("column_reduction");
      set("block", l.block);
      set("grid", l.grid);
      set("columns_per_block", l.columnsPerBlock);
      set("slices", l.slices);
      set("unroll", l.unroll);
      set("passes", l.passes);
      set("cache_column", l.cache);
      set("elements_per_thread", l.perThread);
    } else {
      int64_t block = loopBlock;
      int64_t grid = strideGrid(maxElements, block);
      emitter("thread_per_output");
      set("block", block);
      set("grid", grid);
      set("elements_per_thread", ceilDiv(maxElements, grid * block));
    }
    return b.getDictionaryAttr(attrs);
  }

  void runOnOperation() override {
    if (smCount < 1 || loopBlock < 32 || loopBlock > maxThreads ||
        loopBlock % 32 || maxThreads > 1024 || maxThreads % 32) {
      getOperation().emitError()
          << "expects sm-count >= 1 and loop-block, max-threads multiples of "
             "32 with loop-block <= max-threads <= 1024 but got sm-count="
          << int64_t(smCount) << " loop-block=" << int64_t(loopBlock)
          << " max-threads=" << int64_t(maxThreads);
      return signalPassFailure();
    }
    for (auto kernel : getOperation().getOps<func::FuncOp>()) {
      if (!kernel->hasAttr(kKernelAttrName))
        continue;
      if (kernel.isExternal()) {
        kernel.emitError() << "expects a kernel with a body";
        return signalPassFailure();
      }
      kernel->setAttr(kKernelConfigAttrName, configure(kernel));
    }
  }
};

} // namespace
