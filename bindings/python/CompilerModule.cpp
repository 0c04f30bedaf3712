//===- CompilerModule.cpp - bwc._compiler, the compiler API in Python -----===//
//
// One function over mlir::bwc::compile: the model (a path, or bytes with
// the path naming them), the options as a dict of CompileOptions fields
// (snake_case, bwc-compile's values), and back the serialized artifact,
// the report JSON, --emit's text and the diagnostics. bwc/__init__.py wraps
// it in bwc.compile and raises bwc.CompileError.
//
//===----------------------------------------------------------------------===//

#include "bwc/Compiler/Compiler.h"
#include "bwc/Version.h"

#include "llvm/Support/raw_ostream.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <functional>
#include <map>

namespace py = pybind11;
using namespace mlir::bwc;

namespace {

/// Sets the CompileOptions field `key` from `value`; false with `error`
/// naming the key when it is unknown or of the wrong type.
bool setOption(CompileOptions &o, const std::string &key, py::handle value,
               std::string &error) {
  using Setter = std::function<void(py::handle)>;
  auto text = [](std::string &field) -> Setter {
    return [&field](py::handle v) { field = py::cast<std::string>(v); };
  };
  auto list = [](std::vector<std::string> &field) -> Setter {
    return [&field](py::handle v) {
      field = py::cast<std::vector<std::string>>(v);
    };
  };
  const std::map<std::string, Setter> setters = {
      {"target", text(o.target)},
      {"emit", text(o.emit)},
      {"sm_count", [&](py::handle v) { o.smCount = py::cast<int64_t>(v); }},
      {"codegen", text(o.codegen)},
      {"elemental_conv", text(o.elementalConv)},
      {"input_shapes", list(o.inputShapes)},
      {"input_value_files", list(o.inputValues)},
      {"input_value_bytes",
       [&](py::handle v) {
         for (auto [name, bytes] : py::cast<py::dict>(v))
           o.inputValueBytes[py::cast<std::string>(name)] =
               py::cast<std::string>(py::reinterpret_borrow<py::bytes>(bytes));
       }},
      {"fusion", text(o.fusion)},
      {"precision", text(o.precision)},
      {"io_precision", text(o.ioPrecision)},
      {"calibrate", list(o.calibrate)},
      {"calibrate_trials",
       [&](py::handle v) { o.calibrateTrials = py::cast<int64_t>(v); }},
      {"calibrate_tolerance",
       [&](py::handle v) { o.calibrateTolerance = py::cast<double>(v); }},
      {"layout", text(o.layout)},
      {"pad_channels", text(o.padChannels)},
      {"peak_bw", [&](py::handle v) { o.peakBw = py::cast<double>(v); }},
      {"memory_budget", text(o.memoryBudget)},
      {"remat_strategy", text(o.rematStrategy)},
      {"tile", text(o.tile)},
      {"tile_emitters", text(o.tileEmitters)},
      {"conv_kernels", text(o.convKernels)},
      {"cuda_sim", text(o.cudaSim)},
      {"gpu_module", text(o.gpuModuleFile)},
      {"tensor_cores", text(o.tensorCores)},
      {"train", text(o.train)},
      {"loss", text(o.loss)},
      {"trainable", text(o.trainable)},
      {"loss_scale", text(o.lossScale)},
      {"tune", [&](py::handle v) { o.tune = py::cast<bool>(v); }},
      {"tuning_cache", text(o.tuningCache)},
      {"tune_export", text(o.tuneExport)},
      {"tune_import", text(o.tuneImport)},
      {"tune_gpu", text(o.tuneGpu)},
  };
  auto it = setters.find(key);
  if (it == setters.end()) {
    error = "unknown option '" + key + "' (options: ";
    for (auto &[name, setter] : setters)
      error += name + (&name == &setters.rbegin()->first ? ")" : ", ");
    return false;
  }
  try {
    it->second(value);
  } catch (const py::cast_error &) {
    error = "option '" + key + "' has the wrong type (" +
            py::cast<std::string>(py::str(value.get_type())) + ")";
    return false;
  }
  return true;
}

/// (ok, artifact bytes, report JSON, emitted text, diagnostics).
py::tuple compileModel(const std::string &path, py::object data,
                       const std::string &format, py::dict options) {
  CompileOptions o;
  std::string error;
  for (auto [key, value] : options)
    if (!setOption(o, py::cast<std::string>(key), value, error))
      return py::make_tuple(false, py::bytes(), "", "",
                            "error: " + error + "\n");
  ModelSource source;
  source.path = path;
  if (!data.is_none())
    source.bytes =
        py::cast<std::string>(py::reinterpret_borrow<py::bytes>(data));
  source.format = format == "onnx"       ? ModelSource::Format::onnx
                  : format == "onnxtext" ? ModelSource::Format::onnxText
                  : format == "mlir"     ? ModelSource::Format::mlir
                                         : ModelSource::Format::automatic;
  std::string diagnostics, artifact;
  CompileResult result;
  bool ok;
  {
    // Compiling takes seconds: other Python threads run meanwhile.
    py::gil_scoped_release release;
    llvm::raw_string_ostream os(diagnostics);
    mlir::FailureOr<CompileResult> r = compile(source, o, os);
    os.flush();
    ok = mlir::succeeded(r);
    if (ok) {
      result = std::move(*r);
      if (o.emit == "artifact")
        artifact = ::bwc::rt::serialize(result.artifact);
    }
  }
  return py::make_tuple(ok, py::bytes(artifact), result.reportJson,
                        result.emitted, diagnostics);
}

} // namespace

PYBIND11_MODULE(_compiler, m) {
  m.doc() = "bwc's compiler API (bwc/Compiler/Compiler.h); use bwc.compile";
  m.def("compile", &compileModel, py::arg("path"), py::arg("data"),
        py::arg("format"), py::arg("options"));
  m.def("version", &compilerVersion);
  m.attr("__version__") = BWC_VERSION;
}
