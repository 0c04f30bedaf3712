//===- Calibrate.cpp - Value ranges from sample inputs --------------------===//
//
// The fp32 program is cloned with every f32 value it computes appended to
// its results, compiled for the CPU target, run in process on each sample
// data set, and the range of each value is written back onto the original
// program as `bwc.range` (include/bwc/Compiler/Calibrate.h).
//
//===----------------------------------------------------------------------===//
#include "bwc/Compiler/Calibrate.h"

#include "bwc/Dialect/BWC/IR/BWCOps.h"
#include "bwc/Dialect/BWC/Utils/BWCBuilder.h"
#include "bwc/Runtime/Executor.h"
#include "bwc/Runtime/TensorFile.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <dirent.h>
#include <limits>
#include <sys/stat.h>

using namespace mlir;
using namespace mlir::bwc;
namespace rt = ::bwc::rt;

namespace {

bool isF32Tensor(Type t) {
  auto tensor = dyn_cast<RankedTensorType>(t);
  return tensor && tensor.getElementType().isF32();
}

bool exists(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

/// The data set folders of `dir`: its test_data_set_* folders (an ONNX test
/// case), else `dir` itself when it holds input_0.pb.
std::vector<std::string> dataSetsOf(const std::string &dir) {
  std::vector<std::string> sets;
  if (DIR *d = opendir(dir.c_str())) {
    while (dirent *e = readdir(d))
      if (std::strncmp(e->d_name, "test_data_set_", 14) == 0)
        sets.push_back(dir + "/" + e->d_name);
    closedir(d);
  }
  std::sort(sets.begin(), sets.end());
  if (sets.empty() && exists(dir + "/input_0.pb"))
    sets.push_back(dir);
  return sets;
}

/// The range of one value over every data set.
struct Range {
  double max = 0;
  double median = std::numeric_limits<double>::infinity();
  bool anyNonzero = false;

  void add(const float *x, size_t n) {
    std::vector<float> nonzero;
    nonzero.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      float a = std::fabs(x[i]);
      if (!std::isfinite(a) || a == 0)
        continue;
      max = std::max<double>(max, a);
      nonzero.push_back(a);
    }
    if (nonzero.empty())
      return;
    auto mid = nonzero.begin() + nonzero.size() / 2;
    std::nth_element(nonzero.begin(), mid, nonzero.end());
    median = std::min<double>(median, *mid);
    anyNonzero = true;
  }

  DictionaryAttr attr(MLIRContext *ctx) const {
    Builder b(ctx);
    SmallVector<NamedAttribute> fields{b.getNamedAttr("max", b.getF64FloatAttr(max))};
    if (anyNonzero)
      fields.push_back(b.getNamedAttr("median", b.getF64FloatAttr(median)));
    return b.getDictionaryAttr(fields);
  }
};

/// Reads the input files of data set `dir` into `inputs` (the artifact's
/// input order): by tensor name, else by position.
LogicalResult readInputs(Location loc, const std::string &dir,
                         const rt::Artifact &a,
                         std::vector<rt::HostTensor> &inputs) {
  std::vector<rt::HostTensor> files;
  std::string error;
  for (size_t k = 0;; ++k) {
    std::string path = dir + "/input_" + std::to_string(k) + ".pb";
    if (!exists(path))
      break;
    files.emplace_back();
    if (!rt::readTensorFile(path, files.back(), error))
      return emitError(loc) << "--calibrate: " << error;
  }
  inputs.assign(a.inputs.size(), {});
  for (size_t k = 0; k < a.inputs.size(); ++k) {
    auto named = std::find_if(files.begin(), files.end(), [&](auto &t) {
      return t.desc.name == a.inputs[k].name;
    });
    if (named != files.end())
      inputs[k] = *named;
    else if (k < files.size() && files[k].desc.name.empty())
      inputs[k] = files[k];
    else
      return emitError(loc) << "--calibrate: data set '" << dir
                            << "' has no input_K.pb for input '"
                            << a.inputs[k].name << "'";
  }
  return success();
}

/// The compile's options for a program calibration runs here: the CPU
/// target, an artifact, no training step (already built), budget,
/// calibration or tuning.
CompileOptions cpuRunOptions(const CompileOptions &options) {
  CompileOptions o = options;
  o.target = "cpu";
  o.emit = "artifact";
  o.train.clear();
  o.loss = "mse";
  o.trainable = ".*";
  o.lossScale = "auto";
  o.memoryBudget.clear();
  o.calibrate.clear();
  o.tune = false;
  o.timing = false;
  o.tuningCache.clear();
  o.tuneExport.clear();
  o.tuneImport.clear();
  o.tuneGpu.clear();
  return o;
}

/// The relative L2 distance of `out` from `ref` (f32 tensors); infinity
/// when `out` has a non-finite element; 0 for an all-zero reference equal
/// to `out`.
double relativeL2(const rt::HostTensor &out, const rt::HostTensor &ref) {
  size_t n = ref.data.size() / 4;
  if (out.data.size() != ref.data.size())
    return std::numeric_limits<double>::infinity();
  const float *a = reinterpret_cast<const float *>(out.data.data());
  const float *b = reinterpret_cast<const float *>(ref.data.data());
  double diff = 0, norm = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!std::isfinite(a[i]) && std::isfinite(b[i]))
      return std::numeric_limits<double>::infinity();
    double d = double(a[i]) - b[i];
    diff += d * d;
    norm += double(b[i]) * b[i];
  }
  if (norm == 0)
    return diff == 0 ? 0 : std::numeric_limits<double>::infinity();
  return std::sqrt(diff / norm);
}

