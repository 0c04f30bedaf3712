//===- DriverConfigTest.cpp - The CUDA drivers refuse a bad bwc.config ----===//
//
// bwc-compile always runs bwc-configure-kernels, which never writes these
// configurations, so the drivers' own checks (against a later pass such as
// bwc-tile writing a field the driver cannot honour) are tested here, on
// hand-written kernels: each must fail with its diagnostic, never build a
// kernel that computes something else.
//
//===----------------------------------------------------------------------===//
#include "bwc/Target/CUDA/CudaTarget.h"

#include "bwc/Dialect/BWC/IR/BWCOps.h"
#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::bwc;

namespace {

constexpr const char *kSoftmax = R"(
func.func private @k(%x: tensor<8x64xf32>) -> tensor<8x64xf32> attributes {bwc.kernel, bwc.config = CONFIG} {
  %m = bwc.reduce max %x axes = [1] keepdims = true : (tensor<8x64xf32>) -> tensor<8x1xf32>
  %d = bwc.binary sub %x, %m : (tensor<8x64xf32>, tensor<8x1xf32>) -> tensor<8x64xf32>
  return %d : tensor<8x64xf32>
})";

constexpr const char *kTransposedReuse = R"(
func.func private @k(%x: tensor<8x8xf32>) -> tensor<8x8xf32> attributes {bwc.kernel, bwc.config = CONFIG} {
  %m = bwc.reduce sum %x axes = [1] keepdims = true : (tensor<8x8xf32>) -> tensor<8x1xf32>
  %t = bwc.transpose %x perm = [1, 0] : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %y = bwc.binary sub %t, %m : (tensor<8x8xf32>, tensor<8x1xf32>) -> tensor<8x8xf32>
  return %y : tensor<8x8xf32>
})";

constexpr const char *kColumnSum = R"(
func.func private @k(%x: tensor<64x32xf32>) -> tensor<32xf32> attributes {bwc.kernel, bwc.config = CONFIG} {
  %m = bwc.reduce sum %x axes = [0] keepdims = false : (tensor<64x32xf32>) -> tensor<32xf32>
  return %m : tensor<32xf32>
})";

constexpr const char *kColumnSoftmax = R"(
func.func private @k(%x: tensor<100x40xf32>) -> tensor<100x40xf32> attributes {bwc.kernel, bwc.config = CONFIG} {
  %m = bwc.reduce max %x axes = [0] keepdims = true : (tensor<100x40xf32>) -> tensor<1x40xf32>
  %d = bwc.binary sub %x, %m : (tensor<100x40xf32>, tensor<1x40xf32>) -> tensor<100x40xf32>
  %e = bwc.unary exp %d : (tensor<100x40xf32>) -> tensor<100x40xf32>
  %s = bwc.reduce sum %e axes = [0] keepdims = true : (tensor<100x40xf32>) -> tensor<1x40xf32>
  %y = bwc.binary div %e, %s : (tensor<100x40xf32>, tensor<1x40xf32>) -> tensor<100x40xf32>
  return %y : tensor<100x40xf32>
})";

/// A value computed from the column max read at another column.
constexpr const char *kColumnTransposed = R"(
func.func private @k(%x: tensor<32x32xf32>) -> tensor<32x32xf32> attributes {bwc.kernel, bwc.config = CONFIG} {
  %m = bwc.reduce max %x axes = [0] keepdims = true : (tensor<32x32xf32>) -> tensor<1x32xf32>
  %d = bwc.binary sub %x, %m : (tensor<32x32xf32>, tensor<1x32xf32>) -> tensor<32x32xf32>
  %t = bwc.transpose %d perm = [1, 0] : (tensor<32x32xf32>) -> tensor<32x32xf32>
  return %t : tensor<32x32xf32>
})";

/// The column max's input also read transposed: fits the column driver,
/// but a cached column would be read at another index.
constexpr const char *kColumnTransposedInput = R"(
func.func private @k(%x: tensor<32x32xf32>) -> tensor<32x32xf32> attributes {bwc.kernel, bwc.config = CONFIG} {
  %m = bwc.reduce max %x axes = [0] keepdims = true : (tensor<32x32xf32>) -> tensor<1x32xf32>
  %t = bwc.transpose %x perm = [1, 0] : (tensor<32x32xf32>) -> tensor<32x32xf32>
  %y = bwc.binary sub %t, %m : (tensor<32x32xf32>, tensor<1x32xf32>) -> tensor<32x32xf32>
  return %y : tensor<32x32xf32>
})";

