//===- ContractionToLinalg.cpp - Matmul, conv and pool bwc ops to linalg --===//
//
// Each op becomes one linalg.generic over (parallel output dims, reduction
// dims). Matmul reads broadcast batch dims through constant-0 map results.
// Convolutions read the padded input at o * stride + k * dilation and find
// a grouped input channel as (f floordiv F/groups) * C/groups + c, so the
// output map stays a projected permutation. A transposed convolution is a
// direct one over the stride-dilated, re-padded input with the filter
// flipped spatially and its channel dims swapped per group. Pools pad with
// the lowest value (max) or 0 (avg) far enough that every window, ceil_mode
// ones too, is in bounds; avg divides by a divisor known at compile time.
// An `acc_type` (f32 on f16/bf16 operands, from bwc-mixed-precision) makes
// the sum run in that type: operands widen inside the loop body, the result
// is rounded once by an elementwise generic that the CPU pipeline merges
// into the kernel's other loop nests, so memory keeps the narrow type.
//
//===----------------------------------------------------------------------===//
#include "Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::bwc;
using namespace mlir::bwc::lowering;

namespace {

using IteratorType = utils::IteratorType;

/// Iterators: `parallel` parallel dims then `reduction` reduction dims.
SmallVector<IteratorType> iterators(int64_t parallel, int64_t reduction) {
  SmallVector<IteratorType> it(parallel, IteratorType::parallel);
  it.append(reduction, IteratorType::reduction);
  return it;
}

/// The type a contraction sums in: its `acc_type` when set, else `elt`.
Type accumulatorType(std::optional<Type> acc, Type elt) {
  return acc ? *acc : elt;
}

/// `x`, summed in a wider float type, rounded to `elt` elementwise.
Value narrowTo(OpBuilder &b, Location loc, Value x, Type elt) {
  auto type = cast<RankedTensorType>(x.getType());
  if (type.getElementType() == elt)
    return x;
  int64_t rank = type.getRank();
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, b.getContext());
  Value init = tensor::EmptyOp::create(b, loc, type.getShape(), elt);
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, ValueRange{x}, ValueRange{init},
             ArrayRef<AffineMap>{id, id}, iterators(rank, 0),
             [&](OpBuilder &nb, Location l, ValueRange a) {
               linalg::YieldOp::create(
                   nb, l, emitCast(nb, l, a[0], type.getElementType(), elt));
             })
      .getResult(0);
}

/// Adds `addend` (of shape [F]) to dim 1 of `x`, elementwise, in the element
/// type of `x` (the addend widens to it).
Value addChannelBias(OpBuilder &b, Location loc, Value x, Value addend) {
  auto type = cast<RankedTensorType>(x.getType());
  MLIRContext *ctx = b.getContext();
  int64_t rank = type.getRank();
  SmallVector<AffineMap> maps = {
      AffineMap::getMultiDimIdentityMap(rank, ctx),
      AffineMap::get(rank, 0, getAffineDimExpr(1, ctx)),
      AffineMap::getMultiDimIdentityMap(rank, ctx)};
  Value init =
      tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  return linalg::GenericOp::create(
             b, loc, TypeRange{type}, ValueRange{x, addend}, ValueRange{init},
             maps, iterators(rank, 0),
             [&](OpBuilder &nb, Location l, ValueRange a) {
               Value add = emitCast(nb, l, a[1], a[1].getType(), a[0].getType());
               linalg::YieldOp::create(
                   nb, l, arith::AddFOp::create(nb, l, a[0], add).getResult());
             })
      .getResult(0);
}

/// Writes `src` into `dest` at `offsets` every `strides` elements. The CPU
/// pipeline links no `memrefCopy`, so no memref.copy between strided buffers
/// may come out of bufferization: a generic copies into an extract_slice of
/// `dest` that is inserted back in place (One-Shot Bufferize folds the pair).
Value placeInto(OpBuilder &b, Location loc, Value src, Value dest,
                ArrayRef<int64_t> offsets, ArrayRef<int64_t> strides) {
  auto type = cast<RankedTensorType>(src.getType());
  MLIRContext *ctx = b.getContext();
  SmallVector<OpFoldResult> offs = getAsIndexOpFoldResult(ctx, offsets);
  SmallVector<OpFoldResult> sizes =
      getAsIndexOpFoldResult(ctx, type.getShape());
  SmallVector<OpFoldResult> steps = getAsIndexOpFoldResult(ctx, strides);
  Value box =
      tensor::ExtractSliceOp::create(b, loc, type, dest, offs, sizes, steps);
  AffineMap id = AffineMap::getMultiDimIdentityMap(type.getRank(), ctx);
  Value filled = linalg::GenericOp::create(
                     b, loc, TypeRange{type}, ValueRange{src}, ValueRange{box},
                     ArrayRef<AffineMap>{id, id}, iterators(type.getRank(), 0),
                     [](OpBuilder &nb, Location l, ValueRange a) {
                       linalg::YieldOp::create(nb, l, a[0]);
                     })
                     .getResult(0);
  return tensor::InsertSliceOp::create(b, loc, filled, dest, offs, sizes,
                                       steps);
}

