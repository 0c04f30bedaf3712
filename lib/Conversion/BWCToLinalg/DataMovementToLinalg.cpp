//===- DataMovementToLinalg.cpp - Data movement bwc ops to linalg ---------===//
//
// bwc.transpose, reshape, slice, concat, pad and gather on tensors.
//
// The CPU pipeline links no MLIR runtime library, so nothing here may
// bufferize to a memref.copy between non-contiguous buffers (that lowers to
// a call to `memrefCopy`). Strided reads and writes are therefore linalg
// ops: a slice is an extract_slice read by a linalg.generic, and data goes
// into part of a tensor by a generic that writes an extract_slice of the
// destination, inserted back in place (One-Shot Bufferize folds the pair).
// Zero-sized results are a bare tensor.empty.
//
//===----------------------------------------------------------------------===//
#include "Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::bwc;
using namespace mlir::bwc::lowering;

namespace {

bool isEmpty(RankedTensorType t) { return llvm::is_contained(t.getShape(), 0); }

SmallVector<utils::IteratorType> parallelIterators(int64_t rank) {
  return SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel);
}

SmallVector<OpFoldResult> indexAttrs(OpBuilder &b, ArrayRef<int64_t> values) {
  return getAsIndexOpFoldResult(b.getContext(), values);
}

/// Copies `src` into `dest` with a parallel generic; `srcMap` says which
/// element of `src` each element of `dest` takes.
Value copyGeneric(OpBuilder &b, Location loc, Value src, Value dest,
                  AffineMap srcMap) {
  int64_t rank = cast<RankedTensorType>(dest.getType()).getRank();
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, b.getContext());
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{dest.getType()}, ValueRange{src}, ValueRange{dest},
      ArrayRef<AffineMap>{srcMap, id}, parallelIterators(rank),
      [](OpBuilder &nb, Location nloc, ValueRange args) {
        linalg::YieldOp::create(nb, nloc, args[0]);
      });
  return generic.getResult(0);
}

/// Writes `src` into the box of `dest` at `offsets` (unit strides): a copy
/// into an extract_slice of `dest`, inserted back at the same place.
Value insertByCopy(OpBuilder &b, Location loc, Value src, Value dest,
                   ArrayRef<int64_t> offsets) {
  auto srcType = cast<RankedTensorType>(src.getType());
  SmallVector<OpFoldResult> offs = indexAttrs(b, offsets);
  SmallVector<OpFoldResult> sizes = indexAttrs(b, srcType.getShape());
  SmallVector<OpFoldResult> strides(srcType.getRank(), b.getIndexAttr(1));
  Value box =
      tensor::ExtractSliceOp::create(b, loc, dest, offs, sizes, strides);
  Value filled = copyGeneric(
      b, loc, src, box,
      AffineMap::getMultiDimIdentityMap(srcType.getRank(), b.getContext()));
  return tensor::InsertSliceOp::create(b, loc, filled, dest, offs, sizes,
                                       strides);
}

/// A parallel generic over `resultType` with no inputs; `body` gets the
/// output indices and returns the element.
Value buildIndexGeneric(
    OpBuilder &b, Location loc, RankedTensorType resultType,
    function_ref<Value(OpBuilder &, Location, ArrayRef<Value>)> body) {
  int64_t rank = resultType.getRank();
  Value init = emptyTensor(b, loc, resultType);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, ValueRange{}, ValueRange{init},
      ArrayRef<AffineMap>{
          AffineMap::getMultiDimIdentityMap(rank, b.getContext())},
      parallelIterators(rank), [&](OpBuilder &nb, Location nloc, ValueRange) {
        SmallVector<Value> idx;
        for (int64_t d = 0; d < rank; ++d)
          idx.push_back(linalg::IndexOp::create(nb, nloc, d));
        linalg::YieldOp::create(nb, nloc, body(nb, nloc, idx));
      });
  return generic.getResult(0);
}

Value indexConst(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// `x` clamped to [lo, hi] (index values).
Value clampIndex(OpBuilder &b, Location loc, Value x, int64_t lo, int64_t hi) {
  x = arith::MaxSIOp::create(b, loc, x, indexConst(b, loc, lo));
  return arith::MinSIOp::create(b, loc, x, indexConst(b, loc, hi));
}

//===----------------------------------------------------------------------===//
// Transpose, reshape
//===----------------------------------------------------------------------===//

struct TransposeLowering : OpConversionPattern<TransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value init = emptyTensor(rewriter, loc, op.getType());
    auto t = linalg::TransposeOp::create(rewriter, loc, adaptor.getInput(),
                                         init, op.getPerm());
    rewriter.replaceOp(op, t.getResult());
    return success();
  }
};

