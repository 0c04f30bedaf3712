//===- RandomOps.cpp - ONNX random ops into bwc ---------------------------===//
//
// RandomUniform, RandomNormal, their *Like forms, Bernoulli and Dropout in
// training mode draw from one counter-based generator built of ordinary
// elementwise ops, so they fuse and run the same on every target:
//
//   s    = fmix32(run * golden ^ key)        (a scalar, once per run)
//   h[i] = fmix32(fmix32(i * golden + s) + key)
//   u[i] = (h[i] >> 8) * 2^-24               (uniform in [0, 1))
//
// over the element's linear index i (uint32), with MurmurHash3's finalizer
// fmix32. `key` is the node's `seed` attribute (or, without one, a hash of
// the node's first output name, so two unseeded nodes differ) mixed with a
// stream number; `run` is the program's run counter, a uint32 state
// ("rng.counter") that every run increments, so each run draws new values
// and a training step drops a new Dropout mask. The values differ from
// ONNX Runtime's generator (no two implementations agree), so the tests
// check distributions, as ONNX's backend tests allow.
// Normal values use Box-Muller: sqrt(-2 ln u1) cos(2 pi u2), u1 in (0, 1].
//
//===----------------------------------------------------------------------===//
#include "NodeImporter.h"

#include "llvm/Support/xxhash.h"
#include <cmath>

using namespace mlir;
using namespace mlir::bwc;
using namespace mlir::bwc::onnx_import;

namespace {

constexpr uint32_t kGolden = 0x9E3779B9u;
/// Longest dim a random op draws along (its index iota is a constant).
constexpr int64_t kMaxIotaDim = int64_t(1) << 20;

uint32_t fmix32(uint32_t h) {
  h ^= h >> 16;
  h *= 0x85EBCA6Bu;
  h ^= h >> 13;
  h *= 0xC2B2AE35u;
  h ^= h >> 16;
  return h;
}

Type u32Type(BWCBuilder &bb) {
  return IntegerType::get(bb.builder().getContext(), 32,
                          IntegerType::Unsigned);
}

Value u32(BWCBuilder &bb, uint32_t v) { return bb.scalar(v, u32Type(bb)); }

Value fmix32(BWCBuilder &bb, Value h) {
  auto shr = [&](Value x, uint32_t n) {
    return bb.binary(BinaryFn::shr, x, u32(bb, n));
  };
  h = bb.binary(BinaryFn::xor_, h, shr(h, 16));
  h = bb.mul(h, u32(bb, 0x85EBCA6Bu));
  h = bb.binary(BinaryFn::xor_, h, shr(h, 13));
  h = bb.mul(h, u32(bb, 0xC2B2AE35u));
  return bb.binary(BinaryFn::xor_, h, shr(h, 16));
}

/// The generator's key for stream `stream` of this node.
uint32_t keyOf(NodeContext &nc, uint32_t stream) {
  uint32_t seed;
  if (nc.hasAttr("seed")) {
    double s = nc.attrFloat("seed", 0.0);
    seed = (uint32_t)(int64_t)std::clamp(s, -0x1p62, 0x1p62);
  } else {
    std::string name =
        nc.node.output_size() ? nc.node.output(0) : nc.node.name();
    seed = (uint32_t)llvm::xxh3_64bits(name);
  }
  return fmix32(seed ^ fmix32(stream * kGolden + 0x632BE5ABu));
}

/// The linear index of every element of `shape`, as uint32.
Value linearIndex(BWCBuilder &bb, ArrayRef<int64_t> shape) {
  Type t = u32Type(bb);
  int64_t rank = shape.size();
  Value lin = rank == 0 ? u32(bb, 0) : Value();
  int64_t stride = 1;
  for (int64_t d = rank - 1; d >= 0; --d) {
    Value term = iotaAlong(bb, rank, d, shape[d], t);
    if (stride != 1)
      term = bb.mul(term, u32(bb, (uint32_t)stride));
    lin = lin ? bb.add(lin, term) : term;
    stride *= shape[d];
  }
  return bb.broadcastTo(lin, shape);
}

/// The `dtype` attribute (TensorProto's enum) as a bwc element type, or
/// `dflt` without one; `floatOnly` refuses the integer types.
FailureOr<Type> dtypeOf(NodeContext &nc, Type dflt, bool floatOnly) {
  if (!nc.hasAttr("dtype"))
    return dflt;
  Type t = elementTypeFor(nc.getContext(), nc.attrInt("dtype", 1));
  if (!t || (floatOnly && !isa<FloatType>(t)))
    return nc.error() << "unsupported dtype " << nc.attrInt("dtype", 1)
                      << (floatOnly ? " (float types only)" : ""),
           failure();
  return t;
}

/// What a RandomUniform/RandomNormal(Like) produces: the `shape` attribute
/// or the input's shape, and the float `dtype` (default f32 or the input's).
struct RandomTarget {
  Ints shape;
  Type elt;
};

FailureOr<RandomTarget> randomTarget(NodeContext &nc, bool like) {
  RandomTarget t;
  Type dflt = Float32Type::get(nc.getContext());
  if (like) {
    FailureOr<Value> x = nc.requiredInput(0);
    if (failed(x))
      return failure();
    t.shape = Ints(shapeOf(*x));
    dflt = eltOf(*x);
  } else {
    std::optional<Ints> shape = nc.attrInts("shape");
    if (!shape)
      return nc.error() << "expects a 'shape' attribute", failure();
    if (llvm::any_of(*shape, [](int64_t d) { return d < 0; }))
      return nc.error() << "has a negative dim in its shape " << str(*shape),
             failure();
    t.shape = *shape;
  }
  FailureOr<Type> elt = dtypeOf(nc, dflt, /*floatOnly=*/true);
  if (failed(elt))
    return failure();
  if (!isa<FloatType>(*elt))
    return nc.error() << "expects a float input", failure();
  t.elt = *elt;
  return t;
}

LogicalResult importRandomUniform(NodeContext &nc, Results &out, bool like) {
  FailureOr<RandomTarget> t = randomTarget(nc, like);
  if (failed(t))
    return failure();
  FailureOr<Value> u = uniformNoise(nc, t->shape, 0);
  if (failed(u))
    return failure();
  double lo = nc.attrFloat("low", 0.0), hi = nc.attrFloat("high", 1.0);
  BWCBuilder &bb = nc.bb;
  Type f32 = bb.builder().getF32Type();
  Value v = bb.add(bb.mul(*u, bb.scalar(hi - lo, f32)), bb.scalar(lo, f32));
  out.push_back(bb.cast(v, t->elt));
  return success();
}

LogicalResult importRandomNormal(NodeContext &nc, Results &out, bool like) {
  FailureOr<RandomTarget> t = randomTarget(nc, like);
  if (failed(t))
    return failure();
  FailureOr<Value> u1 = uniformNoise(nc, t->shape, 1),
                   u2 = uniformNoise(nc, t->shape, 2);
  if (failed(u1) || failed(u2))
    return failure();
  BWCBuilder &bb = nc.bb;
  Type f32 = bb.builder().getF32Type();
  // u1 in (0, 1]: 1 - u.
  Value r = bb.unary(
      UnaryFn::sqrt,
      bb.mul(bb.scalar(-2.0, f32),
             bb.unary(UnaryFn::log, bb.sub(bb.scalar(1.0, f32), *u1))));
  Value z = bb.mul(r, bb.unary(UnaryFn::cos,
                               bb.mul(*u2, bb.scalar(2 * M_PI, f32))));
  double mean = nc.attrFloat("mean", 0.0), scale = nc.attrFloat("scale", 1.0);
  Value v = bb.add(bb.mul(z, bb.scalar(scale, f32)), bb.scalar(mean, f32));
  out.push_back(bb.cast(v, t->elt));
  return success();
}

LogicalResult importBernoulli(NodeContext &nc, Results &out) {
  FailureOr<Value> p = nc.requiredInput(0);
  if (failed(p))
    return failure();
  if (!isa<FloatType>(eltOf(*p)))
    return nc.error() << "expects float probabilities", failure();
  FailureOr<Type> elt = dtypeOf(nc, eltOf(*p), /*floatOnly=*/false);
  if (failed(elt))
    return failure();
  FailureOr<Value> u = uniformNoise(nc, shapeOf(*p), 0);
  if (failed(u))
    return failure();
  BWCBuilder &bb = nc.bb;
  Value hit = bb.binary(BinaryFn::lt, *u,
                        bb.cast(*p, bb.builder().getF32Type()));
  out.push_back(bb.cast(hit, *elt));
  return success();
}

} // namespace

