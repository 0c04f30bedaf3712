//===- ContractionThreadKernel.cpp - A GEMM view, rows per thread ---------===//
//
// contraction_thread: the op of a contraction_tiled kernel (a matmul, or a
// direct convolution with groups 1 seen as its GEMM view) without shared
// memory: each thread computes `rows` outputs (m0 .. m0 + rows - 1, n) of
// one column n, lanes on consecutive n, so every output's operand reads
// are the one-thread-per-output kernel's, plus:
//   - A (rows x K, along m) is read `chunk` consecutive K elements at a
//     time, one 16-byte vector load per row and chunk, where
//     GemmView::copiesChunks (a kernel argument contiguous along K: a
//     channels-last convolution's input, a channels-first one's filter, a
//     matmul's lhs); lanes share the row, so the load is a broadcast;
//   - B (K x N, along n: consecutive lanes, consecutive addresses) is read
//     once per K element for all `rows` outputs (register reuse).
// Per K element and row the sum is acc + a * b in ascending K, the
// elemental emitter's own order; a padding tap's chunk is loaded at the
// clamped (in-bounds, aligned) address and replaced by zeros. Then the
// epilogue: the result bound per output and every kernel output emitted
// at its index, as contraction_tiled does. Grid-stride over
// (batch, ceil(M / rows), lanes); rows past M are computed on the last
// row and never stored. `lanes` (default N) may round N up to whole warps
// (N = 24, 48, 72: 32, 64, 96): the lanes past N idle, so that no warp
// straddles two groups of rows, whose A chunks would be two broadcasts
// in two sectors.
//
//===----------------------------------------------------------------------===//
#include "KernelEmitters.h"

#include "../Elemental/Emitters.h"
#include "bwc/Analysis/KernelFit.h"
#include "bwc/Conversion/BWCToLinalg/ScalarOps.h"
#include "bwc/Target/Elemental/GemmEmit.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::bwc;
using namespace mlir::bwc::cuda;

