//===- SelectLayout.cpp - Channels-last convolutions and baked weights ----===//
//
// Physical layouts for the tensors of a convolution net, chosen by the
// access model. A *chain* is a connected group of convolutions and pools
// (the anchors) and the ops between them that do not care about the order
// of dims (elementwise ops, casts, concat, pad, slice, resize, keepdims
// reductions), all of one rank. Each anchor is priced in DRAM bytes
// fetched in 32-byte sectors when its kernel runs channels-first (NCHW)
// and channels-last (NHWC); each layout change as a stand-alone read and
// write of the tensor it converts. Every op of the chain is then labeled
// with the cheapest assignment, found exactly as a minimum s-t cut, so a
// layout change lands where the tensor is smallest, or nowhere. Graph
// inputs and outputs keep the user's layout. Constant operands are
// converted at compile time: conv filters are stored [K..., C/groups, F]
// and every transpose of a constant, whatever its size, becomes a
// transposed constant (transposed weights baked in).
// docs/passes/bwc-select-layout.md describes the cost model and options.
//
//===----------------------------------------------------------------------===//
#include "bwc/Transforms/Passes.h"

#include "bwc/Analysis/AccessModel.h"
#include "bwc/Analysis/CostModel.h"
#include "bwc/Analysis/FetchedBytes.h"
#include "bwc/Analysis/MinCut.h"
#include "bwc/Dialect/BWC/IR/BWCOps.h"
#include "bwc/Dialect/BWC/Utils/ConstantData.h"
#include "bwc/Dialect/BWC/Utils/ShapeUtils.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::bwc {
#define GEN_PASS_DEF_SELECTLAYOUTPASS
#include "bwc/Transforms/Passes.h.inc"
} // namespace mlir::bwc

using namespace mlir;
using namespace mlir::bwc;

