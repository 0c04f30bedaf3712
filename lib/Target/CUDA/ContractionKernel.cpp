//===- ContractionKernel.cpp - Matmul and conv in shared-memory tiles -----===//
//
// The op is seen through its GemmView (include/bwc/Analysis/GemmView.h): a
// matmul, or a direct convolution with groups 1 as an implicit GEMM whose
// A and B elements are filter and input elements (0 for padding taps).
// A block computes a tile_m x tile_n (64 x 64) output tile of one batch
// with 256 threads. K advances tile_k at a time through a 3-stage pipeline
// of shared tiles, A [64 m][tile_k] and B [tile_k][64 n], in 16-byte
// chunks (4 f32 or 8 f16/bf16 elements). An operand that
// GemmView::copiesChunks (a kernel argument contiguous along the chunk, of
// the stage's element type) is staged with `cp.async.cg` 16-byte copies
// (zero-filled outside the operand and in a convolution's padding), two
// tiles ahead; any other operand (a fused producer, an implicit GEMM's
// im2col, a 16-bit operand of the f32 tiling) is loaded into registers
// element by element (consecutive lanes, consecutive elements) before the
// current tile's math and stored to its stage after it. One barrier per K
// step; every shape is guarded. The result is bound and every kernel
// output emitted at its index (the epilogue), 4 x 4 outputs per thread
// (rows tr + 16 i, columns tc + 16 j: a warp's stores are consecutive).
// Floats only (f16/bf16/f32, f32 accumulation).
//
// f32 tiling (`mma` = 0, tile_k 16, f32 stages): thread (tr, tc) sums a*b
// in f32 in ascending K, the elemental emitter's own order, for its 4 x 4
// outputs (per K: 2 distinct A words and 16 consecutive B words per warp:
// conflict-free in row-major stages).
//
// Tensor cores (`mma` = 1, f16/bf16 operands, tile_k 32 or 16, stages in
// the operand type): chunks are placed at chunk ^ f(row) (an XOR swizzle:
// every ldmatrix phase and every chunk store touches 8 distinct 16-byte
// bank groups, conflict-free with no padding). The 8 warps each own a
// 16 x 32 slice of the output tile: per 16 K, one `ldmatrix.x4` (A) and
// two `ldmatrix.x4.trans` (B) feed four `mma.sync.m16n8k16` (f32
// accumulation). Fragment coordinates are upstream nvgpu's
// (getLaneIdAndValueIdToOperandCoord); the ldmatrix lane addressing is
// checked by cuda-sim, whose ldmatrix is tested against the PTX ISA.
// After the K loop the accumulators go through a shared [64][64] f32 tile
// (columns XOR-swizzled by row: resultColumn),
// so the epilogue reads and stores with the same mapping as above.
//
//===----------------------------------------------------------------------===//
#include "KernelEmitters.h"

#include "../Elemental/Emitters.h"
#include "bwc/Dialect/BWC/IR/BWCOps.h"
#include "bwc/Transforms/Passes.h"
#include "bwc/Target/CUDA/CudaTarget.h"
#include "bwc/Target/Elemental/GemmEmit.h"
#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/NVGPU/Utils/MMAUtils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::bwc;
using namespace mlir::bwc::cuda;

namespace {
constexpr int64_t kTileMN = 64, kTileK = 16, kPer = 4, kSide = 16;
// mma: 8 warps as 4 (rows of 16) x 2 (columns of 32), m16n8k16 steps,
// 3 stages of 16-bit tiles in chunks of 8, the f32 result tile swizzled.
constexpr int64_t kWarpRows = 4, kMmaM = 16, kMmaN = 8, kMmaK = 16,
                  kNTilesPerWarp = 4, kStages = 3, kChunk = 8;

Value idx(OpBuilder &b, Location loc, int64_t v) {
  return indexConstant(b, loc, v);
}
Value add(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::AddIOp::create(b, loc, x, y);
}
Value lessThan(OpBuilder &b, Location loc, Value x, int64_t n) {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x,
                               idx(b, loc, n));
}