/// True for the state of a dynamic loss scale (bwc-grad's `loss_scale.*`).
bool isLossScaleState(func::FuncOp program, unsigned i) {
  auto name = program.getArgAttrOfType<StringAttr>(i, "bwc.name");
  return program.getArgAttr(i, "bwc.state") && name &&
         name.getValue().starts_with("loss_scale.");
}

bool hasState(func::FuncOp program) {
  for (unsigned i = 0; i < program.getNumArguments(); ++i)
    if (program.getArgAttr(i, "bwc.state"))
      return true;
  return false;
}

/// An optimizer step as a function validation can compare (in place, on a
/// clone): each state argument becomes a constant of its initial value,
/// and each state update an output holding its change, new - old,
/// computed in f32 (`bwc.keep_f32`). A step's effect is that change: the
/// new weights themselves are dominated by the old ones, so their error
/// would stay small however wrong the gradients were. A dynamic loss
/// scale's state stays state: the executor carries it from run to run, so
/// a skipped step can be run again at the halved scale (runSettled).
LogicalResult makeStateless(ModuleOp module) {
  auto program = module.lookupSymbol<func::FuncOp>("main");
  MLIRContext *ctx = module.getContext();
  Block &body = program.getBody().front();
  OpBuilder b(ctx);
  b.setInsertionPointToStart(&body);
  llvm::StringMap<Value> initial;
  llvm::BitVector erase(program.getNumArguments());
  for (unsigned i = 0; i < program.getNumArguments(); ++i) {
    if (!program.getArgAttr(i, "bwc.state") || isLossScaleState(program, i))
      continue;
    auto name = program.getArgAttrOfType<StringAttr>(i, "bwc.name");
    auto value =
        program.getArgAttrOfType<ElementsAttr>(i, "bwc.initial_value");
    if (!name || !value)
      return emitError(program.getLoc())
             << "--calibrate: state argument " << i
             << " has no name or initial value";
    BWCBuilder bb(b, program.getArgument(i).getLoc());
    Value c = bb.constant(value);
    program.getArgument(i).replaceAllUsesWith(c);
    initial[name.getValue()] = c;
    erase.set(i);
  }
  if (failed(program.eraseArguments(erase)))
    return failure();
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  b.setInsertionPoint(ret);
  for (unsigned i = 0; i < ret.getNumOperands(); ++i) {
    auto of = program.getResultAttrOfType<StringAttr>(i, "bwc.state_update");
    if (!of || of.getValue().starts_with("loss_scale."))
      continue;
    program.removeResultAttr(i, StringAttr::get(ctx, "bwc.state_update"));
    program.setResultAttr(i, "bwc.name",
                          StringAttr::get(ctx, "change." + of.getValue()));
    Value v = ret.getOperand(i), old = initial.lookup(of.getValue());
    if (!old || !isF32Tensor(v.getType()))
      continue;
    BWCBuilder bb(b, v.getLoc());
    Value change = bb.sub(v, old);
    change.getDefiningOp()->setAttr(
        "bwc.keep_f32",
        StringAttr::get(ctx, "calibration: a state's change, compared"));
    ret.setOperand(i, change);
  }
  return success();
}

