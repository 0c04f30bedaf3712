//===- BWCFolders.cpp - Folders of bwc ops --------------------------------===//
//
// Trivial folds (identity reshape/transpose/cast...), constant folding of
// small tensors, and the canonicalizations that build a different op (a
// transpose of unit dims as a reshape). The ONNX importer builds ops with createOrFold, so these
// folders are also what turns exporters' shape arithmetic
// (Shape -> Gather -> Unsqueeze -> Concat -> Reshape) into constants.
//
//===----------------------------------------------------------------------===//
#include "bwc/Dialect/BWC/IR/BWCOps.h"
#include "bwc/Dialect/BWC/Utils/ShapeUtils.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/APFloat.h"
#include <cmath>

using namespace mlir;
using namespace mlir::bwc;

namespace {

/// Constant folding stops above this many elements so that folding never
/// dominates compile time or duplicates large weights.
constexpr int64_t kFoldLimit = 1 << 16;

/// A cast of a constant that widens its elements folds only up to this many
/// elements. Folding a larger one would store the wide type: the int8
/// weights of a QDQ model (behind DequantizeLinear) or fp16 weights cast to
/// f32 would be read at 2-8x their bytes. Kept as a cast, the widening fuses
/// into the kernel that consumes it (bwc-fuse's widening prologue).
constexpr int64_t kWideningFoldLimit = 64;

/// A small tensor literal, unpacked to doubles (floats) or int64 (integers,
/// i1 as 0/1, ui8 zero-extended).
struct Literal {
  RankedTensorType type;
  SmallVector<double> f;
  SmallVector<int64_t> i;
  bool isFloat() const { return isa<FloatType>(type.getElementType()); }
  int64_t size() const { return isFloat() ? f.size() : i.size(); }
};

std::optional<Literal> unpack(Attribute attr) {
  auto dense = dyn_cast_or_null<DenseElementsAttr>(attr);
  if (!dense)
    return std::nullopt;
  auto type = dyn_cast<RankedTensorType>(dense.getType());
  if (!type || type.getNumElements() > kFoldLimit)
    return std::nullopt;
  Literal lit;
  lit.type = type;
  Type elt = type.getElementType();
  if (isa<FloatType>(elt)) {
    for (APFloat v : dense.getValues<APFloat>())
      lit.f.push_back(v.convertToDouble());
  } else if (auto it = dyn_cast<IntegerType>(elt)) {
    bool isUnsigned = it.isUnsigned() || it.getWidth() == 1;
    for (APInt v : dense.getValues<APInt>())
      lit.i.push_back(isUnsigned ? (int64_t)v.getZExtValue() : v.getSExtValue());
  } else {
    return std::nullopt;
  }
  return lit;
}

Attribute pack(RankedTensorType type, ArrayRef<double> f,
               ArrayRef<int64_t> i) {
  Type elt = type.getElementType();
  if (auto ft = dyn_cast<FloatType>(elt)) {
    SmallVector<APFloat> vals;
    for (double d : f) {
      APFloat v(d);
      bool lost;
      v.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      vals.push_back(v);
    }
    return DenseElementsAttr::get(type, vals);
  }
  auto it = cast<IntegerType>(elt);
  SmallVector<APInt> vals;
  for (int64_t v : i)
    vals.push_back(APInt(it.getWidth(), (uint64_t)v, /*isSigned=*/!it.isUnsigned(),
                         /*implicitTrunc=*/true));
  return DenseElementsAttr::get(type, vals);
}

/// Linear index into a tensor of shape `inShape` broadcast (numpy) to
/// `outShape`, for output multi-index `idx`.
int64_t broadcastIndex(ArrayRef<int64_t> inShape, ArrayRef<int64_t> outShape,
                       ArrayRef<int64_t> idx) {
  int64_t lin = 0;
  size_t lead = outShape.size() - inShape.size();
  for (size_t d = 0; d < inShape.size(); ++d)
    lin = lin * inShape[d] + (inShape[d] == 1 ? 0 : idx[lead + d]);
  return lin;
}

/// Calls fn(linearOut, multiIndex) for every element of `shape`.
template <typename Fn> void forEachIndex(ArrayRef<int64_t> shape, Fn fn) {
  int64_t n = numElements(shape);
  SmallVector<int64_t> idx(shape.size(), 0);
  for (int64_t lin = 0; lin < n; ++lin) {
    fn(lin, ArrayRef<int64_t>(idx));
    for (int64_t d = (int64_t)shape.size() - 1; d >= 0; --d) {
      if (++idx[d] < shape[d])
        break;
      idx[d] = 0;
    }
  }
}

/// Moves elements: out[lin] = in[indexOf(multiIndex)] for any element type.
template <typename Fn>
Attribute permuteElements(DenseElementsAttr in, RankedTensorType outType,
                          Fn indexOf) {
  if (outType.getNumElements() > kFoldLimit)
    return {};
  if (in.isSplat())
    return DenseElementsAttr::get(outType, in.getSplatValue<Attribute>());
  SmallVector<Attribute> src(in.getValues<Attribute>());
  SmallVector<Attribute> dst(outType.getNumElements());
  forEachIndex(outType.getShape(), [&](int64_t lin, ArrayRef<int64_t> idx) {
    dst[lin] = src[indexOf(idx)];
  });
  return DenseElementsAttr::get(outType, dst);
}

double applyUnary(UnaryFn fn, double x) {
  switch (fn) {
  case UnaryFn::abs: return std::fabs(x);
  case UnaryFn::neg: return -x;
  case UnaryFn::exp: return std::exp(x);
  case UnaryFn::log: return std::log(x);
  case UnaryFn::sqrt: return std::sqrt(x);
  case UnaryFn::rsqrt: return 1.0 / std::sqrt(x);
  case UnaryFn::reciprocal: return 1.0 / x;
  case UnaryFn::sigmoid: return 1.0 / (1.0 + std::exp(-x));
  case UnaryFn::tanh: return std::tanh(x);
  case UnaryFn::erf: return std::erf(x);
  case UnaryFn::floor: return std::floor(x);
  case UnaryFn::ceil: return std::ceil(x);
  case UnaryFn::round: return std::nearbyint(x);
  case UnaryFn::sin: return std::sin(x);
  case UnaryFn::cos: return std::cos(x);
  case UnaryFn::sign: return (x > 0) - (x < 0);
  case UnaryFn::relu: return x > 0 ? x : 0.0;
  case UnaryFn::not_: return x == 0;
  case UnaryFn::tan: return std::tan(x);
  case UnaryFn::asin: return std::asin(x);
  case UnaryFn::acos: return std::acos(x);
  case UnaryFn::atan: return std::atan(x);
  case UnaryFn::sinh: return std::sinh(x);
  case UnaryFn::cosh: return std::cosh(x);
  case UnaryFn::asinh: return std::asinh(x);
  case UnaryFn::acosh: return std::acosh(x);
  case UnaryFn::atanh: return std::atanh(x);
  }
  return x;
}

std::optional<int64_t> applyUnaryInt(UnaryFn fn, int64_t x) {
  switch (fn) {
  case UnaryFn::abs: return x < 0 ? -x : x;
  case UnaryFn::neg: return -x;
  case UnaryFn::sign: return (x > 0) - (x < 0);
  case UnaryFn::relu: return x > 0 ? x : 0;
  case UnaryFn::not_: return x == 0;
  default: return std::nullopt;
  }
}

double applyBinary(BinaryFn fn, double a, double b) {
  switch (fn) {
  case BinaryFn::add: return a + b;
  case BinaryFn::sub: return a - b;
  case BinaryFn::mul: return a * b;
  case BinaryFn::div: return a / b;
  case BinaryFn::pow: return std::pow(a, b);
  case BinaryFn::max: return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b);
  case BinaryFn::min: return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b);
  case BinaryFn::mod: {
    double r = std::fmod(a, b);
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
  }
  case BinaryFn::fmod: return std::fmod(a, b);
  case BinaryFn::eq: return a == b;
  case BinaryFn::lt: return a < b;
  case BinaryFn::gt: return a > b;
  case BinaryFn::le: return a <= b;
  case BinaryFn::ge: return a >= b;
  case BinaryFn::and_: return a != 0 && b != 0;
  case BinaryFn::or_: return a != 0 || b != 0;
  case BinaryFn::xor_: return (a != 0) != (b != 0);
  case BinaryFn::shl:
  case BinaryFn::shr: return NAN; // integers only (the verifier)
  }
  return 0;
}

