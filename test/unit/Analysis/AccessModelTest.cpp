//===- AccessModelTest.cpp - Hand-computed warps of the access model ------===//
#include "bwc/Analysis/AccessModel.h"

#include "bwc/Dialect/BWC/IR/BWCOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Parser/Parser.h"
#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::bwc;

namespace {

class AccessModelTest : public ::testing::Test {
protected:
  AccessModelTest() { ctx.loadDialect<BWCDialect, func::FuncDialect>(); }
  /// The coalescing of @k (the only function of `text`) under `config`.
  KernelCoalescing analyze(StringRef text, StringRef config) {
    module = parseSourceString<ModuleOp>(text, &ctx);
    EXPECT_TRUE(module);
    auto dict = dyn_cast_or_null<DictionaryAttr>(parseAttribute(config, &ctx));
    EXPECT_TRUE(dict);
    auto k = module->lookupSymbol<func::FuncOp>("k");
    FailureOr<KernelCoalescing> c = analyzeCoalescing(k, dict);
    EXPECT_TRUE(succeeded(c));
    return succeeded(c) ? *c : KernelCoalescing();
  }
  MLIRContext ctx;
  OwningOpRef<ModuleOp> module;
};

TEST(CountSectorsTest, ContiguousStridedAndBroadcastWarps) {
  std::vector<int64_t> lanes(32), strided(32), same(32, 5);
  for (int64_t l = 0; l < 32; ++l) {
    lanes[l] = 64 + l;  // f32: 128 bytes from byte 256
    strided[l] = 2 * l; // every other f32: 256 bytes spanned
  }
  SectorCount c = countSectors(lanes, 4);
  EXPECT_EQ(c.usefulBytes, 128);
  EXPECT_EQ(c.sectors, 4);
  EXPECT_EQ(c.idealSectors, 4);
  EXPECT_DOUBLE_EQ(c.efficiency(), 1.0);
  // 128 useful bytes (4 sectors' worth) spread over 8 sectors.
  EXPECT_DOUBLE_EQ(countSectors(strided, 4).efficiency(), 0.5);
  EXPECT_DOUBLE_EQ(countSectors(strided, 4).byteEfficiency(), 0.5);
  // One f32 for the whole warp: one sector, as few as 4 bytes can take
  // (sector efficiency 1, cuda-sim's measure), 4 of its 32 bytes used.
  SectorCount b = countSectors(same, 4);
  EXPECT_EQ(b.usefulBytes, 4);
  EXPECT_EQ(b.sectors, 1);
  EXPECT_DOUBLE_EQ(b.efficiency(), 1.0);
  EXPECT_DOUBLE_EQ(b.byteEfficiency(), 0.125);
  // Misaligned start: 32 f32 from element 1 span 5 sectors for 4 ideal.
  for (int64_t l = 0; l < 32; ++l)
    lanes[l] = 1 + l;
  EXPECT_EQ(countSectors(lanes, 4).sectors, 5);
  EXPECT_DOUBLE_EQ(countSectors(lanes, 4).efficiency(), 0.8);
}

TEST_F(AccessModelTest, ContiguousF32LoopIsFullyCoalesced) {
  KernelCoalescing c = analyze(R"(
    func.func @k(%x: tensor<1024x256xf32>) -> tensor<1024x256xf32> {
      %0 = bwc.unary neg %x : (tensor<1024x256xf32>) -> tensor<1024x256xf32>
      return %0 : tensor<1024x256xf32>
    })",
                               "{emitter = \"loop\", block = 256, grid = 256, "
                               "vector = 4}");
  ASSERT_EQ(c.accesses.size(), 2u);
  // 32 lanes x 4 f32 = 512 bytes = 16 sectors per warp; 31 of the
  // launch's 2048 warps sampled (runs of 6 from 0, 483, 966, 1265 and
  // 1749, the Weyl points, and 2047).
  EXPECT_EQ(c.accesses[0].sampled.sectors, 31 * 16);
  EXPECT_DOUBLE_EQ(c.accesses[0].efficiency(), 1.0);
  EXPECT_DOUBLE_EQ(c.accesses[1].efficiency(), 1.0);
  EXPECT_DOUBLE_EQ(c.efficiency(), 1.0);
}

