//===- LoopKernels.cpp - Loop and thread-per-output CUDA kernels ----------===//
//
// Both drivers walk output elements with a grid-stride loop, so the grid
// can be sized to the chip rather than to the tensor. The loop driver gives
// each thread `vector` consecutive elements per iteration and stores them
// with one aligned vector store (st.global.v4 for f32); the loads of
// same-shaped inputs are consecutive too, which bwc-vectorize-gpu-loads
// merges. A kernel around one convolution (loopGroupedConv: a depthwise
// one channels-last, bwc-tile's candidate) computes the group's `vector`
// consecutive channels in one loop nest, so each tap's input and filter
// loads are consecutive too.
//
//===----------------------------------------------------------------------===//
#include "bwc/Conversion/BWCToLinalg/ScalarOps.h"
#include "KernelEmitters.h"

#include "bwc/Analysis/KernelFit.h"
#include "bwc/Dialect/BWC/IR/BWCOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::bwc;
using namespace mlir::bwc::cuda;

FailureOr<int64_t> cuda::configField(func::FuncOp kernel,
                                     DictionaryAttr config, StringRef name) {
  auto v = config ? config.getAs<IntegerAttr>(name) : IntegerAttr();
  if (!v || v.getInt() < 1)
    return kernel.emitError() << "expects a positive '" << name
                              << "' in bwc.config but got " << config,
           failure();
  return v.getInt();
}

Value cuda::indexConstant(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

scf::ForOp cuda::blockStrideLoop(OpBuilder &b, Location loc, int64_t count) {
  Value bid = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value grid = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
  auto loop =
      scf::ForOp::create(b, loc, bid, indexConstant(b, loc, count), grid);
  b.setInsertionPointToStart(loop.getBody());
  return loop;
}

FailureOr<SmallVector<Value>>
cuda::guarded(OpBuilder &b, Location loc, Value inRange, ValueRange fallback,
              function_ref<FailureOr<SmallVector<Value>>()> body) {
  OpBuilder::InsertionGuard guard(b);
  if (fallback.empty()) { // stores only: the builder adds the terminator
    auto ifOp = scf::IfOp::create(b, loc, inRange, /*withElse=*/false);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    return body();
  }
  auto ifOp = scf::IfOp::create(b, loc, fallback.getTypes(), inRange,
                                /*withElse=*/true);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  FailureOr<SmallVector<Value>> inside = body();
  if (failed(inside))
    return failure();
  scf::YieldOp::create(b, loc, *inside);
  b.setInsertionPointToStart(&ifOp.getElseRegion().front());
  scf::YieldOp::create(b, loc, fallback);
  return SmallVector<Value>(ifOp.getResults());
}

std::pair<Value, Value> cuda::globalThreadAndStride(OpBuilder &b,
                                                    Location loc) {
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value bid = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value bdim = gpu::BlockDimOp::create(b, loc, gpu::Dimension::x);
  Value gdim = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
  Value gid = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, bid, bdim), tid);
  return {gid, arith::MulIOp::create(b, loc, gdim, bdim)};
}

namespace {

int64_t numElements(Value v) {
  return cast<ShapedType>(v.getType()).getNumElements();
}

/// The kernel's returned values, in output-buffer order.
ValueRange returnedValues(func::FuncOp kernel) {
  return kernel.getBody().front().getTerminator()->getOperands();
}

} // namespace

