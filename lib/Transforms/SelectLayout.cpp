//===- SelectLayout.cpp - Channels-last chains and baked weight layouts ---===//
//
// Physical layouts for the tensors of a convolution net, chosen by the
// access model. A *chain* is a connected group of convolutions and pools
// (the anchors) and the ops between them that do not care about the order
// of dims (elementwise ops, casts, concat, pad, slice, resize, keepdims
// reductions), all of one rank. For each chain the pass compares the DRAM
// bytes the anchors fetch in 32-byte sectors when their kernels run in
// channels-first order (NCHW) against channels-last order (NHWC) plus the
// layout changes the chain needs where it meets the rest of the program
// (priced as a stand-alone read and write of the tensor). A chain goes
// channels-last only when that total is smaller. Graph inputs and outputs
// keep the user's layout: conversions are bwc.transpose ops at the chain's
// edges, which fusion folds into the neighbouring kernels as index maps.
// Constant operands are converted at compile time: conv filters are stored
// [K..., C/groups, F] and every transpose of a constant, whatever its
// size, becomes a transposed constant (transposed weights baked in).
// docs/passes/bwc-select-layout.md describes the cost model and options.
//
//===----------------------------------------------------------------------===//
#include "bwc/Transforms/Passes.h"

#include "bwc/Analysis/AccessModel.h"
#include "bwc/Dialect/BWC/IR/BWCOps.h"
#include "bwc/Dialect/BWC/Utils/ShapeUtils.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/EquivalenceClasses.h"
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
  auto type = RankedTensorType::get(permute(logical, perm),
                                    oldType.getElementType());
  ArrayRef<char> raw;
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    if (dense.isSplat())
      return DenseElementsAttr::get(type, dense.getSplatValue<Attribute>());
    raw = dense.getRawData();
  } else if (auto res = dyn_cast<DenseResourceElementsAttr>(attr)) {
    AsmResourceBlob *blob = res.getRawHandle().getBlob();
    if (!blob)
      return {};
    raw = blob->getData();
  } else {
    return {};
  }
  unsigned bits = type.getElementTypeBitWidth();
  int64_t n = type.getNumElements(), size = bits / 8;
  if (bits % 8 || (int64_t)raw.size() != n * size)
    return {};
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
  if (auto res = dyn_cast<DenseResourceElementsAttr>(attr))
    return DenseResourceElementsAttr::get(
        type, (res.getRawHandle().getKey() + "_layout").str(),
        HeapAsmResourceBlob::allocateAndCopyWithAlign(out, alignof(double)));
  return DenseElementsAttr::getFromRawBuffer(type, out);
}

/// One chain: its ops in program order and the layout decision.
struct Chain {
  SmallVector<Operation *> ops;
  int64_t rank = 0;
  double nchwBytes = 0, nhwcBytes = 0, boundaryBytes = 0;
};