/// Pads the spatial dims (2...) of `x` with `value`.
Value padSpatial(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> lo,
                 ArrayRef<int64_t> hi, TypedAttr value) {
  if (llvm::all_of(lo, [](int64_t p) { return p == 0; }) &&
      llvm::all_of(hi, [](int64_t p) { return p == 0; }))
    return x;
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> offsets = {0, 0};
  SmallVector<int64_t> shape(type.getShape());
  for (size_t i = 0; i < lo.size(); ++i) {
    offsets.push_back(lo[i]);
    shape[2 + i] += lo[i] + hi[i];
  }
  Value padded = filledTensor(b, loc, shape, value);
  return placeInto(b, loc, x, padded, offsets,
                   SmallVector<int64_t>(type.getRank(), 1));
}

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

struct MatmulLowering : OpConversionPattern<MatmulOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MatmulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    RankedTensorType outType = op.getType();
    Type elt = outType.getElementType();
    ArrayRef<int64_t> out = outType.getShape();
    int64_t batch = outType.getRank() - 2;
    // Loops: batch dims, m, n, then the reduction k.
    int64_t m = batch, n = batch + 1, k = batch + 2;
    auto operandMap = [&](Value v, int64_t row, int64_t col) {
      ArrayRef<int64_t> shape =
          cast<RankedTensorType>(v.getType()).getShape().drop_back(2);
      SmallVector<AffineExpr> exprs;
      int64_t lead = batch - shape.size();
      for (auto [i, d] : llvm::enumerate(shape)) {
        int64_t o = lead + i;
        exprs.push_back(d == 1 && out[o] != 1 ? getAffineConstantExpr(0, ctx)
                                              : getAffineDimExpr(o, ctx));
      }
      exprs.push_back(getAffineDimExpr(row, ctx));
      exprs.push_back(getAffineDimExpr(col, ctx));
      return AffineMap::get(batch + 3, 0, exprs, ctx);
    };
    SmallVector<AffineExpr> outExprs;
    for (int64_t i = 0; i < batch + 2; ++i)
      outExprs.push_back(getAffineDimExpr(i, ctx));
    SmallVector<AffineMap> maps = {operandMap(op.getLhs(), m, k),
                                   operandMap(op.getRhs(), k, n),
                                   AffineMap::get(batch + 3, 0, outExprs, ctx)};
    Type acc = accumulatorType(op.getAccType(), elt);
    Value init = filledTensor(
        rewriter, loc, out,
        cast<TypedAttr>(rewriter.getZeroAttr(signlessType(acc))));
    Value r = linalg::GenericOp::create(
                  rewriter, loc, TypeRange{init.getType()},
                  ValueRange{adaptor.getLhs(), adaptor.getRhs()},
                  ValueRange{init}, maps, iterators(batch + 2, 1),
                  [&](OpBuilder &b, Location l, ValueRange a) {
                    Value x = emitCast(b, l, a[0], elt, acc);
                    Value y = emitCast(b, l, a[1], elt, acc);
                    Value p = emitBinary(b, l, BinaryFn::mul, x, y, acc);
                    linalg::YieldOp::create(
                        b, l, emitBinary(b, l, BinaryFn::add, a[2], p, acc));
                  })
                  .getResult(0);
    rewriter.replaceOp(op, narrowTo(rewriter, loc, r, signlessType(elt)));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Convolution
//===----------------------------------------------------------------------===//