/// Integer arithmetic; std::nullopt where folding would be undefined
/// (division by zero) so that the op stays and fails at run time instead.
std::optional<int64_t> applyBinaryInt(BinaryFn fn, int64_t a, int64_t b) {
  // Wrapping (two's complement) like the kernels; pack() truncates to the
  // element width.
  auto ua = (uint64_t)a, ub = (uint64_t)b;
  switch (fn) {
  case BinaryFn::add: return (int64_t)(ua + ub);
  case BinaryFn::sub: return (int64_t)(ua - ub);
  case BinaryFn::mul: return (int64_t)(ua * ub);
  // Bitwise, which on i1's 0/1 is the logical operation.
  case BinaryFn::and_: return a & b;
  case BinaryFn::or_: return a | b;
  case BinaryFn::xor_: return a ^ b;
  case BinaryFn::div:
    if (b == 0) return std::nullopt;
    return a / b;
  case BinaryFn::pow: {
    if (b < 0) return std::nullopt;
    int64_t r = 1;
    for (int64_t k = 0; k < b && k < 64; ++k) r *= a;
    return r;
  }
  case BinaryFn::max: return std::max(a, b);
  case BinaryFn::min: return std::min(a, b);
  case BinaryFn::mod: {
    if (b == 0) return std::nullopt;
    int64_t r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
  }
  case BinaryFn::fmod:
    if (b == 0) return std::nullopt;
    return a % b;
  case BinaryFn::shl:
  case BinaryFn::shr:
    return std::nullopt; // depends on the width and signedness: not folded
  default:
    return (int64_t)applyBinary(fn, (double)a, (double)b);
  }
}

} // namespace

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

