//===- ContractionKernel.cpp - Matmul and conv in shared-memory tiles -----===//
//
// The op is seen through its GemmView (include/bwc/Analysis/GemmView.h): a
// matmul, or a direct convolution with groups 1 as an implicit GEMM whose
// A and B elements are filter and input elements (0 for padding taps).
// A block computes a tile_m x tile_n (64 x 64) output tile of one batch
// with 256 threads, 4 x 4 outputs each (rows tr + 16 i, columns tc + 16 j,
// so a warp's B reads and stores are consecutive); K advances tile_k (16)
// at a time through shared A [16][64] and B [16][64] tiles loaded by all
// threads (zero outside the operands: every shape is guarded). Each output
// sums a*b in f32 in ascending K, the elemental emitter's own order; the
// result is bound and every kernel output emitted at its index (the
// epilogue). Floats only (f16/bf16/f32, f32 accumulation).
//
// With `mma` = 1 (f16/bf16 operands) the tiles stay in the operand type,
// [64][16] A and [64 n][16 k] B (rows padded to 24 elements: conflict-free
// fragment loads), and the 8 warps each own a 16 x 32 slice of the output
// tile: per K step one A fragment and four B fragments feed four
// `mma.sync.m16n8k16` (f32 accumulation) on the tensor cores. Fragment
// coordinates are upstream nvgpu's (getLaneIdAndValueIdToOperandCoord).
// After the K loop the accumulators go through a shared [64][65] f32 tile,
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
#include "mlir/Dialect/NVGPU/Utils/MMAUtils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::bwc;
using namespace mlir::bwc::cuda;

namespace {
constexpr int64_t kTileMN = 64, kTileK = 16, kPer = 4, kSide = 16;
// mma: 8 warps as 4 (rows of 16) x 2 (columns of 32), m16n8k16 steps,
// 16-bit tiles padded to 24 elements per row, the f32 result tile to 65.
constexpr int64_t kWarpRows = 4, kMmaM = 16, kMmaN = 8, kNTilesPerWarp = 4,
                  kPadK = 24, kPadC = kTileMN + 1, kPadA = kTileMN + 2;

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
} // namespace