TEST_F(AccessModelTest, StrideTwoReadWastesHalf) {
  KernelCoalescing c = analyze(R"(
    func.func @k(%x: tensor<8192xf32>) -> tensor<4096xf32> {
      %0 = bwc.slice %x starts = [0] steps = [2] : (tensor<8192xf32>) -> tensor<4096xf32>
      return %0 : tensor<4096xf32>
    })",
                               "{emitter = \"loop\", block = 256, grid = 16, "
                               "vector = 1}");
  EXPECT_DOUBLE_EQ(c.accesses[0].efficiency(), 0.5);
  EXPECT_DOUBLE_EQ(c.accesses[1].efficiency(), 1.0);
  // Per sampled warp one read request (8 sectors, 4 ideal) and one write
  // (4 sectors, 4 ideal): the kernel's sector efficiency is 8 / 12.
  EXPECT_DOUBLE_EQ(c.efficiency(), 8.0 / 12.0);
  EXPECT_DOUBLE_EQ(c.fetchedBytes, (32768.0 + 16384.0) * 12.0 / 8.0);
}

constexpr StringLiteral kTranspose = R"(
    func.func @k(%x: tensor<256x256xf32>) -> tensor<256x256xf32> {
      %0 = bwc.transpose %x perm = [1, 0] : (tensor<256x256xf32>) -> tensor<256x256xf32>
      return %0 : tensor<256x256xf32>
    })";

TEST_F(AccessModelTest, TransposedReadUnderLoopIsOneEighth) {
  KernelCoalescing c = analyze(kTranspose, "{emitter = \"loop\", block = 256, "
                                           "grid = 64, vector = 4}");
  // Every lane's 4 elements lie in 4 different rows: one f32 per sector.
  EXPECT_DOUBLE_EQ(c.accesses[0].efficiency(), 0.125);
  EXPECT_DOUBLE_EQ(c.accesses[1].efficiency(), 1.0);
}

TEST_F(AccessModelTest, TransposeTiledCoalescesBothSides) {
  KernelCoalescing c = analyze(kTranspose,
                               "{emitter = \"transpose_tiled\", block = 256, "
                               "grid = 64, tile = 32}");
  EXPECT_DOUBLE_EQ(c.accesses[0].efficiency(), 1.0);
  EXPECT_DOUBLE_EQ(c.accesses[1].efficiency(), 1.0);
}

/// Every buffer traced and every sector fully useful.
void expectAllTracedAndCoalesced(const KernelCoalescing &c) {
  for (const BufferAccess &a : c.accesses) {
    EXPECT_TRUE(a.traced) << a.name;
    EXPECT_DOUBLE_EQ(a.efficiency(), 1.0) << a.name;
  }
}

TEST_F(AccessModelTest, TransposeTiledReadsOtherOperandsAtTheOutputIndex) {
  KernelCoalescing c = analyze(R"(
    func.func @k(%x: tensor<64x128xf32>, %y: tensor<128x64xf32>) -> tensor<128x64xf32> {
      %0 = bwc.transpose %x perm = [1, 0] : (tensor<64x128xf32>) -> tensor<128x64xf32>
      %1 = bwc.binary add %0, %y : (tensor<128x64xf32>, tensor<128x64xf32>) -> tensor<128x64xf32>
      return %1 : tensor<128x64xf32>
    })",
                               "{emitter = \"transpose_tiled\", block = 256, "
                               "grid = 8, tile = 32}");
  // x through the tile (lanes along its rows), y and the result along the
  // output's rows: 4 tile rows x 4 sectors per sampled warp, all useful.
  expectAllTracedAndCoalesced(c);
  EXPECT_EQ(c.accesses[0].sampled.sectors, 3 * 4 * 4);
}