LogicalResult cuda::emitContractionThreadKernel(OpBuilder &b,
                                                KernelContext &k) {
  Location loc = k.kernel.getLoc();
  FailureOr<int64_t> rows = k.field("rows");
  FailureOr<int64_t> chunk = k.field("chunk");
  if (failed(rows) || failed(chunk))
    return failure();
  auto lanesAttr = k.config.getAs<IntegerAttr>("lanes");
  Operation *op = tiledContraction(k.kernel);
  if (!op)
    return k.kernel.emitError()
           << "expects one float matmul or direct convolution with groups 1 "
              "(f32 accumulation) feeding elementwise ops on its shape but "
              "got "
           << k.kernel.getFunctionType();
  GemmView view = *GemmView::get(op);
  int64_t M = view.m, N = view.n, K = view.k;
  int64_t lanes = lanesAttr ? lanesAttr.getInt() : N;
  if (*rows > 8 || lanes < N || lanes > 2 * N + 32 ||
      (*chunk > 1 &&
       (K % *chunk || !view.copiesChunks(/*isA=*/true, *chunk))))
    return k.kernel.emitError()
           << "expects contraction_thread rows <= 8, lanes from N = " << N
           << " to 2N + 32, and a chunk of 1, or of 16 bytes of an A "
              "operand contiguous along K (GemmView), but got "
           << k.config;
  Type elt = cast<ShapedType>(view.result().getType()).getElementType();
  Type acc = ElementalEmitter::accumulatorType(op, elt);
  auto aType = cast<ShapedType>(view.aTensor().getType());
  Type aElt = aType.getElementType();
  int64_t batch = 1;
  for (int64_t s : view.batchShape)
    batch *= s;
  int64_t groups = (M + *rows - 1) / *rows;

  auto c = [&](int64_t v) { return indexConstant(b, loc, v); };
  auto [gid, stride] = globalThreadAndStride(b, loc);
  auto loop =
      scf::ForOp::create(b, loc, gid, c(batch * groups * lanes), stride);
  b.setInsertionPointToStart(loop.getBody());
  SmallVector<Value> t = ElementalEmitter::delinearize(
      b, loc, loop.getInductionVar(), {batch, groups, lanes});
  Value n = t[2];
  if (lanes > N) {
    // Lanes past N idle: a warp never straddles two groups of rows.
    auto active = scf::IfOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, n, c(N)),
        /*withElse=*/false);
    b.setInsertionPointToStart(&active.getThenRegion().front());
  }
  SmallVector<Value> batchIndex =
      ElementalEmitter::delinearize(b, loc, t[0], view.batchShape);
  Value m0 = arith::MulIOp::create(b, loc, t[1], c(*rows));
  SmallVector<Value> ms; // clamped into A: read, never stored past M
  for (int64_t j = 0; j < *rows; ++j)
    ms.push_back(arith::MinUIOp::create(
        b, loc, arith::AddIOp::create(b, loc, m0, c(j)), c(M - 1)));

  Value zero =
      arith::ConstantOp::create(b, loc, cast<TypedAttr>(b.getZeroAttr(acc)));
  auto kLoop = scf::ForOp::create(b, loc, c(0), c(K), c(*chunk),
                                  SmallVector<Value>(*rows, zero));
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(kLoop.getBody());
    Value k0 = kLoop.getInductionVar();
    // A: per row, `chunk` elements (one vector load) or one element.
    SmallVector<SmallVector<Value>> a;
    for (Value m : ms) {
      SmallVector<Value> &elems = a.emplace_back();
      if (*chunk == 1) {
        FailureOr<Value> x = emitGemmOperand(k.elements, b, loc, view,
                                             /*isA=*/true, batchIndex, m, k0);
        if (failed(x))
          return failure();
        elems.push_back(*x);
        continue;
      }
      IRArith ar{b, loc};
      GemmAccess<Value> at = view.a(ar, batchIndex, m, k0);
      Value buffer = k.elements.getArgBuffers()[GemmView::chunkSource(
                                                    view.aTensor())
                                                    .getArgNumber()];
      Value linear =
          ElementalEmitter::linearize(b, loc, at.index, aType.getShape());
      Type memElt = cast<MemRefType>(buffer.getType()).getElementType();
      auto vecType = VectorType::get({*chunk}, memElt);
      auto load = vector::LoadOp::create(b, loc, vecType, buffer,
                                         ValueRange{linear});
      // copiesChunks: chunks start at multiples of `chunk` elements of 16
      // / chunk bytes (and buffers are 16-byte aligned).
      load->setAttr("alignment", b.getI64IntegerAttr(16));
      Value vec = load;
      if (at.valid)
        vec = arith::SelectOp::create(
            b, loc, *at.valid, vec,
            arith::ConstantOp::create(b, loc, vecType,
                                      cast<TypedAttr>(b.getZeroAttr(vecType))));
      for (int64_t i = 0; i < *chunk; ++i)
        elems.push_back(vector::ExtractOp::create(b, loc, vec, i));
    }
    SmallVector<Value> sums(kLoop.getRegionIterArgs());
    for (int64_t i = 0; i < *chunk; ++i) {
      Value ki = i ? arith::AddIOp::create(b, loc, k0, c(i)).getResult() : k0;
      FailureOr<Value> y = emitGemmOperand(k.elements, b, loc, view,
                                           /*isA=*/false, batchIndex, ki, n);
      if (failed(y))
        return failure();
      Value yb = lowering::emitCast(b, loc, *y, elemental::elementOf(view.bTensor()), acc);
      for (int64_t j = 0; j < *rows; ++j) {
        Value x = lowering::emitCast(b, loc, a[j][i], aElt, acc);
        Value p = arith::MulFOp::create(b, loc, x, yb);
        sums[j] = arith::AddFOp::create(b, loc, sums[j], p);
      }
    }
    scf::YieldOp::create(b, loc, sums);
  }
  // Code the emitter cached inside the K loop does not dominate the
  // epilogue.
  k.elements.clearCache();

  for (int64_t j = 0; j < *rows; ++j) {
    OpBuilder::InsertionGuard guard(b);
    Value m = arith::AddIOp::create(b, loc, m0, c(j));
    auto store = scf::IfOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, m, c(M)),
        /*withElse=*/false);
    b.setInsertionPointToStart(&store.getThenRegion().front());
    if (failed(emitContractionEpilogue(b, loc, k, view, kLoop.getResult(j),
                                       batchIndex, m, n)))
      return failure();
  }
  b.setInsertionPointAfter(loop);
  return success();
}
