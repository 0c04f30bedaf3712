"""bwc as an ONNX backend (onnx.backend.base.Backend).

    import bwc.backend
    rep = bwc.backend.prepare(model)          # compiles for the CPU
    outputs = rep.run([x])                    # graph inputs by position

ONNX's own test runner, onnx.backend.test.BackendTest, drives it
(test/python/test_onnx_backend.py). Keyword arguments of prepare() go to
bwc.compile (precision="fp16", fusion="none", ...); `bwc_device` picks the
device of a CUDA model ("cuda" or "cuda-sim").
"""

import numpy as _np
from onnx.backend.base import Backend, BackendRep, Device, DeviceType

import bwc as _bwc
from bwc._shape_inputs import SHAPE_OPERANDS, shape_inputs  # noqa: F401


def _gpu_driver():
    try:
        import ctypes
        ctypes.CDLL("libcuda.so.1")
        return True
    except OSError:
        return False


class BwcBackendRep(BackendRep):
    """A compiled model: run() takes the graph's inputs (those that are not
    initializers) by position, or a dict by name, and returns the outputs
    in graph order. A model with shape inputs is compiled at its first run,
    with those inputs bound to that run's values, and again when they
    change."""

    def __init__(self, model, input_names, bound, compile_options,
                 bwc_device):
        self.model = model
        self.input_names = input_names
        self.bound = bound
        self._options = compile_options
        self._device = bwc_device
        self._sessions = {}
        if not bound:
            self.session = self._session({})

    def _session(self, values):
        key = tuple((n, v.dtype.str, v.shape, v.tobytes())
                    for n, v in sorted(values.items()))
        if key not in self._sessions:
            artifact = _bwc.compile(self.model, input_values=values or None,
                                    **self._options)
            self._sessions[key] = _bwc.Session(artifact, device=self._device)
        self.session = self._sessions[key]
        return self.session

    def run(self, inputs, **kwargs):
        if isinstance(inputs, dict):
            feeds = dict(inputs)
        else:
            if isinstance(inputs, _np.ndarray):
                inputs = [inputs]
            feeds = dict(zip(self.input_names, inputs))
        feeds = {k: _np.asarray(v) for k, v in feeds.items()}
        session = self._session({n: feeds[n] for n in self.bound
                                 if n in feeds}) if self.bound else self.session
        # Inputs bound at compile time are not the session's.
        wanted = {i.name for i in session.get_inputs()}
        outputs = session.run(None, {k: v for k, v in feeds.items()
                                     if k in wanted})
        # ONNX's numpy convention: bfloat16 as its uint16 bits.
        for k, info in enumerate(session.get_outputs()):
            if info.bwc_dtype == "bf16":
                outputs[k] = (outputs[k].view(_np.uint32) >> 16).astype(
                    _np.uint16)
        return tuple(outputs)


class BwcBackend(Backend):
    @classmethod
    def is_compatible(cls, model, device="CPU", **kwargs):
        return cls.supports_device(device)

    @classmethod
    def prepare(cls, model, device="CPU", **kwargs):
        super(BwcBackend, cls).prepare(model, device, **kwargs)
        kind = Device(device).type
        bwc_device = kwargs.pop("bwc_device", None)
        kwargs.setdefault("target", "cuda" if kind == DeviceType.CUDA else "cpu")
        initializers = {t.name for t in model.graph.initializer}
        names = [i.name for i in model.graph.input if i.name not in initializers]
        return BwcBackendRep(model, names, shape_inputs(model), kwargs,
                             bwc_device)

    @classmethod
    def run_model(cls, model, inputs, device="CPU", **kwargs):
        return cls.prepare(model, device, **kwargs).run(inputs)

    @classmethod
    def run_node(cls, node, inputs, device="CPU", outputs_info=None,
                 **kwargs):
        raise NotImplementedError("bwc compiles whole models; use run_model")

    @classmethod
    def supports_device(cls, device):
        # CUDA when a GPU driver loads; prepare(..., device="CUDA",
        # bwc_device="cuda-sim") runs CUDA models without one.
        kind = Device(device).type
        return kind == DeviceType.CPU or (kind == DeviceType.CUDA and
                                          _gpu_driver())


prepare = BwcBackend.prepare
run_model = BwcBackend.run_model
run_node = BwcBackend.run_node
supports_device = BwcBackend.supports_device
is_compatible = BwcBackend.is_compatible