TEST_F(AccessModelTest, TransposeTiledStagesEveryTransposeOfOnePerm) {
  // Two transposes with one permutation (an STFT's real and imaginary
  // parts): the driver stages both, so both operands are read along
  // their rows. Staging only the first would read y at the output index,
  // across its columns (1/8 of each sector useful).
  KernelCoalescing c = analyze(R"(
    func.func @k(%x: tensor<64x128xf32>, %y: tensor<64x128xf32>) -> tensor<128x64xf32> {
      %0 = bwc.transpose %x perm = [1, 0] : (tensor<64x128xf32>) -> tensor<128x64xf32>
      %1 = bwc.transpose %y perm = [1, 0] : (tensor<64x128xf32>) -> tensor<128x64xf32>
      %2 = bwc.binary add %0, %1 : (tensor<128x64xf32>, tensor<128x64xf32>) -> tensor<128x64xf32>
      return %2 : tensor<128x64xf32>
    })",
                               "{emitter = \"transpose_tiled\", block = 256, "
                               "grid = 8, tile = 32}");
  expectAllTracedAndCoalesced(c);
  EXPECT_EQ(c.accesses[1].sampled.sectors, 3 * 4 * 4);
}

TEST_F(AccessModelTest, BroadcastScalarIsOneSectorPerWarp) {
  KernelCoalescing c = analyze(R"(
    func.func @k(%x: tensor<1024xf32>, %s: tensor<1xf32>) -> tensor<1024xf32> {
      %0 = bwc.binary add %x, %s : (tensor<1024xf32>, tensor<1xf32>) -> tensor<1024xf32>
      return %0 : tensor<1024xf32>
    })",
                               "{emitter = \"loop\", block = 256, grid = 1, "
                               "vector = 4}");
  // 4 useful bytes cost one 32-byte sector per request, as few as they
  // can: a broadcast is not uncoalesced (sharing it between warps is
  // L1's and L2's business).
  EXPECT_DOUBLE_EQ(c.accesses[1].efficiency(), 1.0);
  EXPECT_DOUBLE_EQ(c.accesses[1].sampled.byteEfficiency(), 0.125);
  EXPECT_DOUBLE_EQ(c.efficiency(), 1.0);
}

TEST_F(AccessModelTest, F16Vector8) {
  KernelCoalescing c = analyze(R"(
    func.func @k(%x: tensor<4096xf16>) -> tensor<4096xf16> {
      %0 = bwc.unary neg %x : (tensor<4096xf16>) -> tensor<4096xf16>
      return %0 : tensor<4096xf16>
    })",
                               "{emitter = \"loop\", block = 256, grid = 2, "
                               "vector = 8}");
  // 32 lanes x 8 f16 = 512 bytes = 16 sectors; 512 groups = 16 warps,
  // all sampled (runs of 6 from 0, 3, 7, 9 and 13 cover them).
  EXPECT_EQ(c.accesses[0].sampled.usefulBytes, 16 * 512);
  EXPECT_EQ(c.accesses[0].sampled.sectors, 16 * 16);
  EXPECT_DOUBLE_EQ(c.efficiency(), 1.0);
}

constexpr StringLiteral kRowSum = R"(
    func.func @k(%x: tensor<64x1024xf32>) -> tensor<64xf32> {
      %0 = bwc.reduce sum %x axes = [1] keepdims = false : (tensor<64x1024xf32>) -> tensor<64xf32>
      return %0 : tensor<64xf32>
    })";

TEST_F(AccessModelTest, RowReductionLanesStrideOverTheRow) {
  KernelCoalescing c = analyze(kRowSum, "{emitter = \"row_reduction\", block "
                                        "= 256, grid = 64, rows_per_block = "
                                        "1, row = 1024, rows = 64}");
  EXPECT_DOUBLE_EQ(c.accesses[0].efficiency(), 1.0);
  // Thread 0 of the sampled first warp writes the row's sum alone: one
  // sector for 4 bytes, as few as 4 bytes take.
  EXPECT_EQ(c.accesses[1].sampled.usefulBytes, 4);
  EXPECT_DOUBLE_EQ(c.accesses[1].efficiency(), 1.0);
  EXPECT_DOUBLE_EQ(c.accesses[1].sampled.byteEfficiency(), 0.125);
  EXPECT_DOUBLE_EQ(c.efficiency(), 1.0);
}

