//===- ReductionToLinalg.cpp - Reduction bwc ops to linalg ----------------===//
//
// bwc.reduce and bwc.arg_reduce become one linalg.generic each, reducing to
// the shape without the reduced axes (linalg output maps must be projected
// permutations); keepdims re-inserts the unit dims with tensor.expand_shape.
// The init is the reduction's identity, so reducing a zero-size dim yields
// it (and mean's 0 / 0 gives NaN for floats). f16/bf16 sums, means and
// products accumulate in f32 (or the op's `acc_type`) and round once at the
// end, like the elemental emitter (ElementalEmitter::accumulatorType), so
// both CPU code paths and the CUDA target agree; max/min are exact in the
// element type.
//
//===----------------------------------------------------------------------===//
#include "Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::bwc;
using namespace mlir::bwc::lowering;

/// The largest (or lowest) value of signless `t`; `elt`, the bwc element
/// type, gives the signedness of integers. Floats get +-inf.
TypedAttr lowering::extremeAttr(Type t, Type elt, bool largest) {
  if (auto ft = dyn_cast<FloatType>(t))
    return FloatAttr::get(ft, APFloat::getInf(ft.getFloatSemantics(),
                                              /*Negative=*/!largest));
  unsigned w = t.getIntOrFloatBitWidth();
  APInt v = isUnsignedElement(elt)
                ? (largest ? APInt::getMaxValue(w) : APInt::getMinValue(w))
                : (largest ? APInt::getSignedMaxValue(w)
                           : APInt::getSignedMinValue(w));
  return IntegerAttr::get(t, v);
}

/// A tensor of `shape` filled with `value`.
Value lowering::filledTensor(OpBuilder &b, Location loc,
                             ArrayRef<int64_t> shape, TypedAttr value) {
  Value empty = tensor::EmptyOp::create(b, loc, shape, value.getType());
  Value scalar = arith::ConstantOp::create(b, loc, value);
  return linalg::FillOp::create(b, loc, scalar, empty).getResult(0);
}

namespace {

/// `shape` without the dims in `axes`.
SmallVector<int64_t> keptShape(ArrayRef<int64_t> shape,
                               ArrayRef<int64_t> axes) {
  SmallVector<int64_t> out;
  for (auto [i, d] : llvm::enumerate(shape))
    if (!llvm::is_contained(axes, (int64_t)i))
      out.push_back(d);
  return out;
}

/// Map from the input's iteration space to the kept dims.
AffineMap keptMap(int64_t rank, ArrayRef<int64_t> axes, MLIRContext *ctx) {
  SmallVector<AffineExpr> exprs;
  for (int64_t i = 0; i < rank; ++i)
    if (!llvm::is_contained(axes, i))
      exprs.push_back(getAffineDimExpr(i, ctx));
  return AffineMap::get(rank, 0, exprs, ctx);
}

SmallVector<utils::IteratorType> reductionIterators(int64_t rank,
                                                    ArrayRef<int64_t> axes) {
  SmallVector<utils::IteratorType> it(rank, utils::IteratorType::parallel);
  for (int64_t a : axes)
    it[a] = utils::IteratorType::reduction;
  return it;
}

/// With keepdims, expands `reduced` (kept dims only) to `resultType` whose
/// reduced `axes` are unit dims; each unit dim joins the next kept dim's
/// group (trailing ones the last group).
Value restoreKeptDims(OpBuilder &b, Location loc, Value reduced,
                      RankedTensorType resultType, ArrayRef<int64_t> axes,
                      bool keepdims) {
  auto type = cast<RankedTensorType>(reduced.getType());
  if (!keepdims || type.getRank() == resultType.getRank())
    return reduced;
  SmallVector<ReassociationIndices> groups;
  ReassociationIndices pending;
  for (int64_t i = 0; i < resultType.getRank(); ++i) {
    pending.push_back(i);
    if (!llvm::is_contained(axes, i)) {
      groups.push_back(pending);
      pending.clear();
    }
  }
  if (!groups.empty())
    groups.back().append(pending.begin(), pending.end());
  auto outType =
      RankedTensorType::get(resultType.getShape(), type.getElementType());
  return tensor::ExpandShapeOp::create(b, loc, outType, reduced, groups);
}

struct ReduceLowering : OpConversionPattern<ReduceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    ArrayRef<int64_t> axes = op.getAxes();
    if (axes.empty()) {
      rewriter.replaceOp(op, adaptor.getInput());
      return success();
    }
    auto inType = cast<RankedTensorType>(op.getInput().getType());
    Type elt = inType.getElementType();
    Type t = signlessType(elt);
    int64_t rank = inType.getRank();

    bool exact =
        op.getKind() == ReduceKind::max || op.getKind() == ReduceKind::min;
    Type acc = t;
    if (auto attr = op->getAttrOfType<TypeAttr>("acc_type"); attr && !exact)
      acc = attr.getValue();
    else if (!exact && (elt.isF16() || elt.isBF16()))
      acc = Float32Type::get(ctx);
    // The combining function sees the accumulator's type for floats and
    // the bwc type (its signedness) for integers.
    Type accElt = isa<FloatType>(acc) ? acc : elt;

