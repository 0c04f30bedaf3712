//===- ResizeToLinalg.cpp - bwc.resize to linalg --------------------------===//
//
// ONNX Resize as one parallel linalg.generic over the output. Per dim the
// body maps the output index to an input coordinate (in f32, as ONNX
// Runtime does), turns it into taps (an input index and a weight) and sums
// the weighted input elements read with tensor.extract:
//   nearest: 1 tap, the coordinate rounded by nearest_mode;
//   linear:  2 taps, the coordinate clamped into the input first;
//   cubic:   4 taps with the Keys kernel (coefficient A), indices clamped
//            to the edge, or with exclude_outside weights of outside taps
//            zeroed and the rest renormalized.
// A dim that is not resized (same size, scale 1, an identity coordinate
// map) or whose input has one element gets a single tap, so the number of
// taps is the product over the dims that really change. Interpolation
// accumulates in f32 (f64 for f64 and 32/64-bit integers); integer results
// round to nearest and saturate.
//
//===----------------------------------------------------------------------===//
#include "Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>

using namespace mlir;
using namespace mlir::bwc;
using namespace mlir::bwc::lowering;

namespace {

/// One input index along a dim and its weight (null: weight 1).
struct Tap {
  Value index;
  Value weight;
};

class ResizeBodyBuilder {
public:
  ResizeBodyBuilder(OpBuilder &b, Location loc, ResizeOp op,
                    function_ref<Value(ArrayRef<Value>)> read, Type accType)
      : b(b), loc(loc), op(op), read(read), accType(accType),
        f32(b.getF32Type()),
        inShape(cast<RankedTensorType>(op.getInput().getType()).getShape()) {}

  /// Dims that need no arithmetic: the output index is the input index, or
  /// the input has one element.
  static bool isPassThrough(ResizeOp op, int64_t d) {
    int64_t in = cast<RankedTensorType>(op.getInput().getType()).getDimSize(d);
    int64_t out = op.getType().getDimSize(d);
    return in == 1 || (in == out && op.getScales()[d] == 1.0 &&
                       op.getCoord() != CoordMode::tf_half_pixel_for_nn);
  }

  static int64_t tapsPerDim(ResizeOp op, int64_t d) {
    if (op.getMode() == ResizeMode::nearest || isPassThrough(op, d))
      return 1;
    return op.getMode() == ResizeMode::linear ? 2 : 4;
  }