constexpr const char *kExp = R"(
func.func private @k(%x: tensor<64x32xf32>) -> tensor<64x32xf32> attributes {bwc.kernel, bwc.config = CONFIG} {
  %e = bwc.unary exp %x : (tensor<64x32xf32>) -> tensor<64x32xf32>
  return %e : tensor<64x32xf32>
})";

constexpr const char *kTranspose = R"(
func.func private @k(%x: tensor<64x32xf32>) -> tensor<32x64xf32> attributes {bwc.kernel, bwc.config = CONFIG} {
  %t = bwc.transpose %x perm = [1, 0] : (tensor<64x32xf32>) -> tensor<32x64xf32>
  return %t : tensor<32x64xf32>
})";

constexpr const char *kMatmulF32 = R"(
func.func private @k(%a: tensor<64x32xf32>, %b: tensor<32x48xf32>) -> tensor<64x48xf32> attributes {bwc.kernel, bwc.config = CONFIG} {
  %m = bwc.matmul %a, %b : (tensor<64x32xf32>, tensor<32x48xf32>) -> tensor<64x48xf32>
  return %m : tensor<64x48xf32>
})";

constexpr const char *kMatmulBf16 = R"(
func.func private @k(%a: tensor<64x32xbf16>, %b: tensor<32x48xbf16>) -> tensor<64x48xbf16> attributes {bwc.kernel, bwc.config = CONFIG} {
  %m = bwc.matmul %a, %b : (tensor<64x32xbf16>, tensor<32x48xbf16>) -> tensor<64x48xbf16>
  return %m : tensor<64x48xbf16>
})";

class DriverConfigTest : public ::testing::Test {
protected:
  DriverConfigTest() {
    // What the compile pipeline has loaded before the drivers run.
    ctx.loadDialect<BWCDialect, func::FuncDialect, arith::ArithDialect,
                    math::MathDialect, memref::MemRefDialect,
                    scf::SCFDialect>();
    loadCudaDialects(ctx);
  }
  /// Builds the gpu.func of kernel `text` under `config`; returns the
  /// diagnostics (empty on success).
  std::string build(StringRef text, StringRef config) {
    std::string source = text.str();
    source.replace(source.find("CONFIG"), 6, config.str());
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &ctx);
    EXPECT_TRUE(module);
    if (!module)
      return "unparsable";
    std::string errors;
    ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
      errors += d.str() + "\n";
      return success();
    });
    bool ok = succeeded(buildGpuKernels(*module, "_bwc"));
    EXPECT_EQ(ok, errors.empty()) << errors;
    return errors;
  }
  MLIRContext ctx;
};

TEST_F(DriverConfigTest, GoodConfigurationsBuild) {
  EXPECT_EQ(build(kSoftmax, "{emitter = \"row_reduction\", block = 64, grid = "
                            "4, rows_per_block = 2, threads_per_row = 32, "
                            "cache_row = 1, row = 64, rows = 8}"),
            "");
  EXPECT_EQ(build(kColumnSum, "{emitter = \"column_reduction\", block = 256, "
                              "grid = 1, columns_per_block = 32, slices = 8}"),
            "");
  EXPECT_EQ(build(kTranspose, "{emitter = \"transpose_tiled\", block = 256, "
                              "grid = 2, tile = 32}"),
            "");
  // Dependent reductions and a whole-shaped output; 100 positions over 8
  // slices: 3 unrolled steps of 32, then the rest.
  EXPECT_EQ(build(kColumnSoftmax,
                  "{emitter = \"column_reduction\", block = 256, grid = 2, "
                  "columns_per_block = 32, slices = 8, unroll = 4}"),
            "");
  // The same with the thread's 13 positions in registers (the last one
  // guarded), and a transposed read of the input without the cache.
  EXPECT_EQ(build(kColumnSoftmax,
                  "{emitter = \"column_reduction\", block = 256, grid = 2, "
                  "columns_per_block = 32, slices = 8, cache_column = 1}"),
            "");
  EXPECT_EQ(build(kColumnTransposedInput,
                  "{emitter = \"column_reduction\", block = 256, grid = 1, "
                  "columns_per_block = 32, slices = 8}"),
            "");
}

