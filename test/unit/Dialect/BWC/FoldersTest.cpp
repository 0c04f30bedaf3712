//===- FoldersTest.cpp - Constant folding of exporters' shape arithmetic --===//
//
// Builds the sub-graph PyTorch writes for `x.reshape(x.shape[0], -1)` out of
// bwc ops with createOrFold and checks that it collapses to one constant.
//
//===----------------------------------------------------------------------===//
#include "bwc/Dialect/BWC/IR/BWCOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::bwc;

namespace {

class FoldersTest : public ::testing::Test {
protected:
  FoldersTest() : builder(&ctx) {
    ctx.loadDialect<BWCDialect>();
    module = ModuleOp::create(builder.getUnknownLoc());
    builder.setInsertionPointToEnd(module->getBody());
  }
  Value i64Const(ArrayRef<int64_t> values) {
    auto type = RankedTensorType::get({(int64_t)values.size()},
                                      builder.getI64Type());
    return ConstantOp::create(builder, builder.getUnknownLoc(),
                              DenseElementsAttr::get(type, values));
  }
  static SmallVector<int64_t> valuesOf(Value v) {
    auto c = v.getDefiningOp<ConstantOp>();
    EXPECT_TRUE(c) << "value was not folded to a constant";
    SmallVector<int64_t> out;
    if (c)
      for (APInt x : cast<DenseElementsAttr>(c.getValue()).getValues<APInt>())
        out.push_back(x.getSExtValue());
    return out;
  }

  MLIRContext ctx;
  OpBuilder builder;
  OwningOpRef<ModuleOp> module;
};

TEST_F(FoldersTest, ShapeGatherConcatChainFolds) {
  Location loc = builder.getUnknownLoc();
  Value shape = i64Const({8, 3, 4, 4});
  Value index = ConstantOp::create(
      builder, loc,
      DenseElementsAttr::get(RankedTensorType::get({}, builder.getI64Type()),
                             ArrayRef<int64_t>{0}));
  auto scalarTy = RankedTensorType::get({}, builder.getI64Type());
  Value batch = builder.createOrFold<GatherOp>(loc, scalarTy, shape, index,
                                               builder.getI64IntegerAttr(0));
  auto vecTy = RankedTensorType::get({1}, builder.getI64Type());
  Value batch1 = builder.createOrFold<ReshapeOp>(loc, vecTy, batch);
  auto shapeTy = RankedTensorType::get({2}, builder.getI64Type());
  Value target = builder.createOrFold<ConcatOp>(
      loc, shapeTy, ValueRange{batch1, i64Const({-1})},
      builder.getI64IntegerAttr(0));
  EXPECT_EQ(valuesOf(target), (SmallVector<int64_t>{8, -1}));
}

TEST_F(FoldersTest, BinaryBroadcastAndIntegerDivision) {
  Location loc = builder.getUnknownLoc();
  auto ty = RankedTensorType::get({3}, builder.getI64Type());
  Value q = builder.createOrFold<BinaryOp>(loc, ty, BinaryFn::div,
                                           i64Const({-7, 9, 12}),
                                           i64Const({2}));
  EXPECT_EQ(valuesOf(q), (SmallVector<int64_t>{-3, 4, 6}));
  Value m = builder.createOrFold<BinaryOp>(loc, ty, BinaryFn::mod,
                                           i64Const({-7, 9, 12}),
                                           i64Const({5}));
  // ONNX Mod (fmod=0) takes the divisor's sign, like Python.
  EXPECT_EQ(valuesOf(m), (SmallVector<int64_t>{3, 4, 2}));
}

TEST_F(FoldersTest, DivisionByZeroIsNotFolded) {
  Location loc = builder.getUnknownLoc();
  auto ty = RankedTensorType::get({1}, builder.getI64Type());
  Value q = builder.createOrFold<BinaryOp>(loc, ty, BinaryFn::div,
                                           i64Const({1}), i64Const({0}));
  EXPECT_TRUE(q.getDefiningOp<BinaryOp>());
}

TEST_F(FoldersTest, SliceWithNegativeStepReverses) {
  Location loc = builder.getUnknownLoc();
  auto ty = RankedTensorType::get({2}, builder.getI64Type());
  Value s = builder.createOrFold<SliceOp>(
      loc, ty, i64Const({10, 20, 30, 40}),
      builder.getDenseI64ArrayAttr({3}), builder.getDenseI64ArrayAttr({-2}));
  EXPECT_EQ(valuesOf(s), (SmallVector<int64_t>{40, 20}));
}

TEST_F(FoldersTest, TransposeOfConstant) {
  Location loc = builder.getUnknownLoc();
  auto inTy = RankedTensorType::get({2, 3}, builder.getI64Type());
  Value in = ConstantOp::create(
      builder, loc,
      DenseElementsAttr::get(inTy, ArrayRef<int64_t>{1, 2, 3, 4, 5, 6}));
  auto outTy = RankedTensorType::get({3, 2}, builder.getI64Type());
  Value t = builder.createOrFold<TransposeOp>(
      loc, outTy, in, builder.getDenseI64ArrayAttr({1, 0}));
  EXPECT_EQ(valuesOf(builder.createOrFold<ReshapeOp>(
                loc, RankedTensorType::get({6}, builder.getI64Type()), t)),
            (SmallVector<int64_t>{1, 4, 2, 5, 3, 6}));
}

} // namespace
