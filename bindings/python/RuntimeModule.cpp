//===- RuntimeModule.cpp - bwc._runtime, the runtime in Python ------------===//
//
// The executor behind bwc.Session: an artifact's bytes in, numpy arrays in
// and out. Inputs are passed to the executor as views of the arrays (no
// copy before the executor's own copy into its buffers); outputs become
// arrays that own the executor's output bytes (no copy after). Runs release
// the GIL. It links the runtime only (no MLIR or LLVM), as bwc-run does.
//
//===----------------------------------------------------------------------===//

#include "bwc/Runtime/Artifact.h"
#include "bwc/Runtime/CudaSim.h"
#include "bwc/Runtime/Executor.h"
#include "bwc/Runtime/HostMemory.h"
#include "bwc/Runtime/Signature.h"
#include "bwc/Runtime/SimProfileReport.h"
#include "bwc/Runtime/TensorFile.h"
#include "bwc/Runtime/Trace.h"
#include "bwc/Version.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;
using namespace bwc::rt;

namespace {

/// The Python exception bwc/__init__.py maps to bwc.RuntimeError.
PyObject *runtimeError = nullptr;

[[noreturn]] void raise(const std::string &message) {
  PyErr_SetString(runtimeError, message.c_str());
  throw py::error_already_set();
}

/// numpy's name of the dtype the bytes of `t` hold (bf16 as its uint16
/// bits; bwc/__init__.py widens those to float32).
const char *numpyName(DType t) {
  switch (t) {
  case DType::f32:
    return "float32";
  case DType::f64:
    return "float64";
  case DType::f16:
    return "float16";
  case DType::bf16:
    return "uint16";
  case DType::u8:
    return "uint8";
  case DType::i8:
    return "int8";
  case DType::u16:
    return "uint16";
  case DType::i16:
    return "int16";
  case DType::i32:
    return "int32";
  case DType::u32:
    return "uint32";
  case DType::i64:
    return "int64";
  case DType::u64:
    return "uint64";
  case DType::boolean:
    return "bool";
  }
  return "uint8";
}

py::dict describe(const TensorDesc &d) {
  py::dict out;
  out["name"] = d.name;
  out["dtype"] = dtypeName(d.dtype);
  out["numpy"] = numpyName(d.dtype);
  out["shape"] = d.shape;
  return out;
}

py::list describeAll(const std::vector<TensorDesc> &descs) {
  py::list out;
  for (const TensorDesc &d : descs)
    out.append(describe(d));
  return out;
}

Artifact parse(const py::bytes &bytes) {
  Artifact a;
  std::string error;
  if (!deserialize(std::string(bytes), a, error))
    raise("not a valid bwc artifact: " + error);
  return a;
}

/// The artifact's signature, report and kernels, for bwc.Artifact.
py::dict artifactInfo(const py::bytes &bytes) {
  Artifact a = parse(bytes);
  py::dict out;
  out["target"] = a.target;
  out["inputs"] = describeAll(a.inputs);
  out["outputs"] = describeAll(a.outputs);
  out["report"] = a.report;
  out["launches"] = a.launches.size();
  out["sim"] = !a.sim.object.empty();
  return out;
}

/// A serialized ONNX TensorProto file as (name, array).
py::tuple readTensor(const std::string &path) {
  HostTensor t;
  std::string error;
  if (!readTensorFile(path, t, error))
    raise(error);
  auto *bytes = new std::vector<uint8_t>(std::move(t.data));
  py::capsule owner(
      bytes, [](void *p) { delete static_cast<std::vector<uint8_t> *>(p); });
  std::vector<py::ssize_t> shape(t.desc.shape.begin(), t.desc.shape.end());
  py::array array(py::dtype(numpyName(t.desc.dtype)), shape, bytes->data(),
                  owner);
  return py::make_tuple(t.desc.name, array, dtypeName(t.desc.dtype));
}

/// Writes `array` (C-contiguous, of a bwc dtype) as a TensorProto file.
void writeTensor(const std::string &path, const std::string &name,
                 const py::array &array, const std::string &dtype) {
  HostTensor t;
  t.desc.name = name;
  bool known = false;
  for (int32_t code = 0; code <= 16; ++code)
    if (isValidDType(code) && dtype == dtypeName(DType(code))) {
      t.desc.dtype = DType(code);
      known = true;
    }
  if (!known)
    raise("write_tensor: unsupported dtype " + dtype);
  t.desc.shape.assign(array.shape(), array.shape() + array.ndim());
  const auto *p = static_cast<const uint8_t *>(array.data());
  t.data.assign(p, p + array.nbytes());
  std::string error;
  if (!writeTensorFile(path, t, error))
    raise(error);
}

/// The artifact signed under the key in `keyPath` (Signature.h).
py::bytes signArtifactBytes(const py::bytes &artifact,
                            const std::string &keyPath) {
  std::string key, out, error;
  if (!readSigningKey(keyPath, key, error) ||
      !signArtifact(std::string(artifact), key, out, error))
    raise("sign_key: " + error);
  return py::bytes(out);
}

/// Raises unless `artifact` is signed under the key in `keyPath`.
void verifyArtifactBytes(const py::bytes &artifact,
                         const std::string &keyPath) {
  std::string key, out, error;
  if (!readSigningKey(keyPath, key, error))
    raise("verify_key: " + error);
  if (!verifyArtifact(std::string(artifact), key, out, error))
    raise(error);
}

class Session {
public:
  Session(const py::bytes &bytes, const std::string &device,
          const std::string &sanitize, double simTimeout, bool profile) {
    Artifact a = parse(bytes);
    ExecutorOptions options;
    options.device = device == "cuda-sim" ? "cuda-sim" : "cuda";
    std::string error;
    if (!sanitize.empty() &&
        !sim::parseSanitizers(sanitize, options.sanitizers, error))
      raise("sanitize: " + error);
    options.sanitizers.profile = profile;
    if (simTimeout >= 0)
      options.sanitizers.timeoutSeconds = simTimeout;
    device_ = device;
    exec_ = createExecutor(std::move(a), options, error);
    if (!exec_)
      raise(error);
  }