namespace {

RankedTensorType tensorOf(Value v) {
  return dyn_cast<RankedTensorType>(v.getType());
}

int64_t rankOf(Value v) {
  auto t = tensorOf(v);
  return t ? t.getRank() : -1;
}

/// Convs and pools not yet channels-last.
bool isAnchor(Operation *op) {
  return isa<ConvOp, PoolOp>(op) && rankOf(op->getResult(0)) >= 3 &&
         !op->hasAttr("channels_last");
}

/// Ops that compute the same thing whatever order their dims are stored
/// in, given their dim attributes remapped (rewriteAttributes).
bool isTransparent(Operation *op) {
  if (isa<UnaryOp, BinaryOp, SelectOp, CastOp, ConcatOp, PadOp, SliceOp,
          ResizeOp>(op))
    return true;
  auto reduce = dyn_cast<ReduceOp>(op);
  return reduce && reduce.getKeepdims();
}

/// The rank of the chain an op can join, or -1.
int64_t chainRank(Operation *op) {
  if (op->getNumResults() != 1 || !(isAnchor(op) || isTransparent(op)))
    return -1;
  return rankOf(op->getResult(0));
}

/// `values` (one per dim) in physical order.
template <typename T>
SmallVector<T> permuteList(ArrayRef<T> values, ArrayRef<int64_t> perm) {
  SmallVector<T> out;
  for (int64_t p : perm)
    out.push_back(values[p]);
  return out;
}

/// `shape` with 1s prepended up to `rank` (numpy broadcasting's view).
SmallVector<int64_t> expandShape(ArrayRef<int64_t> shape, int64_t rank) {
  SmallVector<int64_t> out(rank - shape.size(), 1);
  out.append(shape.begin(), shape.end());
  return out;
}

/// The elements of `attr` (viewed with shape `logical`) stored transposed by
/// `perm`, at any size; a null attribute when the data cannot be read
/// (an unreadable resource, sub-byte elements of a non-splat constant).
ElementsAttr permuteConstant(ElementsAttr attr, ArrayRef<int64_t> logical,
                             ArrayRef<int64_t> perm) {
  auto oldType = cast<RankedTensorType>(attr.getType());
  auto type =
      RankedTensorType::get(permute(logical, perm), oldType.getElementType());
  if (auto dense = dyn_cast<DenseElementsAttr>(attr); dense && dense.isSplat())
    return DenseElementsAttr::get(type, dense.getSplatValue<Attribute>());
  std::optional<std::vector<char>> bytes = constantBytes(attr);
  if (!bytes)
    return {};
  ArrayRef<char> raw = *bytes;
  int64_t n = type.getNumElements(),
          size = raw.size() / std::max<int64_t>(n, 1);
  SmallVector<int64_t> strides = permute(rowMajorStrides(logical), perm);
  ArrayRef<int64_t> shape = type.getShape();
  std::vector<char> out(raw.size());
  SmallVector<int64_t> idx(shape.size(), 0);
  for (int64_t lin = 0; lin < n; ++lin) {
    int64_t src = 0;
    for (size_t d = 0; d < idx.size(); ++d)
      src += idx[d] * strides[d];
    std::memcpy(&out[lin * size], &raw[src * size], size);
    for (int64_t d = (int64_t)idx.size() - 1; d >= 0; --d) {
      if (++idx[d] < shape[d])
        break;
      idx[d] = 0;
    }
  }
  return constantFromBytes(attr, type, out, "_layout");
}

/// One chain: its ops in program order and their rank.
struct Chain {
  SmallVector<Operation *> ops;
  int64_t rank = 0;
};

/// True for the operands a layout change does not touch (a conv's filter
/// has its own permutation, its bias is rank 1).
bool isFilterOrBias(Operation *op, unsigned operand) {
  return isa<ConvOp>(op) && operand >= 1;
}

/// The price of one labeling of a chain's ops (true = channels-last):
/// per-op costs and the conversions of values whose producer and readers
/// disagree (docs/passes/bwc-select-layout.md).
struct Prices {
  struct OpCost {
    Operation *op;
    double nchw, nhwc;
  };
  /// A value with its producer (null: outside the chain, channels-first)
  /// and readers in the chain; `outside`: also read outside (or returned).
  struct Conversion {
    Operation *producer;
    SmallVector<Operation *> readers;
    bool outside;
    /// Fetched bytes of the stand-alone transpose to channels-last and
    /// back (access model).
    double toLast, toFirst;
  };
  SmallVector<OpCost> ops;
  SmallVector<Conversion> conversions;

  double cost(const DenseMap<Operation *, bool> &nhwc) const {
    auto label = [&](Operation *op) { return op && nhwc.lookup(op); };
    double total = 0;
    for (const OpCost &c : ops)
      total += label(c.op) ? c.nhwc : c.nchw;
    for (const Conversion &c : conversions) {
      bool p = label(c.producer);
      if ((c.outside && p) ||
          llvm::any_of(c.readers, [&](Operation *r) { return label(r) != p; }))
        total += p ? c.toFirst : c.toLast;
    }
    return total;
  }

