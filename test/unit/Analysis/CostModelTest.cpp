//===- CostModelTest.cpp - Hand-computed bytes and flops ------------------===//
#include "bwc/Analysis/CostModel.h"

#include "bwc/Dialect/BWC/IR/BWCOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::bwc;

namespace {

class CostModelTest : public ::testing::Test {
protected:
  CostModelTest() { ctx.loadDialect<BWCDialect, func::FuncDialect>(); }
  func::FuncOp parse(StringRef text) {
    module = parseSourceString<ModuleOp>(text, &ctx);
    EXPECT_TRUE(module);
    return module ? module->lookupSymbol<func::FuncOp>("main") : nullptr;
  }
  Operation *nth(func::FuncOp f, unsigned n) {
    for (Operation &op : f.getBody().front())
      if (!isa<ConstantOp>(op) && n-- == 0)
        return &op;
    return nullptr;
  }
  MLIRContext ctx;
  OwningOpRef<ModuleOp> module;
};

TEST_F(CostModelTest, BroadcastOperandCountsItsRealSize) {
  func::FuncOp f = parse(R"(
    func.func @main(%x: tensor<1024x256xf32>, %b: tensor<256xf32>) -> tensor<1024x256xf32> {
      %0 = bwc.binary add %x, %b : (tensor<1024x256xf32>, tensor<256xf32>) -> tensor<1024x256xf32>
      return %0 : tensor<1024x256xf32>
    })");
  KernelCost c = kernelCost(nth(f, 0));
  EXPECT_EQ(c.bytesRead, 1024u * 256 * 4 + 256 * 4);
  EXPECT_EQ(c.bytesWritten, 1024u * 256 * 4);
  EXPECT_EQ(c.flops, 1024u * 256);
  EXPECT_EQ(c.ops, "binary.add");
}

TEST_F(CostModelTest, AValueReadTwiceCountsOnceAndScalarsAreFree) {
  func::FuncOp f = parse(R"(
    func.func @main(%x: tensor<100xf16>) -> tensor<100xf16> {
      %two = bwc.constant dense<2.0> : tensor<f16>
      %0 = bwc.binary mul %x, %x : (tensor<100xf16>, tensor<100xf16>) -> tensor<100xf16>
      %1 = bwc.binary mul %0, %two : (tensor<100xf16>, tensor<f16>) -> tensor<100xf16>
      return %1 : tensor<100xf16>
    })");
  EXPECT_EQ(kernelCost(nth(f, 0)).bytesRead, 200u);
  // The scalar constant is compiled into the kernel: only %0 is read.
  EXPECT_EQ(kernelCost(nth(f, 1)).bytesRead, 200u);
}

TEST_F(CostModelTest, WeightsCount) {
  func::FuncOp f = parse(R"(
    func.func @main(%x: tensor<8x64xf32>) -> tensor<8x32xf32> {
      %w = bwc.constant dense<1.0> : tensor<64x32xf32>
      %0 = bwc.matmul %x, %w : (tensor<8x64xf32>, tensor<64x32xf32>) -> tensor<8x32xf32>
      return %0 : tensor<8x32xf32>
    })");
  KernelCost c = kernelCost(nth(f, 0));
  EXPECT_EQ(c.bytesRead, (8u * 64 + 64 * 32) * 4);
  EXPECT_EQ(c.bytesWritten, 8u * 32 * 4);
  EXPECT_EQ(c.flops, 2u * 8 * 32 * 64);
  EXPECT_NEAR(c.intensity(), double(c.flops) / c.bytes(), 1e-12);
}

TEST_F(CostModelTest, ConvAndPoolFlops) {
  func::FuncOp f = parse(R"(
    func.func @main(%x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>) -> (tensor<1x6x8x8xf32>, tensor<1x4x4x4xf32>) {
      %0 = bwc.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] groups = 2
          : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x8x8xf32>
      %1 = bwc.pool max %x kernel = [2, 2] strides = [2, 2] dilations = [1, 1] pads = [0, 0, 0, 0]
          ceil_mode = false count_include_pad = false : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
      return %0, %1 : tensor<1x6x8x8xf32>, tensor<1x4x4x4xf32>
    })");
  // Each of the 6*8*8 outputs is a dot product over 2 channels x 9 taps.
  EXPECT_EQ(kernelCost(nth(f, 0)).flops, 2u * 6 * 8 * 8 * 2 * 9);
  EXPECT_EQ(kernelCost(nth(f, 1)).flops, 4u * 4 * 4 * 4);
}

TEST_F(CostModelTest, FusionMovesOnlyItsBoundary) {
  func::FuncOp f = parse(R"(
    func.func @main(%x: tensor<64x128xf32>) -> tensor<64x128xf32> {
      %r = bwc.fusion reduction (%x) : (tensor<64x128xf32>) -> tensor<64x128xf32> {
      ^bb0(%a: tensor<64x128xf32>):
        %m = bwc.reduce max %a axes = [1] keepdims = true : (tensor<64x128xf32>) -> tensor<64x1xf32>
        %d = bwc.binary sub %a, %m : (tensor<64x128xf32>, tensor<64x1xf32>) -> tensor<64x128xf32>
        %e = bwc.unary exp %d : (tensor<64x128xf32>) -> tensor<64x128xf32>
        %s = bwc.reduce sum %e axes = [1] keepdims = true : (tensor<64x128xf32>) -> tensor<64x1xf32>
        %y = bwc.binary div %e, %s : (tensor<64x128xf32>, tensor<64x1xf32>) -> tensor<64x128xf32>
        bwc.yield %y : tensor<64x128xf32>
      }
      return %r : tensor<64x128xf32>
    })");
  KernelCost c = kernelCost(nth(f, 0));
  EXPECT_EQ(c.name, "fusion.reduction");
  EXPECT_EQ(c.bytesRead, 64u * 128 * 4);
  EXPECT_EQ(c.bytesWritten, 64u * 128 * 4);
  // max + sub + exp + sum + div, one flop per element each.
  EXPECT_EQ(c.flops, 5u * 64 * 128);
  EXPECT_EQ(c.ops, "reduce,binary.sub,unary.exp,reduce,binary.div");
}

TEST_F(CostModelTest, ProgramTotalsAndIntermediates) {
  func::FuncOp f = parse(R"(
    func.func @main(%x: tensor<256xf32>) -> tensor<256xf32> {
      %0 = bwc.unary exp %x : (tensor<256xf32>) -> tensor<256xf32>
      %1 = bwc.unary neg %0 : (tensor<256xf32>) -> tensor<256xf32>
      %2 = bwc.binary add %0, %1 : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32>
      return %2 : tensor<256xf32>
    })");
  ProgramCost p = programCost(f);
  ASSERT_EQ(p.kernels.size(), 3u);
  EXPECT_EQ(p.bytesRead, 1024u + 1024 + 2048);
  EXPECT_EQ(p.bytesWritten, 3u * 1024);
  // %0 and %1 are written by one kernel and read by another; %2 is output.
  EXPECT_EQ(p.intermediateBytes, 2u * 1024);
  EXPECT_NEAR(p.estimatedSeconds(1000.0), p.bytes() / 1e12, 1e-18);
}

} // namespace