    BinaryFn combine;
    TypedAttr identity;
    switch (op.getKind()) {
    case ReduceKind::sum:
    case ReduceKind::mean:
      combine = BinaryFn::add;
      identity = cast<TypedAttr>(rewriter.getZeroAttr(acc));
      break;
    case ReduceKind::prod:
      combine = BinaryFn::mul;
      identity = isa<FloatType>(acc)
                     ? TypedAttr(rewriter.getFloatAttr(acc, 1.0))
                     : TypedAttr(rewriter.getIntegerAttr(acc, 1));
      break;
    case ReduceKind::max:
      combine = BinaryFn::max;
      identity = extremeAttr(t, elt, /*largest=*/false);
      break;
    case ReduceKind::min:
      combine = BinaryFn::min;
      identity = extremeAttr(t, elt, /*largest=*/true);
      break;
    }

    SmallVector<int64_t> kept = keptShape(inType.getShape(), axes);
    Value init = filledTensor(rewriter, loc, kept, identity);
    SmallVector<AffineMap> maps = {AffineMap::getMultiDimIdentityMap(rank, ctx),
                                   keptMap(rank, axes, ctx)};
    Value reduced =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{init.getType()}, adaptor.getInput(),
            ValueRange{init}, maps, reductionIterators(rank, axes),
            [&](OpBuilder &b, Location l, ValueRange args) {
              Value x = acc == t ? args[0] : emitCast(b, l, args[0], elt, acc);
              linalg::YieldOp::create(
                  b, l, emitBinary(b, l, combine, args[1], x, accElt));
            })
            .getResult(0);

    // The mean's division (in the accumulator) and the final rounding to
    // the element type, one elementwise generic.
    if (op.getKind() == ReduceKind::mean || acc != t) {
      int64_t count = 1;
      for (int64_t a : axes)
        count *= inType.getShape()[a];
      // Integer division by zero is undefined: an empty integer mean stays 0.
      bool divide = op.getKind() == ReduceKind::mean &&
                    (count != 0 || isa<FloatType>(t));
      if (divide || acc != t) {
        SmallVector<AffineMap> idMaps(
            2, AffineMap::getMultiDimIdentityMap(kept.size(), ctx));
        Value out = tensor::EmptyOp::create(rewriter, loc, kept, t);
        reduced =
            linalg::GenericOp::create(
                rewriter, loc, TypeRange{out.getType()}, reduced,
                ValueRange{out}, idMaps,
                SmallVector<utils::IteratorType>(kept.size(),
                                                 utils::IteratorType::parallel),
                [&](OpBuilder &b, Location l, ValueRange args) {
                  Value x = args[0];
                  if (divide)
                    x = emitBinary(b, l, BinaryFn::div, x,
                                   emitConstant(b, l, acc, (double)count),
                                   accElt);
                  linalg::YieldOp::create(
                      b, l, acc == t ? x : emitCast(b, l, x, acc, elt));
                })
                .getResult(0);
      }
    }
    rewriter.replaceOp(op, restoreKeptDims(rewriter, loc, reduced, op.getType(),
                                           axes, op.getKeepdims()));
    return success();
  }
};

struct ArgReduceLowering : OpConversionPattern<ArgReduceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ArgReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    auto inType = cast<RankedTensorType>(op.getInput().getType());
    Type elt = inType.getElementType();
    Type t = signlessType(elt);
    int64_t rank = inType.getRank();
    int64_t axis = op.getAxis();
    bool isMax = op.getKind() == ArgReduceKind::argmax;
    bool last = op.getSelectLastIndex();

    SmallVector<int64_t> kept = keptShape(inType.getShape(), {axis});
    Value bestInit = filledTensor(rewriter, loc, kept,
                                  extremeAttr(t, elt, /*largest=*/!isMax));
    Value indexInit =
        filledTensor(rewriter, loc, kept, rewriter.getI64IntegerAttr(0));
    AffineMap outMap = keptMap(rank, {axis}, ctx);
    SmallVector<AffineMap> maps = {AffineMap::getMultiDimIdentityMap(rank, ctx),
                                   outMap, outMap};
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{bestInit.getType(), indexInit.getType()},
        adaptor.getInput(), ValueRange{bestInit, indexInit}, maps,
        reductionIterators(rank, {axis}),
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value x = args[0], best = args[1];
          // Strictly better keeps the first index on ties; better-or-equal
          // the last. A NaN beats everything but an earlier NaN (numpy).
          BinaryFn fn = isMax ? (last ? BinaryFn::ge : BinaryFn::gt)
                              : (last ? BinaryFn::le : BinaryFn::lt);
          Value better = emitBinary(b, l, fn, x, best, elt);
          if (isa<FloatType>(t)) {
            using P = arith::CmpFPredicate;
            Value xNaN = arith::CmpFOp::create(b, l, P::UNO, x, x);
            if (!last)
              xNaN = arith::AndIOp::create(
                  b, l, xNaN, arith::CmpFOp::create(b, l, P::ORD, best, best));
            better = arith::OrIOp::create(b, l, better, xNaN);
          }
          Value i = arith::IndexCastOp::create(
              b, l, b.getI64Type(), linalg::IndexOp::create(b, l, axis));
          linalg::YieldOp::create(
              b, l,
              ValueRange{arith::SelectOp::create(b, l, better, x, best),
                         arith::SelectOp::create(b, l, better, i, args[2])});
        });
    rewriter.replaceOp(op,
                       restoreKeptDims(rewriter, loc, generic.getResult(1),
                                       op.getType(), {axis}, op.getKeepdims()));
    return success();
  }
};

} // namespace

void lowering::populateReductionPatterns(const TypeConverter &tc,
                                         RewritePatternSet &patterns) {
  patterns.add<ReduceLowering, ArgReduceLowering>(tc, patterns.getContext());
}
