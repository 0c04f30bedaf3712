//===- BWCToLinalg.cpp - The convert-bwc-to-linalg pass -------------------===//
//
// A dialect conversion: every bwc op is illegal afterwards. Tensors of
// unsigned integers become signless (arith has no unsigned types); function
// signatures, calls and returns follow.
//
//===----------------------------------------------------------------------===//
#include "bwc/Conversion/Passes.h"
#include "Patterns.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"

namespace mlir::bwc {
#define GEN_PASS_DEF_CONVERTBWCTOLINALGPASS
#include "bwc/Conversion/Passes.h.inc"
} // namespace mlir::bwc

using namespace mlir;
using namespace mlir::bwc;
using namespace mlir::bwc::lowering;

lowering::BWCTypeConverter::BWCTypeConverter() {
  addConversion([](Type t) { return t; });
  addConversion([](RankedTensorType t) -> Type {
    return t.clone(signlessType(t.getElementType()));
  });
  // Values whose producer is not converted yet cross with a cast that the
  // conversion removes once both sides agree.
  auto materialize = [](OpBuilder &b, Type type, ValueRange inputs,
                        Location loc) -> Value {
    return UnrealizedConversionCastOp::create(b, loc, type, inputs)
        .getResult(0);
  };
  addSourceMaterialization(materialize);
  addTargetMaterialization(materialize);
}

AffineMap lowering::broadcastMap(ArrayRef<int64_t> in, ArrayRef<int64_t> out,
                                 MLIRContext *ctx) {
  SmallVector<AffineExpr> exprs;
  size_t lead = out.size() - in.size();
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] == 1 && out[lead + i] != 1)
      exprs.push_back(getAffineConstantExpr(0, ctx));
    else
      exprs.push_back(getAffineDimExpr(lead + i, ctx));
  }
  return AffineMap::get(out.size(), 0, exprs, ctx);
}

Value lowering::emptyTensor(OpBuilder &b, Location loc,
                            RankedTensorType type) {
  return tensor::EmptyOp::create(b, loc, type.getShape(),
                                 signlessType(type.getElementType()));
}

void mlir::bwc::populateBWCToLinalgPatterns(const TypeConverter &converter,
                                             RewritePatternSet &patterns) {
  populateElementwisePatterns(converter, patterns);
  populateReductionPatterns(converter, patterns);
  populateContractionPatterns(converter, patterns);
  populatePoolPatterns(converter, patterns);
  populateDataMovementPatterns(converter, patterns);
  populateResizePatterns(converter, patterns);
}

namespace {

struct ConvertBWCToLinalgPass
    : public bwc::impl::ConvertBWCToLinalgPassBase<ConvertBWCToLinalgPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    BWCTypeConverter converter;
    RewritePatternSet patterns(ctx);
    populateBWCToLinalgPatterns(converter, patterns);
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                   converter);
    populateCallOpTypeConversionPattern(patterns, converter);
    populateReturnOpTypeConversionPattern(patterns, converter);

    ConversionTarget target(*ctx);
    target.addIllegalDialect<BWCDialect>();
    target.addLegalDialect<linalg::LinalgDialect, tensor::TensorDialect,
                           arith::ArithDialect, math::MathDialect>();
    target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp op) {
      return converter.isSignatureLegal(op.getFunctionType()) &&
             converter.isLegal(&op.getBody());
    });
    target.addDynamicallyLegalOp<func::CallOp, func::ReturnOp>(
        [&](Operation *op) { return converter.isLegal(op); });
    target.markUnknownOpDynamicallyLegal(
        [&](Operation *op) { return converter.isLegal(op); });
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