OpFoldResult UnaryOp::fold(FoldAdaptor adaptor) {
  std::optional<Literal> in = unpack(adaptor.getInput());
  if (!in)
    return {};
  SmallVector<double> f;
  SmallVector<int64_t> i;
  if (in->isFloat()) {
    for (double x : in->f)
      f.push_back(applyUnary(getFn(), x));
  } else {
    for (int64_t x : in->i) {
      std::optional<int64_t> r = applyUnaryInt(getFn(), x);
      if (!r)
        return {};
      i.push_back(*r);
    }
  }
  return pack(getType(), f, i);
}

/// True when `attr` is a float splat of `value` (+0 for 0: x - (-0) turns
/// -0 into +0).
bool isFloatSplat(Attribute attr, double value) {
  auto dense = dyn_cast_or_null<DenseElementsAttr>(attr);
  if (!dense || !dense.isSplat() || !isa<FloatType>(dense.getElementType()))
    return false;
  APFloat v = dense.getSplatValue<APFloat>();
  return v.convertToDouble() == value && !v.isNegative();
}

OpFoldResult BinaryOp::fold(FoldAdaptor adaptor) {
  RankedTensorType out = getType();
  // Float identities that are exact for every x (-0 and NaN included):
  // x - 0, x * 1, x / 1. A per-channel zero point of zeros (DequantizeLinear
  // of symmetric weights) leaves no subtraction behind.
  if (getLhs().getType() == out &&
      ((getFn() == BinaryFn::sub && isFloatSplat(adaptor.getRhs(), 0.0)) ||
       ((getFn() == BinaryFn::mul || getFn() == BinaryFn::div) &&
        isFloatSplat(adaptor.getRhs(), 1.0))))
    return getLhs();
  std::optional<Literal> a = unpack(adaptor.getLhs());
  std::optional<Literal> b = unpack(adaptor.getRhs());
  if (!a || !b || out.getNumElements() > kFoldLimit)
    return {};
  bool floatOut = isa<FloatType>(out.getElementType());
  SmallVector<double> f;
  SmallVector<int64_t> i;
  bool ok = true;
  forEachIndex(out.getShape(), [&](int64_t, ArrayRef<int64_t> idx) {
    int64_t ia = broadcastIndex(a->type.getShape(), out.getShape(), idx);
    int64_t ib = broadcastIndex(b->type.getShape(), out.getShape(), idx);
    if (a->isFloat()) {
      double r = applyBinary(getFn(), a->f[ia], b->f[ib]);
      if (floatOut)
        f.push_back(r);
      else
        i.push_back((int64_t)r);
      return;
    }
    std::optional<int64_t> r = applyBinaryInt(getFn(), a->i[ia], b->i[ib]);
    ok &= r.has_value();
    i.push_back(r.value_or(0));
  });
  if (!ok)
    return {};
  return pack(out, f, i);
}

