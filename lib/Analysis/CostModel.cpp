//===- CostModel.cpp - Bytes moved and flops of kernels -------------------===//
#include "bwc/Analysis/CostModel.h"

#include "bwc/Dialect/BWC/IR/BWCOps.h"
#include "bwc/Dialect/BWC/Utils/ShapeUtils.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::bwc;

uint64_t mlir::bwc::tensorBytes(Type type) {
  auto t = dyn_cast<RankedTensorType>(type);
  if (!t)
    return 0;
  Type elt = t.getElementType();
  uint64_t width = elt.isInteger(1) ? 1 : (elt.getIntOrFloatBitWidth() + 7) / 8;
  return (uint64_t)t.getNumElements() * width;
}

bool mlir::bwc::isInlinedConstant(Value v) {
  auto c = v.getDefiningOp<ConstantOp>();
  return c && cast<RankedTensorType>(c.getType()).getNumElements() <=
                  kInlineConstantElements;
}

namespace {

int64_t elementsOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getNumElements();
}

/// Flops per element of an elementwise function: transcendental functions
/// are counted as one operation each, like every peer's roofline does.
uint64_t unaryFlops(UnaryFn fn) {
  return fn == UnaryFn::sigmoid ? 4 : 1; // sigmoid: neg, exp, add, div
}

} // namespace

uint64_t mlir::bwc::opFlops(Operation *op) {
  if (auto u = dyn_cast<UnaryOp>(op))
    return elementsOf(u.getResult()) * unaryFlops(u.getFn());
  if (isa<BinaryOp, SelectOp>(op))
    return elementsOf(op->getResult(0));
  if (auto r = dyn_cast<ReduceOp>(op))
    return elementsOf(r.getInput()) +
           (r.getKind() == ReduceKind::mean ? elementsOf(r.getResult()) : 0);
  if (auto r = dyn_cast<ArgReduceOp>(op))
    return elementsOf(r.getInput());
  if (auto m = dyn_cast<MatmulOp>(op)) {
    int64_t k = cast<RankedTensorType>(m.getLhs().getType()).getShape().back();
    return 2 * elementsOf(m.getResult()) * k;
  }
  if (auto c = dyn_cast<ConvOp>(op)) {
    // Each output element is a dot product over (C/groups) x kernel taps;
    // for a transposed conv each input element scatters over F/groups x
    // kernel taps. Logical dims: a channels_last filter is [K..., B, A].
    SmallVector<int64_t> w = c.getLogicalFilterShape();
    int64_t taps = numElements(ArrayRef<int64_t>(w).drop_front(2));
    int64_t perOut = w[1] * taps;
    int64_t flops = c.getTransposed() ? 2 * elementsOf(c.getInput()) * perOut
                                      : 2 * elementsOf(c.getResult()) * perOut;
    if (c.getBias())
      flops += elementsOf(c.getResult());
    return flops;
  }
  if (auto p = dyn_cast<PoolOp>(op))
    return elementsOf(p.getResult()) * numElements(p.getKernel());
  if (auto r = dyn_cast<ResizeOp>(op)) {
    int64_t taps = r.getMode() == ResizeMode::nearest ? 0
                   : r.getMode() == ResizeMode::linear ? 2 : 4;
    return elementsOf(r.getResult()) * taps * 2;
  }
  if (auto f = dyn_cast<FusionOp>(op)) {
    uint64_t flops = 0;
    for (Operation &inner : f.getBody().front().without_terminator())
      flops += opFlops(&inner);
    return flops;
  }
  return 0; // data movement, casts, constants
}

KernelCost mlir::bwc::kernelCost(ValueRange inputs, ValueRange outputs,
                                 ArrayRef<Operation *> ops) {
  KernelCost c;
  llvm::SetVector<Value> distinct(inputs.begin(), inputs.end());
  for (Value v : distinct)
    if (!isInlinedConstant(v))
      c.bytesRead += tensorBytes(v.getType());
  for (Value v : outputs)
    c.bytesWritten += tensorBytes(v.getType());
  for (Operation *op : ops) {
    c.flops += opFlops(op);
    if (isa<ConstantOp>(op))
      continue;
    if (!c.ops.empty())
      c.ops += ",";
    c.ops += op->getName().stripDialect().str();
    if (auto u = dyn_cast<UnaryOp>(op))
      c.ops += "." + stringifyUnaryFn(u.getFn()).str();
    else if (auto b = dyn_cast<BinaryOp>(op))
      c.ops += "." + stringifyBinaryFn(b.getFn()).str();
  }
  return c;
}

KernelCost mlir::bwc::kernelCost(Operation *op) {
  if (auto f = dyn_cast<FusionOp>(op)) {
    SmallVector<Operation *> ops;
    for (Operation &inner : f.getBody().front().without_terminator())
      ops.push_back(&inner);
    KernelCost c = kernelCost(f.getInputs(), f.getResults(), ops);
    c.name = "fusion." + stringifyFusionKind(f.getKind()).str();
    return c;
  }
  KernelCost c = kernelCost(op->getOperands(), op->getResults(), {op});
  c.name = op->getName().getStringRef().str();
  return c;
}

KernelCost mlir::bwc::kernelCost(func::FuncOp kernel) {
  SmallVector<Operation *> ops;
  kernel.walk([&](Operation *op) {
    if (isa<BWCDialect>(op->getDialect()) && !isa<FusionOp, YieldOp>(op))
      ops.push_back(op);
  });
  Block &body = kernel.getBody().front();
  KernelCost c = kernelCost(ValueRange(body.getArguments()),
                            body.getTerminator()->getOperands(), ops);
  c.name = kernel.getName().str();
  return c;
}

ProgramCost mlir::bwc::programCost(func::FuncOp program) {
  ProgramCost p;
  for (Operation &op : program.getBody().front()) {
    if (isa<ConstantOp>(op) || op.hasTrait<OpTrait::IsTerminator>())
      continue;
    KernelCost c = isa<func::CallOp>(op)
                       ? kernelCost(program->getParentOfType<ModuleOp>()
                                        .lookupSymbol<func::FuncOp>(
                                            cast<func::CallOp>(op).getCallee()))
                       : kernelCost(&op);
    p.bytesRead += c.bytesRead;
    p.bytesWritten += c.bytesWritten;
    p.flops += c.flops;
    p.kernels.push_back(std::move(c));
    // A result another kernel reads is a materialized intermediate.
    for (Value r : op.getResults())
      if (llvm::any_of(r.getUsers(), [](Operation *u) {
            return !u->hasTrait<OpTrait::IsTerminator>();
          }))
        p.intermediateBytes += tensorBytes(r.getType());
  }
  return p;
}