FailureOr<Value> onnx_import::uniformNoise(NodeContext &nc,
                                           ArrayRef<int64_t> shape,
                                           uint32_t stream) {
  std::optional<int64_t> n = product(shape);
  if (!n || *n > (int64_t(1) << 32))
    return nc.error() << "draws more than 2^32 random values", failure();
  // The index is built from one iota constant per dim: bound their size.
  for (int64_t d : shape)
    if (d > kMaxIotaDim)
      return nc.error() << "draws along a dim of " << d
                        << " elements, more than the generator's limit of "
                        << kMaxIotaDim,
             failure();
  if (!nc.runCounter || !*nc.runCounter)
    return nc.error() << "needs the program's run counter, which this graph "
                         "cannot have",
           failure();
  Value run = (*nc.runCounter)();
  if (!run)
    return nc.error() << "needs the program's run counter, which this graph "
                         "cannot have",
           failure();
  BWCBuilder &bb = nc.bb;
  uint32_t key = keyOf(nc, stream);
  Value s = fmix32(bb, bb.binary(BinaryFn::xor_, bb.mul(run, u32(bb, kGolden)),
                                 u32(bb, key)));
  Value i = linearIndex(bb, shape);
  Value h = fmix32(bb, bb.add(fmix32(bb, bb.add(bb.mul(i, u32(bb, kGolden)),
                                                 s)),
                              u32(bb, key)));
  Type f32 = bb.builder().getF32Type();
  Value top = bb.binary(BinaryFn::shr, h, u32(bb, 8));
  return bb.mul(bb.cast(top, f32), bb.scalar(std::ldexp(1.0, -24), f32));
}

void onnx_import::registerRandomHandlers(HandlerTable &t) {
  t["RandomUniform"] = [](NodeContext &nc, Results &out) {
    return importRandomUniform(nc, out, /*like=*/false);
  };
  t["RandomUniformLike"] = [](NodeContext &nc, Results &out) {
    return importRandomUniform(nc, out, /*like=*/true);
  };
  t["RandomNormal"] = [](NodeContext &nc, Results &out) {
    return importRandomNormal(nc, out, /*like=*/false);
  };
  t["RandomNormalLike"] = [](NodeContext &nc, Results &out) {
    return importRandomNormal(nc, out, /*like=*/true);
  };
  t["Bernoulli"] = importBernoulli;
}