TEST_F(AccessModelTest, ColumnReductionUnderThreadPerOutputVsColumnEmitter) {
  constexpr StringLiteral colSum = R"(
    func.func @k(%x: tensor<1024x64xf32>) -> tensor<64xf32> {
      %0 = bwc.reduce sum %x axes = [0] keepdims = false : (tensor<1024x64xf32>) -> tensor<64xf32>
      return %0 : tensor<64xf32>
    })";
  KernelCoalescing t = analyze(colSum, "{emitter = \"thread_per_output\", "
                                       "block = 256, grid = 1}");
  // Lanes are adjacent columns: every iteration reads 128 contiguous bytes.
  EXPECT_DOUBLE_EQ(t.accesses[0].efficiency(), 1.0);
  KernelCoalescing c = analyze(colSum, "{emitter = \"column_reduction\", block "
                                       "= 256, grid = 2, columns_per_block = "
                                       "32, slices = 8}");
  EXPECT_DOUBLE_EQ(c.accesses[0].efficiency(), 1.0);
  EXPECT_DOUBLE_EQ(c.accesses[1].efficiency(), 1.0);
}

TEST_F(AccessModelTest, DependentColumnReductionWritesEveryPosition) {
  // Softmax over axis 0: max, then sum of exp(x - max), then the output at
  // every reduced position of the column.
  KernelCoalescing c = analyze(R"(
    func.func @k(%x: tensor<1024x64xf32>) -> tensor<1024x64xf32> {
      %m = bwc.reduce max %x axes = [0] keepdims = true : (tensor<1024x64xf32>) -> tensor<1x64xf32>
      %d = bwc.binary sub %x, %m : (tensor<1024x64xf32>, tensor<1x64xf32>) -> tensor<1024x64xf32>
      %e = bwc.unary exp %d : (tensor<1024x64xf32>) -> tensor<1024x64xf32>
      %s = bwc.reduce sum %e axes = [0] keepdims = true : (tensor<1024x64xf32>) -> tensor<1x64xf32>
      %y = bwc.binary div %e, %s : (tensor<1024x64xf32>, tensor<1x64xf32>) -> tensor<1024x64xf32>
      return %y : tensor<1024x64xf32>
    })",
                               "{emitter = \"column_reduction\", block = 1024, "
                               "grid = 2, columns_per_block = 32, slices = 32}");
  ASSERT_EQ(c.accesses.size(), 2u);
  // Sampled: block 0 warp 0 (slice 0) and block 1 warp 15 (slice 15), each
  // 32 adjacent columns at 4 positions: 4 x 128 contiguous bytes read and,
  // by every slice, written; each of the 4 positions stands for 8 (a
  // slice's 32 positions), and x is read by the max, the sum and the
  // output (3 x 8 x 1024 bytes).
  EXPECT_EQ(c.accesses[0].sampled.usefulBytes, 3 * 8 * 1024);
  EXPECT_DOUBLE_EQ(c.accesses[0].efficiency(), 1.0);
  EXPECT_EQ(c.accesses[1].sampled.usefulBytes, 8 * 1024);
  EXPECT_DOUBLE_EQ(c.accesses[1].efficiency(), 1.0);
  EXPECT_DOUBLE_EQ(c.efficiency(), 1.0);
}

