//===- Rematerialize.cpp - Recompute kernels to fit a memory budget -------===//
//
// Maps the launch order of the program function (after
// bwc-outline-kernels) to bwc/Analysis/Remat.h, runs the chosen strategy
// and writes its decision back: recomputations are extra calls of the same
// kernel functions, placed before the late uses, which now read them.
//
//===----------------------------------------------------------------------===//
#include "bwc/Transforms/Passes.h"

#include "bwc/Analysis/CostModel.h"
#include "bwc/Analysis/InPlace.h"
#include "bwc/Analysis/Remat.h"
#include "bwc/Dialect/BWC/IR/BWCOps.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/Format.h"

namespace mlir::bwc {
#define GEN_PASS_DEF_REMATERIALIZEPASS
#include "bwc/Transforms/Passes.h.inc"
} // namespace mlir::bwc

using namespace mlir;
using namespace mlir::bwc;

namespace {

/// "123", "123B", "4KiB", "1.5 MiB", "2GiB" as bytes (rounded down).
std::optional<uint64_t> parseBytes(StringRef text) {
  StringRef number = text.trim().take_while(
      [](char c) { return llvm::isDigit(c) || c == '.'; });
  StringRef unit = text.trim().drop_front(number.size()).trim();
  double value;
  if (number.empty() || number.getAsDouble(value))
    return std::nullopt;
  double scale = llvm::StringSwitch<double>(unit.lower())
                     .Cases({"", "b"}, 1)
                     .Case("kib", 1024.0)
                     .Case("mib", 1024.0 * 1024)
                     .Case("gib", 1024.0 * 1024 * 1024)
                     .Default(0);
  if (scale == 0 || value * scale > 1.8e19)
    return std::nullopt;
  return uint64_t(value * scale);
}

/// "1 B", "980 B", "5.8 MiB": one decimal above 1 KiB.
std::string formatBytes(uint64_t bytes) {
  if (bytes < 1024)
    return std::to_string(bytes) + " B";
  const char *units[] = {"KiB", "MiB", "GiB", "TiB"};
  double value = bytes / 1024.0;
  int unit = 0;
  while (value >= 1024 && unit < 3)
    value /= 1024, ++unit;
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%.1f ", value) << units[unit];
  return text;
}

struct RematerializePass
    : public bwc::impl::RematerializePassBase<RematerializePass> {
  using RematerializePassBase::RematerializePassBase;

  void runOnOperation() override {
    if (memoryBudget.empty())
      return;
    ModuleOp module = getOperation();
    func::FuncOp program = lookupProgram(module, funcName);
    if (!program)
      return signalPassFailure();
    std::optional<uint64_t> budget = parseBytes(memoryBudget);
    if (!budget) {
      program.emitError() << "expects memory-budget as BYTES with an optional "
                             "B, KiB, MiB or GiB suffix but got '"
                          << memoryBudget << "'";
      return signalPassFailure();
    }
    std::optional<remat::Strategy> kind =
        llvm::StringSwitch<std::optional<remat::Strategy>>(strategy)
            .Case("greedy", remat::Strategy::Greedy)
            .Case("checkpoints", remat::Strategy::Checkpoints)
            .Case("best", remat::Strategy::Best)
            .Default(std::nullopt);
    if (!kind) {
      program.emitError() << "expects strategy greedy, checkpoints or best "
                             "but got '"
                          << strategy << "'";
      return signalPassFailure();
    }

    SmallVector<func::CallOp> calls;
    remat::Program model;
    if (failed(buildModel(program, calls, model)))
      return signalPassFailure();
    remat::Result result = remat::rematerialize(model, *budget, *kind);
    if (!result.met) {
      program.emitError() << "memory budget " << formatBytes(*budget)
                          << " cannot be met: minimum reachable arena is "
                          << formatBytes(result.minArena) << " ("
                          << result.minArena << " B)";
      return signalPassFailure();
    }
    writeBack(program, calls, model, result.program);

    Builder b(&getContext());
    auto set = [&](StringRef name, uint64_t value) {
      program->setAttr(name, b.getI64IntegerAttr(value));
    };
    set("bwc.remat_budget_bytes", *budget);
    set("bwc.remat_arena_before", result.arenaBefore);
    set("bwc.remat_arena_after", result.arenaAfter);
    set("bwc.remat_min_arena", result.minArena);
    set("bwc.remat_recomputed_ops", result.recomputedOps);
    set("bwc.remat_extra_flops", result.extraFlops);
    set("bwc.remat_extra_bytes", result.extraBytes);
    program->setAttr("bwc.remat_strategy",
                     b.getStringAttr(remat::stringifyStrategy(
                         result.recomputedOps ? result.strategy : *kind)));
  }

  /// One launch per call, one value per tensor; returned values, inputs
  /// and weights are outside the arena.
  LogicalResult buildModel(func::FuncOp program,
                           SmallVectorImpl<func::CallOp> &calls,
                           remat::Program &model) {
    DenseSet<Value> returned;
    if (failed(collectLaunches(program, calls, returned)))
      return failure();
    SymbolTable symbols(program->getParentOfType<ModuleOp>());
    DenseMap<Value, int64_t> idOf;
    for (auto [i, call] : llvm::enumerate(calls)) {
      auto kernel = symbols.lookup<func::FuncOp>(call.getCallee());
      if (!kernel || kernel.getBody().empty())
        return call.emitError() << "expects a kernel function with a body "
                                   "but got '"
                                << call.getCallee() << "'";
      KernelCost cost = kernelCost(kernel);
      model.kernelFlops.push_back(cost.flops);
      model.kernelBytes.push_back(cost.bytes());
      remat::RLaunch launch;
      launch.kernel = i;
      for (Value v : call.getOperands()) {
        auto [it, inserted] = idOf.try_emplace(v, model.values.size());
        if (inserted)
          model.values.push_back({tensorBytes(v.getType()), false, -1});
        launch.operands.push_back(it->second);
      }
      for (auto [k, r] : llvm::enumerate(call.getResults()))
        for (auto [j, v] : llvm::enumerate(call.getOperands()))
          if (v.getType() == r.getType() &&
              kernelInPlaceRefusal(kernel, k, j, epilogues).empty())
            launch.inPlace.push_back({(unsigned)k, (unsigned)j});
      for (Value r : call.getResults()) {
        idOf[r] = model.values.size();
        launch.results.push_back(model.values.size());
        model.values.push_back(
            {tensorBytes(r.getType()), !returned.contains(r), (int64_t)i});
      }
      model.launches.push_back(std::move(launch));
      model.order.push_back(i);
    }
    return success();
  }

  /// Rebuilds the launch order of `program` from `kept`: original calls
  /// move into place, recomputations are new calls marked `bwc.remat`.
  void writeBack(func::FuncOp program, MutableArrayRef<func::CallOp> calls,
                 const remat::Program &model, const remat::Program &kept) {
    std::vector<Value> valueOf(kept.values.size());
    for (auto [i, call] : llvm::enumerate(calls)) {
      for (auto [k, r] : llvm::enumerate(call.getResults()))
        valueOf[model.launches[i].results[k]] = r;
      for (auto [k, v] : llvm::enumerate(call.getOperands()))
        valueOf[model.launches[i].operands[k]] = v;
    }
    Operation *terminator = program.getBody().front().getTerminator();
    OpBuilder b(terminator);
    for (int64_t id : kept.order) {
      const remat::RLaunch &launch = kept.launches[id];
      SmallVector<Value> operands;
      for (int64_t o : launch.operands)
        operands.push_back(valueOf[o]);
      func::CallOp call;
      if ((size_t)id < calls.size()) {
        call = calls[id];
        call->moveBefore(terminator);
        call->setOperands(operands);
      } else {
        func::CallOp original = calls[launch.kernel];
        call = func::CallOp::create(b, original.getLoc(), original.getCallee(),
                                    original.getResultTypes(), operands);
        call->setAttr("bwc.remat", b.getI64IntegerAttr(launch.kernel));
      }
      for (auto [k, r] : llvm::enumerate(call.getResults()))
        valueOf[launch.results[k]] = r;
    }
  }
};

} // namespace
