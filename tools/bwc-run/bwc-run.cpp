//===- bwc-run.cpp - Runs a compiled bwc artifact -------------------------===//
//
//   bwc-run OUT.bwc [--input NAME=FILE.pb]... [--output-dir D]
//           [--check CASE_DIR] [--tolerance=T] [--abs-tolerance=A]
//           [--bench N] [--measure-peak] [--peak-copy-bytes B]
//           [--peak-gbps G] [--peak-gflops F] [--cuda-graph] [--json FILE]
//           [--device cuda|cuda-sim] [--sanitize LIST] [--profile]
//           [--trace FILE] [--quiet] [--help] [--version]
//
// --input/--output-dir run once and write output_K.pb files; --check runs
// every test_data_set_* of an ONNX test case and compares with its
// references; --bench times N runs after a warm-up and prints the latency
// summary and the per-kernel table (docs/runtime-cuda.md). The artifact's
// target picks the executor (CPU or CUDA); --device=cuda-sim runs a CUDA
// artifact's kernels on the CPU with --sanitize's checks, and --profile
// prints their memory counters (docs/targets/cuda-sim.md). Any bad artifact or
// input is a one-line error on stderr and exit code 1.
//
//===----------------------------------------------------------------------===//

#include "bwc/Runtime/BenchReport.h"
#include "bwc/Runtime/Executor.h"
#include "bwc/Runtime/Signature.h"
#include "bwc/Runtime/SimProfileReport.h"
#include "bwc/Runtime/Trace.h"
#include "bwc/Version.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <map>
#include <string_view>
#include <sys/stat.h>

using namespace bwc::rt;

