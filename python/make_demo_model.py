#!/usr/bin/python3
"""Writes the demo model: LayerNorm(gelu(x * a + b) + r) over rows of
4096, written out the way exporters write it (GELU with Erf, LayerNorm as
ReduceMean/Sub/Pow/Sqrt/Div, a dynamic batch dim). It is the memory-bound
sub-graph DESIGN.md measures peers on.

Usage: make_demo_model.py OUT.onnx [ROWS]
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main():
    out = sys.argv[1]
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
    onnx.save(model, out)


if __name__ == "__main__":
    main()
