//===- ChannelsLastTest.cpp - Cost model and tracer on channels_last ops --===//
//
// A channels_last conv or pool is the channels-first one with its indices
// permuted: the same flops, the same elements read (through the
// permutation), and, over its first reduced positions, the channel loop
// innermost (consecutive addresses).
//
//===----------------------------------------------------------------------===//
#include "bwc/Analysis/CostModel.h"
#include "bwc/Analysis/IndexTracer.h"

#include "bwc/Dialect/BWC/IR/BWCOps.h"
#include "bwc/Dialect/BWC/Utils/ShapeUtils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include <gtest/gtest.h>

#include <set>

using namespace mlir;
using namespace mlir::bwc;

namespace {

/// A grouped, strided, padded conv (C = 4, F = 6, groups 2, 3x2 window)
/// both ways, and a max pool both ways; arguments x, w (first) and
/// xl, wl (last).
constexpr const char *kProgram = R"(
  func.func @main(%x: tensor<1x4x7x6xf32>, %w: tensor<6x2x3x2xf32>,
                  %xl: tensor<1x7x6x4xf32>, %wl: tensor<3x2x2x6xf32>)
      -> (tensor<1x6x4x6xf32>, tensor<1x4x6x6xf32>, tensor<1x4x3x3xf32>, tensor<1x3x3x4xf32>) {
    %0 = bwc.conv %x, %w strides = [2, 1] dilations = [1, 2] pads = [1, 1, 1, 1] groups = 2
        : (tensor<1x4x7x6xf32>, tensor<6x2x3x2xf32>) -> tensor<1x6x4x6xf32>
    %1 = bwc.conv %xl, %wl strides = [2, 1] dilations = [1, 2] pads = [1, 1, 1, 1] groups = 2 {channels_last}
        : (tensor<1x7x6x4xf32>, tensor<3x2x2x6xf32>) -> tensor<1x4x6x6xf32>
    %2 = bwc.pool max %x kernel = [3, 2] strides = [2, 2] dilations = [1, 1] pads = [0, 0, 0, 0]
        ceil_mode = false count_include_pad = false : (tensor<1x4x7x6xf32>) -> tensor<1x4x3x3xf32>
    %3 = bwc.pool max %xl kernel = [3, 2] strides = [2, 2] dilations = [1, 1] pads = [0, 0, 0, 0]
        ceil_mode = false count_include_pad = false {channels_last} : (tensor<1x7x6x4xf32>) -> tensor<1x3x3x4xf32>
    return %0, %1, %2, %3 : tensor<1x6x4x6xf32>, tensor<1x4x6x6xf32>, tensor<1x4x3x3xf32>, tensor<1x3x3x4xf32>
  })";

class ChannelsLastTest : public ::testing::Test {
protected:
  ChannelsLastTest() {
    ctx.loadDialect<BWCDialect, func::FuncDialect>();
    module = parseSourceString<ModuleOp>(kProgram, &ctx);
    EXPECT_TRUE(module);
    auto f = module->lookupSymbol<func::FuncOp>("main");
    for (Operation &op : f.getBody().front())
      ops.push_back(&op);
  }

  using Read = std::pair<unsigned, int64_t>;
  /// (argument, element) reads of element `idx` of op `n`, in trace order.
  std::vector<Read> reads(unsigned n, ArrayRef<int64_t> idx,
                          int64_t windowIterations) {
    IndexTracer tracer;
    tracer.windowIterations = windowIterations;
    std::vector<Read> out;
    tracer.trace(ops[n]->getResult(0), idx, [&](const TracedRead &r) {
      out.push_back({r.arg, r.element});
    });
    return out;
  }

  /// The channels-first reads of `first` mapped to the channels-last
  /// arguments (x -> xl, w -> wl) and element numbering.
  std::set<Read> asChannelsLast(const std::vector<Read> &first) {
    auto shapeOf = [&](unsigned arg) {
      return cast<RankedTensorType>(
                 module->lookupSymbol<func::FuncOp>("main").getArgumentTypes()[arg])
          .getShape();
    };
    std::set<Read> out;
    for (auto [arg, e] : first) {
      Index logical = delinearize(e, shapeOf(arg));
      SmallVector<int64_t> perm = arg == 0 ? channelsLastPerm(4)
                                           : channelsLastFilterPerm(4);
      unsigned lastArg = arg + 2;
      out.insert({lastArg, linearize(permute(logical, perm), shapeOf(lastArg))});
    }
    return out;
  }

  MLIRContext ctx;
  OwningOpRef<ModuleOp> module;
  SmallVector<Operation *> ops;
};

TEST_F(ChannelsLastTest, SameFlopsAsChannelsFirst) {
  // 2 x (C/groups = 2) x (3 x 2 taps) per output, 6 x 4 x 6 outputs.
  EXPECT_EQ(opFlops(ops[0]), 2u * 2 * 6 * (6 * 4 * 6));
  EXPECT_EQ(opFlops(ops[1]), opFlops(ops[0]));
  EXPECT_EQ(opFlops(ops[3]), opFlops(ops[2]));
}

TEST_F(ChannelsLastTest, ConvReadsThePermutedElements) {
  // Output (n, f, h, w) = (0, 4, 2, 3): group 1, input channels 2 and 3.
  std::vector<Read> first = reads(0, {0, 4, 2, 3}, 1 << 20);
  std::vector<Read> last = reads(1, {0, 2, 3, 4}, 1 << 20);
  ASSERT_FALSE(first.empty());
  EXPECT_EQ(std::set<Read>(last.begin(), last.end()), asChannelsLast(first));
}

TEST_F(ChannelsLastTest, PoolReadsThePermutedElements) {
  std::vector<Read> first = reads(2, {0, 3, 1, 2}, 1 << 20);
  std::vector<Read> last = reads(3, {0, 1, 2, 3}, 1 << 20);
  ASSERT_EQ(first.size(), 6u);
  EXPECT_EQ(std::set<Read>(last.begin(), last.end()), asChannelsLast(first));
}

TEST_F(ChannelsLastTest, ChannelLoopIsInnermost) {
  // The first C/groups = 2 reduced positions of a channels_last conv are
  // its two channels at the first tap: consecutive input elements. The
  // channels-first conv's first two positions are two taps of one channel.
  std::vector<Read> last = reads(1, {0, 2, 3, 4}, 2);
  SmallVector<int64_t> inputs;
  for (auto [arg, e] : last)
    if (arg == 2)
      inputs.push_back(e);
  ASSERT_EQ(inputs.size(), 2u);
  EXPECT_EQ(inputs[1] - inputs[0], 1);

  std::vector<Read> first = reads(0, {0, 4, 2, 3}, 2);
  inputs.clear();
  for (auto [arg, e] : first)
    if (arg == 0)
      inputs.push_back(e);
  ASSERT_EQ(inputs.size(), 2u);
  EXPECT_EQ(inputs[1] - inputs[0], 2); // the next tap, dilation 2 along w
}

} // namespace