  /// The element at output indices `idx`.
  Value build(ArrayRef<Value> idx) {
    SmallVector<SmallVector<Tap>> taps;
    for (auto [d, i] : llvm::enumerate(idx))
      taps.push_back(dimTaps(d, i));
    SmallVector<Value> at;
    if (op.getMode() == ResizeMode::nearest) {
      for (auto &t : taps)
        at.push_back(t.front().index);
      return read(at);
    }
    Value sum;
    accumulate(taps, at, Value(), sum);
    return toElement(sum);
  }

private:
  Value f32Const(double v) { return emitConstant(b, loc, f32, v); }
  Value indexConst(int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v);
  }
  Value clampIndex(Value i, int64_t hi) {
    i = arith::MaxSIOp::create(b, loc, i, indexConst(0));
    return arith::MinSIOp::create(b, loc, i, indexConst(hi));
  }
  Value toIndex(Value f) {
    Value i = arith::FPToSIOp::create(b, loc, b.getI64Type(), f);
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), i);
  }
  Value toAcc(Value f) {
    return f.getType() == accType ? f
                                  : arith::ExtFOp::create(b, loc, accType, f);
  }

  /// The input coordinate of output index `i` along dim `d`, in f32.
  Value coordinate(int64_t d, Value i) {
    Value x = arith::IndexCastOp::create(b, loc, b.getI64Type(), i);
    x = arith::SIToFPOp::create(b, loc, f32, x);
    double ratio = op.getScales()[d];
    // ONNX's length_resized is the unrounded in * scale (the reference
    // implementation and the backend tests use it), not the output size.
    int64_t in = inShape[d];
    float resized = static_cast<float>(in * ratio);
    auto scale = [&] { return f32Const(static_cast<float>(ratio)); };
    auto halfPixel = [&] {
      Value shifted = arith::AddFOp::create(b, loc, x, f32Const(0.5));
      return arith::DivFOp::create(b, loc, shifted, scale());
    };
    switch (op.getCoord()) {
    case CoordMode::half_pixel:
      return arith::SubFOp::create(b, loc, halfPixel(), f32Const(0.5));
    case CoordMode::pytorch_half_pixel:
      if (!(resized > 1.0f))
        return f32Const(0);
      return arith::SubFOp::create(b, loc, halfPixel(), f32Const(0.5));
    case CoordMode::align_corners: {
      if (resized == 1.0f)
        return f32Const(0);
      Value num = arith::MulFOp::create(b, loc, x, f32Const(in - 1));
      return arith::DivFOp::create(b, loc, num, f32Const(resized - 1.0f));
    }
    case CoordMode::asymmetric:
      return arith::DivFOp::create(b, loc, x, scale());
    case CoordMode::tf_half_pixel_for_nn:
      return halfPixel();
    }
    return x;
  }

  SmallVector<Tap> dimTaps(int64_t d, Value i) {
    int64_t in = inShape[d];
    if (in == 1)
      return {{indexConst(0), Value()}};
    if (isPassThrough(op, d))
      return {{i, Value()}};
    Value c = coordinate(d, i);
    switch (op.getMode()) {
    case ResizeMode::nearest:
      return {{clampIndex(toIndex(roundNearest(c)), in - 1), Value()}};
    case ResizeMode::linear:
      return linearTaps(c, in);
    case ResizeMode::cubic:
      return cubicTaps(c, in);
    }
    return {};
  }

  Value roundNearest(Value c) {
    switch (op.getNearestMode()) {
    case NearestMode::round_prefer_floor: // x.5 goes down
      return math::CeilOp::create(
          b, loc, arith::SubFOp::create(b, loc, c, f32Const(0.5)));
    case NearestMode::round_prefer_ceil: // x.5 goes up
      return math::FloorOp::create(
          b, loc, arith::AddFOp::create(b, loc, c, f32Const(0.5)));
    case NearestMode::floor:
      return math::FloorOp::create(b, loc, c);
    case NearestMode::ceil:
      return math::CeilOp::create(b, loc, c);
    }
    return c;
  }

  SmallVector<Tap> linearTaps(Value c, int64_t in) {
    c = arith::MaximumFOp::create(b, loc, c, f32Const(0));
    c = arith::MinimumFOp::create(b, loc, c, f32Const(in - 1));
    Value lowF = math::FloorOp::create(b, loc, c);
    Value low = toIndex(lowF);
    Value high = arith::MinSIOp::create(
        b, loc, arith::AddIOp::create(b, loc, low, indexConst(1)),
        indexConst(in - 1));
    Value w1 = arith::SubFOp::create(b, loc, c, lowF);
    Value w0 = arith::SubFOp::create(b, loc, f32Const(1), w1);
    return {{low, toAcc(w0)}, {high, toAcc(w1)}};
  }

  /// Keys' cubic convolution kernel at distance `s` (0 <= s <= 2), on the
  /// branch `near` (s <= 1) or far (1 <= s <= 2), known statically here.
  Value cubicWeight(Value s, bool near) {
    double a =
        op.getCubicCoeffA() ? op.getCubicCoeffA()->convertToDouble() : -0.75;
    auto mul = [&](Value x, Value y) {
      return arith::MulFOp::create(b, loc, x, y);
    };
    auto add = [&](Value x, double y) {
      return arith::AddFOp::create(b, loc, x, f32Const(y));
    };
    if (near) // ((a + 2) s - (a + 3)) s^2 + 1
      return add(mul(mul(add(mul(f32Const(a + 2), s), -(a + 3)), s), s), 1);
    // ((a s - 5a) s + 8a) s - 4a
    return add(mul(add(mul(add(mul(f32Const(a), s), -5 * a), s), 8 * a), s),
               -4 * a);
  }

  SmallVector<Tap> cubicTaps(Value c, int64_t in) {
    Value floorF = math::FloorOp::create(b, loc, c);
    Value r = arith::SubFOp::create(b, loc, c, floorF);
    Value base = toIndex(floorF);
    Value oneMinusR = arith::SubFOp::create(b, loc, f32Const(1), r);
    Value weights[4] = {
        cubicWeight(arith::AddFOp::create(b, loc, r, f32Const(1)), false),
        cubicWeight(r, true), cubicWeight(oneMinusR, true),
        cubicWeight(arith::AddFOp::create(b, loc, oneMinusR, f32Const(1)),
                    false)};
    SmallVector<Tap> taps;
    Value sum;
    for (int k = 0; k < 4; ++k) {
      Value i = arith::AddIOp::create(b, loc, base, indexConst(k - 1));
      Value w = weights[k];
      if (op.getExcludeOutside()) {
        Value inside = arith::AndIOp::create(
            b, loc,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, i,
                                  indexConst(0)),
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, i,
                                  indexConst(in)));
        w = arith::SelectOp::create(b, loc, inside, w, f32Const(0));
        sum = sum ? arith::AddFOp::create(b, loc, sum, w) : w;
      }
      taps.push_back({clampIndex(i, in - 1), w});
    }
    for (Tap &t : taps) {
      if (sum)
        t.weight = arith::DivFOp::create(b, loc, t.weight, sum);
      t.weight = toAcc(t.weight);
    }
    return taps;
  }

  /// Adds, for every combination of the taps of dims `at.size()`..., the
  /// input element times the product of the weights to `sum`.
  void accumulate(ArrayRef<SmallVector<Tap>> taps, SmallVector<Value> &at,
                  Value weight, Value &sum) {
    if (at.size() == taps.size()) {
      Value v = read(at);
      v = emitCast(b, loc, v, op.getType().getElementType(), accType);
      if (weight)
        v = arith::MulFOp::create(b, loc, v, weight);
      sum = sum ? Value(arith::AddFOp::create(b, loc, sum, v)) : v;
      return;
    }
    for (const Tap &t : taps[at.size()]) {
      Value w = weight;
      if (t.weight)
        w = w ? Value(arith::MulFOp::create(b, loc, w, t.weight)) : t.weight;
      at.push_back(t.index);
      accumulate(taps, at, w, sum);
      at.pop_back();
    }
  }

  /// The accumulated value as the result element type: floats narrow,
  /// integers round to nearest and saturate.
  Value toElement(Value v) {
    Type elt = op.getType().getElementType();
    if (isa<FloatType>(elt))
      return emitCast(b, loc, v, accType, elt);
    unsigned width = elt.getIntOrFloatBitWidth();
    bool isUnsigned = isUnsignedElement(elt);
    double hi = isUnsigned ? std::ldexp(1.0, width) - 1
                           : std::ldexp(1.0, width - 1) - 1;
    double lo = isUnsigned ? 0 : -std::ldexp(1.0, width - 1);
    // 2^63 - 1 and 2^64 - 1 round up in f64; stay below so the cast is
    // defined.
    if (width == 64)
      hi = std::nextafter(std::ldexp(1.0, isUnsigned ? 64 : 63), 0.0);
    v = math::RoundOp::create(b, loc, v);
    v = arith::MaximumFOp::create(b, loc, v, emitConstant(b, loc, accType, lo));
    v = arith::MinimumFOp::create(b, loc, v, emitConstant(b, loc, accType, hi));
    return emitCast(b, loc, v, accType, elt);
  }

  OpBuilder &b;
  Location loc;
  ResizeOp op;
  function_ref<Value(ArrayRef<Value>)> read;
  Type accType;
  FloatType f32;
  ArrayRef<int64_t> inShape;
};