struct SelectLayoutPass
    : mlir::bwc::impl::SelectLayoutPassBase<SelectLayoutPass> {
  using SelectLayoutPassBase::SelectLayoutPassBase;

  /// The DRAM bytes `op` fetches (access model, one thread per output as
  /// bwc-configure-kernels configures conv and pool kernels) when run alone
  /// with its data `channelsLast` or not.
  FailureOr<double> anchorFetchedBytes(Operation *op, bool channelsLast) {
    OpBuilder b(op->getContext());
    Location loc = op->getLoc();
    OwningOpRef<ModuleOp> scratch = ModuleOp::create(loc);
    b.setInsertionPointToEnd(scratch->getBody());
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
    auto fn = func::FuncOp::create(b, loc, "anchor",
                                   b.getFunctionType(args, {result}));
    Block *body = fn.addEntryBlock();
    b.setInsertionPointToEnd(body);
    IRMapping map;
    map.map(op->getOperands(), body->getArguments());
    Operation *clone = b.clone(*op, map);
    clone->getResult(0).setType(result);
    if (channelsLast)
      clone->setAttr("channels_last", b.getUnitAttr());
    func::ReturnOp::create(b, loc, clone->getResult(0));
    int64_t outputs = cast<RankedTensorType>(result).getNumElements();
    int64_t grid = std::clamp<int64_t>((outputs + 255) / 256, 1, smCount * 8);
    DictionaryAttr config = b.getDictionaryAttr(
        {b.getNamedAttr("emitter", b.getStringAttr("thread_per_output")),
         b.getNamedAttr("block", b.getI64IntegerAttr(256)),
         b.getNamedAttr("grid", b.getI64IntegerAttr(grid))});
    FailureOr<KernelCoalescing> k = analyzeCoalescing(fn, config);
    if (failed(k))
      return failure();
    return k->fetchedBytes;
  }

  /// Prices `chain` in both layouts.
  LogicalResult price(Chain &chain) {
    llvm::SmallPtrSet<Operation *, 16> inChain(chain.ops.begin(),
                                               chain.ops.end());
    llvm::SmallPtrSet<Value, 16> converted;
    for (Operation *op : chain.ops) {
      if (isAnchor(op)) {
        FailureOr<double> nchw = anchorFetchedBytes(op, false);
        FailureOr<double> nhwc = anchorFetchedBytes(op, true);
        if (failed(nchw) || failed(nhwc))
          return failure();
        chain.nchwBytes += *nchw;
        chain.nhwcBytes += *nhwc;
      }
      // Tensors entering the chain (constants are converted at compile time).
      for (auto [i, v] : llvm::enumerate(op->getOperands())) {
        Operation *def = v.getDefiningOp();
        bool constant = def && isa<ConstantOp>(def);
        bool biasOperand = isa<ConvOp>(op) && i == 2;
        if (constant || biasOperand || (def && inChain.contains(def)) ||
            !converted.insert(v).second)
          continue;
        chain.boundaryBytes += 2.0 * tensorOf(v).getNumElements() *
                               std::max(1u, tensorOf(v).getElementTypeBitWidth() / 8);
      }
      // Tensors leaving it (graph outputs included).
      Value r = op->getResult(0);
      if (llvm::any_of(r.getUsers(),
                       [&](Operation *u) { return !inChain.contains(u); }))
        chain.boundaryBytes += 2.0 * tensorOf(r).getNumElements() *
                               std::max(1u, tensorOf(r).getElementTypeBitWidth() / 8);
    }
    chain.nhwcBytes += chain.boundaryBytes;
    return success();
  }

  /// `v` in the chain's physical layout `perm`, created before `user`.
  Value toPhysical(OpBuilder &b, Value v, ArrayRef<int64_t> perm,
                   int64_t rank, DenseMap<Value, Value> &cache) {
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
      Value back = TransposeOp::create(b, op->getLoc(), old.getType(), now,
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

  void runOnFunction(func::FuncOp fn, int64_t &chainId) {
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
        if (Operation *def = v.getDefiningOp();
            def && classes.contains(def) && chainRank(def) == rank &&
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
    for (Chain &chain : chains) {
      if (llvm::none_of(chain.ops, isAnchor))
        continue;
      if (failed(price(chain)))
        return signalPassFailure();
      bool nhwc = mode == "nhwc" ||
                  (mode == "auto" && chain.nhwcBytes < chain.nchwBytes);
      DictionaryAttr cost = b.getDictionaryAttr(
          {b.getNamedAttr("chain", b.getI64IntegerAttr(chainId++)),
           b.getNamedAttr("nchw_bytes", b.getI64IntegerAttr(chain.nchwBytes)),
           b.getNamedAttr("nhwc_bytes", b.getI64IntegerAttr(chain.nhwcBytes)),
           b.getNamedAttr("boundary_bytes",
                          b.getI64IntegerAttr(chain.boundaryBytes))});
      for (Operation *op : chain.ops)
        if (isAnchor(op)) {
          op->setAttr("bwc.layout", b.getStringAttr(nhwc ? "nhwc" : "nchw"));
          op->setAttr("bwc.layout_cost", cost);
        }
      if (nhwc)
        convert(chain);
    }
    bakeTransposedConstants(fn);
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
    int64_t chainId = 0;
    for (auto fn : getOperation().getOps<func::FuncOp>())
      if (!fn.isExternal())
        runOnFunction(fn, chainId);
  }
};

} // namespace
