//===- Fuse.cpp - Group ops into one-kernel bwc.fusion regions ------------===//
//
// Greedy fusion driven by the bytes-moved cost model. Every non-constant op
// of the program function starts in its own group; groups merge in three
// phases (producer-consumer, horizontal, duplication of cheap producers),
// each merge checked for legality (kind options, shape rules of the kernel
// kind, max-ops, no cycle between kernels) and profitability (the merged
// kernel moves fewer bytes than the separate ones). Groups are then emitted
// in a topological order: one bwc.fusion per group of two or more ops, the
// plain op for a singleton.
//
//===----------------------------------------------------------------------===//
#include "bwc/Transforms/Passes.h"

#include "bwc/Analysis/CostModel.h"
#include "bwc/Dialect/BWC/IR/BWCOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::bwc {
#define GEN_PASS_DEF_FUSEPASS
#include "bwc/Transforms/Passes.h.inc"
} // namespace mlir::bwc

using namespace mlir;
using namespace mlir::bwc;

namespace {

/// What an op contributes to a kernel.
enum class OpClass { Elementwise, DataMovement, Reduction, Contraction, Other };

OpClass classify(Operation *op) {
  if (isa<UnaryOp, BinaryOp, SelectOp, CastOp, BroadcastOp>(op))
    return OpClass::Elementwise;
  if (isa<ReshapeOp, TransposeOp, SliceOp, ConcatOp, PadOp, GatherOp>(op))
    return OpClass::DataMovement;
  if (auto r = dyn_cast<ResizeOp>(op))
    return r.getMode() == ResizeMode::nearest ? OpClass::DataMovement
                                              : OpClass::Other;
  if (isa<ReduceOp>(op))
    return OpClass::Reduction;
  if (isa<MatmulOp, ConvOp>(op))
    return OpClass::Contraction;
  return OpClass::Other; // pooling, arg reductions, interpolating resize
}

int64_t numElements(Value v) {
  return cast<RankedTensorType>(v.getType()).getNumElements();
}

/// Ops allowed before a contraction in its kernel unconditionally: pure
/// index changes and conversions.
bool isContractionPrologue(Operation *op) {
  return isa<CastOp, BroadcastOp, ReshapeOp>(op);
}

/// Ops that compute (or transpose) an operand of a contraction in its
/// kernel when the prologue as a whole widens (see isLegalContraction).
bool isComputingPrologue(Operation *op) {
  return isa<UnaryOp, BinaryOp, SelectOp, TransposeOp>(op);
}

int64_t bytesOf(Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  int64_t bits = t.getElementType().isIntOrFloat()
                     ? t.getElementType().getIntOrFloatBitWidth()
                     : 64;
  return t.getNumElements() * std::max<int64_t>(1, bits / 8);
}

/// Producers cheap enough to recompute in every consumer kernel.
bool isDuplicable(Operation *op) {
  return isa<BroadcastOp, ReshapeOp, CastOp, UnaryOp, BinaryOp, SelectOp>(op);
}

/// Why two groups are considered for merging; decides the option that
/// gates the merge.
enum class MergeReason { ProducerConsumer, Horizontal, Duplicate };

struct FusePass : public bwc::impl::FusePassBase<FusePass> {
  using FusePassBase::FusePassBase;

  void runOnOperation() override;

private:
  //===--------------------------------------------------------------------===//
  // Groups
  //===--------------------------------------------------------------------===//

  /// A kernel under construction. Ops are kept in block order. An op lives
  /// in its home group (`home`); a duplicated producer is also a member of
  /// the consumer groups it was cloned into.
  struct Group {
    llvm::SetVector<Operation *> ops;
    bool dead = false;
  };
  std::vector<Group> groups;
  DenseMap<Operation *, int> home;
  DenseMap<Operation *, int> position;
  func::FuncOp program;