/// Column of element (row, col) in the mma result tile [64][64] f32: col ^
/// (16 (row & 1) ^ 8 ((row / 2) & 3)). Both of its accesses are then
/// conflict-free (a search over the layouts, 2026-12-04): the accumulators'
/// 8-byte pair stores (lanes at rows g, columns 2t) and the epilogue's
/// loads (lanes at rows tr, tr + 1, 16 consecutive columns); a padded
/// [64][65] tile conflicted 2 ways in both (cuda-sim's counters).
Value resultColumn(OpBuilder &b, Location loc, Value row, Value col) {
  Value odd = arith::MulIOp::create(
      b, loc, arith::RemUIOp::create(b, loc, row, idx(b, loc, 2)),
      idx(b, loc, 16));
  Value pair = arith::MulIOp::create(
      b, loc,
      arith::RemUIOp::create(
          b, loc, arith::DivUIOp::create(b, loc, row, idx(b, loc, 2)),
          idx(b, loc, 4)),
      idx(b, loc, 8));
  return arith::XOrIOp::create(b, loc, col,
                               arith::XOrIOp::create(b, loc, odd, pair));
}

/// The K loop of one output tile (file comment), both paths: the prologue
/// stages tiles 0 and 1, iteration i waits for tile i, starts tile i + 2
/// and runs tile i's math: mma steps (`mma`: the 16 accumulators are stored
/// to `cs`, the result tile, after the loop) or the f32 products of thread
/// (tr, tc)'s 4 x 4 outputs (the loop's results are its accumulators,
/// output (tr + 16 i, tc + 16 j) at i * 4 + j). Stages hold `stageType`.
/// Returns the loop.
FailureOr<scf::ForOp> emitPipelinedMainLoop(
    OpBuilder &b, Location loc, KernelContext &k, const GemmView &view,
    bool mma, Type stageType, int64_t tileK, Value as, Value bs, Value cs,
    Value tid, Value tr, Value tc, Value m0, Value n0,
    ArrayRef<Value> batchIndex,
    function_ref<FailureOr<Value>(bool, Value, int64_t, Value, int64_t)>
        operand) {
  Type f32 = b.getF32Type();
  Type elt = cast<ShapedType>(view.result().getType()).getElementType();
  int64_t M = view.m, N = view.n, K = view.k;
  int64_t kTiles = (K + tileK - 1) / tileK;
  // Elements per 16-byte chunk; chunks per A row and per B row.
  int64_t chunk = 128 / stageType.getIntOrFloatBitWidth();
  int64_t aChunks = tileK / chunk, bChunks = kTileMN / chunk;
  auto div = [&](Value x, int64_t d) {
    return arith::DivUIOp::create(b, loc, x, idx(b, loc, d)).getResult();
  };
  auto rem = [&](Value x, int64_t d) {
    return arith::RemUIOp::create(b, loc, x, idx(b, loc, d)).getResult();
  };
  auto mul = [&](Value x, int64_t c) {
    return arith::MulIOp::create(b, loc, x, idx(b, loc, c)).getResult();
  };
  // mma: the swizzle: chunk `c` of row `r` sits at chunk c ^ f(r), f
  // cycling through the chunks of a row once per 128 bytes of rows, so the
  // 8 rows of an ldmatrix phase (and 8 lanes' chunk stores) hit 8 distinct
  // 16-byte bank groups. f32: rows in order (a warp's FMA-loop reads are
  // 2 A words and 16 consecutive B words, chunk stores 128 contiguous
  // bytes per phase: conflict-free as they are). Returns the element
  // column.
  auto aColumn = [&](Value r, Value c) {
    if (!mma)
      return mul(c, chunk);
    Value f = rem(div(r, 8 / aChunks), aChunks);
    return mul(arith::XOrIOp::create(b, loc, c, f), chunk);
  };
  auto bColumn = [&](Value r, Value c) {
    if (!mma)
      return mul(c, chunk);
    return mul(arith::XOrIOp::create(b, loc, c, rem(r, bChunks)), chunk);
  };

  // copiesChunks asks for elements of 16 / chunk bytes: an f16/bf16
  // operand of the f32 tiling (staged as f32) goes through registers.
  bool asyncA = view.copiesChunks(/*isA=*/true, chunk),
       asyncB = view.copiesChunks(/*isA=*/false, chunk);
  ValueRange argBuffers = k.elements.getArgBuffers();
  // cp.async of the chunks of tile `k0` of A or B into stage `s`.
  auto copyAsync = [&](bool isA, Value k0, Value s) {
    int64_t chunks = isA ? kTileMN * aChunks : tileK * bChunks;
    int64_t perRow = isA ? aChunks : bChunks;
    auto issue = [&] {
      Value row = div(tid, perRow), c = rem(tid, perRow);
      // A: (m0 + row, k0 + chunk c); B: (k0 + row, n0 + chunk c).
      Value gr = add(b, loc, isA ? m0 : k0, row);
      Value gc = add(b, loc, isA ? k0 : n0, mul(c, chunk));
      int64_t rows = isA ? M : K, cols = isA ? K : N;
      Value ok = arith::AndIOp::create(b, loc, lessThan(b, loc, gr, rows),
                                       lessThan(b, loc, gc, cols));
      // Clamped into the operand: the address stays in bounds even when
      // nothing is read from it.
      auto clamp = [&](Value x, int64_t n) {
        return arith::MinUIOp::create(b, loc, x, idx(b, loc, n - 1))
            .getResult();
      };
      IRArith ar{b, loc};
      GemmAccess<Value> at =
          isA ? view.a(ar, batchIndex, clamp(gr, rows), clamp(gc, cols))
              : view.b(ar, batchIndex, clamp(gr, rows), clamp(gc, cols));
      if (at.valid)
        ok = arith::AndIOp::create(b, loc, ok, *at.valid);
      Value tensor = isA ? view.aTensor() : view.bTensor();
      Value buffer = argBuffers[GemmView::chunkSource(tensor).getArgNumber()];
      Value src = ElementalEmitter::linearize(
          b, loc, at.index, cast<ShapedType>(tensor.getType()).getShape());
      Value srcElements = arith::SelectOp::create(b, loc, ok, idx(b, loc, chunk),
                                                  idx(b, loc, 0));
      Value dstCol = isA ? aColumn(row, c) : bColumn(row, c);
      nvgpu::DeviceAsyncCopyOp::create(
          b, loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()),
          isA ? as : bs, ValueRange{s, row, dstCol}, buffer, ValueRange{src},
          b.getIndexAttr(chunk), srcElements, b.getUnitAttr());
    };
    if (chunks >= 256) {
      issue();
      return;
    }
    auto ifOp = scf::IfOp::create(b, loc, lessThan(b, loc, tid, chunks),
                                  /*withElse=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    issue();
  };
  // Register staging of operands cp.async cannot copy: element e = tid +
  // 256 q of the tile (row e / width, column e % width).
  auto regLoads = [&](bool isA, Value k0) -> FailureOr<SmallVector<Value>> {
    int64_t width = isA ? tileK : kTileMN;
    SmallVector<Value> values;
    for (int64_t q = 0; q < kTileMN * tileK / 256; ++q) {
      Value e = add(b, loc, tid, idx(b, loc, 256 * q));
      Value r = div(e, width), c = rem(e, width);
      FailureOr<Value> x =
          isA ? operand(true, add(b, loc, m0, r), M, add(b, loc, k0, c), K)
              : operand(false, add(b, loc, k0, r), K, add(b, loc, n0, c), N);
      if (failed(x))
        return failure();
      values.push_back(*x);
    }
    return values;
  };
  auto regStores = [&](bool isA, Value s, ValueRange values) {
    int64_t width = isA ? tileK : kTileMN;
    for (auto [q, v] : llvm::enumerate(values)) {
      Value e = add(b, loc, tid, idx(b, loc, 256 * int64_t(q)));
      Value r = div(e, width), c = rem(e, width);
      Value col = add(b, loc,
                      isA ? aColumn(r, div(c, chunk)) : bColumn(r, div(c, chunk)),
                      rem(c, chunk));
      memref::StoreOp::create(b, loc, v, isA ? as : bs, ValueRange{s, r, col});
    }
  };
  bool anyAsync = asyncA || asyncB;
  auto commit = [&] {
    if (anyAsync)
      NVVM::CpAsyncCommitGroupOp::create(b, loc);
  };
  // Tile `k0` into stage `s`: copies now, register loads now, register
  // stores by the caller.
  auto startTile = [&](Value k0, Value s) -> FailureOr<SmallVector<Value>> {
    if (asyncA)
      copyAsync(true, k0, s);
    if (asyncB)
      copyAsync(false, k0, s);
    SmallVector<Value> regs;
    for (bool isA : {true, false}) {
      if (isA ? asyncA : asyncB)
        continue;
      FailureOr<SmallVector<Value>> v = regLoads(isA, k0);
      if (failed(v))
        return failure();
      regs.append(*v);
    }
    return regs;
  };
  auto finishTile = [&](Value s, ValueRange regs) {
    int64_t per = kTileMN * tileK / 256;
    size_t at = 0;
    for (bool isA : {true, false}) {
      if (isA ? asyncA : asyncB)
        continue;
      regStores(isA, s, regs.slice(at, per));
      at += per;
    }
  };

  // Prologue: tiles 0 .. kStages - 2, one group each (empty past K).
  for (int64_t tile = 0; tile < kStages - 1; ++tile) {
    if (tile < kTiles) {
      FailureOr<SmallVector<Value>> regs =
          startTile(idx(b, loc, tile * tileK), idx(b, loc, tile));
      if (failed(regs))
        return failure();
      finishTile(idx(b, loc, tile), *regs);
    }
    commit();
  }

  // mma: this lane's fragment coordinates: ldmatrix rows and chunks for A
  // (x4: rows 0-15 at chunk 0, then at chunk 1, of the 16-wide K step) and
  // B (x4.trans: k rows 0-15 of two 8-wide n tiles); the accumulators'.
  Value aRow, aChunk, bRow, bChunk;
  SmallVector<std::pair<Value, Value>> cAt;
  if (mma) {
    // 8 warps as 4 (rows of 16) x 2 (columns of 32).
    Value warp = div(tid, 32), lane = rem(tid, 32);
    Value wRow = mul(rem(warp, kWarpRows), kMmaM);
    Value wCol = mul(div(warp, kWarpRows), kNTilesPerWarp * kMmaN);
    aRow = add(b, loc, wRow, rem(lane, 16));
    aChunk = div(lane, 16);
    bRow = add(b, loc, rem(lane, 8), mul(rem(div(lane, 8), 2), 8));
    bChunk = add(b, loc, div(wCol, kChunk), div(lane, 16));
    FailureOr<AffineMap> map = mmaFragmentMap(b.getContext(), MmaOperand::C);
    if (failed(map))
      return k.kernel.emitError() << "has no mma.sync fragment layout";
    for (int64_t v = 0; v < 4; ++v) {
      std::optional<SmallVector<Value, 8>> rc = affine::expandAffineMap(
          b, loc, *map, ValueRange{lane, idx(b, loc, v)});
      if (!rc)
        return k.kernel.emitError() << "has no mma.sync fragment layout";
      cAt.push_back({add(b, loc, wRow, (*rc)[0]), add(b, loc, wCol, (*rc)[1])});
    }
  }

  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
  SmallVector<Value> init(kNTilesPerWarp * 4, zero);
  auto kLoop = scf::ForOp::create(b, loc, idx(b, loc, 0), idx(b, loc, kTiles),
                                  idx(b, loc, 1), init);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(kLoop.getBody());
    Value i = kLoop.getInductionVar();
    // Tile i has landed (this thread's copies), then every thread's, and
    // every warp is done with tile i - 1, whose stage tile i + 2 takes.
    if (anyAsync)
      NVVM::CpAsyncWaitGroupOp::create(b, loc, kStages - 2);
    gpu::BarrierOp::create(b, loc);
    Value next = add(b, loc, i, idx(b, loc, kStages - 1));
    Value nextOk = lessThan(b, loc, next, kTiles);
    Value nextStage = rem(next, kStages);
    Value nextK0 = mul(next, tileK);
    SmallVector<Value> regs;
    bool anyRegs = !asyncA || !asyncB;
    {
      SmallVector<Type> regTypes;
      int64_t per = kTileMN * tileK / 256;
      for (bool isA : {true, false})
        if (!(isA ? asyncA : asyncB))
          regTypes.append(per, stageType);
      auto ifOp = scf::IfOp::create(b, loc, regTypes, nextOk,
                                    /*withElseRegion=*/anyRegs);
      {
        OpBuilder::InsertionGuard g(b);
        b.setInsertionPointToStart(&ifOp.getThenRegion().front());
        FailureOr<SmallVector<Value>> r = startTile(nextK0, nextStage);
        if (failed(r))
          return failure();
        if (anyRegs) {
          scf::YieldOp::create(b, loc, *r);
          b.setInsertionPointToStart(&ifOp.getElseRegion().front());
          Value z = arith::ConstantOp::create(
              b, loc, b.getFloatAttr(stageType, 0.0));
          scf::YieldOp::create(b, loc, SmallVector<Value>(regTypes.size(), z));
        }
      }
      regs.assign(ifOp.getResults().begin(), ifOp.getResults().end());
    }
    commit();

    // Tile i's math. mma: per 16 K, A by ldmatrix.x4, B by two x4.trans,
    // four mma.sync. f32: per K, 4 A and 4 B elements, 16 products summed
    // in ascending K (the elemental emitter's order).
    Value s = rem(i, kStages);
    SmallVector<Value> acc(kLoop.getRegionIterArgs());
    if (!mma) {
      auto inner = scf::ForOp::create(b, loc, idx(b, loc, 0),
                                      idx(b, loc, tileK), idx(b, loc, 1), acc);
      OpBuilder::InsertionGuard innerGuard(b);
      b.setInsertionPointToStart(inner.getBody());
      Value kk = inner.getInductionVar();
      SmallVector<Value> av, bv, next;
      for (int64_t q = 0; q < kPer; ++q) {
        av.push_back(memref::LoadOp::create(
            b, loc, as, ValueRange{s, add(b, loc, tr, idx(b, loc, kSide * q)),
                                   kk}));
        bv.push_back(memref::LoadOp::create(
            b, loc, bs, ValueRange{s, kk, add(b, loc, tc,
                                              idx(b, loc, kSide * q))}));
      }
      for (int64_t q = 0; q < kPer; ++q)
        for (int64_t j = 0; j < kPer; ++j)
          next.push_back(arith::AddFOp::create(
              b, loc, inner.getRegionIterArgs()[q * kPer + j],
              arith::MulFOp::create(b, loc, av[q], bv[j])));
      scf::YieldOp::create(b, loc, next);
      acc.assign(inner.getResults().begin(), inner.getResults().end());
    }
    // An ldmatrix result: 4 registers of 2 elements each.
    auto fragType = VectorType::get({4, 2}, elt);
    auto reg = [&](Value frag, int64_t r) -> Value {
      Value v = vector::ExtractOp::create(b, loc, frag, ArrayRef<int64_t>{r});
      if (elt.isBF16()) // the bf16 mma takes its pairs as i32
        return LLVM::BitcastOp::create(b, loc, b.getI32Type(), v);
      return v;
    };
    auto resultType = LLVM::LLVMStructType::getLiteral(
        b.getContext(), SmallVector<Type>(4, f32));
    NVVM::MMATypes ptxType =
        elt.isBF16() ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16;
    for (int64_t kk = 0; mma && kk < tileK; kk += kMmaK) {
      Value aFrag = nvgpu::LdMatrixOp::create(
          b, loc, fragType, as,
          ValueRange{s, aRow,
                     aColumn(aRow, add(b, loc, aChunk,
                                       idx(b, loc, kk / kChunk)))},
          /*transpose=*/false, /*numTiles=*/4);
      SmallVector<Value> aRegs;
      for (int64_t r = 0; r < 4; ++r)
        aRegs.push_back(reg(aFrag, r));
      Value kRow = add(b, loc, bRow, idx(b, loc, kk));
      for (int64_t p = 0; p < kNTilesPerWarp / 2; ++p) {
        Value bFrag = nvgpu::LdMatrixOp::create(
            b, loc, fragType, bs,
            ValueRange{s, kRow,
                       bColumn(kRow, add(b, loc, bChunk, idx(b, loc, 2 * p)))},
            /*transpose=*/true, /*numTiles=*/4);
        for (int64_t h = 0; h < 2; ++h) {
          int64_t j = 2 * p + h;
          SmallVector<Value> bRegs = {reg(bFrag, 2 * h), reg(bFrag, 2 * h + 1)};
          Value d = NVVM::MmaOp::create(
              b, loc, resultType, aRegs, bRegs,
              ArrayRef<Value>(acc).slice(4 * j, 4), {kMmaM, kMmaN, kMmaK},
              std::nullopt, std::nullopt,
              std::array<NVVM::MMATypes, 2>{ptxType, ptxType},
              std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                             NVVM::MMALayout::col});
          for (int64_t v = 0; v < 4; ++v)
            acc[4 * j + v] = LLVM::ExtractValueOp::create(b, loc, d, v);
        }
      }
    }
    // Registers of tile i + 2 into its stage, free since the barrier.
    if (anyRegs) {
      auto ifOp = scf::IfOp::create(b, loc, nextOk, /*withElse=*/false);
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(&ifOp.getThenRegion().front());
      finishTile(nextStage, regs);
    }
    scf::YieldOp::create(b, loc, acc);
  }
  // Only empty groups can be pending; none survives the tile.
  if (anyAsync)
    NVVM::CpAsyncWaitGroupOp::create(b, loc, 0);
  if (!mma) {
    // Every warp is done with the stages before the next tile's prologue.
    gpu::BarrierOp::create(b, loc);
    return kLoop;
  }
  // The accumulators into the shared result tile, so that the epilogue
  // maps outputs to threads as the f32 path does (coalesced stores): each
  // pair of adjacent columns (c0 c1, c2 c3) as one 8-byte store.
  auto pairType = VectorType::get({2}, f32);
  for (int64_t j = 0; j < kNTilesPerWarp; ++j)
    for (int64_t v = 0; v < 4; v += 2) {
      Value pair = vector::FromElementsOp::create(
          b, loc, pairType,
          ValueRange{kLoop.getResult(4 * j + v), kLoop.getResult(4 * j + v + 1)});
      Value row = cAt[v].first;
      Value col = add(b, loc, cAt[v].second, idx(b, loc, j * kMmaN));
      auto store = vector::StoreOp::create(
          b, loc, pair, cs, ValueRange{row, resultColumn(b, loc, row, col)});
      store->setAttr("alignment", b.getI64IntegerAttr(8));
    }
  gpu::BarrierOp::create(b, loc);
  return kLoop;
}

} // namespace

