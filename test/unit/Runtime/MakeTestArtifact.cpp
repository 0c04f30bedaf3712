//===- MakeTestArtifact.cpp - Builds artifacts for runtime tests ----------===//
//
// Wraps a hand-compiled shared object into an artifact so that bwc-run can
// be tested without the compiler. Buffers are numbered in the order the
// options declare them:
//
//   bwc-make-test-artifact -o OUT.bwc --code K.so [--target T]
//     --input NAME:DTYPE:SHAPE          new input buffer
//     --output NAME:DTYPE:SHAPE         new output buffer
//     --output-alias NAME:DTYPE:SHAPE=B output that reuses buffer B
//     --weight DTYPE:SHAPE=V,V,...      new weight buffer (f32/i32/i64)
//     --intermediate BYTES[@OFFSET]     new intermediate (in the arena at
//                                       OFFSET, else its own allocation)
//     --arena BYTES
//     --launch KERNEL:B,B,...           a launch (the kernel is added once)
//     --kernel KERNEL:GRID:BLOCK[:SHARED[:READ,WRITTEN,FLOPS]]
//                                       CUDA launch configuration (GRID and
//                                       BLOCK like 4x1x1) and static cost
//     --cubin FILE  --gpu-arch sm_NN    CUDA cubin and architecture
//
// SHAPE is like 2x3, or "scalar".
//
//===----------------------------------------------------------------------===//

#include "bwc/Runtime/Artifact.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

using namespace bwc::rt;

namespace {

[[noreturn]] void die(const std::string &message) {
  std::fprintf(stderr, "bwc-make-test-artifact: %s\n", message.c_str());
  std::exit(1);
}

std::vector<std::string> split(const std::string &s, char sep) {
  std::vector<std::string> parts;
  std::stringstream ss(s);
  std::string part;
  while (std::getline(ss, part, sep))
    parts.push_back(part);
  return parts;
}

DType parseDType(const std::string &s) {
  for (int code = 0; code < 32; ++code)
    if (isValidDType(code) && s == dtypeName(static_cast<DType>(code)))
      return static_cast<DType>(code);
  die("unknown dtype '" + s + "'");
}

/// NAME:DTYPE:SHAPE (or DTYPE:SHAPE when `named` is false).
TensorDesc parseDesc(const std::string &s, bool named) {
  std::vector<std::string> parts = split(s, ':');
  if (parts.size() != (named ? 3u : 2u))
    die("bad tensor '" + s + "'");
  TensorDesc d;
  if (named)
    d.name = parts[0];
  d.dtype = parseDType(parts[named]);
  if (parts[named + 1] != "scalar")
    for (const std::string &dim : split(parts[named + 1], 'x'))
      d.shape.push_back(std::stoll(dim));
  return d;
}

void addWeight(Artifact &a, const std::string &spec) {
  size_t eq = spec.find('=');
  TensorDesc d = parseDesc(spec.substr(0, eq), /*named=*/false);
  Buffer b;
  b.kind = BufferKind::weight;
  b.bytes = d.bytes();
  b.weightOffset = a.weights.size();
  for (const std::string &v : split(spec.substr(eq + 1), ',')) {
    char bytes[8];
    if (d.dtype == DType::f32) {
      float f = std::stof(v);
      std::memcpy(bytes, &f, 4);
    } else if (d.dtype == DType::i32) {
      int32_t i = std::stoi(v);
      std::memcpy(bytes, &i, 4);
    } else if (d.dtype == DType::i64) {
      int64_t i = std::stoll(v);
      std::memcpy(bytes, &i, 8);
    } else {
      die("weights must be f32, i32 or i64");
    }
    a.weights.append(bytes, dtypeSize(d.dtype));
  }
  if (a.weights.size() - b.weightOffset != b.bytes)
    die("weight '" + spec + "' has the wrong number of values");
  a.buffers.push_back(b);
}

/// The kernel named `name`, added when new.
Kernel &kernelNamed(Artifact &a, const std::string &name) {
  for (Kernel &k : a.kernels)
    if (k.name == name)
      return k;
  Kernel k;
  k.name = name;
  k.ops = "test";
  a.kernels.push_back(k);
  return a.kernels.back();
}

void parseDims(const std::string &s, uint32_t dims[3]) {
  std::vector<std::string> parts = split(s, 'x');
  if (parts.size() != 3)
    die("bad dimensions '" + s + "' (expected AxBxC)");
  for (int d = 0; d < 3; ++d)
    dims[d] = std::stoul(parts[d]);
}

/// NAME:GRID:BLOCK[:SHARED[:READ,WRITTEN,FLOPS]]
void configureKernel(Artifact &a, const std::string &spec) {
  std::vector<std::string> parts = split(spec, ':');
  if (parts.size() < 3)
    die("bad kernel '" + spec + "'");
  Kernel &k = kernelNamed(a, parts[0]);
  parseDims(parts[1], k.grid);
  parseDims(parts[2], k.block);
  if (parts.size() > 3)
    k.sharedBytes = std::stoul(parts[3]);
  if (parts.size() > 4) {
    std::vector<std::string> cost = split(parts[4], ',');
    if (cost.size() != 3)
      die("bad kernel cost '" + parts[4] + "'");
    k.bytesRead = std::stoull(cost[0]);
    k.bytesWritten = std::stoull(cost[1]);
    k.flops = std::stoull(cost[2]);
  }
}

std::string readFile(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  if (!f)
    die("cannot read '" + path + "'");
  return std::string(std::istreambuf_iterator<char>(f), {});
}

} // namespace

