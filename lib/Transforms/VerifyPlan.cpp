//===- VerifyPlan.cpp - Prove a buffer plan sound -------------------------===//
//
// Trusts nothing the planner computed but the offsets: live ranges come
// from the program function again, sizes from the result types, and the
// check itself is bwc/Analysis/BufferPlan.h's checkPlan.
//
//===----------------------------------------------------------------------===//
#include "bwc/Transforms/Passes.h"

#include "bwc/Analysis/BranchGuards.h"
#include "bwc/Analysis/BufferPlan.h"
#include "bwc/Analysis/CostModel.h"
#include "bwc/Dialect/BWC/IR/BWCOps.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::bwc {
#define GEN_PASS_DEF_VERIFYPLANPASS
#include "bwc/Transforms/Passes.h.inc"
} // namespace mlir::bwc

using namespace mlir;
using namespace mlir::bwc;

namespace {

struct VerifyPlanPass : public bwc::impl::VerifyPlanPassBase<VerifyPlanPass> {
  using VerifyPlanPassBase::VerifyPlanPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    func::FuncOp program = lookupProgram(module, funcName);
    if (!program)
      return signalPassFailure();
    auto arenaAttr = program->getAttrOfType<IntegerAttr>("bwc.arena_bytes");
    if (!arenaAttr || arenaAttr.getInt() < 0) {
      program.emitError() << "expects a non-negative 'bwc.arena_bytes' on '"
                          << funcName << "' (run bwc-plan-buffers first)";
      return signalPassFailure();
    }
    uint64_t arena = arenaAttr.getInt();

    Block &block = program.getBody().front();
    DenseSet<Value> returned(block.getTerminator()->getOperands().begin(),
                             block.getTerminator()->getOperands().end());
    DenseMap<Operation *, int64_t> stepOf;
    for (Operation &op : block)
      if (isa<func::CallOp>(op))
        stepOf[&op] = stepOf.size();

    std::vector<PlanBuffer> buffers;
    std::vector<uint64_t> offsets;
    std::vector<std::pair<func::CallOp, unsigned>> owner;
    DenseMap<Value, int64_t> bufferOf;
    bool ok = true;
    for (Operation &op : block) {
      auto call = dyn_cast<func::CallOp>(op);
      if (!call)
        continue;
      int64_t step = stepOf[call];
      auto offsetsAttr = call->getAttrOfType<DenseI64ArrayAttr>("bwc.offsets");
      if (!offsetsAttr || offsetsAttr.size() != (int64_t)call.getNumResults()) {
        call.emitError() << "expects 'bwc.offsets' with one offset per result "
                            "on the launch of '"
                         << call.getCallee() << "'";
        ok = false;
        continue;
      }
      auto inPlaceAttr = call->getAttrOfType<DenseI64ArrayAttr>("bwc.inplace");
      if (inPlaceAttr && inPlaceAttr.size() != (int64_t)call.getNumResults()) {
        call.emitError() << "expects 'bwc.inplace' with one entry per result "
                            "on the launch of '"
                         << call.getCallee() << "'";
        ok = false;
        continue;
      }
      for (auto [k, r] : llvm::enumerate(call.getResults())) {
        int64_t offset = offsetsAttr[k];
        if (returned.contains(r)) {
          if (offset != -1) {
            call.emitError()
                << "expects result " << k << " of '" << call.getCallee()
                << "', a program output, outside the arena but "
                   "got offset "
                << offset;
            ok = false;
          }
          continue;
        }
        if (offset < 0) {
          call.emitError() << "expects an arena offset for result " << k
                           << " of '" << call.getCallee()
                           << "', an intermediate, but got " << offset;
          ok = false;
          continue;
        }
        PlanBuffer b;
        b.bytes = tensorBytes(r.getType());
        b.firstDef = b.lastUse = step;
        b.guards = launchGuards(call);
        for (Operation *user : r.getUsers())
          if (stepOf.count(user))
            b.lastUse = std::max(b.lastUse, stepOf[user]);
        if (inPlaceAttr && inPlaceAttr[k] >= 0) {
          int64_t operand = inPlaceAttr[k];
          auto it = operand < (int64_t)call.getNumOperands()
                        ? bufferOf.find(call.getOperand(operand))
                        : bufferOf.end();
          if (it == bufferOf.end()) {
            call.emitError()
                << "expects result " << k << " of '" << call.getCallee()
                << "' to reuse an intermediate operand in place "
                   "but got operand "
                << operand;
            ok = false;
          } else {
            b.inPlaceOf = it->second;
          }
        }
        bufferOf[r] = buffers.size();
        buffers.push_back(b);
        offsets.push_back(offset);
        owner.push_back({call, (unsigned)k});
      }
    }
    if (!ok)
      return signalPassFailure();

    auto name = [&](int64_t i) {
      return ("'" + owner[i].first.getCallee() + "' result " +
              Twine(owner[i].second))
          .str();
    };
    for (const PlanConflict &c : checkPlan(buffers, offsets, arena)) {
      func::CallOp at = owner[std::max(c.first, c.second)].first;
      InFlightDiagnostic d = at.emitError();
      switch (c.kind) {
      case PlanConflict::Overlap:
        d << "buffers of " << name(c.first) << " and " << name(c.second)
          << " overlap at [" << c.begin << ", " << c.end
          << ") while both live at launch " << c.launch;
        break;
      case PlanConflict::OutsideArena:
        d << "buffer of " << name(c.first) << " at [" << c.begin << ", "
          << c.end << ") lies outside the arena [0, " << arena << ")";
        break;
      case PlanConflict::Misaligned:
        d << "buffer of " << name(c.first) << " at offset " << c.begin
          << " is not " << kArenaAlignment << "-byte aligned";
        break;
      }
      ok = false;
    }
    if (!ok)
      signalPassFailure();
  }
};

} // namespace
