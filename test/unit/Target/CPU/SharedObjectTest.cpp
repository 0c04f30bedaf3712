//===- SharedObjectTest.cpp - The CPU target's kernel object --------------===//
//
// emitSharedObject through the compiler API: kernels with one body are
// compiled once (LLVM's MergeFunctions), each duplicate kept under its own
// name as a thunk of the kept one, and every name still runs.
//
//===----------------------------------------------------------------------===//

#include "bwc/Compiler/Compiler.h"

#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

using namespace mlir;
using namespace mlir::bwc;

namespace {

/// Eight unfused tanh kernels of one shape (one body each), then an exp.
constexpr const char *kChain = R"mlir(
func.func @main(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = bwc.unary tanh %x : (tensor<64x64xf32>) -> tensor<64x64xf32>
  %1 = bwc.unary tanh %0 : (tensor<64x64xf32>) -> tensor<64x64xf32>
  %2 = bwc.unary tanh %1 : (tensor<64x64xf32>) -> tensor<64x64xf32>
  %3 = bwc.unary tanh %2 : (tensor<64x64xf32>) -> tensor<64x64xf32>
  %4 = bwc.unary tanh %3 : (tensor<64x64xf32>) -> tensor<64x64xf32>
  %5 = bwc.unary tanh %4 : (tensor<64x64xf32>) -> tensor<64x64xf32>
  %6 = bwc.unary tanh %5 : (tensor<64x64xf32>) -> tensor<64x64xf32>
  %7 = bwc.unary tanh %6 : (tensor<64x64xf32>) -> tensor<64x64xf32>
  %8 = bwc.unary exp %7 : (tensor<64x64xf32>) -> tensor<64x64xf32>
  return %8 : tensor<64x64xf32>
}
)mlir";

TEST(SharedObject, KernelsWithOneBodyAreCompiledOnce) {
  ModelSource source;
  source.path = "chain.mlir";
  source.bytes = kChain;
  CompileOptions options;
  options.fusion = "none";
  std::string diagnostics;
  llvm::raw_string_ostream os(diagnostics);
  FailureOr<CompileResult> r = compile(source, options, os);
  ASSERT_TRUE(succeeded(r)) << diagnostics;
  ASSERT_EQ(r->artifact.launches.size(), 9u);

  auto object = llvm::object::ObjectFile::createObjectFile(
      llvm::MemoryBufferRef(r->artifact.code, "kernels.so"));
  ASSERT_TRUE(!!object) << llvm::toString(object.takeError());
  std::map<std::string, uint64_t> sizes;
  for (const llvm::object::SymbolRef &sym : (*object)->symbols()) {
    auto name = sym.getName();
    if (!name) {
      llvm::consumeError(name.takeError());
      continue;
    }
    sizes[name->str()] =
        llvm::object::ELFSymbolRef(sym).getSize();
  }
  // The launches name 9 kernels; 8 share a body. One of those 8 holds the
  // code (two loops around tanhf: 336 bytes on x86-64), the 7 others a
  // jump to it (33 bytes: the large code model's address, then jmp); exp
  // has its own body.
  std::vector<uint64_t> tanhSizes;
  for (size_t i = 0; i < 8; ++i) {
    const std::string &name =
        r->artifact.kernels[r->artifact.launches[i].kernel].name;
    ASSERT_TRUE(sizes.count(name)) << name << " is not in the object";
    tanhSizes.push_back(sizes[name]);
  }
  std::sort(tanhSizes.begin(), tanhSizes.end());
  EXPECT_GT(tanhSizes.back(), 100u);
  EXPECT_LE(tanhSizes[6], 64u) << "duplicates were compiled again";
  EXPECT_GT(sizes[r->artifact.kernels[r->artifact.launches[8].kernel].name],
            100u);
}

} // namespace