  py::list inputs() const { return describeAll(exec_->artifact().inputs); }
  py::list outputs() const { return describeAll(exec_->artifact().outputs); }
  std::string deviceName() const { return exec_->deviceName(); }

  /// `arrays`: one C-contiguous array per input, in order, of the input's
  /// numpy dtype (bwc/__init__.py converts); checked again here.
  py::list run(const py::list &arrays) {
    std::vector<py::array> keep;
    std::vector<TensorRef> refs = refsFor(arrays, keep);
    std::vector<HostTensor> outputs;
    std::string error;
    bool ok;
    {
      py::gil_scoped_release release;
      ok = exec_->run(refs, outputs, error);
    }
    if (!ok)
      raise(error);
    return toArrays(outputs);
  }

  /// The trained state (Artifact::state order) as (name, array) pairs.
  py::list state() {
    std::vector<HostTensor> state;
    std::string error;
    if (!exec_->readState(state, error))
      raise(error);
    py::list names;
    for (const HostTensor &t : state)
      names.append(t.desc.name);
    py::list pairs;
    py::list arrays = toArrays(state);
    for (size_t i = 0; i < state.size(); ++i)
      pairs.append(py::make_tuple(names[i], arrays[i]));
    return pairs;
  }

  /// The trained ONNX model (serializeTrainedModel), as bytes.
  py::bytes trainedModel() {
    std::vector<HostTensor> state;
    std::string error, bytes;
    if (!exec_->readState(state, error) ||
        !serializeTrainedModel(exec_->artifact(), state, bytes, error))
      raise(error);
    return py::bytes(bytes);
  }

  static py::list toArrays(std::vector<HostTensor> &tensors) {
    py::list out;
    for (HostTensor &t : tensors) {
      // The array owns the executor's output bytes.
      auto *bytes = new std::vector<uint8_t>(std::move(t.data));
      py::capsule owner(bytes, [](void *p) {
        delete static_cast<std::vector<uint8_t> *>(p);
      });
      py::dtype dtype(numpyName(t.desc.dtype));
      std::vector<py::ssize_t> shape(t.desc.shape.begin(), t.desc.shape.end());
      out.append(py::array(dtype, shape, bytes->data(), owner));
    }
    return out;
  }

  /// Times `iterations` runs after `warmup`: latency and each launch's
  /// median (ms), and how launches were timed.
  py::dict bench(const py::list &arrays, int warmup, int iterations) {
    std::vector<py::array> keep;
    std::vector<TensorRef> refs = refsFor(arrays, keep);
    BenchStats stats;
    std::string error;
    bool ok;
    {
      py::gil_scoped_release release;
      ok = exec_->benchmark(refs, warmup, iterations, stats, error);
    }
    if (!ok)
      raise(error);
    py::dict out;
    out["median_ms"] = stats.medianMs;
    out["min_ms"] = stats.minMs;
    out["max_ms"] = stats.maxMs;
    out["runs_ms"] = stats.runsMs;
    out["launch_ms"] = stats.launchMedianMs;
    out["launch_skipped"] = stats.launchSkipped;
    out["kernel_timing"] = stats.kernelTiming;
    out["kernel_timing_note"] = stats.kernelTimingNote;
    return out;
  }

