//===- BWCOps.cpp - bwc op verifiers --------------------------------------===//
//
// Verifiers for the shape, axis and type rules that ODS cannot express.
// Folders live in BWCFolders.cpp.
//
//===----------------------------------------------------------------------===//
#include "bwc/Dialect/BWC/IR/BWCOps.h"
#include "bwc/Dialect/BWC/Utils/ShapeUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::bwc;

#include "bwc/Dialect/BWC/IR/BWCEnums.cpp.inc"

#define GET_OP_CLASSES
#include "bwc/Dialect/BWC/IR/BWCOps.cpp.inc"

namespace {

RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

/// Prints a shape as `4x8` (or `scalar`) for diagnostics.
std::string shapeStr(ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "scalar";
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleave(shape, os, "x");
  return s;
}

LogicalResult verifyBroadcastResult(Operation *op, ArrayRef<Value> operands,
                                    RankedTensorType result) {
  SmallVector<int64_t> shape;
  for (Value v : operands) {
    std::optional<SmallVector<int64_t>> b =
        broadcastShapes(shape, tensorType(v).getShape());
    if (!b)
      return op->emitOpError()
             << "expects operands that broadcast but got shapes "
             << shapeStr(shape) << " and "
             << shapeStr(tensorType(v).getShape());
    shape = *b;
  }
  if (ArrayRef<int64_t>(shape) != result.getShape())
    return op->emitOpError() << "expects result shape " << shapeStr(shape)
                             << " but got " << shapeStr(result.getShape());
  return success();
}

} // namespace

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

LogicalResult UnaryOp::verify() {
  auto in = tensorType(getInput());
  auto out = getResult().getType();
  if (in != out)
    return emitOpError() << "expects result type " << in << " but got " << out;
  Type elt = in.getElementType();
  switch (getFn()) {
  case UnaryFn::abs:
  case UnaryFn::neg:
  case UnaryFn::sign:
  case UnaryFn::relu:
    if (elt.isInteger(1))
      return emitOpError() << "expects a numeric operand but got " << elt;
    return success();
  case UnaryFn::not_:
    if (!elt.isInteger(1))
      return emitOpError() << "expects an i1 operand for 'not' but got " << elt;
    return success();
  default:
    if (!isa<FloatType>(elt))
      return emitOpError() << "expects a float operand for '"
                           << stringifyUnaryFn(getFn()) << "' but got " << elt;
    return success();
  }
}

bool BinaryOp::isComparison() {
  switch (getFn()) {
  case BinaryFn::eq:
  case BinaryFn::lt:
  case BinaryFn::gt:
  case BinaryFn::le:
  case BinaryFn::ge:
    return true;
  default:
    return false;
  }
}

LogicalResult BinaryOp::verify() {
  Type lhsElt = tensorType(getLhs()).getElementType();
  Type rhsElt = tensorType(getRhs()).getElementType();
  Type outElt = getResult().getType().getElementType();
  if (lhsElt != rhsElt)
    return emitOpError() << "expects operands of one element type but got "
                         << lhsElt << " and " << rhsElt;
  Type wantOut = isComparison() ? Type(IntegerType::get(getContext(), 1)) : lhsElt;
  if (outElt != wantOut)
    return emitOpError() << "expects result element type " << wantOut
                         << " but got " << outElt;
  bool logical = getFn() == BinaryFn::and_ || getFn() == BinaryFn::or_ ||
                 getFn() == BinaryFn::xor_;
  // and/or/xor: logical on i1, bitwise on wider integers (the random
  // ops' generator); i1 operands take nothing else.
  if (logical ? !isa<IntegerType>(lhsElt) : lhsElt.isInteger(1))
    return emitOpError() << "expects integer operands for and/or/xor (and "
                            "i1 operands only for them) but got "
                         << lhsElt << " for '" << stringifyBinaryFn(getFn())
                         << "'";
  if (getFn() == BinaryFn::fmod && !isa<FloatType>(lhsElt))
    return emitOpError() << "expects float operands for 'fmod' but got "
                         << lhsElt;
  if ((getFn() == BinaryFn::shl || getFn() == BinaryFn::shr) &&
      (!isa<IntegerType>(lhsElt) || lhsElt.isInteger(1)))
    return emitOpError() << "expects integer operands for '"
                         << stringifyBinaryFn(getFn()) << "' but got "
                         << lhsElt;
  return verifyBroadcastResult(*this, {getLhs(), getRhs()},
                               getResult().getType());
}

