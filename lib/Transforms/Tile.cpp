//===- Tile.cpp - Kernel configurations chosen by the access model --------===//
//
// bwc-configure-kernels gives every kernel a correct default; this pass
// enumerates the other configurations the CUDA emitters support for it
// (column reductions, shared-memory transposes and matmul tiles), scores
// each with the access model and keeps the best: the highest coalescing
// efficiency, then enough blocks to fill the GPU (2 per SM), then the
// specialized emitter (it also saves L2 and shared traffic the model does
// not count). Candidates are limited to the `emitters` list, the emitters
// the CUDA target has, and to the shared memory a block may use.
//
//===----------------------------------------------------------------------===//
#include "bwc/Transforms/Passes.h"

#include "bwc/Analysis/AccessModel.h"
#include "bwc/Dialect/BWC/IR/BWCOps.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::bwc {
#define GEN_PASS_DEF_TILEPASS
#include "bwc/Transforms/Passes.h.inc"
} // namespace mlir::bwc

using namespace mlir;
using namespace mlir::bwc;

namespace {

constexpr StringLiteral kKnownEmitters[] = {
    "loop",           "thread_per_output", "row_reduction",
    "column_reduction", "transpose_tiled", "contraction_tiled"};

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

int64_t widestElementBytes(func::FuncOp kernel) {
  int64_t widest = 1;
  for (Type t : llvm::concat<const Type>(kernel.getArgumentTypes(),
                                         kernel.getResultTypes()))
    widest = std::max<int64_t>(
        widest, cast<ShapedType>(t).getElementTypeBitWidth() / 8);
  return widest;
}

/// One candidate configuration and the shared memory it needs.
struct Candidate {
  DictionaryAttr config;
  int64_t sharedBytes = 0;
  /// Wins a tie in efficiency and parallelism (it saves traffic the model
  /// does not count: operand reuse in shared memory).
  bool preferOnTie = false;
};

/// `base` with `fields` set (added or replaced).
DictionaryAttr withFields(DictionaryAttr base,
                          ArrayRef<std::pair<StringRef, Attribute>> fields) {
  NamedAttrList attrs(base);
  for (auto [name, value] : fields)
    attrs.set(name, value);
  return attrs.getDictionary(base.getContext());
}

/// The reduction a column_reduction kernel computes: every reduce reduces
/// the same axes, not the innermost one, of one input shape; no other
/// windowed op; every result has one value per kept position.
bool isColumnReduction(func::FuncOp kernel) {
  auto reduces = llvm::to_vector(kernel.getBody().getOps<ReduceOp>());
  bool windowed = kernel
                      .walk([](Operation *op) {
                        return isa<ArgReduceOp, MatmulOp, ConvOp, PoolOp>(op)
                                   ? WalkResult::interrupt()
                                   : WalkResult::advance();
                      })
                      .wasInterrupted();
  if (reduces.empty() || windowed)
    return false;
  ReduceOp first = reduces.front();
  auto in = cast<RankedTensorType>(first.getInput().getType());
  if (first.getAxes().empty() ||
      llvm::is_contained(first.getAxes(), in.getRank() - 1))
    return false;
  int64_t kept = first.getResult().getType().getNumElements();
  return llvm::all_of(reduces,
                      [&](ReduceOp r) {
                        return r.getInput().getType() == in &&
                               r.getAxes() == first.getAxes();
                      }) &&
         llvm::all_of(kernel.getResultTypes(), [&](Type t) {
           return cast<ShapedType>(t).getNumElements() == kept;
         });
}

struct TilePass : public bwc::impl::TilePassBase<TilePass> {
  using TilePassBase::TilePassBase;