struct ResizeLowering : OpConversionPattern<ResizeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ResizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType outType = op.getType();
    auto inType = cast<RankedTensorType>(adaptor.getInput().getType());
    int64_t rank = outType.getRank();
    if (llvm::is_contained(outType.getShape(), 0)) {
      rewriter.replaceOp(op, emptyTensor(rewriter, loc, outType));
      return success();
    }
    if (llvm::is_contained(inType.getShape(), 0))
      return rewriter.notifyMatchFailure(op, "resizes an empty input");
    if (resizeTapCount(op) > kMaxResizeTaps)
      return rewriter.notifyMatchFailure(
          op, "reads more than 256 input elements per output element");

    MLIRContext *ctx = rewriter.getContext();
    Value init = emptyTensor(rewriter, loc, outType);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{init.getType()}, ValueRange{},
        ValueRange{init},
        ArrayRef<AffineMap>{AffineMap::getMultiDimIdentityMap(rank, ctx)},
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange) {
          SmallVector<Value> idx;
          for (int64_t d = 0; d < rank; ++d)
            idx.push_back(linalg::IndexOp::create(b, l, d));
          Value input = adaptor.getInput();
          linalg::YieldOp::create(
              b, l, emitResizeElement(b, l, op, idx, [&](ArrayRef<Value> at) {
                return tensor::ExtractOp::create(b, l, input, at);
              }));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

} // namespace

int64_t lowering::resizeTapCount(ResizeOp op) {
  int64_t taps = 1;
  for (int64_t d = 0; d < op.getType().getRank(); ++d)
    taps *= ResizeBodyBuilder::tapsPerDim(op, d);
  return taps;
}

Value lowering::emitResizeElement(OpBuilder &b, Location loc, ResizeOp op,
                                  ArrayRef<Value> index,
                                  function_ref<Value(ArrayRef<Value>)> read) {
  // f32 interpolation as ONNX Runtime does; f64 where f32 would lose bits.
  Type elt = op.getType().getElementType();
  Type accType = b.getF32Type();
  if (elt.isF64() ||
      (isa<IntegerType>(elt) && elt.getIntOrFloatBitWidth() >= 32))
    accType = b.getF64Type();
  return ResizeBodyBuilder(b, loc, op, read, accType).build(index);
}

void lowering::populateResizePatterns(const TypeConverter &tc,
                                      RewritePatternSet &patterns) {
  patterns.add<ResizeLowering>(tc, patterns.getContext());
}
