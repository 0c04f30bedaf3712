//===- VectorizeLoads.cpp - Consecutive scalar loads as one vector load ---===//
//
// bwc-vectorize-gpu-loads: the elemental emitter asks for each element of
// an input on its own, so a `loop` kernel with vector 4 loads x[4t],
// x[4t+1], x[4t+2], x[4t+3] as four scalar loads. LLVM's NVPTX back end
// merges them into one ld.global.v4 (its load/store vectorizer); doing it
// here, in the gpu.module, makes the kernel say so itself, which cuda-sim
// (whose host code starts from the NVVM-level IR, before that vectorizer)
// then counts as the GPU executes it: one 16-byte request, not four.
//
//===----------------------------------------------------------------------===//
#include "bwc/Target/CUDA/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/CSE.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/MathExtras.h"

#include <map>
#include <numeric>

namespace mlir::bwc {
#define GEN_PASS_DEF_VECTORIZEGPULOADSPASS
#include "bwc/Target/CUDA/Passes.h.inc"
} // namespace mlir::bwc

using namespace mlir;
using namespace mlir::bwc;

namespace {

/// The lowest set bit of `n`, capped at 64 (64 for 0).
int64_t powerOfTwoFactor(int64_t n) {
  uint64_t u = uint64_t(n);
  return u == 0 ? 64 : int64_t(std::min<uint64_t>(64, u & (~u + 1)));
}

/// The largest power of two `v` is known to be a multiple of (muli by a
/// constant, constants, sums of multiples), capped at 64.
int64_t knownMultiple(Value v, int depth = 0) {
  if (depth > 8)
    return 1;
  if (auto c = getConstantIntValue(v))
    return powerOfTwoFactor(*c);
  Operation *op = v.getDefiningOp();
  if (auto mul = dyn_cast_or_null<arith::MulIOp>(op))
    return std::min<int64_t>(64, knownMultiple(mul.getLhs(), depth + 1) *
                                     knownMultiple(mul.getRhs(), depth + 1));
  if (auto add = dyn_cast_or_null<arith::AddIOp>(op))
    return std::min(knownMultiple(add.getLhs(), depth + 1),
                    knownMultiple(add.getRhs(), depth + 1));
  return 1;
}

/// One term of a relinearized index: ((x div d) mod n) * d, n = 0 for no
/// modulo.
struct RadixTerm {
  Value x;
  int64_t d = 1, n = 0;
};

std::optional<RadixTerm> radixTerm(Value t) {
  RadixTerm r;
  int64_t mult = 1;
  if (auto mul = t.getDefiningOp<arith::MulIOp>()) {
    if (auto c = getConstantIntValue(mul.getRhs())) {
      mult = *c;
      t = mul.getLhs();
    } else if (auto c = getConstantIntValue(mul.getLhs())) {
      mult = *c;
      t = mul.getRhs();
    } else {
      return std::nullopt;
    }
  }
  if (auto rem = t.getDefiningOp<arith::RemUIOp>()) {
    std::optional<int64_t> n = getConstantIntValue(rem.getRhs());
    if (!n || *n <= 0)
      return std::nullopt;
    r.n = *n;
    t = rem.getLhs();
  }
  int64_t q = 1;
  while (auto div = t.getDefiningOp<arith::DivUIOp>()) {
    std::optional<int64_t> c = getConstantIntValue(div.getRhs());
    if (!c || *c <= 0 || q > (int64_t(1) << 40) / *c)
      return std::nullopt;
    q *= *c;
    t = div.getLhs();
  }
  if (q != mult || getConstantIntValue(t))
    return std::nullopt;
  r.x = t;
  r.d = q;
  return r;
}

/// An index as the elemental emitter forms it: `x mod modulus` (modulus 0:
/// `x`) plus `rest`, other terms added to it (a row's offset).
struct Relinearized {
  Value x;
  int64_t modulus = 0;
  SmallVector<Value> rest;
};

/// `v` with the elemental emitter's delinearize-then-linearize of some `x`
/// over a row-major shape seen through: among the terms summed into `v`,
/// ((x div d_i) mod n_i) * d_i with d_0 = 1 and d_(i+1) = d_i n_i
/// (unsigned, constants), the last possibly without its modulo, are
/// `x mod (d_k n_k)` (or `x`). So (x mod n) + (x div n) * n is x, the
/// three-level chain of a [2, 96, 200] operand read at its own index is
/// x mod 38400, and a row reduction's (p mod 96) + (p div 96) * 96 +
/// row * 1152 is p + row * 1152. Without such terms, `v` itself.
Relinearized relinearize(Value v) {
  SmallVector<Value> pending = {v}, leaves;
  while (!pending.empty()) {
    if (leaves.size() + pending.size() > 12)
      return {v, 0, {}};
    Value t = pending.pop_back_val();
    if (auto add = t.getDefiningOp<arith::AddIOp>();
        add && !getConstantIntValue(add.getLhs()) &&
        !getConstantIntValue(add.getRhs())) {
      pending.push_back(add.getRhs());
      pending.push_back(add.getLhs());
    } else {
      leaves.push_back(t);
    }
  }
  // Radix terms by the x they decompose (in order of first appearance).
  llvm::MapVector<Value, SmallVector<std::pair<RadixTerm, Value>>> byX;
  SmallVector<Value> others;
  for (Value t : leaves) {
    if (std::optional<RadixTerm> r = radixTerm(t))
      byX[r->x].push_back({*r, t});
    else
      others.push_back(t);
  }
  for (auto &[x, terms] : byX) {
    llvm::sort(terms, [](const auto &a, const auto &b) {
      return a.first.d < b.first.d;
    });
    int64_t expect = 1;
    bool chain = !(terms.size() == 1 && terms[0].first.n == 0);
    for (auto [i, t] : llvm::enumerate(terms)) {
      bool last = i + 1 == terms.size();
      if (t.first.d != expect || (!last && t.first.n == 0) ||
          (t.first.n && expect > (int64_t(1) << 40) / t.first.n)) {
        chain = false;
        break;
      }
      expect *= t.first.n;
    }
    if (!chain)
      continue;
    Relinearized r{x, terms.back().first.n ? expect : 0, {}};
    for (auto &[other, rest] : byX)
      if (other != x)
        for (auto &t : rest)
          r.rest.push_back(t.second);
    r.rest.append(others);
    return r;
  }
  return {v, 0, {}};
}

/// How a load's index is formed: sum(inner) + offset (+ sum(outer)), or
/// (since 2026-12-04) (sum(inner) + offset) mod `modulus` + sum(outer): a
/// broadcast operand, a bias read at the column of a group of consecutive
/// outputs, `e mod cols`. The latter is (sum(inner) mod modulus) + offset
/// when the terms and the modulus are multiples of a power of two above
/// the offset, recorded in `multiple`. Loads whose forms differ only in
/// the offset read consecutive elements.
struct IndexForm {
  SmallVector<Value> inner;
  int64_t offset = 0;
  int64_t modulus = 0;  ///< 0: no modulo
  int64_t multiple = 1; ///< every term (and the modulus) is a multiple of it
  SmallVector<Value> outer;
  /// Added to sum(inner) inside the modulo (a multiple of `multiple`): a
  /// row reduction's second group reads (x + 2048 + j) mod 3104.
  int64_t innerConstant = 0;
};

/// `v` as a sum of non-constant terms (appended to `terms`) and a
/// constant (added to `constant`), through nested additions.
void flattenSum(Value v, SmallVector<Value> &terms, int64_t &constant,
                int depth = 0) {
  if (std::optional<int64_t> c = getConstantIntValue(v)) {
    constant += *c;
    return;
  }
  if (auto add = v.getDefiningOp<arith::AddIOp>(); add && depth < 8) {
    flattenSum(add.getLhs(), terms, constant, depth + 1);
    flattenSum(add.getRhs(), terms, constant, depth + 1);
    return;
  }
  terms.push_back(v);
}

/// The largest power of two (at most 64) every term is a multiple of.
int64_t termsMultiple(ArrayRef<Value> terms) {
  int64_t multiple = 64;
  for (Value t : terms)
    multiple = std::min(multiple, knownMultiple(t));
  return multiple;
}

IndexForm indexForm(Value index) {
  Relinearized r = relinearize(index);
  SmallVector<Value> inner, outer;
  int64_t constant = 0, outerConstant = 0;
  flattenSum(r.x, inner, constant);
  for (Value t : r.rest)
    flattenSum(t, outer, outerConstant);
  if (r.modulus > 0) {
    int64_t multiple =
        std::min({termsMultiple(inner), termsMultiple(outer),
                  powerOfTwoFactor(r.modulus)});
    if (constant >= 0 && outerConstant == 0)
      return {inner,    constant % multiple, r.modulus, multiple,
              outer,    constant - constant % multiple};
    return {{index}, 0, 0, knownMultiple(index), {}};
  }
  // A plain sum: its terms (as a set, the key) and its constant (the
  // offset), however the additions nest: a row reduction's second element
  // is ((2t + 1) + row) + slab where the first is ((2t + 0) + row) + slab.
  inner.append(outer);
  return {inner, constant + outerConstant, 0, termsMultiple(inner), {}};
}

/// The guaranteed alignment of a kernel buffer argument (`llvm.align`).
int64_t argumentAlignment(Value memref) {
  auto arg = dyn_cast<BlockArgument>(memref);
  auto func = arg ? dyn_cast<gpu::GPUFuncOp>(arg.getOwner()->getParentOp())
                  : gpu::GPUFuncOp();
  if (!func || !arg.getOwner()->isEntryBlock() ||
      arg.getArgNumber() >= func.getNumArguments())
    return 1;
  auto align = func.getArgAttrOfType<IntegerAttr>(arg.getArgNumber(),
                                                  "llvm.align");
  return align ? align.getInt() : 1;
}

struct Candidate {
  memref::LoadOp load;
  int64_t offset;
};

void vectorizeBlock(Block &block) {
  // Loads are grouped by buffer, base index and the stretch between two
  // ops that may write memory (a store, a barrier, a region): a group's
  // loads read one snapshot, so one vector load may replace them.
  // (buffer, inner terms, modulus, stretch, outer terms, inner constant)
  using Key = std::tuple<Value, unsigned, int64_t, int, unsigned, int64_t>;
  llvm::MapVector<Key, SmallVector<Candidate>> groups;
  DenseMap<Key, int64_t> multiples;
  // Term lists, interned (sorted: a sum's order is not its meaning).
  std::map<SmallVector<void *>, unsigned> termIds;
  SmallVector<SmallVector<Value>> termsOf;
  auto intern = [&](ArrayRef<Value> terms) {
    SmallVector<void *> key;
    for (Value t : terms)
      key.push_back(t.getAsOpaquePointer());
    llvm::sort(key);
    auto [it, added] = termIds.try_emplace(key, termsOf.size());
    if (added)
      termsOf.push_back(SmallVector<Value>(terms));
    return it->second;
  };
  int stretch = 0;
  for (Operation &op : block) {
    if (auto load = dyn_cast<memref::LoadOp>(&op)) {
      MemRefType type = load.getMemRefType();
      Type elt = type.getElementType();
      unsigned bits = elt.isIntOrFloat() ? elt.getIntOrFloatBitWidth() : 0;
      if (type.getRank() == 1 && !type.getMemorySpace() &&
          type.getLayout().isIdentity() && bits >= 8 && bits <= 64 &&
          llvm::isPowerOf2_32(bits)) {
        IndexForm f = indexForm(load.getIndices()[0]);
        Key key{load.getMemRef(), intern(f.inner), f.modulus, stretch,
                intern(f.outer), f.innerConstant};
        groups[key].push_back({load, f.offset});
        auto [it, inserted] = multiples.try_emplace(key, f.multiple);
        if (!inserted)
          it->second = std::min(it->second, f.multiple);
      }
      continue;
    }
    if (!isMemoryEffectFree(&op))
      ++stretch;
  }
  for (auto &[key, loads] : groups) {
    Value memref = std::get<0>(key);
    int64_t modulus = std::get<2>(key);
    Type elt = cast<MemRefType>(memref.getType()).getElementType();
    int64_t bytes = elt.getIntOrFloatBitWidth() / 8;
    llvm::DenseMap<int64_t, memref::LoadOp> at;
    for (Candidate &c : loads)
      at.try_emplace(c.offset, c.load);
    int64_t baseMultiple = multiples.lookup(key);
    for (int64_t width = 16 / bytes; width >= 2; width /= 2) {
      if (baseMultiple % width || argumentAlignment(memref) < width * bytes)
        continue;
      for (Candidate &c : loads) {
        int64_t start = c.offset - ((c.offset % width) + width) % width;
        SmallVector<memref::LoadOp> chunk;
        for (int64_t i = 0; i < width; ++i) {
          auto it = at.find(start + i);
          if (it == at.end() || !it->second)
            break;
          chunk.push_back(it->second);
        }
        if (int64_t(chunk.size()) != width)
          continue;
        memref::LoadOp first = chunk[0];
        for (memref::LoadOp l : chunk)
          if (l->isBeforeInBlock(first))
            first = l;
        OpBuilder b(first);
        Location loc = first.getLoc();
        // A modulo group: offsets stay below `multiple`, so the chunk is
        // (base mod modulus) + start ... + width - 1 within one period.
        if (modulus && start + width > baseMultiple)
          continue;
        auto sum = [&](Value acc, ArrayRef<Value> terms) {
          for (Value t : terms)
            acc = acc ? arith::AddIOp::create(b, loc, acc, t).getResult() : t;
          return acc;
        };
        Value index = sum(Value(), termsOf[std::get<1>(key)]);
        if (int64_t k = std::get<5>(key); k || !index) {
          Value c = arith::ConstantIndexOp::create(b, loc, k);
          index = index ? arith::AddIOp::create(b, loc, index, c).getResult()
                        : c;
        }
        if (modulus)
          index = arith::RemUIOp::create(
              b, loc, index, arith::ConstantIndexOp::create(b, loc, modulus));
        index = sum(index, termsOf[std::get<4>(key)]);
        if (start)
          index = arith::AddIOp::create(
              b, loc, index, arith::ConstantIndexOp::create(b, loc, start));
        auto vector = vector::LoadOp::create(
            b, loc, VectorType::get({width}, elt), memref, ValueRange{index});
        vector->setAttr("alignment", b.getI64IntegerAttr(width * bytes));
        // Extract first: the builder inserts before `first`, which goes.
        SmallVector<Value> elements;
        for (int64_t i = 0; i < width; ++i)
          elements.push_back(vector::ExtractOp::create(b, loc, vector, i));
        for (int64_t i = 0; i < width; ++i) {
          chunk[i].getResult().replaceAllUsesWith(elements[i]);
          chunk[i].erase();
          at[start + i] = memref::LoadOp();
        }
      }
    }
  }
}

/// An upper bound of the unsigned value `v` (inclusive), where one is
/// evident: a constant, x mod C (C - 1), min(x, C).
std::optional<uint64_t> upperBound(Value v) {
  if (std::optional<int64_t> c = getConstantIntValue(v))
    return *c >= 0 ? std::optional<uint64_t>(*c) : std::nullopt;
  if (auto rem = v.getDefiningOp<arith::RemUIOp>())
    if (std::optional<int64_t> c = getConstantIntValue(rem.getRhs()); c && *c > 0)
      return uint64_t(*c - 1);
  if (auto min = v.getDefiningOp<arith::MinUIOp>())
    for (Value o : {min.getLhs(), min.getRhs()})
      if (std::optional<int64_t> c = getConstantIntValue(o); c && *c >= 0)
        return uint64_t(*c);
  return std::nullopt;
}

/// (a + b * C) mod C = a and (a + b * C) div C = b when a < C, and
/// a mod C = a (unsigned): the elemental emitter's delinearization of an
/// index it has just linearized through a reshape (a row reduction over a
/// transposed operand reads x[(r + 40 p) mod 40 * 120 + ((r + 40 p) div
/// 40) mod 120] with p = e mod 120, which is x[r * 120 + p]). Returns
/// whether anything changed.
bool simplifyDelinearization(gpu::GPUFuncOp func) {
  bool changed = false;
  func.walk([&](Operation *op) {
    if (!isa<arith::RemUIOp, arith::DivUIOp>(op))
      return;
    std::optional<int64_t> c = getConstantIntValue(op->getOperand(1));
    if (!c || *c <= 0)
      return;
    if (std::optional<uint64_t> bound = upperBound(op->getOperand(0));
        isa<arith::RemUIOp>(op) && bound && *bound < uint64_t(*c)) {
      op->getResult(0).replaceAllUsesWith(op->getOperand(0));
      changed = true;
      return;
    }
    auto add = op->getOperand(0).getDefiningOp<arith::AddIOp>();
    if (!add)
      return;
    for (auto [a, m] : {std::pair(add.getLhs(), add.getRhs()),
                        std::pair(add.getRhs(), add.getLhs())}) {
      auto mul = m.getDefiningOp<arith::MulIOp>();
      std::optional<uint64_t> bound = upperBound(a);
      if (!mul || !bound || *bound >= uint64_t(*c))
        continue;
      for (auto [b, k] : {std::pair(mul.getLhs(), mul.getRhs()),
                          std::pair(mul.getRhs(), mul.getLhs())}) {
        if (getConstantIntValue(k) != c)
          continue;
        op->getResult(0).replaceAllUsesWith(isa<arith::RemUIOp>(op) ? a : b);
        changed = true;
        return;
      }
    }
  });
  return changed;
}

struct VectorizeGpuLoadsPass
    : mlir::bwc::impl::VectorizeGpuLoadsPassBase<VectorizeGpuLoadsPass> {
  void runOnOperation() override {
    // Simplify, then CSE: the elemental emitter computes each element's
    // index on its own, so the loads of one vector group (a row
    // reduction's 2t and 2t + 1) only share their index terms once common
    // subexpressions are one value.
    getOperation().walk(
        [&](gpu::GPUFuncOp func) { simplifyDelinearization(func); });
    IRRewriter rewriter(&getContext());
    DominanceInfo dominance;
    getOperation().walk([&](gpu::GPUModuleOp m) {
      eliminateCommonSubExpressions(rewriter, dominance, m);
    });
    SmallVector<Block *> blocks;
    getOperation().walk([&](gpu::GPUFuncOp func) {
      func.walk([&](Block *block) { blocks.push_back(block); });
    });
    for (Block *block : blocks)
      vectorizeBlock(*block);
    // The index arithmetic the simplification and the merged loads left
    // unused (cuda-sim's warp_instructions counts what is left).
    getOperation().walk([&](gpu::GPUFuncOp func) {
      SmallVector<Operation *> ops;
      func.walk([&](Operation *op) { ops.push_back(op); });
      for (Operation *op : llvm::reverse(ops))
        if (op->getNumRegions() == 0 && isOpTriviallyDead(op))
          op->erase();
    });
  }
};

} // namespace
