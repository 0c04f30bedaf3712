//===- PoolToLinalg.cpp - bwc.pool to linalg ------------------------------===//
//
// A pool is one linalg.generic over (n, c, o..., k...): the input is padded
// with the lowest value (max) or 0 (avg) far enough that every window,
// ceil_mode ones too, is in bounds, so the body needs no bounds checks; avg
// divides by a divisor known at compile time. A `channels_last` pool uses
// the same maps in logical order with its results permuted and the loops
// in the order n, o..., c, k... (docs/Dialects/channels-last.md).
//
//===----------------------------------------------------------------------===//
#include "Patterns.h"

#include "bwc/Dialect/BWC/Utils/ShapeUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::bwc;
using namespace mlir::bwc::lowering;

namespace {

/// The avg pool divisor of each spatial output position, as a constant.
Value avgDivisor(OpBuilder &b, Location loc, PoolOp op, FloatType t) {
  SmallVector<int64_t> inShape = op.getLogicalInputShape(),
                       outShape = op.getLogicalResultShape();
  ArrayRef<int64_t> outSpatial = ArrayRef<int64_t>(outShape).drop_front(2);
  SmallVector<APFloat> values;
  for (double v :
       avgPoolDivisors(ArrayRef<int64_t>(inShape).drop_front(2), outSpatial,
                       op.getKernel(), op.getStrides(), op.getDilations(),
                       op.getPads(), op.getCountIncludePad())) {
    APFloat f(v);
    bool lost;
    f.convert(t.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    values.push_back(f);
  }
  auto type = RankedTensorType::get(outSpatial, t);
  return arith::ConstantOp::create(b, loc,
                                   DenseElementsAttr::get(type, values));
}

struct PoolLowering : OpConversionPattern<PoolOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PoolOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    RankedTensorType outType = op.getType();
    Type elt = outType.getElementType();
    Type t = signlessType(elt);
    bool isMax = op.getKind() == PoolKind::max;
    if (!isMax && !isa<FloatType>(t))
      return rewriter.notifyMatchFailure(op, "integer average pooling");
    SmallVector<int64_t> inShape = op.getLogicalInputShape(),
                         outShape = op.getLogicalResultShape(),
                         dataPerm = op.getDataPerm();
    SmallVector<int64_t> dims = spatialDims(dataPerm);
    int64_t spatial = outType.getRank() - 2;
    ArrayRef<int64_t> kernel = op.getKernel(), strides = op.getStrides(),
                      dilations = op.getDilations(), pads = op.getPads();

    // ceil_mode's last windows may reach past the end padding: pad more.
    SmallVector<int64_t> lo(pads.take_front(spatial)), hi;
    for (int64_t i = 0; i < spatial; ++i) {
      int64_t need = (outShape[2 + i] - 1) * strides[i] +
                     dilations[i] * (kernel[i] - 1) + 1;
      hi.push_back(std::max(pads[spatial + i], need - inShape[2 + i] - lo[i]));
    }
    TypedAttr padValue = isMax ? extremeAttr(t, elt, /*largest=*/false)
                               : cast<TypedAttr>(rewriter.getZeroAttr(t));
    Value input =
        padSpatial(rewriter, loc, adaptor.getInput(), lo, hi, padValue, dims);

    // Loops: n, c, o..., then the window k...; the unused window operand
    // gives the k loops their sizes.
    int64_t numLoops = 2 + 2 * spatial;
    auto dim = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
    SmallVector<AffineMap> maps = slidingWindowMaps(
        ctx, numLoops, {dim(0), dim(1)}, {}, {dim(0), dim(1)},
        /*firstOut=*/2, /*firstTap=*/2 + spatial, strides, dilations);
    if (op.getChannelsLast()) {
      // Loops n, o..., c, then k...; the window map has no channel dim.
      SmallVector<int64_t> loopPos = {0, 1 + spatial};
      for (int64_t i = 0; i < spatial; ++i)
        loopPos.push_back(1 + i);
      for (int64_t i = 0; i < spatial; ++i)
        loopPos.push_back(2 + spatial + i);
      maps = permuteMaps(maps, {dataPerm, {}, dataPerm}, loopPos);
    }
    Value window = tensor::EmptyOp::create(rewriter, loc, kernel, t);
    // Max is exact in any type; avg sums and divides in its accumulator.
    Type acc = isMax ? t : accumulatorType(op.getAccType(), t);
    Value init = filledTensor(
        rewriter, loc, outType.getShape(),
        isMax ? padValue : cast<TypedAttr>(rewriter.getZeroAttr(acc)));
    BinaryFn combine = isMax ? BinaryFn::max : BinaryFn::add;
    Value r =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{init.getType()}, ValueRange{input, window},
            ValueRange{init}, maps, iterators(2 + spatial, spatial),
            [&](OpBuilder &b, Location l, ValueRange a) {
              Value x = isMax ? a[0] : emitCast(b, l, a[0], t, acc);
              linalg::YieldOp::create(
                  b, l, emitBinary(b, l, combine, a[2], x, isMax ? elt : acc));
            })
            .getResult(0);

    if (!isMax) {
      Value divisor = avgDivisor(rewriter, loc, op, cast<FloatType>(acc));
      int64_t rank = outType.getRank();
      SmallVector<AffineExpr> spatialExprs;
      for (int64_t d : dims)
        spatialExprs.push_back(dim(d));
      SmallVector<AffineMap> divMaps = {
          AffineMap::getMultiDimIdentityMap(rank, ctx),
          AffineMap::get(rank, 0, spatialExprs, ctx),
          AffineMap::getMultiDimIdentityMap(rank, ctx)};
      Value out = tensor::EmptyOp::create(rewriter, loc, outType.getShape(), t);
      r = linalg::GenericOp::create(
              rewriter, loc, TypeRange{out.getType()}, ValueRange{r, divisor},
              ValueRange{out}, divMaps, iterators(rank, 0),
              [&](OpBuilder &b, Location l, ValueRange a) {
                Value q = arith::DivFOp::create(b, l, a[0], a[1]);
                linalg::YieldOp::create(b, l, emitCast(b, l, q, acc, t));
              })
              .getResult(0);
    }
    rewriter.replaceOp(op, r);
    return success();
  }
};

} // namespace

void lowering::populatePoolPatterns(const TypeConverter &tc,
                                    RewritePatternSet &patterns) {
  patterns.add<PoolLowering>(tc, patterns.getContext());
}
