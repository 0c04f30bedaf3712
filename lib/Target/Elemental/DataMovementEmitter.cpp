//===- DataMovementEmitter.cpp - Elements of data movement bwc ops --------===//
//
// transpose, reshape, slice, concat, pad, gather and resize are index
// arithmetic on one operand element. No load ever reads outside an
// operand: concat and constant pad branch (scf.if) so that only the operand
// the element lies in is read; gather clamps its index into the axis (ONNX
// calls an out-of-range index an error that cannot be checked at compile
// time; a bad index reads the nearest edge element, as the linalg lowering
// does); reflect/edge pad and resize clamp their source indices.
//
//===----------------------------------------------------------------------===//
#include "Emitters.h"

#include "bwc/Conversion/BWCToLinalg/ScalarOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::bwc;
using namespace mlir::bwc::elemental;

namespace {

using Emitted = FailureOr<Value>;

Value add(OpBuilder &b, Location loc, Value x, int64_t c) {
  return b.createOrFold<arith::AddIOp>(loc, x, indexConst(b, loc, c));
}
Value mul(OpBuilder &b, Location loc, Value x, int64_t c) {
  return b.createOrFold<arith::MulIOp>(loc, x, indexConst(b, loc, c));
}

/// `scf.if cond { then() } else { otherwise() }` yielding one scalar of
/// type `t`.
Emitted branch(OpBuilder &b, Location loc, Value cond, Type t,
               function_ref<Emitted(OpBuilder &)> then,
               function_ref<Emitted(OpBuilder &)> otherwise) {
  auto ifOp = scf::IfOp::create(b, loc, TypeRange{t}, cond,
                                /*withElseRegion=*/true);
  OpBuilder tb = ifOp.getThenBodyBuilder();
  Emitted x = then(tb);
  if (failed(x))
    return failure();
  scf::YieldOp::create(tb, loc, *x);
  OpBuilder eb = ifOp.getElseBodyBuilder();
  Emitted y = otherwise(eb);
  if (failed(y))
    return failure();
  scf::YieldOp::create(eb, loc, *y);
  return ifOp.getResult(0);
}

Emitted transpose(ElementalEmitter &e, OpBuilder &b, Location loc,
                  TransposeOp op, ValueRange index) {
  SmallVector<Value> in(index.size());
  for (auto [i, p] : llvm::enumerate(op.getPerm()))
    in[p] = index[i];
  return e.emit(b, loc, op.getInput(), in);
}

Emitted reshape(ElementalEmitter &e, OpBuilder &b, Location loc, ReshapeOp op,
                ValueRange index) {
  Value linear =
      ElementalEmitter::linearize(b, loc, index, op.getType().getShape());
  return e.emitLinear(b, loc, op.getInput(), linear);
}

Emitted slice(ElementalEmitter &e, OpBuilder &b, Location loc, SliceOp op,
              ValueRange index) {
  SmallVector<Value> in;
  for (auto [i, start, step] :
       llvm::zip(index, op.getStarts(), op.getSteps()))
    in.push_back(add(b, loc, mul(b, loc, i, step), start));
  return e.emit(b, loc, op.getInput(), in);
}

/// The inputs from `first` on; the element lies in one of them.
Emitted concatFrom(ElementalEmitter &e, OpBuilder &b, Location loc,
                   ConcatOp op, ValueRange index, unsigned first,
                   int64_t offset) {
  int64_t axis = op.getAxis();
  auto inputs = op.getInputs();
  // Empty inputs own no element.
  while (first + 1 < inputs.size() && shapeOf(inputs[first])[axis] == 0)
    ++first;
  Value input = inputs[first];
  auto at = [&](OpBuilder &nb) {
    SmallVector<Value> in(index);
    in[axis] = add(nb, loc, index[axis], -offset);
    return e.emit(nb, loc, input, in);
  };
  int64_t end = offset + shapeOf(input)[axis];
  if (first + 1 == inputs.size())
    return at(b);
  Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                       index[axis], indexConst(b, loc, end));
  return branch(b, loc, inside, lowering::signlessType(elementOf(input)), at,
                [&](OpBuilder &nb) {
                  return concatFrom(e, nb, loc, op, index, first + 1, end);
                });
}