  /// One dict per launch: its kernel's name, ops, static bytes and flops,
  /// configuration, (CUDA) grid and block, and its branch guards
  /// ((condition buffer, taken branch) pairs; empty: always runs).
  py::list launches() const {
    const Artifact &a = exec_->artifact();
    py::list out;
    for (size_t i = 0; i < a.launches.size(); ++i) {
      const Kernel &k = a.kernels[a.launches[i].kernel];
      py::dict row;
      row["launch"] = i;
      row["name"] = k.name;
      row["ops"] = k.ops;
      row["bytes_read"] = k.bytesRead;
      row["bytes_written"] = k.bytesWritten;
      row["flops"] = k.flops;
      row["config"] = k.config;
      row["grid"] = std::vector<uint32_t>(k.grid, k.grid + 3);
      row["block"] = std::vector<uint32_t>(k.block, k.block + 3);
      py::list guards;
      for (const LaunchGuard &g : a.launches[i].guards)
        guards.append(py::make_tuple(g.buffer, g.taken));
      row["guards"] = guards;
      out.append(row);
    }
    return out;
  }

  /// cuda-sim's counters of the last run (JSON, as bwc-run --profile
  /// --json writes it); empty before any profiled run.
  std::string simProfileJson() const {
    const Artifact &a = exec_->artifact();
    std::vector<sim::LaunchProfile> last =
        lastRunProfiles(a, sim::simProfiles(), exec_->lastRunSkipped());
    if (last.empty())
      return "";
    return bwc::rt::simProfileJson(a, last);
  }

  std::string chromeTrace(const std::vector<double> &launchMs,
                          const std::string &timing) const {
    return chromeTraceJson(exec_->artifact(), launchMs, exec_->deviceName(),
                           timing);
  }

private:
  std::vector<TensorRef> refsFor(const py::list &arrays,
                                 std::vector<py::array> &keep) {
    const Artifact &a = exec_->artifact();
    if (arrays.size() != a.inputs.size())
      raise("the model expects " + std::to_string(a.inputs.size()) +
            " inputs but got " + std::to_string(arrays.size()));
    std::vector<TensorRef> refs;
    for (size_t i = 0; i < a.inputs.size(); ++i) {
      py::array arr = py::reinterpret_borrow<py::array>(arrays[i]);
      if (!(arr.flags() & py::array::c_style))
        raise("input '" + a.inputs[i].name + "' is not C-contiguous");
      if (!arr.dtype().is(py::dtype(numpyName(a.inputs[i].dtype))))
        raise("input '" + a.inputs[i].name + "' has dtype " +
              py::cast<std::string>(py::str(arr.dtype())) +
              " but the model expects " + numpyName(a.inputs[i].dtype));
      TensorRef ref;
      ref.desc.name = a.inputs[i].name;
      ref.desc.dtype = a.inputs[i].dtype;
      ref.desc.shape.assign(arr.shape(), arr.shape() + arr.ndim());
      ref.data = arr.data();
      ref.bytes = arr.nbytes();
      refs.push_back(std::move(ref));
      keep.push_back(std::move(arr));
    }
    return refs;
  }

  std::string device_;
  std::unique_ptr<Executor> exec_;
};

} // namespace

PYBIND11_MODULE(_runtime, m) {
  m.doc() = "bwc's runtime (bwc/Runtime); use bwc.Session";
  runtimeError =
      PyErr_NewException("bwc._runtime.Error", PyExc_RuntimeError, nullptr);
  m.attr("Error") = py::handle(runtimeError);
  m.attr("__version__") = BWC_VERSION;
  m.def("artifact_info", &artifactInfo, py::arg("artifact"));
  m.def("sim_available", &sim::simAvailable);
  m.def("read_tensor", &readTensor, py::arg("path"));
  m.def("sign", &signArtifactBytes, py::arg("artifact"), py::arg("key_path"));
  m.def("verify", &verifyArtifactBytes, py::arg("artifact"),
        py::arg("key_path"));
  // Out-of-memory injection for tests (bwc/Runtime/HostMemory.h).
  m.def("fail_host_allocation", &bwc::rt::testing::failHostAllocation,
        py::arg("n"));
  m.def("host_allocations", &bwc::rt::testing::hostAllocations);
  m.def("live_host_allocations", &bwc::rt::testing::liveHostAllocations);
  m.def("write_tensor", &writeTensor, py::arg("path"), py::arg("name"),
        py::arg("array"), py::arg("dtype"));
  m.def("clear_sim_profiles", &sim::clearSimProfiles);
  py::class_<Session>(m, "Session")
      .def(py::init<const py::bytes &, const std::string &, const std::string &,
                    double, bool>(),
           py::arg("artifact"), py::arg("device"), py::arg("sanitize"),
           py::arg("sim_timeout"), py::arg("profile"))
      .def("inputs", &Session::inputs)
      .def("outputs", &Session::outputs)
      .def("device_name", &Session::deviceName)
      .def("run", &Session::run, py::arg("arrays"))
      .def("state", &Session::state)
      .def("trained_model", &Session::trainedModel)
      .def("bench", &Session::bench, py::arg("arrays"), py::arg("warmup"),
           py::arg("iterations"))
      .def("launches", &Session::launches)
      .def("sim_profile_json", &Session::simProfileJson)
      .def("chrome_trace", &Session::chromeTrace, py::arg("launch_ms"),
           py::arg("timing"));
}