TEST_F(DriverConfigTest, ContractionMmaOnlyFor16BitOperands) {
  constexpr const char *tiles = "{emitter = \"contraction_tiled\", block = "
                                "256, grid = 1, tile_m = 64, tile_n = 64, "
                                "tile_k = 16, mma = ";
  EXPECT_EQ(build(kMatmulBf16, std::string(tiles) + "1}"), "");
  EXPECT_EQ(build(kMatmulBf16, std::string(tiles) + "0}"), "");
  EXPECT_EQ(build(kMatmulF32, std::string(tiles) + "0}"), "");
  EXPECT_NE(build(kMatmulF32, std::string(tiles) + "1}")
                .find("expects f16 or bf16 operands for a contraction_tiled "
                      "'mma' of 1 but got 'f32'"),
            std::string::npos);
  EXPECT_NE(build(kMatmulBf16, std::string(tiles) + "2}")
                .find("expects a contraction_tiled 'mma' of 0 or 1 but got 2 : i64"),
            std::string::npos);
}

TEST_F(DriverConfigTest, RowReductionVectorGroups) {
  // 64-element rows over 32 threads: one pair per thread (vector 2), or
  // one group of 4 that half the threads would find past the row (the
  // group guarded as a whole).
  EXPECT_EQ(build(kSoftmax, "{emitter = \"row_reduction\", block = 32, grid = "
                            "8, rows_per_block = 1, threads_per_row = 32, "
                            "cache_row = 1, vector = 2, row = 64, rows = 8}"),
            "");
  EXPECT_EQ(build(kSoftmax, "{emitter = \"row_reduction\", block = 32, grid = "
                            "8, rows_per_block = 1, threads_per_row = 32, "
                            "cache_row = 1, vector = 4, row = 64, rows = 8}"),
            "");
  EXPECT_NE(build(kSoftmax, "{emitter = \"row_reduction\", block = 32, grid = "
                            "8, rows_per_block = 1, threads_per_row = 32, "
                            "cache_row = 1, vector = 3, row = 64, rows = 8}")
                .find("expects a row-reduction vector of a power of two "
                      "dividing the row"),
            std::string::npos);
  EXPECT_NE(build(kSoftmax, "{emitter = \"row_reduction\", block = 32, grid = "
                            "8, rows_per_block = 1, threads_per_row = 32, "
                            "vector = 2, row = 64, rows = 8}")
                .find("above 1 only with cache_row"),
            std::string::npos);
}

TEST_F(DriverConfigTest, RowReductionRefusesBadShapesAndCaches) {
  EXPECT_NE(build(kSoftmax, "{emitter = \"row_reduction\", block = 64, grid = "
                            "4, rows_per_block = 4, threads_per_row = 32, "
                            "row = 64, rows = 8}")
                .find("expects a row-reduction block of rows_per_block x "
                      "threads_per_row threads"),
            std::string::npos);
  EXPECT_NE(build(kSoftmax, "{emitter = \"row_reduction\", block = 32, grid = "
                            "8, rows_per_block = 2, threads_per_row = 16, "
                            "row = 64, rows = 8}")
                .find("whole warps per row"),
            std::string::npos);
  EXPECT_NE(build(kTransposedReuse,
                  "{emitter = \"row_reduction\", block = 32, grid = 8, "
                  "rows_per_block = 1, threads_per_row = 32, cache_row = 1, "
                  "row = 8, rows = 8}")
                .find("expects cache_row only where"),
            std::string::npos);
}

TEST_F(DriverConfigTest, ColumnReductionRefusesBadBlocksAndKernels) {
  EXPECT_NE(build(kColumnSum, "{emitter = \"column_reduction\", block = 256, "
                              "grid = 1, columns_per_block = 32, slices = 4}")
                .find("expects a column-reduction block of columns_per_block "
                      "x slices threads"),
            std::string::npos);
  EXPECT_NE(build(kSoftmax, "{emitter = \"column_reduction\", block = 256, "
                            "grid = 1, columns_per_block = 32, slices = 8}")
                .find("expects a column-reduction kernel"),
            std::string::npos);
  EXPECT_NE(build(kColumnTransposed,
                  "{emitter = \"column_reduction\", block = 256, grid = 1, "
                  "columns_per_block = 32, slices = 8}")
                .find("expects a column-reduction kernel"),
            std::string::npos);
  EXPECT_NE(build(kColumnSum, "{emitter = \"column_reduction\", block = 256, "
                              "grid = 1, columns_per_block = 32, slices = 8, "
                              "unroll = 0}")
                .find("expects a column-reduction unroll of 1 to 64"),
            std::string::npos);
  // 100 positions over 2 slices: 50 per thread, more than 32 registers.
  EXPECT_NE(build(kColumnSoftmax,
                  "{emitter = \"column_reduction\", block = 64, grid = 2, "
                  "columns_per_block = 32, slices = 2, cache_column = 1}")
                .find("expects cache_column only where a thread holds at most "
                      "32 positions"),
            std::string::npos);
  EXPECT_NE(build(kColumnTransposedInput,
                  "{emitter = \"column_reduction\", block = 256, grid = 1, "
                  "columns_per_block = 32, slices = 8, cache_column = 1}")
                .find("expects cache_column only where"),
            std::string::npos);
}

