//===- GuardBranches.cpp - Launches only one branch of an If needs --------===//
//
// An ONNX If on a runtime condition is imported as both branches and one
// bwc.select per output, marked `bwc.if_both_branches`. After outlining,
// this pass finds the launches whose every result is needed only through
// the then (or else) operand of such selects, and guards them with the
// condition: the executor reads the condition and skips them when the
// other branch is taken (rt::Launch::guards).
//
// The analysis is a backward "needed only when" dataflow over the program
// and the kernel bodies. N(v), a set of (condition, branch) pairs, says
// that v is read only in runs where every pair holds; it is the meet
// (intersection) of what each use of v requires:
// - the then/else operand of an If select whose condition traces to a
//   kernel argument: N(select) plus (condition, branch);
// - an op that cannot misbehave on undefined data (arithmetic, data
//   movement, contractions: no address is computed from a value, no
//   integer division): N(op), the meet of its results';
// - any other op (a gather, an integer division): the guard of the whole
//   kernel, since it must see defined data whenever the kernel runs;
// - a program result: nothing (needed always).
// A launch's guard is the meet of its results' N. The join kernel reads
// the skipped branch's results (undefined) only to let the select discard
// them, which is why the ops between them must be safe on any bits.
//
// A guarded launch must come after its conditions are computed; one that
// does not is moved down to just before its first user (which needs the
// same conditions and so comes later).
//
// Decisions, as attributes: `bwc.guard = [{cond = N, branch = "then"}]` on
// a guarded call; `bwc.branch_conditions = [{id = N, result = R}]` on the
// call computing condition N (result R), or `bwc.branch_condition = N` on
// a program argument that is one. `bwc.guarded_launches` on the program
// counts the guarded calls.
//
//===----------------------------------------------------------------------===//
#include "bwc/Transforms/Passes.h"

#include "bwc/Dialect/BWC/IR/BWCOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::bwc {
#define GEN_PASS_DEF_GUARDBRANCHESPASS
#include "bwc/Transforms/Passes.h.inc"
} // namespace mlir::bwc

using namespace mlir;
using namespace mlir::bwc;

namespace {

/// (condition, branch): the condition is a program value (an argument or a
/// call result) of one i1 element; branch true = then.
using Guard = std::pair<Value, bool>;

/// N(v): `top` (no use constrains v yet) or the set of guards every use
/// requires, sorted.
struct Need {
  bool top = true;
  SmallVector<Guard> guards;

