//===- KernelsToBuffers.cpp - The buffer calling convention of kernels ----===//
//
// A kernel `(tensor...) -> (tensor...)` becomes `(memref in..., memref
// out...) -> ()`: the runtime owns every buffer and a launch passes their
// addresses. `restrict` on both sides tells One-Shot Bufferize that the
// buffers do not alias, so results are computed in place in the outputs.
//
//===----------------------------------------------------------------------===//
#include "bwc/Transforms/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::bwc {
#define GEN_PASS_DEF_KERNELSTOBUFFERSPASS
#include "bwc/Transforms/Passes.h.inc"
} // namespace mlir::bwc

using namespace mlir;
using namespace mlir::bwc;

namespace {

/// A tensor of rank >= 2 with no element (a 3x2x0 input): its buffer is
/// declared memref<0xT>. MLIR's bare-pointer calling convention refuses
/// such a memref at its shape (its strides are not those of a row-major
/// layout), which left the kernel unconverted: `bwc-compile` failed with
/// "cannot be converted to LLVM IR" on ReduceSum of an empty tensor
/// (2026-12-07). No element of it is ever read or written.
bool flattensEmpty(RankedTensorType t) {
  return t.getRank() >= 2 && t.getNumElements() == 0;
}

MemRefType bufferType(Type tensor) {
  auto t = cast<RankedTensorType>(tensor);
  if (flattensEmpty(t))
    return MemRefType::get({0}, t.getElementType());
  return MemRefType::get(t.getShape(), t.getElementType());
}

SmallVector<ReassociationIndices> allInOne(RankedTensorType t) {
  ReassociationIndices all;
  for (int64_t d = 0; d < t.getRank(); ++d)
    all.push_back(d);
  return {all};
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
    auto oldType = cast<RankedTensorType>(old.getType());
    Value tensor = bufferization::ToTensorOp::create(
        b, old.getLoc(), RankedTensorType::get(mt.getShape(), mt.getElementType()), arg,
        /*restrict=*/true, /*writable=*/false);
    if (flattensEmpty(oldType))
      tensor = tensor::ExpandShapeOp::create(b, old.getLoc(), oldType, tensor,
                                             allInOne(oldType));
    old.replaceAllUsesWith(tensor);
  }
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  b.setInsertionPoint(ret);
  for (Value result : ret.getOperands()) {
    MemRefType mt = bufferType(result.getType());
    argTypes.push_back(mt);
    BlockArgument out = body.addArgument(mt, result.getLoc());
    auto resultType = cast<RankedTensorType>(result.getType());
    if (flattensEmpty(resultType))
      result = tensor::CollapseShapeOp::create(b, result.getLoc(), result,
                                               allInOne(resultType));
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
