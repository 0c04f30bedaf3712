"""A QDQ-quantized CNN against ONNX Runtime.

The model is generated here the way quantization tools write QDQ models:
activations pass through QuantizeLinear/DequantizeLinear pairs (uint8,
per tensor), weights are int8 initializers behind a per-output-channel
DequantizeLinear (axis 0), biases stay float. Conv 3x3 -> Relu -> QDQ ->
Conv 3x3 stride 2 -> Relu -> QDQ -> GlobalAveragePool -> Flatten -> Gemm.
bwc's output is compared with ONNX Runtime's CPU provider (graph
optimizations off, python/ort_reference.js) by relative L2 on the CPU target
and on cuda-sim; the limit is 1e-2 (one rounding that flips at a quantizer
moves an element by a whole quantization step)."""
import json
import os
import sys
import tempfile

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))

import bwc  # noqa: E402
import difftest  # noqa: E402

LIMIT = 1e-2


def qdq_cnn(seed=0):
    rng = np.random.default_rng(seed)
    nodes, inits = [], []

    def const(name, value):
        inits.append(numpy_helper.from_array(value, name))
        return name

    def qdq(x, scale, name):
        s = const(name + "_s", np.array(scale, np.float32))
        z = const(name + "_z", np.array(128, np.uint8))
        nodes.append(helper.make_node("QuantizeLinear", [x, s, z], [name + "_q"]))
        nodes.append(helper.make_node("DequantizeLinear", [name + "_q", s, z],
                                      [name + "_dq"]))
        return name + "_dq"

    def weight(name, shape):
        w = rng.standard_normal(shape).astype(np.float32) * 0.2
        axes = tuple(range(1, len(shape)))
        scale = (np.abs(w).max(axis=axes) / 127).astype(np.float32)
        q = np.clip(np.round(w / scale.reshape((-1,) + (1,) * len(axes))),
                    -127, 127).astype(np.int8)
        nodes.append(helper.make_node(
            "DequantizeLinear",
            [const(name + "_q", q), const(name + "_s", scale),
             const(name + "_z", np.zeros(shape[0], np.int8))],
            [name], axis=0))
        return name

    x = qdq("x", 1 / 64, "in")
    w1 = weight("w1", (16, 3, 3, 3))
    b1 = const("b1", (rng.standard_normal(16) * 0.1).astype(np.float32))
    nodes.append(helper.make_node("Conv", [x, w1, b1], ["c1"], pads=[1] * 4))
    nodes.append(helper.make_node("Relu", ["c1"], ["r1"]))
    h = qdq("r1", 1 / 32, "a1")
    w2 = weight("w2", (32, 16, 3, 3))
    b2 = const("b2", (rng.standard_normal(32) * 0.1).astype(np.float32))
    nodes.append(helper.make_node("Conv", [h, w2, b2], ["c2"], pads=[1] * 4,
                                  strides=[2, 2]))
    nodes.append(helper.make_node("Relu", ["c2"], ["r2"]))
    h = qdq("r2", 1 / 16, "a2")
    nodes.append(helper.make_node("GlobalAveragePool", [h], ["gap"]))
    nodes.append(helper.make_node("Flatten", ["gap"], ["flat"]))
    # Gemm's B is [K, N]: quantize per output column via a transpose-free
    # [N, K] weight with transB.
    w3 = weight("w3", (10, 32))
    b3 = const("b3", np.zeros(10, np.float32))
    nodes.append(helper.make_node("Gemm", ["flat", w3, b3], ["y"], transB=1))
    g = helper.make_graph(
        nodes, "qdq_cnn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 32, 32])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])], inits)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    return model


@pytest.fixture(scope="module")
def case():
    model = qdq_cnn()
    x = np.random.default_rng(1).uniform(-1, 1, (1, 3, 32, 32)).astype(
        np.float32)
    d = os.path.join(tempfile.mkdtemp(prefix="bwc-qdq-"), "case")
    os.makedirs(d)
    onnx.save(model, os.path.join(d, "model.onnx"))
    x.tofile(os.path.join(d, "x.bin"))
    json.dump({"inputs": [{"name": "x", "dtype": "float32",
                           "shape": [1, 3, 32, 32], "file": "x.bin"}]},
              open(os.path.join(d, "case.json"), "w"))
    ref = difftest.ort_run([d])[d]
    assert not isinstance(ref, str), ref
    return model, x, ref["y"]


@pytest.mark.parametrize("device", ["cpu", "cuda-sim"])
def test_qdq_cnn_matches_onnx_runtime(case, device):
    model, x, want = case
    artifact = bwc.compile(model.SerializeToString(),
                           target="cuda" if device == "cuda-sim" else "cpu")
    (got,) = bwc.Session(artifact, device=device).run(None, {"x": x})
    err = np.linalg.norm(got - want) / np.linalg.norm(want)
    print(f"qdq cnn {device}: relative L2 {err:.2e}")
    assert err <= LIMIT


def test_qdq_cnn_report_counts_integer_bytes(case):
    """The report's bytes are the quantized bytes: each weight is read as
    int8 by the kernel of its conv or Gemm (DequantizeLinear is that
    kernel's prologue), and the tensor between two kernels is the uint8
    one (the dequantizing tail of each QDQ pair moves into the consumer)."""
    model, _, _ = case
    report = bwc.compile(model.SerializeToString()).report
    kernels = report["kernels"]
    by_op = {}
    for k in kernels:
        ops = k["ops"].split(",")
        for key in ("conv", "matmul", "reduce"):
            if key in ops:
                by_op.setdefault(key, []).append(k)
    convs, gemms, pools = by_op["conv"], by_op["matmul"], by_op["reduce"]
    assert len(convs) == 2 and len(gemms) == 1 and len(pools) == 1, kernels
    f32 = 4
    # Conv 1: the uint8 input (3x32x32) and the int8 weights (16x3x3x3);
    # its 16-element scale, zero point and bias are inlined constants.
    assert convs[0]["bytes_read"] == 3 * 32 * 32 + 16 * 3 * 3 * 3
    # ... and it writes its quantized (uint8) 16x32x32 output.
    assert convs[0]["bytes_written"] == 16 * 32 * 32
    # Conv 2: the uint8 activations, the int8 weights (32x16x3x3) and two
    # 32-element f32 vectors (scale, bias; the zero point of zeros folds
    # away); it writes uint8 32x16x16.
    assert convs[1]["bytes_read"] == 16 * 32 * 32 + 32 * 16 * 9 + 2 * 32 * f32
    assert convs[1]["bytes_written"] == 32 * 16 * 16
    # GlobalAveragePool reads the uint8 tensor; the Gemm reads the pooled
    # f32 vector and the int8 weights (10x32).
    assert pools[0]["bytes_read"] == 32 * 16 * 16
    assert gemms[0]["bytes_read"] == 32 * f32 + 10 * 32
