"""bwc: compile ONNX models into bandwidth-optimized kernels and run them.

    import bwc, numpy
    artifact = bwc.compile("model.onnx", target="cpu")
    session = bwc.Session(artifact)
    (y,) = session.run(None, {"x": numpy.zeros((1, 3, 48, 192), "float32")})

bwc.compile wraps the compiler API (bwc/Compiler/Compiler.h); bwc.Session
wraps the runtime, in ONNX Runtime's shape (get_inputs, get_outputs, run).
docs/python.md documents every function.
"""

import builtins as _builtins
import json as _json
import os as _os

import numpy as _np

from . import _runtime

try:  # a runtime-only build has no compiler
    from . import _compiler
except ImportError:  # pragma: no cover
    _compiler = None

__version__ = _runtime.__version__

__all__ = [
    "Artifact", "BenchResult", "CompileError", "Profile", "RuntimeError",
    "SequenceShapes", "Session", "TensorInfo", "compile", "load",
    "read_tensor", "version",
    "write_tensor",
]


class CompileError(Exception):
    """The compiler refused the model or the options.

    `diagnostics` holds the compiler's messages, one per line, formatted as
    "file:line:col: error: message" where the error has a source location.
    """

    def __init__(self, diagnostics):
        self.diagnostics = diagnostics
        super().__init__(diagnostics.strip() or "compilation failed")


class RuntimeError(_builtins.RuntimeError):
    """The runtime refused an artifact or an input, or a run failed."""


def version():
    """bwc's version and the MLIR/LLVM it was built with."""
    if _compiler is None:
        return "bwc " + __version__
    return _compiler.version()


# ONNX Runtime's type strings, for NodeArg-like `type`.
_ORT_TYPES = {
    "f32": "tensor(float)", "f64": "tensor(double)", "f16": "tensor(float16)",
    "bf16": "tensor(bfloat16)", "i8": "tensor(int8)", "u8": "tensor(uint8)",
    "i16": "tensor(int16)", "u16": "tensor(uint16)", "i32": "tensor(int32)",
    "u32": "tensor(uint32)", "i64": "tensor(int64)", "u64": "tensor(uint64)",
    "bool": "tensor(bool)",
}


class TensorInfo:
    """An input or output of a model: `name`, `shape` (a tuple of ints),
    `dtype` (the numpy dtype run() takes or returns), `type` (ONNX
    Runtime's string, e.g. "tensor(float)") and `bwc_dtype` (bwc's name,
    e.g. "f32"). bfloat16 has no numpy dtype: such tensors are float32
    arrays in Python, rounded to bfloat16 on the way in (uint16 arrays are
    taken as bfloat16 bits, onnx.numpy_helper's convention)."""

    def __init__(self, desc):
        self.name = desc["name"]
        self.shape = tuple(desc["shape"])
        self.bwc_dtype = desc["dtype"]
        self.dtype = _np.dtype("float32" if self.bwc_dtype == "bf16"
                               else desc["numpy"])
        self.type = _ORT_TYPES.get(self.bwc_dtype, "tensor(unknown)")

    def __repr__(self):
        return "TensorInfo(name=%r, dtype=%s, shape=%r)" % (
            self.name, self.dtype, self.shape)


class Artifact:
    """A compiled model: what bwc-compile writes to a .bwc file.

    `target` ("cpu" or "cuda"), `inputs` and `outputs` (TensorInfo lists),
    `report` (the static report as a dict, as --report-json writes it) and
    `data` (the artifact's bytes)."""

    def __init__(self, data):
        try:
            info = _runtime.artifact_info(bytes(data))
        except _runtime.Error as e:
            raise RuntimeError(str(e)) from None
        self.data = bytes(data)
        self.target = info["target"]
        self.inputs = [TensorInfo(d) for d in info["inputs"]]
        self.outputs = [TensorInfo(d) for d in info["outputs"]]
        self.report = _json.loads(info["report"]) if info["report"] else {}
        self.has_sim = info["sim"]

    def save(self, path):
        """Writes the artifact to `path` (bwc-run runs it)."""
        with open(path, "wb") as f:
            f.write(self.data)

    def __repr__(self):
        return "Artifact(target=%r, inputs=%r, outputs=%r)" % (
            self.target, self.inputs, self.outputs)


