//===- Grad.cpp - The training step: loss and reverse-mode gradients ------===//
//
// bwc-grad (docs/passes/bwc-grad.md). One forward walk marks the values that
// depend on a parameter (`bwc.trainable` arguments); the loss is built on
// the first result; one reverse walk over the original ops asks each op on
// a parameter-to-loss path for its operands' adjoints
// (DifferentiableOpInterface, lib/Dialect/BWC/IR/BWCGradients.cpp) and sums
// the adjoints of values read more than once. The result is ordinary bwc IR,
// so fusion, the buffer plan and rematerialization treat the backward
// program like any other.
//
//===----------------------------------------------------------------------===//
#include "bwc/Transforms/Passes.h"

#include "bwc/Dialect/BWC/IR/BWCOps.h"
#include "bwc/Dialect/BWC/Utils/BWCBuilder.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <cmath>

namespace mlir::bwc {
#define GEN_PASS_DEF_GRADPASS
#include "bwc/Transforms/Passes.h.inc"
} // namespace mlir::bwc

using namespace mlir;
using namespace mlir::bwc;

namespace {

/// mean((y - t)^2) over every element.
Value mseLoss(BWCBuilder &b, Value y, Value t) {
  Value d = b.sub(y, t);
  SmallVector<int64_t> all =
      llvm::to_vector(llvm::seq<int64_t>(0, BWCBuilder::shapeOf(y).size()));
  return b.reduce(ReduceKind::mean, b.mul(d, d), all, false);
}

/// mean over rows of logsumexp(y) - y[label], along the last axis; labels
/// are i64 class indices of y's shape without its last dim.
Value crossEntropyLoss(BWCBuilder &b, Value y, Value labels) {
  ArrayRef<int64_t> ys = BWCBuilder::shapeOf(y);
  int64_t rank = ys.size(), classes = ys.back();
  Type elt = BWCBuilder::elementTypeOf(y);
  Value m = b.reduce(ReduceKind::max, y, {rank - 1}, true);
  Value lse =
      b.add(b.unary(UnaryFn::log, b.reduce(ReduceKind::sum,
                                           b.unary(UnaryFn::exp, b.sub(y, m)),
                                           {rank - 1}, true)),
            m);
  SmallVector<int64_t> col(rank, 1);
  col.back() = classes;
  SmallVector<int64_t> iota = llvm::to_vector(llvm::seq<int64_t>(0, classes));
  Value classIds = b.reshape(b.i64Vector(iota), col);
  SmallVector<int64_t> labelShape(ys);
  labelShape.back() = 1;
  Value onehot = b.cast(
      b.binary(BinaryFn::eq, b.reshape(labels, labelShape), classIds), elt);
  Value picked = b.reduce(ReduceKind::sum, b.mul(y, onehot), {rank - 1}, true);
  SmallVector<int64_t> all = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  return b.reduce(ReduceKind::mean, b.sub(lse, picked), all, false);
}

/// The first dynamic loss scale (GradScaler's default, 2^16).
constexpr double kInitialScale = 65536.0;

struct GradPass : bwc::impl::GradPassBase<GradPass> {
  using GradPassBase::GradPassBase;

  /// With dynamic loss scaling: whether this step's gradients are all
  /// finite (a scalar i1); the state updates keep the old values otherwise.
  Value stepOk;

  void runOnOperation() override {
    func::FuncOp f = lookupProgram(getOperation(), funcName);
    if (!f || failed(run(f)))
      signalPassFailure();
  }