/// The indexing maps of a sliding window over `numLoops` loops: the input
/// reads (inLead..., o*s + k*d), the window (winLead..., k) and the output
/// (outLead..., o), with o = dim(firstOut + i) and k = dim(firstTap + i).
SmallVector<AffineMap> slidingWindowMaps(MLIRContext *ctx, int64_t numLoops,
                                         ArrayRef<AffineExpr> inLead,
                                         ArrayRef<AffineExpr> winLead,
                                         ArrayRef<AffineExpr> outLead,
                                         int64_t firstOut, int64_t firstTap,
                                         ArrayRef<int64_t> strides,
                                         ArrayRef<int64_t> dilations) {
  SmallVector<AffineExpr> in(inLead), win(winLead), out(outLead);
  for (size_t i = 0; i < strides.size(); ++i) {
    AffineExpr o = getAffineDimExpr(firstOut + i, ctx);
    AffineExpr k = getAffineDimExpr(firstTap + i, ctx);
    in.push_back(o * strides[i] + k * dilations[i]);
    win.push_back(k);
    out.push_back(o);
  }
  return {AffineMap::get(numLoops, 0, in, ctx),
          AffineMap::get(numLoops, 0, win, ctx),
          AffineMap::get(numLoops, 0, out, ctx)};
}

/// out[n, f, o...] += in[n, g(f) * Cg + c, o * s + k * d] * w[f, c, k...]
/// over the already padded `input` and a `filter` of shape [F, Cg, K...],
/// summed in `acc`.
Value directConv(OpBuilder &b, Location loc, Value input, Value filter,
                 ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations,
                 int64_t groups, RankedTensorType outType, Type acc) {
  MLIRContext *ctx = b.getContext();
  auto wType = cast<RankedTensorType>(filter.getType());
  int64_t spatial = outType.getRank() - 2;
  int64_t cg = wType.getShape()[1];
  int64_t fg = wType.getShape()[0] / groups;
  // Loops: n, f, o..., then the reductions c, k....
  int64_t numLoops = 3 + 2 * spatial;
  auto dim = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
  AffineExpr f = dim(1), c = dim(2 + spatial);
  AffineExpr channel = groups == 1 ? c : f.floorDiv(fg) * cg + c;
  SmallVector<AffineMap> maps = slidingWindowMaps(
      ctx, numLoops, {dim(0), channel}, {f, c}, {dim(0), f}, /*firstOut=*/2,
      /*firstTap=*/3 + spatial, strides, dilations);
  Type t = outType.getElementType();
  Value init = filledTensor(b, loc, outType.getShape(),
                            cast<TypedAttr>(b.getZeroAttr(acc)));
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, ValueRange{input, filter},
             ValueRange{init}, maps, iterators(2 + spatial, 1 + spatial),
             [&](OpBuilder &nb, Location l, ValueRange a) {
               Value p = arith::MulFOp::create(nb, l, emitCast(nb, l, a[0], t, acc),
                                               emitCast(nb, l, a[1], t, acc));
               linalg::YieldOp::create(
                   nb, l, arith::AddFOp::create(nb, l, a[2], p).getResult());
             })
      .getResult(0);
}

/// The filter of the direct convolution equivalent to a transposed one:
/// w [C, F/groups, K...] becomes [F, C/groups, K...] with
/// wt[f, c, k] = w[g(f) * Cg + c, f mod Fg, K - 1 - k].
Value flippedTransposedFilter(OpBuilder &b, Location loc, Value w,
                              int64_t groups) {
  MLIRContext *ctx = b.getContext();
  auto type = cast<RankedTensorType>(w.getType());
  ArrayRef<int64_t> ws = type.getShape();
  int64_t rank = type.getRank();
  int64_t cg = ws[0] / groups, fg = ws[1];
  SmallVector<int64_t> shape = {fg * groups, cg};
  shape.append(ws.begin() + 2, ws.end());
  AffineExpr f = getAffineDimExpr(0, ctx), c = getAffineDimExpr(1, ctx);
  SmallVector<AffineExpr> exprs = {groups == 1 ? c : f.floorDiv(fg) * cg + c,
                                   groups == 1 ? f : f % fg};
  for (int64_t i = 2; i < rank; ++i)
    exprs.push_back(ws[i] - 1 - getAffineDimExpr(i, ctx));
  SmallVector<AffineMap> maps = {AffineMap::get(rank, 0, exprs, ctx),
                                 AffineMap::getMultiDimIdentityMap(rank, ctx)};
  Value init = tensor::EmptyOp::create(b, loc, shape, type.getElementType());
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, ValueRange{w}, ValueRange{init},
             maps, iterators(rank, 0),
             [&](OpBuilder &nb, Location l, ValueRange a) {
               linalg::YieldOp::create(nb, l, a[0]);
             })
      .getResult(0);
}