int main(int argc, char **argv) {
  Artifact a;
  std::string out;
  for (int i = 1; i < argc; ++i) {
    std::string opt = argv[i];
    if (i + 1 >= argc)
      die(opt + " needs a value");
    std::string v = argv[++i];
    if (opt == "-o") {
      out = v;
    } else if (opt == "--target") {
      a.target = v;
    } else if (opt == "--code") {
      a.code = readFile(v);
    } else if (opt == "--cubin") {
      a.cubin = readFile(v);
    } else if (opt == "--gpu-arch") {
      a.gpuArch = v;
    } else if (opt == "--kernel") {
      configureKernel(a, v);
    } else if (opt == "--input" || opt == "--output") {
      bool isInput = opt == "--input";
      TensorDesc d = parseDesc(v, /*named=*/true);
      Buffer b;
      b.kind = isInput ? BufferKind::input : BufferKind::output;
      b.bytes = d.bytes();
      auto &descs = isInput ? a.inputs : a.outputs;
      b.ioIndex = descs.size();
      descs.push_back(d);
      (isInput ? a.inputBuffers : a.outputBuffers).push_back(a.buffers.size());
      a.buffers.push_back(b);
    } else if (opt == "--output-alias") {
      size_t eq = v.rfind('=');
      a.outputs.push_back(parseDesc(v.substr(0, eq), /*named=*/true));
      a.outputBuffers.push_back(std::stoul(v.substr(eq + 1)));
    } else if (opt == "--weight") {
      addWeight(a, v);
    } else if (opt == "--intermediate") {
      std::vector<std::string> parts = split(v, '@');
      Buffer b;
      b.bytes = std::stoull(parts[0]);
      if (parts.size() > 1)
        b.arenaOffset = std::stoull(parts[1]);
      a.buffers.push_back(b);
    } else if (opt == "--arena") {
      a.arenaBytes = std::stoull(v);
    } else if (opt == "--launch") {
      size_t colon = v.find(':');
      std::string name = v.substr(0, colon);
      Launch l;
      l.kernel = &kernelNamed(a, name) - a.kernels.data();
      if (colon != std::string::npos)
        for (const std::string &arg : split(v.substr(colon + 1), ','))
          l.args.push_back(std::stoul(arg));
      a.launches.push_back(l);
    } else {
      die("unknown option '" + opt + "'");
    }
  }
  if (out.empty())
    die("no -o OUT.bwc");
  std::string error;
  if (!writeArtifactFile(out, a, error))
    die(error);
  return 0;
}