/// A step with a dynamic loss scale reports the scale it used and whether
/// it was skipped (bwc-grad's `loss_scale` and `skipped` outputs): their
/// output indices, -1 when absent.
struct ScaleReport {
  int scale = -1, skipped = -1;
  explicit ScaleReport(const rt::Artifact &a) {
    for (auto [k, d] : llvm::enumerate(a.outputs)) {
      if (d.dtype != rt::DType::f32)
        continue;
      if (d.name == "loss_scale")
        scale = k;
      else if (d.name == "skipped")
        skipped = k;
    }
    if (scale < 0)
      skipped = -1;
  }
  static bool isReport(const rt::TensorDesc &d) {
    return d.name == "loss_scale" || d.name == "skipped";
  }
};

float scalarOf(const rt::HostTensor &t) {
  float v = 0;
  if (t.data.size() >= sizeof v)
    std::memcpy(&v, t.data.data(), sizeof v);
  return v;
}

/// Runs of one data set a step with a dynamic loss scale gets before
/// calibration gives up on it: the scale halves on each skipped run,
/// 65536 to 2^-15.
constexpr int kSettleRuns = 32;

/// Runs `exec` on `inputs`. A step with a dynamic loss scale that skips is
/// run again, as training would run the next step (each skip halves the
/// scale, state the executor keeps), until one is not skipped or after
/// kSettleRuns runs. `scale` receives the scale of the last run (0 without
/// one), `settled` whether that run was not skipped.
bool runSettled(rt::Executor &exec, const ScaleReport &report,
                const std::vector<rt::HostTensor> &inputs,
                std::vector<rt::HostTensor> &outputs, double &scale,
                bool &settled, std::string &error) {
  scale = 0;
  settled = true;
  for (int run = 0; run < kSettleRuns; ++run) {
    if (!exec.run(inputs, outputs, error))
      return false;
    if (report.skipped < 0)
      return true;
    scale = scalarOf(outputs[report.scale]);
    settled = scalarOf(outputs[report.skipped]) == 0;
    if (settled)
      return true;
  }
  return true;
}