TEST_F(AccessModelTest, StridedConvWindowIsOneSectorPerLanePerTap) {
  // oww_melspec's STFT as a 1-D convolution (hop 160) under
  // thread_per_output: lanes are consecutive frames, so each tap's request
  // reads 32 floats 640 bytes apart (32 sectors where 4 would do), however
  // well the taps a lane walks through reuse those sectors later (the
  // union the model took before 2026-12-04 said 1.0; cuda-sim counted
  // 0.15 for the kernel). A tap in the padding is read clamped, as the
  // emitter loads it.
  KernelCoalescing c = analyze(R"(
    func.func @k(%x: tensor<1x1x16000xf32>, %w: tensor<8x1x512xf32>) -> tensor<1x8x101xf32> {
      %0 = bwc.conv %x, %w strides = [160] dilations = [1] pads = [256, 256] groups = 1 : (tensor<1x1x16000xf32>, tensor<8x1x512xf32>) -> tensor<1x8x101xf32>
      return %0 : tensor<1x8x101xf32>
    })",
                               "{emitter = \"thread_per_output\", block = "
                               "256, grid = 4}");
  EXPECT_NEAR(c.accesses[0].efficiency(), 0.125, 0.01);
  EXPECT_DOUBLE_EQ(c.accesses[2].efficiency(), 1.0);
  EXPECT_LT(c.efficiency(), 0.2);
}

// analyzeCoalescing keeps its results, keyed by the kernel's signature,
// body and configuration: the key must tell apart what the result depends
// on and nothing else.
TEST_F(AccessModelTest, RememberedResultsFollowBodyAndConfiguration) {
  constexpr StringLiteral loop =
      "{emitter = \"loop\", block = 256, grid = 16, vector = 1}";
  KernelCoalescing strided = analyze(R"(
    func.func @k(%x: tensor<8192xf32>) -> tensor<4096xf32> {
      %0 = bwc.slice %x starts = [0] steps = [2] : (tensor<8192xf32>) -> tensor<4096xf32>
      return %0 : tensor<4096xf32>
    })",
                                     loop);
  // The same body under other function attributes (bwc-tile's records):
  // the same result.
  KernelCoalescing again = analyze(R"(
    func.func @k(%x: tensor<8192xf32>) -> tensor<4096xf32> attributes {bwc.kernel, bwc.coalescing = 0.5 : f64} {
      %0 = bwc.slice %x starts = [0] steps = [2] : (tensor<8192xf32>) -> tensor<4096xf32>
      return %0 : tensor<4096xf32>
    })",
                                   loop);
  EXPECT_DOUBLE_EQ(again.fetchedBytes, strided.fetchedBytes);
  EXPECT_DOUBLE_EQ(again.accesses[0].efficiency(), 0.5);
  // One attribute of the body differs (step 1): another result.
  KernelCoalescing dense = analyze(R"(
    func.func @k(%x: tensor<8192xf32>) -> tensor<4096xf32> {
      %0 = bwc.slice %x starts = [0] steps = [1] : (tensor<8192xf32>) -> tensor<4096xf32>
      return %0 : tensor<4096xf32>
    })",
                                   loop);
  EXPECT_DOUBLE_EQ(dense.accesses[0].efficiency(), 1.0);
  // The same kernel under another configuration: another result.
  KernelCoalescing t1 = analyze(kTranspose, "{emitter = \"loop\", block = "
                                            "256, grid = 64, vector = 4}");
  KernelCoalescing t2 = analyze(kTranspose, "{emitter = \"transpose_tiled\", "
                                            "block = 256, grid = 64, tile = 32}");
  EXPECT_DOUBLE_EQ(t1.accesses[0].efficiency(), 0.125);
  EXPECT_DOUBLE_EQ(t2.accesses[0].efficiency(), 1.0);
}

TEST_F(AccessModelTest, UnknownEmitterIsAnError) {
  module = parseSourceString<ModuleOp>(kRowSum, &ctx);
  ASSERT_TRUE(module);
  auto dict = cast<DictionaryAttr>(
      parseAttribute("{emitter = \"warp_magic\", block = 32, grid = 1}", &ctx));
  std::string message;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
    message = d.str();
    return success();
  });
  EXPECT_TRUE(failed(
      analyzeCoalescing(module->lookupSymbol<func::FuncOp>("k"), dict)));
  EXPECT_NE(message.find("but got 'warp_magic'"), std::string::npos);
  // A failure is not remembered: the second analysis reports it again.
  message.clear();
  EXPECT_TRUE(failed(
      analyzeCoalescing(module->lookupSymbol<func::FuncOp>("k"), dict)));
  EXPECT_NE(message.find("but got 'warp_magic'"), std::string::npos);
}

} // namespace
