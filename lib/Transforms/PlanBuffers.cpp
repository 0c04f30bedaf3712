//===- PlanBuffers.cpp - Arena offsets for the intermediates of a program -===//
//
// Reads the launch order of the program function (after
// bwc-outline-kernels), derives each intermediate's live range and the
// in-place opportunities of elementwise kernels, runs the planners of
// bwc/Analysis/BufferPlan.h and records the plan as attributes that the
// artifact builder and bwc-verify-plan read.
//
//===----------------------------------------------------------------------===//
#include "bwc/Transforms/Passes.h"

#include "bwc/Analysis/BranchGuards.h"
#include "bwc/Analysis/BufferPlan.h"
#include "bwc/Analysis/CostModel.h"
#include "bwc/Analysis/InPlace.h"
#include "bwc/Dialect/BWC/IR/BWCOps.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::bwc {
#define GEN_PASS_DEF_PLANBUFFERSPASS
#include "bwc/Transforms/Passes.h.inc"
} // namespace mlir::bwc

using namespace mlir;
using namespace mlir::bwc;

namespace {

/// The buffers of one launch order: one per intermediate call result.
struct Liveness {
  SmallVector<func::CallOp> order;
  std::vector<PlanBuffer> buffers;
  /// (call, result index) of each buffer.
  std::vector<std::pair<func::CallOp, unsigned>> owner;
  /// Buffer of each intermediate.
  DenseMap<Value, int64_t> bufferOf;
  /// Operand index each buffer's in-place claim reuses (-1 none).
  std::vector<int64_t> claimOperand;
};

/// Why result `resultIdx` of `call` cannot be written over operand
/// `operandIdx` (an intermediate of this order), or "" when it can.
std::string inPlaceRefusal(const Liveness &l, int64_t step, func::CallOp call,
                           func::FuncOp kernel, unsigned resultIdx,
                           unsigned operandIdx, bool epilogues) {
  Value operand = call.getOperand(operandIdx);
  const PlanBuffer &in = l.buffers[l.bufferOf.lookup(operand)];
  std::string why;
  llvm::raw_string_ostream os(why);
  if (in.lastUse > step) {
    os << "operand " << operandIdx << " is read by launch " << in.lastUse;
    return why;
  }
  Type resultType = call.getResult(resultIdx).getType();
  if (cast<RankedTensorType>(operand.getType()).getShape() !=
      cast<RankedTensorType>(resultType).getShape())
    return "(silent) another shape";
  if (operand.getType() != resultType) {
    os << "operand " << operandIdx << " has type " << operand.getType()
       << ", not the result's " << resultType;
    return why;
  }
  return kernelInPlaceRefusal(kernel, resultIdx, operandIdx, epilogues);
}

/// Live ranges and legal in-place claims of `order`. With `remarks`,
/// explains each refused candidate.
Liveness analyze(ArrayRef<func::CallOp> order, const DenseSet<Value> &returned,
                 SymbolTable &symbols, bool inPlace, bool epilogues,
                 bool remarks) {
  Liveness l;
  l.order.assign(order.begin(), order.end());
  DenseMap<Operation *, int64_t> stepOf;
  for (auto [i, call] : llvm::enumerate(l.order))
    stepOf[call] = i;
  for (auto [i, call] : llvm::enumerate(l.order)) {
    for (auto [k, r] : llvm::enumerate(call.getResults())) {
      if (returned.contains(r))
        continue;
      PlanBuffer b;
      b.bytes = tensorBytes(r.getType());
      b.firstDef = b.lastUse = i;
      b.guards = launchGuards(call);
      for (Operation *user : r.getUsers())
        if (stepOf.count(user))
          b.lastUse = std::max(b.lastUse, stepOf[user]);
      l.bufferOf[r] = l.buffers.size();
      l.buffers.push_back(b);
      l.owner.push_back({call, (unsigned)k});
      l.claimOperand.push_back(-1);
    }
  }
  if (!inPlace)
    return l;
  for (auto [i, call] : llvm::enumerate(l.order)) {
    auto kernel = symbols.lookup<func::FuncOp>(call.getCallee());
    DenseMap<unsigned, unsigned> takenBy; // operand -> result
    for (auto [k, r] : llvm::enumerate(call.getResults())) {
      auto buffer = l.bufferOf.find(r);
      if (buffer == l.bufferOf.end())
        continue;
      for (auto [j, operand] : llvm::enumerate(call.getOperands())) {
        if (!isa_and_nonnull<func::CallOp>(operand.getDefiningOp()))
          continue;
        std::string why;
        if (returned.contains(operand))
          why = "operand " + std::to_string(j) + " is a program output";
        else if (takenBy.count(j))
          why = "operand " + std::to_string(j) +
                " is already reused by result " + std::to_string(takenBy[j]);
        else
          why = inPlaceRefusal(l, i, call, kernel, k, j, epilogues);
        if (why.empty()) {
          takenBy[j] = k;
          l.buffers[buffer->second].inPlaceOf = l.bufferOf.lookup(operand);
          l.claimOperand[buffer->second] = j;
          break;
        }
        // Operands of another shape are no candidates: nothing to explain.
        if (remarks && !StringRef(why).starts_with("(silent)"))
          call.emitRemark() << "result " << k << " does not reuse operand " << j
                            << " in place: " << why;
      }
    }
  }
  return l;
}

/// A memory-aware topological order of the launches: among the ready ones,
/// the launch that frees the most bytes net of what it allocates; ties keep
/// program order.
SmallVector<func::CallOp> memoryAwareOrder(ArrayRef<func::CallOp> program,
                                           const DenseSet<Value> &returned) {
  SmallVector<func::CallOp> calls(program.begin(), program.end());
  DenseMap<Operation *, size_t> indexOf;
  for (auto [i, call] : llvm::enumerate(calls))
    indexOf[call] = i;
  auto arenaBytes = [&](Value v) -> int64_t {
    if (returned.contains(v) ||
        !isa_and_nonnull<func::CallOp>(v.getDefiningOp()))
      return 0;
    return alignedBufferBytes(tensorBytes(v.getType()));
  };
  std::vector<unsigned> pendingInputs(calls.size(), 0);
  DenseMap<Value, unsigned> pendingUsers;
  for (auto [i, call] : llvm::enumerate(calls)) {
    DenseSet<Operation *> producers;
    for (Value v : call.getOperands())
      if (Operation *def = v.getDefiningOp(); def && indexOf.count(def))
        producers.insert(def);
    pendingInputs[i] = producers.size();
    for (Value r : call.getResults()) {
      DenseSet<Operation *> users;
      for (Operation *u : r.getUsers())
        if (indexOf.count(u))
          users.insert(u);
      pendingUsers[r] = users.size();
    }
  }
  std::vector<bool> done(calls.size(), false);
  SmallVector<func::CallOp> order;
  while (order.size() < calls.size()) {
    int64_t best = -1, bestGain = 0;
    for (size_t i = 0; i < calls.size(); ++i) {
      if (done[i] || pendingInputs[i])
        continue;
      int64_t gain = 0;
      DenseSet<Value> seen;
      for (Value v : calls[i].getOperands())
        if (seen.insert(v).second && pendingUsers.lookup(v) == 1)
          gain += arenaBytes(v);
      for (Value r : calls[i].getResults())
        gain -= arenaBytes(r);
      if (best < 0 || gain > bestGain)
        best = i, bestGain = gain;
    }
    func::CallOp call = calls[best];
    done[best] = true;
    order.push_back(call);
    DenseSet<Value> seen;
    for (Value v : call.getOperands())
      if (seen.insert(v).second && pendingUsers.count(v))
        --pendingUsers[v];
    DenseSet<Operation *> consumers;
    for (Value r : call.getResults())
      for (Operation *u : r.getUsers())
        if (indexOf.count(u) && consumers.insert(u).second)
          --pendingInputs[indexOf[u]];
  }
  return order;
}

/// Training state updated in place: the kernel that computes the new
/// value of a state argument (a program result marked `bwc.state_update`)
/// may write it over the argument's own buffer when that launch is the
/// argument's last reader in `order` and the kernel passes the in-place
/// rule (InPlace.h: elementwise kernels; with `epilogues`, also an update
/// in a contraction's or reduction's epilogue). The executor then has no copy
/// to make after the run. Records `bwc.state_inplace` on the call (the
/// operand index each result overwrites, -1 none); with `remarks`,
/// explains each update left to the copy.
void claimStateUpdates(func::FuncOp program, ArrayRef<func::CallOp> order,
                       SymbolTable &symbols, bool epilogues, bool remarks) {
  Block &block = program.getBody().front();
  auto ret = cast<func::ReturnOp>(block.getTerminator());
  DenseMap<Operation *, int64_t> stepOf;
  for (auto [i, call] : llvm::enumerate(order)) {
    stepOf[call] = i;
    call->removeAttr("bwc.state_inplace");
  }
  DenseMap<Value, int64_t> returnedCount;
  for (Value v : ret.getOperands())
    ++returnedCount[v];
  DenseMap<Operation *, SmallVector<int64_t>> claims;
  for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
    auto of = program.getResultAttrOfType<StringAttr>(i, "bwc.state_update");
    auto call = v.getDefiningOp<func::CallOp>();
    if (!of || !call || !stepOf.count(call))
      continue;
    BlockArgument state;
    for (BlockArgument a : program.getArguments())
      if (auto n = program.getArgAttrOfType<StringAttr>(a.getArgNumber(),
                                                        "bwc.name");
          n && n == of && program.getArgAttr(a.getArgNumber(), "bwc.state"))
        state = a;
    if (!state)
      continue;
    unsigned k = cast<OpResult>(v).getResultNumber();
    std::string why;
    SmallVector<unsigned> uses;
    for (auto [j, operand] : llvm::enumerate(call.getOperands()))
      if (operand == state)
        uses.push_back(j);
    int64_t step = stepOf[call];
    if (uses.size() != 1)
      why = uses.empty() ? "the kernel does not read the state"
                         : "the kernel takes the state twice";
    else if (returnedCount[state] || returnedCount[v] != 1)
      why = "the state or its update is also a program output";
    else if (state.getType() != v.getType())
      why = "the update has another type";
    for (Operation *user : state.getUsers())
      if (why.empty() && stepOf.count(user) && stepOf[user] > step)
        why = "launch " + std::to_string(stepOf[user]) +
              " reads the state after it";
    if (why.empty())
      why = kernelInPlaceRefusal(
          symbols.lookup<func::FuncOp>(call.getCallee()), k, uses[0],
          epilogues);
    if (!why.empty()) {
      if (remarks)
        call.emitRemark() << "result " << k << " (the update of state "
                          << of << ") is copied after the run, not written "
                          << "in place: " << why;
      continue;
    }
    SmallVector<int64_t> &claim = claims[call];
    claim.resize(call.getNumResults(), -1);
    claim[k] = uses[0];
  }
  Builder b(program.getContext());
  for (auto &[call, claim] : claims)
    call->setAttr("bwc.state_inplace", b.getDenseI64ArrayAttr(claim));
}

