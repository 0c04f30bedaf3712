//===- ElementalEmitter.cpp - One element of any value of a kernel --------===//
//
// The dispatch, the memoization, kernel arguments, inline constants and the
// index helpers. The ops themselves are in one file per family.
//
//===----------------------------------------------------------------------===//
#include "bwc/Target/Elemental/ElementalEmitter.h"
#include "Emitters.h"
#include "bwc/Analysis/GemmView.h"

#include "bwc/Conversion/BWCToLinalg/ScalarOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::bwc;
using namespace mlir::bwc::elemental;

/// Constants up to this many elements are a select chain on the linear
/// index; larger ones become a memref.global read with a load.
static constexpr int64_t kMaxSelectConstant = 16;

//===----------------------------------------------------------------------===//
// Helpers shared by the families
//===----------------------------------------------------------------------===//

Value elemental::indexConst(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

Value elemental::clampIndex(OpBuilder &b, Location loc, Value x, int64_t lo,
                            int64_t hi) {
  x = b.createOrFold<arith::MaxSIOp>(loc, x, indexConst(b, loc, lo));
  return b.createOrFold<arith::MinSIOp>(loc, x, indexConst(b, loc, hi));
}

SmallVector<Value> elemental::broadcastIndex(OpBuilder &b, Location loc,
                                             ValueRange index,
                                             ArrayRef<int64_t> out,
                                             ArrayRef<int64_t> in) {
  SmallVector<Value> r;
  int64_t lead = out.size() - in.size();
  for (auto [i, d] : llvm::enumerate(in)) {
    if (d == 1 && out[lead + i] != 1)
      r.push_back(indexConst(b, loc, 0));
    else
      r.push_back(index[lead + i]);
  }
  return r;
}

ArrayRef<int64_t> elemental::shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

Type elemental::elementOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getElementType();
}

FailureOr<SmallVector<Value>> elemental::buildLoops(OpBuilder &b, Location loc,
                                                    ArrayRef<int64_t> sizes,
                                                    ValueRange inits,
                                                    LoopBody body) {
  if (sizes.empty())
    return body(b, loc, ValueRange{}, inits);
  Value zero = indexConst(b, loc, 0), one = indexConst(b, loc, 1);
  Value ub = indexConst(b, loc, sizes.front());
  // The body is built after the loop op exists (not in a body builder,
  // which runs before the op is created): the emitter looks through the
  // enclosing loops for the outermost one an element is invariant in.
  auto loop = scf::ForOp::create(b, loc, zero, ub, one, inits);
  Block *blk = loop.getBody();
  if (!blk->empty())
    blk->getTerminator()->erase(); // the empty yield of a loop without inits
  OpBuilder nb = OpBuilder::atBlockEnd(blk);
  Value iv = loop.getInductionVar();
  ValueRange iters = loop.getRegionIterArgs();
  FailureOr<SmallVector<Value>> next =
      buildLoops(nb, loc, sizes.drop_front(), iters,
                 [&](OpBuilder &ib, Location il, ValueRange ivs,
                     ValueRange it) -> FailureOr<SmallVector<Value>> {
                   SmallVector<Value> all = {iv};
                   all.append(ivs.begin(), ivs.end());
                   return body(ib, il, all, it);
                 });
  nb.setInsertionPointToEnd(blk);
  scf::YieldOp::create(nb, loc,
                       failed(next) ? SmallVector<Value>(iters) : *next);
  if (failed(next))
    return failure();
  return SmallVector<Value>(loop.getResults());
}

Type ElementalEmitter::accumulatorType(Operation *op, Type elt) {
  if (auto acc = op->getAttrOfType<TypeAttr>("acc_type"))
    return acc.getValue();
  if (elt.isF16() || elt.isBF16())
    return Float32Type::get(elt.getContext());
  return lowering::signlessType(elt);
}

//===----------------------------------------------------------------------===//
// Index helpers
//===----------------------------------------------------------------------===//

