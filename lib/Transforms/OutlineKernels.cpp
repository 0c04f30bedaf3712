//===- OutlineKernels.cpp - One function per kernel -----------------------===//
//
// Decides the launch granularity of the program: today one kernel per op;
// fusion (M1.4) will hand it larger regions. The kernels are private
// functions marked `bwc.kernel`; the program function keeps only constants
// and calls, in launch order.
//
//===----------------------------------------------------------------------===//
#include "bwc/Transforms/Passes.h"

#include "bwc/Dialect/BWC/IR/BWCOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::bwc {
#define GEN_PASS_DEF_OUTLINEKERNELSPASS
#include "bwc/Transforms/Passes.h.inc"
} // namespace mlir::bwc

using namespace mlir;
using namespace mlir::bwc;

namespace {

/// `k3_binary_add`: kernel index, op name and function, for readable
/// symbols in reports and profiles.
std::string kernelName(StringRef prefix, int index, Operation *op) {
  std::string name = (prefix + "_k" + Twine(index) + "_" +
                      op->getName().stripDialect())
                         .str();
  if (auto u = dyn_cast<UnaryOp>(op))
    name += "_" + stringifyUnaryFn(u.getFn()).str();
  else if (auto bin = dyn_cast<BinaryOp>(op))
    name += "_" + stringifyBinaryFn(bin.getFn()).str();
  else if (auto f = dyn_cast<FusionOp>(op))
    name += "_" + stringifyFusionKind(f.getKind()).str();
  for (char &c : name)
    if (!isalnum((unsigned char)c) && c != '_')
      c = '_';
  return name;
}

/// What the kernel computes, recorded as `bwc.kind` so that backends choose
/// an emitter without re-deriving it: the fusion kind, or for a single op
/// its class (`reduction` for reduce/arg_reduce/pool, `contraction` for
/// matmul/conv, `loop` for elementwise and data movement).
StringRef kernelKind(Operation *op) {
  if (auto f = dyn_cast<FusionOp>(op))
    return stringifyFusionKind(f.getKind());
  if (isa<ReduceOp, ArgReduceOp, PoolOp>(op))
    return "reduction";
  if (isa<MatmulOp, ConvOp>(op))
    return "contraction";
  return "loop";
}

struct OutlineKernelsPass
    : public bwc::impl::OutlineKernelsPassBase<OutlineKernelsPass> {
  using OutlineKernelsPassBase::OutlineKernelsPassBase;

  bool isInlineConstant(Value v) {
    auto c = v.getDefiningOp<ConstantOp>();
    return c && cast<RankedTensorType>(c.getType()).getNumElements() <=
                    inlineConstantElements;
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    func::FuncOp program = lookupProgram(module, funcName);
    if (!program)
      return signalPassFailure();
    SymbolTable symbols(module);
    OpBuilder b(&getContext());
    int index = 0;
    for (Operation &op :
         llvm::make_early_inc_range(program.getBody().front())) {
      if (isa<ConstantOp, func::ReturnOp, func::CallOp>(op))
        continue;
      // An op whose results hold no element needs no launch: its results
      // are empty constants.
      if (llvm::all_of(op.getResultTypes(), [](Type t) {
            auto rt = dyn_cast<RankedTensorType>(t);
            return rt && rt.getNumElements() == 0;
          })) {
        b.setInsertionPoint(&op);
        for (Value r : op.getResults())
          r.replaceAllUsesWith(ConstantOp::create(
              b, op.getLoc(),
              DenseElementsAttr::get(cast<RankedTensorType>(r.getType()),
                                     ArrayRef<Attribute>{})));
        op.erase();
        continue;
      }
      SmallVector<Value> args;
      for (Value v : op.getOperands())
        if (!isInlineConstant(v) && !llvm::is_contained(args, v))
          args.push_back(v);

      b.setInsertionPointAfter(program);
      auto kernel = func::FuncOp::create(
          b, op.getLoc(), kernelName(funcName, index++, &op),
          b.getFunctionType(ValueRange(args).getTypes(), op.getResultTypes()));
      kernel.setPrivate();
      kernel->setAttr(kKernelAttrName, b.getUnitAttr());
      kernel->setAttr(kKernelKindAttrName, b.getStringAttr(kernelKind(&op)));
      Block *body = kernel.addEntryBlock();
      b.setInsertionPointToStart(body);
      IRMapping map;
      for (auto [outer, inner] : llvm::zip(args, body->getArguments()))
        map.map(outer, inner);
      for (Value v : op.getOperands())
        if (!map.contains(v))
          map.map(v, b.clone(*v.getDefiningOp())->getResult(0));
      if (auto fusion = dyn_cast<FusionOp>(op)) {
        // A fusion region is one kernel: its body is the kernel's body.
        Block &region = fusion.getBody().front();
        for (auto [arg, in] :
             llvm::zip(region.getArguments(), fusion.getInputs()))
          map.map(arg, map.lookup(in));
        for (Operation &inner : region.without_terminator())
          b.clone(inner, map);
        SmallVector<Value> results;
        for (Value v : region.getTerminator()->getOperands())
          results.push_back(map.lookup(v));
        func::ReturnOp::create(b, op.getLoc(), results);
      } else {
        Operation *clone = b.clone(op, map);
        func::ReturnOp::create(b, op.getLoc(), clone->getResults());
      }
      symbols.insert(kernel);

      b.setInsertionPoint(&op);
      auto call = func::CallOp::create(b, op.getLoc(), kernel, args);
      op.replaceAllUsesWith(call.getResults());
      op.erase();
    }
    // Constants now used only inside kernels (or by nothing).
    for (Operation &op :
         llvm::make_early_inc_range(program.getBody().front()))
      if (isa<ConstantOp>(op) && op.use_empty())
        op.erase();
  }
};

} // namespace