  /// The group that computes `user`'s operands: the return counts as a
  /// group of its own (-1).
  int groupOfUser(Operation *user) {
    auto it = home.find(user);
    return it == home.end() ? -1 : it->second;
  }

  /// Ops of the union of `set` plus `extra`, in block order.
  SmallVector<Operation *> opsOf(ArrayRef<int> set,
                                 Operation *extra = nullptr) {
    llvm::SetVector<Operation *> ops;
    for (int g : set)
      ops.insert(groups[g].ops.begin(), groups[g].ops.end());
    if (extra)
      ops.insert(extra);
    SmallVector<Operation *> sorted(ops.begin(), ops.end());
    llvm::sort(sorted, [&](Operation *a, Operation *b) {
      return position[a] < position[b];
    });
    return sorted;
  }

  /// Inputs and outputs of the kernel made of groups `set` (plus `extra`, a
  /// duplicate). A result is an output when the kernel is the op's home and
  /// some user outside it does not compute the op itself (as a duplicate).
  void boundary(ArrayRef<int> set, Operation *extra,
                SmallVectorImpl<Value> &inputs,
                SmallVectorImpl<Value> &outputs) {
    SmallVector<Operation *> ops = opsOf(set, extra);
    llvm::SmallPtrSet<Operation *, 16> inside(ops.begin(), ops.end());
    llvm::SetVector<Value> in;
    for (Operation *op : ops)
      for (Value v : op->getOperands())
        if (!inside.contains(v.getDefiningOp()))
          in.insert(v);
    inputs.assign(in.begin(), in.end());
    outputs.clear();
    for (Operation *op : ops) {
      if (!llvm::is_contained(set, home.lookup(op)))
        continue; // a duplicate never writes its result: its home does
      for (Value r : op->getResults())
        if (llvm::any_of(r.getUsers(), [&](Operation *u) {
              if (inside.contains(u))
                return false;
              int g = groupOfUser(u);
              return g < 0 || !groups[g].ops.contains(op);
            }))
          outputs.push_back(r);
    }
  }

  KernelCost costOf(ArrayRef<int> set, Operation *extra = nullptr) {
    SmallVector<Value> inputs, outputs;
    boundary(set, extra, inputs, outputs);
    return kernelCost(inputs, outputs, opsOf(set, extra));
  }

  //===--------------------------------------------------------------------===//
  // Legality
  //===--------------------------------------------------------------------===//

  /// True when `ops` may run as one kernel under the kind options and the
  /// shape rules of the kind its emitter needs.
  bool isLegalKernel(ArrayRef<Operation *> ops, MergeReason reason);
  bool isLegalContraction(ArrayRef<Operation *> ops, Operation *contraction);
  bool isLegalReduction(ArrayRef<Operation *> ops,
                        ArrayRef<Operation *> reductions);

  /// True when merging groups `a` and `b` leaves the kernel graph acyclic:
  /// no path leaves the union and comes back to it.
  bool createsCycle(int a, int b);

  /// Merges `b` into `a` when legal and profitable; returns whether it did.
  bool tryMerge(int a, int b, MergeReason reason);

  //===--------------------------------------------------------------------===//
  // Phases
  //===--------------------------------------------------------------------===//

  /// Kinds 1, 2, 3, 5, 6: each op tries to join its producers' groups.
  void fuseProducersIntoConsumers();
  /// Kind 4: siblings reading the same tensor.
  void fuseHorizontally();
  /// Producer tails that widen move into their consumer's kernel, so that
  /// the narrow tensor crosses between the kernels.
  void moveWideningTails();
  /// Moves the best tail of group `p` ending at `def` into group `c`.
  void moveTail(int p, int c, Operation *def);
  /// Moves `ops` from group `from` to group `to`.
  void moveOps(ArrayRef<Operation *> ops, int from, int to);
  /// Cheap producers cloned into the groups of their consumers.
  void duplicateCheapProducers();
  /// True for a cheap producer left alone in phase 1 so that phase 3 can
  /// clone it into each consumer instead of writing its result once.
  bool isDeferredForDuplication(int g);

