//===- ContractionToLinalg.cpp - Matmul and conv bwc ops to linalg --------===//
//
// Each op becomes one linalg.generic over (parallel output dims, reduction
// dims). Matmul reads broadcast batch dims through constant-0 map results.
// Convolutions read the padded input at o * stride + k * dilation and find
// a grouped input channel as (f floordiv F/groups) * C/groups + c, so the
// output map stays a projected permutation. A transposed convolution is a
// direct one over the stride-dilated, re-padded input with the filter
// flipped spatially and its channel dims swapped per group. Pools are in
// PoolToLinalg.cpp and share the window helpers defined here.
// A `channels_last` conv builds the same maps in logical (channels-first)
// order, then permutes each map's results by the op's data or filter
// permutation and orders the loops n, o..., f, k..., c: the channel loop
// innermost, so the loop nest walks NHWC memory contiguously.
// An `acc_type` (f32 on f16/bf16 operands, from bwc-mixed-precision) makes
// the sum run in that type: operands widen inside the loop body, the result
// is rounded once by an elementwise generic that the CPU pipeline merges
// into the kernel's other loop nests, so memory keeps the narrow type.
//
//===----------------------------------------------------------------------===//
#include "Patterns.h"

#include "bwc/Dialect/BWC/Utils/ShapeUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::bwc;
using namespace mlir::bwc::lowering;

namespace {

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
  Value filled =
      linalg::GenericOp::create(b, loc, TypeRange{type}, ValueRange{src},
                                ValueRange{box}, ArrayRef<AffineMap>{id, id},
                                lowering::iterators(type.getRank(), 0),
                                [](OpBuilder &nb, Location l, ValueRange a) {
                                  linalg::YieldOp::create(nb, l, a[0]);
                                })
          .getResult(0);
  return tensor::InsertSliceOp::create(b, loc, filled, dest, offs, sizes,
                                       steps);
}

} // namespace

//===----------------------------------------------------------------------===//
// Window helpers shared with PoolToLinalg.cpp (declared in Patterns.h)
//===----------------------------------------------------------------------===//

/// Iterators: `parallel` parallel dims then `reduction` reduction dims.
SmallVector<utils::IteratorType> lowering::iterators(int64_t parallel,
                                                     int64_t reduction) {
  SmallVector<utils::IteratorType> it(parallel, utils::IteratorType::parallel);
  it.append(reduction, utils::IteratorType::reduction);
  return it;
}

Type lowering::accumulatorType(std::optional<Type> acc, Type elt) {
  // ElementalEmitter::accumulatorType's rule: f16/bf16 sum in f32 even
  // without an acc_type (a bf16 ONNX MatMul), so both CPU code generators
  // and the CUDA target compute the same sums.
  if (acc)
    return *acc;
  if (elt.isF16() || elt.isBF16())
    return Float32Type::get(elt.getContext());
  return elt;
}

/// The physical positions of the logical spatial dims (2...) of a tensor
/// stored in the order `perm` (channels-first: 2...; channels-last: 1...).
SmallVector<int64_t> lowering::spatialDims(ArrayRef<int64_t> perm) {
  SmallVector<int64_t> inv = invertPerm(perm), dims;
  for (size_t d = 2; d < perm.size(); ++d)
    dims.push_back(inv[d]);
  return dims;
}

/// `maps` with their results in physical order: result i of map m becomes
/// its logical result perms[m][i] (an empty perm keeps the map), and loop
/// (dim) l renamed to loopPos[l].
SmallVector<AffineMap>
lowering::permuteMaps(ArrayRef<AffineMap> maps,
                      ArrayRef<SmallVector<int64_t>> perms,
                      ArrayRef<int64_t> loopPos) {
  MLIRContext *ctx = maps.front().getContext();
  SmallVector<AffineExpr> renamed;
  for (int64_t p : loopPos)
    renamed.push_back(getAffineDimExpr(p, ctx));
  SmallVector<AffineMap> out;
  for (auto [map, perm] : llvm::zip(maps, perms)) {
    AffineMap m = map.replaceDimsAndSymbols(renamed, {}, loopPos.size(), 0);
    if (!perm.empty()) {
      SmallVector<AffineExpr> results;
      for (int64_t p : perm)
        results.push_back(m.getResult(p));
      m = AffineMap::get(loopPos.size(), 0, results, ctx);
    }
    out.push_back(m);
  }
  return out;
}