  /// The cheapest labeling: an exact minimum s-t cut (source side =
  /// channels-first). A tie keeps channels-first. `bias` scales every
  /// op's channels-last price (1: the prices as they are; below 1, a
  /// labeling that leans channels-last, for the fused check to judge).
  DenseMap<Operation *, bool> cheapest(double bias = 1) const {
    MinCut g;
    DenseMap<Operation *, int> node;
    auto nodeOf = [&](Operation *op) {
      if (!op)
        return g.source();
      auto [it, fresh] = node.try_emplace(op, 0);
      if (fresh)
        it->second = g.addNode();
      return it->second;
    };
    for (const OpCost &c : ops) {
      g.addEdge(nodeOf(c.op), g.sink(), c.nchw); // paid on the source side
      g.addEdge(g.source(), nodeOf(c.op), c.nhwc * bias);
    }
    for (const Conversion &c : conversions) {
      int p = nodeOf(c.producer);
      // Producer channels-first, some reader channels-last.
      int x = g.addNode();
      g.addEdge(p, x, c.toLast);
      for (Operation *r : c.readers)
        g.addEdge(x, nodeOf(r), MinCut::kInfinite);
      // Producer channels-last, some reader (or an outside one) first.
      if (!c.producer)
        continue;
      int y = g.addNode();
      for (Operation *r : c.readers)
        g.addEdge(nodeOf(r), y, MinCut::kInfinite);
      if (c.outside)
        g.addEdge(g.source(), y, MinCut::kInfinite);
      g.addEdge(y, p, c.toFirst);
    }
    g.solve();
    DenseMap<Operation *, bool> nhwc;
    for (auto [op, n] : node)
      nhwc[op] = !g.onSourceSide(n);
    return nhwc;
  }
};

struct SelectLayoutPass
    : mlir::bwc::impl::SelectLayoutPassBase<SelectLayoutPass> {
  using SelectLayoutPassBase::SelectLayoutPassBase;

  /// The DRAM bytes `op` fetches when run alone with its data
  /// `channelsLast` or not.
  FailureOr<double> anchorFetchedBytes(Operation *op, bool channelsLast) {
    int64_t rank = rankOf(op->getResult(0));
    SmallVector<int64_t> dataPerm =
        channelsLast ? channelsLastPerm(rank) : identityPerm(rank);
    SmallVector<int64_t> filterPerm =
        channelsLast ? channelsLastFilterPerm(rank) : identityPerm(rank);
    auto physical = [&](Type t, ArrayRef<int64_t> perm) -> Type {
      auto r = cast<RankedTensorType>(t);
      return r.clone(permute(r.getShape(), perm));
    };
    SmallVector<Type> args;
    for (auto [i, v] : llvm::enumerate(op->getOperands()))
      args.push_back(i == 0   ? physical(v.getType(), dataPerm)
                     : i == 1 ? physical(v.getType(), filterPerm)
                              : v.getType());
    Type result = physical(op->getResult(0).getType(), dataPerm);
    return pricer->standalone(op, args, result, [&](Operation *clone) {
      if (channelsLast)
        clone->setAttr("channels_last", UnitAttr::get(clone->getContext()));
    });
  }

  /// The DRAM bytes a stand-alone layout change of `v` fetches: to
  /// channels-last (`toLast`) or back from it.
  FailureOr<double> conversionFetchedBytes(Value v, int64_t rank, bool toLast) {
    OpBuilder b(v.getContext());
    Location loc = v.getLoc();
    OwningOpRef<ModuleOp> scratch = ModuleOp::create(loc);
    b.setInsertionPointToEnd(scratch->getBody());
    auto type = tensorOf(v);
    SmallVector<int64_t> logical = expandShape(type.getShape(), rank);
    SmallVector<int64_t> perm = channelsLastPerm(rank);
    SmallVector<int64_t> from = toLast ? logical : permute(logical, perm);
    SmallVector<int64_t> to = toLast ? permute(logical, perm) : logical;
    auto fn = func::FuncOp::create(
        b, loc, "conversion",
        b.getFunctionType({type.clone(from)}, {type.clone(to)}));
    Block *body = fn.addEntryBlock();
    b.setInsertionPointToEnd(body);
    Value t = TransposeOp::create(
        b, loc, type.clone(to), body->getArgument(0),
        b.getDenseI64ArrayAttr(toLast ? perm : invertPerm(perm)));
    func::ReturnOp::create(b, loc, t);
    return pricer->kernel(*scratch, fn);
  }

  /// The costs of `chain`'s labelings: each anchor's fetched bytes in
  /// either layout (a computed filter converted too when channels-last),
  /// and every value that crosses a layout change, each priced as the
  /// stand-alone transpose kernel it becomes (bwc-fuse does not fold a
  /// transpose into a conv or pool kernel).
  FailureOr<Prices> price(const Chain &chain) {
    llvm::SmallPtrSet<Operation *, 16> inChain(chain.ops.begin(),
                                               chain.ops.end());
    Prices prices;
    llvm::MapVector<Value, Prices::Conversion> entering;
    auto convert = [&](Value v, Prices::Conversion &c) -> LogicalResult {
      FailureOr<double> toLast = conversionFetchedBytes(v, chain.rank, true);
      FailureOr<double> toFirst =
          c.producer ? conversionFetchedBytes(v, chain.rank, false) : 0.0;
      if (failed(toLast) || failed(toFirst))
        return failure();
      c.toLast = *toLast;
      c.toFirst = *toFirst;
      return success();
    };
    for (Operation *op : chain.ops) {
      if (isAnchor(op)) {
        FailureOr<double> nchw = anchorFetchedBytes(op, false);
        FailureOr<double> nhwc = anchorFetchedBytes(op, true);
        if (failed(nchw) || failed(nhwc))
          return failure();
        if (auto conv = dyn_cast<ConvOp>(op);
            conv && !conv.getFilter().getDefiningOp<ConstantOp>())
          *nhwc += 2.0 * tensorBytes(conv.getFilter().getType());
        prices.ops.push_back({op, *nchw, *nhwc});
      }
      // Values entering the chain (constants convert at compile time).
      for (OpOperand &use : op->getOpOperands()) {
        Value v = use.get();
        Operation *def = v.getDefiningOp();
        if ((def && (isa<ConstantOp>(def) || inChain.contains(def))) ||
            isFilterOrBias(op, use.getOperandNumber()))
          continue;
        auto [it, fresh] = entering.try_emplace(v, Prices::Conversion{});
        if (fresh && failed(convert(v, it->second)))
          return failure();
        if (!llvm::is_contained(it->second.readers, op))
          it->second.readers.push_back(op);
      }
      // Its result, read in the chain and maybe outside it.
      Prices::Conversion c{op, {}, false, 0, 0};
      for (OpOperand &use : op->getResult(0).getUses()) {
        Operation *user = use.getOwner();
        if (inChain.contains(user) &&
            !isFilterOrBias(user, use.getOperandNumber())) {
          if (!llvm::is_contained(c.readers, user))
            c.readers.push_back(user);
        } else {
          c.outside = true;
        }
      }
      if (failed(convert(op->getResult(0), c)))
        return failure();
      prices.conversions.push_back(std::move(c));
    }
    for (auto &[v, c] : entering)
      prices.conversions.push_back(std::move(c));
    return prices;
  }

  /// `v` in the chain's physical layout `perm`, created before `user`.
  Value toPhysical(OpBuilder &b, Value v, ArrayRef<int64_t> perm, int64_t rank,
                   DenseMap<Value, Value> &cache) {
    auto [it, fresh] = cache.try_emplace(v, Value());
    if (!fresh)
      return it->second;
    auto type = tensorOf(v);
    SmallVector<int64_t> logical = expandShape(type.getShape(), rank);
    Location loc = v.getLoc();
    OpBuilder::InsertionGuard guard(b);
    if (auto constant = v.getDefiningOp<ConstantOp>()) {
      b.setInsertionPoint(constant);
      if (ElementsAttr baked =
              permuteConstant(constant.getValue(), logical, perm))
        return it->second = ConstantOp::create(b, loc, baked);
    }
    if (Operation *def = v.getDefiningOp())
      b.setInsertionPointAfter(def);
    else
      b.setInsertionPointToStart(cast<BlockArgument>(v).getOwner());
    Value x = v;
    if ((int64_t)type.getShape().size() != rank)
      x = ReshapeOp::create(b, loc, type.clone(logical), x);
    auto result = type.clone(permute(logical, perm));
    return it->second = TransposeOp::create(b, loc, result, x,
                                            b.getDenseI64ArrayAttr(perm));
  }

  /// Remaps the per-dim attributes of a clone of a transparent op.
  void rewriteAttributes(Operation *op, ArrayRef<int64_t> perm) {
    Builder b(op->getContext());
    SmallVector<int64_t> inverse = invertPerm(perm);
    if (auto concat = dyn_cast<ConcatOp>(op))
      concat.setAxis(inverse[concat.getAxis()]);
    if (auto reduce = dyn_cast<ReduceOp>(op)) {
      SmallVector<int64_t> axes;
      for (int64_t a : reduce.getAxes())
        axes.push_back(inverse[a]);
      llvm::sort(axes);
      reduce.setAxes(axes);
    }
    if (auto slice = dyn_cast<SliceOp>(op)) {
      slice.setStarts(permuteList(slice.getStarts(), perm));
      slice.setSteps(permuteList(slice.getSteps(), perm));
    }
    if (auto pad = dyn_cast<PadOp>(op)) {
      int64_t r = perm.size();
      ArrayRef<int64_t> pads = pad.getPads();
      SmallVector<int64_t> p = permuteList(pads.take_front(r), perm);
      llvm::append_range(p, permuteList(pads.drop_front(r), perm));
      pad.setPads(p);
    }
    if (auto resize = dyn_cast<ResizeOp>(op))
      resize.setScales(permuteList(resize.getScales(), perm));
    if (isa<ConvOp, PoolOp>(op))
      op->setAttr("channels_last", b.getUnitAttr());
  }

  /// Rewrites `chain` channels-last.
  void convert(Chain &chain) {
    int64_t rank = chain.rank;
    SmallVector<int64_t> perm = channelsLastPerm(rank);
    SmallVector<int64_t> filterPerm = channelsLastFilterPerm(rank);
    llvm::SmallPtrSet<Operation *, 16> inChain(chain.ops.begin(),
                                               chain.ops.end());
    DenseMap<Value, Value> physical, filters;
    OpBuilder b(&getContext());
    for (Operation *op : chain.ops) {
      b.setInsertionPoint(op);
      IRMapping map;
      for (auto [i, v] : llvm::enumerate(op->getOperands())) {
        if (isa<ConvOp>(op) && i == 1)
          map.map(v, toPhysical(b, v, filterPerm, rank, filters));
        else if (!(isa<ConvOp>(op) && i == 2))
          map.map(v, toPhysical(b, v, perm, rank, physical));
      }
      Operation *clone = b.clone(*op, map);
      Value old = op->getResult(0);
      clone->getResult(0).setType(
          tensorOf(old).clone(permute(tensorOf(old).getShape(), perm)));
      rewriteAttributes(clone, perm);
      physical[old] = clone->getResult(0);
    }
    // Uses outside the chain read the user's layout again.
    for (Operation *op : chain.ops) {
      Value old = op->getResult(0), now = physical[old];
      if (llvm::all_of(old.getUsers(),
                       [&](Operation *u) { return inChain.contains(u); }))
        continue;
      b.setInsertionPointAfterValue(now);
      Value back =
          TransposeOp::create(b, op->getLoc(), old.getType(), now,
                              b.getDenseI64ArrayAttr(invertPerm(perm)));
      old.replaceUsesWithIf(back, [&](OpOperand &use) {
        return !inChain.contains(use.getOwner());
      });
    }
    SetVector<Operation *> operands;
    for (Operation *op : chain.ops)
      for (Value v : op->getOperands())
        if (auto constant = v.getDefiningOp<ConstantOp>())
          operands.insert(constant);
    for (Operation *op : llvm::reverse(chain.ops))
      op->erase();
    // Constants now only held in their converted layout.
    for (Operation *constant : operands)
      if (constant->use_empty())
        constant->erase();
  }

  /// Replaces transposes of constants by transposed constants.
  void bakeTransposedConstants(func::FuncOp fn) {
    fn.walk([&](TransposeOp t) {
      auto constant = t.getInput().getDefiningOp<ConstantOp>();
      if (!constant)
        return;
      ElementsAttr baked = permuteConstant(
          constant.getValue(), tensorOf(t.getInput()).getShape(), t.getPerm());
      if (!baked)
        return;
      OpBuilder b(t);
      Value c = ConstantOp::create(b, t.getLoc(), baked);
      t.getResult().replaceAllUsesWith(c);
      t.erase();
      if (constant->use_empty())
        constant.erase();
    });
  }

  /// Labels and converts `fn`'s chains; true when an op went channels-last.
  bool runOnFunction(func::FuncOp fn, int64_t &chainId) {
    // Chains: union-find over the ops that can join one.
    llvm::EquivalenceClasses<Operation *> classes;
    SmallVector<Operation *> order;
    fn.walk([&](Operation *op) {
      int64_t rank = chainRank(op);
      if (rank < 3)
        return;
      order.push_back(op);
      classes.insert(op);
      for (Value v : op->getOperands())
        if (Operation *def = v.getDefiningOp(); def && classes.contains(def) &&
                                                chainRank(def) == rank &&
                                                rankOf(v) == rank)
          classes.unionSets(op, def);
    });
    DenseMap<Operation *, unsigned> leaderIndex;
    SmallVector<Chain> chains;
    for (Operation *op : order) {
      Operation *leader = classes.getLeaderValue(op);
      auto [it, fresh] = leaderIndex.try_emplace(leader, chains.size());
      if (fresh)
        chains.emplace_back().rank = chainRank(op);
      chains[it->second].ops.push_back(op);
    }
    Builder b(&getContext());
    bool any = false;
    for (Chain &chain : chains) {
      if (llvm::none_of(chain.ops, isAnchor))
        continue;
      FailureOr<Prices> prices = price(chain);
      if (failed(prices)) {
        pricingFailed = true;
        signalPassFailure();
        return false;
      }
      DenseMap<Operation *, bool> nhwc;
      if (mode == "auto" && !keepChannelsFirst)
        nhwc = prices->cheapest(nhwcBias);
      for (Operation *op : chain.ops)
        if (mode != "auto")
          nhwc[op] = mode == "nhwc";
      double allNchw = prices->cost(DenseMap<Operation *, bool>());
      double chosen = prices->cost(nhwc);
      int64_t id = chainId++;
      for (const Prices::OpCost &c : prices->ops) {
        c.op->setAttr("bwc.layout",
                      b.getStringAttr(nhwc.lookup(c.op) ? "nhwc" : "nchw"));
        c.op->setAttr(
            "bwc.layout_cost",
            b.getDictionaryAttr(
                {b.getNamedAttr("chain", b.getI64IntegerAttr(id)),
                 b.getNamedAttr("nchw_bytes", b.getI64IntegerAttr(c.nchw)),
                 b.getNamedAttr("nhwc_bytes", b.getI64IntegerAttr(c.nhwc)),
                 b.getNamedAttr("chain_nchw_bytes",
                                b.getI64IntegerAttr(allNchw)),
                 b.getNamedAttr("chain_bytes", b.getI64IntegerAttr(chosen))}));
      }
      Chain converted{{}, chain.rank};
      for (Operation *op : chain.ops)
        if (nhwc.lookup(op))
          converted.ops.push_back(op);
      if (!converted.ops.empty())
        convert(converted);
      any |= !converted.ops.empty();
    }
    bakeTransposedConstants(fn);
    return any;
  }

  void runOnOperation() override {
    if (mode != "auto" && mode != "nchw" && mode != "nhwc") {
      getOperation().emitError()
          << "expects mode auto, nchw or nhwc but got '" << mode << "'";
      return signalPassFailure();
    }
    if (smCount < 1) {
      getOperation().emitError()
          << "expects sm-count >= 1 but got " << static_cast<int64_t>(smCount);
      return signalPassFailure();
    }
    ModuleOp module = getOperation();
    FetchedBytesPricer prices(smCount);
    pricer = &prices;
    OwningOpRef<ModuleOp> before;
    if (mode == "auto")
      before = module.clone();
    auto run = [&](ModuleOp m) {
      int64_t chainId = 0;
      bool converted = false;
      for (auto fn : m.getOps<func::FuncOp>())
        if (!fn.isExternal())
          converted |= runOnFunction(fn, chainId);
      return converted;
    };
    if (!run(module) || mode != "auto" || pricingFailed ||
        !module.lookupSymbol<func::FuncOp>("main"))
      return;
    // The per-op prices see each conv alone; the layout changes they place
    // may fuse into neighbouring kernels less well than priced. So the
    // fused program (a module with a `main` program, as bwc-compile's)
    // judges: the cheapest labeling, labelings leaning channels-last
    // (every op's channels-last price scaled by 0.8 and 0.6 in the cut:
    // ppocr_det's head convs alone cost more channels-last than first, yet
    // the fused program is cheapest with them channels-last, between
    // channels-last neighbours), and channels-first. The fewest fetched
    // bytes win; a tie keeps the earlier (channels-first last).
    auto fused = [&](ModuleOp m) -> FailureOr<double> {
      auto program = pricer->fusedProgram(m);
      return failed(program) ? FailureOr<double>() : program->fetchedBytes;
    };
    FailureOr<double> nchw = fused(*before);
    FailureOr<double> chosen = fused(module);
    if (failed(nchw) || failed(chosen))
      return signalPassFailure();
    double bias = 1;
    OwningOpRef<ModuleOp> best;
    // A labeling is evaluated once: the leaning cuts often repeat one.
    auto labels = [](ModuleOp m) {
      std::string l;
      m.walk([&](Operation *op) {
        if (auto a = op->getAttrOfType<StringAttr>("bwc.layout"))
          l += a.getValue() == "nhwc" ? '1' : '0';
      });
      return l;
    };
    SmallVector<std::string> seen = {labels(module)};
    for (double leaning : {0.8, 0.6}) {
      OwningOpRef<ModuleOp> candidate(cast<ModuleOp>(before->clone()));
      nhwcBias = leaning;
      bool converted = run(*candidate);
      nhwcBias = 1;
      if (pricingFailed)
        return signalPassFailure();
      std::string l = labels(*candidate);
      if (!converted || llvm::is_contained(seen, l))
        continue;
      seen.push_back(l);
      FailureOr<double> bytes = fused(*candidate);
      if (failed(bytes))
        return signalPassFailure();
      if (*bytes < *chosen) {
        chosen = bytes;
        best = std::move(candidate);
        bias = leaning;
      }
    }
    Builder b(&getContext());
    DictionaryAttr check = b.getDictionaryAttr(
        {b.getNamedAttr("nchw_fetched_bytes", b.getI64IntegerAttr(*nchw)),
         b.getNamedAttr("chosen_fetched_bytes", b.getI64IntegerAttr(*chosen)),
         b.getNamedAttr("nhwc_bias", b.getF64FloatAttr(bias))});
    if (*chosen >= *nchw) {
      module.getBodyRegion().takeBody(before->getBodyRegion());
      keepChannelsFirst = true;
      run(module);
    } else if (best) {
      module.getBodyRegion().takeBody(best->getBodyRegion());
    }
    module->setAttr("bwc.layout_check", check);
  }

  /// The scale of channels-last prices in the cut (see runOnOperation).
  double nhwcBias = 1;
  /// Scratch kernels and fused programs in fetched bytes (the access
  /// model), each distinct kernel priced once per pass run.
  FetchedBytesPricer *pricer = nullptr;
  /// Set when the fused program rejected the cheapest labeling.
  bool keepChannelsFirst = false;
  bool pricingFailed = false;
};

} // namespace