  void emit();
};

//===----------------------------------------------------------------------===//
// Legality
//===----------------------------------------------------------------------===//

bool FusePass::isLegalContraction(ArrayRef<Operation *> ops,
                                  Operation *contraction) {
  // Ops depending on the contraction inside the kernel form its epilogue:
  // elementwise (or reshaped) per output element. Everything else is a
  // prologue: index changes and casts, or elementwise arithmetic when the
  // prologue widens, that is reads fewer bytes than the values it hands to
  // the contraction and epilogue (a DequantizeLinear of int8 weights or
  // activations: (cast(q) - zero_point) * scale, transposed for a Gemm's
  // transB). A prologue element is
  // recomputed for every tile (or, on the CPU's elemental path, every
  // output) that reads it, so arithmetic that moves no fewer bytes (an
  // activation's relu) stays out and is fused as an epilogue upstream.
  llvm::SmallPtrSet<Operation *, 16> after{contraction};
  llvm::SmallPtrSet<Operation *, 16> prologue;
  bool computes = false;
  int64_t outElements = numElements(contraction->getResult(0));
  for (Operation *op : ops) {
    if (op == contraction)
      continue;
    bool dependent = llvm::any_of(op->getOperands(), [&](Value v) {
      return after.contains(v.getDefiningOp());
    });
    if (!dependent) {
      if (isComputingPrologue(op))
        computes = true;
      else if (!isContractionPrologue(op))
        return false;
      prologue.insert(op);
      continue;
    }
    after.insert(op);
    if (!(classify(op) == OpClass::Elementwise || isa<ReshapeOp>(op)) ||
        numElements(op->getResult(0)) != outElements)
      return false;
  }
  if (!computes)
    return true;
  llvm::SmallPtrSet<Value, 16> seen;
  int64_t read = 0, handed = 0;
  for (Operation *op : prologue) {
    for (Value v : op->getOperands())
      if (!prologue.contains(v.getDefiningOp()) && seen.insert(v).second)
        read += bytesOf(v);
    for (Value r : op->getResults())
      if (llvm::any_of(r.getUsers(),
                       [&](Operation *u) { return !prologue.contains(u); }))
        handed += bytesOf(r);
  }
  return read < handed;
}

bool FusePass::isLegalReduction(ArrayRef<Operation *> ops,
                                ArrayRef<Operation *> reductions) {
  // One row structure: every reduction reduces the same axes of the same
  // shape; every other op works on whole rows or on one value per row.
  auto first = cast<ReduceOp>(reductions.front());
  for (Operation *op : reductions.drop_front()) {
    auto r = cast<ReduceOp>(op);
    if (r.getInput().getType() != first.getInput().getType() ||
        r.getAxes() != first.getAxes())
      return false;
  }
  int64_t full = numElements(first.getInput());
  int64_t rows = numElements(first.getResult());
  for (Operation *op : ops) {
    if (isa<ReduceOp>(op))
      continue;
    int64_t n = numElements(op->getResult(0));
    if (n != full && n != rows)
      return false;
  }
  return true;
}

/// A runtime If's join (a bwc.select marked `bwc.if_both_branches`) runs
/// in every run while the launches only one branch needs are skipped
/// (bwc-guard-branches). So a kernel holding a join may not also compute
/// its condition (which must reach memory before the branches' launches),
/// nor a contraction or reduction (a branch's heavy work would then run
/// whatever the branch; elementwise ops and data movement cost the join
/// little, and it reads both branches' values anyway).
static bool isIllegalJoin(ArrayRef<Operation *> ops) {
  bool join = false;
  for (Operation *op : ops) {
    auto select = dyn_cast<SelectOp>(op);
    if (!select || !select->hasAttr("bwc.if_both_branches"))
      continue;
    join = true;
    Value c = select.getCond();
    while (Operation *def = c.getDefiningOp()) {
      if (!isa<ReshapeOp, BroadcastOp>(def)) {
        if (llvm::is_contained(ops, def))
          return true;
        break;
      }
      c = def->getOperand(0);
    }
  }
  return join && llvm::any_of(ops, [](Operation *op) {
           OpClass k = classify(op);
           return k == OpClass::Contraction || k == OpClass::Reduction;
         });
}

bool FusePass::isLegalKernel(ArrayRef<Operation *> ops, MergeReason reason) {
  if ((int64_t)ops.size() > maxOps)
    return false;
  if (isIllegalJoin(ops))
    return false;
  if (reason == MergeReason::Horizontal && !horizontal)
    return false;
  if (reason == MergeReason::Duplicate && !duplicate)
    return false;
  SmallVector<Operation *> contractions, reductions;
  int elementwiseOps = 0, dataMovementOps = 0;
  for (Operation *op : ops) {
    switch (classify(op)) {
    case OpClass::Other:
      return false;
    case OpClass::Contraction:
      contractions.push_back(op);
      break;
    case OpClass::Reduction:
      reductions.push_back(op);
      break;
    case OpClass::DataMovement:
      ++dataMovementOps;
      break;
    case OpClass::Elementwise:
      ++elementwiseOps;
      break;
    }
  }
  // Data movement joins any kind only when its option is on; a reshape
  // prologue of a contraction is the exception (it is free).
  if (dataMovementOps && !dataMovement &&
      !(contractions.size() == 1 && llvm::all_of(ops, [](Operation *op) {
          return classify(op) != OpClass::DataMovement || isa<ReshapeOp>(op);
        })))
    return false;
  if (!contractions.empty()) {
    // A contraction is never duplicated and never shares a kernel with
    // another contraction or a reduction.
    if (!contractionEpilogue || contractions.size() > 1 ||
        !reductions.empty() || reason == MergeReason::Horizontal)
      return false;
    return isLegalContraction(ops, contractions.front());
  }
  if (!reductions.empty())
    return reduction && isLegalReduction(ops, reductions);
  if (elementwiseOps > 1 && !elementwise)
    return false;
  return true;
}

bool FusePass::createsCycle(int a, int b) {
  // Breadth-first over groups from the union's consumers outside it.
  auto successors = [&](int g, SmallVectorImpl<int> &out) {
    for (Operation *op : groups[g].ops)
      for (Operation *u : op->getUsers()) {
        int s = groupOfUser(u);
        if (s >= 0 && s != g)
          out.push_back(s);
      }
  };
  SmallVector<int> frontier;
  successors(a, frontier);
  successors(b, frontier);
  DenseSet<int> seen;
  while (!frontier.empty()) {
    int g = frontier.pop_back_val();
    if (g == a || g == b) {
      // Direct edges between the two are fine; only paths through a third
      // group count, and those are found from that group below.
      continue;
    }
    if (!seen.insert(g).second)
      continue;
    SmallVector<int> next;
    successors(g, next);
    for (int s : next)
      if (s == a || s == b)
        return true;
    frontier.append(next);
  }
  return false;
}

bool FusePass::tryMerge(int a, int b, MergeReason reason) {
  if (a == b || groups[a].dead || groups[b].dead)
    return false;
  SmallVector<Operation *> merged = opsOf({a, b});
  if (!isLegalKernel(merged, reason))
    return false;
  SmallVector<Value> inputs, outputs;
  boundary({a, b}, nullptr, inputs, outputs);
  if (outputs.size() > 1 && !multiOutput)
    return false;
  uint64_t separate = costOf({a}).bytes() + costOf({b}).bytes();
  if (kernelCost(inputs, outputs, merged).bytes() >= separate)
    return false;
  if (createsCycle(a, b))
    return false;
  for (Operation *op : groups[b].ops) {
    groups[a].ops.insert(op);
    if (home.lookup(op) == b)
      home[op] = a;
  }
  groups[b].ops.clear();
  groups[b].dead = true;
  return true;
}

//===----------------------------------------------------------------------===//
// Phases
//===----------------------------------------------------------------------===//

bool FusePass::isDeferredForDuplication(int g) {
  if (!duplicate || groups[g].ops.size() != 1)
    return false;
  Operation *op = groups[g].ops.front();
  if (!isDuplicable(op))
    return false;
  DenseSet<Operation *> users(op->getUsers().begin(), op->getUsers().end());
  return users.size() > 1;
}

void FusePass::fuseProducersIntoConsumers() {
  for (Operation &op : program.getBody().front()) {
    if (!home.count(&op))
      continue;
    for (Value v : op.getOperands()) {
      Operation *producer = v.getDefiningOp();
      if (!producer || !home.count(producer))
        continue;
      int p = home[producer];
      if (isDeferredForDuplication(p))
        continue;
      tryMerge(home[&op], p, MergeReason::ProducerConsumer);
    }
  }
}

void FusePass::fuseHorizontally() {
  // Values read by several groups: block arguments and op results.
  SmallVector<Value> shared(program.getArguments().begin(),
                            program.getArguments().end());
  for (Operation &op : program.getBody().front())
    llvm::append_range(shared, op.getResults());
  for (Value v : shared) {
    if (isInlinedConstant(v))
      continue;
    SmallVector<int> readers;
    for (Operation *u : v.getUsers()) {
      int g = groupOfUser(u);
      if (g >= 0 && !llvm::is_contained(readers, g))
        readers.push_back(g);
    }
    for (size_t i = 0; i < readers.size(); ++i)
      for (size_t j = i + 1; j < readers.size(); ++j)
        if (!groups[readers[i]].dead && !groups[readers[j]].dead)
          tryMerge(readers[i], readers[j], MergeReason::Horizontal);
  }
}

void FusePass::moveOps(ArrayRef<Operation *> ops, int from, int to) {
  for (Operation *op : ops) {
    groups[from].ops.remove(op);
    groups[to].ops.insert(op);
    home[op] = to;
  }
}

void FusePass::moveTail(int p, int c, Operation *def) {
  // An op may leave p when it is elementwise (or an index change) and all
  // its users are in the tail or in c: p then no longer needs its result.
  llvm::SmallPtrSet<Operation *, 16> inTail;
  auto movable = [&](Operation *op) {
    if (inTail.contains(op) || home.lookup(op) != p ||
        !groups[p].ops.contains(op) ||
        !(isComputingPrologue(op) || isContractionPrologue(op)))
      return false;
    return llvm::all_of(op->getUsers(), [&](Operation *u) {
      return inTail.contains(u) || (groupOfUser(u) == c &&
                                    groups[c].ops.contains(u));
    });
  };
  if (!movable(def))
    return;
  uint64_t best = costOf({p}).bytes() + costOf({c}).bytes();
  SmallVector<Operation *> tail{def}, bestTail;
  inTail.insert(def);
  // Grow the tail one level of producers at a time; each level is a cut
  // between p and c, priced like a merge.
  while (true) {
    // Tried in place, then restored exactly (emit() orders kernels by
    // their groups' first ops).
    llvm::SetVector<Operation *> savedP = groups[p].ops, savedC = groups[c].ops;
    moveOps(tail, p, c);
    if (!groups[p].ops.empty()) {
      SmallVector<Operation *> producer = opsOf({p}), consumer = opsOf({c});
      SmallVector<Value> inputs, outputs, consumerOutputs;
      boundary({p}, nullptr, inputs, outputs);
      boundary({c}, nullptr, inputs, consumerOutputs);
      uint64_t bytes = costOf({p}).bytes() + costOf({c}).bytes();
      if (bytes < best &&
          isLegalKernel(producer, MergeReason::ProducerConsumer) &&
          isLegalKernel(consumer, MergeReason::ProducerConsumer) &&
          (multiOutput ||
           (outputs.size() <= 1 && consumerOutputs.size() <= 1))) {
        best = bytes;
        bestTail = tail;
      }
    }
    groups[p].ops = savedP;
    groups[c].ops = savedC;
    for (Operation *op : tail)
      home[op] = p;
    if ((int64_t)tail.size() >= maxOps)
      break;
    SmallVector<Operation *> level;
    for (Operation *t : tail)
      for (Value v : t->getOperands())
        if (Operation *d = v.getDefiningOp())
          if (!llvm::is_contained(level, d) && movable(d))
            level.push_back(d);
    if (level.empty())
      break;
    for (Operation *d : level) {
      tail.push_back(d);
      inTail.insert(d);
    }
  }
  moveOps(bestTail, p, c);
}

void FusePass::moveWideningTails() {
  for (Operation &op : program.getBody().front()) {
    if (!home.count(&op))
      continue;
    for (Value v : op.getOperands()) {
      Operation *def = v.getDefiningOp();
      if (!def || !home.count(def))
        continue;
      int p = home[def], c = home[&op];
      if (p != c && !groups[p].dead && !groups[c].dead)
        moveTail(p, c, def);
    }
  }
}

void FusePass::duplicateCheapProducers() {
  for (Operation &op : program.getBody().front()) {
    if (!home.count(&op))
      continue;
    int p = home[&op];
    if (!isDeferredForDuplication(p))
      continue;
    // Consumer groups that may compute the producer themselves.
    SmallVector<int> consumers;
    bool someUserLeft = false;
    for (Operation *u : op.getUsers()) {
      int g = groupOfUser(u);
      if (g < 0 || g == p) {
        someUserLeft = true;
        continue;
      }
      if (llvm::is_contained(consumers, g))
        continue;
      if (isLegalKernel(opsOf({g}, &op), MergeReason::Duplicate))
        consumers.push_back(g);
      else
        someUserLeft = true;
    }
    if (consumers.empty())
      continue;
    uint64_t before = costOf({p}).bytes(), after = 0;
    for (int g : consumers) {
      before += costOf({g}).bytes();
      after += costOf({g}, &op).bytes();
    }
    if (someUserLeft)
      after += costOf({p}).bytes();
    if (after < before) {
      for (int g : consumers)
        groups[g].ops.insert(&op);
      continue;
    }
    // Not worth cloning: fall back to fusing it into one consumer.
    for (int g : consumers)
      if (tryMerge(g, p, MergeReason::ProducerConsumer))
        break;
  }
}

//===----------------------------------------------------------------------===//
// Emission
//===----------------------------------------------------------------------===//

FusionKind kindOf(ArrayRef<Operation *> ops) {
  if (llvm::any_of(ops, [](Operation *op) {
        return classify(op) == OpClass::Contraction;
      }))
    return FusionKind::contraction;
  if (llvm::any_of(ops, [](Operation *op) {
        return classify(op) == OpClass::Reduction;
      }))
    return FusionKind::reduction;
  return FusionKind::loop;
}

void FusePass::emit() {
  // Topological order of the groups (Kahn), earliest op first among the
  // ready ones so that unfused programs keep their order.
  SmallVector<int> live;
  for (int g = 0, e = groups.size(); g < e; ++g)
    if (!groups[g].dead && !groups[g].ops.empty())
      live.push_back(g);
  DenseMap<int, SmallVector<int>> succ;
  DenseMap<int, int> indegree;
  for (int g : live) {
    DenseSet<int> preds;
    for (Operation *op : groups[g].ops)
      for (Value v : op->getOperands())
        if (Operation *d = v.getDefiningOp(); d && home.count(d)) {
          int pg = home[d];
          if (pg != g && !groups[g].ops.contains(d) && preds.insert(pg).second)
            succ[pg].push_back(g);
        }
    indegree[g] = preds.size();
  }
  auto firstPos = [&](int g) { return position[groups[g].ops.front()]; };
  auto later = [&](int a, int b) { return firstPos(a) > firstPos(b); };
  std::vector<int> ready;
  for (int g : live)
    if (indegree[g] == 0)
      ready.push_back(g);
  std::make_heap(ready.begin(), ready.end(), later);

  Block &block = program.getBody().front();
  Operation *terminator = block.getTerminator();
  OpBuilder b(terminator);
  IRMapping replaced; // original value -> value computed by a kernel
  size_t emitted = 0;
  while (!ready.empty()) {
    std::pop_heap(ready.begin(), ready.end(), later);
    int g = ready.back();
    ready.pop_back();
    for (int s : succ[g])
      if (--indegree[s] == 0) {
        ready.push_back(s);
        std::push_heap(ready.begin(), ready.end(), later);
      }

    SmallVector<Operation *> ops = opsOf({g});
    SmallVector<Value> inputs, outputs;
    boundary({g}, nullptr, inputs, outputs);
    ++emitted;
    if (outputs.empty())
      continue; // a duplicated producer every consumer computes itself
    if (ops.size() == 1) {
      Operation *clone = b.clone(*ops.front(), replaced);
      replaced.map(ops.front()->getResults(), clone->getResults());
      continue;
    }
    // Small constants become literals inside the region.
    SmallVector<Value> kernelInputs;
    for (Value v : inputs)
      if (!isInlinedConstant(v))
        kernelInputs.push_back(replaced.lookupOrDefault(v));
    auto fusion = FusionOp::create(b, ops.front()->getLoc(),
                                   ValueRange(outputs).getTypes(), kindOf(ops),
                                   kernelInputs);
    Block *body = new Block();
    fusion.getBody().push_back(body);
    OpBuilder inner = OpBuilder::atBlockBegin(body);
    IRMapping map;
    for (Value v : inputs) {
      if (isInlinedConstant(v))
        map.map(v, inner.clone(*v.getDefiningOp())->getResult(0));
      else
        map.map(v, body->addArgument(v.getType(), v.getLoc()));
    }
    for (Operation *op : ops)
      inner.clone(*op, map);
    SmallVector<Value> yielded;
    for (Value v : outputs)
      yielded.push_back(map.lookup(v));
    YieldOp::create(inner, fusion.getLoc(), yielded);
    replaced.map(outputs, fusion.getResults());
  }

  if (emitted != live.size()) {
    program.emitError() << "fusion formed a cycle between kernels";
    return signalPassFailure();
  }
  for (OpOperand &operand : terminator->getOpOperands())
    operand.set(replaced.lookupOrDefault(operand.get()));
  // The originals now feed only each other.
  SmallVector<Operation *> originals;
  for (auto &[op, g] : home)
    originals.push_back(op);
  llvm::sort(originals, [&](Operation *a, Operation *b) {
    return position[a] > position[b];
  });
  for (Operation *op : originals) {
    op->dropAllUses();
    op->erase();
  }
}

void FusePass::runOnOperation() {
  ModuleOp module = getOperation();
  program = lookupProgram(module, funcName);
  if (!program)
    return signalPassFailure();
  ProgramCost before = programCost(program);

  int index = 0;
  for (Operation &op : program.getBody().front()) {
    position[&op] = index++;
    if (isa<ConstantOp>(op) || op.hasTrait<OpTrait::IsTerminator>())
      continue;
    home[&op] = groups.size();
    groups.emplace_back();
    groups.back().ops.insert(&op);
  }
  fuseProducersIntoConsumers();
  fuseHorizontally();
  moveWideningTails();
  duplicateCheapProducers();
  emit();

  if (printCost) {
    ProgramCost after = programCost(program);
    llvm::errs() << "bwc-fuse: kernels " << before.kernels.size() << " -> "
                 << after.kernels.size() << ", DRAM bytes " << before.bytes()
                 << " -> " << after.bytes() << "\n";
  }
}

} // namespace