LogicalResult cuda::emitContractionTiledKernel(OpBuilder &b, KernelContext &k) {
  Location loc = k.kernel.getLoc();
  FailureOr<int64_t> block = k.field("block"), tm = k.field("tile_m"),
                     tn = k.field("tile_n"), tk = k.field("tile_k");
  if (failed(block) || failed(tm) || failed(tn) || failed(tk))
    return failure();
  // `mma` is optional (absent: 0, as in configurations written before it).
  Attribute mmaAttr = k.config.get("mma");
  auto mmaInt = dyn_cast_or_null<IntegerAttr>(mmaAttr);
  if ((mmaAttr && !mmaInt) ||
      (mmaInt && mmaInt.getInt() != 0 && mmaInt.getInt() != 1))
    return k.kernel.emitError()
           << "expects a contraction_tiled 'mma' of 0 or 1 but got " << mmaAttr;
  bool mma = mmaInt && mmaInt.getInt() == 1;
  if (*block != 256 || *tm != kTileMN || *tn != kTileMN ||
      (mma ? *tk != 16 && *tk != 32 : *tk != kTileK))
    return k.kernel.emitError()
           << "expects a contraction_tiled block of 256 threads and 64x64 "
              "tiles with tile_k 16 (or 32 with mma) but got "
           << k.config;
  int64_t tileK = *tk;
  Operation *op = tiledContraction(k.kernel);
  if (!op)
    return k.kernel.emitError()
           << "expects one float matmul or direct convolution with groups 1 "
              "(f32 accumulation) feeding elementwise ops on its shape but "
              "got "
           << k.kernel.getFunctionType();
  // The op as a batch of GEMMs (a convolution: its implicit GEMM).
  GemmView view = *GemmView::get(op);
  auto resultType = cast<ShapedType>(view.result().getType());
  int64_t M = view.m, N = view.n;
  SmallVector<int64_t> batchShape(view.batchShape);
  int64_t batch = 1;
  for (int64_t s : batchShape)
    batch *= s;
  int64_t mTiles = (M + kTileMN - 1) / kTileMN,
          nTiles = (N + kTileMN - 1) / kTileMN;
  Type f32 = b.getF32Type();
  Type elt = resultType.getElementType();
  if (mma && !elt.isF16() && !elt.isBF16())
    return k.kernel.emitError()
           << "expects f16 or bf16 operands for a contraction_tiled 'mma' "
              "of 1 but got "
           << elt;
  auto space =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  auto sharedType = [&](ArrayRef<int64_t> shape, Type t) {
    return MemRefType::get(shape, t, MemRefLayoutAttrInterface(), space);
  };
  // Stages of A [m][k] and B [k][n]: the operand type (mma) or f32.
  Type stageType = mma ? elt : f32;
  Value as = k.func.addWorkgroupAttribution(
      sharedType({kStages, kTileMN, tileK}, stageType), loc);
  Value bs = k.func.addWorkgroupAttribution(
      sharedType({kStages, tileK, kTileMN}, stageType), loc);
  Value cs;
  if (mma)
    cs = k.func.addWorkgroupAttribution(sharedType({kTileMN, kTileMN}, f32),
                                        loc);

  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value tr = arith::DivUIOp::create(b, loc, tid, idx(b, loc, kSide));
  Value tc = arith::RemUIOp::create(b, loc, tid, idx(b, loc, kSide));
  auto tileLoop = blockStrideLoop(b, loc, batch * mTiles * nTiles);
  SmallVector<Value> t = ElementalEmitter::delinearize(
      b, loc, tileLoop.getInductionVar(), {batch, mTiles, nTiles});
  SmallVector<Value> batchIndex =
      ElementalEmitter::delinearize(b, loc, t[0], batchShape);
  Value m0 = arith::MulIOp::create(b, loc, t[1], idx(b, loc, kTileMN));
  Value n0 = arith::MulIOp::create(b, loc, t[2], idx(b, loc, kTileMN));
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
  Value stageZero =
      mma ? arith::ConstantOp::create(b, loc, b.getFloatAttr(elt, 0.0))
                .getResult()
          : zero;

  // Element (row, col) of the view's A (`isA`) or B for this batch, as the
  // tile's type, 0 outside the operand (and for a convolution's padding).
  auto operand = [&](bool isA, Value row, int64_t rows, Value col,
                     int64_t cols) -> FailureOr<Value> {
    Value ok = arith::AndIOp::create(b, loc, lessThan(b, loc, row, rows),
                                     lessThan(b, loc, col, cols));
    auto guarded = scf::IfOp::create(b, loc, TypeRange{stageType}, ok, true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&guarded.getThenRegion().front());
    FailureOr<Value> x = emitGemmOperand(k.elements, b, loc, view, isA,
                                         batchIndex, row, col);
    if (failed(x))
      return failure();
    // tiledContraction: A and B have the result's element type, which the
    // tile holds (mma) or extends to f32.
    if (x->getType() != stageType &&
        (mma || x->getType().getIntOrFloatBitWidth() >= 32))
      return k.kernel.emitError()
             << "expects contraction operands of the result's element type "
                "but got "
             << x->getType();
    Value staged = x->getType() == stageType
                       ? *x
                       : arith::ExtFOp::create(b, loc, stageType, *x)
                             .getResult();
    scf::YieldOp::create(b, loc, staged);
    b.setInsertionPointToStart(&guarded.getElseRegion().front());
    scf::YieldOp::create(b, loc, stageZero);
    k.elements.clearCache();
    return guarded.getResult(0);
  };

  FailureOr<scf::ForOp> kLoop = emitPipelinedMainLoop(
      b, loc, k, view, mma, stageType, tileK, as, bs, cs, tid, tr, tc, m0, n0,
      batchIndex, operand);
  if (failed(kLoop))
    return failure();

  for (int64_t i = 0; i < kPer; ++i)
    for (int64_t j = 0; j < kPer; ++j) {
      OpBuilder::InsertionGuard guard(b);
      Value row = add(b, loc, tr, idx(b, loc, kSide * i)),
            col = add(b, loc, tc, idx(b, loc, kSide * j));
      Value m = add(b, loc, m0, row), n = add(b, loc, n0, col);
      auto store = scf::IfOp::create(
          b, loc,
          arith::AndIOp::create(b, loc, lessThan(b, loc, m, M),
                                lessThan(b, loc, n, N)),
          /*withElse=*/false);
      b.setInsertionPointToStart(&store.getThenRegion().front());
      Value acc = mma ? memref::LoadOp::create(
                            b, loc, cs,
                            ValueRange{row, resultColumn(b, loc, row, col)})
                            .getResult()
                      : kLoop->getResult(i * kPer + j);
      if (failed(emitContractionEpilogue(b, loc, k, view, acc, batchIndex, m,
                                         n)))
        return failure();
    }
  // mma: the next tile's accumulators overwrite the result tile.
  if (mma)
    gpu::BarrierOp::create(b, loc);
  b.setInsertionPointAfter(tileLoop);
  return success();
}