struct ReshapeLowering : OpConversionPattern<ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto inType = cast<RankedTensorType>(input.getType());
    auto outType =
        cast<RankedTensorType>(getTypeConverter()->convertType(op.getType()));
    ArrayRef<int64_t> in = inType.getShape(), out = outType.getShape();
    if (in == out) {
      rewriter.replaceOp(op, input);
      return success();
    }
    if (isEmpty(outType)) {
      rewriter.replaceOp(op, emptyTensor(rewriter, loc, op.getType()));
      return success();
    }
    // One collapse or one expand when the dims group, else through 1-D.
    if (in.size() > out.size())
      if (auto groups = getReassociationIndicesForCollapse(in, out)) {
        rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(op, outType, input,
                                                             *groups);
        return success();
      }
    if (in.size() < out.size())
      if (auto groups = getReassociationIndicesForCollapse(out, in)) {
        rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(op, outType, input,
                                                           *groups);
        return success();
      }
    int64_t n = inType.getNumElements();
    auto flatType = RankedTensorType::get({n}, inType.getElementType());
    Value flat = input;
    if (inType.getRank() == 0)
      flat = tensor::ExpandShapeOp::create(rewriter, loc, flatType, input,
                                           ArrayRef<ReassociationIndices>{});
    else if (inType.getRank() != 1)
      flat = tensor::CollapseShapeOp::create(
          rewriter, loc, flatType, input,
          ArrayRef<ReassociationIndices>{
              llvm::to_vector(llvm::seq<int64_t>(0, inType.getRank()))});
    if (outType.getRank() == 0)
      rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(
          op, outType, flat, ArrayRef<ReassociationIndices>{});
    else
      rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(
          op, outType, flat,
          ArrayRef<ReassociationIndices>{
              llvm::to_vector(llvm::seq<int64_t>(0, outType.getRank()))});
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Slice, concat
//===----------------------------------------------------------------------===//

/// A positive-stride extract_slice covering the same elements, read by a
/// generic that reverses the dims whose step is negative.
struct SliceLowering : OpConversionPattern<SliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType outType = op.getType();
    if (isEmpty(outType)) {
      rewriter.replaceOp(op, emptyTensor(rewriter, loc, outType));
      return success();
    }
    MLIRContext *ctx = rewriter.getContext();
    ArrayRef<int64_t> sizes = outType.getShape();
    SmallVector<int64_t> offsets, strides;
    SmallVector<AffineExpr> exprs;
    for (auto [d, start, step] :
         llvm::enumerate(op.getStarts(), op.getSteps())) {
      int64_t last = start + (sizes[d] - 1) * step;
      offsets.push_back(step > 0 ? start : last);
      strides.push_back(step > 0 ? step : -step);
      AffineExpr dim = getAffineDimExpr(d, ctx);
      exprs.push_back(step > 0 ? dim : sizes[d] - 1 - dim);
    }
    Value box = tensor::ExtractSliceOp::create(
        rewriter, loc, adaptor.getInput(), indexAttrs(rewriter, offsets),
        indexAttrs(rewriter, sizes), indexAttrs(rewriter, strides));
    AffineMap map = AffineMap::get(sizes.size(), 0, exprs, ctx);
    rewriter.replaceOp(op,
                       copyGeneric(rewriter, loc, box,
                                   emptyTensor(rewriter, loc, outType), map));
    return success();
  }
};

