//===- RecurrentOps.cpp - ONNX RNN, GRU and LSTM into bwc -----------------===//
//
// A recurrent layer unrolls over its (static) sequence length:
// - the input projection of every step is one contraction per direction,
//   X [seq * batch, input] x W^T [input, gates * hidden], plus the biases;
// - each step adds H_{t-1} x R^T to its slice and applies the gate
//   equations as elementwise ops, which fusion makes one kernel per step;
// - reverse runs the steps from the last to the first, bidirectional does
//   both and stacks them on the direction axis.
// sequence_lens (a graph input or a constant) masks the steps at or past
// each batch element's length: the state is kept and Y is 0 there. The
// same mask is right for the reverse direction, whose first valid step is
// then length - 1, as ONNX specifies. Every activation ONNX lists is
// supported, with activation_alpha / activation_beta consumed in order;
// clip bounds the gates' pre-activations; layout = 1 is batch-major.
//
//===----------------------------------------------------------------------===//
#include "NodeImporter.h"

#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace mlir::bwc;
using namespace mlir::bwc::onnx_import;

namespace {

/// Steps are unrolled; past this the graph would be too large to compile.
constexpr int64_t kMaxSteps = 4096;

enum class Kind { RNN, GRU, LSTM };

struct Activation {
  std::string name;
  double alpha = 0, beta = 0;
};

/// The defaults of ONNX's activation_alpha/beta where the list omits them.
Activation withDefaults(std::string name) {
  Activation a{name};
  if (name == "LeakyRelu")
    a.alpha = 0.01;
  else if (name == "ThresholdedRelu" || name == "Elu")
    a.alpha = 1.0;
  else if (name == "HardSigmoid")
    a.alpha = 0.2, a.beta = 0.5;
  else if (name == "ScaledTanh" || name == "Affine")
    a.alpha = 1.0, a.beta = 0.0;
  return a;
}

bool takesAlpha(StringRef n) {
  return n == "Affine" || n == "LeakyRelu" || n == "ThresholdedRelu" ||
         n == "ScaledTanh" || n == "HardSigmoid" || n == "Elu";
}
bool takesBeta(StringRef n) {
  return n == "Affine" || n == "ScaledTanh" || n == "HardSigmoid";
}

Value apply(BWCBuilder &bb, const Activation &a, Value x) {
  Type elt = BWCBuilder::elementTypeOf(x);
  auto c = [&](double v) { return bb.scalar(v, elt); };
  StringRef n = a.name;
  if (n == "Sigmoid")
    return bb.unary(UnaryFn::sigmoid, x);
  if (n == "Tanh")
    return bb.unary(UnaryFn::tanh, x);
  if (n == "Relu")
    return bb.unary(UnaryFn::relu, x);
  if (n == "Affine")
    return bb.add(bb.mul(x, c(a.alpha)), c(a.beta));
  if (n == "LeakyRelu")
    return bb.select(bb.binary(BinaryFn::lt, x, c(0)), bb.mul(x, c(a.alpha)),
                     x);
  if (n == "ThresholdedRelu")
    return bb.select(bb.binary(BinaryFn::gt, x, c(a.alpha)), x, c(0));
  if (n == "ScaledTanh")
    return bb.mul(c(a.alpha), bb.unary(UnaryFn::tanh, bb.mul(x, c(a.beta))));
  if (n == "HardSigmoid")
    return bb.min(bb.max(bb.add(bb.mul(x, c(a.alpha)), c(a.beta)), c(0)),
                  c(1));
  if (n == "Elu")
    return bb.select(bb.binary(BinaryFn::lt, x, c(0)),
                     bb.mul(c(a.alpha),
                            bb.sub(bb.unary(UnaryFn::exp, x), c(1))),
                     x);
  if (n == "Softsign")
    return bb.div(x, bb.add(bb.unary(UnaryFn::abs, x), c(1)));
  // Softplus, overflow-free.
  Value t = bb.unary(UnaryFn::exp,
                     bb.unary(UnaryFn::neg, bb.unary(UnaryFn::abs, x)));
  return bb.add(bb.unary(UnaryFn::relu, x),
                bb.unary(UnaryFn::log, bb.add(t, c(1))));
}

/// The layer's activations for `dirs` directions (`perDir` each).
FailureOr<SmallVector<Activation>> activations(NodeContext &nc, int perDir,
                                               int dirs,
                                               ArrayRef<StringRef> dflt) {
  SmallVector<Activation> acts;
  const onnx::AttributeProto *list = nc.attr("activations");
  if (!list) {
    for (int d = 0; d < dirs; ++d)
      for (StringRef n : dflt)
        acts.push_back(withDefaults(n.str()));
    return acts;
  }
  if (list->strings_size() != perDir * dirs)
    return nc.error() << "expects " << perDir * dirs << " activations but got "
                      << list->strings_size(),
           failure();
  SmallVector<double> alphas = nc.attrFloats("activation_alpha").value_or(
                          SmallVector<double>()),
                      betas = nc.attrFloats("activation_beta").value_or(
                          SmallVector<double>());
  size_t ia = 0, ib = 0;
  static const StringRef known[] = {
      "Relu",     "Tanh",       "Sigmoid",     "Affine",
      "LeakyRelu", "ThresholdedRelu", "ScaledTanh", "HardSigmoid",
      "Elu",      "Softsign",   "Softplus"};
  for (const std::string &s : list->strings()) {
    if (!llvm::is_contained(known, StringRef(s)))
      return nc.error() << "unsupported activation '" << s << "'", failure();
    Activation a = withDefaults(s);
    if (takesAlpha(s) && ia < alphas.size())
      a.alpha = alphas[ia++];
    if (takesBeta(s) && ib < betas.size())
      a.beta = betas[ib++];
    acts.push_back(a);
  }
  return acts;
}

/// Slice `k` of `n` equal parts of `x` along its last axis.
Value part(BWCBuilder &bb, Value x, int64_t k, int64_t n) {
  Ints shape(BWCBuilder::shapeOf(x)), starts(shape.size(), 0),
      steps(shape.size(), 1);
  int64_t size = shape.back() / n;
  starts.back() = k * size;
  shape.back() = size;
  return bb.slice(x, starts, shape, steps);
}

/// `x` [dirs, ...] at direction `d`, the leading dim dropped.
Value direction(BWCBuilder &bb, Value x, int64_t d) {
  Ints shape(BWCBuilder::shapeOf(x)), starts(shape.size(), 0),
      steps(shape.size(), 1);
  shape[0] = 1;
  starts[0] = d;
  Value s = bb.slice(x, starts, shape, steps);
  return bb.reshape(s, ArrayRef<int64_t>(shape).drop_front());
}

LogicalResult importRecurrent(NodeContext &nc, Results &out, Kind kind) {
  FailureOr<Value> xIn = nc.requiredInput(0), w = nc.requiredInput(1),
                   r = nc.requiredInput(2);
  if (failed(xIn) || failed(w) || failed(r))
    return failure();
  BWCBuilder &bb = nc.bb;
  Type elt = eltOf(*xIn);
  if (!isa<FloatType>(elt) || rankOf(*xIn) != 3)
    return nc.error() << "expects a float input of rank 3", failure();
  int64_t gates = kind == Kind::LSTM ? 4 : kind == Kind::GRU ? 3 : 1;
  int64_t hidden = nc.attrInt("hidden_size", 0);
  std::string dirName = nc.attrString("direction", "forward");
  if (dirName != "forward" && dirName != "reverse" &&
      dirName != "bidirectional")
    return nc.error() << "unsupported direction '" << dirName << "'",
           failure();
  int64_t dirs = dirName == "bidirectional" ? 2 : 1;
  bool batchMajor = nc.attrInt("layout", 0) != 0;
  Value x = batchMajor ? bb.transpose(*xIn, {1, 0, 2}) : *xIn;
  int64_t seq = shapeOf(x)[0], batch = shapeOf(x)[1], input = shapeOf(x)[2];
  if (hidden <= 0 || shapeOf(*w) != ArrayRef<int64_t>{dirs, gates * hidden,
                                                       input} ||
      shapeOf(*r) != ArrayRef<int64_t>{dirs, gates * hidden, hidden})
    return nc.error() << "expects hidden_size > 0, W [" << dirs << ", "
                      << gates * hidden << ", " << input << "] and R ["
                      << dirs << ", " << gates * hidden << ", " << hidden
                      << "]",
           failure();
  if (seq > kMaxSteps)
    return nc.error() << "unrolls at most " << kMaxSteps << " steps but got "
                      << seq,
           failure();
  double clip = nc.attrFloat("clip", 0);
  bool inputForget = nc.attrInt("input_forget", 0) != 0;
  bool linearBeforeReset = nc.attrInt("linear_before_reset", 0) != 0;
  SmallVector<StringRef> dflt =
      kind == Kind::LSTM ? SmallVector<StringRef>{"Sigmoid", "Tanh", "Tanh"}
      : kind == Kind::GRU ? SmallVector<StringRef>{"Sigmoid", "Tanh"}
                          : SmallVector<StringRef>{"Tanh"};
  FailureOr<SmallVector<Activation>> acts =
      activations(nc, dflt.size(), dirs, dflt);
  if (failed(acts))
    return failure();
  Value bias = nc.input(3), lens = nc.input(4), h0 = nc.input(5);
  Value c0 = kind == Kind::LSTM ? nc.input(6) : Value();
  Value peep = kind == Kind::LSTM ? nc.input(7) : Value();
  auto stateShape = Ints{dirs, batch, hidden};
  for (auto [v, name] : {std::pair{h0, "initial_h"}, {c0, "initial_c"}})
    if (v && (batchMajor ? shapeOf(v) != ArrayRef<int64_t>{batch, dirs, hidden}
                         : shapeOf(v) != ArrayRef<int64_t>(stateShape)))
      return nc.error() << "expects " << name << " of the state's shape",
             failure();
  if (batchMajor) {
    if (h0)
      h0 = bb.transpose(h0, {1, 0, 2});
    if (c0)
      c0 = bb.transpose(c0, {1, 0, 2});
  }
  if (bias && shapeOf(bias) != ArrayRef<int64_t>{dirs, 2 * gates * hidden})
    return nc.error() << "expects B [" << dirs << ", " << 2 * gates * hidden
                      << "]",
           failure();
  if (peep && shapeOf(peep) != ArrayRef<int64_t>{dirs, 3 * hidden})
    return nc.error() << "expects P [" << dirs << ", " << 3 * hidden << "]",
           failure();
  Type i64 = bb.builder().getI64Type();
  Value lenCol;
  if (lens) {
    if (shapeOf(lens) != ArrayRef<int64_t>{batch} ||
        !isa<IntegerType>(eltOf(lens)))
      return nc.error() << "expects integer sequence_lens [" << batch << "]",
             failure();
    lenCol = bb.reshape(bb.cast(lens, i64), {batch, 1});
  }
  auto c = [&](double v) { return bb.scalar(v, elt); };
  auto clipped = [&](Value v) {
    return clip > 0 ? bb.min(bb.max(v, c(-clip)), c(clip)) : v;
  };
  Value zeros = bb.broadcastTo(c(0), {batch, hidden});
  Value xFlat = bb.reshape(x, {seq * batch, input});
  SmallVector<Value> ys, hs, cs;
  for (int64_t d = 0; d < dirs; ++d) {
    ArrayRef<Activation> a = ArrayRef(*acts).slice(d * dflt.size(),
                                                   dflt.size());
    Value wT = bb.transpose(direction(bb, *w, d), {1, 0});
    Value rT = bb.transpose(direction(bb, *r, d), {1, 0});
    Value xw = bb.reshape(bb.matmul(xFlat, wT), {seq, batch, gates * hidden});
    Value rbH; // GRU's recurrent bias of the h gate, kept apart
    if (bias) {
      Value bd = direction(bb, bias, d);
      Value wb = part(bb, bd, 0, 2), rb = part(bb, bd, 1, 2);
      if (kind == Kind::GRU) {
        rbH = part(bb, rb, 2, 3);
        rb = bb.concat({part(bb, rb, 0, 3), part(bb, rb, 1, 3),
                        bb.broadcastTo(c(0), {hidden})},
                       0);
      }
      xw = bb.add(xw, bb.add(wb, rb));
    }
    Value pd = peep ? direction(bb, peep, d) : Value();
    Value h = h0 ? direction(bb, h0, d) : zeros;
    Value cell = c0 ? direction(bb, c0, d) : zeros;
    SmallVector<Value> yd(seq);
    for (int64_t k = 0; k < seq; ++k) {
      int64_t t = (dirName == "reverse" || d == 1) ? seq - 1 - k : k;
      Value xt = bb.reshape(
          bb.slice(xw, {t, 0, 0}, {1, batch, gates * hidden}, {1, 1, 1}),
          {batch, gates * hidden});
      Value hNew, cNew;
      if (kind == Kind::RNN) {
        hNew = apply(bb, a[0], clipped(bb.add(xt, bb.matmul(h, rT))));
      } else if (kind == Kind::GRU) {
        Value hr = bb.matmul(h, part(bb, rT, 0, 3));
        Value z = apply(bb, a[0], clipped(bb.add(part(bb, xt, 0, 3), hr)));
        Value rr = apply(bb, a[0], clipped(bb.add(
                                       part(bb, xt, 1, 3),
                                       bb.matmul(h, part(bb, rT, 1, 3)))));
        Value rh = part(bb, rT, 2, 3), pre;
        if (linearBeforeReset) {
          Value lin = bb.matmul(h, rh);
          if (rbH)
            lin = bb.add(lin, rbH);
          pre = bb.add(part(bb, xt, 2, 3), bb.mul(rr, lin));
        } else {
          pre = bb.add(part(bb, xt, 2, 3), bb.matmul(bb.mul(rr, h), rh));
          if (rbH)
            pre = bb.add(pre, rbH);
        }
        Value hh = apply(bb, a[1], clipped(pre));
        hNew = bb.add(bb.mul(bb.sub(c(1), z), hh), bb.mul(z, h));
      } else {
        Value g = bb.add(xt, bb.matmul(h, rT)); // i, o, f, c
        Value gi = part(bb, g, 0, 4), go = part(bb, g, 1, 4),
              gf = part(bb, g, 2, 4), gc = part(bb, g, 3, 4);
        if (pd) {
          gi = bb.add(gi, bb.mul(part(bb, pd, 0, 3), cell));
          gf = bb.add(gf, bb.mul(part(bb, pd, 2, 3), cell));
        }
        Value it = apply(bb, a[0], clipped(gi));
        Value ft = inputForget ? bb.sub(c(1), it)
                               : apply(bb, a[0], clipped(gf));
        Value ct = apply(bb, a[1], clipped(gc));
        cNew = bb.add(bb.mul(ft, cell), bb.mul(it, ct));
        if (pd)
          go = bb.add(go, bb.mul(part(bb, pd, 1, 3), cNew));
        Value ot = apply(bb, a[0], clipped(go));
        hNew = bb.mul(ot, apply(bb, a[2], cNew));
      }
      if (lenCol) {
        Value valid = bb.binary(BinaryFn::lt, bb.scalar((double)t, i64),
                                lenCol);
        yd[t] = bb.select(valid, hNew, zeros);
        h = bb.select(valid, hNew, h);
        if (cNew)
          cell = bb.select(valid, cNew, cell);
      } else {
        yd[t] = hNew;
        h = hNew;
        if (cNew)
          cell = cNew;
      }
    }
    SmallVector<Value> steps;
    for (Value y : yd)
      steps.push_back(bb.reshape(y, {1, 1, batch, hidden}));
    ys.push_back(steps.size() == 1 ? steps[0] : bb.concat(steps, 0));
    hs.push_back(bb.reshape(h, {1, batch, hidden}));
    cs.push_back(bb.reshape(cell, {1, batch, hidden}));
  }
  Value y = dirs == 1 ? ys[0] : bb.concat(ys, 1);     // [seq, dirs, B, H]
  Value yh = dirs == 1 ? hs[0] : bb.concat(hs, 0);    // [dirs, B, H]
  Value yc = dirs == 1 ? cs[0] : bb.concat(cs, 0);
  if (batchMajor) {
    y = bb.transpose(y, {2, 0, 1, 3});
    yh = bb.transpose(yh, {1, 0, 2});
    yc = bb.transpose(yc, {1, 0, 2});
  }
  out.push_back(y);
  out.push_back(yh);
  if (kind == Kind::LSTM)
    out.push_back(yc);
  return success();
}

} // namespace

void onnx_import::registerRecurrentHandlers(HandlerTable &t) {
  t["RNN"] = [](NodeContext &nc, Results &out) {
    return importRecurrent(nc, out, Kind::RNN);
  };
  t["GRU"] = [](NodeContext &nc, Results &out) {
    return importRecurrent(nc, out, Kind::GRU);
  };
  t["LSTM"] = [](NodeContext &nc, Results &out) {
    return importRecurrent(nc, out, Kind::LSTM);
  };
}