  LogicalResult run(func::FuncOp f) {
    if (loss != "mse" && loss != "cross-entropy")
      return f.emitError() << "bwc-grad: unknown loss '" << loss
                           << "' (expected mse or cross-entropy)";
    if (!f.getBody().hasOneBlock())
      return f.emitError() << "bwc-grad expects a single-block function";
    Block &body = f.getBody().front();
    auto ret = cast<func::ReturnOp>(body.getTerminator());
    if (ret.getNumOperands() == 0)
      return f.emitError() << "bwc-grad expects the model to have an output";
    Value y = ret.getOperand(0);
    auto yType = cast<RankedTensorType>(y.getType());
    // State the model already has (the random ops' run counter) keeps its
    // update results, after the step's own.
    SmallVector<Value> carried;
    SmallVector<Attribute> carriedAttrs;
    for (auto [i, v] : llvm::enumerate(ret.getOperands()))
      if (f.getResultAttr(i, "bwc.state_update")) {
        carried.push_back(v);
        carriedAttrs.push_back(f.getResultAttrDict(i));
      }
    if (!isa<FloatType>(yType.getElementType()))
      return f.emitError() << "bwc-grad: the loss applies to the first "
                              "output, which is not a float tensor";

    SmallVector<BlockArgument> params;
    SmallVector<std::string> names;
    for (BlockArgument a : body.getArguments()) {
      if (!f.getArgAttr(a.getArgNumber(), "bwc.trainable"))
        continue;
      if (!isa<FloatType>(cast<RankedTensorType>(a.getType()).getElementType()))
        return f.emitError() << "bwc-grad: trainable argument "
                             << a.getArgNumber() << " is not a float tensor";
      params.push_back(a);
      auto name = f.getArgAttrOfType<StringAttr>(a.getArgNumber(), "bwc.name");
      names.push_back(name ? name.str()
                           : "arg" + std::to_string(a.getArgNumber()));
    }
    if (params.empty())
      return f.emitError() << "bwc-grad: no trainable parameters (no "
                              "argument is marked bwc.trainable; "
                              "--trainable matched no float initializer)";

    // An optimizer step keeps the parameters as state: checked before the
    // function changes.
    if (optimizer != "none") {
      if (optimizer != "sgd" && optimizer != "adam")
        return f.emitError() << "bwc-grad: unknown optimizer '" << optimizer
                             << "' (expected none, sgd or adam)";
      if (!(lr > 0) || !std::isfinite(lr))
        return f.emitError() << "bwc-grad: the learning rate must be "
                                "positive and finite but is "
                             << lr;
      for (auto [p, n] : llvm::zip(params, names))
        if (!f.getArgAttr(p.getArgNumber(), "bwc.initial_value"))
          return f.emitError()
                 << "bwc-grad: parameter '" << n
                 << "' is also a graph input; an optimizer step updates "
                    "initializers in place (drop it from the graph inputs)";
    }

    // Loss scaling: none, a static factor, or dynamic (state).
    double staticScale = 0;
    bool dynamicScale = lossScale == "dynamic";
    if (lossScale != "none" && !dynamicScale) {
      char *end = nullptr;
      staticScale = std::strtod(lossScale.c_str(), &end);
      if (end != lossScale.c_str() + lossScale.size() || !(staticScale > 0) ||
          !std::isfinite(staticScale))
        return f.emitError() << "bwc-grad: loss-scale expects none, dynamic "
                                "or a positive factor but got '"
                             << lossScale << "'";
    }
    if (growthInterval < 1)
      return f.emitError() << "bwc-grad: growth-interval must be positive";

    // The target argument.
    Type targetType = yType;
    if (loss == "cross-entropy") {
      if (yType.getRank() < 1)
        return f.emitError() << "bwc-grad: cross-entropy expects a first "
                                "output of rank >= 1 (classes last)";
      targetType = RankedTensorType::get(yType.getShape().drop_back(),
                                         IntegerType::get(f.getContext(), 64));
    }
    unsigned targetIndex = f.getNumArguments();
    if (failed(f.insertArgument(
            targetIndex, targetType,
            DictionaryAttr::get(
                f.getContext(),
                {NamedAttribute(StringAttr::get(f.getContext(), "bwc.name"),
                                StringAttr::get(f.getContext(), "target"))}),
            f.getLoc())))
      return failure();
    Value target = body.getArgument(targetIndex);

    // Values that depend on a parameter.
    llvm::DenseSet<Value> active(params.begin(), params.end());
    SmallVector<Operation *> forward;
    for (Operation &op : body.without_terminator()) {
      forward.push_back(&op);
      if (llvm::any_of(op.getOperands(),
                       [&](Value v) { return active.contains(v); }))
        active.insert(op.getResults().begin(), op.getResults().end());
    }
    if (!active.contains(y))
      return f.emitError() << "bwc-grad: the first output does not depend on "
                              "any trainable parameter";
    // The forward contractions say so (--calibrate's search tries the
    // backward ones in low precision first: rounding the forward moves the
    // masks of piecewise-linear activations, the backward rarely hurts).
    for (Operation *op : forward)
      if (isa<MatmulOp, ConvOp>(op))
        op->setAttr("bwc.forward", UnitAttr::get(f.getContext()));

    OpBuilder ob(ret);
    BWCBuilder b(ob, ret.getLoc());
    Operation *lastForward = forward.empty() ? nullptr : forward.back();
    Value lossValue =
        loss == "mse" ? mseLoss(b, y, target) : crossEntropyLoss(b, y, target);

    // Reverse sweep over the loss's ops, then the forward ops.
    llvm::DenseMap<Value, Value> adjoint;
    auto accumulate = [&](Value v, Value g) {
      auto [it, inserted] = adjoint.try_emplace(v, g);
      if (!inserted)
        it->second = b.add(it->second, g);
    };
    // The seed: 1, or the loss scale (gradients come out scaled by it, so
    // small ones stay above fp16's smallest normal; unscaled below).
    auto f32 = RankedTensorType::get({}, Float32Type::get(f.getContext()));
    Value scale, scaleState, goodState;
    if (dynamicScale) {
      scaleState = addZeroState(f, f32, "loss_scale.scale", kInitialScale);
      goodState = addZeroState(f, f32, "loss_scale.good");
      scale = scaleState;
    } else if (staticScale) {
      scale = b.scalar(staticScale, f32.getElementType());
    }
    adjoint[lossValue] = scale ? b.cast(scale, yType.getElementType())
                               : b.scalar(1.0, yType.getElementType());
    SmallVector<Operation *> lossOps;
    for (Operation *op = lastForward ? lastForward->getNextNode()
                                     : &body.front();
         op != ret.getOperation(); op = op->getNextNode()) {
      lossOps.push_back(op);
      if (llvm::any_of(op->getOperands(),
                       [&](Value v) { return active.contains(v); }))
        active.insert(op->getResults().begin(), op->getResults().end());
    }
    SmallVector<Operation *> order(forward);
    order.append(lossOps);
    for (Operation *op : llvm::reverse(order)) {
      if (op->getNumResults() != 1) {
        // No bwc op but bwc.fusion has several results (the pass runs
        // before bwc-fuse): refuse rather than drop their adjoints.
        if (llvm::any_of(op->getResults(),
                         [&](Value r) { return adjoint.count(r); }))
          return op->emitError() << "bwc-grad: no gradient rule for '"
                                 << op->getName() << "'";
        continue;
      }
      auto it = adjoint.find(op->getResult(0));
      if (it == adjoint.end() || !active.contains(op->getResult(0)))
        continue;
      auto rule = dyn_cast<DifferentiableOpInterface>(op);
      if (!rule)
        return op->emitError()
               << "bwc-grad: no gradient rule for '" << op->getName() << "'";
      SmallVector<bool> wanted;
      for (Value v : op->getOperands())
        wanted.push_back(active.contains(v));
      SmallVector<Value> grads;
      BWCBuilder ob2(ob, op->getLoc());
      if (failed(rule.buildVJP(ob2, it->second, wanted, grads)))
        return failure();
      for (auto [v, g] : llvm::zip(op->getOperands(), grads))
        if (g && active.contains(v))
          accumulate(v, g);
    }

    SmallVector<Value> grads;
    for (BlockArgument p : params) {
      Value g = adjoint.lookup(p);
      if (!g)
        g = b.broadcastTo(b.scalar(0.0, BWCBuilder::elementTypeOf(p)),
                          BWCBuilder::shapeOf(p));
      grads.push_back(g);
    }
    // Unscale, and with dynamic scaling decide whether the step counts:
    // every gradient finite (|g| <= the largest float: false for Inf and
    // NaN).
    Value ok, okFlag;
    if (scale) {
      for (Value &g : grads) {
        Type elt = BWCBuilder::elementTypeOf(g);
        g = b.div(g, b.cast(scale, elt));
        if (!dynamicScale)
          continue;
        auto ft = cast<FloatType>(elt);
        Value finite =
            b.cast(b.binary(BinaryFn::le, b.unary(UnaryFn::abs, g),
                            b.scalar(APFloat::getLargest(ft.getFloatSemantics())
                                         .convertToDouble(),
                                     elt)),
                   f32.getElementType());
        SmallVector<int64_t> all = llvm::to_vector(
            llvm::seq<int64_t>(0, BWCBuilder::shapeOf(g).size()));
        Value allFinite = b.reduce(ReduceKind::min, finite, all, false);
        okFlag = okFlag ? b.min(okFlag, allFinite) : allFinite;
      }
      if (okFlag)
        ok =
            b.binary(BinaryFn::gt, okFlag, b.scalar(0.5, f32.getElementType()));
    }
    stepOk = ok;
    MLIRContext *ctx = f.getContext();
    auto named = [&](StringRef key, StringRef n) {
      return DictionaryAttr::get(
          ctx,
          {NamedAttribute(StringAttr::get(ctx, key), StringAttr::get(ctx, n))});
    };
    SmallVector<Value> results = {lossValue};
    SmallVector<Attribute> resAttrs = {named("bwc.name", "loss")};
    if (optimizer == "none") {
      // loss, then grad.<name> per parameter; initializers become
      // constants again.
      for (auto [g, n] : llvm::zip(grads, names)) {
        results.push_back(g);
        resAttrs.push_back(named("bwc.name", "grad." + n));
      }
      llvm::BitVector erase(f.getNumArguments());
      OpBuilder cb = OpBuilder::atBlockBegin(&body);
      for (BlockArgument p : params) {
        auto init = f.getArgAttrOfType<ElementsAttr>(p.getArgNumber(),
                                                     "bwc.initial_value");
        if (!init)
          continue;
        Value c = ConstantOp::create(cb, p.getLoc(), init);
        p.replaceAllUsesWith(c);
        erase.set(p.getArgNumber());
      }
      results.append(carried);
      resAttrs.append(carriedAttrs);
      if (failed(setResults(f, ret, ob, results, resAttrs)) ||
          failed(f.eraseArguments(erase)))
        return failure();
    } else {
      if (failed(buildUpdates(f, b, params, names, grads, results, resAttrs)))
        return failure();
      results.append(carried);
      resAttrs.append(carriedAttrs);
      if (failed(setResults(f, ret, ob, results, resAttrs)))
        return failure();
    }

    if (dynamicScale || staticScale) {
      ob.setInsertionPoint(body.getTerminator());
      // Report the scale this step used, and with dynamic scaling whether
      // it was skipped; then the GradScaler rule: halve and restart the
      // count on a non-finite gradient, double after growth-interval good
      // steps.
      SmallVector<Value> extra = {scale};
      SmallVector<Attribute> extraAttrs = {named("bwc.name", "loss_scale")};
      if (dynamicScale) {
        Type e = f32.getElementType();
        Value skipped = b.sub(b.scalar(1, e), okFlag);
        Value good =
            b.select(ok, b.add(goodState, b.scalar(1, e)), b.scalar(0, e));
        Value grow =
            b.binary(BinaryFn::ge, good, b.scalar((double)growthInterval, e));
        Value nextScale =
            b.select(ok, b.select(grow, b.mul(scale, b.scalar(2, e)), scale),
                     b.mul(scale, b.scalar(0.5, e)));
        Value nextGood = b.select(grow, b.scalar(0, e), good);
        extra.push_back(skipped);
        extraAttrs.push_back(named("bwc.name", "skipped"));
        extra.push_back(nextScale);
        extraAttrs.push_back(named("bwc.state_update", "loss_scale.scale"));
        extra.push_back(nextGood);
        extraAttrs.push_back(named("bwc.state_update", "loss_scale.good"));
      }
      auto ret2 = cast<func::ReturnOp>(body.getTerminator());
      SmallVector<Value> all(ret2.getOperands());
      SmallVector<Attribute> allAttrs(f.getAllResultAttrs().getValue());
      // loss first, then the scale report, then the rest.
      all.insert(all.begin() + 1, extra.begin(),
                 extra.begin() + (dynamicScale ? 2 : 1));
      allAttrs.insert(allAttrs.begin() + 1, extraAttrs.begin(),
                      extraAttrs.begin() + (dynamicScale ? 2 : 1));
      if (dynamicScale) {
        all.append(extra.begin() + 2, extra.end());
        allAttrs.append(extraAttrs.begin() + 2, extraAttrs.end());
      }
      OpBuilder rb(ret2);
      if (failed(setResults(f, ret2, rb, all, allAttrs)))
        return failure();
    }

    SmallVector<Attribute> paramNames;
    for (const std::string &n : names)
      paramNames.push_back(StringAttr::get(ctx, n));
    SmallVector<NamedAttribute> training = {
        NamedAttribute(StringAttr::get(ctx, "loss"),
                       StringAttr::get(ctx, loss)),
        NamedAttribute(StringAttr::get(ctx, "optimizer"),
                       StringAttr::get(ctx, optimizer)),
        NamedAttribute(StringAttr::get(ctx, "params"),
                       ArrayAttr::get(ctx, paramNames))};
    if (optimizer != "none")
      training.push_back(
          NamedAttribute(StringAttr::get(ctx, "lr"),
                         FloatAttr::get(Float64Type::get(ctx), lr)));
    f->setAttr("bwc.training", DictionaryAttr::get(ctx, training));
    return success();
  }

