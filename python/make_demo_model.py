#!/usr/bin/python3
"""Writes the demo model: LayerNorm(gelu(x * a + b) + r) over rows of
4096, written out the way exporters write it (GELU with Erf, LayerNorm as
ReduceMean/Sub/Pow/Sqrt/Div, a dynamic batch dim). It is the memory-bound
sub-graph DESIGN.md measures peers on.

Usage: make_demo_model.py OUT_DIR [ROWS]
Writes OUT_DIR/model.onnx and, for ROWS rows (default 512), one
test_data_set_0 with random inputs and the numpy reference output, so that
`bwc-run --check OUT_DIR` can check a compiled model.
"""
import math
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def reference(x, r, a, b, gamma, beta):
    h = x * a + b
    erf = np.vectorize(math.erf)(h / np.sqrt(2.0))
    s = 0.5 * h * (1.0 + erf) + r
    mu = s.mean(axis=-1, keepdims=True)
    var = ((s - mu) ** 2).mean(axis=-1, keepdims=True)
    return (s - mu) / np.sqrt(var + 1e-5) * gamma + beta


def main():
    out_dir = sys.argv[1]
    rows = int(sys.argv[2]) if len(sys.argv) > 2 else 512
    cols = 4096
    rng = np.random.default_rng(0)

    def const(name, value):
        return numpy_helper.from_array(np.asarray(value, dtype=np.float32), name)

    inits = [
        const("a", rng.standard_normal(cols)), const("b", rng.standard_normal(cols)),
        const("gamma", np.ones(cols)), const("beta", np.zeros(cols)),
        const("half", 0.5), const("one", 1.0), const("inv_sqrt2", 1 / np.sqrt(2)),
        const("two", 2.0), const("eps", 1e-5),
    ]
    nodes = [
        helper.make_node("Mul", ["x", "a"], ["xa"]),
        helper.make_node("Add", ["xa", "b"], ["h"]),
        # gelu(h) = 0.5 * h * (1 + erf(h / sqrt(2)))
        helper.make_node("Mul", ["h", "inv_sqrt2"], ["hs"]),
        helper.make_node("Erf", ["hs"], ["e"]),
        helper.make_node("Add", ["e", "one"], ["e1"]),
        helper.make_node("Mul", ["h", "e1"], ["he"]),
        helper.make_node("Mul", ["he", "half"], ["g"]),
        helper.make_node("Add", ["g", "r"], ["s"]),
        # LayerNorm over the last axis, decomposed.
        helper.make_node("ReduceMean", ["s"], ["mu"], axes=[-1]),
        helper.make_node("Sub", ["s", "mu"], ["d"]),
        helper.make_node("Pow", ["d", "two"], ["d2"]),
        helper.make_node("ReduceMean", ["d2"], ["var"], axes=[-1]),
        helper.make_node("Add", ["var", "eps"], ["ve"]),
        helper.make_node("Sqrt", ["ve"], ["sd"]),
        helper.make_node("Div", ["d", "sd"], ["n"]),
        helper.make_node("Mul", ["n", "gamma"], ["ng"]),
        helper.make_node("Add", ["ng", "beta"], ["y"]),
    ]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["rows", cols])
    r = helper.make_tensor_value_info("r", TensorProto.FLOAT, ["rows", cols])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["rows", cols])
    graph = helper.make_graph(nodes, "ln_gelu_residual", [x, r], [y], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                              producer_name="bwc make_demo_model.py")
    onnx.checker.check_model(model)
    os.makedirs(os.path.join(out_dir, "test_data_set_0"), exist_ok=True)
    onnx.save(model, os.path.join(out_dir, "model.onnx"))

    weights = {t.name: numpy_helper.to_array(t) for t in inits}
    x = rng.standard_normal((rows, cols)).astype(np.float32)
    r = rng.standard_normal((rows, cols)).astype(np.float32)
    y = reference(x.astype(np.float64), r, weights["a"], weights["b"],
                  weights["gamma"], weights["beta"]).astype(np.float32)
    data = os.path.join(out_dir, "test_data_set_0")
    for k, (name, value) in enumerate([("x", x), ("r", r)]):
        with open(os.path.join(data, f"input_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(value, name).SerializeToString())
    with open(os.path.join(data, "output_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(y, "y").SerializeToString())


if __name__ == "__main__":
    main()