namespace {

struct Options {
  std::string artifact;
  std::vector<std::pair<std::string, std::string>> inputs;
  std::string outputDir, checkDir;
  /// --steps: runs of the inputs (training steps: the loss of each).
  int steps = 1;
  /// --save-weights: where the state (trained parameters) goes after the
  /// runs: the trained ONNX model (a path ending in .onnx) or a folder of
  /// NAME.pb files.
  std::string saveWeights;
  double tolerance = -1; ///< < 0: the ONNX backend-test elementwise rule
  /// With --tolerance: an output also passes when its max abs error is at
  /// most this (0: off). For outputs whose values sit near 0, where the
  /// reference's own rounding dominates relative L2.
  double absTolerance = 0;
  int bench = 0;
  bool quiet = false, cudaGraph = false, profile = false;
  /// --device: cuda (a GPU) or cuda-sim (the kernels emulated on the CPU).
  std::string device = "cuda";
  /// --sanitize, for cuda-sim (default memcheck,synccheck).
  std::string sanitize;
  /// --sim-timeout: seconds a cuda-sim launch may run (< 0: the default).
  double simTimeout = -1;
  BenchOptions benchOptions;
  /// --trace: a Chrome trace of the last run's launches.
  std::string traceFile;
  /// --verify-key: the artifact must be signed under the key in this file.
  std::string verifyKey;
  bool help = false, version = false;
};

const char *kUsage = R"(usage: bwc-run OUT.bwc [options]

Runs an artifact bwc-compile wrote, on the device its target names.

Inputs and outputs:
  --input NAME=FILE.pb   an input (ONNX TensorProto); repeat per input
  --output-dir DIR       write output_K.pb files (DIR is created)
  --steps N              run N times (training steps: prints each loss;
                         the state persists between runs)
  --save-weights OUT.onnx
                         after the runs, write the trained model: the
                         ONNX model compiled, its trained initializers
                         holding the state's values
  --save-weights DIR     after the runs, write the trained state (the
                         parameters, optimizer moments) as DIR/NAME.pb
  --check CASE_DIR       run every test_data_set_* of an ONNX test case and
                         compare with its references
  --tolerance T          with --check: relative L2 limit per output
                         (default: ONNX's elementwise 1e-7 + 1e-3*|ref|)
  --abs-tolerance A      with --tolerance: also pass at max abs error <= A
  --quiet                print failures and summaries only

Timing:
  --bench N              time N runs after a warm-up: latency and the
                         per-kernel table
  --measure-peak         also measure the device's copy bandwidth
  --peak-copy-bytes B    bytes per copy of --measure-peak
  --peak-gbps G          the copy bandwidth to compare with (GB/s)
  --peak-gflops F        the peak flop rate to compare with (GFLOP/s)
  --cuda-graph           CUDA: replay the launches as one CUDA graph
  --json FILE            write --bench's or --profile's figures as JSON
  --trace FILE           write the run's launches as a Chrome trace
                         (chrome://tracing, Perfetto)

Device:
  --device cuda|cuda-sim CUDA artifacts: the GPU (default) or the kernels
                         emulated on the CPU
  --sanitize LIST        cuda-sim: memcheck,racecheck,synccheck,initcheck,
                         all or none (default memcheck,synccheck)
  --profile              cuda-sim: per-kernel memory counters
  --sim-timeout S        cuda-sim: seconds a launch may run (0: no limit)

  --verify-key FILE      refuse the artifact unless it is signed
                         (bwc-compile --sign-key) under the key in FILE

  --help, -h             this text
  --version              bwc's version
)";

int fail(const std::string &message) {
  std::fprintf(stderr, "bwc-run: error: %s\n", message.c_str());
  return 1;
}

bool parseNumber(const std::string &s, double &v) {
  char *end = nullptr;
  v = std::strtod(s.c_str(), &end);
  return !s.empty() && *end == '\0' && std::isfinite(v);
}

/// Parses argv; returns false with `error`.
bool parseArgs(int argc, char **argv, Options &o, std::string &error) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i], value;
    auto flag = [&](const char *name) {
      std::string n = name;
      if (arg.compare(0, n.size() + 1, n + "=") == 0) {
        value = arg.substr(n.size() + 1);
        return true;
      }
      if (arg != n)
        return false;
      if (i + 1 >= argc)
        return error = n + " needs a value", false;
      value = argv[++i];
      return true;
    };
    double number;
    if (flag("--input")) {
      size_t eq = value.find('=');
      if (eq == std::string::npos || eq == 0)
        return error = "--input expects NAME=FILE, got '" + value + "'", false;
      o.inputs.emplace_back(value.substr(0, eq), value.substr(eq + 1));
    } else if (flag("--output-dir")) {
      o.outputDir = value;
    } else if (flag("--steps")) {
      if (!parseNumber(value, number) || number < 1 || number > 1e9 ||
          number != std::floor(number))
        return error = "--steps expects a positive step count", false;
      o.steps = static_cast<int>(number);
    } else if (flag("--save-weights")) {
      o.saveWeights = value;
    } else if (flag("--check")) {
      o.checkDir = value;
    } else if (flag("--abs-tolerance")) {
      if (!parseNumber(value, number) || number < 0)
        return error = "--abs-tolerance expects a non-negative number", false;
      o.absTolerance = number;
    } else if (flag("--tolerance")) {
      if (!parseNumber(value, number) || number < 0)
        return error = "--tolerance expects a non-negative number", false;
      o.tolerance = number;
    } else if (flag("--bench")) {
      if (!parseNumber(value, number) || number < 1 || number > 1e7 ||
          number != std::floor(number))
        return error = "--bench expects a positive run count", false;
      o.bench = static_cast<int>(number);
    } else if (flag("--peak-copy-bytes")) {
      if (!parseNumber(value, number) || number < 1 || number > 1e12 ||
          number != std::floor(number))
        return error = "--peak-copy-bytes expects a positive byte count", false;
      o.benchOptions.peakCopyBytes = static_cast<uint64_t>(number);
    } else if (flag("--peak-gbps")) {
      if (!parseNumber(value, number) || number <= 0)
        return error = "--peak-gbps expects a positive number", false;
      o.benchOptions.peakGbps = number;
    } else if (flag("--peak-gflops")) {
      if (!parseNumber(value, number) || number <= 0)
        return error = "--peak-gflops expects a positive number", false;
      o.benchOptions.peakGflops = number;
    } else if (flag("--device")) {
      if (value != "cuda" && value != "cuda-sim")
        return error = "--device expects cuda or cuda-sim, got '" + value + "'",
               false;
      o.device = value;
    } else if (flag("--sanitize")) {
      o.sanitize = value;
    } else if (flag("--sim-timeout")) {
      if (!parseNumber(value, number) || number < 0)
        return error = "--sim-timeout expects seconds (0: none)", false;
      o.simTimeout = number;
    } else if (flag("--verify-key")) {
      o.verifyKey = value;
    } else if (flag("--trace")) {
      o.traceFile = value;
    } else if (flag("--json")) {
      o.benchOptions.jsonFile = value;
    } else if (!error.empty()) {
      return false;
    } else if (arg == "--quiet") {
      o.quiet = true;
    } else if (arg == "--measure-peak") {
      o.benchOptions.measurePeak = true;
    } else if (arg == "--cuda-graph") {
      o.cudaGraph = true;
    } else if (arg == "--profile") {
      o.profile = true;
    } else if (arg == "--help" || arg == "-h") {
      o.help = true;
      return true;
    } else if (arg == "--version") {
      o.version = true;
      return true;
    } else if (arg.size() > 1 && arg[0] == '-') {
      return error = "unknown option '" + arg + "'", false;
    } else if (o.artifact.empty()) {
      o.artifact = arg;
    } else {
      return error = "unexpected argument '" + arg + "'", false;
    }
  }
  if (o.artifact.empty())
    return error = "no artifact given (usage: bwc-run OUT.bwc ...)", false;
  if (!o.sanitize.empty() && o.device != "cuda-sim")
    return error = "--sanitize needs --device=cuda-sim", false;
  if (o.simTimeout >= 0 && o.device != "cuda-sim")
    return error = "--sim-timeout needs --device=cuda-sim", false;
  if (o.profile && o.device != "cuda-sim")
    return error = "--profile needs --device=cuda-sim (counters come from "
                   "the emulator; a GPU's come from Nsight Compute)",
           false;
  if (o.profile && o.bench)
    return error = "--profile and --bench are separate runs: give one", false;
  return true;
}

