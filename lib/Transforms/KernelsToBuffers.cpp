//===- KernelsToBuffers.cpp - The buffer calling convention of kernels ----===//
//
// A kernel `(tensor...) -> (tensor...)` becomes `(memref in..., memref
// out...) -> ()`: the runtime owns every buffer and a launch passes their
// addresses. `restrict` on both sides tells One-Shot Bufferize that the
// buffers do not alias, so results are computed in place in the outputs.
//
//===----------------------------------------------------------------------===//
#include "bwc/Transforms/Passes.h"

namespace mlir::bwc {
#define GEN_PASS_DEF_KERNELSTOBUFFERSPASS
#include "bwc/Transforms/Passes.h.inc"
} // namespace mlir::bwc

using namespace mlir;
using namespace mlir::bwc;

namespace {

MemRefType bufferType(Type tensor) {
  auto t = cast<RankedTensorType>(tensor);
  return MemRefType::get(t.getShape(), t.getElementType());
}

LogicalResult convertKernel(func::FuncOp kernel) {
  if (kernel.isExternal())
    return kernel.emitError() << "expects a kernel with a body";
  FunctionType type = kernel.getFunctionType();
  for (Type t : llvm::concat<const Type>(type.getInputs(), type.getResults()))
    if (!isa<RankedTensorType>(t))
      return kernel.emitError() << "expects a kernel on ranked tensors but got "
                                << t;
  Block &body = kernel.getBody().front();
  OpBuilder b(kernel.getContext());
  b.setInsertionPointToStart(&body);
  unsigned numInputs = type.getNumInputs();
  SmallVector<Type> argTypes;
  for (unsigned i = 0; i < numInputs; ++i) {
    BlockArgument old = body.getArgument(i);
    MemRefType mt = bufferType(old.getType());
    argTypes.push_back(mt);
    BlockArgument arg = body.addArgument(mt, old.getLoc());
    auto tensor = bufferization::ToTensorOp::create(
        b, old.getLoc(), old.getType(), arg, /*restrict=*/true,
        /*writable=*/false);
    old.replaceAllUsesWith(tensor.getResult());
  }
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  b.setInsertionPoint(ret);
  for (Value result : ret.getOperands()) {
    MemRefType mt = bufferType(result.getType());
    argTypes.push_back(mt);
    BlockArgument out = body.addArgument(mt, result.getLoc());
    auto store = bufferization::MaterializeInDestinationOp::create(
        b, result.getLoc(), result, out);
    store.setRestrict(true);
    store.setWritable(true);
  }
  func::ReturnOp::create(b, ret.getLoc());
  ret.erase();
  body.eraseArguments(0, numInputs);
  kernel.setType(b.getFunctionType(argTypes, {}));
  return success();
}

struct KernelsToBuffersPass
    : public bwc::impl::KernelsToBuffersPassBase<KernelsToBuffersPass> {
  void runOnOperation() override {
    for (auto f : getOperation().getOps<func::FuncOp>())
      if (f->hasAttr(kKernelAttrName) && failed(convertKernel(f)))
        return signalPassFailure();
  }
};

} // namespace