LogicalResult cuda::emitContractionTiledKernel(OpBuilder &b, KernelContext &k) {
  Location loc = k.kernel.getLoc();
  FailureOr<int64_t> block = k.field("block"), tm = k.field("tile_m"),
                     tn = k.field("tile_n"), tk = k.field("tile_k");
  if (failed(block) || failed(tm) || failed(tn) || failed(tk))
    return failure();
  if (*block != 256 || *tm != kTileMN || *tn != kTileMN || *tk != kTileK)
    return k.kernel.emitError()
           << "expects a contraction_tiled block of 256 threads and 64x64x16 "
              "tiles but got "
           << k.config;
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
  ArrayRef<int64_t> out = resultType.getShape();
  int64_t M = view.m, N = view.n, K = view.k;
  SmallVector<int64_t> batchShape(view.batchShape);
  int64_t batch = 1;
  for (int64_t s : batchShape)
    batch *= s;
  int64_t mTiles = (M + kTileMN - 1) / kTileMN,
          nTiles = (N + kTileMN - 1) / kTileMN;
  Type f32 = b.getF32Type();
  Type elt = resultType.getElementType();
  // `mma` is optional (absent: 0, as in configurations written before it).
  Attribute mmaAttr = k.config.get("mma");
  auto mmaInt = dyn_cast_or_null<IntegerAttr>(mmaAttr);
  if ((mmaAttr && !mmaInt) ||
      (mmaInt && mmaInt.getInt() != 0 && mmaInt.getInt() != 1))
    return k.kernel.emitError()
           << "expects a contraction_tiled 'mma' of 0 or 1 but got " << mmaAttr;
  bool mma = mmaInt && mmaInt.getInt() == 1;
  if (mma && !elt.isF16() && !elt.isBF16())
    return k.kernel.emitError()
           << "expects f16 or bf16 operands for a contraction_tiled 'mma' "
              "of 1 but got "
           << elt;
  // Tiles hold the operand type for the tensor cores, else f32.
  Type stageType = mma ? elt : f32;
  auto space =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  auto tileType = MemRefType::get(
      mma ? ArrayRef<int64_t>{kTileMN, kPadK} : ArrayRef<int64_t>{kTileK,
                                                                  kTileMN},
      stageType, MemRefLayoutAttrInterface(), space);
  // f32: A is stored transposed ([k][m]) by lanes walking k, so rows of 64
  // put a warp's 32 stores in 2 banks (16-way conflicts, found by
  // cuda-sim's counters); rows of 66 (2 mod 32) put them in 32.
  auto aTileType =
      mma ? tileType
          : MemRefType::get({kTileK, kPadA}, f32, MemRefLayoutAttrInterface(),
                            space);
  Value as = k.func.addWorkgroupAttribution(aTileType, loc);
  Value bs = k.func.addWorkgroupAttribution(tileType, loc);
  Value cs;
  if (mma)
    cs = k.func.addWorkgroupAttribution(
        MemRefType::get({kTileMN, kPadC}, f32, MemRefLayoutAttrInterface(),
                        space),
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

  // mma: where this lane's fragment values sit, as (row, column) of the
  // block's tiles: A rows and accumulator rows in the warp's 16, B rows
  // (n) and accumulator columns in its 32.
  SmallVector<std::pair<Value, Value>> aAt, bAt, cAt;
  if (mma) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(tileLoop);
    Value warp = arith::DivUIOp::create(b, loc, tid, idx(b, loc, 32));
    Value lane = arith::RemUIOp::create(b, loc, tid, idx(b, loc, 32));
    Value wRow = arith::MulIOp::create(
        b, loc, arith::RemUIOp::create(b, loc, warp, idx(b, loc, kWarpRows)),
        idx(b, loc, kMmaM));
    Value wCol = arith::MulIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, warp, idx(b, loc, kWarpRows)),
        idx(b, loc, kNTilesPerWarp * kMmaN));
    auto coords = [&](MmaOperand operand, int64_t values,
                      SmallVectorImpl<std::pair<Value, Value>> &at,
                      int64_t step) -> LogicalResult {
      FailureOr<AffineMap> map = mmaFragmentMap(b.getContext(), operand);
      if (failed(map))
        return k.kernel.emitError() << "has no mma.sync fragment layout";
      for (int64_t v = 0; v < values; v += step) {
        std::optional<SmallVector<Value, 8>> rc = affine::expandAffineMap(
            b, loc, *map, ValueRange{lane, idx(b, loc, v)});
        if (!rc)
          return k.kernel.emitError() << "has no mma.sync fragment layout";
        at.push_back({(*rc)[0], (*rc)[1]});
      }
      return success();
    };
    // A: 4 registers of 2 (values 0, 2, 4, 6); B: 2 registers; C: 4 f32.
    if (failed(coords(MmaOperand::A, 8, aAt, 2)) ||
        failed(coords(MmaOperand::B, 4, bAt, 2)) ||
        failed(coords(MmaOperand::C, 4, cAt, 1)))
      return failure();
    for (auto &[row, col] : aAt)
      row = add(b, loc, wRow, row);
    for (auto &[n, kk] : bAt)
      n = add(b, loc, wCol, n);
    for (auto &[row, col] : cAt) {
      row = add(b, loc, wRow, row);
      col = add(b, loc, wCol, col);
    }
  }

  SmallVector<Value> init(kPer * kPer, zero);
  auto kLoop = scf::ForOp::create(b, loc, idx(b, loc, 0), idx(b, loc, K),
                                  idx(b, loc, kTileK), init);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(kLoop.getBody());
    Value k0 = kLoop.getInductionVar();
    // 1024 elements of each tile, 4 per thread: A along K (16 per row),
    // B along N (64 per row, coalesced).
    // Element e of a tile `width` wide: operand (rowBase + e / width,
    // colBase + e % width), stored [col][row] when `transposed`.
    auto stage = [&](bool isA, Value tile, Value e, int64_t width,
                     bool transposed, Value rowBase, int64_t rows,
                     Value colBase, int64_t cols) -> LogicalResult {
      Value r = arith::DivUIOp::create(b, loc, e, idx(b, loc, width));
      Value c = arith::RemUIOp::create(b, loc, e, idx(b, loc, width));
      FailureOr<Value> x = operand(isA, add(b, loc, rowBase, r), rows,
                                   add(b, loc, colBase, c), cols);
      if (failed(x))
        return failure();
      memref::StoreOp::create(b, loc, *x, tile,
                              transposed ? ValueRange{c, r} : ValueRange{r, c});
      return success();
    };
    // f32: A [k][m], B [k][n]; mma: A [m][k], B [n][k] (K innermost, as
    // the fragments pair it).
    for (int64_t q = 0; q < kTileMN * kTileK / 256; ++q) {
      Value e = add(b, loc, tid, idx(b, loc, 256 * q));
      if (failed(stage(/*isA=*/true, as, e, kTileK, /*transposed=*/!mma, m0, M,
                       k0, K)) ||
          failed(stage(/*isA=*/false, bs, e, kTileMN, /*transposed=*/mma, k0, K,
                       n0, N)))
        return failure();
    }
    gpu::BarrierOp::create(b, loc);
    if (mma) {
      // Two consecutive K values of one row: one 32-bit register.
      auto pairType = VectorType::get({2}, elt);
      auto fragment = [&](Value tile, Value row, Value col) -> Value {
        auto load = vector::LoadOp::create(b, loc, pairType, tile,
                                           ValueRange{row, col});
        load->setAttr("alignment", b.getI64IntegerAttr(4));
        if (elt.isBF16()) // the bf16 mma takes its pairs as i32
          return LLVM::BitcastOp::create(b, loc, b.getI32Type(), load);
        return load;
      };
      SmallVector<Value> aFrag, next;
      for (auto [row, col] : aAt)
        aFrag.push_back(fragment(as, row, col));
      auto resultType = LLVM::LLVMStructType::getLiteral(
          b.getContext(), SmallVector<Type>(4, f32));
      NVVM::MMATypes ptxType =
          elt.isBF16() ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16;
      for (int64_t j = 0; j < kNTilesPerWarp; ++j) {
        SmallVector<Value> bFrag;
        for (auto [n, kk] : bAt)
          bFrag.push_back(
              fragment(bs, add(b, loc, n, idx(b, loc, j * kMmaN)), kk));
        ValueRange acc = kLoop.getRegionIterArgs().slice(4 * j, 4);
        Value d = NVVM::MmaOp::create(
            b, loc, resultType, aFrag, bFrag, acc, {kMmaM, kMmaN, kTileK},
            std::nullopt, std::nullopt,
            std::array<NVVM::MMATypes, 2>{ptxType, ptxType},
            std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                           NVVM::MMALayout::col});
        for (int64_t v = 0; v < 4; ++v)
          next.push_back(LLVM::ExtractValueOp::create(b, loc, d, v));
      }
      gpu::BarrierOp::create(b, loc);
      scf::YieldOp::create(b, loc, next);
    } else {
      auto inner =
          scf::ForOp::create(b, loc, idx(b, loc, 0), idx(b, loc, kTileK),
                             idx(b, loc, 1), kLoop.getRegionIterArgs());
      {
        OpBuilder::InsertionGuard innerGuard(b);
        b.setInsertionPointToStart(inner.getBody());
        Value kk = inner.getInductionVar();
        SmallVector<Value> av, bv, next;
        for (int64_t i = 0; i < kPer; ++i) {
          av.push_back(memref::LoadOp::create(
              b, loc, as,
              ValueRange{kk, add(b, loc, tr, idx(b, loc, kSide * i))}));
          bv.push_back(memref::LoadOp::create(
              b, loc, bs,
              ValueRange{kk, add(b, loc, tc, idx(b, loc, kSide * i))}));
        }
        for (int64_t i = 0; i < kPer; ++i)
          for (int64_t j = 0; j < kPer; ++j)
            next.push_back(arith::AddFOp::create(
                b, loc, inner.getRegionIterArgs()[i * kPer + j],
                arith::MulFOp::create(b, loc, av[i], bv[j])));
        scf::YieldOp::create(b, loc, next);
      }
      // The next K step overwrites the tiles.
      gpu::BarrierOp::create(b, loc);
      scf::YieldOp::create(b, loc, inner.getResults());
    }
  }
  if (mma) {
    // The accumulators into the shared result tile, so that the epilogue
    // maps outputs to threads as the f32 path does (coalesced stores).
    for (int64_t j = 0; j < kNTilesPerWarp; ++j)
      for (int64_t v = 0; v < 4; ++v)
        memref::StoreOp::create(
            b, loc, kLoop.getResult(4 * j + v), cs,
            ValueRange{cAt[v].first,
                       add(b, loc, cAt[v].second, idx(b, loc, j * kMmaN))});
    gpu::BarrierOp::create(b, loc);
  }

  ValueRange results =
      k.kernel.getBody().front().getTerminator()->getOperands();
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
      Value acc = mma ? memref::LoadOp::create(b, loc, cs, ValueRange{row, col})
                            .getResult()
                      : kLoop.getResult(i * kPer + j);
      FailureOr<Value> value =
          emitGemmResult(k.elements, b, loc, view, acc, batchIndex, m, n);
      if (failed(value))
        return failure();
      k.elements.bindValue(view.result(), *value);
      IRArith ar{b, loc};
      SmallVector<Value> index =
          view.resultIndex(ar, ArrayRef<Value>(batchIndex), m, n);
      Value linear = ElementalEmitter::linearize(b, loc, index, out);
      for (auto [value, buffer] : llvm::zip(results, k.outputs)) {
        FailureOr<Value> s = k.elements.emit(b, loc, value, index);
        if (failed(s))
          return failure();
        memref::StoreOp::create(b, loc, *s, buffer, linear);
      }
      k.elements.unbindValue(view.result());
      k.elements.clearCache();
    }
  // mma: the next tile's accumulators overwrite the result tile.
  if (mma)
    gpu::BarrierOp::create(b, loc);
  b.setInsertionPointAfter(tileLoop);
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