/// A step with a dynamic loss scale (`--loss-scale=dynamic`): the scale it
/// starts from, found on the sample data. GradScaler starts at 65536 and
/// halves on each step whose gradients overflow; a `--train=grad` step
/// cannot retry, and the first steps of an optimizer step are skipped.
/// Calibration runs the step in the low type (as bwc-mixed-precision gives
/// it without calibration) on each data set, halving until no step is
/// skipped, and sets the initial scale to half the largest scale that
/// overflowed on none (the 2x headroom bwc-mixed-precision's range check
/// asks of every value), or leaves it when none overflowed. The ranges and
/// the validation search that follow see the step at that scale.
LogicalResult settleLossScale(ModuleOp module,
                              const std::vector<std::string> &sets,
                              const CompileOptions &options,
                              CalibrationSummary &summary) {
  auto program = module.lookupSymbol<func::FuncOp>("main");
  Location loc = module.getLoc();
  int scaleArg = -1;
  for (unsigned i = 0; i < program.getNumArguments(); ++i)
    if (auto name = program.getArgAttrOfType<StringAttr>(i, "bwc.name");
        name && name.getValue() == "loss_scale.scale" &&
        program.getArgAttr(i, "bwc.state"))
      scaleArg = i;
  if (scaleArg < 0)
    return success();
  auto init = program.getArgAttrOfType<DenseElementsAttr>(scaleArg,
                                                          "bwc.initial_value");
  if (!init || !init.isSplat() || !init.getElementType().isF32())
    return emitError(loc) << "--calibrate: the loss scale's state has no f32 "
                             "initial value";
  double initial = init.getSplatValue<APFloat>().convertToDouble();
  summary.initialLossScale = summary.lossScale = initial;

  OwningOpRef<ModuleOp> clone(module.clone());
  if (failed(makeStateless(*clone)))
    return failure();
  FailureOr<CompileResult> compiled =
      compileModule(*clone, cpuRunOptions(options));
  if (failed(compiled))
    return emitError(loc) << "--calibrate: the step in " << options.precision
                          << " did not compile";
  ScaleReport report(compiled->artifact);
  if (report.skipped < 0)
    return emitError(loc) << "--calibrate: the step in " << options.precision
                          << " reports no loss scale";
  rt::Artifact artifact = compiled->artifact;
  std::string error;
  std::unique_ptr<rt::Executor> exec = rt::createExecutor(
      std::move(compiled->artifact), rt::ExecutorOptions(), error);
  if (!exec)
    return emitError(loc) << "--calibrate: " << error;
  // One executor: the scale a data set settles to is where the next starts.
  double settledScale = initial;
  for (const std::string &set : sets) {
    std::vector<rt::HostTensor> inputs, outputs;
    if (failed(readInputs(loc, set, artifact, inputs)))
      return failure();
    double scale;
    bool settled;
    if (!runSettled(*exec, report, inputs, outputs, scale, settled, error))
      return emitError(loc) << "--calibrate: data set '" << set
                            << "': " << error;
    if (!settled) {
      // Not the scale: something overflows however small the scale (a
      // forward value). The validation search keeps what it must in f32.
      summary.lossScaleNote =
          llvm::formatv("the {0} step overflows on '{1}' at every scale "
                        "down to {2:e1}; the initial scale is kept",
                        options.precision, set, scale)
              .str();
      return success();
    }
    settledScale = std::min(settledScale, scale);
  }
  if (settledScale < initial) {
    summary.lossScale = settledScale / 2;
    program.setArgAttr(
        scaleArg, "bwc.initial_value",
        DenseElementsAttr::get(init.getType(),
                               APFloat(float(summary.lossScale))));
  }
  return success();
}

/// The static DRAM bytes of a compiled program (its report's totals).
double staticBytes(const CompileResult &compiled) {
  llvm::Expected<llvm::json::Value> report =
      llvm::json::parse(compiled.reportJson);
  if (!report) {
    llvm::consumeError(report.takeError());
    return 0;
  }
  const llvm::json::Object *root = report->getAsObject();
  const llvm::json::Object *totals = root ? root->getObject("totals") : nullptr;
  std::optional<double> bytes =
      totals ? totals->getNumber("bytes") : std::nullopt;
  return bytes.value_or(0);
}

