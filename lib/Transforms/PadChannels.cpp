//===- PadChannels.cpp - Output channels padded to whole warps ------------===//
//
// A channels-last convolution's kernel gives each lane one output, lanes
// along the output channels F. When F is not a multiple of the warp's 32
// lanes, warps straddle two output positions and the filter rows
// [K..., C, F] start at every alignment, so most requests touch one sector
// more than their bytes need (oww_melspec's STFT convolutions, F = 257:
// cuda-sim's sector efficiency 0.82). Computing F' = F rounded up to 32
// channels, with zero filter columns and bias, puts every warp on one
// output position and every filter row on a sector boundary; a slice takes
// the F real channels back, after the unary and scalar ops that follow the
// convolution, so its epilogue still fuses with it.
//
// The access model decides: the convolution alone in both forms (DRAM
// bytes fetched in sectors, configured as bwc-compile configures it), and
// then the whole fused program with and without the paddings the first
// price accepted. docs/passes/bwc-pad-channels.md.
//
//===----------------------------------------------------------------------===//
#include "bwc/Transforms/Passes.h"

#include "bwc/Analysis/FetchedBytes.h"
#include "bwc/Dialect/BWC/IR/BWCOps.h"
#include "bwc/Dialect/BWC/Utils/ConstantData.h"
#include "mlir/IR/IRMapping.h"

#include <cstring>

namespace mlir::bwc {
#define GEN_PASS_DEF_PADCHANNELSPASS
#include "bwc/Transforms/Passes.h.inc"
} // namespace mlir::bwc

using namespace mlir;
using namespace mlir::bwc;

namespace {

constexpr int64_t kLanes = 32;

/// `attr` with its innermost dim widened to `width`, zero-filled; null when
/// its data cannot be read (an unreadable resource, sub-byte elements).
ElementsAttr padInnermost(ElementsAttr attr, int64_t width) {
  auto oldType = cast<RankedTensorType>(attr.getType());
  SmallVector<int64_t> shape(oldType.getShape());
  int64_t inner = shape.back();
  shape.back() = width;
  auto type = oldType.clone(shape);
  std::optional<std::vector<char>> raw = constantBytes(attr);
  if (!raw || !inner)
    return {};
  int64_t rows = oldType.getNumElements() / inner;
  int64_t size = raw->size() / oldType.getNumElements();
  std::vector<char> out(type.getNumElements() * size, 0);
  for (int64_t r = 0; r < rows; ++r)
    std::memcpy(&out[r * width * size], &(*raw)[r * inner * size],
                inner * size);
  return constantFromBytes(attr, type, out, "_padded");
}

/// A constant operand's value, or null.
ElementsAttr constantOf(Value v) {
  auto c = v ? v.getDefiningOp<ConstantOp>() : ConstantOp();
  return c ? c.getValue() : ElementsAttr();
}

/// True when every dim of `v` is 1 (a scalar that broadcasts anywhere).
bool isScalarLike(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.getNumElements() == 1;
}

/// The channels F' a candidate would compute, or 0 when it is none: a
/// channels-last, groups-1 direct convolution with constant filter and
/// bias whose F is not a multiple of 32 and pads by at most a quarter.
int64_t paddedChannels(ConvOp conv) {
  if (!conv.getChannelsLast() || conv.getTransposed() || conv.getGroups() != 1)
    return 0;
  if (!constantOf(conv.getFilter()) ||
      (conv.getBias() && !constantOf(conv.getBias())))
    return 0;
  int64_t f = cast<RankedTensorType>(conv.getType()).getShape().back();
  int64_t padded = (f + kLanes - 1) / kLanes * kLanes;
  if (f % kLanes == 0 || 4 * padded > 5 * f)
    return 0;
  return padded;
}

struct PadChannelsPass : mlir::bwc::impl::PadChannelsPassBase<PadChannelsPass> {
  using PadChannelsPassBase::PadChannelsPassBase;

  /// The filter, bias and result types of `conv` computing `padded`
  /// channels.
  static SmallVector<Type> paddedTypes(ConvOp conv, int64_t padded) {
    SmallVector<Type> types;
    for (Value v : conv->getOperands()) {
      auto t = cast<RankedTensorType>(v.getType());
      SmallVector<int64_t> shape(t.getShape());
      if (v != conv.getInput())
        shape.back() = padded;
      types.push_back(t.clone(shape));
    }
    auto r = cast<RankedTensorType>(conv.getType());
    SmallVector<int64_t> shape(r.getShape());
    shape.back() = padded;
    types.push_back(r.clone(shape));
    return types;
  }