SmallVector<Value> ElementalEmitter::delinearize(OpBuilder &b, Location loc,
                                                 Value linear,
                                                 ArrayRef<int64_t> shape) {
  SmallVector<Value> index(shape.size());
  for (int64_t i = shape.size() - 1; i >= 0; --i) {
    if (shape[i] == 1) {
      index[i] = indexConst(b, loc, 0);
      continue;
    }
    if (i == 0) {
      index[i] = linear;
      break;
    }
    Value size = indexConst(b, loc, shape[i]);
    index[i] = b.createOrFold<arith::RemUIOp>(loc, linear, size);
    linear = b.createOrFold<arith::DivUIOp>(loc, linear, size);
  }
  return index;
}

Value ElementalEmitter::linearize(OpBuilder &b, Location loc, ValueRange index,
                                  ArrayRef<int64_t> shape) {
  Value linear = indexConst(b, loc, 0);
  int64_t stride = 1;
  for (int64_t i = shape.size() - 1; i >= 0; --i) {
    if (shape[i] != 1) {
      Value term = b.createOrFold<arith::MulIOp>(loc, index[i],
                                                 indexConst(b, loc, stride));
      linear = b.createOrFold<arith::AddIOp>(loc, linear, term);
    }
    stride *= shape[i];
  }
  return linear;
}

//===----------------------------------------------------------------------===//
// The emitter
//===----------------------------------------------------------------------===//

ElementalEmitter::ElementalEmitter(func::FuncOp kernel, ValueRange argBuffers)
    : kernel(kernel), argBuffers(argBuffers.begin(), argBuffers.end()) {}

void ElementalEmitter::clearCache() { cache.clear(); }

/// True when `v` may be used at the builder's insertion point: it is
/// defined in the insertion block or in a block enclosing it.
static bool isVisible(OpBuilder &b, Value v) {
  Block *def = v.getParentBlock();
  for (Block *blk = b.getInsertionBlock(); blk;) {
    if (blk == def)
      return true;
    Operation *parent = blk->getParentOp();
    blk = parent ? parent->getBlock() : nullptr;
  }
  return false;
}

/// True when `v` has the same value in every iteration of `loop`: defined
/// outside it, or an arith op without effects (a constant, index
/// arithmetic) whose operands are.
static bool isInvariantIn(Value v, scf::ForOp loop) {
  Operation *def = v.getDefiningOp();
  Operation *owner = def ? def : v.getParentBlock()->getParentOp();
  if (!loop->isAncestor(owner))
    return true;
  if (!def || !isa<arith::ArithDialect>(def->getDialect()) ||
      def->getNumRegions() || !isMemoryEffectFree(def))
    return false;
  return llvm::all_of(def->getOperands(),
                      [&](Value o) { return isInvariantIn(o, loop); });
}

/// The outermost of the scf.for loops directly enclosing the insertion
/// point (no scf.if or other op between them: a guard may protect the
/// index) in which every `index` value is invariant; null when none.
static scf::ForOp outermostInvariantLoop(OpBuilder &b, ValueRange index) {
  scf::ForOp best;
  Operation *at = b.getInsertionBlock()->getParentOp();
  while (auto loop = dyn_cast_or_null<scf::ForOp>(at)) {
    if (!llvm::all_of(index, [&](Value v) { return isInvariantIn(v, loop); }))
      break;
    best = loop;
    at = loop->getParentOp();
  }
  return best;
}

/// `v` usable before `loop` (where it is invariant): itself, or its
/// arithmetic cloned at the insertion point.
static Value materializeBefore(OpBuilder &b, Value v, scf::ForOp loop,
                               IRMapping &map) {
  if (Value m = map.lookupOrNull(v))
    return m;
  Operation *def = v.getDefiningOp();
  if (!def || !loop->isAncestor(def))
    return v;
  for (Value o : def->getOperands())
    materializeBefore(b, o, loop, map);
  return b.clone(*def, map)->getResult(cast<OpResult>(v).getResultNumber());
}