TEST_F(DriverConfigTest, TransposeTiledRefusesBadBlocksAndKernels) {
  EXPECT_NE(build(kTranspose, "{emitter = \"transpose_tiled\", block = 128, "
                              "grid = 2, tile = 32}")
                .find("expects a transpose_tiled block of 256 threads"),
            std::string::npos);
  EXPECT_NE(
      build(kExp, "{emitter = \"transpose_tiled\", block = 256, grid = "
                  "2, tile = 32}")
          .find("expects transposes with one permutation and input shape"),
      std::string::npos);
}

TEST_F(DriverConfigTest, ContractionTiledRefusesBadTilesAndKernels) {
  EXPECT_NE(build(kExp, "{emitter = \"contraction_tiled\", block = 256, "
                        "grid = 1, tile_m = 64, tile_n = 64, tile_k = 16}")
                .find("expects one float matmul"),
            std::string::npos);
  EXPECT_NE(build(kExp, "{emitter = \"contraction_tiled\", block = 256, "
                        "grid = 1, tile_m = 32, tile_n = 64, tile_k = 16}")
                .find("expects a contraction_tiled block of 256 threads and "
                      "64x64 tiles with tile_k 16 (or 32 with mma)"),
            std::string::npos);
  // tile_k 32 is the tensor-core pipeline's K step only.
  EXPECT_NE(build(kExp, "{emitter = \"contraction_tiled\", block = 256, "
                        "grid = 1, tile_m = 64, tile_n = 64, tile_k = 32}")
                .find("tile_k 16 (or 32 with mma)"),
            std::string::npos);
  EXPECT_NE(build(kExp, "{emitter = \"contraction_tiled\", block = 256, "
                        "grid = 1, tile_m = 64, tile_n = 64, tile_k = 64, "
                        "mma = 1}")
                .find("tile_k 16 (or 32 with mma)"),
            std::string::npos);
}

TEST_F(DriverConfigTest, ContractionThreadRefusesBadRowsChunksAndKernels) {
  // The configurations bwc-tile offers build (K = 32: chunks of 4 f32 or 8
  // bf16 along the lhs rows, or one element).
  EXPECT_EQ(build(kMatmulF32, "{emitter = \"contraction_thread\", block = "
                              "32, grid = 1, rows = 4, chunk = 4}"),
            "");
  EXPECT_EQ(build(kMatmulBf16, "{emitter = \"contraction_thread\", block = "
                               "64, grid = 2, rows = 2, chunk = 8}"),
            "");
  EXPECT_EQ(build(kMatmulF32, "{emitter = \"contraction_thread\", block = "
                              "128, grid = 1, rows = 1, chunk = 1}"),
            "");
  EXPECT_NE(build(kExp, "{emitter = \"contraction_thread\", block = 128, "
                        "grid = 1, rows = 1, chunk = 4}")
                .find("expects one float matmul"),
            std::string::npos);
  // A chunk must be 16 bytes of the lhs (8 f32 are 32) and divide K.
  EXPECT_NE(build(kMatmulF32, "{emitter = \"contraction_thread\", block = "
                              "128, grid = 1, rows = 1, chunk = 8}")
                .find("and a chunk of 1, or of 16 bytes of an A operand"),
            std::string::npos);
  EXPECT_NE(build(kMatmulF32, "{emitter = \"contraction_thread\", block = "
                              "128, grid = 1, rows = 16, chunk = 4}")
                .find("rows <= 8"),
            std::string::npos);
  // Lanes round N = 48 up (64: 16 idle), never below it.
  EXPECT_EQ(build(kMatmulF32, "{emitter = \"contraction_thread\", block = "
                              "64, grid = 4, rows = 2, chunk = 4, lanes = 64}"),
            "");
  EXPECT_NE(build(kMatmulF32, "{emitter = \"contraction_thread\", block = "
                              "64, grid = 4, rows = 2, chunk = 4, lanes = 40}")
                .find("lanes from N = 48 to 2N + 32"),
            std::string::npos);
  EXPECT_NE(build(kMatmulF32, "{emitter = \"contraction_thread\", block = "
                              "128, grid = 1, chunk = 4}")
                .find("expects a positive 'rows'"),
            std::string::npos);
}

} // namespace