  /// Rewrites `conv` to compute `padded` channels and slices the real ones
  /// back after the unary and scalar ops that read it alone. False when a
  /// constant cannot be read.
  static bool pad(ConvOp conv, int64_t padded) {
    OpBuilder b(conv);
    Location loc = conv.getLoc();
    SmallVector<Value> operands = {conv.getInput()};
    for (Value v : conv->getOperands().drop_front()) {
      ElementsAttr wide = padInnermost(constantOf(v), padded);
      if (!wide)
        return false;
      operands.push_back(ConstantOp::create(b, v.getLoc(), wide));
    }
    SmallVector<Type> types = paddedTypes(conv, padded);
    Operation *wide = b.clone(*conv);
    wide->setOperands(operands);
    wide->getResult(0).setType(types.back());
    // The epilogue the slice follows: sole readers of the value that read
    // it alone or with scalars, each cloned on the padded value.
    SmallVector<Operation *> replaced = {conv};
    Value from = conv.getResult(), value = wide->getResult(0);
    Operation *last = wide;
    while (from.hasOneUse()) {
      Operation *user = *from.getUsers().begin();
      bool elementwise = isa<UnaryOp, CastOp>(user) ||
                         (isa<BinaryOp>(user) &&
                          llvm::all_of(user->getOperands(), [&](Value o) {
                            return o == from || isScalarLike(o);
                          }));
      if (!elementwise || user->getBlock() != conv->getBlock())
        break;
      OpBuilder ub(user);
      IRMapping map;
      map.map(from, value);
      Operation *clone = ub.clone(*user, map);
      auto t = cast<RankedTensorType>(user->getResult(0).getType());
      clone->getResult(0).setType(
          t.clone(cast<RankedTensorType>(value.getType()).getShape()));
      replaced.push_back(user);
      from = user->getResult(0);
      value = clone->getResult(0);
      last = clone;
    }
    // The real channels: starts 0, steps 1.
    OpBuilder sb(last->getBlock(), std::next(last->getIterator()));
    auto type = cast<RankedTensorType>(from.getType());
    SmallVector<int64_t> zeros(type.getRank(), 0), ones(type.getRank(), 1);
    Value real =
        SliceOp::create(sb, loc, type, value, sb.getDenseI64ArrayAttr(zeros),
                        sb.getDenseI64ArrayAttr(ones));
    from.replaceAllUsesWith(real);
    SmallVector<Operation *> filters;
    for (Value v : conv->getOperands().drop_front())
      filters.push_back(v.getDefiningOp());
    for (Operation *op : llvm::reverse(replaced))
      op->erase();
    for (Operation *op : filters)
      if (op->use_empty())
        op->erase();
    return true;
  }

  void runOnOperation() override {
    if (smCount < 1) {
      getOperation().emitError()
          << "expects sm-count >= 1 but got " << static_cast<int64_t>(smCount);
      return signalPassFailure();
    }
    ModuleOp module = getOperation();
    FetchedBytesPricer pricer(smCount);
    Builder b(&getContext());
    // 1. Each candidate alone, padded and not.
    SmallVector<std::pair<ConvOp, int64_t>> accepted;
    WalkResult walk = module.walk([&](ConvOp conv) {
      int64_t padded = paddedChannels(conv);
      if (!padded)
        return WalkResult::advance();
      SmallVector<Type> types;
      for (Value v : conv->getOperands())
        types.push_back(v.getType());
      FailureOr<double> plain = pricer.standalone(conv, types, conv.getType());
      SmallVector<Type> wide = paddedTypes(conv, padded);
      FailureOr<double> padding = pricer.standalone(
          conv, ArrayRef<Type>(wide).drop_back(), wide.back());
      if (failed(plain) || failed(padding))
        return WalkResult::interrupt();
      // A padding must save a twentieth of the fetched bytes: it computes
      // up to a quarter more.
      bool pays = *padding < 0.95 * *plain;
      conv->setAttr(
          "bwc.pad_channels",
          b.getDictionaryAttr(
              {b.getNamedAttr(
                   "channels",
                   b.getI64IntegerAttr(conv.getType().getShape().back())),
               b.getNamedAttr("padded", b.getI64IntegerAttr(padded)),
               b.getNamedAttr("fetched_bytes", b.getI64IntegerAttr(*plain)),
               b.getNamedAttr("padded_fetched_bytes",
                              b.getI64IntegerAttr(*padding)),
               b.getNamedAttr("chosen", b.getBoolAttr(pays))}));
      if (pays)
        accepted.push_back({conv, padded});
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();
    if (accepted.empty())
      return;
    // 2. The fused program judges: a slice may keep an epilogue apart.
    bool program = static_cast<bool>(module.lookupSymbol<func::FuncOp>("main"));
    OwningOpRef<ModuleOp> before;
    if (program)
      before = module.clone();
    for (auto [conv, padded] : accepted) {
      if (!pad(conv, padded)) {
        conv.emitError() << "cannot read the constant filter or bias to pad";
        return signalPassFailure();
      }
    }
    if (!program)
      return;
    auto plain = pricer.fusedProgram(*before);
    auto padded = pricer.fusedProgram(module);
    if (failed(plain) || failed(padded))
      return signalPassFailure();
    module->setAttr(
        "bwc.pad_check",
        b.getDictionaryAttr(
            {b.getNamedAttr("plain_fetched_bytes",
                            b.getI64IntegerAttr(plain->fetchedBytes)),
             b.getNamedAttr("plain_kernels",
                            b.getI64IntegerAttr(plain->kernels)),
             b.getNamedAttr("padded_fetched_bytes",
                            b.getI64IntegerAttr(padded->fetchedBytes)),
             b.getNamedAttr("padded_kernels",
                            b.getI64IntegerAttr(padded->kernels))}));
    // Fewer fetched bytes, and no kernel more: a slice that no kernel
    // absorbs (a convolution reads it) costs a launch, which at these
    // sizes outweighs the bytes.
    if (padded->fetchedBytes >= plain->fetchedBytes ||
        padded->kernels > plain->kernels) {
      DictionaryAttr check =
          module->getAttrOfType<DictionaryAttr>("bwc.pad_check");
      module.getBodyRegion().takeBody(before->getBodyRegion());
      module->setAttr("bwc.pad_check", check);
      // The per-op decisions stand as priced; the program kept them off.
      module.walk([&](ConvOp conv) {
        if (auto d = conv->getAttrOfType<DictionaryAttr>("bwc.pad_channels")) {
          NamedAttrList l(d);
          l.set("chosen", b.getBoolAttr(false));
          conv->setAttr("bwc.pad_channels", l.getDictionary(&getContext()));
        }
      });
    }
  }
};

} // namespace
