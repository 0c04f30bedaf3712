//===- ContractionEmitter.cpp - Elements of matmul, conv and pool ---------===//
//
// One output element is a sequential scf.for nest over the reduced
// positions, summed in ElementalEmitter::accumulatorType (the op's
// `acc_type`, else f32 for f16/bf16) and rounded once at the end.
//   matmul: batch dims broadcast (numpy), a loop over K;
//   conv:   a loop over the group's channels and the window; a tap in the
//           padding reads a clamped (in-bounds) position and contributes 0
//           through a select, so no load leaves the input; transposed
//           convolutions gather: input position i feeds output o when
//           o + pad - k * d = i * s, checked per tap; the bias is added in
//           the accumulator type;
//   pool:   max ignores padded taps (the linalg lowering pads with -inf,
//           the same result); avg sums the in-bounds taps and divides by
//           the taps inside [-pad_begin, in + pad_end) (count_include_pad)
//           or inside the input, so ceil_mode's extra taps never count.
// A `channels_last` conv or pool computes in logical (channels-first)
// indices and permutes them at each load; its conv loop nest puts the
// channel loop innermost (window outer), the contiguous dim of NHWC data.
//
//===----------------------------------------------------------------------===//
#include "Emitters.h"

#include "bwc/Target/Elemental/GemmEmit.h"
#include "bwc/Conversion/BWCToLinalg/ScalarOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::bwc;
using namespace mlir::bwc::elemental;

