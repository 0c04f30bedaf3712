//===- FuzzCompile.cpp - The compiler fuzz targets' shared body -----------===//

#include "FuzzCompile.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

using namespace mlir::bwc;

namespace {

/// A private folder with one external-data file, made once per process
/// and removed when it exits.
class ModelFolder {
public:
  ModelFolder() {
    char tmpl[] = "/tmp/bwc-fuzz-XXXXXX";
    if (!mkdtemp(tmpl))
      std::abort();
    dir_ = tmpl;
    if (FILE *f = std::fopen(file().c_str(), "wb")) {
      for (int i = 0; i < 4096; ++i)
        std::fputc((i * 37) & 0xff, f);
      std::fclose(f);
    }
  }
  ~ModelFolder() {
    std::remove(file().c_str());
    rmdir(dir_.c_str());
  }
  const std::string &path() const { return dir_; }

private:
  std::string file() const { return dir_ + "/w.bin"; }
  std::string dir_;
};

const std::string &modelFolder() {
  static const ModelFolder folder;
  return folder.path();
}

} // namespace

void mlir::bwc::fuzz::compileInput(const uint8_t *data, size_t size,
                             ModelSource::Format format) {
  if (size == 0)
    return; // an empty ModelSource::bytes means "read the path"
  ModelSource source;
  source.bytes.assign(reinterpret_cast<const char *>(data), size);
  source.format = format;
  source.path = modelFolder() +
                (format == ModelSource::Format::mlir ? "/input.mlir"
                                                     : "/input.onnx");
  CompileOptions options;
  switch (size % 5) {
  case 1:
    options.fusion = "none";
    break;
  case 2:
    options.precision = "fp16";
    break;
  case 3:
    options.codegen = "elemental";
    break;
  case 4:
    // Half of them an optimizer step, whose artifact also carries the
    // model to write trained weights into (WeightsTemplate.h).
    options.train = (size / 5) % 2 ? "sgd:0.1" : "grad";
    break;
  default:
    break;
  }
  // Seven inputs in eight stop at the kernels' LLVM IR (translated and
  // verified): LLVM's optimizer, code generation and the `cc` link took
  // most of an input's time (docs/reliability.md), and they are LLVM's
  // and the system's code, not bwc's. The eighth goes on to the artifact.
  bool toArtifact = (size / 10) % 8 == 0;
  if (!toArtifact)
    options.emit = "llvm";
  std::string diagnostics;
  llvm::raw_string_ostream os(diagnostics);
  mlir::FailureOr<CompileResult> result = compile(source, options, os);
  os.flush();
  if (mlir::failed(result)) {
    if (diagnostics.find("error: ") == std::string::npos) {
      std::fprintf(stderr, "refused without an error diagnostic:\n%s\n",
                   diagnostics.c_str());
      std::abort();
    }
    return;
  }
  if (!toArtifact) {
    // A program without kernels (an identity, constants) defines no
    // function, but the module is always printed.
    if (result->emitted.find("ModuleID") == std::string::npos) {
      std::fprintf(stderr, "compiled without printing the LLVM IR\n");
      std::abort();
    }
    return;
  }
  std::string bytes = ::bwc::rt::serialize(result->artifact);
  ::bwc::rt::Artifact again;
  std::string error;
  if (!::bwc::rt::deserialize(bytes, again, error) ||
      ::bwc::rt::serialize(again) != bytes) {
    std::fprintf(stderr, "compiled an artifact that does not round-trip: %s\n",
                 error.c_str());
    std::abort();
  }
}