LogicalResult SelectOp::verify() {
  Type t = tensorType(getOnTrue()).getElementType();
  Type f = tensorType(getOnFalse()).getElementType();
  Type out = getResult().getType().getElementType();
  if (t != f || t != out)
    return emitOpError() << "expects branches and result of one element type "
                            "but got "
                         << t << ", " << f << " and " << out;
  return verifyBroadcastResult(*this, {getCond(), getOnTrue(), getOnFalse()},
                               getResult().getType());
}

LogicalResult CastOp::verify() {
  auto in = tensorType(getInput());
  auto out = getResult().getType();
  if (in.getShape() != out.getShape())
    return emitOpError() << "expects result shape " << shapeStr(in.getShape())
                         << " but got " << shapeStr(out.getShape());
  return success();
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

LogicalResult ReduceOp::verify() {
  auto in = tensorType(getInput());
  ArrayRef<int64_t> axes = getAxes();
  for (size_t i = 0; i < axes.size(); ++i) {
    if (axes[i] < 0 || axes[i] >= in.getRank())
      return emitOpError() << "expects axes in [0, " << in.getRank()
                           << ") but got " << axes[i];
    if (i > 0 && axes[i] <= axes[i - 1])
      return emitOpError() << "expects sorted unique axes";
  }
  if (in.getElementType() != getResult().getType().getElementType())
    return emitOpError() << "expects result element type "
                         << in.getElementType() << " but got "
                         << getResult().getType().getElementType();
  SmallVector<int64_t> want = reducedShape(in.getShape(), axes, getKeepdims());
  if (ArrayRef<int64_t>(want) != getResult().getType().getShape())
    return emitOpError() << "expects result shape " << shapeStr(want)
                         << " but got "
                         << shapeStr(getResult().getType().getShape());
  return success();
}

LogicalResult ArgReduceOp::verify() {
  auto in = tensorType(getInput());
  int64_t axis = getAxis();
  if (axis < 0 || axis >= in.getRank())
    return emitOpError() << "expects axis in [0, " << in.getRank()
                         << ") but got " << axis;
  SmallVector<int64_t> want = reducedShape(in.getShape(), {axis}, getKeepdims());
  if (ArrayRef<int64_t>(want) != getResult().getType().getShape())
    return emitOpError() << "expects result shape " << shapeStr(want)
                         << " but got "
                         << shapeStr(getResult().getType().getShape());
  return success();
}

//===----------------------------------------------------------------------===//
// Contraction, convolution, pooling
//===----------------------------------------------------------------------===//

/// An `acc_type` must be a float type: the element type, or a wider one.
static LogicalResult verifyAccType(Operation *op, TypeAttr acc, Type elt) {
  if (!acc)
    return success();
  auto a = dyn_cast<FloatType>(acc.getValue());
  auto e = dyn_cast<FloatType>(elt);
  if (!a || !e || (a != e && a.getWidth() <= e.getWidth()))
    return op->emitOpError() << "expects acc_type to be " << elt
                             << " or a wider float type but got "
                             << acc.getValue();
  return success();
}

LogicalResult MatmulOp::verify() {
  auto lhs = tensorType(getLhs());
  auto rhs = tensorType(getRhs());
  auto out = getResult().getType();
  if (lhs.getRank() < 2 || rhs.getRank() < 2)
    return emitOpError() << "expects operands of rank >= 2 but got ranks "
                         << lhs.getRank() << " and " << rhs.getRank();
  if (lhs.getElementType() != rhs.getElementType() ||
      lhs.getElementType() != out.getElementType())
    return emitOpError() << "expects one element type but got "
                         << lhs.getElementType() << ", "
                         << rhs.getElementType() << " and "
                         << out.getElementType();
  int64_t k = lhs.getShape().back();
  int64_t k2 = rhs.getShape()[rhs.getRank() - 2];
  if (k != k2)
    return emitOpError() << "expects contraction sizes to match but got " << k
                         << " and " << k2;
  std::optional<SmallVector<int64_t>> batch = broadcastShapes(
      lhs.getShape().drop_back(2), rhs.getShape().drop_back(2));
  if (!batch)
    return emitOpError() << "expects batch dims that broadcast";
  SmallVector<int64_t> want = *batch;
  want.push_back(lhs.getShape()[lhs.getRank() - 2]);
  want.push_back(rhs.getShape().back());
  if (ArrayRef<int64_t>(want) != out.getShape())
    return emitOpError() << "expects result shape " << shapeStr(want)
                         << " but got " << shapeStr(out.getShape());
  return verifyAccType(*this, getAccTypeAttr(), out.getElementType());
}

SmallVector<int64_t> ConvOp::getDataPerm() {
  int64_t rank = tensorType(getInput()).getRank();
  return getChannelsLast() ? channelsLastPerm(rank) : identityPerm(rank);
}

SmallVector<int64_t> ConvOp::getFilterPerm() {
  int64_t rank = tensorType(getFilter()).getRank();
  return getChannelsLast() ? channelsLastFilterPerm(rank) : identityPerm(rank);
}

SmallVector<int64_t> ConvOp::getLogicalInputShape() {
  return unpermute(tensorType(getInput()).getShape(), getDataPerm());
}

SmallVector<int64_t> ConvOp::getLogicalFilterShape() {
  return unpermute(tensorType(getFilter()).getShape(), getFilterPerm());
}

SmallVector<int64_t> ConvOp::getLogicalResultShape() {
  return unpermute(getResult().getType().getShape(), getDataPerm());
}

SmallVector<int64_t> PoolOp::getDataPerm() {
  int64_t rank = tensorType(getInput()).getRank();
  return getChannelsLast() ? channelsLastPerm(rank) : identityPerm(rank);
}

SmallVector<int64_t> PoolOp::getLogicalInputShape() {
  return unpermute(tensorType(getInput()).getShape(), getDataPerm());
}

SmallVector<int64_t> PoolOp::getLogicalResultShape() {
  return unpermute(getResult().getType().getShape(), getDataPerm());
}

LogicalResult ConvOp::verify() {
  auto inType = tensorType(getInput());
  auto wType = tensorType(getFilter());
  auto outType = getResult().getType();
  if (inType.getRank() < 3)
    return emitOpError() << "expects input of rank >= 3 but got "
                         << inType.getRank();
  if (wType.getRank() != inType.getRank())
    return emitOpError() << "expects filter of rank " << inType.getRank()
                         << " but got " << wType.getRank();
  if (outType.getRank() != inType.getRank())
    return emitOpError() << "expects result of rank " << inType.getRank()
                         << " but got " << outType.getRank();
  // The formulas below are written channels-first; a channels_last op is
  // checked on its logical shapes and reported in its physical order.
  SmallVector<int64_t> dataPerm = getDataPerm();
  auto in = RankedTensorType::get(getLogicalInputShape(),
                                  inType.getElementType());
  auto w = RankedTensorType::get(getLogicalFilterShape(),
                                 wType.getElementType());
  int64_t spatial = in.getRank() - 2;
  if ((int64_t)getStrides().size() != spatial ||
      (int64_t)getDilations().size() != spatial ||
      (int64_t)getPads().size() != 2 * spatial)
    return emitOpError() << "expects " << spatial << " strides, " << spatial
                         << " dilations and " << 2 * spatial << " pads";
  if (llvm::any_of(getStrides(), [](int64_t s) { return s <= 0; }) ||
      llvm::any_of(getDilations(), [](int64_t d) { return d <= 0; }) ||
      llvm::any_of(getPads(), [](int64_t p) { return p < 0; }))
    return emitOpError()
           << "expects positive strides and dilations and non-negative pads";
  int64_t groups = getGroups();
  int64_t c = in.getShape()[1];
  if (groups <= 0 || c % groups != 0)
    return emitOpError() << "expects groups dividing the " << c
                         << " input channels but got " << groups;
  int64_t f;
  if (getTransposed()) {
    if (w.getShape()[0] != c)
      return emitOpError() << "expects filter dim 0 = " << c << " but got "
                           << w.getShape()[0];
    f = w.getShape()[1] * groups;
  } else {
    if (w.getShape()[1] * groups != c)
      return emitOpError() << "expects filter dim 1 = " << c / groups
                           << " but got " << w.getShape()[1];
    f = w.getShape()[0];
    if (f % groups != 0)
      return emitOpError() << "expects output channels divisible by groups";
    if (getOutputPadding())
      return emitOpError() << "expects output_padding only when transposed";
  }
  if (getBias()) {
    auto b = tensorType(getBias());
    if (b.getRank() != 1 || b.getShape()[0] != f)
      return emitOpError() << "expects bias of shape " << f << " but got "
                           << shapeStr(b.getShape());
  }
  SmallVector<int64_t> want = {in.getShape()[0], f};
  for (int64_t i = 0; i < spatial; ++i) {
    int64_t k = w.getShape()[2 + i];
    int64_t pb = getPads()[i], pe = getPads()[spatial + i];
    if (getTransposed()) {
      int64_t op = getOutputPadding() ? (*getOutputPadding())[i] : 0;
      std::optional<int64_t> d = transposedConvOutputSize(
          in.getShape()[2 + i], k, getStrides()[i], getDilations()[i], pb, pe,
          op);
      if (!d)
        return emitOpError() << "expects the output size of spatial dim " << i
                             << " to fit in int64";
      want.push_back(*d);
    } else {
      std::optional<int64_t> d =
          windowOutputSize(in.getShape()[2 + i], k, getStrides()[i],
                           getDilations()[i], pb, pe, /*ceilMode=*/false);
      if (!d)
        return emitOpError() << "expects the filter window to fit spatial dim "
                             << i;
      want.push_back(*d);
    }
  }
  want = permute(want, dataPerm);
  if (ArrayRef<int64_t>(want) != outType.getShape())
    return emitOpError() << "expects result shape " << shapeStr(want)
                         << " but got " << shapeStr(outType.getShape());
  return verifyAccType(*this, getAccTypeAttr(), outType.getElementType());
}

LogicalResult PoolOp::verify() {
  auto inType = tensorType(getInput());
  auto out = getResult().getType();
  if (inType.getRank() < 3)
    return emitOpError() << "expects input of rank >= 3 but got "
                         << inType.getRank();
  if (out.getRank() != inType.getRank())
    return emitOpError() << "expects result of rank " << inType.getRank()
                         << " but got " << out.getRank();
  SmallVector<int64_t> dataPerm = getDataPerm();
  auto in = RankedTensorType::get(getLogicalInputShape(),
                                  inType.getElementType());
  int64_t spatial = in.getRank() - 2;
  if ((int64_t)getKernel().size() != spatial ||
      (int64_t)getStrides().size() != spatial ||
      (int64_t)getDilations().size() != spatial ||
      (int64_t)getPads().size() != 2 * spatial)
    return emitOpError() << "expects " << spatial
                         << " kernel sizes, strides, dilations and "
                         << 2 * spatial << " pads";
  SmallVector<int64_t> want = {in.getShape()[0], in.getShape()[1]};
  for (int64_t i = 0; i < spatial; ++i) {
    if (getKernel()[i] <= 0 || getStrides()[i] <= 0 || getDilations()[i] <= 0)
      return emitOpError() << "expects positive kernel, strides and dilations";
    std::optional<int64_t> d = windowOutputSize(
        in.getShape()[2 + i], getKernel()[i], getStrides()[i],
        getDilations()[i], getPads()[i], getPads()[spatial + i], getCeilMode());
    if (!d)
      return emitOpError() << "expects the window to fit spatial dim " << i;
    want.push_back(*d);
  }
  want = permute(want, dataPerm);
  if (ArrayRef<int64_t>(want) != out.getShape())
    return emitOpError() << "expects result shape " << shapeStr(want)
                         << " but got " << shapeStr(out.getShape());
  if (in.getElementType() != out.getElementType())
    return emitOpError() << "expects result element type "
                         << in.getElementType();
  return verifyAccType(*this, getAccTypeAttr(), out.getElementType());
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

static LogicalResult verifySameElementType(Operation *op, Type in, Type out) {
  Type a = cast<ShapedType>(in).getElementType();
  Type b = cast<ShapedType>(out).getElementType();
  if (a != b)
    return op->emitOpError() << "expects result element type " << a
                             << " but got " << b;
  return success();
}

LogicalResult TransposeOp::verify() {
  auto in = tensorType(getInput());
  ArrayRef<int64_t> perm = getPerm();
  if ((int64_t)perm.size() != in.getRank())
    return emitOpError() << "expects a permutation of " << in.getRank()
                         << " dims but got " << perm.size();
  SmallVector<bool> seen(perm.size(), false);
  SmallVector<int64_t> want;
  for (int64_t p : perm) {
    if (p < 0 || p >= in.getRank() || seen[p])
      return emitOpError() << "expects a permutation but got dim " << p;
    seen[p] = true;
    want.push_back(in.getShape()[p]);
  }
  if (ArrayRef<int64_t>(want) != getResult().getType().getShape())
    return emitOpError() << "expects result shape " << shapeStr(want)
                         << " but got "
                         << shapeStr(getResult().getType().getShape());
  return verifySameElementType(*this, in, getResult().getType());
}

LogicalResult ReshapeOp::verify() {
  auto in = tensorType(getInput());
  auto out = getResult().getType();
  if (in.getNumElements() != out.getNumElements())
    return emitOpError() << "expects the same number of elements but got "
                         << in.getNumElements() << " and "
                         << out.getNumElements();
  return verifySameElementType(*this, in, out);
}

LogicalResult BroadcastOp::verify() {
  auto in = tensorType(getInput());
  auto out = getResult().getType();
  if (!broadcastsTo(in.getShape(), out.getShape()))
    return emitOpError() << "expects input shape " << shapeStr(in.getShape())
                         << " to broadcast to " << shapeStr(out.getShape());
  return verifySameElementType(*this, in, out);
}

LogicalResult SliceOp::verify() {
  auto in = tensorType(getInput());
  auto out = getResult().getType();
  if ((int64_t)getStarts().size() != in.getRank() ||
      (int64_t)getSteps().size() != in.getRank() ||
      out.getRank() != in.getRank())
    return emitOpError() << "expects starts, steps and result of rank "
                         << in.getRank();
  for (int64_t i = 0; i < in.getRank(); ++i) {
    int64_t start = getStarts()[i], step = getSteps()[i];
    int64_t size = out.getShape()[i], dim = in.getShape()[i];
    if (step == 0)
      return emitOpError() << "expects non-zero steps";
    if (size == 0)
      continue;
    int64_t last = start + (size - 1) * step;
    if (start < 0 || start >= dim || last < 0 || last >= dim)
      return emitOpError() << "expects dim " << i << " indices [" << start
                           << ", " << last << "] inside [0, " << dim << ")";
  }
  return verifySameElementType(*this, in, out);
}

LogicalResult ConcatOp::verify() {
  if (getInputs().empty())
    return emitOpError() << "expects at least one input";
  auto out = getResult().getType();
  int64_t axis = getAxis();
  if (axis < 0 || axis >= out.getRank())
    return emitOpError() << "expects axis in [0, " << out.getRank()
                         << ") but got " << axis;
  int64_t total = 0;
  for (Value v : getInputs()) {
    auto t = tensorType(v);
    if (t.getRank() != out.getRank())
      return emitOpError() << "expects inputs of rank " << out.getRank();
    for (int64_t i = 0; i < t.getRank(); ++i)
      if (i != axis && t.getShape()[i] != out.getShape()[i])
        return emitOpError() << "expects input dim " << i << " = "
                             << out.getShape()[i] << " but got "
                             << t.getShape()[i];
    total += t.getShape()[axis];
    if (failed(verifySameElementType(*this, t, out)))
      return failure();
  }
  if (total != out.getShape()[axis])
    return emitOpError() << "expects result dim " << axis << " = " << total
                         << " but got " << out.getShape()[axis];
  return success();
}

LogicalResult PadOp::verify() {
  auto in = tensorType(getInput());
  auto out = getResult().getType();
  ArrayRef<int64_t> pads = getPads();
  if ((int64_t)pads.size() != 2 * in.getRank())
    return emitOpError() << "expects " << 2 * in.getRank() << " pads but got "
                         << pads.size();
  SmallVector<int64_t> want;
  for (int64_t i = 0; i < in.getRank(); ++i) {
    int64_t lo = pads[i], hi = pads[in.getRank() + i];
    if (lo < 0 || hi < 0)
      return emitOpError() << "expects non-negative pads";
    if (getMode() == PadMode::reflect &&
        (lo >= in.getShape()[i] || hi >= in.getShape()[i]))
      return emitOpError() << "expects reflect pads smaller than dim " << i;
    if (getMode() == PadMode::edge && in.getShape()[i] == 0 && (lo || hi))
      return emitOpError() << "expects a non-empty dim " << i
                           << " for edge padding";
    want.push_back(in.getShape()[i] + lo + hi);
  }
  if (ArrayRef<int64_t>(want) != out.getShape())
    return emitOpError() << "expects result shape " << shapeStr(want)
                         << " but got " << shapeStr(out.getShape());
  if (getValue().getType() != in.getElementType())
    return emitOpError() << "expects a pad value of type "
                         << in.getElementType() << " but got "
                         << getValue().getType();
  return verifySameElementType(*this, in, out);
}

LogicalResult GatherOp::verify() {
  auto data = tensorType(getData());
  auto idx = tensorType(getIndices());
  int64_t axis = getAxis();
  if (axis < 0 || axis >= data.getRank())
    return emitOpError() << "expects axis in [0, " << data.getRank()
                         << ") but got " << axis;
  SmallVector<int64_t> want(data.getShape().take_front(axis));
  llvm::append_range(want, idx.getShape());
  llvm::append_range(want, data.getShape().drop_front(axis + 1));
  if (ArrayRef<int64_t>(want) != getResult().getType().getShape())
    return emitOpError() << "expects result shape " << shapeStr(want)
                         << " but got "
                         << shapeStr(getResult().getType().getShape());
  return verifySameElementType(*this, data, getResult().getType());
}

LogicalResult ResizeOp::verify() {
  auto in = tensorType(getInput());
  auto out = getResult().getType();
  if (out.getRank() != in.getRank() ||
      (int64_t)getScales().size() != in.getRank())
    return emitOpError() << "expects result and scales of rank "
                         << in.getRank();
  if (llvm::any_of(getScales(), [](double s) { return !(s > 0.0); }))
    return emitOpError() << "expects positive scales";
  if (in.getElementType().isInteger(1))
    return emitOpError() << "expects a numeric input but got i1";
  if ((getCubicCoeffA() || getExcludeOutside()) && getMode() != ResizeMode::cubic)
    return emitOpError()
           << "expects cubic_coeff_a and exclude_outside only in cubic mode";
  return verifySameElementType(*this, in, out);
}

//===----------------------------------------------------------------------===//
// Fusion
//===----------------------------------------------------------------------===//

LogicalResult FusionOp::verify() {
  Block &body = getBody().front();
  if (body.getNumArguments() != getInputs().size())
    return emitOpError() << "expects " << getInputs().size()
                         << " block arguments but got "
                         << body.getNumArguments();
  for (auto [arg, in] : llvm::zip(body.getArguments(), getInputs()))
    if (arg.getType() != in.getType())
      return emitOpError() << "expects block argument types to match inputs "
                              "but got "
                           << arg.getType() << " for " << in.getType();
  auto yield = cast<YieldOp>(body.getTerminator());
  if (yield.getValues().getTypes() != getResultTypes())
    return emitOpError() << "expects the yielded types to match the results";
  for (Operation &op : body.without_terminator())
    if (!isa<BWCDialect>(op.getDialect()) || isa<FusionOp>(op))
      return emitOpError() << "expects only bwc compute ops inside but got '"
                           << op.getName() << "'";
  return success();
}
