//===- ImportRobustness.cpp - Mutated models never crash the importer -----===//
//
// Feeds N mutated copies of a real ONNX model to the importer: bytes
// flipped, the file truncated, and the structural mutations of the
// structure-aware fuzz target (test/fuzz/ModelMutator.h: nodes dropped,
// rewired or retyped, attributes, shapes, dtypes and initializers
// corrupted). Every copy must either
// import or be rejected with an error; a crash, an AddressSanitizer report or
// a hang (SIGALRM after 60 s) fails the run. Built with -DBWC_ENABLE_ASAN=ON
// by scripts/test.sh.
//
// Usage: bwc-import-robustness MODEL.onnx N [SEED] [--input-shape=...]...
//
//===----------------------------------------------------------------------===//
#include "bwc/Import/ONNX/Importer.h"

#include "ModelMutator.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include "onnx/onnx_pb.h"

#include <csignal>
#include <random>
#include <unistd.h>

using namespace mlir;

namespace {

std::string mutate(const std::string &original, std::mt19937_64 &rng,
                   std::string &kind) {
  std::uniform_int_distribution<int> pick(0, 5);
  std::string bytes = original;
  auto below = [&](size_t n) {
    return n == 0 ? 0 : std::uniform_int_distribution<size_t>(0, n - 1)(rng);
  };
  int k = pick(rng);
  if (k <= 1) {
    kind = "flip";
    int flips = 1 + below(16);
    for (int i = 0; i < flips; ++i)
      bytes[below(bytes.size())] ^= (char)(1 + below(255));
    return bytes;
  }
  if (k == 2) {
    kind = "truncate";
    bytes.resize(below(bytes.size()));
    return bytes;
  }
  onnx::ModelProto model;
  if (!model.ParseFromString(original))
    return bytes;
  bwc::fuzz::mutateModel(model, rng, kind);
  return model.SerializeAsString();
}

void onAlarm(int) {
  const char msg[] = "bwc-import-robustness: an import hung (60 s)\n";
  (void)!write(2, msg, sizeof(msg) - 1);
  _exit(3);
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 3) {
    llvm::errs() << "usage: bwc-import-robustness MODEL.onnx N [SEED] "
                    "[--input-shape=NAME=DIMS]...\n";
    return 2;
  }
  bwc::OnnxImportOptions options;
  uint64_t seed = 1;
  int positional = 0;
  for (int i = 3; i < argc; ++i) {
    llvm::StringRef a(argv[i]);
    if (a.consume_front("--input-shape=")) {
      std::string err = bwc::parseInputShape(a, options);
      if (!err.empty()) {
        llvm::errs() << err << "\n";
        return 2;
      }
    } else if (positional++ == 0) {
      seed = std::strtoull(argv[i], nullptr, 10);
    }
  }
  auto buf = llvm::MemoryBuffer::getFile(argv[1], false, false);
  if (!buf) {
    llvm::errs() << "cannot read " << argv[1] << "\n";
    return 2;
  }
  std::string original = (*buf)->getBuffer().str();
  int n = std::atoi(argv[2]);
  std::mt19937_64 rng(seed);
  std::signal(SIGALRM, onAlarm);
  int imported = 0, rejected = 0;
  std::map<std::string, int> kinds;
  for (int i = 0; i < n; ++i) {
    std::string kind;
    std::string bytes = mutate(original, rng, kind);
    ++kinds[kind];
    MLIRContext ctx;
    // Diagnostics are expected; count them instead of printing thousands.
    int errors = 0;
    ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
      errors += d.getSeverity() == DiagnosticSeverity::Error;
      return success();
    });
    alarm(60);
    OwningOpRef<ModuleOp> module = bwc::importOnnxBuffer(
        bytes, /*isText=*/false, "mutant.onnx", ".", &ctx, options);
    alarm(0);
    if (module) {
      ++imported;
    } else {
      if (errors == 0) {
        llvm::errs() << "mutant " << i << " (" << kind
                     << ") was rejected without an error message\n";
        return 1;
      }
      ++rejected;
    }
  }
  llvm::outs() << "mutations:";
  for (auto &[k, c] : kinds)
    llvm::outs() << " " << k << "=" << c;
  llvm::outs() << "\n" << n << " mutated models: " << imported
               << " imported, " << rejected
               << " rejected with an error, 0 crashes or hangs\n";
  return 0;
}