namespace {

using Loops = FailureOr<SmallVector<Value>>;
using P = arith::CmpIPredicate;

Value addI(OpBuilder &b, Location loc, Value x, Value y) {
  return b.createOrFold<arith::AddIOp>(loc, x, y);
}
Value mulC(OpBuilder &b, Location loc, Value x, int64_t c) {
  return b.createOrFold<arith::MulIOp>(loc, x, indexConst(b, loc, c));
}
Value addC(OpBuilder &b, Location loc, Value x, int64_t c) {
  return b.createOrFold<arith::AddIOp>(loc, x, indexConst(b, loc, c));
}
/// 0 <= x < n, as one unsigned compare.
Value inRange(OpBuilder &b, Location loc, Value x, int64_t n) {
  return arith::CmpIOp::create(b, loc, P::ult, x, indexConst(b, loc, n));
}
Value andI(OpBuilder &b, Location loc, Value x, Value y) {
  if (!x)
    return y;
  return arith::AndIOp::create(b, loc, x, y);
}

FailureOr<Value> matmul(ElementalEmitter &e, OpBuilder &b, Location loc,
                        MatmulOp op, ValueRange index) {
  ArrayRef<int64_t> out = op.getType().getShape();
  int64_t batch = out.size() - 2;
  Type elt = op.getType().getElementType();
  Type acc = ElementalEmitter::accumulatorType(op, elt);
  Type accElt = isa<FloatType>(acc) ? acc : elt;
  int64_t k = shapeOf(op.getLhs()).back();
  auto operandIndex = [&](Value v, Value row, Value col) {
    ArrayRef<int64_t> shape = shapeOf(v);
    SmallVector<Value> idx = broadcastIndex(
        b, loc, index.take_front(batch), out.take_front(batch),
        shape.drop_back(2));
    idx.push_back(row);
    idx.push_back(col);
    return idx;
  };
  Value init = arith::ConstantOp::create(
      b, loc, cast<TypedAttr>(b.getZeroAttr(acc)));
  Loops r = buildLoops(
      b, loc, {k}, init,
      [&](OpBuilder &nb, Location l, ValueRange ivs, ValueRange it) -> Loops {
        FailureOr<Value> x =
            e.emit(nb, l, op.getLhs(), operandIndex(op.getLhs(), index[batch], ivs[0]));
        if (failed(x))
          return failure();
        FailureOr<Value> y = e.emit(
            nb, l, op.getRhs(), operandIndex(op.getRhs(), ivs[0], index[batch + 1]));
        if (failed(y))
          return failure();
        Value p = lowering::emitBinary(
            nb, l, BinaryFn::mul, lowering::emitCast(nb, l, *x, elt, acc),
            lowering::emitCast(nb, l, *y, elt, acc), accElt);
        return SmallVector<Value>{
            lowering::emitBinary(nb, l, BinaryFn::add, it[0], p, accElt)};
      });
  if (failed(r))
    return failure();
  return lowering::emitCast(b, loc, (*r)[0], acc, elt);
}

/// `idx` (logical, channels-first) in the physical order `perm` stores.
SmallVector<Value> physicalIndex(ArrayRef<Value> idx, ArrayRef<int64_t> perm) {
  SmallVector<Value> out;
  for (int64_t p : perm)
    out.push_back(idx[p]);
  return out;
}

/// The logical (channels-first) index of physical `index` under `perm`.
SmallVector<Value> logicalIndex(ValueRange index, ArrayRef<int64_t> perm) {
  SmallVector<Value> out(index.size());
  for (auto [i, p] : llvm::enumerate(perm))
    out[p] = index[i];
  return out;
}

/// The CPU check of GemmView: the conv element at `physical` as the sum
/// over k of the view's A(m, k) * B(k, n) at the view index gemmIndex
/// gives, plus the bias; NaN unless resultIndex maps that view index back
/// to `physical` (so the check covers both directions of the mapping).
FailureOr<Value> convViaGemm(ElementalEmitter &e, OpBuilder &b, Location loc,
                             ConvOp op, const GemmView &view,
                             ValueRange physical) {
  IRArith ar{b, loc};
  SmallVector<Value> phys(physical);
  SmallVector<Value> g = view.gemmIndex(ar, phys);
  Value batch = g[0], m = g[1], n = g[2];
  Type elt = op.getType().getElementType();
  Type acc = ElementalEmitter::accumulatorType(op, elt);
  Value init = arith::ConstantOp::create(
      b, loc, cast<TypedAttr>(b.getZeroAttr(acc)));
  Loops r = buildLoops(
      b, loc, {view.k}, init,
      [&](OpBuilder &nb, Location l, ValueRange ivs, ValueRange it) -> Loops {
        FailureOr<Value> x =
            emitGemmOperand(e, nb, l, view, /*isA=*/true, batch, m, ivs[0]);
        if (failed(x))
          return failure();
        FailureOr<Value> y =
            emitGemmOperand(e, nb, l, view, /*isA=*/false, batch, ivs[0], n);
        if (failed(y))
          return failure();
        Value p = arith::MulFOp::create(
            nb, l, lowering::emitCast(nb, l, *x, elementOf(view.aTensor()), acc),
            lowering::emitCast(nb, l, *y, elementOf(view.bTensor()), acc));
        return SmallVector<Value>{arith::AddFOp::create(nb, l, it[0], p)};
      });
  if (failed(r))
    return failure();
  FailureOr<Value> v = emitGemmResult(e, b, loc, view, (*r)[0], batch, m, n);
  if (failed(v))
    return failure();
  Value same;
  for (auto [got, want] :
       llvm::zip(view.resultIndex(ar, ArrayRef<Value>{batch}, m, n), phys))
    same = andI(b, loc, same,
                arith::CmpIOp::create(b, loc, P::eq, got, want));
  Value nan = arith::ConstantOp::create(
      b, loc, b.getFloatAttr(v->getType(), APFloat::getNaN(
                                               cast<FloatType>(v->getType())
                                                   .getFloatSemantics())));
  return arith::SelectOp::create(b, loc, same, *v, nan).getResult();
}

/// Outputs `physicals` of `op` in one loop nest with one accumulator each
/// (the nest, the group's channels and the window, is the same for every
/// output): a single element, or a group of consecutive channels whose
/// taps' loads then sit side by side (ElementalEmitter::emitGroup).
FailureOr<SmallVector<Value>> convGroup(ElementalEmitter &e, OpBuilder &b,
                                        Location loc, ConvOp op,
                                        ArrayRef<SmallVector<Value>> physicals) {
  // Formulas in logical (channels-first) order; a channels_last op maps its
  // indices through getDataPerm/getFilterPerm at the loads.
  SmallVector<int64_t> in = op.getLogicalInputShape(),
                       w = op.getLogicalFilterShape();
  SmallVector<int64_t> dataPerm = op.getDataPerm(),
                       filterPerm = op.getFilterPerm();
  bool channelsLast = op.getChannelsLast();
  int64_t spatial = in.size() - 2, groups = op.getGroups();
  ArrayRef<int64_t> strides = op.getStrides(), dilations = op.getDilations(),
                    padsLo = op.getPads().take_front(spatial);
  bool transposed = op.getTransposed();
  // Direct: w [F, Cg, K...]. Transposed: w [C, Fg, K...].
  int64_t cg = transposed ? w[0] / groups : w[1];
  int64_t fg = transposed ? w[1] : w[0] / groups;
  Type elt = op.getType().getElementType();
  Type acc = ElementalEmitter::accumulatorType(op, elt);
  // Per output: its logical index, filter (output channel) f, f within
  // its group, and the group's first input channel.
  struct Output {
    SmallVector<Value> index;
    Value f, fInGroup, channelBase;
  };
  SmallVector<Output> outs;
  for (const SmallVector<Value> &physical : physicals) {
    Output &o = outs.emplace_back();
    o.index = logicalIndex(physical, dataPerm);
    o.f = o.index[1];
    Value fgC = indexConst(b, loc, fg);
    Value group = groups == 1 ? indexConst(b, loc, 0)
                              : b.createOrFold<arith::DivUIOp>(loc, o.f, fgC);
    o.fInGroup =
        groups == 1 ? o.f : b.createOrFold<arith::RemUIOp>(loc, o.f, fgC);
    o.channelBase = mulC(b, loc, group, cg);
  }

  // Channels-first: channel loop outermost, then the window. Channels-last:
  // the window outermost and the channel loop innermost, so consecutive
  // iterations read consecutive input (and filter) addresses.
  // One channel per group (depthwise) is no loop: a channel index of 0
  // leaves the input index a sum of the group's terms, whose alignment
  // bwc-vectorize-gpu-loads sees.
  bool channelLoop = cg != 1;
  SmallVector<int64_t> sizes;
  if (!channelsLast && channelLoop)
    sizes.push_back(cg);
  sizes.append(w.begin() + 2, w.end());
  if (channelsLast && channelLoop)
    sizes.push_back(cg);
  int64_t channelIv = channelsLast ? spatial : 0;
  int64_t firstTapIv = channelsLast || !channelLoop ? 0 : 1;
  Value init = arith::ConstantOp::create(
      b, loc, cast<TypedAttr>(b.getZeroAttr(acc)));
  Loops r = buildLoops(
      b, loc, sizes, SmallVector<Value>(outs.size(), init),
      [&](OpBuilder &nb, Location l, ValueRange ivs, ValueRange it) -> Loops {
        SmallVector<Value> sums;
        Value channel =
            channelLoop ? ivs[channelIv] : indexConst(nb, l, 0);
        for (auto [o, carried] : llvm::zip(outs, it)) {
          Value c = addI(nb, l, o.channelBase, channel);
          SmallVector<Value> inIdx = {o.index[0], c}, wIdx;
          if (transposed)
            wIdx = {c, o.fInGroup};
          else
            wIdx = {o.f, channel};
          Value valid;
          for (int64_t s = 0; s < spatial; ++s) {
            Value out = o.index[2 + s], tap = ivs[firstTapIv + s];
            wIdx.push_back(tap);
            // Direct: i = o * s + k * d - pad. Transposed: i * s = o + pad - k * d.
            Value pos;
            if (!transposed) {
              pos = addI(nb, l, mulC(nb, l, out, strides[s]),
                         mulC(nb, l, tap, dilations[s]));
              pos = addC(nb, l, pos, -padsLo[s]);
            } else {
              Value num = addC(nb, l, out, padsLo[s]);
              num = arith::SubIOp::create(nb, l, num,
                                          mulC(nb, l, tap, dilations[s]));
              if (strides[s] != 1) {
                Value st = indexConst(nb, l, strides[s]);
                Value rem = arith::RemSIOp::create(nb, l, num, st);
                valid = andI(nb, l, valid,
                             arith::CmpIOp::create(nb, l, P::eq, rem,
                                                   indexConst(nb, l, 0)));
                num = arith::DivSIOp::create(nb, l, num, st);
              }
              pos = num;
            }
            valid = andI(nb, l, valid, inRange(nb, l, pos, in[2 + s]));
            inIdx.push_back(clampIndex(nb, l, pos, 0, in[2 + s] - 1));
          }
          FailureOr<Value> x =
              e.emit(nb, l, op.getInput(), physicalIndex(inIdx, dataPerm));
          if (failed(x))
            return failure();
          FailureOr<Value> y =
              e.emit(nb, l, op.getFilter(), physicalIndex(wIdx, filterPerm));
          if (failed(y))
            return failure();
          Value p = arith::MulFOp::create(
              nb, l, lowering::emitCast(nb, l, *x, elt, acc),
              lowering::emitCast(nb, l, *y, elt, acc));
          Value sum = arith::AddFOp::create(nb, l, carried, p);
          if (valid)
            sum = arith::SelectOp::create(nb, l, valid, sum, carried);
          sums.push_back(sum);
        }
        return sums;
      });
  if (failed(r))
    return failure();
  SmallVector<Value> values;
  for (auto [o, v] : llvm::zip(outs, *r)) {
    if (Value bias = op.getBias()) {
      FailureOr<Value> bv = e.emit(b, loc, bias, ValueRange{o.f});
      if (failed(bv))
        return failure();
      v = arith::AddFOp::create(
          b, loc, v, lowering::emitCast(b, loc, *bv, elementOf(bias), acc));
    }
    values.push_back(lowering::emitCast(b, loc, v, acc, elt));
  }
  return values;
}

FailureOr<Value> conv(ElementalEmitter &e, OpBuilder &b, Location loc,
                      ConvOp op, ValueRange physical) {
  if (e.getConvViaGemm() && isa<FloatType>(op.getType().getElementType()))
    if (std::optional<GemmView> view = GemmView::get(op))
      return convViaGemm(e, b, loc, op, *view, physical);
  FailureOr<SmallVector<Value>> r =
      convGroup(e, b, loc, op, {SmallVector<Value>(physical)});
  if (failed(r))
    return failure();
  return r->front();
}

FailureOr<Value> pool(ElementalEmitter &e, OpBuilder &b, Location loc,
                      PoolOp op, ValueRange physical) {
  SmallVector<int64_t> in = op.getLogicalInputShape(),
                       dataPerm = op.getDataPerm();
  SmallVector<Value> index = logicalIndex(physical, dataPerm);
  int64_t spatial = in.size() - 2;
  ArrayRef<int64_t> kernel = op.getKernel(), strides = op.getStrides(),
                    dilations = op.getDilations(), pads = op.getPads();
  Type elt = op.getType().getElementType();
  Type t = lowering::signlessType(elt);
  bool isMax = op.getKind() == PoolKind::max;
  if (!isMax && !isa<FloatType>(t))
    return op.emitOpError() << "expects a float average pool but got " << elt;
  Type acc = isMax ? t : ElementalEmitter::accumulatorType(op, elt);
  SmallVector<Value> inits = {arith::ConstantOp::create(
      b, loc,
      isMax ? lowering::extremeAttr(t, elt, /*largest=*/false)
            : cast<TypedAttr>(b.getZeroAttr(acc)))};
  if (!isMax)
    inits.push_back(lowering::emitConstant(b, loc, acc, 0));
  bool includePad = op.getCountIncludePad();
  Loops r = buildLoops(
      b, loc, kernel, inits,
      [&](OpBuilder &nb, Location l, ValueRange ivs, ValueRange it) -> Loops {
        SmallVector<Value> inIdx = {index[0], index[1]};
        Value valid, counted;
        for (int64_t s = 0; s < spatial; ++s) {
          Value pos = addI(nb, l, mulC(nb, l, index[2 + s], strides[s]),
                           mulC(nb, l, ivs[s], dilations[s]));
          pos = addC(nb, l, pos, -pads[s]);
          valid = andI(nb, l, valid, inRange(nb, l, pos, in[2 + s]));
          if (includePad)
            counted = andI(
                nb, l, counted,
                inRange(nb, l, addC(nb, l, pos, pads[s]),
                        in[2 + s] + pads[s] + pads[spatial + s]));
          inIdx.push_back(clampIndex(nb, l, pos, 0, in[2 + s] - 1));
        }
        if (!includePad)
          counted = valid;
        FailureOr<Value> x =
            e.emit(nb, l, op.getInput(), physicalIndex(inIdx, dataPerm));
        if (failed(x))
          return failure();
        if (isMax) {
          Value m = lowering::emitBinary(nb, l, BinaryFn::max, it[0], *x, elt);
          return SmallVector<Value>{
              valid ? arith::SelectOp::create(nb, l, valid, m, it[0]).getResult()
                    : m};
        }
        Value sum = arith::AddFOp::create(
            nb, l, it[0], lowering::emitCast(nb, l, *x, elt, acc));
        Value n = arith::AddFOp::create(nb, l, it[1],
                                        lowering::emitConstant(nb, l, acc, 1));
        if (valid)
          sum = arith::SelectOp::create(nb, l, valid, sum, it[0]);
        if (counted)
          n = arith::SelectOp::create(nb, l, counted, n, it[1]);
        return SmallVector<Value>{sum, n};
      });
  if (failed(r))
    return failure();
  if (isMax)
    return (*r)[0];
  Value q = arith::DivFOp::create(b, loc, (*r)[0], (*r)[1]);
  return lowering::emitCast(b, loc, q, acc, elt);
}

} // namespace

FailureOr<Value> elemental::emitContraction(ElementalEmitter &e, OpBuilder &b,
                                            Location loc, Operation *op,
                                            ValueRange index) {
  if (auto m = dyn_cast<MatmulOp>(op))
    return matmul(e, b, loc, m, index);
  if (auto c = dyn_cast<ConvOp>(op))
    return conv(e, b, loc, c, index);
  return pool(e, b, loc, cast<PoolOp>(op), index);
}

FailureOr<SmallVector<Value>>
elemental::emitConvGroup(ElementalEmitter &e, OpBuilder &b, Location loc,
                         ConvOp op, ArrayRef<SmallVector<Value>> indices) {
  return convGroup(e, b, loc, op, indices);
}
