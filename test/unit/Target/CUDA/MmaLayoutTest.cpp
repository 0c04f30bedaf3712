//===- MmaLayoutTest.cpp - The mma fragment layout is the PTX ISA's -------===//
//
// contraction_tiled (mma = 1) addresses its shared tiles with upstream
// nvgpu's (lane, value) -> (row, column) maps for mma.sync.m16n8k16. No GPU
// runs in CI, so a wrong map would only show as wrong numbers on the GPU:
// here every lane and value of A, B and the f32 accumulator is compared
// with the fragment tables of the PTX ISA ("Matrix Fragments for
// mma.m16n8k16 with floating point type"), transcribed independently.
//
//===----------------------------------------------------------------------===//
#include "bwc/Target/CUDA/CudaTarget.h"

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/MLIRContext.h"
#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::bwc;

namespace {

std::pair<int64_t, int64_t> at(AffineMap map, int64_t lane, int64_t value) {
  MLIRContext *ctx = map.getContext();
  SmallVector<AffineExpr> dims = {getAffineConstantExpr(lane, ctx),
                                  getAffineConstantExpr(value, ctx)};
  auto fold = [&](AffineExpr e) {
    auto c = dyn_cast<AffineConstantExpr>(e.replaceDims(dims));
    EXPECT_TRUE(c) << "not constant for lane " << lane << " value " << value;
    return c ? c.getValue() : -1;
  };
  EXPECT_EQ(map.getNumResults(), 2u);
  return {fold(map.getResult(0)), fold(map.getResult(1))};
}

TEST(MmaLayout, OperandAIsTheIsaTable) {
  MLIRContext ctx;
  FailureOr<AffineMap> map = mmaFragmentMap(&ctx, MmaOperand::A);
  ASSERT_TRUE(succeeded(map));
  for (int64_t lane = 0; lane < 32; ++lane)
    for (int64_t i = 0; i < 8; ++i) {
      int64_t group = lane >> 2, inGroup = lane % 4;
      int64_t row = (i < 2 || (i >= 4 && i < 6)) ? group : group + 8;
      int64_t col = inGroup * 2 + (i & 1) + (i >= 4 ? 8 : 0);
      EXPECT_EQ(at(*map, lane, i), std::make_pair(row, col))
          << "a" << i << " of lane " << lane;
    }
}

TEST(MmaLayout, OperandBIsTheIsaTable) {
  MLIRContext ctx;
  FailureOr<AffineMap> map = mmaFragmentMap(&ctx, MmaOperand::B);
  ASSERT_TRUE(succeeded(map));
  // The ISA gives B as K x N (row k, col n); the driver's tile is [n][k].
  for (int64_t lane = 0; lane < 32; ++lane)
    for (int64_t i = 0; i < 4; ++i) {
      int64_t group = lane >> 2, inGroup = lane % 4;
      int64_t k = inGroup * 2 + (i & 1) + (i >= 2 ? 8 : 0);
      int64_t n = group;
      EXPECT_EQ(at(*map, lane, i), std::make_pair(n, k))
          << "b" << i << " of lane " << lane;
    }
}

TEST(MmaLayout, AccumulatorIsTheIsaTable) {
  MLIRContext ctx;
  FailureOr<AffineMap> map = mmaFragmentMap(&ctx, MmaOperand::C);
  ASSERT_TRUE(succeeded(map));
  for (int64_t lane = 0; lane < 32; ++lane)
    for (int64_t i = 0; i < 4; ++i) {
      int64_t group = lane >> 2, inGroup = lane % 4;
      int64_t row = i < 2 ? group : group + 8;
      int64_t col = inGroup * 2 + (i & 1);
      EXPECT_EQ(at(*map, lane, i), std::make_pair(row, col))
          << "c" << i << " of lane " << lane;
    }
}

// Every element of each operand is held by exactly one (lane, value).
TEST(MmaLayout, FragmentsCoverEachOperandOnce) {
  MLIRContext ctx;
  struct Case {
    MmaOperand operand;
    int64_t rows, cols, values;
  };
  for (Case c : {Case{MmaOperand::A, 16, 16, 8}, Case{MmaOperand::B, 8, 16, 4},
                 Case{MmaOperand::C, 16, 8, 4}}) {
    FailureOr<AffineMap> map = mmaFragmentMap(&ctx, c.operand);
    ASSERT_TRUE(succeeded(map));
    std::vector<int> seen(c.rows * c.cols, 0);
    for (int64_t lane = 0; lane < 32; ++lane)
      for (int64_t v = 0; v < c.values; ++v) {
        auto [r, col] = at(*map, lane, v);
        ASSERT_TRUE(r >= 0 && r < c.rows && col >= 0 && col < c.cols);
        ++seen[r * c.cols + col];
      }
    for (int s : seen)
      EXPECT_EQ(s, 1);
  }
}

} // namespace