//===----------------------------------------------------------------------===//
// Comparison with reference outputs
//===----------------------------------------------------------------------===//

double halfToDouble(uint16_t h) {
  int exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  double v = exp == 0    ? std::ldexp(mant, -24)
             : exp == 31 ? (mant ? NAN : INFINITY)
                         : std::ldexp(mant + 1024, exp - 25);
  return h & 0x8000 ? -v : v;
}

/// Element `i` of `t` as a double (integers may round; they are compared
/// bytewise).
double element(const HostTensor &t, size_t i) {
  const uint8_t *p = t.data.data() + i * dtypeSize(t.desc.dtype);
  auto load = [p](auto v) {
    std::memcpy(&v, p, sizeof(v));
    return v;
  };
  switch (t.desc.dtype) {
  case DType::f32:
    return load(float());
  case DType::f64:
    return load(double());
  case DType::f16:
    return halfToDouble(load(uint16_t()));
  case DType::bf16: {
    uint32_t bits = uint32_t(load(uint16_t())) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  case DType::u8:
    return load(uint8_t());
  case DType::i8:
    return load(int8_t());
  case DType::u16:
    return load(uint16_t());
  case DType::i16:
    return load(int16_t());
  case DType::i32:
    return load(int32_t());
  case DType::i64:
    return static_cast<double>(load(int64_t()));
  case DType::u32:
    return load(uint32_t());
  case DType::u64:
    return static_cast<double>(load(uint64_t()));
  case DType::boolean:
    return load(uint8_t()) != 0;
  }
  return 0;
}

bool isFloat(DType t) {
  return t == DType::f32 || t == DType::f64 || t == DType::f16 ||
         t == DType::bf16;
}

struct Comparison {
  bool pass = true;
  double relL2 = 0, maxAbs = 0;
  std::string why; ///< reason for a failure
};

/// Float outputs compare by value with a reference of another float type
/// (an f16 output of `--io-precision=fp16` against the f32 reference).
Comparison compare(const HostTensor &out, const HostTensor &ref,
                   double tolerance, double absTolerance) {
  Comparison c;
  bool bothFloat = isFloat(out.desc.dtype) && isFloat(ref.desc.dtype);
  if ((out.desc.dtype != ref.desc.dtype && !bothFloat) ||
      out.desc.shape != ref.desc.shape) {
    c.pass = false;
    c.why = std::string("output is ") + dtypeName(out.desc.dtype) + " " +
            formatShape(out.desc.shape) + " but the reference is " +
            dtypeName(ref.desc.dtype) + " " + formatShape(ref.desc.shape);
    return c;
  }
  size_t n = out.data.size() / std::max<size_t>(1, dtypeSize(out.desc.dtype));
  if (out.desc.dtype != ref.desc.dtype && tolerance < 0) {
    c.pass = false;
    c.why = std::string("a ") + dtypeName(out.desc.dtype) +
            " output needs --tolerance against a " + dtypeName(ref.desc.dtype) +
            " reference";
    return c;
  }
  bool floating = isFloat(out.desc.dtype);
  size_t size = dtypeSize(out.desc.dtype), bad = 0, badNonFinite = 0;
  double diff2 = 0, ref2 = 0;
  for (size_t i = 0; i < n; ++i) {
    double o = element(out, i), r = element(ref, i);
    if (!floating) {
      bad += std::memcmp(&out.data[i * size], &ref.data[i * size], size) != 0;
    } else if (std::isnan(r) || std::isinf(r)) {
      // NaN matches NaN; an infinity must be reproduced exactly.
      bool same = std::isnan(r) ? std::isnan(o) : o == r;
      bad += !same;
      badNonFinite += !same;
      continue;
    } else if (!std::isfinite(o)) {
      ++bad;
      ++badNonFinite;
      continue;
    } else if (tolerance < 0) {
      bad += !(std::fabs(o - r) <= 1e-7 + 1e-3 * std::fabs(r));
    }
    diff2 += (o - r) * (o - r);
    ref2 += r * r;
    c.maxAbs = std::max(c.maxAbs, std::fabs(o - r));
  }
  c.relL2 = diff2 == 0 ? 0 : ref2 == 0 ? INFINITY : std::sqrt(diff2 / ref2);
  if (badNonFinite) {
    c.pass = false;
    c.why = std::to_string(badNonFinite) + " non-finite values differ";
  } else if (tolerance >= 0 && floating) {
    c.pass =
        c.relL2 <= tolerance || (absTolerance > 0 && c.maxAbs <= absTolerance);
    if (!c.pass)
      c.why = "relative L2 error above " + std::to_string(tolerance);
  } else if (bad) {
    c.pass = false;
    c.why =
        std::to_string(bad) + " of " + std::to_string(n) +
        (floating ? " elements outside 1e-7 + 1e-3*|ref|" : " elements differ");
  }
  return c;
}

//===----------------------------------------------------------------------===//
// Modes
//===----------------------------------------------------------------------===//

bool exists(const std::string &path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

/// The sorted test_data_set_* directories of `dir`.
std::vector<std::string> dataSets(const std::string &dir) {
  std::vector<std::string> sets;
  if (DIR *d = opendir(dir.c_str())) {
    while (dirent *e = readdir(d))
      if (std::strncmp(e->d_name, "test_data_set_", 14) == 0)
        sets.push_back(e->d_name);
    closedir(d);
  }
  std::sort(sets.begin(), sets.end());
  return sets;
}

/// ONNX's backend tests store bfloat16 tensors as uint16 (numpy has no
/// bfloat16): the same bits, so such a file is read as bf16 where the model
/// expects bf16.
void adoptBf16Bits(HostTensor &t, DType expected) {
  if (expected == DType::bf16 && t.desc.dtype == DType::u16)
    t.desc.dtype = DType::bf16;
}

/// The f16 bits nearest to `f` (ties to even).
uint16_t floatToHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint16_t sign = (x >> 16) & 0x8000;
  float a = std::fabs(f);
  if (std::isnan(f))
    return sign | 0x7e00;
  if (a >= 65520.0f) // rounds past the largest half, 65504
    return sign | 0x7c00;
  if (a < 6.103515625e-05f) // subnormal: a multiple of 2^-24
    return sign | (uint16_t)std::nearbyint(a * 16777216.0f);
  uint32_t mant = x & 0x7fffff, exp = ((x >> 23) & 0xff) - 127 + 15;
  uint32_t h = (exp << 10) | (mant >> 13), rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (h & 1)))
    ++h; // may carry into the exponent, which is still right
  return sign | (uint16_t)h;
}

