//===- ElementwiseEmitter.cpp - Elements of elementwise bwc ops -----------===//
//
// unary, binary, select, cast and broadcast: the operands' elements at the
// numpy-broadcast index, then the scalar op shared with the linalg lowering
// (bwc/Conversion/BWCToLinalg/ScalarOps.h).
//
//===----------------------------------------------------------------------===//
#include "Emitters.h"

#include "bwc/Conversion/BWCToLinalg/ScalarOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::bwc;
using namespace mlir::bwc::elemental;

namespace {

/// The element of `operand` that element `index` of `result` reads.
FailureOr<Value> operandAt(ElementalEmitter &e, OpBuilder &b, Location loc,
                           Value operand, Value result, ValueRange index) {
  return e.emit(b, loc, operand,
                broadcastIndex(b, loc, index, shapeOf(result),
                               shapeOf(operand)));
}

} // namespace

FailureOr<Value> elemental::emitElementwise(ElementalEmitter &e, OpBuilder &b,
                                            Location loc, Operation *op,
                                            ValueRange index) {
  Value result = op->getResult(0);
  SmallVector<Value> xs;
  for (Value operand : op->getOperands()) {
    FailureOr<Value> x = operandAt(e, b, loc, operand, result, index);
    if (failed(x))
      return failure();
    xs.push_back(*x);
  }
  return llvm::TypeSwitch<Operation *, Value>(op)
      .Case([&](UnaryOp u) {
        return lowering::emitUnary(b, loc, u.getFn(), xs[0],
                                   elementOf(result));
      })
      .Case([&](BinaryOp bin) {
        return lowering::emitBinary(b, loc, bin.getFn(), xs[0], xs[1],
                                    elementOf(bin.getLhs()));
      })
      .Case([&](SelectOp) {
        return arith::SelectOp::create(b, loc, xs[0], xs[1], xs[2])
            .getResult();
      })
      .Case([&](CastOp c) {
        return lowering::emitCast(b, loc, xs[0], elementOf(c.getInput()),
                                  elementOf(result));
      })
      .Default([&](Operation *) { return xs[0]; }); // broadcast
}