LogicalResult cuda::emitContractionEpilogue(OpBuilder &b, Location loc,
                                            KernelContext &k,
                                            const GemmView &view, Value acc,
                                            ArrayRef<Value> batchIndex, Value m,
                                            Value n) {
  FailureOr<Value> value =
      emitGemmResult(k.elements, b, loc, view, acc, batchIndex, m, n);
  if (failed(value))
    return failure();
  k.elements.bindValue(view.result(), *value);
  IRArith ar{b, loc};
  SmallVector<Value> index = view.resultIndex(ar, batchIndex, m, n);
  Value linear = ElementalEmitter::linearize(
      b, loc, index, cast<ShapedType>(view.result().getType()).getShape());
  ValueRange results =
      k.kernel.getBody().front().getTerminator()->getOperands();
  for (auto [result, buffer] : llvm::zip(results, k.outputs)) {
    FailureOr<Value> s = k.elements.emit(b, loc, result, index);
    if (failed(s))
      return failure();
    memref::StoreOp::create(b, loc, *s, buffer, linear);
  }
  k.elements.unbindValue(view.result());
  k.elements.clearCache();
  return success();
}

FailureOr<AffineMap> mlir::bwc::mmaFragmentMap(MLIRContext *ctx,
                                               MmaOperand operand) {
  // The 16-bit operand layouts are one for f16 and bf16; upstream's helper
  // is written for f16 (it returns failure for bf16), so ask it for f16.
  OpBuilder b(ctx);
  Type f16 = b.getF16Type(), f32 = b.getF32Type();
  nvgpu::WarpMatrixInfo info;
  switch (operand) {
  case MmaOperand::A:
    info = {VectorType::get({kMmaM, kTileK}, f16), nvgpu::MatMulOperandRole::A};
    break;
  case MmaOperand::B:
    info = {VectorType::get({kMmaN, kTileK}, f16), nvgpu::MatMulOperandRole::B};
    break;
  case MmaOperand::C:
    info = {VectorType::get({kMmaM, kMmaN}, f32), nvgpu::MatMulOperandRole::C};
    break;
  }
  return nvgpu::getLaneIdAndValueIdToOperandCoord(b, b.getUnknownLoc(), info);
}
