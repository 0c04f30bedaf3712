//===- MixedPrecision.cpp - fp16/bf16 rewriting with AMP-style lists ------===//
//
// Walks the program function once, in order, and decides for every op
// whether it computes in the low precision (fp16 or bf16) or in f32:
// - allow (matmul, conv): low precision operands and result, summed in f32
//   (`acc_type = f32`, which every kernel emitter obeys);
// - follow (elementwise, data movement, max/min reductions, pooling,
//   nearest resizing, arg reductions): low precision when every
//   non-constant float operand already is, f32 otherwise; average pools
//   in low precision sum in f32 too;
// - deny (sum/mean/prod reductions, exp, log, pow, reciprocal, rsqrt,
//   squares, division by a computed value, linear/cubic resizing, the ops
//   producing the program's results, anything unknown): f32.
// Elementwise ops the follow rule would put in low precision compute in f32
// from their widened operands instead; a result read by one elementwise op
// stays f32 (a register inside the fused kernel), any other is rounded to
// the low type once, by a cast right after it, where it is stored. An
// elementwise op reading a low value that a non-elementwise op also reads
// (stored anyway) computes in the low type: widening it would make fusion
// store an f32 copy in the producer's kernel.
// Range safety: an f32 constant that the low type cannot hold (a finite
// |v| > 65504 in fp16, or nonzeros that all flush to zero, like an
// epsilon) is never converted; an op reading one stays in f32. With
// --calibrate the same holds for computed values by their recorded
// `bwc.range`, and ops marked `bwc.keep_f32` stay f32.
// Operands are converted with bwc.cast where their type differs from the
// op's; f32 constants are converted at compile time (dense and
// dense_resource weights alike), and a cast back of an exact widening
// (f16 -> f32 -> f16) reuses the narrow value. The function's inputs and
// results keep their declared types (casts sit at the boundary) unless
// `low-io` asks for them in the low precision. Only f32 is rewritten; f64
// and integers are left alone.
//
// The reasons for each list entry are in docs/passes/bwc-mixed-precision.md.
//
//===----------------------------------------------------------------------===//
#include "bwc/Transforms/Passes.h"

#include "bwc/Dialect/BWC/IR/BWCOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVectorExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

namespace mlir::bwc {
#define GEN_PASS_DEF_MIXEDPRECISIONPASS
#include "bwc/Transforms/Passes.h.inc"
} // namespace mlir::bwc

using namespace mlir;
using namespace mlir::bwc;