def load(path, verify_key=None):
    """Reads an artifact bwc-compile or Artifact.save wrote. With
    `verify_key` (a key file), it must be signed under that key
    (bwc-compile --sign-key, compile(sign_key=...)), or RuntimeError."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise RuntimeError("cannot read artifact '%s': %s" %
                           (path, e.strerror)) from None
    if verify_key is not None:
        try:
            _runtime.verify(data, _os.fspath(verify_key))
        except _runtime.Error as e:
            raise RuntimeError("%s: %s" % (path, e)) from None
    return Artifact(data)


_NUMPY_TO_BWC = {
    "float32": "f32", "float64": "f64", "float16": "f16", "int8": "i8",
    "uint8": "u8", "int16": "i16", "uint16": "u16", "int32": "i32",
    "uint32": "u32", "int64": "i64", "uint64": "u64", "bool": "bool",
}


def read_tensor(path):
    """Reads a serialized ONNX TensorProto file (an ONNX test case's
    input_0.pb, what bwc-run --output-dir writes) into a numpy array;
    bfloat16 comes back as float32."""
    try:
        _, array, dtype = _runtime.read_tensor(_os.fspath(path))
    except _runtime.Error as e:
        raise RuntimeError(str(e)) from None
    return _widen_bf16(array) if dtype == "bf16" else array


def write_tensor(path, array, name=""):
    """Writes `array` as a serialized ONNX TensorProto file (bwc-run
    --input takes it)."""
    array = _np.require(_np.asarray(array), requirements="C")
    dtype = _NUMPY_TO_BWC.get(array.dtype.name)
    if dtype is None:
        raise TypeError("write_tensor: no ONNX type for dtype %s" % array.dtype)
    try:
        _runtime.write_tensor(_os.fspath(path), name, array, dtype)
    except _runtime.Error as e:
        raise RuntimeError(str(e)) from None


def _tensor_proto_bytes(name, value):
    from onnx import numpy_helper
    return numpy_helper.from_array(_np.asarray(value), name).SerializeToString()


class SequenceShapes(list):
    """The element shapes of a sequence input, for compile's input_shapes:
    SequenceShapes([[3, 4], [2, 4]]) is a sequence of two tensors (its
    length is fixed at compile time), SequenceShapes([]) an empty one."""


def _shape_text(shape):
    """input_shapes' value as bwc-compile's --input-shape spells it."""
    if isinstance(shape, str):
        return shape
    if isinstance(shape, SequenceShapes):
        return "[%s]" % ",".join(_shape_text(s) if len(s) else "scalar"
                                 for s in shape)
    return "x".join(str(int(d)) for d in shape)


def compile(model, target="cpu", input_shapes=None, input_values=None,
            precision="fp32", fusion="default", memory_budget=None,
            layout="auto", sign_key=None, **options):
    """Compiles an ONNX model (or bwc MLIR) into an Artifact.

    model: a path (.onnx, .onnxtext, or .mlir), the model's bytes, or an
        onnx.ModelProto.
    target: "cpu" or "cuda".
    input_shapes: {input name: shape}, fixing dynamic dimensions; for a
        sequence input, SequenceShapes([shape, ...]) (its elements become
        the artifact's inputs NAME[0], NAME[1], ...; docs/import.md).
    input_values: {input name: array or .pb path}, binding inputs (shape
        tensors) to constants at compile time.
    precision: "fp32", "fp16" or "bf16"; fusion: "default" or "none";
    memory_budget: the largest arena, in bytes (an int) or as "64MiB";
    layout: "auto", "nchw" or "nhwc".
    sign_key: a key file (at least 32 bytes): the artifact is signed with
        HMAC-SHA256 under it (load(path, verify_key=...) checks it).
    options: every other bwc-compile flag, spelled in snake_case:
        tile="none", tensor_cores="off", io_precision="fp16", sm_count=132,
        codegen="elemental", conv_kernels="direct", cuda_sim="off",
        emit="ptx" (then the PTX text is returned instead of an Artifact)...

    Raises CompileError with the compiler's diagnostics.
    """
    if _compiler is None:
        raise CompileError("error: this bwc package was built without the "
                           "compiler (runtime only)")
    path, data, fmt = "", None, "auto"
    if hasattr(model, "SerializeToString"):
        data, fmt, path = model.SerializeToString(), "onnx", "<ModelProto>"
    elif isinstance(model, (bytes, bytearray, memoryview)):
        # A serialized ModelProto; ONNX text starts with "<" (its header),
        # MLIR with an op.
        data, path = bytes(model), "<bytes>"
        head = data.lstrip()[:16]
        fmt = ("onnxtext" if head.startswith(b"<") else
               "mlir" if head.startswith((b"func.func", b"module")) else
               "onnx")
    elif isinstance(model, (str, _os.PathLike)):
        path = _os.fspath(model)
        if not _os.path.exists(path):
            raise CompileError("error: cannot open '%s': no such file" % path)
    else:
        raise TypeError("model must be a path, bytes or an onnx.ModelProto, "
                        "not %s" % type(model).__name__)
    opts = dict(options)
    opts.update(target=target, precision=precision, fusion=fusion,
                layout=layout)
    if memory_budget is not None:
        opts["memory_budget"] = str(memory_budget)
    if input_shapes:
        opts["input_shapes"] = [
            "%s=%s" % (name, _shape_text(shape))
            for name, shape in input_shapes.items()]
    if input_values:
        files, blobs = [], {}
        for name, value in input_values.items():
            if isinstance(value, (str, _os.PathLike)):
                files.append("%s=%s" % (name, _os.fspath(value)))
            else:
                blobs[name] = _tensor_proto_bytes(name, value)
        if files:
            opts["input_value_files"] = files
        if blobs:
            opts["input_value_bytes"] = blobs
    ok, artifact, report, emitted, diagnostics = _compiler.compile(
        path, data, fmt, opts)
    if not ok:
        raise CompileError(diagnostics)
    if opts.get("emit", "artifact") != "artifact":
        return emitted
    if sign_key is not None:
        try:
            artifact = _runtime.sign(artifact, _os.fspath(sign_key))
        except _runtime.Error as e:
            raise CompileError("error: %s" % e) from None
    return Artifact(artifact)


def _bf16_bits(array):
    """float32 values as the bits of the nearest bfloat16 (ties to even)."""
    bits = _np.ascontiguousarray(array, dtype=_np.float32).view(_np.uint32)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    nan = _np.isnan(array)
    out = rounded.astype(_np.uint16)
    out[nan] = ((bits[nan] >> 16) | 0x40).astype(_np.uint16)
    return out


def _widen_bf16(bits):
    return (bits.astype(_np.uint32) << 16).view(_np.float32)


class _Rows(list):
    """Per-launch rows (dicts) that print as a table."""

    columns = ()

    def __str__(self):
        head = ["%-4s %-40s %12s %10s %9s" % ("#", "kernel", "bytes", "us",
                                              "GB/s")]
        for r in self:
            head.append("%-4d %-40.40s %12d %10.2f %9.2f" % (
                r["launch"], r["name"], r["bytes"], r["time_us"], r["gbps"]))
        return "\n".join(head)


class BenchResult:
    """Session.bench's figures: `latency_ms` (median, min, max over the
    runs), `runs_ms`, `rows` (one dict per launch: launch, name, ops, bytes,
    flops, time_us, gbps, and skipped: True for a launch of a runtime If's
    branch not taken on these inputs), `device` and `timing` (how launches
    were timed)."""

    def __init__(self, stats, launches, device, timing):
        self.latency_ms = {"median": stats["median_ms"],
                           "min": stats["min_ms"], "max": stats["max_ms"]}
        self.runs_ms = list(stats["runs_ms"])
        self.device = device
        self.timing = timing
        self.launch_ms = list(stats["launch_ms"])
        self.rows = _Rows()
        skipped = list(stats.get("launch_skipped", []))
        for row, ms in zip(launches, self.launch_ms):
            bytes_ = row["bytes_read"] + row["bytes_written"]
            us = ms * 1e3
            self.rows.append(dict(
                launch=row["launch"], name=row["name"], ops=row["ops"],
                bytes=bytes_, flops=row["flops"], time_us=us,
                gbps=bytes_ / (us * 1e3) if us > 0 else 0.0,
                skipped=bool(skipped[row["launch"]])
                if row["launch"] < len(skipped) else False))

    def __str__(self):
        return "%s\nlatency median %.4f ms (min %.4f, max %.4f) on %s, " \
               "kernel timing: %s" % (
                   self.rows, self.latency_ms["median"],
                   self.latency_ms["min"], self.latency_ms["max"],
                   self.device, self.timing)


class Profile(BenchResult):
    """Session.profile's figures: BenchResult's rows, and under cuda-sim
    each row's `counters` (the emulator's exact memory counters: sectors,
    requests, bank conflicts, barriers; docs/targets/cuda-sim.md) and
    `estimate_us` (an H200 estimate, never a measurement).
    save_chrome_trace(path) writes the launches as a Chrome trace."""

    def __init__(self, stats, launches, device, timing, trace, counters):
        super().__init__(stats, launches, device, timing)
        self._trace = trace
        self.counters = counters
        if counters:
            for row, k in zip(self.rows, counters["kernels"]):
                row["counters"] = k["counters"]
                row["estimate_us"] = k["estimate_us"]

    def chrome_trace(self):
        """The trace as a dict (Trace Event Format)."""
        return _json.loads(self._trace)

    def save_chrome_trace(self, path):
        """Writes the trace for chrome://tracing or ui.perfetto.dev."""
        with open(path, "w") as f:
            f.write(self._trace)