LogicalResult cuda::emitLoopKernel(OpBuilder &b, KernelContext &k) {
  Location loc = k.kernel.getLoc();
  FailureOr<int64_t> vector = k.field("vector");
  if (failed(vector))
    return failure();
  ValueRange results = returnedValues(k.kernel);
  int64_t n = numElements(results.front());
  for (Value r : results)
    if (numElements(r) != n || n % *vector)
      return k.kernel.emitError()
             << "expects results of " << n << " elements, a multiple of "
             << "the vector width " << *vector << ", but got "
             << numElements(r);
  auto [gid, stride] = globalThreadAndStride(b, loc);
  Value groups = indexConstant(b, loc, n / *vector);
  auto loop = scf::ForOp::create(b, loc, gid, groups, stride);
  b.setInsertionPointToStart(loop.getBody());
  Value base = arith::MulIOp::create(b, loc, loop.getInductionVar(),
                                     indexConstant(b, loc, *vector));
  // Every output's elements are computed before any is stored: a result
  // written in place over an input (bwc.inplace) must not be stored while
  // another output still reads that input at the same positions.
  SmallVector<SmallVector<Value>> computed(results.size());
  if (ConvOp conv = *vector > 1 ? loopGroupedConv(k.kernel, *vector)
                                : ConvOp()) {
    // The group's outputs are one position's `vector` consecutive
    // innermost elements (the innermost dimension is a multiple of the
    // width): the index of the group's first, its innermost term
    // group x vector (a known multiple of the width, for
    // bwc-vectorize-gpu-loads), then + j. The convolution is computed for
    // all of them in one loop nest and bound per output.
    SmallVector<int64_t> shape(conv.getType().getShape());
    shape.back() /= *vector;
    SmallVector<Value> first = ElementalEmitter::delinearize(
        b, loc, loop.getInductionVar(), shape);
    first.back() = arith::MulIOp::create(b, loc, first.back(),
                                         indexConstant(b, loc, *vector));
    SmallVector<SmallVector<Value>> indices;
    for (int64_t j = 0; j < *vector; ++j) {
      SmallVector<Value> &idx = indices.emplace_back(first);
      if (j)
        idx.back() = arith::AddIOp::create(b, loc, first.back(),
                                           indexConstant(b, loc, j));
    }
    FailureOr<SmallVector<Value>> values =
        k.elements.emitGroup(b, loc, conv.getResult(), indices);
    if (failed(values))
      return failure();
    for (auto [idx, v] : llvm::zip(indices, *values)) {
      k.elements.bindValue(conv.getResult(), v);
      for (auto [value, scalars] : llvm::zip(results, computed)) {
        FailureOr<Value> s = k.elements.emit(b, loc, value, idx);
        if (failed(s))
          return failure();
        scalars.push_back(*s);
      }
      k.elements.unbindValue(conv.getResult());
      // Code cached for this output saw its binding.
      k.elements.clearCache();
    }
  } else {
    SmallVector<Value> positions;
    for (int64_t j = 0; j < *vector; ++j)
      positions.push_back(
          j ? arith::AddIOp::create(b, loc, base, indexConstant(b, loc, j))
                  .getResult()
            : base);
    for (auto [value, scalars] : llvm::zip(results, computed))
      for (Value p : positions) {
        FailureOr<Value> s = k.elements.emitLinear(b, loc, value, p);
        if (failed(s))
          return failure();
        scalars.push_back(*s);
      }
  }
  for (auto [scalars, buffer] : llvm::zip(computed, k.outputs)) {
    if (*vector == 1) {
      memref::StoreOp::create(b, loc, scalars.front(), buffer, base);
      continue;
    }
    Type element = scalars.front().getType();
    auto vecType = VectorType::get({*vector}, element);
    Value vec = vector::FromElementsOp::create(b, loc, vecType, scalars);
    auto store = vector::StoreOp::create(b, loc, vec, buffer, ValueRange{base});
    // Buffers are 16-byte aligned (docs/targets/cuda.md), groups start at
    // multiples of the vector width.
    store->setAttr("alignment",
                   b.getI64IntegerAttr(*vector *
                                       std::max<int64_t>(
                                           1, element.getIntOrFloatBitWidth() /
                                                  8)));
  }
  b.setInsertionPointAfter(loop);
  k.elements.clearCache();
  return success();
}

LogicalResult cuda::emitThreadPerOutputKernel(OpBuilder &b, KernelContext &k) {
  Location loc = k.kernel.getLoc();
  ValueRange results = returnedValues(k.kernel);
  int64_t n = 0;
  for (Value r : results)
    n = std::max(n, numElements(r));
  auto [gid, stride] = globalThreadAndStride(b, loc);
  auto loop = scf::ForOp::create(b, loc, gid, indexConstant(b, loc, n), stride);
  b.setInsertionPointToStart(loop.getBody());
  Value i = loop.getInductionVar();
  // As in the loop emitter, every output is computed before any is stored
  // (an output in place over an input another output reads).
  auto inside = [&](Value value) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, i,
                                 indexConstant(b, loc, numElements(value)));
  };
  SmallVector<Value> computed;
  for (Value value : results) {
    if (numElements(value) == n) {
      FailureOr<Value> s = k.elements.emitLinear(b, loc, value, i);
      if (failed(s))
        return failure();
      computed.push_back(*s);
      continue;
    }
    // A shorter output: its element where it exists, a zero elsewhere
    // (never stored).
    // Kernel scalars are signless (ui8 computes as i8).
    Type element = lowering::signlessType(
        cast<ShapedType>(value.getType()).getElementType());
    auto guarded = scf::IfOp::create(b, loc, TypeRange{element}, inside(value),
                                     /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&guarded.getThenRegion().front());
      FailureOr<Value> s = k.elements.emitLinear(b, loc, value, i);
      if (failed(s))
        return failure();
      scf::YieldOp::create(b, loc, *s);
      b.setInsertionPointToStart(&guarded.getElseRegion().front());
      scf::YieldOp::create(
          b, loc,
          arith::ConstantOp::create(b, loc, cast<TypedAttr>(b.getZeroAttr(element)))
              .getResult());
    }
    // Code cached inside the guard does not dominate the next output.
    k.elements.clearCache();
    computed.push_back(guarded.getResult(0));
  }
  for (auto [value, s, buffer] : llvm::zip(results, computed, k.outputs)) {
    OpBuilder::InsertionGuard guard(b);
    if (numElements(value) != n) {
      auto store = scf::IfOp::create(b, loc, inside(value), /*withElse=*/false);
      b.setInsertionPointToStart(&store.getThenRegion().front());
    }
    memref::StoreOp::create(b, loc, s, buffer, i);
  }
  b.setInsertionPointAfter(loop);
  k.elements.clearCache();
  return success();
}