namespace {

enum class Policy { Allow, Follow, Deny };

Policy classify(Operation *op) {
  if (isa<MatmulOp, ConvOp>(op))
    return Policy::Allow;
  if (auto u = dyn_cast<UnaryOp>(op)) {
    switch (u.getFn()) {
    case UnaryFn::exp:
    case UnaryFn::log:
    case UnaryFn::reciprocal:
    case UnaryFn::rsqrt:
    // Exponential growth (sinh, cosh), poles (tan) and singular endpoints
    // (atanh, acosh) amplify fp16's rounding of the operand.
    case UnaryFn::sinh:
    case UnaryFn::cosh:
    case UnaryFn::tan:
    case UnaryFn::atanh:
    case UnaryFn::acosh:
      return Policy::Deny;
    default:
      return Policy::Follow;
    }
  }
  if (auto b = dyn_cast<BinaryOp>(op)) {
    // Squares (variances) and quotients by computed values overflow fp16
    // on ordinary activations (|x| > 256, divisors near 0).
    bool square = b.getFn() == BinaryFn::mul && b.getLhs() == b.getRhs();
    bool computedDivisor = b.getFn() == BinaryFn::div &&
                           !b.getRhs().getDefiningOp<ConstantOp>();
    return b.getFn() == BinaryFn::pow || square || computedDivisor
               ? Policy::Deny
               : Policy::Follow;
  }
  if (auto r = dyn_cast<ReduceOp>(op))
    return r.getKind() == ReduceKind::max || r.getKind() == ReduceKind::min
               ? Policy::Follow
               : Policy::Deny;
  if (auto r = dyn_cast<ResizeOp>(op))
    return r.getMode() == ResizeMode::nearest ? Policy::Follow : Policy::Deny;
  if (isa<SelectOp, BroadcastOp, ReshapeOp, TransposeOp, SliceOp, ConcatOp,
          PadOp, GatherOp, PoolOp, ArgReduceOp>(op))
    return Policy::Follow;
  return Policy::Deny;
}

/// Elementwise ops fuse into one kernel: the values between them stay in
/// registers and never reach memory.
bool isElementwise(Operation *op) {
  return isa<UnaryOp, BinaryOp, SelectOp>(op);
}

bool isF32(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.getElementType().isF32();
}

Type elementType(Value v) {
  return cast<RankedTensorType>(v.getType()).getElementType();
}

bool isFloatTensor(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && isa<FloatType>(t.getElementType());
}

/// `f32` values of `attr` (dense or dense_resource), or false.
bool readF32(ElementsAttr attr, SmallVectorImpl<float> &out) {
  if (auto res = dyn_cast<DenseResourceElementsAttr>(attr)) {
    AsmResourceBlob *blob = res.getRawHandle().getBlob();
    if (!blob)
      return false;
    ArrayRef<char> data = blob->getData();
    int64_t n = cast<ShapedType>(attr.getType()).getNumElements();
    if ((int64_t)data.size() != n * 4)
      return false;
    out.resize(n);
    std::memcpy(out.data(), data.data(), data.size());
    return true;
  }
  auto dense = dyn_cast<DenseElementsAttr>(attr);
  if (!dense)
    return false;
  for (float v : dense.getValues<float>())
    out.push_back(v);
  return true;
}

/// `attr` converted to element type `elt` at compile time; a null attribute
/// when its data cannot be read.
ElementsAttr convertConstant(ElementsAttr attr, FloatType elt) {
  auto type = cast<RankedTensorType>(attr.getType()).clone(elt);
  if (auto dense = dyn_cast<DenseElementsAttr>(attr); dense && dense.isSplat()) {
    APFloat v(dense.getSplatValue<float>());
    bool lost;
    v.convert(elt.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    return DenseElementsAttr::get(type, v);
  }
  SmallVector<float> values;
  if (!readF32(attr, values))
    return {};
  SmallVector<uint16_t> bits;
  bits.reserve(values.size());
  for (float f : values) {
    APFloat v(f);
    bool lost;
    v.convert(elt.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    bits.push_back((uint16_t)v.bitcastToAPInt().getZExtValue());
  }
  ArrayRef<char> raw(reinterpret_cast<const char *>(bits.data()),
                     bits.size() * sizeof(uint16_t));
  if (auto res = dyn_cast<DenseResourceElementsAttr>(attr)) {
    std::string name = (res.getRawHandle().getKey() + "_" +
                        (elt.isF16() ? "f16" : "bf16"))
                           .str();
    return DenseResourceElementsAttr::get(
        type, name,
        HeapAsmResourceBlob::allocateAndCopyWithAlign(raw, alignof(double)));
  }
  return DenseElementsAttr::getFromRawBuffer(type, raw);
}

/// True when `values` convert to `elt` without a finite value overflowing
/// to infinity, and without every nonzero flushing to zero (an epsilon
/// vanishing; a few tiny weights flushing among others are harmless).
bool fitsIn(ArrayRef<float> values, FloatType elt) {
  bool anyNonzero = false, anyKept = false;
  for (float v : values) {
    if (!std::isfinite(v) || v == 0)
      continue;
    APFloat x(v);
    bool lost;
    x.convert(elt.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    if (!x.isFinite())
      return false;
    anyNonzero = true;
    anyKept |= !x.isZero();
  }
  return anyKept || !anyNonzero;
}

/// True when every value of `from` is exactly representable in `to`.
bool isExactWidening(Type from, Type to) {
  auto f = dyn_cast<FloatType>(from), t = dyn_cast<FloatType>(to);
  if (!f || !t)
    return false;
  return (f.isF16() || f.isBF16()) && (t.isF32() || t.isF64());
}

/// The recorded range of `v` (--calibrate's `bwc.range`: {max, median}),
/// looking through casts; null when none was recorded.
DictionaryAttr rangeOf(Value v) {
  if (auto cast = v.getDefiningOp<CastOp>())
    return rangeOf(cast.getInput());
  if (auto r = dyn_cast<OpResult>(v)) {
    auto ranges = r.getOwner()->getAttrOfType<ArrayAttr>("bwc.range");
    if (!ranges || r.getResultNumber() >= ranges.size())
      return {};
    auto d = dyn_cast<DictionaryAttr>(ranges[r.getResultNumber()]);
    return d && !d.empty() ? d : DictionaryAttr();
  }
  auto arg = cast<BlockArgument>(v);
  auto f = dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp());
  return f ? f.getArgAttrOfType<DictionaryAttr>(arg.getArgNumber(),
                                                "bwc.range")
           : DictionaryAttr();
}

/// Why a value of recorded range `range` cannot be stored in `low`: it
/// reaches over half the largest finite value (overflow, with 2x headroom
/// for inputs the samples did not show), or its median nonzero magnitude
/// is below the smallest normal number (underflow: most values subnormal
/// or flushed). Empty when it fits.
std::string rangeProblem(DictionaryAttr range, FloatType low) {
  const llvm::fltSemantics &sem = low.getFloatSemantics();
  double largest = APFloat::getLargest(sem).convertToDouble();
  double smallestNormal = APFloat::getSmallestNormalized(sem).convertToDouble();
  const char *name = low.isF16() ? "fp16" : "bf16";
  auto field = [&](StringRef key) -> std::optional<double> {
    if (auto f = range.getAs<FloatAttr>(key))
      return f.getValueAsDouble();
    return std::nullopt;
  };
  if (std::optional<double> max = field("max"); max && *max > largest / 2)
    return llvm::formatv("overflow: |x| reaches {0:e2}, over half {1}'s "
                         "largest value {2:e2}",
                         *max, name, largest)
        .str();
  if (std::optional<double> median = field("median");
      median && *median < smallestNormal)
    return llvm::formatv("underflow: median nonzero |x| {0:e2} is below "
                         "{1}'s smallest normal {2:e2}",
                         *median, name, smallestNormal)
        .str();
  return "";
}

class Rewriter {
public:
  Rewriter(FloatType low, bool lowIO) : low(low), lowIO(lowIO) {}

  /// True when `v` is an f32 constant the low type cannot hold.
  bool isOutOfRange(Value v) {
    auto c = v.getDefiningOp<ConstantOp>();
    if (!c || !isF32(v))
      return false;
    auto [it, inserted] = outOfRange.try_emplace(c, false);
    if (!inserted)
      return it->second;
    SmallVector<float> values;
    if (auto dense = dyn_cast<DenseElementsAttr>(c.getValue());
        dense && dense.isSplat())
      values.push_back(dense.getSplatValue<float>());
    else if (!readF32(c.getValue(), values))
      return it->second = true; // unreadable: keep it as it is
    return it->second = !fitsIn(values, low);
  }

  /// `v` with element type `elt`: the value itself, a compile-time
  /// converted constant, the narrow source of an exact widening, or a new
  /// bwc.cast placed right after `v`'s definition.
  Value convert(Value v, Type elt) {
    if (elementType(v) == elt)
      return v;
    auto key = std::make_pair(v, elt);
    if (auto it = cache.find(key); it != cache.end())
      return it->second;
    Value result;
    if (auto c = v.getDefiningOp<CastOp>();
        c && elementType(c.getInput()) == elt &&
        isExactWidening(elt, elementType(v)))
      result = c.getInput();
    OpBuilder b(v.getContext());
    if (!result) {
      if (auto c = v.getDefiningOp<ConstantOp>();
          c && isF32(v) && isa<FloatType>(elt)) {
        if (ElementsAttr attr = convertConstant(c.getValue(), cast<FloatType>(elt))) {
          b.setInsertionPoint(c);
          result = ConstantOp::create(b, c.getLoc(), attr);
        }
      }
    }
    if (!result) {
      if (Operation *def = v.getDefiningOp())
        b.setInsertionPointAfter(def);
      else
        b.setInsertionPointToStart(cast<BlockArgument>(v).getOwner());
      auto type = cast<RankedTensorType>(v.getType()).clone(elt);
      result = CastOp::create(b, v.getLoc(), type, v);
    }
    cache[key] = result;
    return result;
  }

  /// Decides and applies the precision of `op`; `isOutput` ops (whose
  /// results the program returns) compute in f32 unless `lowIO`.
  void rewrite(Operation *op, bool isOutput) {
    Policy policy = isOutput && !lowIO ? Policy::Deny : classify(op);
    if (llvm::any_of(op->getOperands(),
                     [&](Value v) { return isOutOfRange(v); }))
      policy = Policy::Deny;
    bool useLow = false;
    switch (policy) {
    case Policy::Allow:
      useLow = true;
      break;
    case Policy::Deny:
      useLow = false;
      break;
    case Policy::Follow: {
      bool anyLow = false, allLow = true;
      for (Value v : op->getOperands()) {
        if (!isFloatTensor(v) || v.getDefiningOp<ConstantOp>())
          continue;
        if (elementType(v) == low || inRegisters.contains(v))
          anyLow = true;
        else if (isF32(v))
          allLow = false;
      }
      useLow = anyLow && allLow;
      break;
    }
    }
    // --calibrate: ops its validation search marked stay f32; so does a
    // value whose recorded range the low type cannot hold, and every op
    // that would convert it (the reason is recorded for the report).
    if (op->hasAttr("bwc.keep_f32"))
      useLow = false;
    if (useLow) {
      std::string reason;
      for (OpResult r : op->getResults())
        if (DictionaryAttr range = isF32(r) ? rangeOf(r) : DictionaryAttr();
            range && reason.empty())
          reason = rangeProblem(range, low);
      for (auto [i, v] : llvm::enumerate(op->getOperands()))
        if (reason.empty() && isFloatTensor(v) &&
            !v.getDefiningOp<ConstantOp>())
          if (DictionaryAttr range = rangeOf(v))
            if (std::string p = rangeProblem(range, low); !p.empty())
              reason = "operand " + std::to_string(i) + ": " + p;
      if (!reason.empty()) {
        useLow = false;
        op->setAttr("bwc.keep_f32", StringAttr::get(op->getContext(), reason));
      }
    }
    // Elementwise arithmetic computes in f32 (registers cost no bytes) and
    // rounds once, where its chain ends and the value is stored: a conv's
    // epilogue (scale, shift, activation) otherwise rounds after every op.
    // A low operand also read by a non-elementwise op is stored anyway; a
    // widening cast of it would fuse into its producer's kernel and store
    // an f32 copy, so such an op computes in the low type.
    auto storedAndRead = [&](Value v) {
      return isFloatTensor(v) && elementType(v) == low &&
             !v.getDefiningOp<ConstantOp>() &&
             !llvm::all_of(v.getUsers(), isElementwise);
    };
    if (useLow && isElementwise(op) &&
        llvm::all_of(op->getResults(), [](Value r) { return isF32(r); }) &&
        llvm::none_of(op->getOperands(), storedAndRead)) {
      widenElementwise(op);
      return;
    }
    Type from = useLow ? Type(Float32Type::get(op->getContext())) : low;
    Type to = useLow ? low : Type(Float32Type::get(op->getContext()));
    // Widening back only undoes this pass: values the program declares in
    // the low type (an f16 model) stay as they are.
    for (OpOperand &operand : op->getOpOperands())
      if (isFloatTensor(operand.get()) && elementType(operand.get()) == from &&
          (useLow || lowered.contains(operand.get())))
        operand.set(convert(operand.get(), to));
    if (!useLow)
      return;
    for (OpResult r : op->getResults())
      if (isF32(r)) {
        r.setType(cast<RankedTensorType>(r.getType()).clone(low));
        lowered.insert(r);
      }
    if (auto pad = dyn_cast<PadOp>(op))
      if (auto f = dyn_cast<FloatAttr>(pad.getValue()); f && f.getType().isF32())
        pad.setValueAttr(FloatAttr::get(low, f.getValueAsDouble()));
    // Sums of low-precision products and window sums run in f32.
    TypeAttr f32 = TypeAttr::get(Float32Type::get(op->getContext()));
    if (auto m = dyn_cast<MatmulOp>(op))
      m.setAccTypeAttr(f32);
    else if (auto c = dyn_cast<ConvOp>(op))
      c.setAccTypeAttr(f32);
    else if (auto p = dyn_cast<PoolOp>(op); p && p.getKind() == PoolKind::avg)
      p.setAccTypeAttr(f32);
  }

  /// Values this pass gave the low type (results, low-io inputs).
  llvm::DenseSet<Value> lowered;

private:
  /// Computes elementwise `op` in f32 from its widened low operands. A
  /// result read only by elementwise ops stays f32 (`inRegisters`, low
  /// precision for the follow rule); any other result is rounded to the low
  /// type right after `op`, and every user reads the rounded value.
  void widenElementwise(Operation *op) {
    Type f32 = Float32Type::get(op->getContext());
    for (OpOperand &operand : op->getOpOperands())
      if (isFloatTensor(operand.get()) && elementType(operand.get()) == low)
        operand.set(convert(operand.get(), f32));
    for (OpResult r : op->getResults()) {
      bool interior = r.hasOneUse() && isElementwise(*r.getUsers().begin());
      if (interior) {
        inRegisters.insert(r);
        continue;
      }
      Value rounded = convert(r, low);
      r.replaceAllUsesExcept(rounded, rounded.getDefiningOp());
      lowered.insert(rounded);
    }
  }

  /// f32 results of elementwise ops that only elementwise ops read.
  llvm::DenseSet<Value> inRegisters;

  FloatType low;
  bool lowIO;
  llvm::DenseMap<std::pair<Value, Type>, Value> cache;
  llvm::DenseMap<Operation *, bool> outOfRange;
};

struct MixedPrecisionPass
    : public bwc::impl::MixedPrecisionPassBase<MixedPrecisionPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp program = lookupProgram(getOperation(), funcName);
    if (!program)
      return signalPassFailure();
    MLIRContext *ctx = &getContext();
    FloatType low;
    if (precision == "fp16")
      low = Float16Type::get(ctx);
    else if (precision == "bf16")
      low = BFloat16Type::get(ctx);
    else {
      program.emitError() << "unknown precision '" << precision
                          << "' (expected fp16 or bf16)";
      return signalPassFailure();
    }
    if (!program.getBody().hasOneBlock()) {
      program.emitError() << "expects a single-block program function";
      return signalPassFailure();
    }
    Block &body = program.getBody().front();
    Rewriter rewriter(low, lowIO);
    // With low-io, f32 inputs and results take the low type.
    auto lowered = [&](Type t) -> Type {
      auto tensor = dyn_cast<RankedTensorType>(t);
      return lowIO && tensor && tensor.getElementType().isF32()
                 ? tensor.clone(low)
                 : t;
    };
    for (BlockArgument arg : body.getArguments()) {
      Type t = lowered(arg.getType());
      if (t != arg.getType())
        rewriter.lowered.insert(arg);
      arg.setType(t);
    }
    SmallVector<Type> results =
        llvm::map_to_vector(program.getFunctionType().getResults(), lowered);
    program.setFunctionType(
        FunctionType::get(ctx, body.getArgumentTypes(), results));
    SmallVector<Operation *> ops;
    for (Operation &op : body)
      ops.push_back(&op);
    for (Operation *op : ops) {
      if (isa<ConstantOp, CastOp>(op))
        continue;
      if (auto ret = dyn_cast<func::ReturnOp>(op)) {
        // Results keep their declared (or, with low-io, lowered) types.
        for (auto [i, operand] : llvm::enumerate(ret->getOpOperands()))
          if (operand.get().getType() != results[i])
            operand.set(rewriter.convert(
                operand.get(),
                cast<RankedTensorType>(results[i]).getElementType()));
        continue;
      }
      if (op->getDialect() != ctx->getLoadedDialect<BWCDialect>())
        continue;
      bool isOutput = llvm::any_of(op->getUsers(), [](Operation *user) {
        return isa<func::ReturnOp>(user);
      });
      rewriter.rewrite(op, isOutput);
    }
    // Drop what the rewrite left unused (original weights, spare casts).
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
      if (isa<ConstantOp, CastOp>(op) && op.use_empty())
        op.erase();
  }
};

} // namespace