  SmallVector<Candidate> candidates(func::FuncOp kernel, DictionaryAttr dflt,
                                    const llvm::StringSet<> &allowed) {
    Builder b(kernel.getContext());
    auto i64 = [&](int64_t v) -> Attribute { return b.getI64IntegerAttr(v); };
    auto name = [&](StringRef s) -> Attribute { return b.getStringAttr(s); };
    StringRef emitter = dflt.getAs<StringAttr>("emitter").getValue();
    auto shape = cast<ShapedType>(kernel.getResultTypes().front()).getShape();
    int64_t elements = 1;
    for (int64_t s : shape)
      elements *= s;
    int64_t eb = widestElementBytes(kernel);
    SmallVector<Candidate> out = {{dflt}};

    // Only transposes the CUDA driver can stage (tiledTransposes), one
    // 32x33 shared tile each.
    SmallVector<TransposeOp, 2> staged;
    if (emitter == "loop" && allowed.contains("transpose_tiled"))
      staged = tiledTransposes(kernel);
    if (!staged.empty()) {
      int64_t tileBytes = 0;
      for (TransposeOp t : staged)
        tileBytes += 32 * 33 * t.getType().getElementTypeBitWidth() / 8;
      int64_t tiles = elements / (shape.back() * shape[shape.size() - 2]) *
                      ceilDiv(shape.back(), 32) *
                      ceilDiv(shape[shape.size() - 2], 32);
      out.push_back({withFields(dflt, {{"emitter", name("transpose_tiled")},
                                       {"block", i64(256)},
                                       {"grid", i64(tiles)},
                                       {"tile", i64(32)},
                                       {"vector", i64(1)},
                                       {"elements_per_thread", i64(4)}}),
                     tileBytes, false});
    }
    if (emitter == "thread_per_output" && isColumnReduction(kernel) &&
        allowed.contains("column_reduction")) {
      auto reduce = *kernel.getBody().getOps<ReduceOp>().begin();
      int64_t reduced = reduce.getInput().getType().getNumElements() /
                        std::max<int64_t>(1, elements);
      out.push_back(
          {withFields(dflt, {{"emitter", name("column_reduction")},
                             {"block", i64(256)},
                             {"grid", i64(ceilDiv(elements, 32))},
                             {"columns_per_block", i64(32)},
                             {"slices", i64(8)},
                             {"elements_per_thread", i64(ceilDiv(reduced, 8))}}),
           256 * 4, true});
    }
    MatmulOp matmul;
    kernel.walk([&](MatmulOp m) { matmul = m; });
    bool windowed = false;
    kernel.walk([&](Operation *op) {
      windowed |= isa<ConvOp, PoolOp, ReduceOp, ArgReduceOp>(op);
    });
    if (matmul && !windowed && emitter == "thread_per_output" &&
        allowed.contains("contraction_tiled")) {
      auto out2 = matmul.getResult().getType().getShape();
      int64_t m = out2[out2.size() - 2], n = out2.back();
      // The biggest square tile (64, else 32) that still fills the GPU.
      int64_t batch = matmul.getResult().getType().getNumElements() / (m * n);
      int64_t tm = 64, tk = 16;
      if (batch * ceilDiv(m, 64) * ceilDiv(n, 64) < 2 * smCount)
        tm = 32;
      int64_t tn = tm, tiles = batch * ceilDiv(m, tm) * ceilDiv(n, tn);
      out.push_back({withFields(dflt, {{"emitter", name("contraction_tiled")},
                                       {"block", i64(256)},
                                       {"grid", i64(tiles)},
                                       {"tile_m", i64(tm)},
                                       {"tile_n", i64(tn)},
                                       {"tile_k", i64(tk)},
                                       {"elements_per_thread",
                                        i64(tm * tn / 256)}}),
                     (tm + tn) * tk * eb, true});
    }
    return out;
  }

  void runOnOperation() override {
    llvm::StringSet<> allowed;
    SmallVector<StringRef> names;
    StringRef(emitters).split(names, ',', -1, false);
    for (StringRef n : names) {
      n = n.trim();
      if (!llvm::is_contained(kKnownEmitters, n)) {
        getOperation().emitError()
            << "expects emitters among loop, thread_per_output, "
               "row_reduction, column_reduction, transpose_tiled, "
               "contraction_tiled but got '"
            << n << "'";
        return signalPassFailure();
      }
      allowed.insert(n);
    }
    if (smCount < 1 || sharedMemoryBytes < 0) {
      getOperation().emitError()
          << "expects sm-count >= 1 and shared-memory-bytes >= 0 but got "
             "sm-count="
          << int64_t(smCount) << " shared-memory-bytes="
          << int64_t(sharedMemoryBytes);
      return signalPassFailure();
    }
    Builder b(&getContext());
    for (auto kernel : getOperation().getOps<func::FuncOp>()) {
      if (!kernel->hasAttr(kKernelAttrName))
        continue;
      auto dflt = kernel->getAttrOfType<DictionaryAttr>(kKernelConfigAttrName);
      if (!dflt || !dflt.getAs<StringAttr>("emitter")) {
        kernel.emitError() << "expects a bwc.config with an emitter (from "
                              "bwc-configure-kernels) but got "
                           << (dflt ? Attribute(dflt) : b.getUnitAttr());
        return signalPassFailure();
      }
      Candidate best;
      double bestEfficiency = -1;
      int64_t bestBlocks = -1;
      for (const Candidate &c : candidates(kernel, dflt, allowed)) {
        if (c.sharedBytes > sharedMemoryBytes)
          continue;
        FailureOr<KernelCoalescing> k = analyzeCoalescing(kernel, c.config);
        if (failed(k))
          return signalPassFailure();
        double e = std::round(k->efficiency() * 1e6) / 1e6;
        int64_t blocks = std::min<int64_t>(
            c.config.getAs<IntegerAttr>("grid").getInt(), 2 * smCount);
        bool tie = e == bestEfficiency;
        if (e > bestEfficiency || (tie && blocks > bestBlocks) ||
            (tie && blocks == bestBlocks && c.preferOnTie)) {
          best = c;
          bestEfficiency = e;
          bestBlocks = blocks;
        }
      }
      kernel->setAttr(kKernelConfigAttrName, best.config);
      kernel->setAttr("bwc.coalescing", b.getF64FloatAttr(bestEfficiency));
    }
  }
};

} // namespace
