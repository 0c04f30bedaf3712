//===- CompilerTest.cpp - The compiler API --------------------------------===//
//
// compile() from bytes: an MLIR program to a CPU artifact with its report,
// option and source errors as formatted diagnostics, and the ONNX input
// values given as TensorProto bytes.
//
//===----------------------------------------------------------------------===//

#include "bwc/Compiler/Compiler.h"

#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::bwc;

namespace {

constexpr const char *kRelu = R"mlir(
func.func @main(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = bwc.unary relu %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
)mlir";

FailureOr<CompileResult> compileText(const std::string &text,
                                     const CompileOptions &options,
                                     std::string &diagnostics) {
  ModelSource source;
  source.path = "relu.mlir";
  source.bytes = text;
  llvm::raw_string_ostream os(diagnostics);
  return compile(source, options, os);
}

TEST(Compiler, CompilesBytesToAnArtifactWithItsReport) {
  std::string diagnostics;
  FailureOr<CompileResult> r =
      compileText(kRelu, CompileOptions(), diagnostics);
  ASSERT_TRUE(succeeded(r)) << diagnostics;
  EXPECT_EQ(r->artifact.target, "cpu");
  ASSERT_EQ(r->artifact.inputs.size(), 1u);
  EXPECT_EQ(r->artifact.inputs[0].shape, (std::vector<int64_t>{4, 8}));
  EXPECT_FALSE(r->artifact.code.empty());
  EXPECT_EQ(r->artifact.launches.size(), 1u);
  EXPECT_NE(r->reportJson.find("\"bytes_read\": 128"), std::string::npos)
      << r->reportJson;
  EXPECT_NE(r->reportText.find("== fused"), std::string::npos);
  EXPECT_EQ(r->artifact.report, r->reportJson);
}

TEST(Compiler, BadOptionIsOneDiagnostic) {
  CompileOptions options;
  options.precision = "fp8";
  std::string diagnostics;
  EXPECT_TRUE(failed(compileText(kRelu, options, diagnostics)));
  EXPECT_EQ(diagnostics, "error: unknown --precision 'fp8' (expected fp32, "
                         "fp16 or bf16)\n");
}

TEST(Compiler, ParseErrorNamesFileAndLine) {
  std::string diagnostics;
  EXPECT_TRUE(
      failed(compileText("func.func @main( {", CompileOptions(), diagnostics)));
  EXPECT_EQ(diagnostics.rfind("relu.mlir:1:", 0), 0u) << diagnostics;
  EXPECT_NE(diagnostics.find("error:"), std::string::npos);
}

TEST(Compiler, InputShapesApplyToOnnxOnly) {
  CompileOptions options;
  options.inputShapes = {"x=4x8"};
  std::string diagnostics;
  EXPECT_TRUE(failed(compileText(kRelu, options, diagnostics)));
  EXPECT_NE(diagnostics.find("apply to ONNX models only"), std::string::npos);
}

TEST(Compiler, ValidateOptionsNamesTheFlag) {
  CompileOptions options;
  EXPECT_EQ(validateOptions(options), "");
  options.emit = "ptx";
  EXPECT_NE(validateOptions(options).find("--emit"), std::string::npos);
  options = CompileOptions();
  options.tune = true;
  options.target = "cuda";
  EXPECT_EQ(validateOptions(options), "--tune expects --tuning-cache=FILE");
}

TEST(Compiler, VersionNamesBwcAndMlir) {
  EXPECT_EQ(compilerVersion().rfind("bwc ", 0), 0u);
  EXPECT_NE(compilerVersion().find("MLIR"), std::string::npos);
}

} // namespace
