//===- ReductionEmitter.cpp - Elements of bwc.reduce and bwc.arg_reduce ---===//
//
// One output element is a sequential scf.for nest over the reduced
// positions. sum/mean/prod accumulate in ElementalEmitter::accumulatorType
// (f32 for f16/bf16, or the op's `acc_type`) and round once; max/min are
// exact in the element type. Reducing zero elements gives the identity
// (mean: NaN for floats as 0/0, 0 for integers). arg_reduce keeps the first
// (or with select_last_index the last) extreme index; a NaN wins as in
// numpy, like the linalg lowering.
//
//===----------------------------------------------------------------------===//
#include "Emitters.h"

#include "bwc/Conversion/BWCToLinalg/ScalarOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::bwc;
using namespace mlir::bwc::elemental;

SmallVector<Value> ElementalEmitter::reduceInputIndex(OpBuilder &b,
                                                      Location loc,
                                                      Operation *reduce,
                                                      ValueRange outIndex,
                                                      ValueRange reducedIndex) {
  auto op = cast<ReduceOp>(reduce);
  ArrayRef<int64_t> axes = op.getAxes();
  int64_t rank = shapeOf(op.getInput()).size();
  SmallVector<Value> in;
  unsigned kept = 0, reduced = 0;
  for (int64_t d = 0; d < rank; ++d) {
    if (llvm::is_contained(axes, d)) {
      in.push_back(reducedIndex[reduced++]);
      if (op.getKeepdims())
        ++kept;
    } else {
      in.push_back(outIndex[kept++]);
    }
  }
  return in;
}

namespace {

struct Combiner {
  BinaryFn fn;
  TypedAttr identity;
};

/// The accumulator type, the combining function and its identity, and the
/// element type the combining function sees (floats: the accumulator;
/// integers keep the signedness of the bwc type).
struct ReduceParts {
  Type elt, acc, fnElt;
  Combiner combiner;
  bool exact;
};

Combiner combinerOf(ReduceKind kind, Type acc, Type elt, Builder &b) {
  switch (kind) {
  case ReduceKind::sum:
  case ReduceKind::mean:
    return {BinaryFn::add, cast<TypedAttr>(b.getZeroAttr(acc))};
  case ReduceKind::prod:
    return {BinaryFn::mul, isa<FloatType>(acc)
                               ? TypedAttr(b.getFloatAttr(acc, 1.0))
                               : TypedAttr(b.getIntegerAttr(acc, 1))};
  case ReduceKind::max:
    return {BinaryFn::max, lowering::extremeAttr(acc, elt, false)};
  case ReduceKind::min:
    return {BinaryFn::min, lowering::extremeAttr(acc, elt, true)};
  }
  return {BinaryFn::add, TypedAttr()};
}

ReduceParts partsOf(ReduceOp op, Builder &b) {
  ReduceParts p;
  p.elt = elementOf(op.getInput());
  p.exact =
      op.getKind() == ReduceKind::max || op.getKind() == ReduceKind::min;
  p.acc = p.exact ? lowering::signlessType(p.elt)
                  : ElementalEmitter::accumulatorType(op, p.elt);
  p.fnElt = isa<FloatType>(p.acc) ? p.acc : p.elt;
  p.combiner = combinerOf(op.getKind(), p.acc, p.elt, b);
  return p;
}

} // namespace

Value ElementalEmitter::reduceIdentity(OpBuilder &b, Location loc,
                                       Operation *reduce) {
  return arith::ConstantOp::create(
      b, loc, partsOf(cast<ReduceOp>(reduce), b).combiner.identity);
}

FailureOr<Value> ElementalEmitter::reduceElement(OpBuilder &b, Location loc,
                                                 Operation *reduce,
                                                 ValueRange outIndex,
                                                 ValueRange reducedIndex) {
  auto op = cast<ReduceOp>(reduce);
  ReduceParts p = partsOf(op, b);
  FailureOr<Value> x =
      emit(b, loc, op.getInput(),
           reduceInputIndex(b, loc, op, outIndex, reducedIndex));
  if (failed(x))
    return failure();
  return lowering::emitCast(b, loc, *x, p.elt, p.acc);
}

Value ElementalEmitter::reduceCombine(OpBuilder &b, Location loc,
                                      Operation *reduce, Value lhs,
                                      Value rhs) {
  ReduceParts p = partsOf(cast<ReduceOp>(reduce), b);
  return lowering::emitBinary(b, loc, p.combiner.fn, lhs, rhs, p.fnElt);
}