/// The input of a transposed convolution's direct equivalent: zeros
/// inserted between elements (stride), `lo`/`hi` zeros added at the ends (a
/// negative amount slices elements off instead).
FailureOr<Value> dilateAndPad(OpBuilder &b, Location loc, Value x,
                              ArrayRef<int64_t> strides, ArrayRef<int64_t> lo,
                              ArrayRef<int64_t> hi) {
  auto type = cast<RankedTensorType>(x.getType());
  ArrayRef<int64_t> in = type.getShape();
  int64_t rank = type.getRank();
  SmallVector<int64_t> full(in.take_front(2)), offsets(rank, 0), steps(rank, 1),
      sliceOffsets(rank, 0), sliceSizes(in.take_front(2));
  bool slice = false;
  for (int64_t i = 0; i + 2 < rank; ++i) {
    int64_t dilated = in[2 + i] == 0 ? 0 : (in[2 + i] - 1) * strides[i] + 1;
    int64_t size = dilated + lo[i] + hi[i];
    if (size < 0)
      return failure();
    full.push_back(dilated + std::max<int64_t>(lo[i], 0) +
                   std::max<int64_t>(hi[i], 0));
    offsets[2 + i] = std::max<int64_t>(lo[i], 0);
    steps[2 + i] = strides[i];
    sliceOffsets[2 + i] = std::max<int64_t>(-lo[i], 0);
    sliceSizes.push_back(size);
    slice |= lo[i] < 0 || hi[i] < 0;
  }
  Type t = type.getElementType();
  TypedAttr zero = cast<TypedAttr>(b.getZeroAttr(t));
  Value r;
  if (llvm::all_of(strides, [](int64_t s) { return s == 1; })) {
    SmallVector<int64_t> padLo, padHi;
    for (int64_t i = 0; i + 2 < rank; ++i) {
      padLo.push_back(std::max<int64_t>(lo[i], 0));
      padHi.push_back(std::max<int64_t>(hi[i], 0));
    }
    r = padSpatial(b, loc, x, padLo, padHi, zero);
  } else {
    r = placeInto(b, loc, x, filledTensor(b, loc, full, zero), offsets, steps);
  }
  MLIRContext *ctx = b.getContext();
  if (slice)
    r = tensor::ExtractSliceOp::create(
        b, loc, RankedTensorType::get(sliceSizes, t), r,
        getAsIndexOpFoldResult(ctx, sliceOffsets),
        getAsIndexOpFoldResult(ctx, sliceSizes),
        getAsIndexOpFoldResult(ctx, SmallVector<int64_t>(rank, 1)));
  return r;
}

struct ConvLowering : OpConversionPattern<ConvOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConvOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType outType = op.getType();
    int64_t spatial = outType.getRank() - 2;
    ArrayRef<int64_t> pads = op.getPads();
    ArrayRef<int64_t> padsLo = pads.take_front(spatial);
    ArrayRef<int64_t> padsHi = pads.drop_front(spatial);
    Type t = outType.getElementType();
    Value input = adaptor.getInput(), filter = adaptor.getFilter();
    SmallVector<int64_t> strides(op.getStrides());
    if (op.getTransposed()) {
      ArrayRef<int64_t> ks =
          cast<RankedTensorType>(filter.getType()).getShape().drop_front(2);
      SmallVector<int64_t> lo, hi;
      for (int64_t i = 0; i < spatial; ++i) {
        int64_t span = op.getDilations()[i] * (ks[i] - 1);
        int64_t extra = op.getOutputPadding() ? (*op.getOutputPadding())[i] : 0;
        lo.push_back(span - padsLo[i]);
        hi.push_back(span - padsHi[i] + extra);
      }
      FailureOr<Value> dilated =
          dilateAndPad(rewriter, loc, input, strides, lo, hi);
      if (failed(dilated))
        return rewriter.notifyMatchFailure(op, "pads leave no input");
      input = *dilated;
      filter = flippedTransposedFilter(rewriter, loc, filter, op.getGroups());
      strides.assign(spatial, 1);
    } else {
      input = padSpatial(rewriter, loc, input, padsLo, padsHi,
                         cast<TypedAttr>(rewriter.getZeroAttr(t)));
    }
    Value r = directConv(rewriter, loc, input, filter, strides,
                         op.getDilations(), op.getGroups(), outType,
                         accumulatorType(op.getAccType(), t));
    if (op.getBias())
      r = addChannelBias(rewriter, loc, r, adaptor.getBias());
    rewriter.replaceOp(op, narrowTo(rewriter, loc, r, t));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

