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
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/MathExtras.h"

#include <numeric>

namespace mlir::bwc {
#define GEN_PASS_DEF_VECTORIZEGPULOADSPASS
#include "bwc/Target/CUDA/Passes.h.inc"
} // namespace mlir::bwc

using namespace mlir;
using namespace mlir::bwc;

namespace {

/// The largest power of two `v` is known to be a multiple of (muli by a
/// constant, constants, sums of multiples), capped at 64.
int64_t knownMultiple(Value v, int depth = 0) {
  if (depth > 8)
    return 1;
  if (auto c = getConstantIntValue(v)) {
    uint64_t u = uint64_t(*c);
    return u == 0 ? 64 : int64_t(std::min<uint64_t>(64, u & (~u + 1)));
  }
  Operation *op = v.getDefiningOp();
  if (auto mul = dyn_cast_or_null<arith::MulIOp>(op))
    return std::min<int64_t>(64, knownMultiple(mul.getLhs(), depth + 1) *
                                     knownMultiple(mul.getRhs(), depth + 1));
  if (auto add = dyn_cast_or_null<arith::AddIOp>(op))
    return std::min(knownMultiple(add.getLhs(), depth + 1),
                    knownMultiple(add.getRhs(), depth + 1));
  return 1;
}

/// index = base + offset with a constant offset.
std::pair<Value, int64_t> splitOffset(Value index) {
  if (auto add = index.getDefiningOp<arith::AddIOp>()) {
    if (auto c = getConstantIntValue(add.getRhs()))
      return {add.getLhs(), *c};
    if (auto c = getConstantIntValue(add.getLhs()))
      return {add.getRhs(), *c};
  }
  return {index, 0};
}

/// `v` without the elemental emitter's delinearize-then-linearize of a
/// broadcast-free index: (x mod n) + (x div n) * n is x (unsigned, n a
/// constant). A loop kernel's same-shaped operand is read at that index.
Value stripDivRem(Value v) {
  auto add = v.getDefiningOp<arith::AddIOp>();
  if (!add)
    return v;
  for (auto [r, m] : {std::pair(add.getLhs(), add.getRhs()),
                      std::pair(add.getRhs(), add.getLhs())}) {
    auto rem = r.getDefiningOp<arith::RemUIOp>();
    auto mul = m.getDefiningOp<arith::MulIOp>();
    if (!rem || !mul)
      continue;
    std::optional<int64_t> n = getConstantIntValue(rem.getRhs());
    for (auto [d, c] : {std::pair(mul.getLhs(), mul.getRhs()),
                        std::pair(mul.getRhs(), mul.getLhs())}) {
      auto div = d.getDefiningOp<arith::DivUIOp>();
      if (div && n && div.getLhs() == rem.getLhs() &&
          getConstantIntValue(div.getRhs()) == n &&
          getConstantIntValue(c) == n)
        return rem.getLhs();
    }
  }
  return v;
}

/// How a load's index is formed: base + offset, or (since 2026-12-04)
/// (base + offset) mod `modulus` (a broadcast operand: a bias read at the
/// column of a group of consecutive outputs, `e mod cols`). The latter is
/// (base mod modulus) + offset when base and modulus are multiples of a
/// power of two above the offset, recorded in `multiple`.
struct IndexForm {
  Value base;
  int64_t offset = 0;
  int64_t modulus = 0;  ///< 0: no modulo
  int64_t multiple = 1; ///< base (and modulus) are multiples of it
};

IndexForm indexForm(Value index) {
  index = stripDivRem(index);
  if (auto rem = index.getDefiningOp<arith::RemUIOp>()) {
    std::optional<int64_t> n = getConstantIntValue(rem.getRhs());
    auto [base, offset] = splitOffset(stripDivRem(rem.getLhs()));
    int64_t multiple = n && *n > 0 ? std::min(knownMultiple(base),
                                              knownMultiple(rem.getRhs()))
                                   : 1;
    if (n && *n > 0 && offset >= 0 && offset < multiple)
      return {base, offset, *n, multiple};
  }
  auto [base, offset] = splitOffset(index);
  return {base, offset, 0, knownMultiple(base)};
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
  using Key = std::tuple<Value, Value, int64_t, int>;
  llvm::MapVector<Key, SmallVector<Candidate>> groups;
  DenseMap<Key, int64_t> multiples;
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
        Key key{load.getMemRef(), f.base, f.modulus, stretch};
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
    Value memref = std::get<0>(key), base = std::get<1>(key);
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
        Value index = base;
        if (modulus)
          index = arith::RemUIOp::create(
              b, loc, base, arith::ConstantIndexOp::create(b, loc, modulus));
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

struct VectorizeGpuLoadsPass
    : mlir::bwc::impl::VectorizeGpuLoadsPassBase<VectorizeGpuLoadsPass> {
  void runOnOperation() override {
    SmallVector<Block *> blocks;
    getOperation().walk([&](gpu::GPUFuncOp func) {
      func.walk([&](Block *block) { blocks.push_back(block); });
    });
    for (Block *block : blocks)
      vectorizeBlock(*block);
  }
};

} // namespace
