//===- ElementalKernels.cpp - CPU kernels from the elemental emitter ------===//
//
// The CPU elemental driver: it decides the iteration, the ElementalEmitter
// computes each element. Its structure is the one a GPU emitter uses with
// threads instead of loops:
//   - "elements": for each output shape, a loop nest over the elements,
//     each output of that shape stored from emit(output, index) (a GPU maps
//     the linear element index to threads);
//   - "rows": a kernel whose bwc.reduce ops share one input shape and axes
//     (the `reduction` fusion kind) loops over rows (output elements of
//     the reductions); per row, each reduction in program order is a loop
//     over the reduced positions (reduceElement/reduceCombine, a block-wide
//     reduction on a GPU) whose result is bound (bindValue) for the rest of
//     the row; then the per-row outputs and the full-size outputs (a loop
//     over the row's positions) are stored.
//
//===----------------------------------------------------------------------===//
#include "bwc/Target/CPU/ElementalKernels.h"
#include "bwc/Analysis/KernelFit.h"
#include "bwc/Conversion/BWCToLinalg/ScalarOps.h"
#include "bwc/Conversion/Passes.h"
#include "bwc/Dialect/BWC/IR/BWCOps.h"
#include "bwc/Target/Elemental/ElementalEmitter.h"
#include "bwc/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::bwc {
#define GEN_PASS_DEF_EMITELEMENTALKERNELSPASS
#include "bwc/Conversion/Passes.h.inc"
} // namespace mlir::bwc

using namespace mlir;
using namespace mlir::bwc;

namespace {

using Loops = FailureOr<SmallVector<Value>>;

/// A perfect scf.for nest over `shape` (no iteration values); `body` gets
/// the induction variables.
LogicalResult
loopNest(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
         function_ref<LogicalResult(OpBuilder &, ValueRange)> body) {
  SmallVector<Value> lbs, ubs, steps;
  for (int64_t d : shape) {
    lbs.push_back(arith::ConstantIndexOp::create(b, loc, 0));
    ubs.push_back(arith::ConstantIndexOp::create(b, loc, d));
    steps.push_back(arith::ConstantIndexOp::create(b, loc, 1));
  }
  LogicalResult result = success();
  scf::buildLoopNest(b, loc, lbs, ubs, steps,
                     [&](OpBuilder &nb, Location, ValueRange ivs) {
                       if (failed(body(nb, ivs)))
                         result = failure();
                     });
  return result;
}

LogicalResult store(ElementalEmitter &e, OpBuilder &b, Location loc,
                    Value value, ValueRange index, Value buffer, Value linear) {
  FailureOr<Value> v = e.emit(b, loc, value, index);
  if (failed(v))
    return failure();
  memref::StoreOp::create(b, loc, *v, buffer, linear);
  return success();
}

int64_t numElements(Value v) {
  return cast<RankedTensorType>(v.getType()).getNumElements();
}
ArrayRef<int64_t> shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

/// "elements": one loop nest per distinct output shape.
LogicalResult emitElements(ElementalEmitter &e, OpBuilder &b, Location loc,
                           ValueRange results, ValueRange outs) {
  SmallVector<bool> done(results.size(), false);
  for (size_t i = 0; i < results.size(); ++i) {
    if (done[i])
      continue;
    ArrayRef<int64_t> shape = shapeOf(results[i]);
    LogicalResult r =
        loopNest(b, loc, shape, [&](OpBuilder &nb, ValueRange ivs) {
          Value linear = ElementalEmitter::linearize(nb, loc, ivs, shape);
          for (size_t j = i; j < results.size(); ++j) {
            if (done[j] || shapeOf(results[j]) != shape)
              continue;
            if (failed(store(e, nb, loc, results[j], ivs, outs[j], linear)))
              return failure();
          }
          return success();
        });
    for (size_t j = i; j < results.size(); ++j)
      done[j] = done[j] || shapeOf(results[j]) == shape;
    e.clearCache();
    if (failed(r))
      return failure();
  }
  return success();
}

/// The reductions of `kernel` when they share one row structure and every
/// result is per-row or full-size; empty otherwise.
SmallVector<ReduceOp> rowReductions(func::FuncOp kernel, ValueRange results) {
  SmallVector<ReduceOp> reduces;
  kernel.walk([&](ReduceOp r) {
    if (!r.getAxes().empty())
      reduces.push_back(r);
  });
  if (reduces.empty())
    return {};
  ReduceOp first = reduces.front();
  for (ReduceOp r : reduces)
    if (r.getInput().getType() != first.getInput().getType() ||
        r.getAxes() != first.getAxes())
      return {};
  int64_t rows = numElements(first.getResult());
  for (Value v : results)
    if (numElements(v) != rows && shapeOf(v) != shapeOf(first.getInput()))
      return {};
  // A value computed from a reduction through a slice, transpose, reshape
  // or anything else that moves elements between rows would read another
  // row's bound value: such kernels take "elements".
  if (!reductionValuesStayInRow(kernel, reduces))
    return {};
  return reduces;
}

/// "rows": see the file comment.
LogicalResult emitRows(ElementalEmitter &e, OpBuilder &b, Location loc,
                       ArrayRef<ReduceOp> reduces, ValueRange results,
                       ValueRange outs) {
  ReduceOp first = reduces.front();
  ArrayRef<int64_t> inShape = shapeOf(first.getInput());
  int64_t rows = numElements(first.getResult());
  SmallVector<int64_t> rowShape;
  for (int64_t a : first.getAxes())
    rowShape.push_back(inShape[a]);
  return loopNest(b, loc, {rows}, [&](OpBuilder &nb, ValueRange row) {
    Value r = row[0];
    for (ReduceOp reduce : reduces) {
      SmallVector<Value> outIndex = ElementalEmitter::delinearize(
          nb, loc, r, reduce.getType().getShape());
      Value init = e.reduceIdentity(nb, loc, reduce);
      SmallVector<Value> lbs, ubs, steps;
      for (int64_t d : rowShape) {
        lbs.push_back(arith::ConstantIndexOp::create(nb, loc, 0));
        ubs.push_back(arith::ConstantIndexOp::create(nb, loc, d));
        steps.push_back(arith::ConstantIndexOp::create(nb, loc, 1));
      }
      bool failedElement = false;
      scf::LoopNest nest = scf::buildLoopNest(
          nb, loc, lbs, ubs, steps, ValueRange{init},
          [&](OpBuilder &ib, Location l, ValueRange ivs, ValueRange acc) {
            FailureOr<Value> x = e.reduceElement(ib, l, reduce, outIndex, ivs);
            if (failed(x)) {
              failedElement = true;
              return scf::ValueVector{acc[0]};
            }
            return scf::ValueVector{e.reduceCombine(ib, l, reduce, acc[0], *x)};
          });
      if (failedElement)
        return failure();
      Value acc = rowShape.empty() ? init : nest.results[0];
      e.bindValue(reduce.getResult(), e.reduceFinish(nb, loc, reduce, acc));
    }
    SmallVector<Value> rowOutIndex =
        ElementalEmitter::delinearize(nb, loc, r, first.getType().getShape());
    for (auto [v, out] : llvm::zip(results, outs)) {
      if (numElements(v) != rows)
        continue;
      if (failed(store(e, nb, loc, v,
                       ElementalEmitter::delinearize(nb, loc, r, shapeOf(v)),
                       out, r)))
        return failure();
    }
    LogicalResult full =
        loopNest(nb, loc, rowShape, [&](OpBuilder &ib, ValueRange ivs) {
          SmallVector<Value> index =
              e.reduceInputIndex(ib, loc, first, rowOutIndex, ivs);
          Value linear = ElementalEmitter::linearize(ib, loc, index, inShape);
          for (auto [v, out] : llvm::zip(results, outs))
            if (numElements(v) != rows &&
                failed(store(e, ib, loc, v, index, out, linear)))
              return failure();
          return success();
        });
    for (ReduceOp reduce : reduces)
      e.unbindValue(reduce.getResult());
    e.clearCache();
    return full;
  });
}

} // namespace