/// The bf16 bits nearest to `f` (ties to even).
uint16_t floatToBf16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if (std::isnan(f))
    return (x >> 16) | 0x40;
  x += 0x7fff + ((x >> 16) & 1);
  return x >> 16;
}

/// An f32 input file for an f16/bf16 input (`--io-precision`): rounded to
/// the input's type, as a caller holding f32 data would.
void roundFloatInput(HostTensor &t, DType expected) {
  if (t.desc.dtype != DType::f32 ||
      (expected != DType::f16 && expected != DType::bf16))
    return;
  size_t n = t.data.size() / 4;
  std::vector<uint8_t> narrow(n * 2);
  for (size_t i = 0; i < n; ++i) {
    float f;
    std::memcpy(&f, &t.data[i * 4], 4);
    uint16_t h = expected == DType::f16 ? floatToHalf(f) : floatToBf16(f);
    std::memcpy(&narrow[i * 2], &h, 2);
  }
  t.data = std::move(narrow);
  t.desc.dtype = expected;
}

/// Runs every data set; returns the process exit code.
int runCheck(Executor &exec, const Options &o,
             std::vector<HostTensor> &lastInputs) {
  const Artifact &a = exec.artifact();
  if (!exists(o.checkDir))
    return fail("cannot open the test case '" + o.checkDir + "'");
  std::vector<std::string> sets = dataSets(o.checkDir);
  if (sets.empty())
    return fail("no test_data_set_* in '" + o.checkDir + "'");
  int passed = 0, failed = 0;
  for (const std::string &set : sets) {
    std::string dir = o.checkDir + "/" + set, error;
    std::vector<HostTensor> inputs(a.inputs.size()), refs(a.outputs.size());
    std::vector<HostTensor> outputs;
    bool ok = true;
    // The case's input files, matched to the artifact's inputs by tensor
    // name (inputs bound at compile time with --input-value have no
    // artifact input), else by position.
    std::vector<HostTensor> files;
    for (size_t k = 0; ok; ++k) {
      std::string path = dir + "/input_" + std::to_string(k) + ".pb";
      if (!exists(path))
        break;
      files.emplace_back();
      ok = readTensorFile(path, files.back(), error);
    }
    for (size_t k = 0; ok && k < inputs.size(); ++k) {
      auto named = std::find_if(files.begin(), files.end(), [&](auto &t) {
        return t.desc.name == a.inputs[k].name;
      });
      if (named != files.end())
        inputs[k] = *named;
      else if (k < files.size())
        inputs[k] = files[k];
      else
        ok = false,
        error = "no input file for input '" + a.inputs[k].name + "' in " + dir;
      adoptBf16Bits(inputs[k], a.inputs[k].dtype);
      roundFloatInput(inputs[k], a.inputs[k].dtype);
    }
    for (size_t k = 0; ok && k < refs.size(); ++k) {
      ok = readTensorFile(dir + "/output_" + std::to_string(k) + ".pb", refs[k],
                          error);
      adoptBf16Bits(refs[k], a.outputs[k].dtype);
    }
    if (ok)
      ok = exec.run(inputs, outputs, error);
    if (!ok) {
      std::printf("%s: FAIL: %s\n", set.c_str(), error.c_str());
      ++failed;
      continue;
    }
    lastInputs = inputs;
    for (size_t k = 0; k < outputs.size(); ++k) {
      Comparison c = compare(outputs[k], refs[k], o.tolerance, o.absTolerance);
      c.pass ? ++passed : ++failed;
      if (!o.quiet || !c.pass)
        std::printf(
            "%s: output %zu '%s' %s %s: rel-l2 %.3e max-abs %.3e %s%s\n",
            set.c_str(), k, a.outputs[k].name.c_str(),
            dtypeName(a.outputs[k].dtype),
            formatShape(a.outputs[k].shape).c_str(), c.relL2, c.maxAbs,
            c.pass ? "PASS" : "FAIL: ", c.why.c_str());
    }
  }
  std::printf("check: %d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}

/// Reads the --input files in the artifact's input order.
bool readInputs(const Artifact &a, const Options &o,
                std::vector<HostTensor> &inputs, std::string &error) {
  std::map<std::string, std::string> files;
  for (const auto &[name, file] : o.inputs) {
    auto it = std::find_if(a.inputs.begin(), a.inputs.end(),
                           [&](const TensorDesc &d) { return d.name == name; });
    if (it == a.inputs.end())
      return error = "the model has no input named '" + name + "'", false;
    if (!files.emplace(name, file).second)
      return error = "input '" + name + "' is given twice", false;
  }
  inputs.assign(a.inputs.size(), HostTensor());
  for (size_t k = 0; k < a.inputs.size(); ++k) {
    auto it = files.find(a.inputs[k].name);
    if (it == files.end())
      return error = "missing --input " + a.inputs[k].name + "=FILE.pb", false;
    if (!readTensorFile(it->second, inputs[k], error))
      return false;
    roundFloatInput(inputs[k], a.inputs[k].dtype);
  }
  return true;
}

/// The scalar f32 output named `name`, or -1.
int scalarOutput(const Artifact &a, const std::string &name) {
  for (size_t k = 0; k < a.outputs.size(); ++k)
    if (a.outputs[k].name == name && a.outputs[k].shape.empty() &&
        a.outputs[k].dtype == DType::f32)
      return k;
  return -1;
}

float scalarValue(const HostTensor &t) {
  float value;
  std::memcpy(&value, t.data.data(), sizeof(value));
  return value;
}

int runOnce(Executor &exec, const Options &o,
            const std::vector<HostTensor> &inputs) {
  std::vector<HostTensor> outputs;
  std::string error;
  int loss = scalarOutput(exec.artifact(), "loss");
  int scale = scalarOutput(exec.artifact(), "loss_scale");
  int skippedOut = scalarOutput(exec.artifact(), "skipped");
  int skipped = 0;
  for (int step = 1; step <= o.steps; ++step) {
    if (!exec.run(inputs, outputs, error))
      return fail(o.steps > 1 ? "step " + std::to_string(step) + ": " + error
                              : error);
    bool skip = skippedOut >= 0 && scalarValue(outputs[skippedOut]) > 0.5;
    skipped += skip;
    if (o.steps > 1 && loss >= 0) {
      float value = scalarValue(outputs[loss]);
      std::printf("step %d: loss %.9g", step, value);
      if (scale >= 0)
        std::printf(", loss scale %g%s", scalarValue(outputs[scale]),
                    skip ? ", skipped (a gradient was not finite)" : "");
      std::printf("\n");
      if (!std::isfinite(value))
        return fail("step " + std::to_string(step) + ": the loss is " +
                    (std::isnan(value) ? "NaN" : "infinite") +
                    "; the weights diverged (lower the learning rate)");
    }
  }
  if (skippedOut >= 0 && o.steps > 1)
    std::printf("skipped %d of %d steps (dynamic loss scaling)\n", skipped,
                o.steps);
  if (!o.saveWeights.empty()) {
    std::vector<HostTensor> state;
    if (exec.artifact().state.empty())
      return fail("--save-weights: the artifact has no trained state "
                  "(compile with --train=sgd:LR or adam:LR)");
    if (!exec.readState(state, error))
      return fail("--save-weights: " + error);
    std::string_view path = o.saveWeights;
    if (path.size() > 5 && path.substr(path.size() - 5) == ".onnx") {
      if (!writeTrainedModel(o.saveWeights, exec.artifact(), state, error))
        return fail("--save-weights: " + error);
      if (!o.quiet)
        std::printf("saved the trained model (%zu parameters) to %s\n",
                    exec.artifact().modelParameters.size(),
                    o.saveWeights.c_str());
    } else {
      if (!makeDirectories(o.saveWeights, error))
        return fail("--save-weights: " + error);
      for (const HostTensor &t : state)
        if (!writeTensorFile(o.saveWeights + "/" + t.desc.name + ".pb", t,
                             error))
          return fail("--save-weights: " + error);
      if (!o.quiet)
        std::printf("saved %zu state tensors to %s\n", state.size(),
                    o.saveWeights.c_str());
    }
  }
  for (size_t k = 0; k < outputs.size(); ++k) {
    const TensorDesc &d = outputs[k].desc;
    if (!o.quiet)
      std::printf("output %zu '%s': %s %s\n", k, d.name.c_str(),
                  dtypeName(d.dtype), formatShape(d.shape).c_str());
    if (!o.outputDir.empty() &&
        !writeTensorFile(o.outputDir + "/output_" + std::to_string(k) + ".pb",
                         outputs[k], error))
      return fail(error);
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  Options o;
  std::string error;
  if (!parseArgs(argc, argv, o, error))
    return fail(error);
  if (o.help) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (o.version) {
    std::printf("bwc-run (bwc %s)\n", BWC_VERSION);
    return 0;
  }
  if (!o.outputDir.empty() && !makeDirectories(o.outputDir, error))
    return fail("--output-dir: " + error);
  Artifact artifact;
  std::string key;
  if (!o.verifyKey.empty() && !readSigningKey(o.verifyKey, key, error))
    return fail("--verify-key: " + error);
  if (!readArtifactFile(o.artifact, artifact, error,
                        o.verifyKey.empty() ? nullptr : &key))
    return fail(error);
  ExecutorOptions options;
  options.cudaGraph = o.cudaGraph;
  options.device = o.device;
  if (!o.sanitize.empty() &&
      !sim::parseSanitizers(o.sanitize, options.sanitizers, error))
    return fail("--sanitize: " + error);
  options.sanitizers.profile = o.profile;
  if (o.simTimeout >= 0)
    options.sanitizers.timeoutSeconds = o.simTimeout;
  std::unique_ptr<Executor> exec =
      createExecutor(std::move(artifact), options, error);
  if (!exec)
    return fail(o.artifact + ": " + error);
  const Artifact &a = exec->artifact();

  std::vector<HostTensor> inputs;
  int rc = 0;
  BenchReport benchReport;
  bool benched = false;
  if (!o.checkDir.empty())
    rc = runCheck(*exec, o, inputs);
  if (!o.inputs.empty() ||
      (o.checkDir.empty() && !o.bench && o.traceFile.empty()) ||
      (o.checkDir.empty() && a.inputs.empty())) {
    if (!readInputs(a, o, inputs, error))
      return fail(error);
    rc |= runOnce(*exec, o, inputs);
  }
  if (o.bench) {
    // Without --input or --check, benchmark on zero-filled inputs.
    if (inputs.size() != a.inputs.size()) {
      inputs.clear();
      for (const TensorDesc &d : a.inputs)
        inputs.push_back({d, std::vector<uint8_t>(d.bytes())});
    }
    o.benchOptions.runs = o.bench;
    if (!runBenchmark(*exec, o.benchOptions, inputs, error, &benchReport))
      return fail(error);
    benched = true;
    if (o.device == "cuda-sim")
      std::printf("note: cuda-sim times are the emulator's CPU times, not "
                  "GPU timings; --profile gives its counters\n");
  }
  if (o.profile) {
    // The last run's launches (--check runs every data set).
    std::vector<sim::LaunchProfile> last =
        lastRunProfiles(a, sim::simProfiles(), exec->lastRunSkipped());
    if (!reportSimProfile(a, last, o.benchOptions.jsonFile, error))
      return fail(error);
  }
  if (!o.traceFile.empty()) {
    // --bench's per-launch medians, else one timed run of the inputs (or
    // zeros) just for the trace.
    if (!benched) {
      if (inputs.size() != a.inputs.size()) {
        inputs.clear();
        for (const TensorDesc &d : a.inputs)
          inputs.push_back({d, std::vector<uint8_t>(d.bytes())});
      }
      benchReport.device = exec->deviceName();
      if (!exec->benchmark(inputs, 1, 1, benchReport.stats, error))
        return fail(error);
    }
    std::string timing = benchReport.stats.kernelTiming;
    if (o.device == "cuda-sim" && a.target == "cuda")
      timing += " (cuda-sim: the emulator's CPU times, not GPU timings)";
    if (!writeChromeTrace(o.traceFile, a, benchReport.stats.launchMedianMs,
                          benchReport.device, timing, error))
      return fail("--trace: " + error);
  }
  if (o.device == "cuda-sim" && !o.quiet) {
    sim::SimStats s = sim::simStats();
    std::printf("cuda-sim run: %llu launches, %llu blocks, %llu threads, %.4g "
                "instructions, %.4g checked accesses in %.3f s (%.4g "
                "instructions/s on one core), sanitizers %s\n",
                (unsigned long long)s.launches, (unsigned long long)s.blocks,
                (unsigned long long)s.threads, double(s.instructions),
                double(s.accesses), s.seconds,
                s.seconds > 0 ? s.instructions / s.seconds : 0.0,
                sim::describeSanitizers(options.sanitizers).c_str());
  }
  return rc;
}
