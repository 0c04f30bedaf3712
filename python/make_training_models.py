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
step); outputs: the loss and every weight gradient.

With --forward DIR it also writes forward-only models for bwc-grad
(`--train`): mlp_forward (8 layers, ReLU/tanh, biases) and
transformer_block (pre-norm attention and GELU MLP). Usage:
  make_training_models.py OUT_DIR [--layers N] [--batch B] [--width D]
                          [--forward DIR]
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


def forward_mlp(layers=8, batch=16, width=32, seed=0):
    """The forward pass only (bwc-grad builds the backward one):
    h_i = act(h_{i-1} W_i + b_i), act alternating ReLU and tanh; the
    weights are initializers."""
    rng = np.random.default_rng(seed)
    g, h = Graph(), "x"
    for i in range(layers):
        w = g.const(f"w{i}", (rng.standard_normal((width, width)) /
                              np.sqrt(width)).astype(np.float32))
        b = g.const(f"b{i}", (0.1 * rng.standard_normal(width))
                    .astype(np.float32))
        h = g.op("Tanh" if i % 2 else "Relu",
                 g.op("Add", g.op("MatMul", h, w), b))
    return _model(g, "mlp", [batch, width], h, [batch, width], 17)


def transformer_block(batch=4, seq=16, dim=32, heads=4, hidden=64, seed=0):
    """A pre-norm transformer encoder block, forward only: x + attention(
    LayerNorm(x)), then + MLP(LayerNorm(.)) with an erf GELU; multi-head
    attention through Reshape/Transpose, scores scaled by 1/sqrt(d_head),
    Softmax. The weights are initializers."""
    rng = np.random.default_rng(seed)
    g = Graph()
    dh = dim // heads

    def weight(name, *shape, scale=None):
        scale = scale or 1 / np.sqrt(shape[0])
        return g.const(name, (scale * rng.standard_normal(shape))
                       .astype(np.float32))

    def norm(x, name):
        return g.op("LayerNormalization", x,
                    g.const(name + "_scale", (1 + 0.1 * rng.standard_normal(
                        dim)).astype(np.float32)),
                    g.const(name + "_bias", (0.1 * rng.standard_normal(dim))
                            .astype(np.float32)), axis=-1, epsilon=1e-5)

    heads_shape = g.const("heads_shape", np.array([batch, seq, heads, dh],
                                                  np.int64))
    flat_shape = g.const("flat_shape", np.array([batch, seq, dim], np.int64))

    def split(t):  # [B, T, D] -> [B, H, T, dh]
        return g.op("Transpose", g.op("Reshape", t, heads_shape),
                    perm=[0, 2, 1, 3])

    n1 = norm("x", "ln1")
    q = split(g.op("MatMul", n1, weight("wq", dim, dim)))
    k = split(g.op("MatMul", n1, weight("wk", dim, dim)))
    v = split(g.op("MatMul", n1, weight("wv", dim, dim)))
    scale = g.const("attn_scale", np.array(1 / np.sqrt(dh), np.float32))
    scores = g.op("Mul", g.op("MatMul", q, g.op("Transpose", k,
                                                perm=[0, 1, 3, 2])), scale)
    attn = g.op("MatMul", g.op("Softmax", scores, axis=-1), v)
    merged = g.op("Reshape", g.op("Transpose", attn, perm=[0, 2, 1, 3]),
                  flat_shape)
    h1 = g.op("Add", "x", g.op("Add", g.op("MatMul", merged,
                                             weight("wo", dim, dim)),
                                 weight("bo", dim, scale=0.1)))
    n2 = norm(h1, "ln2")
    up = g.op("Add", g.op("MatMul", n2, weight("w1", dim, hidden)),
              weight("b1", hidden, scale=0.1))
    half = g.const("half", np.array(0.5, np.float32))
    one = g.const("one", np.array(1.0, np.float32))
    rsqrt2 = g.const("rsqrt2", np.array(1 / np.sqrt(2), np.float32))
    gelu = g.op("Mul", g.op("Mul", up, half),
                g.op("Add", one, g.op("Erf", g.op("Mul", up, rsqrt2))))
    down = g.op("Add", g.op("MatMul", gelu, weight("w2", hidden, dim)),
                weight("b2", dim, scale=0.1))
    y = g.op("Add", h1, down)
    return _model(g, "transformer_block", [batch, seq, dim], y,
                  [batch, seq, dim], 17)


def classifier_head(batch=8, channels=3, size=16, features=8, classes=5,
                    seed=0):
    """A small image classifier: Conv 3x3 (padded, bias),
    BatchNormalization, Relu, GlobalAveragePool, Flatten, MatMul, Softmax.
    The weights are initializers."""
    rng = np.random.default_rng(seed)
    g = Graph()
    conv = g.op("Conv", "x", g.const("conv_w", (0.3 * rng.standard_normal(
        (features, channels, 3, 3))).astype(np.float32)),
        g.const("conv_b", np.zeros(features, np.float32)),
        pads=[1, 1, 1, 1])
    bn = g.op("BatchNormalization", conv,
              g.const("bn_scale", np.ones(features, np.float32)),
              g.const("bn_bias", np.zeros(features, np.float32)),
              g.const("bn_mean", np.zeros(features, np.float32)),
              g.const("bn_var", np.ones(features, np.float32)))
    flat = g.op("Flatten", g.op("GlobalAveragePool", g.op("Relu", bn)))
    y = g.op("Softmax", g.op("MatMul", flat, g.const(
        "fc_w", (0.3 * rng.standard_normal((features, classes)))
        .astype(np.float32))))
    return _model(g, "classifier_head", [batch, channels, size, size], y,
                  [batch, classes], 17)


def _model(g, name, in_shape, out, out_shape, opset):
    f32 = TensorProto.FLOAT
    graph = helper.make_graph(
        g.nodes, name, [helper.make_tensor_value_info("x", f32, in_shape)],
        [helper.make_tensor_value_info(out, f32, out_shape)], g.inits)
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", opset)])
    onnx.checker.check_model(model)
    return model


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out")
    parser.add_argument("--layers", type=int, default=8)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--width", type=int, default=256)
    parser.add_argument("--forward", metavar="DIR",
                        help="also write the forward-only models bwc-grad "
                        "differentiates (mlp_forward, transformer_block)")
    args = parser.parse_args()
    for seed, kind in enumerate(("mlp", "residual")):
        model, inputs = build(kind, args.layers, args.batch, args.width,
                              seed)
        write(os.path.join(args.out, f"{kind}_train"), model, inputs,
              reference(kind, *inputs))
    if args.forward:
        # Forward models for bwc-grad (no reference outputs: the gradient
        # check compares with finite differences).
        for name, model in (("mlp_forward", forward_mlp()),
                            ("transformer_block", transformer_block())):
            os.makedirs(os.path.join(args.forward, name), exist_ok=True)
            onnx.save(model, os.path.join(args.forward, name, "model.onnx"))


if __name__ == "__main__":
    main()
