#!/usr/bin/python3
"""Writes the memory-bound microbenchmarks as ONNX models with test data.

The four sub-graphs ../shared/bench/peers_torch.py times in PyTorch, on
ROWS x COLS (default 16384 x 4096), written the way exporters write them
(GELU with Erf; LayerNormalization and Softmax as ONNX ops):

  ew_chain          gelu(x * a + b) + r
  layernorm         LayerNorm(x) * g + be                 (over the last axis)
  softmax           softmax(x)                            (over the last axis)
  bias_gelu_res_ln  LayerNorm(gelu(x + b) + r) * g + be

four issue-10 cases for the CUDA emitters (no peer figures yet):

  colsum            ReduceSum(x, axis 0)                  (ROWS x COLS -> COLS)
  softmax_axis0     softmax(x) over axis 0                (ROWS x COLS)
  nchw_nhwc         relu(transpose(x, NCHW -> NHWC) + c)  (N x 256 x S x S,
                    N = ROWS / 256, S = sqrt(COLS): 64x256x64x64 by default)
  dwconv_hardswish  HardSwish(depthwise 3x3 conv(x, w, c), pad 1)
                    (N x 96 x T x T, T = 112 sqrt(COLS / 4096):
                    64x96x112x112 by default)

and one for the tensor cores (the f16/bf16 contraction_tiled path; no
peer figure):

  matmul_bias_gelu  gelu(x @ w + b)                       (x: M x K, w: K x N,
                    M = ROWS / 2, K = N = COLS / 8: 8192x512 @ 512x512
                    by default, small weights for the GPU check's upload;
                    w scaled by 1 / sqrt(K))

a, b, g, be, c, w are initializers (weights); x and r are inputs. Each goes to
OUT_DIR/<name>_<dtype>/ with model.onnx, meta.json (the peer script's case
name and the minimum bytes a run must move, as peers_torch.py counts them)
and test_data_set_0/ (random inputs, the float64 numpy reference).

Usage: make_microbenchmarks.py OUT_DIR [--rows R] [--cols C] [--bf16]
                                       [--no-data | --data-only]
  --bf16       also bf16 variants (inputs, weights and outputs bf16, .pb
               files hold the bf16 bits as uint16 as ONNX's tests do)
  --no-data    models and meta.json only (small: what a GPU machine needs)
  --data-only  test data for models already in OUT_DIR (weights read back)
"""
import argparse
import json
import math
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

try:
    from scipy.special import erf
except ImportError:  # math.erf elementwise: slow but exact
    erf = np.vectorize(math.erf)

EPS = 1e-5
# name -> (peer script name, bytes moved per element of x, weight names)
CASES = {
    "ew_chain": ("ew_chain gelu(x*a+b)+r", 3, ["a", "b"]),
    "layernorm": ("layernorm", 2, ["g", "be"]),
    "softmax": ("softmax", 2, []),
    "bias_gelu_res_ln": ("bias_gelu_res_ln", 3, ["b", "g", "be"]),
}
INPUTS = {"ew_chain": ["x", "r"], "layernorm": ["x"], "softmax": ["x"],
          "bias_gelu_res_ln": ["x", "r"]}
# The issue-10 cases and the matmul: their own shapes; bytes moved =
# inputs + weights + output, each once.
SHAPED = {
    "colsum": ("colsum", ["x"], []),
    "softmax_axis0": ("softmax_axis0", ["x"], []),
    "nchw_nhwc": ("nchw_nhwc", ["x"], ["c"]),
    "dwconv_hardswish": ("dwconv_hardswish", ["x"], ["w", "c"]),
    "matmul_bias_gelu": ("matmul_bias_gelu", ["x"], ["w", "b"]),
}
for _n, (_peer, _ins, _ws) in SHAPED.items():
    CASES[_n] = (_peer, None, _ws)
    INPUTS[_n] = _ins


