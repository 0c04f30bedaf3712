#!/usr/bin/python3
"""Writes the CUDA emitters' edge cases as ONNX test cases for cuda-sim.

Each case is small and shaped to hit what a CUDA kernel gets wrong first:
partial tiles and warps, guards, vector tails, ragged M/N/K, batched and
broadcast contractions, padded / strided / dilated implicit GEMMs, and the
emitters' one-thread-per-output fallback. References are computed in
float64 with numpy (never by bwc). test/e2e/cuda-sim-edges.sh compiles each
with --target=cuda (fp32, fp16, bf16 and channels-last variants), runs it
on cuda-sim with every sanitizer and checks which emitters it exercised.

Usage: make_sim_edge_cases.py OUT_DIR
Writes OUT_DIR/<case>/{model.onnx,test_data_set_0/} and OUT_DIR/cases.txt
(one line per case: name, then the emitters it is meant to hit).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

RNG = np.random.default_rng(20261201)
EPS = 1e-5


def rand(*shape, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(np.float32)


def softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def conv2d(x, w, b=None, strides=(1, 1), pads=(0, 0, 0, 0), dil=(1, 1),
           group=1):
    """ONNX Conv (NCHW), pads = (top, left, bottom, right), float64."""
    n, c, h, wd = x.shape
    f, cg, kh, kw = w.shape
    xp = np.zeros((n, c, h + pads[0] + pads[2], wd + pads[1] + pads[3]))
    xp[:, :, pads[0]:pads[0] + h, pads[1]:pads[1] + wd] = x
    oh = (xp.shape[2] - dil[0] * (kh - 1) - 1) // strides[0] + 1
    ow = (xp.shape[3] - dil[1] * (kw - 1) - 1) // strides[1] + 1
    out = np.zeros((n, f, oh, ow))
    fg = f // group
    for g in range(group):
        for i in range(kh):
            for j in range(kw):
                patch = xp[:, g * cg:(g + 1) * cg,
                           i * dil[0]:i * dil[0] + strides[0] * oh:strides[0],
                           j * dil[1]:j * dil[1] + strides[1] * ow:strides[1]]
                out[:, g * fg:(g + 1) * fg] += np.einsum(
                    "nchw,fc->nfhw", patch, w[g * fg:(g + 1) * fg, :, i, j])
    if b is not None:
        out += b.reshape(1, -1, 1, 1)
    return out


def conv_transpose2d(x, w, strides):
    n, c, h, wd = x.shape
    _, f, kh, kw = w.shape
    out = np.zeros((n, f, (h - 1) * strides[0] + kh, (wd - 1) * strides[1] + kw))
    for i in range(h):
        for j in range(wd):
            out[:, :, i * strides[0]:i * strides[0] + kh,
                j * strides[1]:j * strides[1] + kw] += np.einsum(
                    "nc,cfij->nfij", x[:, :, i, j], w)
    return out


def maxpool_ceil(x, k, s):
    n, c, h, w = x.shape
    oh, ow = -(-(h - k) // s) + 1, -(-(w - k) // s) + 1
    out = np.full((n, c, oh, ow), -np.inf)
    for i in range(oh):
        for j in range(ow):
            out[:, :, i, j] = x[:, :, i * s:i * s + k, j * s:j * s + k].max(
                axis=(2, 3))
    return out


def hardswish(x):
    return x * np.clip(x / 6 + 0.5, 0, 1)


class Case:
    def __init__(self, name, emitters):
        self.name, self.emitters = name, emitters
        self.nodes, self.inputs, self.inits, self.feeds = [], [], [], {}

    def input(self, name, value):
        self.inputs.append(helper.make_tensor_value_info(
            name, TensorProto.FLOAT, list(value.shape)))
        self.feeds[name] = value
        return value.astype(np.float64)

    def weight(self, name, value):
        self.inits.append(numpy_helper.from_array(value, name))
        return value.astype(np.float64)

    def node(self, op, ins, outs, **attrs):
        self.nodes.append(helper.make_node(op, ins, outs, **attrs))

    def write(self, root, outputs):
        """outputs: [(name, float64 or int64 reference)]."""
        outs = [helper.make_tensor_value_info(
            n, TensorProto.INT64 if v.dtype == np.int64 else TensorProto.FLOAT,
            list(v.shape)) for n, v in outputs]
        graph = helper.make_graph(self.nodes, self.name, self.inputs, outs,
                                  self.inits)
        model = helper.make_model(graph, opset_imports=[
            helper.make_opsetid("", 17)])
        onnx.checker.check_model(model)
        d = os.path.join(root, self.name)
        data = os.path.join(d, "test_data_set_0")
        os.makedirs(data, exist_ok=True)
        onnx.save(model, os.path.join(d, "model.onnx"))
        for k, (n, v) in enumerate(self.feeds.items()):
            onnx.save_tensor(numpy_helper.from_array(v, n),
                             os.path.join(data, f"input_{k}.pb"))
        for k, (n, v) in enumerate(outputs):
            ref = v if v.dtype == np.int64 else v.astype(np.float32)
            onnx.save_tensor(numpy_helper.from_array(ref, n),
                             os.path.join(data, f"output_{k}.pb"))
        return f"{self.name} {' '.join(self.emitters)}"


def cases():
    out = []

    c = Case("loop_tail", ["loop"])  # 1001: no vector width divides it
    x, y = c.input("x", rand(1001)), c.input("y", rand(1001))
    c.node("Add", ["x", "y"], ["s"])
    c.node("Tanh", ["s"], ["z"])
    out.append((c, [("z", np.tanh(x + y))]))

    c = Case("loop_broadcast", ["loop"])
    x, b = c.input("x", rand(7, 13)), c.weight("b", rand(13))
    c.node("Mul", ["x", "b"], ["m"])
    c.node("Sigmoid", ["m"], ["z"])
    out.append((c, [("z", 1 / (1 + np.exp(-(x * b))))]))

    c = Case("row_softmax_partial_warp", ["row_reduction"])  # 37 per row
    x = c.input("x", rand(5, 37))
    c.node("Softmax", ["x"], ["z"], axis=-1)
    out.append((c, [("z", softmax(x, -1))]))

    c = Case("row_softmax_warps", ["row_reduction"])  # several warps a row
    x = c.input("x", rand(3, 1000))
    c.node("Softmax", ["x"], ["z"], axis=-1)
    out.append((c, [("z", softmax(x, -1))]))

    c = Case("row_layernorm_vector", ["row_reduction"])  # 16-byte groups
    x = c.input("x", rand(9, 4104))
    g, be = c.weight("g", rand(4104)), c.weight("be", rand(4104))
    c.node("LayerNormalization", ["x", "g", "be"], ["z"], axis=-1,
           epsilon=EPS)
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    out.append((c, [("z", (x - mu) / np.sqrt(var + EPS) * g + be)]))

    c = Case("row_mean_many_rows", ["row_reduction"])  # rows per block > 1
    x = c.input("x", rand(300, 64))
    c.node("ReduceMean", ["x"], ["z"], axes=[1], keepdims=1)
    out.append((c, [("z", x.mean(1, keepdims=True))]))

    # Reductions followed by order-keeping reshapes/transposes (relaid,
    # docs/targets/cuda.md): a channel mean moved channels-last (unit dims
    # only: ppocr_det's 174 us one-thread-per-row kernel on the H200,
    # 2026-12-04) and a LayerNorm whose rows are reshaped.
    c = Case("row_mean_relaid", ["row_reduction"])
    x = c.input("x", rand(1, 24, 9, 11))
    c.node("GlobalAveragePool", ["x"], ["m"])
    c.node("Transpose", ["m"], ["z"], perm=[0, 2, 3, 1])
    out.append((c, [("z", x.mean((2, 3), keepdims=True).transpose(0, 2, 3, 1))]))

    c = Case("row_layernorm_reshaped", ["row_reduction"])
    x = c.input("x", rand(6, 50))
    g, be = c.weight("g", rand(50)), c.weight("be", rand(50))
    c.node("LayerNormalization", ["x", "g", "be"], ["n"], axis=-1,
           epsilon=EPS)
    c.weight("shape", np.array([1, 6, 5, 10], dtype=np.int64))
    c.node("Reshape", ["n", "shape"], ["z"])
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    out.append((c, [("z", ((x - mu) / np.sqrt(var + EPS) * g + be)
                     .reshape(1, 6, 5, 10))]))

    # Relaid by transposes that move rows (strided stores at the mapped
    # index): ppocr_rec's LayerNorm moved to [1, 120, 1, 40] (569 us one
    # thread per output on the H200, 2026-12-04), and per-row means whose
    # rows are permuted.
    c = Case("row_layernorm_transposed", ["row_reduction"])
    x = c.input("x", rand(1, 40, 12))
    g, be = c.weight("g", rand(12)), c.weight("be", rand(12))
    c.node("LayerNormalization", ["x", "g", "be"], ["n"], axis=-1,
           epsilon=EPS)
    c.weight("shape4", np.array([1, 1, 40, 12], dtype=np.int64))
    c.node("Reshape", ["n", "shape4"], ["r"])
    c.node("Transpose", ["r"], ["z"], perm=[0, 3, 1, 2])
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    out.append((c, [("z", ((x - mu) / np.sqrt(var + EPS) * g + be)
                     .reshape(1, 1, 40, 12).transpose(0, 3, 1, 2))]))

    c = Case("row_mean_rows_permuted", ["row_reduction"])
    x = c.input("x", rand(2, 3, 8))
    c.node("ReduceMean", ["x"], ["m"], axes=[2], keepdims=1)
    c.node("Transpose", ["m"], ["z"], perm=[1, 0, 2])
    out.append((c, [("z", x.mean(2, keepdims=True).transpose(1, 0, 2))]))

    # A reduction over every axis to a rank-0 value (one row), broadcast
    # back: oww_melspec's clamp to max - 80 dB (40 us one thread per output
    # on the H200, 2026-12-04).
    c = Case("row_max_all_axes", ["row_reduction"])
    x = c.input("x", rand(1, 1, 37, 32))
    c.node("ReduceMax", ["x"], ["m"], keepdims=0)
    c.weight("floor", np.array(0.5, dtype=np.float32))
    c.node("Sub", ["m", "floor"], ["f"])
    c.node("Max", ["x", "f"], ["z"])
    out.append((c, [("z", np.maximum(x, x.max() - 0.5))]))

    c = Case("col_sum_partial", ["column_reduction"])  # 40 = 32 + 8 columns
    x = c.input("x", rand(100, 40))
    c.node("ReduceSum", ["x", "axes"], ["z"], keepdims=0)
    c.weight("axes", np.array([0], dtype=np.int64))
    out.append((c, [("z", x.sum(0))]))

    c = Case("col_softmax_cached", ["column_reduction"])
    x = c.input("x", rand(100, 40))
    c.node("Softmax", ["x"], ["z"], axis=0)
    out.append((c, [("z", softmax(x, 0))]))

    c = Case("col_softmax_passes", ["column_reduction"])  # not cached
    x = c.input("x", rand(2000, 33))
    c.node("Softmax", ["x"], ["z"], axis=0)
    out.append((c, [("z", softmax(x, 0))]))

    c = Case("transpose_partial", ["transpose_tiled"])
    x = c.input("x", rand(1, 257, 40))
    c.node("Transpose", ["x"], ["t"], perm=[0, 2, 1])
    c.node("Relu", ["t"], ["z"])
    out.append((c, [("z", np.maximum(x.transpose(0, 2, 1), 0))]))

    c = Case("transpose_nchw_nhwc", ["transpose_tiled"])
    x = c.input("x", rand(2, 40, 17, 19))  # partial 32x32 tiles both ways
    c.node("Transpose", ["x"], ["t"], perm=[0, 2, 3, 1])
    c.node("Abs", ["t"], ["z"])
    out.append((c, [("z", np.abs(x.transpose(0, 2, 3, 1)))]))

    c = Case("matmul_ragged_bias", ["contraction_tiled"])  # M 65, K 70, N 33
    x = c.input("x", rand(65, 70))
    w = c.weight("w", rand(70, 33, scale=0.2))
    b = c.weight("b", rand(33))
    c.node("MatMul", ["x", "w"], ["m"])
    c.node("Add", ["m", "b"], ["z"])
    out.append((c, [("z", x @ w + b)]))

    # A contraction that produces a program output stays f32 under
    # --precision (bwc-mixed-precision's deny rule): each is followed by an
    # elementwise op, so that fp16/bf16 take the tensor-core path.
    c = Case("matmul_batched", ["contraction_tiled"])
    a, b = c.input("a", rand(3, 17, 29)), c.weight("b", rand(3, 29, 31))
    c.node("MatMul", ["a", "b"], ["m"])
    c.node("Relu", ["m"], ["z"])
    out.append((c, [("z", np.maximum(a @ b, 0))]))

    c = Case("matmul_broadcast", ["contraction_tiled"])
    a, b = c.input("a", rand(2, 1, 5, 7)), c.weight("b", rand(3, 7, 9))
    c.node("MatMul", ["a", "b"], ["m"])
    c.node("Neg", ["m"], ["z"])
    out.append((c, [("z", -(a @ b))]))

    c = Case("conv_padded_strided_dilated", ["contraction_tiled"])
    x = c.input("x", rand(1, 6, 17, 19))
    w = c.weight("w", rand(20, 6, 3, 3, scale=0.3))
    b = c.weight("b", rand(20))
    c.node("Conv", ["x", "w", "b"], ["c"], strides=[2, 1],
           pads=[1, 0, 2, 1], dilations=[2, 1])
    c.node("Relu", ["c"], ["z"])
    out.append((c, [("z", np.maximum(
        conv2d(x, w, b, (2, 1), (1, 0, 2, 1), (2, 1)), 0))]))

    c = Case("conv_1x1_ragged", ["contraction_tiled"])  # K = 70 channels
    x = c.input("x", rand(2, 70, 5, 3))
    w = c.weight("w", rand(33, 70, 1, 1, scale=0.2))
    c.node("Conv", ["x", "w"], ["c"])
    c.node("Relu", ["c"], ["z"])
    out.append((c, [("z", np.maximum(conv2d(x, w), 0))]))

    # Operands the contraction stages with cp.async (kernel arguments
    # contiguous along 16 bytes; the "cp_async" marker makes
    # cuda-sim-edges.sh require it in every variant): in fp16/bf16 the
    # second contraction of each chain reads the first one's 16-bit result
    # (the first one's input is cast in the kernel), in fp32 both do. The
    # matmul's K = 200 takes 7 K steps of 32 through the 3 stages, the
    # last one partial (zero-filled chunks); the 3x3 convolution in NHWC
    # copies its padding taps as zero-filled chunks.
    c = Case("matmul_cp_async", ["contraction_tiled", "cp_async"])
    x = c.input("x", rand(70, 64))
    w1 = c.weight("w1", rand(64, 200, scale=0.2))
    w2 = c.weight("w2", rand(200, 40, scale=0.1))
    c.node("MatMul", ["x", "w1"], ["m1"])
    c.node("Relu", ["m1"], ["r1"])
    c.node("MatMul", ["r1", "w2"], ["m2"])
    c.node("Relu", ["m2"], ["z"])
    out.append((c, [("z", np.maximum(np.maximum(x @ w1, 0) @ w2, 0))]))

    for name, k, p in (("conv_cp_async", 3, 1), ("conv_1x1_cp_async", 1, 0)):
        c = Case(name, ["contraction_tiled", "cp_async"])
        x = c.input("x", rand(2, 8, 10, 12))
        w1 = c.weight("w1", rand(16, 8, 3, 3, scale=0.3))
        w2 = c.weight("w2", rand(24, 16, k, k, scale=0.2))
        c.node("Conv", ["x", "w1"], ["c1"], pads=[1, 1, 1, 1])
        c.node("Relu", ["c1"], ["r1"])
        c.node("Conv", ["r1", "w2"], ["c2"], pads=[p] * 4)
        c.node("Relu", ["c2"], ["z"])
        r1 = np.maximum(conv2d(x, w1, pads=(1, 1, 1, 1)), 0)
        out.append((c, [("z", np.maximum(conv2d(r1, w2, pads=(p,) * 4), 0))]))

    c = Case("conv_depthwise_hardswish", ["thread_per_output"])
    x = c.input("x", rand(1, 8, 13, 11))
    w = c.weight("w", rand(8, 1, 3, 3, scale=0.5))
    c.node("Conv", ["x", "w"], ["c"], group=8, pads=[1, 1, 1, 1])
    c.node("HardSwish", ["c"], ["z"])
    out.append((c, [("z", hardswish(conv2d(x, w, pads=(1, 1, 1, 1),
                                           group=8)))]))

    # Depthwise convolutions channels-last (the "grouped_loop" marker makes
    # cuda-sim-edges.sh require, in the nhwc variants, a `loop` kernel
    # around a convolution: bwc-tile's 16-byte channel groups, 4 f32 or 8
    # bf16 channels per thread in one loop nest): over 2 images, strided,
    # dilated and asymmetrically padded (clamped taps), with a bias; then
    # one whose epilogue also reads the input at the output's index (a
    # residual add) over 16 channels (2 groups of 8 in bf16).
    c = Case("conv_depthwise_groups", ["grouped_loop"])
    x = c.input("x", rand(2, 24, 7, 9))
    w = c.weight("w", rand(24, 1, 3, 3, scale=0.5))
    b = c.weight("b", rand(24))
    c.node("Conv", ["x", "w", "b"], ["c"], group=24, strides=[2, 1],
           pads=[1, 0, 2, 1], dilations=[1, 2])
    c.node("HardSwish", ["c"], ["z"])
    out.append((c, [("z", hardswish(conv2d(x, w, b, (2, 1), (1, 0, 2, 1),
                                           (1, 2), group=24)))]))

    c = Case("conv_depthwise_residual", ["grouped_loop"])
    x = c.input("x", rand(1, 16, 5, 6))
    w = c.weight("w", rand(16, 1, 5, 5, scale=0.3))
    c.node("Conv", ["x", "w"], ["c"], group=16, pads=[2, 2, 2, 2])
    c.node("Add", ["c", "x"], ["z"])
    out.append((c, [("z", conv2d(x, w, pads=(2, 2, 2, 2), group=16) + x)]))

    c = Case("conv_transpose", ["thread_per_output"])
    x = c.input("x", rand(1, 4, 5, 6))
    w = c.weight("w", rand(4, 3, 3, 3, scale=0.5))
    c.node("ConvTranspose", ["x", "w"], ["z"], strides=[2, 2])
    out.append((c, [("z", conv_transpose2d(x, w, (2, 2)))]))

    # contraction_thread (the default's small contractions, bwc-tile):
    # rows per thread over a ragged M (10 filters, or 3 x 7 = 21 output
    # positions in NHWC), A in 16-byte chunks (K = 8 or 72), a padded and
    # strided 3x3 window whose padding taps load zeroed chunks in NHWC, a
    # bias, and a dilated convolution over 2 images whose K = 54 (6
    # channels) takes no chunk (rows only).
    c = Case("conv_1x1_rows", ["contraction_thread"])
    x = c.input("x", rand(1, 8, 6, 10))
    w = c.weight("w", rand(10, 8, 1, 1, scale=0.3))
    b = c.weight("b", rand(10))
    c.node("Conv", ["x", "w", "b"], ["c"])
    c.node("Relu", ["c"], ["z"])
    out.append((c, [("z", np.maximum(conv2d(x, w, b), 0))]))

    c = Case("conv_3x3_rows_padded", ["contraction_thread"])
    x = c.input("x", rand(1, 8, 7, 13))
    w = c.weight("w", rand(32, 8, 3, 3, scale=0.2))
    c.node("Conv", ["x", "w"], ["c"], strides=[2, 2], pads=[1, 1, 1, 1])
    c.node("Sigmoid", ["c"], ["z"])
    out.append((c, [("z", 1 / (1 + np.exp(-conv2d(x, w, strides=(2, 2),
                                                pads=(1, 1, 1, 1)))))]))

    c = Case("conv_rows_unchunked", ["contraction_thread"])
    x = c.input("x", rand(2, 6, 10, 4))
    w = c.weight("w", rand(12, 6, 3, 3, scale=0.3))
    c.node("Conv", ["x", "w"], ["c"], pads=[0, 1, 2, 1], dilations=[2, 1])
    c.node("Tanh", ["c"], ["z"])
    out.append((c, [("z", np.tanh(conv2d(x, w, pads=(0, 1, 2, 1),
                                         dil=(2, 1))))]))

    c = Case("maxpool_ceil", ["thread_per_output"])
    x = c.input("x", rand(1, 3, 10, 11))
    c.node("MaxPool", ["x"], ["z"], kernel_shape=[3, 3], strides=[2, 2],
           ceil_mode=1)
    out.append((c, [("z", maxpool_ceil(x, 3, 2))]))

    c = Case("argmax_rows", [])
    x = c.input("x", rand(6, 50))
    c.node("ArgMax", ["x"], ["z"], axis=1, keepdims=0)
    out.append((c, [("z", x.argmax(1).astype(np.int64))]))
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = sys.argv[1]
    os.makedirs(root, exist_ok=True)
    lines = [c.write(root, outs) for c, outs in cases()]
    with open(os.path.join(root, "cases.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"{len(lines)} cases in {root}")


if __name__ == "__main__":
    main()
