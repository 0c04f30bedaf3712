//===- LoopKernels.cpp - Loop and thread-per-output CUDA kernels ----------===//
//
// Both drivers walk output elements with a grid-stride loop, so the grid
// can be sized to the chip rather than to the tensor. The loop driver gives
// each thread `vector` consecutive elements per iteration and stores them
// with one aligned vector store (st.global.v4 for f32); the loads of
// same-shaped inputs are consecutive too, which LLVM's load/store
// vectorizer merges.
//
//===----------------------------------------------------------------------===//
#include "KernelEmitters.h"

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
  SmallVector<Value> positions;
  for (int64_t j = 0; j < *vector; ++j)
    positions.push_back(
        j ? arith::AddIOp::create(b, loc, base, indexConstant(b, loc, j))
                .getResult()
          : base);
  for (auto [value, buffer] : llvm::zip(results, k.outputs)) {
    SmallVector<Value> scalars;
    for (Value p : positions) {
      FailureOr<Value> s = k.elements.emitLinear(b, loc, value, p);
      if (failed(s))
        return failure();
      scalars.push_back(*s);
    }
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
  for (auto [value, buffer] : llvm::zip(results, k.outputs)) {
    OpBuilder::InsertionGuard guard(b);
    if (numElements(value) != n) {
      Value inside = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::ult, i,
          indexConstant(b, loc, numElements(value)));
      auto guarded = scf::IfOp::create(b, loc, inside, /*withElse=*/false);
      b.setInsertionPointToStart(&guarded.getThenRegion().front());
    }
    FailureOr<Value> s = k.elements.emitLinear(b, loc, value, i);
    if (failed(s))
      return failure();
    memref::StoreOp::create(b, loc, *s, buffer, i);
    // Code cached inside the guard does not dominate the next output.
    k.elements.clearCache();
  }
  b.setInsertionPointAfter(loop);
  k.elements.clearCache();
  return success();
}
