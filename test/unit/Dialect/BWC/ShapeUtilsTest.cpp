//===- ShapeUtilsTest.cpp - Tests of the shared shape rules ---------------===//
#include "bwc/Dialect/BWC/Utils/ShapeUtils.h"

#include <gtest/gtest.h>
#include <limits>

using namespace mlir::bwc;
using llvm::SmallVector;

namespace {

TEST(BroadcastShapes, NumpyRules) {
  EXPECT_EQ(*broadcastShapes({4, 1, 8}, {3, 1}), (SmallVector<int64_t>{4, 3, 8}));
  EXPECT_EQ(*broadcastShapes({}, {2, 3}), (SmallVector<int64_t>{2, 3}));
  EXPECT_EQ(*broadcastShapes({5}, {1}), (SmallVector<int64_t>{5}));
  // A zero-sized dim broadcasts against 1 and stays zero.
  EXPECT_EQ(*broadcastShapes({0, 3}, {1, 3}), (SmallVector<int64_t>{0, 3}));
  EXPECT_FALSE(broadcastShapes({4, 3}, {4, 2}).has_value());
  EXPECT_FALSE(broadcastShapes({2}, {3}).has_value());
}

TEST(BroadcastsTo, IsOneWay) {
  EXPECT_TRUE(broadcastsTo({1, 8}, {4, 8}));
  EXPECT_TRUE(broadcastsTo({8}, {2, 4, 8}));
  EXPECT_FALSE(broadcastsTo({4, 8}, {1, 8}));
  EXPECT_FALSE(broadcastsTo({2, 4, 8}, {4, 8}));
}

TEST(NormalizeAxis, RangeAndNegatives) {
  EXPECT_EQ(*normalizeAxis(-1, 4), 3);
  EXPECT_EQ(*normalizeAxis(-4, 4), 0);
  EXPECT_EQ(*normalizeAxis(3, 4), 3);
  EXPECT_FALSE(normalizeAxis(4, 4).has_value());
  EXPECT_FALSE(normalizeAxis(-5, 4).has_value());
  EXPECT_FALSE(normalizeAxis(0, 0).has_value());
}

TEST(NormalizeAxes, SortsAndRejectsRepeats) {
  EXPECT_EQ(*normalizeAxes({-1, 0}, 3), (SmallVector<int64_t>{0, 2}));
  EXPECT_FALSE(normalizeAxes({2, -1}, 3).has_value());
  EXPECT_FALSE(normalizeAxes({3}, 3).has_value());
}

TEST(ReducedShape, KeepDims) {
  EXPECT_EQ(reducedShape({2, 3, 4}, {1}, true), (SmallVector<int64_t>{2, 1, 4}));
  EXPECT_EQ(reducedShape({2, 3, 4}, {0, 2}, false), (SmallVector<int64_t>{3}));
  EXPECT_EQ(reducedShape({2, 3}, {0, 1}, false), (SmallVector<int64_t>{}));
}

TEST(WindowOutputSize, FloorAndCeil) {
  // 3x3 conv, pad 1, stride 1 keeps the size.
  EXPECT_EQ(*windowOutputSize(8, 3, 1, 1, 1, 1, false), 8);
  // stride 2: floor((8 + 2 - 3) / 2) + 1 = 4.
  EXPECT_EQ(*windowOutputSize(8, 3, 2, 1, 1, 1, false), 4);
  // dilation 2 widens the window to 5.
  EXPECT_EQ(*windowOutputSize(8, 3, 1, 2, 0, 0, false), 4);
  // 2x2 pool stride 2 on 5: floor gives 2, ceil gives 3.
  EXPECT_EQ(*windowOutputSize(5, 2, 2, 1, 0, 0, false), 2);
  EXPECT_EQ(*windowOutputSize(5, 2, 2, 1, 0, 0, true), 3);
  // Ceil mode may not start a window in the end padding only.
  EXPECT_EQ(*windowOutputSize(4, 2, 2, 1, 0, 1, true), 2);
  EXPECT_FALSE(windowOutputSize(2, 5, 1, 1, 0, 0, false).has_value());
  // Ceil mode, stride 2 not dividing the 5 steps available: ceil(5 / 2)
  // + 1 = 4 windows; the last starts at 6 < in + padBegin = 7, so it stays.
  EXPECT_EQ(*windowOutputSize(6, 2, 2, 1, 1, 0, true), 4);
  EXPECT_EQ(*windowOutputSize(6, 2, 2, 1, 1, 0, false), 3);
}

TEST(WindowOutputSize, OverflowIsNoSize) {
  // A model's pads, dilations or kernel may overflow int64 (fuzz-modelproto,
  // 2026-12-07: pads [0, 1, INT64_MAX, 1]).
  int64_t big = std::numeric_limits<int64_t>::max();
  EXPECT_FALSE(windowOutputSize(5, 3, 1, 1, 0, big, false).has_value());
  EXPECT_FALSE(windowOutputSize(5, 3, 1, 1, big, 1, true).has_value());
  EXPECT_FALSE(windowOutputSize(5, 3, 1, big, 0, 0, false).has_value());
  EXPECT_FALSE(windowOutputSize(5, big, 1, 2, 0, 0, false).has_value());
  // Large but representable: one window.
  EXPECT_EQ(*windowOutputSize(5, 3, big, 1, 0, 0, true), 1);
}

TEST(TransposedConvOutputSize, MatchesOnnxFormula) {
  // stride * (in - 1) + output_padding + (k - 1) * d + 1 - pads
  EXPECT_EQ(transposedConvOutputSize(4, 3, 2, 1, 1, 1, 1), 8);
  EXPECT_EQ(transposedConvOutputSize(3, 3, 1, 1, 0, 0, 0), 5);
  int64_t big = std::numeric_limits<int64_t>::max();
  EXPECT_FALSE(transposedConvOutputSize(3, 3, big, 1, 0, 0, 0).has_value());
  EXPECT_FALSE(transposedConvOutputSize(3, 3, 1, 1, -big, 2, 0).has_value());
}

TEST(Strides, RowMajor) {
  EXPECT_EQ(rowMajorStrides({2, 3, 4}), (SmallVector<int64_t>{12, 4, 1}));
  EXPECT_EQ(numElements({2, 3, 4}), 24);
  EXPECT_EQ(numElements({}), 1);
}

} // namespace