Value lowering::padSpatial(OpBuilder &b, Location loc, Value x,
                           ArrayRef<int64_t> lo, ArrayRef<int64_t> hi,
                           TypedAttr value, ArrayRef<int64_t> dims) {
  if (llvm::all_of(lo, [](int64_t p) { return p == 0; }) &&
      llvm::all_of(hi, [](int64_t p) { return p == 0; }))
    return x;
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> offsets(type.getRank(), 0);
  SmallVector<int64_t> shape(type.getShape());
  for (size_t i = 0; i < lo.size(); ++i) {
    offsets[dims[i]] = lo[i];
    shape[dims[i]] += lo[i] + hi[i];
  }
  Value padded = filledTensor(b, loc, shape, value);
  return placeInto(b, loc, x, padded, offsets,
                   SmallVector<int64_t>(type.getRank(), 1));
}

/// The indexing maps of a sliding window over `numLoops` loops: the input
/// reads (inLead..., o*s + k*d), the window (winLead..., k) and the output
/// (outLead..., o), with o = dim(firstOut + i) and k = dim(firstTap + i).
SmallVector<AffineMap> lowering::slidingWindowMaps(
    MLIRContext *ctx, int64_t numLoops, ArrayRef<AffineExpr> inLead,
    ArrayRef<AffineExpr> winLead, ArrayRef<AffineExpr> outLead,
    int64_t firstOut, int64_t firstTap, ArrayRef<int64_t> strides,
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

namespace {

using IteratorType = utils::IteratorType;

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

/// Adds `addend` (of shape [F]) to dim `channelDim` of `x`, elementwise, in
/// the element type of `x` (the addend widens to it).
Value addChannelBias(OpBuilder &b, Location loc, Value x, Value addend,
                     int64_t channelDim) {
  auto type = cast<RankedTensorType>(x.getType());
  MLIRContext *ctx = b.getContext();
  int64_t rank = type.getRank();
  SmallVector<AffineMap> maps = {
      AffineMap::getMultiDimIdentityMap(rank, ctx),
      AffineMap::get(rank, 0, getAffineDimExpr(channelDim, ctx)),
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

/// out[n, f, o...] += in[n, g(f) * Cg + c, o * s + k * d] * w[f, c, k...]
/// over the already padded `input` and a `filter` of logical shape
/// [F, Cg, K...], summed in `acc`; `dataPerm`/`filterPerm` give the
/// physical order of input and result, and of the filter.
Value directConv(OpBuilder &b, Location loc, Value input, Value filter,
                 ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations,
                 int64_t groups, RankedTensorType outType, Type acc,
                 ArrayRef<int64_t> dataPerm, ArrayRef<int64_t> filterPerm) {
  MLIRContext *ctx = b.getContext();
  SmallVector<int64_t> ws = unpermute(
      cast<RankedTensorType>(filter.getType()).getShape(), filterPerm);
  int64_t spatial = outType.getRank() - 2;
  int64_t cg = ws[1];
  int64_t fg = ws[0] / groups;
  // Logical loops: n, f, o..., then the reductions c, k....
  int64_t numLoops = 3 + 2 * spatial;
  auto dim = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
  AffineExpr f = dim(1), c = dim(2 + spatial);
  AffineExpr channel = groups == 1 ? c : f.floorDiv(fg) * cg + c;
  SmallVector<AffineMap> maps = slidingWindowMaps(
      ctx, numLoops, {dim(0), channel}, {f, c}, {dim(0), f}, /*firstOut=*/2,
      /*firstTap=*/3 + spatial, strides, dilations);
  if (dataPerm != ArrayRef<int64_t>(identityPerm(dataPerm.size()))) {
    // Channels-last loop order: n, o..., f, then k..., c.
    SmallVector<int64_t> loopPos(numLoops);
    loopPos[0] = 0;
    loopPos[1] = 1 + spatial;
    loopPos[2 + spatial] = 2 + 2 * spatial;
    for (int64_t i = 0; i < spatial; ++i) {
      loopPos[2 + i] = 1 + i;
      loopPos[3 + spatial + i] = 2 + spatial + i;
    }
    maps = permuteMaps(maps,
                       {SmallVector<int64_t>(dataPerm),
                        SmallVector<int64_t>(filterPerm),
                        SmallVector<int64_t>(dataPerm)},
                       loopPos);
  }
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
/// wt[f, c, k] = w[g(f) * Cg + c, f mod Fg, K - 1 - k], both in the
/// physical order `perm` (logical shapes above).
Value flippedTransposedFilter(OpBuilder &b, Location loc, Value w,
                              int64_t groups, ArrayRef<int64_t> perm) {
  MLIRContext *ctx = b.getContext();
  auto type = cast<RankedTensorType>(w.getType());
  SmallVector<int64_t> ws = unpermute(type.getShape(), perm);
  int64_t rank = type.getRank();
  int64_t cg = ws[0] / groups, fg = ws[1];
  SmallVector<int64_t> shape = {fg * groups, cg};
  shape.append(ws.begin() + 2, ws.end());
  shape = permute(shape, perm);
  // Loops run over the physical result; logical dim j is loop inv[j].
  SmallVector<int64_t> inv = invertPerm(perm);
  auto dim = [&](int64_t j) { return getAffineDimExpr(inv[j], ctx); };
  AffineExpr f = dim(0), c = dim(1);
  SmallVector<AffineExpr> exprs = {groups == 1 ? c : f.floorDiv(fg) * cg + c,
                                   groups == 1 ? f : f % fg};
  for (int64_t i = 2; i < rank; ++i)
    exprs.push_back(ws[i] - 1 - dim(i));
  SmallVector<AffineExpr> physical;
  for (int64_t p : perm)
    physical.push_back(exprs[p]);
  SmallVector<AffineMap> maps = {AffineMap::get(rank, 0, physical, ctx),
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
/// negative amount slices elements off instead), along the spatial dims at
/// physical positions `dims`.
FailureOr<Value> dilateAndPad(OpBuilder &b, Location loc, Value x,
                              ArrayRef<int64_t> strides, ArrayRef<int64_t> lo,
                              ArrayRef<int64_t> hi, ArrayRef<int64_t> dims) {
  auto type = cast<RankedTensorType>(x.getType());
  ArrayRef<int64_t> in = type.getShape();
  int64_t rank = type.getRank();
  SmallVector<int64_t> full(in), offsets(rank, 0), steps(rank, 1),
      sliceOffsets(rank, 0), sliceSizes(in);
  bool slice = false;
  for (int64_t i = 0; i + 2 < rank; ++i) {
    int64_t d = dims[i];
    int64_t dilated = in[d] == 0 ? 0 : (in[d] - 1) * strides[i] + 1;
    int64_t size = dilated + lo[i] + hi[i];
    if (size < 0)
      return failure();
    full[d] =
        dilated + std::max<int64_t>(lo[i], 0) + std::max<int64_t>(hi[i], 0);
    offsets[d] = std::max<int64_t>(lo[i], 0);
    steps[d] = strides[i];
    sliceOffsets[d] = std::max<int64_t>(-lo[i], 0);
    sliceSizes[d] = size;
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
    r = padSpatial(b, loc, x, padLo, padHi, zero, dims);
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
    SmallVector<int64_t> dataPerm = op.getDataPerm(),
                         filterPerm = op.getFilterPerm();
    SmallVector<int64_t> dims = spatialDims(dataPerm);
    if (op.getTransposed()) {
      // getLogicalFilterShape returns a vector: keep it alive (an ArrayRef
      // into the temporary read freed stack, found by the fuzz targets).
      SmallVector<int64_t> filterShape = op.getLogicalFilterShape();
      ArrayRef<int64_t> ks = ArrayRef<int64_t>(filterShape).drop_front(2);
      SmallVector<int64_t> lo, hi;
      for (int64_t i = 0; i < spatial; ++i) {
        int64_t span = op.getDilations()[i] * (ks[i] - 1);
        int64_t extra = op.getOutputPadding() ? (*op.getOutputPadding())[i] : 0;
        lo.push_back(span - padsLo[i]);
        hi.push_back(span - padsHi[i] + extra);
      }
      FailureOr<Value> dilated =
          dilateAndPad(rewriter, loc, input, strides, lo, hi, dims);
      if (failed(dilated))
        return rewriter.notifyMatchFailure(op, "pads leave no input");
      input = *dilated;
      filter = flippedTransposedFilter(rewriter, loc, filter, op.getGroups(),
                                       filterPerm);
      strides.assign(spatial, 1);
    } else {
      input = padSpatial(rewriter, loc, input, padsLo, padsHi,
                         cast<TypedAttr>(rewriter.getZeroAttr(t)), dims);
    }
    Value r =
        directConv(rewriter, loc, input, filter, strides, op.getDilations(),
                   op.getGroups(), outType, accumulatorType(op.getAccType(), t),
                   dataPerm, filterPerm);
    if (op.getBias())
      r = addChannelBias(rewriter, loc, r, adaptor.getBias(),
                         invertPerm(dataPerm)[1]);
    rewriter.replaceOp(op, narrowTo(rewriter, loc, r, t));
    return success();
  }
};

} // namespace

void lowering::populateContractionPatterns(const TypeConverter &tc,
                                           RewritePatternSet &patterns) {
  patterns.add<MatmulLowering, ConvLowering>(tc, patterns.getContext());
}
