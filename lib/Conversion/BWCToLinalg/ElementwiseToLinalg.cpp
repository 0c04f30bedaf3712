//===- ElementwiseToLinalg.cpp - Elementwise bwc ops to linalg.generic ----===//
//
// bwc.unary, bwc.binary, bwc.select, bwc.cast and bwc.broadcast become one
// parallel linalg.generic each, operands read through broadcasting maps;
// bwc.constant becomes arith.constant.
//
//===----------------------------------------------------------------------===//
#include "Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::bwc;
using namespace mlir::bwc::lowering;

namespace {

using BodyFn = function_ref<Value(OpBuilder &, Location, ValueRange)>;

/// One parallel linalg.generic producing `resultType` from `operands` (the
/// converted values; `bwcOperands` give their bwc shapes for broadcasting).
Value buildElementwise(OpBuilder &b, Location loc, RankedTensorType resultType,
                       ValueRange operands, ValueRange bwcOperands,
                       BodyFn body) {
  MLIRContext *ctx = b.getContext();
  ArrayRef<int64_t> out = resultType.getShape();
  SmallVector<AffineMap> maps;
  for (Value v : bwcOperands)
    maps.push_back(
        broadcastMap(cast<RankedTensorType>(v.getType()).getShape(), out, ctx));
  maps.push_back(AffineMap::getMultiDimIdentityMap(out.size(), ctx));
  SmallVector<utils::IteratorType> iterators(out.size(),
                                             utils::IteratorType::parallel);
  Value init = emptyTensor(b, loc, resultType);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, operands, ValueRange{init}, maps,
      iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value v = body(nb, nloc, args.drop_back());
        linalg::YieldOp::create(nb, nloc, v);
      });
  return generic.getResult(0);
}

struct ConstantLowering : OpConversionPattern<ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConstantOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = getTypeConverter()->convertType(op.getType());
    ElementsAttr value = op.getValue();
    if (type != op.getType()) {
      // Unsigned literals: same bits, signless type.
      auto dense = dyn_cast<DenseElementsAttr>(value);
      if (!dense)
        return rewriter.notifyMatchFailure(op, "unsigned resource constant");
      value = dense.bitcast(cast<ShapedType>(type).getElementType());
    }
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, cast<TypedAttr>(value));
    return success();
  }
};

/// The per-element value of each elementwise op, from its converted block
/// arguments.
Value scalarOf(UnaryOp op, OpBuilder &b, Location loc, ValueRange a) {
  return emitUnary(b, loc, op.getFn(), a[0], op.getType().getElementType());
}
Value scalarOf(BinaryOp op, OpBuilder &b, Location loc, ValueRange a) {
  Type elt = cast<RankedTensorType>(op.getLhs().getType()).getElementType();
  return emitBinary(b, loc, op.getFn(), a[0], a[1], elt);
}
Value scalarOf(SelectOp op, OpBuilder &b, Location loc, ValueRange a) {
  return arith::SelectOp::create(b, loc, a[0], a[1], a[2]);
}
Value scalarOf(CastOp op, OpBuilder &b, Location loc, ValueRange a) {
  Type from = cast<RankedTensorType>(op.getInput().getType()).getElementType();
  return emitCast(b, loc, a[0], from, op.getType().getElementType());
}
Value scalarOf(BroadcastOp op, OpBuilder &, Location, ValueRange a) {
  return a[0];
}

/// One parallel linalg.generic per elementwise op (broadcast included: its
/// operand's map does the broadcasting).
template <typename OpTy>
struct ElementwiseLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;
  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value r = buildElementwise(
        rewriter, op.getLoc(), op.getType(), adaptor.getOperands(),
        op->getOperands(), [&](OpBuilder &b, Location loc, ValueRange a) {
          return scalarOf(op, b, loc, a);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

} // namespace

void lowering::populateElementwisePatterns(const TypeConverter &tc,
                                           RewritePatternSet &patterns) {
  patterns.add<ConstantLowering, ElementwiseLowering<UnaryOp>,
               ElementwiseLowering<BinaryOp>, ElementwiseLowering<SelectOp>,
               ElementwiseLowering<CastOp>, ElementwiseLowering<BroadcastOp>>(
      tc, patterns.getContext());
}