  static Need none() {
    Need n;
    n.top = false;
    return n;
  }
  void meet(const Need &o) {
    if (o.top)
      return;
    if (top) {
      *this = o;
      return;
    }
    SmallVector<Guard> both;
    for (const Guard &g : guards)
      if (llvm::is_contained(o.guards, g))
        both.push_back(g);
    guards = std::move(both);
  }
  Need with(Guard g) const {
    Need n = *this;
    if (!n.top && !llvm::is_contained(n.guards, g))
      n.guards.push_back(g);
    return n;
  }
};

/// Ops that compute no address from a value and cannot trap whatever the
/// bits of their operands: they may read a skipped branch's undefined
/// results, whose values are then discarded by the select.
bool safeOnUndefined(Operation *op) {
  if (auto binary = dyn_cast<BinaryOp>(op)) {
    Type element = getElementTypeOrSelf(binary.getLhs().getType());
    return !(isa<IntegerType>(element) &&
             (binary.getFn() == BinaryFn::div ||
              binary.getFn() == BinaryFn::mod));
  }
  return isa<ConstantOp, UnaryOp, SelectOp, CastOp, ReduceOp, ArgReduceOp,
             MatmulOp, ConvOp, PoolOp, TransposeOp, ReshapeOp, BroadcastOp,
             SliceOp, ConcatOp, PadOp, ResizeOp>(op);
}

/// The program value a join select's condition comes from: traced through
/// reshapes and broadcasts to an argument of `kernel`, then to the operand
/// `call` passes there; null when the kernel computes it, when it is not a
/// program argument or launch result (a weight), or not one i1 element.
Value conditionOf(SelectOp select, func::FuncOp kernel, func::CallOp call) {
  Value c = select.getCond();
  while (Operation *def = c.getDefiningOp()) {
    if (!isa<ReshapeOp, BroadcastOp>(def))
      return {};
    c = def->getOperand(0);
  }
  auto arg = dyn_cast<BlockArgument>(c);
  if (!arg || arg.getOwner() != &kernel.getBody().front())
    return {};
  Value outer = call.getOperand(arg.getArgNumber());
  // A program argument or a launch's result: a buffer the executor reads.
  if (!isa<BlockArgument>(outer) && !outer.getDefiningOp<func::CallOp>())
    return {};
  auto type = dyn_cast<RankedTensorType>(outer.getType());
  if (!type || !type.getElementType().isInteger(1) ||
      !type.hasStaticShape() || type.getNumElements() != 1)
    return {};
  return outer;
}

struct GuardBranchesPass
    : public bwc::impl::GuardBranchesPassBase<GuardBranchesPass> {
  using GuardBranchesPassBase::GuardBranchesPassBase;

  /// N of each operand of `call`, given N of its results and the guard of
  /// the launch (`launch`).
  SmallVector<Need> operandNeeds(func::CallOp call, func::FuncOp kernel,
                                 ArrayRef<Need> results, const Need &launch) {
    SmallVector<Need> out(call.getNumOperands(), launch);
    if (!kernel || kernel.isExternal() || !kernel.getBody().hasOneBlock())
      return out;
    Block &body = kernel.getBody().front();
    for (Operation &op : body)
      if (op.getNumRegions())
        return out;
    DenseMap<Value, Need> need;
    Operation *ret = body.getTerminator();
    for (auto [k, v] : llvm::enumerate(ret->getOperands()))
      need[v].meet(k < results.size() ? results[k] : Need::none());
    for (Operation &op : llvm::reverse(body.without_terminator())) {
      Need opNeed;
      for (Value r : op.getResults())
        if (auto it = need.find(r); it != need.end())
          opNeed.meet(it->second);
      auto select = dyn_cast<SelectOp>(op);
      Value cond = select && select->hasAttr("bwc.if_both_branches")
                       ? conditionOf(select, kernel, call)
                       : Value();
      bool safe = safeOnUndefined(&op);
      for (OpOperand &use : op.getOpOperands()) {
        Need n = safe ? opNeed : launch;
        if (cond && use.getOperandNumber() > 0)
          n = opNeed.with({cond, use.getOperandNumber() == 1});
        need[use.get()].meet(n);
      }
    }
    for (BlockArgument arg : body.getArguments())
      if (auto it = need.find(arg); it != need.end())
        out[arg.getArgNumber()] = it->second;
      else
        out[arg.getArgNumber()] = Need(); // unread: constrains nothing
    return out;
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    func::FuncOp program = lookupProgram(module, funcName);
    if (!program)
      return signalPassFailure();
    Block &block = program.getBody().front();
    SmallVector<func::CallOp> calls;
    for (Operation &op : block)
      if (auto call = dyn_cast<func::CallOp>(op))
        calls.push_back(call);

    DenseMap<Operation *, SmallVector<Need>> operandNeed;
    DenseMap<Operation *, Need> launchGuard;
    SymbolTable symbols(module);
    for (func::CallOp call : llvm::reverse(calls)) {
      SmallVector<Need> results;
      Need launch;
      for (Value r : call.getResults()) {
        Need n;
        for (OpOperand &use : r.getUses()) {
          auto it = operandNeed.find(use.getOwner());
          n.meet(it == operandNeed.end()
                     ? Need::none()
                     : it->second[use.getOperandNumber()]);
        }
        launch.meet(n);
        results.push_back(n);
      }
      if (launch.top)
        launch = Need::none(); // unused or no results: not guarded
      launchGuard[call] = launch;
      operandNeed[call] = operandNeeds(
          call, symbols.lookup<func::FuncOp>(call.getCallee()), results,
          launch);
    }

    // Conditions must be computed before the launches they guard.
    auto definedBefore = [&](Value cond, Operation *at) {
      Operation *def = cond.getDefiningOp();
      return !def || def->isBeforeInBlock(at);
    };
    for (func::CallOp call : llvm::reverse(calls)) {
      Need &g = launchGuard[call];
      if (g.guards.empty() ||
          llvm::all_of(g.guards, [&](const Guard &x) {
            return definedBefore(x.first, call);
          }))
        continue;
      Operation *first = nullptr;
      for (Operation *user : call->getUsers())
        if (!first || user->isBeforeInBlock(first))
          first = user;
      if (first)
        call->moveBefore(first);
      if (!first || !llvm::all_of(g.guards, [&](const Guard &x) {
            return definedBefore(x.first, call);
          }))
        g.guards.clear(); // cannot happen by construction; run always
    }

    // Attributes: condition ids in program order (arguments first).
    MLIRContext *ctx = &getContext();
    Builder b(ctx);
    llvm::MapVector<Value, int64_t> ids;
    for (func::CallOp call : calls)
      for (const Guard &g : launchGuard[call].guards)
        ids.insert({g.first, 0});
    SmallVector<Value> conds;
    for (auto &entry : ids)
      conds.push_back(entry.first);
    llvm::sort(conds, [&](Value x, Value y) {
      auto ax = dyn_cast<BlockArgument>(x), ay = dyn_cast<BlockArgument>(y);
      if (ax || ay)
        return ax && ay ? ax.getArgNumber() < ay.getArgNumber() : bool(ax);
      if (x.getDefiningOp() != y.getDefiningOp())
        return x.getDefiningOp()->isBeforeInBlock(y.getDefiningOp());
      return cast<OpResult>(x).getResultNumber() <
             cast<OpResult>(y).getResultNumber();
    });
    for (auto [i, c] : llvm::enumerate(conds))
      ids[c] = i;
    DenseMap<Operation *, SmallVector<Attribute>> defined;
    for (Value c : conds) {
      if (auto arg = dyn_cast<BlockArgument>(c)) {
        program.setArgAttr(arg.getArgNumber(), "bwc.branch_condition",
                           b.getI64IntegerAttr(ids[c]));
        continue;
      }
      defined[c.getDefiningOp()].push_back(b.getDictionaryAttr(
          {b.getNamedAttr("id", b.getI64IntegerAttr(ids[c])),
           b.getNamedAttr("result", b.getI64IntegerAttr(
                                        cast<OpResult>(c).getResultNumber()))}));
    }
    for (auto &[op, list] : defined)
      op->setAttr("bwc.branch_conditions", b.getArrayAttr(list));
    int64_t guarded = 0;
    for (func::CallOp call : calls) {
      SmallVector<Guard> gs = launchGuard[call].guards;
      if (gs.empty())
        continue;
      llvm::sort(gs, [&](const Guard &x, const Guard &y) {
        return std::make_pair(ids[x.first], x.second) <
               std::make_pair(ids[y.first], y.second);
      });
      SmallVector<Attribute> list;
      for (const Guard &g : gs)
        list.push_back(b.getDictionaryAttr(
            {b.getNamedAttr("branch",
                            b.getStringAttr(g.second ? "then" : "else")),
             b.getNamedAttr("cond", b.getI64IntegerAttr(ids[g.first]))}));
      call->setAttr("bwc.guard", b.getArrayAttr(list));
      ++guarded;
    }
    if (guarded)
      program->setAttr("bwc.guarded_launches", b.getI64IntegerAttr(guarded));
  }
};

} // namespace