class Session:
    """Runs an artifact, with ONNX Runtime's InferenceSession shape.

    artifact: an Artifact, a path to a .bwc file, or an artifact's bytes.
    device: "cpu" (CPU artifacts), "cuda" (the GPU) or "cuda-sim" (a CUDA
        artifact's kernels emulated on the CPU); default: the artifact's
        target.
    sanitize: cuda-sim's checks, "memcheck,racecheck,synccheck,initcheck",
        "all" or "none" (default memcheck,synccheck).
    sim_timeout: cuda-sim, seconds a launch may run (default 600).
    verify_key: a key file; the artifact must be signed under it.
    """

    def __init__(self, artifact, device=None, sanitize=None,
                 sim_timeout=None, verify_key=None):
        if isinstance(artifact, (str, _os.PathLike)):
            artifact = load(artifact, verify_key=verify_key)
        elif verify_key is not None:
            data = artifact.data if isinstance(artifact, Artifact) else \
                bytes(artifact)
            try:
                _runtime.verify(data, _os.fspath(verify_key))
            except _runtime.Error as e:
                raise RuntimeError(str(e)) from None
        elif isinstance(artifact, (bytes, bytearray, memoryview)):
            artifact = Artifact(artifact)
        elif not isinstance(artifact, Artifact):
            raise TypeError("artifact must be an Artifact, a path or bytes, "
                            "not %s" % type(artifact).__name__)
        target = artifact.target
        if device is None:
            device = "cpu" if target == "cpu" else "cuda"
        allowed = ("cpu",) if target == "cpu" else ("cuda", "cuda-sim")
        if device not in allowed:
            raise RuntimeError(
                "device %r cannot run a %s artifact (use %s)" % (
                    device, target, " or ".join(repr(d) for d in allowed)))
        if sanitize is not None and device != "cuda-sim":
            raise RuntimeError("sanitize needs device='cuda-sim'")
        if device == "cuda-sim" and not artifact.has_sim:
            raise RuntimeError("this artifact has no cuda-sim code (it was "
                               "compiled with cuda_sim='off')")
        self.artifact = artifact
        self.device = device
        self._sanitize = sanitize or ""
        self._timeout = -1.0 if sim_timeout is None else float(sim_timeout)
        self._rt = self._open(profile=False)
        self._profiling = None
        self._inputs = list(artifact.inputs)
        self._outputs = list(artifact.outputs)

    def _open(self, profile):
        try:
            return _runtime.Session(self.artifact.data, self.device,
                                    self._sanitize, self._timeout, profile)
        except _runtime.Error as e:
            raise RuntimeError(str(e)) from None

    def get_inputs(self):
        """The inputs run() takes: TensorInfo (name, dtype, shape, type)."""
        return list(self._inputs)

    def get_outputs(self):
        """The outputs run() returns, in order."""
        return list(self._outputs)

    def _arrays(self, feeds):
        if not isinstance(feeds, dict):
            raise TypeError("input_feed must be a dict {input name: array}")
        names = {i.name for i in self._inputs}
        unknown = sorted(set(feeds) - names)
        if unknown:
            raise RuntimeError("the model has no input named %r (inputs: %s)"
                               % (unknown[0], ", ".join(sorted(names))))
        arrays = []
        for info in self._inputs:
            if info.name not in feeds:
                raise RuntimeError("missing input %r (%s %s)" % (
                    info.name, info.dtype, "x".join(map(str, info.shape))))
            value = feeds[info.name]
            array = _np.asarray(value)
            if info.bwc_dtype == "bf16" and array.dtype == _np.uint16:
                # bfloat16 bits, as onnx.numpy_helper holds them.
                array = _widen_bf16(array)
            if array.dtype != info.dtype:
                raise RuntimeError(
                    "input %r has dtype %s but the model expects %s" % (
                        info.name, array.dtype, info.dtype))
            if array.shape != info.shape:
                raise RuntimeError(
                    "input %r has shape %s but the model expects %s" % (
                        info.name, array.shape, info.shape))
            if info.bwc_dtype == "bf16":
                array = _bf16_bits(array)
            else:
                # Copies only a non-contiguous array (and keeps 0-d ones).
                array = _np.require(array, requirements="C")
            arrays.append(array)
        return arrays

    def _zeros(self):
        return {i.name: _np.zeros(i.shape, i.dtype) for i in self._inputs}

    def run(self, output_names, input_feed, run_options=None):
        """Runs the model once: `input_feed` maps every input name to an
        array of its dtype and shape; returns the outputs named in
        `output_names` (None: all), in that order, as numpy arrays."""
        arrays = self._arrays(input_feed)
        try:
            results = self._rt.run(arrays)
        except _runtime.Error as e:
            raise RuntimeError(str(e)) from None
        for k, info in enumerate(self._outputs):
            if info.bwc_dtype == "bf16":
                results[k] = _widen_bf16(results[k])
        if output_names is None:
            return results
        index = {info.name: k for k, info in enumerate(self._outputs)}
        missing = [n for n in output_names if n not in index]
        if missing:
            raise RuntimeError("the model has no output named %r (outputs: "
                               "%s)" % (missing[0], ", ".join(index)))
        return [results[index[n]] for n in output_names]

    def state(self):
        """The trained state of an optimizer step (`train="sgd:LR"` or
        `"adam:LR"`): {name: array} of the parameters (by initializer name)
        and the optimizer's moments (`adam.m.<name>`, `adam.v.<name>`,
        `adam.step`), as they are after the runs so far. Empty for other
        artifacts."""
        try:
            pairs = self._rt.state()
        except _runtime.Error as e:
            raise RuntimeError(str(e)) from None
        return {name: array for name, array in pairs}

    def save_weights(self, model, path=None):
        """Writes the trained model as ONNX.

        `save_weights(path)`: the model the artifact was compiled from
        (an optimizer step compiled from ONNX carries it), its trained
        initializers holding state()'s values, as `bwc-run --save-weights
        OUT.onnx` writes it.

        `save_weights(model, path)`: `model` (the ONNX model compiled for
        training: a path or ModelProto) with its trained parameters: each
        initializer (or weight Constant node) the step trained takes its
        value from state()."""
        if path is None:
            try:
                data = self._rt.trained_model()
            except _runtime.Error as e:
                raise RuntimeError(str(e)) from None
            with open(_os.fspath(model), "wb") as f:
                f.write(data)
            return
        import onnx
        from onnx import numpy_helper
        m = onnx.load(model) if isinstance(model, (str, _os.PathLike)) \
            else model
        out = onnx.ModelProto()
        out.CopyFrom(m)
        state = self.state()
        g = out.graph
        for init in g.initializer:
            if init.name in state:
                init.CopyFrom(numpy_helper.from_array(
                    state[init.name].astype(
                        numpy_helper.to_array(init).dtype), init.name))
        for node in g.node:
            if (node.op_type == "Constant" and node.output and
                    node.output[0] in state):
                for attr in node.attribute:
                    if attr.name == "value":
                        attr.t.CopyFrom(numpy_helper.from_array(
                            state[node.output[0]].astype(
                                numpy_helper.to_array(attr.t).dtype),
                            node.output[0]))
        onnx.save(out, _os.fspath(path))

    def _timing(self, stats):
        timing = stats["kernel_timing"]
        if self.device == "cuda-sim":
            timing += " (cuda-sim: the emulator's CPU times, not GPU timings)"
        return timing

    def bench(self, n=100, input_feed=None, warmup=None):
        """Times `n` runs after `warmup` (default min(n, 10)) untimed ones,
        on `input_feed` (default zeros): a BenchResult with the latency and
        each kernel's time and GB/s (input and output copies excluded)."""
        if n < 1:
            raise ValueError("bench needs at least one run")
        arrays = self._arrays(input_feed or self._zeros())
        warm = min(n, 10) if warmup is None else warmup
        try:
            stats = self._rt.bench(arrays, warm, n)
        except _runtime.Error as e:
            raise RuntimeError(str(e)) from None
        return BenchResult(stats, self._rt.launches(),
                           self._rt.device_name(), self._timing(stats))

    def profile(self, input_feed=None, runs=3):
        """One row per launch (name, ops, bytes, time, GB/s; under cuda-sim
        also the memory counters of a profiled run) and a Chrome trace of
        the launches (Profile.save_chrome_trace)."""
        feeds = input_feed or self._zeros()
        arrays = self._arrays(feeds)
        counters = None
        try:
            if self.device == "cuda-sim":
                if self._profiling is None:
                    self._profiling = self._open(profile=True)
                _runtime.clear_sim_profiles()
                self._profiling.run(arrays)
                text = self._profiling.sim_profile_json()
                counters = _json.loads(text) if text else None
            stats = self._rt.bench(arrays, 1, runs)
        except _runtime.Error as e:
            raise RuntimeError(str(e)) from None
        timing = self._timing(stats)
        trace = self._rt.chrome_trace(stats["launch_ms"], timing)
        return Profile(stats, self._rt.launches(), self._rt.device_name(),
                       timing, trace, counters)
