//===- InPlace.cpp - May a kernel write a result over an input ------------===//
#include "bwc/Analysis/InPlace.h"

#include "bwc/Dialect/BWC/IR/BWCOps.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

bool mlir::bwc::isElementwise(Operation *op) {
  return isa<UnaryOp, BinaryOp, SelectOp, CastOp>(op);
}

std::string mlir::bwc::kernelInPlaceRefusal(func::FuncOp kernel,
                                            unsigned resultIdx,
                                            unsigned operandIdx) {
  std::string why;
  llvm::raw_string_ostream os(why);
  if (!kernel || kernel.getBody().empty())
    return "the kernel has no body";
  Operation *notElementwise = nullptr;
  kernel.walk([&](Operation *op) {
    if (op != kernel && !isElementwise(op) &&
        !isa<ConstantOp, func::ReturnOp>(op) && !notElementwise)
      notElementwise = op;
  });
  if (notElementwise) {
    os << "the kernel runs '" << notElementwise->getName()
       << "', which is not elementwise";
    return why;
  }
  Block &body = kernel.getBody().front();
  Value produced = body.getTerminator()->getOperand(resultIdx);
  Operation *producer = produced.getDefiningOp();
  if (!producer || isa<ConstantOp>(producer)) {
    os << "result " << resultIdx << " is not computed by the kernel";
    return why;
  }
  BlockArgument arg = body.getArgument(operandIdx);
  for (Operation *user : arg.getUsers()) {
    if (!isElementwise(user)) {
      os << "operand " << operandIdx << " is returned unchanged";
      return why;
    }
    auto shape = cast<RankedTensorType>(user->getResult(0).getType());
    if (shape.getShape() != cast<RankedTensorType>(arg.getType()).getShape()) {
      os << "operand " << operandIdx << " is broadcast by '" << user->getName()
         << "'";
      return why;
    }
    if (user != producer && !user->isBeforeInBlock(producer)) {
      os << "operand " << operandIdx << " is read after result " << resultIdx
         << " is computed";
      return why;
    }
  }
  return "";
}