Emitted pad(ElementalEmitter &e, OpBuilder &b, Location loc, PadOp op,
            ValueRange index) {
  ArrayRef<int64_t> pads = op.getPads(), in = shapeOf(op.getInput());
  int64_t rank = in.size();
  SmallVector<Value> src;
  if (op.getMode() != PadMode::constant) {
    bool reflect = op.getMode() == PadMode::reflect;
    for (int64_t d = 0; d < rank; ++d) {
      int64_t lo = pads[d], hi = pads[rank + d], len = in[d];
      if (lo == 0 && hi == 0) {
        src.push_back(index[d]);
        continue;
      }
      src.push_back(
          lowering::emitPadSourceIndex(b, loc, index[d], lo, len, reflect));
    }
    return e.emit(b, loc, op.getInput(), src);
  }
  auto value = dyn_cast<TypedAttr>(op.getValue());
  if (!value || !isa<IntegerAttr, FloatAttr>(value))
    return op.emitOpError() << "expects a scalar pad value but got "
                            << op.getValue();
  Type t = lowering::signlessType(elementOf(op.getResult()));
  Value inside;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t lo = pads[d];
    Value j = add(b, loc, index[d], -lo);
    src.push_back(j);
    if (lo == 0 && pads[rank + d] == 0)
      continue;
    // (unsigned) j < len also rejects j < 0.
    Value ok = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, j,
                                     indexConst(b, loc, in[d]));
    inside = inside ? arith::AndIOp::create(b, loc, inside, ok) : ok;
  }
  auto fill = [&](OpBuilder &nb) -> Emitted {
    if (auto i = dyn_cast<IntegerAttr>(value))
      return arith::ConstantOp::create(nb, loc, t,
                                       IntegerAttr::get(t, i.getValue()))
          .getResult();
    return arith::ConstantOp::create(nb, loc, value).getResult();
  };
  if (!inside)
    return e.emit(b, loc, op.getInput(), src);
  if (llvm::is_contained(in, 0))
    return fill(b);
  return branch(
      b, loc, inside, t,
      [&](OpBuilder &nb) { return e.emit(nb, loc, op.getInput(), src); }, fill);
}

Emitted gather(ElementalEmitter &e, OpBuilder &b, Location loc, GatherOp op,
               ValueRange index) {
  int64_t axis = op.getAxis();
  int64_t q = shapeOf(op.getIndices()).size();
  int64_t len = shapeOf(op.getData())[axis];
  if (len == 0)
    return op.emitOpError() << "expects a non-empty gather axis but got size 0";
  Emitted i = e.emit(b, loc, op.getIndices(), index.slice(axis, q));
  if (failed(i))
    return failure();
  Value j = arith::IndexCastOp::create(b, loc, b.getIndexType(), *i);
  Value isNeg = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, j,
                                      indexConst(b, loc, 0));
  j = arith::SelectOp::create(b, loc, isNeg, add(b, loc, j, len), j);
  SmallVector<Value> src(index.take_front(axis));
  src.push_back(clampIndex(b, loc, j, 0, len - 1));
  src.append(index.begin() + axis + q, index.end());
  return e.emit(b, loc, op.getData(), src);
}

Emitted resize(ElementalEmitter &e, OpBuilder &b, Location loc, ResizeOp op,
               ValueRange index) {
  if (llvm::is_contained(shapeOf(op.getInput()), 0))
    return op.emitOpError() << "expects a non-empty resize input but got "
                            << op.getInput().getType();
  if (int64_t taps = lowering::resizeTapCount(op);
      taps > lowering::kMaxResizeTaps)
    return op.emitOpError()
           << "expects at most " << lowering::kMaxResizeTaps
           << " input elements per output element but got " << taps;
  bool failedRead = false;
  Value r = lowering::emitResizeElement(
      b, loc, op, SmallVector<Value>(index), [&](ArrayRef<Value> at) -> Value {
        Emitted x = e.emit(b, loc, op.getInput(), at);
        if (failed(x)) {
          failedRead = true;
          return lowering::emitConstant(
              b, loc, lowering::signlessType(elementOf(op.getInput())), 0);
        }
        return *x;
      });
  if (failedRead)
    return failure();
  return r;
}

} // namespace

FailureOr<Value> elemental::emitDataMovement(ElementalEmitter &e,
                                             OpBuilder &b, Location loc,
                                             Operation *op, ValueRange index) {
  return llvm::TypeSwitch<Operation *, Emitted>(op)
      .Case([&](TransposeOp o) { return transpose(e, b, loc, o, index); })
      .Case([&](ReshapeOp o) { return reshape(e, b, loc, o, index); })
      .Case([&](SliceOp o) { return slice(e, b, loc, o, index); })
      .Case([&](ConcatOp o) { return concatFrom(e, b, loc, o, index, 0, 0); })
      .Case([&](PadOp o) { return pad(e, b, loc, o, index); })
      .Case([&](GatherOp o) { return gather(e, b, loc, o, index); })
      .Case([&](ResizeOp o) { return resize(e, b, loc, o, index); })
      .Default([&](Operation *other) -> Emitted {
        return other->emitOpError() << "expects a data movement op";
      });
}