LogicalResult mlir::bwc::emitElementalKernel(func::FuncOp kernel,
                                             bool convViaGemm) {
  if (kernel.isExternal())
    return kernel.emitError() << "expects a kernel with a body";
  FunctionType type = kernel.getFunctionType();
  SmallVector<Type> argTypes;
  for (Type t : llvm::concat<const Type>(type.getInputs(), type.getResults())) {
    auto rt = dyn_cast<RankedTensorType>(t);
    if (!rt || !rt.hasStaticShape())
      return kernel.emitError()
             << "expects a kernel on statically shaped tensors but got " << t;
    argTypes.push_back(MemRefType::get(
        {rt.getNumElements()}, lowering::signlessType(rt.getElementType())));
  }
  auto ret = cast<func::ReturnOp>(kernel.getBody().front().getTerminator());
  Location loc = kernel.getLoc();
  OpBuilder b(kernel);
  auto fn = func::FuncOp::create(b, loc, kernel.getSymName(),
                                 b.getFunctionType(argTypes, {}));
  fn->setAttrs(kernel->getAttrs());
  fn.setFunctionType(b.getFunctionType(argTypes, {}));
  Block *entry = fn.addEntryBlock();
  b.setInsertionPointToStart(entry);
  unsigned numInputs = type.getNumInputs();
  ElementalEmitter e(kernel, entry->getArguments().take_front(numInputs));
  e.setConvViaGemm(convViaGemm);
  ValueRange outs = entry->getArguments().drop_front(numInputs);
  SmallVector<Value> results(ret.getOperands());
  SmallVector<ReduceOp> reduces = rowReductions(kernel, results);
  LogicalResult r = reduces.empty()
                        ? emitElements(e, b, loc, results, outs)
                        : emitRows(e, b, loc, reduces, results, outs);
  if (failed(r)) {
    fn.erase();
    return failure();
  }
  func::ReturnOp::create(b, loc);
  fn->setAttr("bwc.elemental",
              b.getStringAttr(reduces.empty() ? "elements" : "rows"));
  kernel.erase();
  return success();
}

namespace {

struct EmitElementalKernelsPass
    : public bwc::impl::EmitElementalKernelsPassBase<EmitElementalKernelsPass> {
  using EmitElementalKernelsPassBase::EmitElementalKernelsPassBase;

  void runOnOperation() override {
    SmallVector<func::FuncOp> kernels;
    for (auto f : getOperation().getOps<func::FuncOp>())
      if (f->hasAttr(kKernelAttrName))
        kernels.push_back(f);
    for (func::FuncOp k : kernels)
      if (failed(emitElementalKernel(k, convViaGemm)))
        return signalPassFailure();
    if (!polynomialMath)
      return;
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