Value ElementalEmitter::reduceFinish(OpBuilder &b, Location loc,
                                     Operation *reduce, Value acc) {
  auto op = cast<ReduceOp>(reduce);
  ReduceParts p = partsOf(op, b);
  int64_t count = 1;
  for (int64_t a : op.getAxes())
    count *= shapeOf(op.getInput())[a];
  if (op.getKind() == ReduceKind::mean &&
      (count != 0 || isa<FloatType>(p.acc)))
    acc = lowering::emitBinary(b, loc, BinaryFn::div, acc,
                               lowering::emitConstant(b, loc, p.acc, count),
                               p.fnElt);
  return p.exact ? acc : lowering::emitCast(b, loc, acc, p.acc, p.elt);
}

namespace {

FailureOr<Value> reduce(ElementalEmitter &e, OpBuilder &b, Location loc,
                        ReduceOp op, ValueRange index) {
  if (op.getAxes().empty())
    return e.emit(b, loc, op.getInput(), index);
  SmallVector<int64_t> sizes;
  for (int64_t a : op.getAxes())
    sizes.push_back(shapeOf(op.getInput())[a]);
  FailureOr<SmallVector<Value>> r = buildLoops(
      b, loc, sizes, e.reduceIdentity(b, loc, op),
      [&](OpBuilder &nb, Location l, ValueRange ivs,
          ValueRange iters) -> FailureOr<SmallVector<Value>> {
        FailureOr<Value> x = e.reduceElement(nb, l, op, index, ivs);
        if (failed(x))
          return failure();
        return SmallVector<Value>{e.reduceCombine(nb, l, op, iters[0], *x)};
      });
  if (failed(r))
    return failure();
  return e.reduceFinish(b, loc, op, (*r)[0]);
}

FailureOr<Value> argReduce(ElementalEmitter &e, OpBuilder &b, Location loc,
                           ArgReduceOp op, ValueRange index) {
  Type elt = elementOf(op.getInput());
  Type t = lowering::signlessType(elt);
  int64_t axis = op.getAxis();
  bool isMax = op.getKind() == ArgReduceKind::argmax;
  bool last = op.getSelectLastIndex();
  Value bestInit = arith::ConstantOp::create(
      b, loc, lowering::extremeAttr(t, elt, /*largest=*/!isMax));
  Value indexInit = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(0));
  FailureOr<SmallVector<Value>> r = buildLoops(
      b, loc, shapeOf(op.getInput())[axis], ValueRange{bestInit, indexInit},
      [&](OpBuilder &nb, Location l, ValueRange ivs,
          ValueRange iters) -> FailureOr<SmallVector<Value>> {
        SmallVector<Value> in(index);
        if (op.getKeepdims())
          in[axis] = ivs[0];
        else
          in.insert(in.begin() + axis, ivs[0]);
        FailureOr<Value> x = e.emit(nb, l, op.getInput(), in);
        if (failed(x))
          return failure();
        Value best = iters[0];
        BinaryFn fn = isMax ? (last ? BinaryFn::ge : BinaryFn::gt)
                            : (last ? BinaryFn::le : BinaryFn::lt);
        Value better = lowering::emitBinary(nb, l, fn, *x, best, elt);
        if (isa<FloatType>(t)) {
          using P = arith::CmpFPredicate;
          Value xNaN = arith::CmpFOp::create(nb, l, P::UNO, *x, *x);
          if (!last)
            xNaN = arith::AndIOp::create(
                nb, l, xNaN, arith::CmpFOp::create(nb, l, P::ORD, best, best));
          better = arith::OrIOp::create(nb, l, better, xNaN);
        }
        Value i = arith::IndexCastOp::create(nb, l, nb.getI64Type(), ivs[0]);
        return SmallVector<Value>{
            arith::SelectOp::create(nb, l, better, *x, best),
            arith::SelectOp::create(nb, l, better, i, iters[1])};
      });
  if (failed(r))
    return failure();
  return (*r)[1];
}

} // namespace

FailureOr<Value> elemental::emitReduction(ElementalEmitter &e, OpBuilder &b,
                                          Location loc, Operation *op,
                                          ValueRange index) {
  if (auto r = dyn_cast<ReduceOp>(op))
    return reduce(e, b, loc, r, index);
  return argReduce(e, b, loc, cast<ArgReduceOp>(op), index);
}