/// Number of window positions of output position `o` that fall in
/// [lo, hi) along one dim, in the coordinates of the unpadded input.
int64_t windowCount(int64_t o, int64_t kernel, int64_t stride, int64_t dilation,
                    int64_t padBegin, int64_t lo, int64_t hi) {
  int64_t count = 0;
  for (int64_t k = 0; k < kernel; ++k) {
    int64_t p = o * stride - padBegin + k * dilation;
    count += p >= lo && p < hi;
  }
  return count;
}

/// The avg pool divisor of each spatial output position, as a constant.
Value avgDivisor(OpBuilder &b, Location loc, PoolOp op, FloatType t) {
  auto inShape = cast<RankedTensorType>(op.getInput().getType()).getShape();
  ArrayRef<int64_t> outSpatial = op.getType().getShape().drop_front(2);
  int64_t spatial = outSpatial.size();
  // Per dim, then multiplied out: a window is a box.
  SmallVector<SmallVector<int64_t>> counts(spatial);
  for (int64_t i = 0; i < spatial; ++i) {
    int64_t pb = op.getPads()[i], pe = op.getPads()[spatial + i];
    int64_t lo = op.getCountIncludePad() ? -pb : 0;
    int64_t hi = inShape[2 + i] + (op.getCountIncludePad() ? pe : 0);
    for (int64_t o = 0; o < outSpatial[i]; ++o)
      counts[i].push_back(windowCount(o, op.getKernel()[i], op.getStrides()[i],
                                      op.getDilations()[i], pb, lo, hi));
  }
  SmallVector<APFloat> values;
  SmallVector<int64_t> strides(spatial, 1);
  for (int64_t i = spatial - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * outSpatial[i + 1];
  int64_t total = 1;
  for (int64_t d : outSpatial)
    total *= d;
  for (int64_t flat = 0; flat < total; ++flat) {
    double v = 1;
    for (int64_t i = 0; i < spatial; ++i)
      v *= (double)counts[i][(flat / strides[i]) % outSpatial[i]];
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
    auto inShape = cast<RankedTensorType>(op.getInput().getType()).getShape();
    int64_t spatial = outType.getRank() - 2;
    ArrayRef<int64_t> kernel = op.getKernel(), strides = op.getStrides(),
                      dilations = op.getDilations(), pads = op.getPads();

    // ceil_mode's last windows may reach past the end padding: pad more.
    SmallVector<int64_t> lo(pads.take_front(spatial)), hi;
    for (int64_t i = 0; i < spatial; ++i) {
      int64_t need = (outType.getShape()[2 + i] - 1) * strides[i] +
                     dilations[i] * (kernel[i] - 1) + 1;
      hi.push_back(std::max(pads[spatial + i], need - inShape[2 + i] - lo[i]));
    }
    TypedAttr padValue = isMax ? extremeAttr(t, elt, /*largest=*/false)
                               : cast<TypedAttr>(rewriter.getZeroAttr(t));
    Value input =
        padSpatial(rewriter, loc, adaptor.getInput(), lo, hi, padValue);

    // Loops: n, c, o..., then the window k...; the unused window operand
    // gives the k loops their sizes.
    int64_t numLoops = 2 + 2 * spatial;
    auto dim = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
    SmallVector<AffineMap> maps = slidingWindowMaps(
        ctx, numLoops, {dim(0), dim(1)}, {}, {dim(0), dim(1)},
        /*firstOut=*/2, /*firstTap=*/2 + spatial, strides, dilations);
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
      SmallVector<AffineExpr> spatialDims;
      for (int64_t i = 0; i < spatial; ++i)
        spatialDims.push_back(dim(2 + i));
      SmallVector<AffineMap> divMaps = {
          AffineMap::getMultiDimIdentityMap(rank, ctx),
          AffineMap::get(rank, 0, spatialDims, ctx),
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

void lowering::populateContractionPatterns(const TypeConverter &tc,
                                           RewritePatternSet &patterns) {
  patterns.add<MatmulLowering, ConvLowering, PoolLowering>(
      tc, patterns.getContext());
}
