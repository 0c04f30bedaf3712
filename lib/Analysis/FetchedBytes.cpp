//===- FetchedBytes.cpp - Kernels and programs priced in fetched bytes ----===//

#include "bwc/Analysis/FetchedBytes.h"

#include "bwc/Analysis/AccessModel.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace mlir::bwc;

namespace {

/// The passes that configure outlined kernels as bwc-compile does.
std::string configurePipeline(int64_t smCount) {
  std::string sm = std::to_string(smCount);
  return "bwc-configure-kernels{sm-count=" + sm + "},bwc-tile{sm-count=" + sm +
         "}";
}

} // namespace

FailureOr<double> FetchedBytesPricer::kernel(ModuleOp scratch,
                                             func::FuncOp fn) {
  std::string key;
  {
    llvm::raw_string_ostream os(key);
    fn->print(os, OpPrintingFlags().elideLargeElementsAttrs(16));
  }
  if (auto it = priced.find(key); it != priced.end())
    return it->second;
  fn->setAttr("bwc.kernel", UnitAttr::get(fn.getContext()));
  PassManager pm(fn.getContext());
  if (failed(parsePassPipeline(configurePipeline(smCount), pm)) ||
      failed(pm.run(scratch)))
    return failure();
  FailureOr<KernelCoalescing> k =
      analyzeCoalescing(fn, fn->getAttrOfType<DictionaryAttr>("bwc.config"));
  if (failed(k))
    return failure();
  priced[key] = k->fetchedBytes;
  return k->fetchedBytes;
}

FailureOr<double>
FetchedBytesPricer::standalone(Operation *op, TypeRange operandTypes,
                               Type resultType,
                               llvm::function_ref<void(Operation *)> adjust) {
  OpBuilder b(op->getContext());
  Location loc = op->getLoc();
  OwningOpRef<ModuleOp> scratch = ModuleOp::create(loc);
  b.setInsertionPointToEnd(scratch->getBody());
  auto fn = func::FuncOp::create(b, loc, "standalone",
                                 b.getFunctionType(operandTypes, {resultType}));
  Block *body = fn.addEntryBlock();
  b.setInsertionPointToEnd(body);
  IRMapping map;
  map.map(op->getOperands(), body->getArguments());
  Operation *clone = b.clone(*op, map);
  clone->getResult(0).setType(resultType);
  if (adjust)
    adjust(clone);
  func::ReturnOp::create(b, loc, clone->getResult(0));
  return kernel(*scratch, fn);
}

FailureOr<FetchedBytesPricer::Program>
FetchedBytesPricer::fusedProgram(ModuleOp module) {
  OwningOpRef<ModuleOp> copy = module.clone();
  PassManager pm(module.getContext());
  if (failed(
          parsePassPipeline("canonicalize,cse,bwc-fuse,bwc-outline-kernels," +
                                configurePipeline(smCount),
                            pm)) ||
      failed(pm.run(*copy)))
    return failure();
  Program total;
  for (auto fn : copy->getOps<func::FuncOp>()) {
    auto config = fn->getAttrOfType<DictionaryAttr>("bwc.config");
    if (!config)
      continue;
    FailureOr<KernelCoalescing> k = analyzeCoalescing(fn, config);
    if (failed(k))
      return failure();
    total.fetchedBytes += k->fetchedBytes;
    ++total.kernels;
  }
  return total;
}
