#!/usr/bin/python3
"""Writes training-step test models for rematerialization (M1.8): one ONNX
graph per model holding a forward pass, a squared-error loss and the
backward pass written out in ordinary ONNX ops, so every forward activation
stays alive until the backward pass reaches it. Each model is a folder
with model.onnx and test_data_set_0 (inputs, and reference outputs computed
in numpy in float64), the layout of ../shared/models.

  mlp_train:      h_i = relu(h_{i-1} W_i); loss = 0.5 sum((h_N - y)^2);
                  g_N = (h_N - y) * (h_N > 0);
                  dW_i = h_{i-1}^T g_i; g_{i-1} = (g_i W_i^T) * (h_{i-1} > 0)
                  (the ReLU mask is taken from the saved forward output).
  residual_train: a_i = relu(h_{i-1} W_i); h_i = h_{i-1} + a_i;
                  loss = 0.5 sum((h_N - y)^2); g_N = h_N - y;
                  d_i = g_i * (a_i > 0); dW_i = h_{i-1}^T d_i;
                  g_{i-1} = g_i + d_i W_i^T.

Inputs: x, y and the weights w1..wN (parameters are inputs of a training
step); outputs: the loss and every weight gradient. Usage:
  make_training_models.py OUT_DIR [--layers N] [--batch B] [--width D]
"""
import argparse
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


class Graph:
    """A small ONNX graph builder: fresh names, nodes in order."""

    def __init__(self):
        self.nodes, self.inits, self.count = [], [], 0

    def op(self, kind, *inputs, **attrs):
        self.count += 1
        out = f"{kind.lower()}_{self.count}"
        self.nodes.append(helper.make_node(kind, list(inputs), [out],
                                           name=out, **attrs))
        return out

    def const(self, name, array):
        self.inits.append(numpy_helper.from_array(array, name))
        return name

    def relu_mask(self, gradient, saved):
        """gradient where the saved ReLU output is positive, else 0."""
        return self.op("Where", self.op("Greater", saved, "zero"), gradient,
                       "zero")

    def loss(self, h, y):
        diff = self.op("Sub", h, y)
        sq = self.op("ReduceSum", self.op("Mul", diff, diff), keepdims=0)
        return self.op("Mul", sq, "half"), diff


def build(kind, layers, batch, width, seed):
    rng = np.random.default_rng(seed)
    weights = [(rng.standard_normal((width, width)) / np.sqrt(width))
               .astype(np.float32) for _ in range(layers)]
    g = Graph()
    g.const("zero", np.array(0, np.float32))
    g.const("half", np.array(0.5, np.float32))
    # Parameters are inputs of a training step (not constants folded into
    # the program), so W^T is computed in the backward pass where it is used.
    w = [f"w{i + 1}" for i in range(layers)]
    hs, acts = ["x"], []
    for i in range(layers):
        a = g.op("Relu", g.op("MatMul", hs[-1], w[i]))
        acts.append(a)
        hs.append(a if kind == "mlp" else g.op("Add", hs[-1], a))
    loss, grad = g.loss(hs[-1], "y")
    if kind == "mlp":
        grad = g.relu_mask(grad, hs[-1])
    grads = [None] * layers
    for i in reversed(range(layers)):
        d = grad if kind == "mlp" else g.relu_mask(grad, acts[i])
        grads[i] = g.op("MatMul", g.op("Transpose", hs[i], perm=[1, 0]), d)
        if i == 0:
            break
        back = g.op("MatMul", d, g.op("Transpose", w[i], perm=[1, 0]))
        grad = (g.relu_mask(back, hs[i]) if kind == "mlp"
                else g.op("Add", grad, back))
    names = ["loss"] + [f"grad_w{i + 1}" for i in range(layers)]
    g.nodes += [helper.make_node("Identity", [src], [dst], name=dst)
                for src, dst in zip([loss] + grads, names)]
    f32 = TensorProto.FLOAT
    graph = helper.make_graph(
        g.nodes, f"{kind}_train",
        [helper.make_tensor_value_info(n, f32, [batch, width])
         for n in ("x", "y")] +
        [helper.make_tensor_value_info(n, f32, [width, width]) for n in w],
        [helper.make_tensor_value_info("loss", f32, [])] +
        [helper.make_tensor_value_info(n, f32, [width, width])
         for n in names[1:]],
        g.inits)
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    x = rng.standard_normal((batch, width)).astype(np.float32)
    y = rng.standard_normal((batch, width)).astype(np.float32)
    return model, [x, y] + weights


def reference(kind, x, y, *weights):
    """The loss and weight gradients in float64."""
    weights = [wi.astype(np.float64) for wi in weights]
    hs, acts = [x.astype(np.float64)], []
    for wi in weights:
        a = np.maximum(hs[-1] @ wi, 0)
        acts.append(a)
        hs.append(a if kind == "mlp" else hs[-1] + a)
    diff = hs[-1] - y
    loss = 0.5 * np.sum(diff * diff)
    grad = diff * (hs[-1] > 0) if kind == "mlp" else diff
    grads = [None] * len(weights)
    for i in reversed(range(len(weights))):
        d = grad if kind == "mlp" else grad * (acts[i] > 0)
        grads[i] = hs[i].T @ d
        back = d @ weights[i].T
        grad = back * (hs[i] > 0) if kind == "mlp" else grad + back
    return [np.array(loss)] + grads


def write(folder, model, inputs, outputs):
    data = os.path.join(folder, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    onnx.save(model, os.path.join(folder, "model.onnx"))
    graph = model.graph
    for prefix, arrays, tensor_names in (
            ("input", inputs, [i.name for i in graph.input]),
            ("output", outputs, [o.name for o in graph.output])):
        for i, (array, name) in enumerate(zip(arrays, tensor_names)):
            tensor = numpy_helper.from_array(array.astype(np.float32), name)
            with open(os.path.join(data, f"{prefix}_{i}.pb"), "wb") as f:
                f.write(tensor.SerializeToString())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out")
    parser.add_argument("--layers", type=int, default=8)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--width", type=int, default=256)
    args = parser.parse_args()
    for seed, kind in enumerate(("mlp", "residual")):
        model, inputs = build(kind, args.layers, args.batch, args.width,
                              seed)
        write(os.path.join(args.out, f"{kind}_train"), model, inputs,
              reference(kind, *inputs))


if __name__ == "__main__":
    main()