struct PlanBuffersPass
    : public bwc::impl::PlanBuffersPassBase<PlanBuffersPass> {
  using PlanBuffersPassBase::PlanBuffersPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    func::FuncOp program = lookupProgram(module, funcName);
    if (!program)
      return signalPassFailure();
    std::optional<PlannerKind> only;
    if (planner == "greedy-by-size")
      only = PlannerKind::GreedyBySize;
    else if (planner == "best-fit")
      only = PlannerKind::BestFit;
    else if (planner != "smallest") {
      program.emitError() << "unknown planner '" << planner
                          << "' (expects smallest, greedy-by-size or best-fit)";
      return signalPassFailure();
    }
    auto runPlanner = [&](ArrayRef<PlanBuffer> buffers) {
      return only ? planBuffers(buffers, *only) : planBuffers(buffers);
    };

    Block &block = program.getBody().front();
    SmallVector<func::CallOp> calls;
    DenseSet<Value> returned;
    if (failed(collectLaunches(program, calls, returned)))
      return signalPassFailure();

    SymbolTable symbols(module);
    Liveness live = analyze(calls, returned, symbols, inPlace, epilogues,
                            false);
    BufferPlan plan = runPlanner(live.buffers);
    // Guarded launches (bwc-guard-branches) must stay after the launches
    // computing their conditions, which the reordering does not know.
    bool guarded = program->hasAttr("bwc.guarded_launches");
    if (schedule && guarded)
      program->setAttr("bwc.schedule",
                       StringAttr::get(&getContext(), "program-order"));
    if (schedule && !guarded) {
      SmallVector<func::CallOp> order = memoryAwareOrder(calls, returned);
      Liveness reordered =
          analyze(order, returned, symbols, inPlace, epilogues, false);
      BufferPlan candidate = runPlanner(reordered.buffers);
      bool keep = candidate.arenaBytes < plan.arenaBytes;
      Builder b(&getContext());
      program->setAttr("bwc.program_order_arena_bytes",
                       b.getI64IntegerAttr(plan.arenaBytes));
      program->setAttr("bwc.memory_aware_arena_bytes",
                       b.getI64IntegerAttr(candidate.arenaBytes));
      program->setAttr("bwc.schedule",
                       StringAttr::get(&getContext(), keep ? "memory-aware"
                                                           : "program-order"));
      if (keep) {
        // Constants first, so that no launch moves above its weights.
        Operation *firstNonConstant = nullptr;
        for (Operation &op : llvm::make_early_inc_range(block))
          if (!isa<ConstantOp>(op) && !firstNonConstant)
            firstNonConstant = &op;
          else if (isa<ConstantOp>(op) && firstNonConstant)
            op.moveBefore(firstNonConstant);
        for (func::CallOp call : order)
          call->moveBefore(block.getTerminator());
        calls = order;
        live = std::move(reordered);
        plan = std::move(candidate);
      }
    }
    if (remarks)
      analyze(calls, returned, symbols, inPlace, epilogues, true);

    Builder b(&getContext());
    for (func::CallOp call : calls) {
      SmallVector<int64_t> offsets, reuse;
      bool anyInPlace = false;
      for (Value r : call.getResults()) {
        auto it = live.bufferOf.find(r);
        if (it == live.bufferOf.end()) {
          offsets.push_back(-1);
          reuse.push_back(-1);
          continue;
        }
        offsets.push_back(plan.offsets[it->second]);
        int64_t operand = plan.inPlaceOf[it->second] >= 0
                              ? live.claimOperand[it->second]
                              : -1;
        reuse.push_back(operand);
        anyInPlace |= operand >= 0;
      }
      call->setAttr("bwc.offsets", b.getDenseI64ArrayAttr(offsets));
      if (anyInPlace)
        call->setAttr("bwc.inplace", b.getDenseI64ArrayAttr(reuse));
      else
        call->removeAttr("bwc.inplace");
    }
    if (inPlace)
      claimStateUpdates(program, calls, symbols, epilogues, remarks);
    program->setAttr("bwc.arena_bytes", b.getI64IntegerAttr(plan.arenaBytes));
    program->setAttr("bwc.lower_bound_bytes",
                     b.getI64IntegerAttr(plan.lowerBoundBytes));
    program->setAttr("bwc.no_reuse_bytes",
                     b.getI64IntegerAttr(plan.noReuseBytes));
    program->setAttr("bwc.planner",
                     b.getStringAttr(stringifyPlannerKind(plan.planner)));
  }
};

} // namespace