def shapes(name, rows, cols):
    """(input shape, output shape, {weight: shape}) of case `name`."""
    n = max(1, rows // 256)
    if name == "colsum":
        return [rows, cols], [cols], {}
    if name == "softmax_axis0":
        return [rows, cols], [rows, cols], {}
    if name == "nchw_nhwc":
        s = max(1, math.isqrt(cols))
        return [n, 256, s, s], [n, s, s, 256], {"c": [256]}
    if name == "dwconv_hardswish":
        t = max(3, round(112 * math.sqrt(cols / 4096)))
        return [n, 96, t, t], [n, 96, t, t], {"w": [96, 1, 3, 3], "c": [96]}
    if name == "matmul_bias_gelu":
        m, k = max(1, rows // 2), max(1, cols // 8)
        return [m, k], [m, k], {"w": [k, k], "b": [k]}
    return [rows, cols], [rows, cols], {w: [cols] for w in CASES[name][2]}


def to_bf16_bits(a):
    """float -> bf16 bits (round to nearest even) as uint16."""
    bits = np.asarray(a, np.float32).view(np.uint32).astype(np.uint64)
    one, half = np.uint64(1), np.uint64(16)
    bits = (bits + np.uint64(0x7FFF) + ((bits >> half) & one)) >> half
    return bits.astype(np.uint16)


def from_bf16_bits(b):
    return (b.astype(np.uint32) << 16).view(np.float32)


def tensor(name, value, bf16):
    value = np.asarray(value, np.float32)
    if not bf16:
        return numpy_helper.from_array(value, name)
    return helper.make_tensor(name, TensorProto.BFLOAT16, value.shape,
                              to_bf16_bits(value).tobytes(), raw=True)


def gelu_nodes(src, dst, tag):
    """gelu(src) = 0.5 * src * (1 + erf(src / sqrt(2))), as exporters write."""
    return [
        helper.make_node("Mul", [src, "inv_sqrt2"], [tag + "s"]),
        helper.make_node("Erf", [tag + "s"], [tag + "e"]),
        helper.make_node("Add", [tag + "e", "one"], [tag + "e1"]),
        helper.make_node("Mul", [src, tag + "e1"], [tag + "he"]),
        helper.make_node("Mul", [tag + "he", "half"], [dst]),
    ]


def graph_nodes(name):
    ln = lambda src: helper.make_node("LayerNormalization", [src, "g", "be"],
                                      ["y"], axis=-1, epsilon=EPS)
    if name == "ew_chain":
        return [helper.make_node("Mul", ["x", "a"], ["xa"]),
                helper.make_node("Add", ["xa", "b"], ["h"])] + \
            gelu_nodes("h", "gh", "g_") + [helper.make_node("Add", ["gh", "r"], ["y"])]
    if name == "layernorm":
        return [ln("x")]
    if name == "softmax":
        return [helper.make_node("Softmax", ["x"], ["y"], axis=-1)]
    if name == "colsum":
        return [helper.make_node("ReduceSum", ["x", "axes0"], ["y"], keepdims=0)]
    if name == "softmax_axis0":
        return [helper.make_node("Softmax", ["x"], ["y"], axis=0)]
    if name == "nchw_nhwc":
        return [helper.make_node("Transpose", ["x"], ["t"], perm=[0, 2, 3, 1]),
                helper.make_node("Add", ["t", "c"], ["tc"]),
                helper.make_node("Relu", ["tc"], ["y"])]
    if name == "dwconv_hardswish":
        return [helper.make_node("Conv", ["x", "w", "c"], ["h"], group=96,
                                 kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
                helper.make_node("HardSwish", ["h"], ["y"])]
    if name == "matmul_bias_gelu":
        return [helper.make_node("MatMul", ["x", "w"], ["mm"]),
                helper.make_node("Add", ["mm", "b"], ["h"])] + \
            gelu_nodes("h", "y", "g_")
    return [helper.make_node("Add", ["x", "b"], ["h"])] + \
        gelu_nodes("h", "gh", "g_") + \
        [helper.make_node("Add", ["gh", "r"], ["s"]), ln("s")]


def make_model(name, rows, cols, bf16, seed):
    rng = np.random.default_rng(seed)
    elem = TensorProto.BFLOAT16 if bf16 else TensorProto.FLOAT
    in_shape, out_shape, weights = shapes(name, rows, cols)
    # A matmul's weights scaled so that x @ w has unit variance.
    scale = 1 / math.sqrt(in_shape[-1]) if name == "matmul_bias_gelu" else 1
    inits = [tensor(w, rng.standard_normal(weights[w]) * (scale if w == "w" else 1), bf16)
             for w in CASES[name][2]]
    if name in ("ew_chain", "bias_gelu_res_ln", "matmul_bias_gelu"):
        inits += [tensor("half", 0.5, bf16), tensor("one", 1.0, bf16),
                  tensor("inv_sqrt2", 1 / math.sqrt(2), bf16)]
    if name == "colsum":
        inits.append(numpy_helper.from_array(np.array([0], np.int64), "axes0"))
    graph = helper.make_graph(
        graph_nodes(name), name,
        [helper.make_tensor_value_info(i, elem, in_shape) for i in INPUTS[name]],
        [helper.make_tensor_value_info("y", elem, out_shape)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                              producer_name="bwc make_microbenchmarks.py")
    onnx.checker.check_model(model)
    return model


def reference(name, v):
    """float64 reference of case `name` on the dict of float64 arrays `v`."""
    gelu = lambda h: 0.5 * h * (1.0 + erf(h / math.sqrt(2.0)))

    def layernorm(s):
        mu = s.mean(axis=-1, keepdims=True)
        var = ((s - mu) ** 2).mean(axis=-1, keepdims=True)
        return (s - mu) / np.sqrt(var + EPS) * v["g"] + v["be"]
    if name == "ew_chain":
        return gelu(v["x"] * v["a"] + v["b"]) + v["r"]
    if name == "layernorm":
        return layernorm(v["x"])
    if name == "softmax":
        e = np.exp(v["x"] - v["x"].max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)
    if name == "colsum":
        return v["x"].sum(axis=0)
    if name == "softmax_axis0":
        e = np.exp(v["x"] - v["x"].max(axis=0, keepdims=True))
        return e / e.sum(axis=0, keepdims=True)
    if name == "nchw_nhwc":
        return np.maximum(v["x"].transpose(0, 2, 3, 1) + v["c"], 0.0)
    if name == "dwconv_hardswish":
        x, w = v["x"], v["w"]
        t = x.shape[2]
        xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
        h = np.zeros_like(x) + v["c"][None, :, None, None]
        for i in range(3):
            for j in range(3):
                h += xp[:, :, i:i + t, j:j + t] * w[None, :, 0, i, j, None, None]
        return h * np.clip(h / 6.0 + 0.5, 0.0, 1.0)
    if name == "matmul_bias_gelu":
        return gelu(v["x"] @ v["w"] + v["b"])
    return layernorm(gelu(v["x"] + v["b"]) + v["r"])


def write_pb(path, array, name):
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(array, name).SerializeToString())


def write_data(case_dir, name, model, bf16, seed):
    """Random inputs and the reference, computed from the model's weights."""
    graph = model.graph
    values = {}
    for init in graph.initializer:
        if init.data_type == TensorProto.INT64:
            continue  # axes, not data
        a = numpy_helper.to_array(init)
        # Some onnx versions return bf16 initializers as their uint16 bits.
        if a.dtype == np.uint16:
            a = from_bf16_bits(a)
        values[init.name] = a.astype(np.float64)
    shape = [d.dim_value for d in graph.input[0].type.tensor_type.shape.dim]
    rng = np.random.default_rng(seed + 1000)
    data_dir = os.path.join(case_dir, "test_data_set_0")
    os.makedirs(data_dir, exist_ok=True)
    for k, inp in enumerate(INPUTS[name]):
        x = rng.standard_normal(shape, dtype=np.float32)
        if bf16:
            bits = to_bf16_bits(x)
            write_pb(os.path.join(data_dir, "input_%d.pb" % k), bits, inp)
            values[inp] = from_bf16_bits(bits).astype(np.float64)
        else:
            write_pb(os.path.join(data_dir, "input_%d.pb" % k), x, inp)
            values[inp] = x.astype(np.float64)
    y = reference(name, values).astype(np.float32)
    write_pb(os.path.join(data_dir, "output_0.pb"),
             to_bf16_bits(y) if bf16 else y, "y")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("out_dir")
    p.add_argument("--rows", type=int, default=16384)
    p.add_argument("--cols", type=int, default=4096)
    p.add_argument("--bf16", action="store_true")
    p.add_argument("--only", default="", help="comma-separated case names")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--no-data", action="store_true")
    mode.add_argument("--data-only", action="store_true")
    args = p.parse_args()
    if args.rows < 1 or args.cols < 1:
        p.error("--rows and --cols must be positive")
    names = args.only.split(",") if args.only else list(CASES)
    for n in names:
        if n not in CASES:
            p.error("unknown case '%s' (known: %s)" % (n, ", ".join(CASES)))
    for bf16 in ([False, True] if args.bf16 else [False]):
        tag = "bf16" if bf16 else "fp32"
        for seed, name in enumerate(names):
            case_dir = os.path.join(args.out_dir, "%s_%s" % (name, tag))
            model_path = os.path.join(case_dir, "model.onnx")
            if args.data_only:
                if not os.path.exists(model_path):
                    p.error("no model in %s (run without --data-only first)" % case_dir)
                model = onnx.load(model_path)
            else:
                os.makedirs(case_dir, exist_ok=True)
                model = make_model(name, args.rows, args.cols, bf16, seed)
                onnx.save(model, model_path)
                peer, per_elem, _ = CASES[name]
                size = 2 if bf16 else 4
                if per_elem is None:  # inputs, weights read once, output written once
                    in_shape, out_shape, ws = shapes(name, args.rows, args.cols)
                    moved = len(INPUTS[name]) * math.prod(in_shape) + math.prod(out_shape) + \
                        sum(math.prod(w) for w in ws.values())
                else:
                    moved = per_elem * args.rows * args.cols
                meta = {"case": name, "dtype": tag, "rows": args.rows,
                        "cols": args.cols, "peer_name": "%s %s" % (peer, "bfloat16" if bf16 else "float32"),
                        "min_bytes": moved * size}
                with open(os.path.join(case_dir, "meta.json"), "w") as f:
                    json.dump(meta, f, indent=1)
            if not args.no_data:
                write_data(case_dir, name, model, bf16, seed)
            print(case_dir)


if __name__ == "__main__":
    main()