/// See calibrate(): ops of `main` to keep in f32 so that the low-precision
/// program's outputs stay within tolerance on the data sets.
LogicalResult
validationSearch(ModuleOp module, const CompileOptions &options,
                 const std::vector<std::vector<rt::HostTensor>> &setInputs,
                 const std::vector<std::vector<rt::HostTensor>> &references,
                 CalibrationSummary &summary) {
  MLIRContext *ctx = module.getContext();
  Location loc = module.getLoc();
  auto program = module.lookupSymbol<func::FuncOp>("main");
  bool stateful = hasState(program);
  double tolerance = options.calibrateTolerance > 0 ? options.calibrateTolerance
                     : options.precision == "fp16" ? 2.5e-3
                                                   : 7.5e-3;
  summary.tolerance = tolerance;
  int64_t maxTrials = options.calibrateTrials;
  // The candidates, in program order: the ops bwc-mixed-precision would
  // give the low type with f32 sums, unless their range already keeps them.
  // A training step's backward contractions come first (bwc-grad marks
  // the forward ones `bwc.forward`): rounding the forward pass flips the
  // masks of ReLU-like activations, so with a small trial budget the first
  // halves tried are those most likely to take the low type.
  SmallVector<Operation *> candidates, forward;
  for (Operation &op : program.getBody().front())
    if (isa<MatmulOp, ConvOp>(op) && !op.hasAttr("bwc.keep_f32"))
      (op.hasAttr("bwc.forward") ? forward : candidates).push_back(&op);
  candidates.append(forward);
  if (candidates.empty())
    return success();

  CompileOptions o = cpuRunOptions(options);
  // Compiles `m` (consumed) as the search compares it.
  auto compileTrial = [&](OwningOpRef<ModuleOp> m, const CompileOptions &with)
      -> FailureOr<CompileResult> {
    if (stateful && failed(makeStateless(*m)))
      return failure();
    FailureOr<CompileResult> compiled = compileModule(*m, with);
    if (failed(compiled))
      return emitError(loc) << "--calibrate: a trial program did not compile";
    return compiled;
  };
  // Compiles and runs `m` (consumed) on every data set; `bytes` receives
  // its static DRAM bytes.
  auto runAll = [&](OwningOpRef<ModuleOp> m, const CompileOptions &with,
                    double &bytes)
      -> FailureOr<std::vector<std::vector<rt::HostTensor>>> {
    FailureOr<CompileResult> compiled = compileTrial(std::move(m), with);
    if (failed(compiled))
      return failure();
    bytes = staticBytes(*compiled);
    std::string error;
    ScaleReport report(compiled->artifact);
    std::unique_ptr<rt::Executor> exec = rt::createExecutor(
        std::move(compiled->artifact), rt::ExecutorOptions(), error);
    if (!exec)
      return emitError(loc) << "--calibrate: " << error;
    std::vector<std::vector<rt::HostTensor>> all;
    for (const std::vector<rt::HostTensor> &inputs : setInputs) {
      all.emplace_back();
      // A skipped step's gradients are not the program's: compare the
      // step training would take next (a skip left unsettled compares
      // its non-finite gradients, and fails).
      double scale;
      bool settled;
      if (!runSettled(*exec, report, inputs, all.back(), scale, settled,
                      error))
        return emitError(loc) << "--calibrate: " << error;
    }
    return all;
  };
  // An optimizer step's references: the fp32 step's outputs and state
  // changes (the sample run's outputs hold no state).
  std::vector<std::vector<rt::HostTensor>> stateRefs;
  if (stateful) {
    CompileOptions fp32 = o;
    fp32.precision = fp32.ioPrecision = "fp32";
    double bytes;
    auto refs = runAll(OwningOpRef<ModuleOp>(module.clone()), fp32, bytes);
    if (failed(refs))
      return failure();
    stateRefs = std::move(*refs);
  }
  const auto &refSets = stateful ? stateRefs : references;
  // A clone of the program with the candidates in `keep` marked f32.
  auto withKept = [&](const std::vector<bool> &keep) {
    for (auto [op, k] : llvm::zip(candidates, keep))
      if (k)
        op->setAttr("bwc.keep_f32", StringAttr::get(ctx, "trial"));
    OwningOpRef<ModuleOp> clone(module.clone());
    for (Operation *op : candidates)
      op->removeAttr("bwc.keep_f32");
    return clone;
  };
  // Compiles the program with the candidates in `keep` marked f32 and
  // returns its worst output error over the data sets; `bytes` receives
  // its static DRAM bytes.
  auto trial = [&](const std::vector<bool> &keep,
                   double &bytes) -> FailureOr<double> {
    ++summary.trials;
    auto outs = runAll(withKept(keep), o, bytes);
    if (failed(outs))
      return failure();
    double worst = 0;
    for (auto [outputs, refs] : llvm::zip(*outs, refSets)) {
      for (size_t k = 0; k < refs.size() && k < outputs.size(); ++k)
        if (refs[k].desc.dtype == rt::DType::f32 &&
            !ScaleReport::isReport(refs[k].desc))
          worst = std::max(worst, relativeL2(outputs[k], refs[k]));
    }
    return worst;
  };

  // ONNX's auto_convert_mixed_precision: everything f32 to begin with;
  // try a run of candidates in the low type; keep the change when the
  // outputs stay within tolerance and the program moves no more bytes
  // (the low type's point: a contraction given it between f32 neighbours
  // can cost more in casts than it saves), else try each half.
  std::vector<bool> keep(candidates.size(), true);
  {
    FailureOr<CompileResult> all = compileTrial(withKept(keep), o);
    if (failed(all))
      return failure();
    summary.bytesAllKept = summary.bytesChosen = staticBytes(*all);
  }
  std::vector<std::pair<size_t, size_t>> runs{{0, candidates.size()}};
  std::vector<double> failedError(candidates.size(), 0),
      failedBytes(candidates.size(), 0);
  while (!runs.empty()) {
    auto [begin, end] = runs.back();
    runs.pop_back();
    if (summary.trials >= maxTrials) {
      for (size_t i = begin; i < end; ++i)
        failedError[i] = -1; // not tried
      continue;
    }
    std::vector<bool> tentative = keep;
    for (size_t i = begin; i < end; ++i)
      tentative[i] = false;
    double bytes = 0;
    FailureOr<double> err = trial(tentative, bytes);
    if (failed(err))
      return failure();
    bool accept = *err <= tolerance && bytes <= summary.bytesChosen;
    summary.log.push_back(
        {int64_t(llvm::count(tentative, false)), *err, bytes, accept});
    if (accept) {
      keep = std::move(tentative);
      // Every accepted program holds the ones accepted before it: the last
      // is the one chosen.
      summary.worstError = *err;
      summary.bytesChosen = bytes;
      continue;
    }
    if (end - begin == 1) {
      failedError[begin] = *err;
      failedBytes[begin] = bytes - summary.bytesChosen;
      continue;
    }
    size_t mid = begin + (end - begin) / 2;
    // The first half is tried first (runs is a stack).
    runs.push_back({mid, end});
    runs.push_back({begin, mid});
  }
  const char *low = options.precision == "fp16" ? "fp16" : "bf16";
  for (auto [op, k, err, extra] :
       llvm::zip(candidates, keep, failedError, failedBytes)) {
    if (!k)
      continue;
    std::string reason =
        err < 0 ? llvm::formatv("validation: not tried within {0} trials",
                                maxTrials)
                      .str()
        : err > tolerance
            ? llvm::formatv("validation: in {0} the outputs differ from "
                            "fp32 by {1:e2} (relative L2 > {2:e1})",
                            low, err, tolerance)
                  .str()
            : llvm::formatv("validation: in {0} the program moves {1:F0} "
                            "more DRAM bytes (the casts around it)",
                            low, extra)
                  .str();
    op->setAttr("bwc.keep_f32", StringAttr::get(ctx, reason));
  }
  return success();
}

} // namespace