struct ConcatLowering : OpConversionPattern<ConcatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConcatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType outType = op.getType();
    int64_t axis = op.getAxis();
    Value result = emptyTensor(rewriter, loc, outType);
    SmallVector<int64_t> offsets(outType.getRank(), 0);
    for (Value input : adaptor.getInputs()) {
      auto type = cast<RankedTensorType>(input.getType());
      if (isEmpty(type))
        continue;
      result = insertByCopy(rewriter, loc, input, result, offsets);
      offsets[axis] += type.getShape()[axis];
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Pad
//===----------------------------------------------------------------------===//

/// The signless constant `value` (a bwc pad value) as an arith constant.
Value padValue(OpBuilder &b, Location loc, TypedAttr value) {
  Type t = signlessType(value.getType());
  if (auto i = dyn_cast<IntegerAttr>(value))
    return arith::ConstantOp::create(b, loc, t,
                                     IntegerAttr::get(t, i.getValue()));
  return arith::ConstantOp::create(b, loc, value);
}

struct PadLowering : OpConversionPattern<PadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType outType = op.getType();
    Value input = adaptor.getInput();
    auto inType = cast<RankedTensorType>(input.getType());
    int64_t rank = inType.getRank();
    ArrayRef<int64_t> pads = op.getPads();
    if (isEmpty(outType)) {
      rewriter.replaceOp(op, emptyTensor(rewriter, loc, outType));
      return success();
    }
    if (op.getMode() == PadMode::constant) {
      auto value = dyn_cast<TypedAttr>(op.getValue());
      if (!value || !isa<IntegerAttr, FloatAttr>(value))
        return rewriter.notifyMatchFailure(op, "pad value is not a scalar");
      Value fill = padValue(rewriter, loc, value);
      Value result = linalg::FillOp::create(rewriter, loc, fill,
                                            emptyTensor(rewriter, loc, outType))
                         .getResult(0);
      if (!isEmpty(inType))
        result =
            insertByCopy(rewriter, loc, input, result, pads.take_front(rank));
      rewriter.replaceOp(op, result);
      return success();
    }
    // Reflect and edge: each output index maps to one source index.
    bool reflect = op.getMode() == PadMode::reflect;
    Value r = buildIndexGeneric(
        rewriter, loc, outType,
        [&](OpBuilder &b, Location l, ArrayRef<Value> idx) {
          SmallVector<Value> src;
          for (int64_t d = 0; d < rank; ++d) {
            int64_t lo = pads[d], hi = pads[rank + d];
            int64_t len = inType.getShape()[d];
            if (lo == 0 && hi == 0) {
              src.push_back(idx[d]);
              continue;
            }
            src.push_back(emitPadSourceIndex(b, l, idx[d], lo, len, reflect));
          }
          return tensor::ExtractOp::create(b, l, input, src);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Gather
//===----------------------------------------------------------------------===//

struct GatherLowering : OpConversionPattern<GatherOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType outType = op.getType();
    Value data = adaptor.getData(), indices = adaptor.getIndices();
    auto dataType = cast<RankedTensorType>(data.getType());
    auto indicesType = cast<RankedTensorType>(indices.getType());
    int64_t axis = op.getAxis();
    int64_t q = indicesType.getRank(), rank = outType.getRank();
    int64_t len = dataType.getShape()[axis];
    if (isEmpty(outType)) {
      rewriter.replaceOp(op, emptyTensor(rewriter, loc, outType));
      return success();
    }
    if (len == 0)
      return rewriter.notifyMatchFailure(op, "gathers from an empty axis");

    MLIRContext *ctx = rewriter.getContext();
    SmallVector<AffineExpr> indexExprs;
    for (int64_t i = 0; i < q; ++i)
      indexExprs.push_back(getAffineDimExpr(axis + i, ctx));
    SmallVector<AffineMap> maps = {
        AffineMap::get(rank, 0, indexExprs, ctx),
        AffineMap::getMultiDimIdentityMap(rank, ctx)};
    Value init = emptyTensor(rewriter, loc, outType);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{init.getType()}, ValueRange{indices},
        ValueRange{init}, maps, parallelIterators(rank),
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value i = arith::IndexCastOp::create(b, l, b.getIndexType(), args[0]);
          Value isNeg = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt,
                                              i, indexConst(b, l, 0));
          Value wrapped = arith::AddIOp::create(b, l, i, indexConst(b, l, len));
          i = arith::SelectOp::create(b, l, isNeg, wrapped, i);
          // ONNX makes an out-of-range index an error but cannot check it
          // at compile time; clamping it into range means a bad index reads
          // a wrong element instead of memory outside the tensor.
          i = clampIndex(b, l, i, 0, len - 1);
          SmallVector<Value> src;
          for (int64_t d = 0; d < axis; ++d)
            src.push_back(linalg::IndexOp::create(b, l, d));
          src.push_back(i);
          for (int64_t d = axis + q; d < rank; ++d)
            src.push_back(linalg::IndexOp::create(b, l, d));
          linalg::YieldOp::create(
              b, l, Value(tensor::ExtractOp::create(b, l, data, src)));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

} // namespace

Value lowering::emitPadSourceIndex(OpBuilder &b, Location loc, Value index,
                                   int64_t lo, int64_t len, bool reflect) {
  Value j = arith::SubIOp::create(b, loc, index, indexConst(b, loc, lo));
  if (reflect) {
    // numpy 'reflect': the edge is not repeated, -1 -> 1 and len -> len - 2.
    // The verifier keeps pads below len.
    Value neg = arith::SubIOp::create(b, loc, indexConst(b, loc, 0), j);
    j = arith::MaxSIOp::create(b, loc, j, neg);
    Value back =
        arith::SubIOp::create(b, loc, indexConst(b, loc, 2 * (len - 1)), j);
    j = arith::MinSIOp::create(b, loc, j, back);
  }
  // Edge clamps; for reflect the clamp only guards memory.
  return clampIndex(b, loc, j, 0, len - 1);
}

void lowering::populateDataMovementPatterns(const TypeConverter &tc,
                                            RewritePatternSet &patterns) {
  patterns.add<TransposeLowering, ReshapeLowering, SliceLowering,
               ConcatLowering, PadLowering, GatherLowering>(
      tc, patterns.getContext());
}
