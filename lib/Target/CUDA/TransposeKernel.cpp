//===- TransposeKernel.cpp - Transposes tiled through shared memory -------===//
//
// A loop kernel whose output's innermost dimension comes from a
// non-innermost dimension of a transposed value (NCHW -> NHWC, possibly
// with elementwise ops before and after): with the loop driver either the
// reads or the writes are strided. Here a block of 32 x 8 threads moves
// 32 x 32 tiles: each transpose's operand is read with the input's
// innermost dimension across the warp (coalesced) into its own padded
// shared tile ([32][33] for 32-bit elements, [32][34] for 16-bit:
// transposeTileColumns, an odd number of banks per row, so the column
// reads are conflict-free),
// then after a barrier each output element is emitted with every
// transpose bound to its tile element, the output's innermost dimension
// across the warp (coalesced stores). Several transposes share the tile
// loop when they have one permutation and input shape (an STFT's real and
// imaginary parts). Only the transposes go through shared memory; the
// other operands of the ops after them are read at the output index.
//
//===----------------------------------------------------------------------===//
#include "KernelEmitters.h"

#include "bwc/Analysis/KernelFit.h"
#include "bwc/Dialect/BWC/IR/BWCOps.h"
#include "bwc/Transforms/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::bwc;
using namespace mlir::bwc::cuda;

namespace {
constexpr int64_t kTile = 32, kRows = 8;
} // namespace

LogicalResult cuda::emitTransposeTiledKernel(OpBuilder &b, KernelContext &k) {
  Location loc = k.kernel.getLoc();
  FailureOr<int64_t> block = k.field("block"), tile = k.field("tile");
  if (failed(block) || failed(tile))
    return failure();
  if (*block != kTile * kRows || *tile != kTile)
    return k.kernel.emitError()
           << "expects a transpose_tiled block of 256 threads and a tile of "
              "32 but got "
           << k.config;
  SmallVector<TransposeOp, 2> staged = tiledTransposes(k.kernel);
  if (staged.empty())
    return k.kernel.emitError()
           << "expects transposes with one permutation and input shape "
              "feeding elementwise ops on their result shape, moving a "
              "non-innermost dimension innermost, but got "
           << k.kernel.getFunctionType();
  TransposeOp t = staged.front();
  auto outType = cast<RankedTensorType>(t.getType());
  ArrayRef<int64_t> shape = outType.getShape();
  ArrayRef<int64_t> perm = t.getPerm();
  int64_t rank = shape.size(), inner = rank - 1;
  int64_t p = llvm::find(perm, rank - 1) - perm.begin();
  SmallVector<int64_t> batchDims, batchShape;
  for (int64_t d = 0; d < rank; ++d)
    if (d != p && d != inner) {
      batchDims.push_back(d);
      batchShape.push_back(shape[d]);
    }
  int64_t batch = 1;
  for (int64_t s : batchShape)
    batch *= s;
  int64_t pTiles = (shape[p] + kTile - 1) / kTile,
          jTiles = (shape[inner] + kTile - 1) / kTile;

  auto space =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  SmallVector<Value> tiles;
  for (TransposeOp s : staged) {
    Type elt = s.getType().getElementType();
    if (auto i = dyn_cast<IntegerType>(elt))
      elt = IntegerType::get(b.getContext(), i.getWidth());
    tiles.push_back(k.func.addWorkgroupAttribution(
        MemRefType::get({kTile, transposeTileColumns(
                                    elt.getIntOrFloatBitWidth())},
                        elt, MemRefLayoutAttrInterface(),
                        space),
        loc));
  }
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value tx = arith::RemUIOp::create(b, loc, tid, indexConstant(b, loc, kTile));
  Value ty = arith::DivUIOp::create(b, loc, tid, indexConstant(b, loc, kTile));
  auto tileLoop = blockStrideLoop(b, loc, batch * pTiles * jTiles);
  SmallVector<Value> tileIndex = ElementalEmitter::delinearize(
      b, loc, tileLoop.getInductionVar(), {batch, pTiles, jTiles});
  SmallVector<Value> index(rank);
  for (auto [d, v] :
       llvm::zip(batchDims, ElementalEmitter::delinearize(b, loc, tileIndex[0],
                                                          batchShape)))
    index[d] = v;
  Value tileConst = indexConstant(b, loc, kTile);
  Value p0 = arith::MulIOp::create(b, loc, tileIndex[1], tileConst);
  Value j0 = arith::MulIOp::create(b, loc, tileIndex[2], tileConst);
  Value pSize = indexConstant(b, loc, shape[p]);
  Value jSize = indexConstant(b, loc, shape[inner]);
  // The 4 rows of this thread in the tile: the warp spans o[p] (the
  // input's innermost dimension) when reading, o[inner] when writing;
  // `body(row)` runs at index o, guarded by o[p] < pSize, o[inner] < jSize.
  auto eachRow = [&](bool warpAlongP,
                     function_ref<LogicalResult(Value)> body) -> LogicalResult {
    for (int64_t i = 0; i < kTile / kRows; ++i) {
      OpBuilder::InsertionGuard guard(b);
      Value row =
          arith::AddIOp::create(b, loc, ty, indexConstant(b, loc, i * kRows));
      index[p] = arith::AddIOp::create(b, loc, p0, warpAlongP ? tx : row);
      index[inner] = arith::AddIOp::create(b, loc, j0, warpAlongP ? row : tx);
      Value ok = arith::AndIOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, index[p],
                                pSize),
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, index[inner],
                                jSize));
      auto guarded = scf::IfOp::create(b, loc, ok, /*withElse=*/false);
      b.setInsertionPointToStart(&guarded.getThenRegion().front());
      if (failed(body(row)))
        return failure();
      k.elements.clearCache();
    }
    return success();
  };

  // Read: tile[row][tx] = each transpose's operand at o (input order).
  if (failed(eachRow(/*warpAlongP=*/true, [&](Value row) -> LogicalResult {
        SmallVector<Value> in(rank);
        for (int64_t d = 0; d < rank; ++d)
          in[perm[d]] = index[d];
        for (auto [s, smem] : llvm::zip(staged, tiles)) {
          FailureOr<Value> x = k.elements.emit(b, loc, s.getInput(), in);
          if (failed(x))
            return failure();
          memref::StoreOp::create(b, loc, *x, smem, ValueRange{row, tx});
        }
        return success();
      })))
    return failure();
  gpu::BarrierOp::create(b, loc);
  // Write: every output at o with each transpose bound to tile[tx][row].
  ValueRange results =
      k.kernel.getBody().front().getTerminator()->getOperands();
  if (failed(eachRow(/*warpAlongP=*/false, [&](Value row) -> LogicalResult {
        for (auto [s, smem] : llvm::zip(staged, tiles))
          k.elements.bindValue(
              s.getResult(),
              memref::LoadOp::create(b, loc, smem, ValueRange{tx, row}));
        Value linear = ElementalEmitter::linearize(b, loc, index, shape);
        for (auto [value, buffer] : llvm::zip(results, k.outputs)) {
          FailureOr<Value> s = k.elements.emit(b, loc, value, index);
          if (failed(s))
            return failure();
          memref::StoreOp::create(b, loc, *s, buffer, linear);
        }
        for (TransposeOp s : staged)
          k.elements.unbindValue(s.getResult());
        return success();
      })))
    return failure();
  // The next tile overwrites the shared tiles.
  gpu::BarrierOp::create(b, loc);
  b.setInsertionPointAfter(tileLoop);
  return success();
}