  /// Replaces the return with `results` and sets the function type.
  static LogicalResult setResults(func::FuncOp f, func::ReturnOp ret,
                                  OpBuilder &ob, ArrayRef<Value> results,
                                  ArrayRef<Attribute> attrs) {
    func::ReturnOp::create(ob, ret.getLoc(), results);
    ret.erase();
    SmallVector<Type> types;
    for (Value v : results)
      types.push_back(v.getType());
    f.setType(FunctionType::get(f.getContext(), f.getArgumentTypes(), types));
    f.setAllResultAttrs(attrs);
    return success();
  }

  /// Appends a state argument (named, with a zero initial value) of `type`.
  static BlockArgument addZeroState(func::FuncOp f, RankedTensorType type,
                                    StringRef name, double initial = 0.0) {
    MLIRContext *ctx = f.getContext();
    Type elt = type.getElementType();
    Attribute zero = FloatAttr::get(elt, initial);
    unsigned index = f.getNumArguments();
    (void)f.insertArgument(
        index, type,
        DictionaryAttr::get(
            ctx, {NamedAttribute(StringAttr::get(ctx, "bwc.name"),
                                 StringAttr::get(ctx, name)),
                  NamedAttribute(StringAttr::get(ctx, "bwc.state"),
                                 UnitAttr::get(ctx)),
                  NamedAttribute(StringAttr::get(ctx, "bwc.initial_value"),
                                 DenseElementsAttr::get(type, zero))}),
        f.getLoc());
    return f.getArgument(index);
  }