LogicalResult mlir::bwc::calibrate(ModuleOp module,
                                   const std::vector<std::string> &caseDirs,
                                   const CompileOptions &options,
                                   CalibrationSummary &summary) {
  MLIRContext *ctx = module.getContext();
  Location loc = module.getLoc();
  auto program = module.lookupSymbol<func::FuncOp>("main");
  if (!program || !program.getBody().hasOneBlock())
    return emitError(loc) << "--calibrate expects a single-block program "
                             "function named 'main'";
  std::vector<std::string> sets;
  for (const std::string &dir : caseDirs) {
    std::vector<std::string> found = dataSetsOf(dir);
    if (found.empty())
      return emitError(loc) << "--calibrate: '" << dir
                            << "' holds no test_data_set_* folder and no "
                               "input_0.pb";
    sets.insert(sets.end(), found.begin(), found.end());
  }

  // The values observed: f32 arguments, then the f32 results of the
  // program's bwc ops (constants excluded: their range is known).
  Dialect *bwcDialect = ctx->getLoadedDialect<BWCDialect>();
  Block &body = program.getBody().front();
  SmallVector<Value> values;
  for (BlockArgument arg : body.getArguments())
    if (isF32Tensor(arg.getType()))
      values.push_back(arg);
  for (Operation &op : body)
    if (op.getDialect() == bwcDialect && !isa<ConstantOp>(op))
      for (Value r : op.getResults())
        if (isF32Tensor(r.getType()))
          values.push_back(r);
  summary.values = values.size();
  summary.dataSets = sets.size();
  if (values.empty())
    return success();
  if (failed(settleLossScale(module, sets, options, summary)))
    return failure();

  // The sample program: a clone returning every observed value after its
  // own results.
  OwningOpRef<ModuleOp> clone(module.clone());
  auto sample = clone->lookupSymbol<func::FuncOp>("main");
  Block &sampleBody = sample.getBody().front();
  IRMapping map;
  for (auto [a, b] : llvm::zip(body.getArguments(), sampleBody.getArguments()))
    map.map(a, b);
  for (auto [a, b] : llvm::zip(body, sampleBody))
    for (auto [ra, rb] : llvm::zip(a.getResults(), b.getResults()))
      map.map(ra, rb);
  auto ret = cast<func::ReturnOp>(sampleBody.getTerminator());
  // The program's own outputs (state updates are not outputs: the
  // executor keeps them), then the observed values.
  unsigned ownResults = 0;
  for (unsigned i = 0; i < ret.getNumOperands(); ++i)
    ownResults += !sample.getResultAttr(i, "bwc.state_update");
  for (auto [i, v] : llvm::enumerate(values)) {
    Value mapped = map.lookup(v);
    (void)sample.insertResult(
        sample.getNumResults(), mapped.getType(),
        DictionaryAttr::get(
            ctx, {NamedAttribute(StringAttr::get(ctx, "bwc.name"),
                                 StringAttr::get(ctx, "calibration." +
                                                          std::to_string(i)))}));
    ret->insertOperands(ret.getNumOperands(), mapped);
  }

  CompileOptions o = cpuRunOptions(options);
  o.precision = o.ioPrecision = "fp32";
  FailureOr<CompileResult> compiled = compileModule(*clone, o);
  if (failed(compiled))
    return emitError(loc) << "--calibrate: the fp32 sample program did not "
                             "compile";
  std::string error;
  // A step with state runs each data set from the initial state: an
  // executor each.
  rt::Artifact sampleArtifact = compiled->artifact;
  std::unique_ptr<rt::Executor> exec = rt::createExecutor(
      std::move(compiled->artifact), rt::ExecutorOptions(), error);
  if (!exec)
    return emitError(loc) << "--calibrate: " << error;
  const rt::Artifact &a = sampleArtifact;
  if (a.outputs.size() != ownResults + values.size())
    return emitError(loc) << "--calibrate: the sample program has "
                          << a.outputs.size() << " outputs, expected "
                          << ownResults + values.size();

  std::vector<Range> ranges(values.size());
  std::vector<std::vector<rt::HostTensor>> setInputs, references;
  for (const std::string &set : sets) {
    std::vector<rt::HostTensor> inputs, outputs;
    if (failed(readInputs(loc, set, a, inputs)))
      return failure();
    if (!exec && !(exec = rt::createExecutor(sampleArtifact,
                                             rt::ExecutorOptions(), error)))
      return emitError(loc) << "--calibrate: " << error;
    if (!exec->run(inputs, outputs, error))
      return emitError(loc) << "--calibrate: data set '" << set
                            << "': " << error;
    for (size_t i = 0; i < values.size(); ++i) {
      const rt::HostTensor &t = outputs[ownResults + i];
      if (t.desc.dtype != rt::DType::f32)
        return emitError(loc) << "--calibrate: sample output "
                              << ownResults + i << " is not f32";
      ranges[i].add(reinterpret_cast<const float *>(t.data.data()),
                    t.data.size() / 4);
    }
    outputs.resize(ownResults);
    references.push_back(std::move(outputs));
    setInputs.push_back(std::move(inputs));
    if (!a.state.empty())
      exec.reset();
  }
  exec.reset();

  // Back onto the program: per op, one dictionary per result.
  llvm::DenseMap<Value, size_t> index;
  for (auto [i, v] : llvm::enumerate(values))
    index[v] = i;
  for (BlockArgument arg : body.getArguments())
    if (auto it = index.find(arg); it != index.end())
      program.setArgAttr(arg.getArgNumber(), "bwc.range",
                         ranges[it->second].attr(ctx));
  for (Operation &op : body) {
    if (op.getDialect() != bwcDialect || isa<ConstantOp>(op) ||
        llvm::none_of(op.getResults(),
                      [&](Value r) { return index.count(r); }))
      continue;
    SmallVector<Attribute> perResult;
    for (Value r : op.getResults()) {
      auto it = index.find(r);
      perResult.push_back(it == index.end()
                              ? DictionaryAttr::get(ctx, {})
                              : ranges[it->second].attr(ctx));
    }
    op.setAttr("bwc.range", ArrayAttr::get(ctx, perResult));
  }
  return validationSearch(module, options, setInputs, references, summary);
}