FailureOr<Value> ElementalEmitter::emitLinear(OpBuilder &b, Location loc,
                                              Value value, Value linearIndex) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type)
    return emitError(loc) << "expects a ranked tensor value but got "
                          << value.getType();
  return emit(b, loc, value, delinearize(b, loc, linearIndex, type.getShape()));
}

FailureOr<SmallVector<Value>>
ElementalEmitter::emitGroup(OpBuilder &b, Location loc, Value value,
                            ArrayRef<SmallVector<Value>> indices) {
  auto conv = value.getDefiningOp<ConvOp>();
  auto type = dyn_cast<RankedTensorType>(value.getType());
  bool viaGemm = convViaGemm && conv &&
                 isa<FloatType>(conv.getType().getElementType()) &&
                 GemmView::get(conv);
  if (conv && !bound.count(value) && !viaGemm && indices.size() > 1 &&
      llvm::all_of(indices, [&](const SmallVector<Value> &i) {
        return int64_t(i.size()) == type.getRank();
      }))
    return elemental::emitConvGroup(*this, b, loc, conv, indices);
  SmallVector<Value> out;
  for (const SmallVector<Value> &i : indices) {
    FailureOr<Value> v = emit(b, loc, value, i);
    if (failed(v))
      return failure();
    out.push_back(*v);
  }
  return out;
}

FailureOr<Value> ElementalEmitter::emit(OpBuilder &b, Location loc, Value value,
                                        ValueRange index) {
  if (auto it = bound.find(value); it != bound.end())
    return it->second;
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || type.getRank() != (int64_t)index.size())
    return emitError(value.getLoc())
           << "expects an element index of rank " << (type ? type.getRank() : 0)
           << " but got " << index.size() << " index values";

  std::vector<const void *> key = {value.getAsOpaquePointer()};
  for (Value i : index)
    key.push_back(i.getAsOpaquePointer());
  if (auto it = cache.find(key); it != cache.end()) {
    if (isVisible(b, it->second))
      return it->second;
    cache.erase(it);
  }

  // A loop-carrying op (a reduction, a contraction) whose element does not
  // change across the loops enclosing the insertion point is emitted
  // before them, once: a LayerNorm's mean inside the loop of its variance
  // would otherwise be recomputed per step, and nested reductions cost
  // the product of their trip counts (difftest's finding 3: two chained
  // LayerNorms on thread_per_output, 1.5e9 steps per output). Not while a
  // driver binds values: those live inside its loops.
  Operation *def = value.getDefiningOp();
  if (bound.empty() && def &&
      isa<ReduceOp, ArgReduceOp, MatmulOp, ConvOp, PoolOp>(def)) {
    if (scf::ForOp loop = outermostInvariantLoop(b, index)) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(loop);
      IRMapping map;
      SmallVector<Value> hoisted;
      for (Value i : index)
        hoisted.push_back(materializeBefore(b, i, loop, map));
      FailureOr<Value> r = emitOp(b, loc, def, hoisted);
      if (succeeded(r))
        cache[key] = *r;
      return r;
    }
  }

  FailureOr<Value> r = failure();
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    if (arg.getOwner() != &kernel.getBody().front() ||
        arg.getArgNumber() >= argBuffers.size())
      return emitError(value.getLoc())
             << "expects a value of kernel '" << kernel.getSymName()
             << "' with a buffer but got an argument without one";
    Value linear = linearize(b, loc, index, type.getShape());
    r = memref::LoadOp::create(b, loc, argBuffers[arg.getArgNumber()], linear)
            .getResult();
  } else {
    r = emitOp(b, loc, value.getDefiningOp(), index);
  }
  if (succeeded(r))
    cache[key] = *r;
  return r;
}

