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


def _content(type_proto):
    """An optional's element type, else the type itself."""
    if type_proto.WhichOneof("value") == "optional_type":
        return type_proto.optional_type.elem_type
    return type_proto


def _is_sequence(type_proto):
    return _content(type_proto).WhichOneof("value") == "sequence_type"


def _shape_free_inputs(model, names):
    """The inputs whose shapes the graph leaves open: sequences (their
    length), optionals (present or not) and tensors with a dynamic
    dimension."""
    free = []
    for i in model.graph.input:
        if i.name not in names:
            continue
        kind = i.type.WhichOneof("value")
        if kind in ("sequence_type", "optional_type"):
            free.append(i.name)
        elif kind == "tensor_type" and (
                not i.type.tensor_type.HasField("shape") or any(
                    not d.HasField("dim_value")
                    for d in i.type.tensor_type.shape.dim)):
            free.append(i.name)
    return free


class BwcBackendRep(BackendRep):
    """A compiled model: run() takes the graph's inputs (those that are not
    initializers) by position, or a dict by name, and returns the outputs
    in graph order. A model with shape inputs is compiled at its first run,
    with those inputs bound to that run's values, and again when they
    change; so is a model with dynamic dimensions or sequence inputs, at
    that run's shapes. A sequence input is a list of arrays; a sequence
    output comes back as one (bwc resolves sequences at import: the
    artifact's inputs and outputs are their elements, NAME[i])."""

    def __init__(self, model, input_names, bound, compile_options,
                 bwc_device):
        self.model = model
        self.input_names = input_names
        self.sequences = {i.name for i in model.graph.input
                          if _is_sequence(i.type)}
        self.optionals = {i.name for i in model.graph.input
                          if i.type.WhichOneof("value") == "optional_type"}
        # A sequence's length is fixed with its shapes, not bound as a value.
        self.bound = [n for n in bound if n not in self.sequences]
        self.free = _shape_free_inputs(model, input_names)
        self._options = compile_options
        self._device = bwc_device
        self._sessions = {}
        if not bound and not self.free:
            self.session = self._session({}, {})

    def _session(self, values, shapes):
        key = (tuple((n, v.dtype.str, v.shape, v.tobytes())
                     for n, v in sorted(values.items())),
               tuple(sorted((n, str(s)) for n, s in shapes.items())))
        if key not in self._sessions:
            options = dict(self._options)
            if shapes:
                options["input_shapes"] = dict(
                    options.get("input_shapes") or {}, **shapes)
            artifact = _bwc.compile(self.model, input_values=values or None,
                                    **options)
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
        feeds = {k: (None if v is None else
                     [_np.asarray(e) for e in v] if k in self.sequences
                     else _np.asarray(v)) for k, v in feeds.items()}
        shapes = {}
        for n in self.free:
            if n not in feeds:
                continue
            if feeds[n] is None:
                shapes[n] = "none"  # an empty optional
                del feeds[n]
                continue
            shapes[n] = (_bwc.SequenceShapes(list(e.shape) for e in feeds[n])
                         if n in self.sequences else list(feeds[n].shape))
        if self.bound or self.free:
            session = self._session({n: feeds[n] for n in self.bound
                                     if n in feeds}, shapes)
        else:
            session = self.session
        for n in self.sequences:
            for k, e in enumerate(feeds.pop(n, [])):
                feeds["%s[%d]" % (n, k)] = e
        # Inputs bound at compile time are not the session's.
        wanted = {i.name for i in session.get_inputs()}
        outputs = session.run(None, {k: v for k, v in feeds.items()
                                     if k in wanted})
        # ONNX's numpy convention: bfloat16 as its uint16 bits.
        infos = session.get_outputs()
        for k, info in enumerate(infos):
            if info.bwc_dtype == "bf16":
                outputs[k] = (outputs[k].view(_np.uint32) >> 16).astype(
                    _np.uint16)
        # Sequence outputs: their elements NAME[0], NAME[1], ... as a list.
        by_name = {info.name: out for info, out in zip(infos, outputs)}
        result = []
        for o in self.model.graph.output:
            optional = o.type.WhichOneof("value") == "optional_type"
            if _is_sequence(o.type):
                items, k = [], 0
                while "%s[%d]" % (o.name, k) in by_name:
                    items.append(by_name["%s[%d]" % (o.name, k)])
                    k += 1
                # The artifact has no result for an empty optional, nor for
                # an empty sequence: an optional sequence output without
                # elements reads as the empty optional.
                result.append(None if optional and not items else items)
            elif optional and o.name not in by_name:
                result.append(None)  # an empty optional
            else:
                result.append(by_name[o.name])
        return tuple(result)


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