OpFoldResult SelectOp::fold(FoldAdaptor adaptor) {
  auto cond = dyn_cast_or_null<DenseElementsAttr>(adaptor.getCond());
  if (cond && cond.isSplat()) {
    Value pick = cond.getSplatValue<bool>() ? getOnTrue() : getOnFalse();
    if (pick.getType() == getType())
      return pick;
  }
  std::optional<Literal> c = unpack(adaptor.getCond());
  std::optional<Literal> t = unpack(adaptor.getOnTrue());
  std::optional<Literal> e = unpack(adaptor.getOnFalse());
  RankedTensorType out = getType();
  if (!c || !t || !e || out.getNumElements() > kFoldLimit)
    return {};
  SmallVector<double> f;
  SmallVector<int64_t> i;
  forEachIndex(out.getShape(), [&](int64_t, ArrayRef<int64_t> idx) {
    bool take = c->i[broadcastIndex(c->type.getShape(), out.getShape(), idx)];
    const Literal &src = take ? *t : *e;
    int64_t k = broadcastIndex(src.type.getShape(), out.getShape(), idx);
    if (src.isFloat())
      f.push_back(src.f[k]);
    else
      i.push_back(src.i[k]);
  });
  return pack(out, f, i);
}

OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  Type inElt = getInput().getType().getElementType();
  Type outElt = getType().getElementType();
  if (inElt.isIntOrFloat() && outElt.isIntOrFloat() &&
      outElt.getIntOrFloatBitWidth() > inElt.getIntOrFloatBitWidth() &&
      getType().getNumElements() > kWideningFoldLimit)
    return {};
  std::optional<Literal> in = unpack(adaptor.getInput());
  if (!in)
    return {};
  SmallVector<double> f;
  SmallVector<int64_t> i;
  for (int64_t k = 0, e = in->size(); k < e; ++k) {
    double v = in->isFloat() ? in->f[k] : (double)in->i[k];
    if (isa<FloatType>(outElt)) {
      f.push_back(in->isFloat() ? v : (double)in->i[k]);
    } else if (outElt.isInteger(1)) {
      i.push_back(v != 0);
    } else if (in->isFloat()) {
      if (!std::isfinite(v))
        return {};
      i.push_back((int64_t)std::trunc(v));
    } else {
      i.push_back(in->i[k]);
    }
  }
  return pack(getType(), f, i);
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  // transpose(transpose(x, p), q) = transpose(x, p o q): layout changes
  // that meet (bwc-select-layout's chain edges) cancel or merge.
  if (auto inner = getInput().getDefiningOp<TransposeOp>()) {
    SmallVector<int64_t> composed;
    for (int64_t p : getPerm())
      composed.push_back(inner.getPerm()[p]);
    getInputMutable().assign(inner.getInput());
    setPerm(composed);
    if (!llvm::equal(composed, llvm::seq<int64_t>(0, composed.size())))
      return getResult();
    return getInput();
  }
  ArrayRef<int64_t> perm = getPerm();
  bool identity = true;
  for (size_t k = 0; k < perm.size(); ++k)
    identity &= perm[k] == (int64_t)k;
  if (identity)
    return getInput();
  auto in = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput());
  if (!in)
    return {};
  ArrayRef<int64_t> inShape = cast<RankedTensorType>(in.getType()).getShape();
  SmallVector<int64_t> strides = rowMajorStrides(inShape);
  return permuteElements(in, getType(), [&](ArrayRef<int64_t> idx) {
    int64_t lin = 0;
    for (size_t d = 0; d < perm.size(); ++d)
      lin += idx[d] * strides[perm[d]];
    return lin;
  });
}

namespace {

/// A transpose whose permutation keeps the non-unit dims in order moves no
/// element: the same row-major order, a reshape, which the buffer planner
/// makes a view instead of a kernel. (bwc-select-layout's NCW -> NWC
/// conversion of oww_melspec's one-channel signal was a 0.4-efficient
/// copy kernel.)
struct TransposeOfUnitDimsIsReshape : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    ArrayRef<int64_t> in =
        cast<RankedTensorType>(op.getInput().getType()).getShape();
    int64_t last = -1;
    for (int64_t p : op.getPerm()) {
      if (in[p] == 1)
        continue;
      if (p < last)
        return failure();
      last = p;
    }
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), op.getInput());
    return success();
  }
};

} // namespace

void TransposeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<TransposeOfUnitDimsIsReshape>(context);
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  if (auto producer = getInput().getDefiningOp<ReshapeOp>()) {
    getInputMutable().assign(producer.getInput());
    return getResult();
  }
  if (auto in = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput()))
    return in.reshape(getType());
  return {};
}

OpFoldResult BroadcastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  auto in = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput());
  if (!in)
    return {};
  ArrayRef<int64_t> inShape = cast<RankedTensorType>(in.getType()).getShape();
  return permuteElements(in, getType(), [&](ArrayRef<int64_t> idx) {
    return broadcastIndex(inShape, getType().getShape(), idx);
  });
}

OpFoldResult SliceOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType() &&
      llvm::all_of(getStarts(), [](int64_t s) { return s == 0; }) &&
      llvm::all_of(getSteps(), [](int64_t s) { return s == 1; }))
    return getInput();
  auto in = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput());
  if (!in)
    return {};
  SmallVector<int64_t> strides =
      rowMajorStrides(cast<RankedTensorType>(in.getType()).getShape());
  return permuteElements(in, getType(), [&](ArrayRef<int64_t> idx) {
    int64_t lin = 0;
    for (size_t d = 0; d < idx.size(); ++d)
      lin += (getStarts()[d] + idx[d] * getSteps()[d]) * strides[d];
    return lin;
  });
}

OpFoldResult ConcatOp::fold(FoldAdaptor adaptor) {
  if (getInputs().size() == 1 && getInputs()[0].getType() == getType())
    return getInputs()[0];
  if (getType().getNumElements() > kFoldLimit)
    return {};
  SmallVector<SmallVector<Attribute>> parts;
  for (Attribute a : adaptor.getInputs()) {
    auto d = dyn_cast_or_null<DenseElementsAttr>(a);
    if (!d)
      return {};
    parts.emplace_back(d.getValues<Attribute>());
  }
  int64_t axis = getAxis();
  SmallVector<Attribute> out(getType().getNumElements());
  forEachIndex(getType().getShape(), [&](int64_t lin, ArrayRef<int64_t> idx) {
    int64_t pos = idx[axis];
    for (auto [k, v] : llvm::enumerate(getInputs())) {
      ArrayRef<int64_t> shape = cast<RankedTensorType>(v.getType()).getShape();
      if (pos >= shape[axis]) {
        pos -= shape[axis];
        continue;
      }
      SmallVector<int64_t> local(idx);
      local[axis] = pos;
      int64_t l = 0;
      for (size_t d = 0; d < shape.size(); ++d)
        l = l * shape[d] + local[d];
      out[lin] = parts[k][l];
      break;
    }
  });
  return DenseElementsAttr::get(getType(), out);
}

OpFoldResult GatherOp::fold(FoldAdaptor adaptor) {
  auto data = dyn_cast_or_null<DenseElementsAttr>(adaptor.getData());
  std::optional<Literal> idx = unpack(adaptor.getIndices());
  if (!data || !idx)
    return {};
  ArrayRef<int64_t> dShape = cast<RankedTensorType>(data.getType()).getShape();
  int64_t axis = getAxis(), dim = dShape[axis];
  if (llvm::any_of(idx->i, [&](int64_t v) { return v < -dim || v >= dim; }))
    return {}; // out of range: leave it for the run-time error
  int64_t idxRank = idx->type.getRank();
  SmallVector<int64_t> idxStrides = rowMajorStrides(idx->type.getShape());
  SmallVector<int64_t> dStrides = rowMajorStrides(dShape);
  return permuteElements(data, getType(), [&](ArrayRef<int64_t> out) {
    int64_t k = 0;
    for (int64_t d = 0; d < idxRank; ++d)
      k += out[axis + d] * idxStrides[d];
    int64_t at = idx->i[k] < 0 ? idx->i[k] + dim : idx->i[k];
    int64_t lin = at * dStrides[axis];
    for (int64_t d = 0; d < axis; ++d)
      lin += out[d] * dStrides[d];
    for (int64_t d = axis + 1; d < (int64_t)dShape.size(); ++d)
      lin += out[d + idxRank - 1] * dStrides[d];
    return lin;
  });
}