  /// The optimizer step: every parameter becomes state, and its new value
  /// (and Adam's moments and step count) a result marked bwc.state_update.
  LogicalResult buildUpdates(func::FuncOp f, BWCBuilder &b,
                             ArrayRef<BlockArgument> params,
                             ArrayRef<std::string> names, ArrayRef<Value> grads,
                             SmallVectorImpl<Value> &results,
                             SmallVectorImpl<Attribute> &attrs) {
    MLIRContext *ctx = f.getContext();
    // A skipped step (dynamic loss scaling saw a non-finite gradient)
    // keeps every value.
    auto update = [&](Value v, StringRef of) {
      if (stepOk) {
        BlockArgument old;
        for (BlockArgument a : f.getArguments())
          if (auto n =
                  f.getArgAttrOfType<StringAttr>(a.getArgNumber(), "bwc.name");
              n && n.getValue() == of &&
              f.getArgAttr(a.getArgNumber(), "bwc.state"))
            old = a;
        if (old)
          v = b.select(stepOk, v, old);
      }
      results.push_back(v);
      attrs.push_back(DictionaryAttr::get(
          ctx, {NamedAttribute(StringAttr::get(ctx, "bwc.state_update"),
                               StringAttr::get(ctx, of))}));
    };
    for (BlockArgument p : params)
      f.setArgAttr(p.getArgNumber(), "bwc.state", UnitAttr::get(ctx));
    // Adam's step count t (scalar f32), shared by every parameter.
    Value t, tNext;
    if (optimizer == "adam") {
      auto scalar = RankedTensorType::get({}, Float32Type::get(ctx));
      t = addZeroState(f, scalar, "adam.step");
      tNext = b.add(t, b.scalar(1.0, scalar.getElementType()));
    }
    for (auto [p, n, g] : llvm::zip(params, names, grads)) {
      Type elt = BWCBuilder::elementTypeOf(p);
      auto c = [&](double v) { return b.scalar(v, elt); };
      if (optimizer == "sgd") {
        update(b.sub(p, b.mul(c(lr), g)), n);
        continue;
      }
      const double b1 = 0.9, b2 = 0.999, eps = 1e-8;
      auto type = cast<RankedTensorType>(p.getType());
      BlockArgument m = addZeroState(f, type, "adam.m." + n);
      BlockArgument v = addZeroState(f, type, "adam.v." + n);
      Value m2 = b.add(b.mul(c(b1), m), b.mul(c(1 - b1), g));
      Value v2 = b.add(b.mul(c(b2), v), b.mul(c(1 - b2), b.mul(g, g)));
      // Bias corrections 1 - beta^t, in f32 like the step count.
      Value t32 = b.cast(tNext, elt);
      Value mHat = b.div(m2, b.sub(c(1), b.binary(BinaryFn::pow, c(b1), t32)));
      Value vHat = b.div(v2, b.sub(c(1), b.binary(BinaryFn::pow, c(b2), t32)));
      Value w2 = b.sub(
          p, b.mul(c(lr),
                   b.div(mHat, b.add(b.unary(UnaryFn::sqrt, vHat), c(eps)))));
      update(w2, n);
      update(m2, "adam.m." + n);
      update(v2, "adam.v." + n);
    }
    if (t)
      update(tNext, "adam.step");
    return success();
  }
};

} // namespace
