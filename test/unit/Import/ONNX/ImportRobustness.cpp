//===- ImportRobustness.cpp - Mutated models never crash the importer -----===//
//
// Feeds N mutated copies of a real ONNX model to the importer: bytes
// flipped, the file truncated, and protobuf fields dropped or corrupted
// (nodes, attributes, initializers, inputs, dims). Every copy must either
// import or be rejected with an error; a crash, an AddressSanitizer report or
// a hang (SIGALRM after 60 s) fails the run. Built with -DBWC_ENABLE_ASAN=ON
// by scripts/test.sh.
//
// Usage: bwc-import-robustness MODEL.onnx N [SEED] [--input-shape=...]...
//
//===----------------------------------------------------------------------===//
#include "bwc/Import/ONNX/Importer.h"

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
  onnx::GraphProto *g = model.mutable_graph();
  auto dropAt = [&](auto *repeated) {
    if (repeated->size() == 0)
      return;
    int i = below(repeated->size());
    repeated->SwapElements(i, repeated->size() - 1);
    repeated->RemoveLast();
  };
  switch (below(7)) {
  case 0:
    kind = "drop-node";
    dropAt(g->mutable_node());
    break;
  case 1: {
    kind = "drop-attribute";
    if (g->node_size())
      dropAt(g->mutable_node(below(g->node_size()))->mutable_attribute());
    break;
  }
  case 2:
    kind = "drop-initializer";
    dropAt(g->mutable_initializer());
    break;
  case 3:
    kind = "drop-input";
    if (g->node_size())
      dropAt(g->mutable_node(below(g->node_size()))->mutable_input());
    break;
  case 4: {
    kind = "corrupt-attribute";
    if (!g->node_size())
      break;
    auto *node = g->mutable_node(below(g->node_size()));
    if (!node->attribute_size())
      break;
    auto *a = node->mutable_attribute(below(node->attribute_size()));
    static const int64_t values[] = {-1, 0, 1, 7, -1000000, 1LL << 40};
    a->set_i(values[below(6)]);
    for (int i = 0; i < a->ints_size(); ++i)
      a->set_ints(i, values[below(6)]);
    a->set_f(-a->f());
    if (below(2))
      a->add_ints(values[below(6)]);
    break;
  }
  case 5: {
    kind = "corrupt-dims";
    if (!g->initializer_size())
      break;
    auto *t = g->mutable_initializer(below(g->initializer_size()));
    if (t->dims_size())
      t->set_dims(below(t->dims_size()), below(2) ? -3 : (1LL << 33));
    break;
  }
  default:
    kind = "rename-tensor";
    if (g->node_size()) {
      auto *node = g->mutable_node(below(g->node_size()));
      if (node->output_size())
        node->set_output(0, node->input_size() ? node->input(0) : "x");
    }
    break;
  }
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