FailureOr<Value> ElementalEmitter::emitOp(OpBuilder &b, Location loc,
                                          Operation *op, ValueRange index) {
  return llvm::TypeSwitch<Operation *, FailureOr<Value>>(op)
      .Case<ConstantOp>([&](auto) { return emitConstant(b, loc, op, index); })
      .Case<UnaryOp, BinaryOp, SelectOp, CastOp, BroadcastOp>(
          [&](auto) { return emitElementwise(*this, b, loc, op, index); })
      .Case<TransposeOp, ReshapeOp, SliceOp, ConcatOp, PadOp, GatherOp,
            ResizeOp>(
          [&](auto) { return emitDataMovement(*this, b, loc, op, index); })
      .Case<ReduceOp, ArgReduceOp>(
          [&](auto) { return emitReduction(*this, b, loc, op, index); })
      .Case<MatmulOp, ConvOp, PoolOp>(
          [&](auto) { return emitContraction(*this, b, loc, op, index); })
      .Default([&](Operation *other) -> FailureOr<Value> {
        return other->emitOpError()
               << "expects a bwc op the elemental emitter supports but got '"
               << other->getName() << "'";
      });
}

/// The element `value` (an integer or float attribute) as a signless
/// arith constant.
static Value scalarConstant(OpBuilder &b, Location loc, Attribute value,
                            Type t) {
  if (auto i = dyn_cast<IntegerAttr>(value))
    return arith::ConstantOp::create(b, loc, t,
                                     IntegerAttr::get(t, i.getValue()));
  return arith::ConstantOp::create(b, loc, cast<TypedAttr>(value));
}

FailureOr<Value> ElementalEmitter::emitConstant(OpBuilder &b, Location loc,
                                                Operation *op,
                                                ValueRange index) {
  auto c = cast<ConstantOp>(op);
  ElementsAttr attr = c.getValue();
  auto type = cast<RankedTensorType>(c.getType());
  Type t = lowering::signlessType(type.getElementType());
  if (attr.isSplat())
    return scalarConstant(b, loc, attr.getSplatValue<Attribute>(), t);
  auto dense = dyn_cast<DenseElementsAttr>(attr);
  if (!dense)
    return op->emitOpError()
           << "expects a dense or splat constant in a kernel but got " << attr;
  int64_t n = type.getNumElements();
  // No element exists: the code is emitted (in a loop over an empty
  // reduction, say) but never runs. A zero stands in (fuzzing found the
  // select chain below reading the last of no values).
  if (n == 0)
    return arith::ConstantOp::create(b, loc, cast<TypedAttr>(b.getZeroAttr(t)))
        .getResult();
  Value linear = linearize(b, loc, index, type.getShape());
  if (n <= kMaxSelectConstant) {
    SmallVector<Attribute> values(dense.getValues<Attribute>());
    Value r = scalarConstant(b, loc, values[n - 1], t);
    for (int64_t i = n - 2; i >= 0; --i) {
      Value is = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, linear,
                                       indexConst(b, loc, i));
      r = arith::SelectOp::create(b, loc, is,
                                  scalarConstant(b, loc, values[i], t), r);
    }
    return r;
  }
  // A read-only global in the symbol table enclosing the code being built.
  auto flatType = MemRefType::get({n}, t);
  StringAttr &name = constantGlobals[op];
  if (!name) {
    Operation *table = SymbolTable::getNearestSymbolTable(
        b.getInsertionBlock()->getParentOp());
    if (!table)
      return op->emitOpError()
             << "expects the emitted code inside a symbol table but got none";
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&table->getRegion(0).front());
    auto initial =
        dense.reshape(RankedTensorType::get({n}, type.getElementType()));
    if (t != type.getElementType())
      initial = initial.bitcast(t);
    auto global = memref::GlobalOp::create(
        b, loc, "__bwc_constant", b.getStringAttr("private"), flatType, initial,
        /*constant=*/true, /*alignment=*/IntegerAttr());
    SymbolTable(table).insert(global);
    name = global.getSymNameAttr();
  }
  Value buffer = memref::GetGlobalOp::create(b, loc, flatType, name.getValue());
  return memref::LoadOp::create(b, loc, buffer, linear).getResult();
}
