//===- ContractionKernel.cpp - Matmul in shared-memory tiles --------------===//
//
// A block computes a tile_m x tile_n (64 x 64) output tile of one batch
// with 256 threads, 4 x 4 outputs each (rows tr + 16 i, columns tc + 16 j,
// so a warp's B reads and stores are consecutive); K advances tile_k (16)
// at a time through shared A [16][64] and B [16][64] tiles loaded by all
// threads (zero outside the operands: every shape is guarded). Each output
// sums a*b in f32 in ascending K, the elemental emitter's own order; the
// result is bound and every kernel output emitted at its index (the
// epilogue). Floats only (f16/bf16/f32, f32 accumulation).
//
//===----------------------------------------------------------------------===//
#include "KernelEmitters.h"

#include "../Elemental/Emitters.h"
#include "bwc/Dialect/BWC/IR/BWCOps.h"
#include "bwc/Transforms/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::bwc;
using namespace mlir::bwc::cuda;

namespace {
constexpr int64_t kTileMN = 64, kTileK = 16, kPer = 4, kSide = 16;

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
  MatmulOp mm = tiledMatmul(k.kernel);
  if (!mm)
    return k.kernel.emitError()
           << "expects one float matmul (f32 accumulation) feeding "
              "elementwise ops on its shape but got "
           << k.kernel.getFunctionType();
  ArrayRef<int64_t> out = mm.getType().getShape();
  int64_t rank = out.size(), batchRank = rank - 2;
  int64_t M = out[rank - 2], N = out[rank - 1],
          K = cast<ShapedType>(mm.getLhs().getType()).getShape().back();
  SmallVector<int64_t> batchShape(out.take_front(batchRank));
  int64_t batch = 1;
  for (int64_t s : batchShape)
    batch *= s;
  int64_t mTiles = (M + kTileMN - 1) / kTileMN,
          nTiles = (N + kTileMN - 1) / kTileMN;
  Type f32 = b.getF32Type();
  auto space =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  auto tileType = MemRefType::get({kTileK, kTileMN}, f32,
                                  MemRefLayoutAttrInterface(), space);
  Value as = k.func.addWorkgroupAttribution(tileType, loc);
  Value bs = k.func.addWorkgroupAttribution(tileType, loc);

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

  // Operand element (row, col) of `v` for this batch, as f32, 0 outside.
  auto operand = [&](Value v, Value row, int64_t rows, Value col,
                     int64_t cols) -> FailureOr<Value> {
    Value ok = arith::AndIOp::create(b, loc, lessThan(b, loc, row, rows),
                                     lessThan(b, loc, col, cols));
    auto guarded = scf::IfOp::create(b, loc, TypeRange{f32}, ok, true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&guarded.getThenRegion().front());
    SmallVector<Value> index = elemental::broadcastIndex(
        b, loc, batchIndex, out.take_front(batchRank),
        cast<ShapedType>(v.getType()).getShape().drop_back(2));
    index.push_back(row);
    index.push_back(col);
    FailureOr<Value> x = k.elements.emit(b, loc, v, index);
    if (failed(x))
      return failure();
    Value x32 = x->getType().isF32()
                    ? *x
                    : arith::ExtFOp::create(b, loc, f32, *x).getResult();
    scf::YieldOp::create(b, loc, x32);
    b.setInsertionPointToStart(&guarded.getElseRegion().front());
    scf::YieldOp::create(b, loc, zero);
    k.elements.clearCache();
    return guarded.getResult(0);
  };

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
    auto stage = [&](Value v, Value tile, Value e, int64_t width,
                     bool transposed, Value rowBase, int64_t rows,
                     Value colBase, int64_t cols) -> LogicalResult {
      Value r = arith::DivUIOp::create(b, loc, e, idx(b, loc, width));
      Value c = arith::RemUIOp::create(b, loc, e, idx(b, loc, width));
      FailureOr<Value> x = operand(v, add(b, loc, rowBase, r), rows,
                                   add(b, loc, colBase, c), cols);
      if (failed(x))
        return failure();
      memref::StoreOp::create(b, loc, *x, tile,
                              transposed ? ValueRange{c, r} : ValueRange{r, c});
      return success();
    };
    for (int64_t q = 0; q < kTileMN * kTileK / 256; ++q) {
      Value e = add(b, loc, tid, idx(b, loc, 256 * q));
      if (failed(stage(mm.getLhs(), as, e, kTileK, /*transposed=*/true, m0, M,
                       k0, K)) ||
          failed(stage(mm.getRhs(), bs, e, kTileMN, /*transposed=*/false, k0, K,
                       n0, N)))
        return failure();
    }
    gpu::BarrierOp::create(b, loc);
    auto inner = scf::ForOp::create(b, loc, idx(b, loc, 0), idx(b, loc, kTileK),
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

  ValueRange results =
      k.kernel.getBody().front().getTerminator()->getOperands();
  Type elt = mm.getType().getElementType();
  for (int64_t i = 0; i < kPer; ++i)
    for (int64_t j = 0; j < kPer; ++j) {
      OpBuilder::InsertionGuard guard(b);
      Value m = add(b, loc, m0, add(b, loc, tr, idx(b, loc, kSide * i)));
      Value n = add(b, loc, n0, add(b, loc, tc, idx(b, loc, kSide * j)));
      auto store = scf::IfOp::create(
          b, loc,
          arith::AndIOp::create(b, loc, lessThan(b, loc, m, M),
                                lessThan(b, loc, n, N)),
          /*withElse=*/false);
      b.setInsertionPointToStart(&store.getThenRegion().front());
      Value acc = kLoop.getResult(i * kPer + j);
      k.elements.bindValue(
          mm.getResult(),
          elt.isF32() ? acc
                      : arith::TruncFOp::create(b, loc, elt, acc).getResult());
      SmallVector<Value> index(batchIndex);
      index.push_back(m);
      index.push_back(n);
      Value linear = ElementalEmitter::linearize(b, loc, index, out);
      for (auto [value, buffer] : llvm::zip(results, k.outputs)) {
        FailureOr<Value> s = k.elements.emit(b, loc, value, index);
        if (failed(s))
          return failure();
        memref::StoreOp::create(b, loc, *s, buffer, linear);
      }
      k.elements.unbindValue(mm.getResult());
      k.elements.clearCache();
    }
  b.setInsertionPointAfter(tileLoop);
  return success();
}
