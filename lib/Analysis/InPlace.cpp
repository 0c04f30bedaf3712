//===- InPlace.cpp - May a kernel write a result over an input ------------===//
#include "bwc/Analysis/InPlace.h"

#include "bwc/Dialect/BWC/IR/BWCOps.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

bool mlir::bwc::isElementwise(Operation *op) {
  return isa<UnaryOp, BinaryOp, SelectOp, CastOp>(op);
}

std::string mlir::bwc::kernelInPlaceRefusal(func::FuncOp kernel,
                                            unsigned resultIdx,
                                            unsigned operandIdx,
                                            bool epilogues) {
  std::string why;
  llvm::raw_string_ostream os(why);
  if (!kernel || kernel.getBody().empty())
    return "the kernel has no body";
  // Without `epilogues` (bwc-opt's default) only elementwise kernels.
  // bwc-compile sets it for every code generator: each computes an
  // output's epilogue where it stores the element, the linalg path after
  // the contraction has accumulated in a buffer of its own
  // (test/Target/CPU/epilogue-accumulator.mlir).
  Operation *notElementwise = nullptr;
  kernel.walk([&](Operation *op) {
    if (op != kernel && !isElementwise(op) &&
        !isa<ConstantOp, func::ReturnOp>(op) && !notElementwise)
      notElementwise = op;
  });
  if (notElementwise && !epilogues) {
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
  auto argShape = cast<RankedTensorType>(arg.getType()).getShape();
  // Every value computed from the operand is elementwise at its shape, so
  // each of its elements is read only where the kernel computes the same
  // element of its results, whatever else the kernel runs (`epilogues`,
  // since 2026-12-07: a contraction or reduction whose epilogue updates a
  // weight, SGD's w - lr * grad; every elemental driver emits an output's
  // epilogue in the thread that stores it, and reads no epilogue operand
  // elsewhere).
  llvm::SmallPtrSet<Operation *, 16> seen;
  SmallVector<Operation *> slice(arg.getUsers().begin(), arg.getUsers().end());
  while (!slice.empty()) {
    Operation *op = slice.pop_back_val();
    if (!seen.insert(op).second || isa<func::ReturnOp>(op))
      continue;
    if (!isElementwise(op)) {
      os << "operand " << operandIdx << " is read by '" << op->getName()
         << "', which is not elementwise";
      return why;
    }
    auto shape = cast<RankedTensorType>(op->getResult(0).getType());
    if (shape.getShape() != argShape) {
      os << "operand " << operandIdx << " is broadcast by '" << op->getName()
         << "'";
      return why;
    }
    for (Operation *u : op->getResult(0).getUsers())
      slice.push_back(u);
  }
  for (Operation *user : arg.getUsers()) {
    if (isa<func::ReturnOp>(user)) {
      os << "operand " << operandIdx << " is returned unchanged";
      return why;
    }
    if (user != producer && !user->isBeforeInBlock(producer)) {
      os << "operand " << operandIdx << " is read after result " << resultIdx
         << " is computed";
      return why;
    }
  }
  // The code generators do not keep the block's order across results: the
  // CPU elemental emitter stores one result (of one shape) at a time,
  // loading operands as each result's expression first needs them, and
  // linalg's elementwise fusion moves a single-use chain to its consumer.
  // So another result may read the operand after this result has been
  // stored over it (difftest seed 12414: a pool output read by a second
  // result after the first, computed from other inputs, was written in
  // place). What every generator keeps: another result may use the operand
  // only through this result's value (cached in registers, or read back
  // from this result's buffer), and only at this result's shape (one loop).
  auto reach = [&](Operation *stop) {
    llvm::SmallPtrSet<Operation *, 16> reached;
    SmallVector<Operation *> work(arg.getUsers().begin(),
                                  arg.getUsers().end());
    while (!work.empty()) {
      Operation *op = work.pop_back_val();
      if (op == stop || !reached.insert(op).second)
        continue;
      for (Value r : op->getResults())
        for (Operation *u : r.getUsers())
          work.push_back(u);
    }
    return reached;
  };
  llvm::SmallPtrSet<Operation *, 16> all = reach(nullptr),
                                     besides = reach(producer);
  Operation *terminator = body.getTerminator();
  for (auto [j, v] : llvm::enumerate(terminator->getOperands())) {
    if (j == resultIdx)
      continue;
    Operation *def = v.getDefiningOp();
    if (v == arg || (def && besides.contains(def))) {
      os << "operand " << operandIdx << " also feeds result " << j;
      return why;
    }
    if (def && all.contains(def) && v.getType() != produced.getType()) {
      os << "operand " << operandIdx << " feeds result " << j
         << ", of another shape, through result " << resultIdx;
      return why;
    }
  }
  return "";
}
