#!/usr/bin/python3
"""Differential testing against ONNX Runtime, NNSmith-style.

Generates random valid ONNX graphs from a seed (2-30 nodes over the
supported op mix: elementwise with broadcasting, reductions, softmax, data
movement, matmuls and Gemm, convolutions (grouped and depthwise), pooling,
normalizations), with every value's range tracked by interval arithmetic so
that no intermediate is NaN or Inf (each op is applied only where its
domain is safe: Log and Sqrt of positive values, Exp of bounded ones,
Div by values away from 0). Each graph runs through ONNX Runtime's CPU
execution provider (python/ort_reference.js, onnxruntime-node, graph
optimizations off) and through every bwc variant in-process with the
Python package:

  cpu            --target=cpu, default options
  cpu-nofusion   --fusion=none
  cpu-elemental  --codegen=elemental
  fp16           --precision=fp16 (relative L2 <= 1e-2, the conformance limit)
  cuda-sim       --target=cuda on cuda-sim (memcheck, synccheck)

fp32 variants agree when |bwc - ort| <= 1e-3 + 1e-2 |ort| elementwise (the
NNSmith tolerance). A mismatch is minimized: every node's output becomes a
graph output, and the first node whose value disagrees, with its
ancestors, is the reported graph (saved under --keep DIR).

Usage: difftest.py [--count N] [--seed S] [--variants a,b,...]
                   [--keep DIR] [--build BUILD_DIR] [--quiet]
The last line is "N graphs, M mismatches"; the exit code is 1 on any
mismatch (and 2 when a variant fails to compile a graph, which is also a
finding: every generated op is supported).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
OPSET = 17

VARIANTS = {
    "cpu": dict(),
    "cpu-nofusion": dict(fusion="none"),
    "cpu-elemental": dict(codegen="elemental"),
    "fp16": dict(precision="fp16"),
    "cuda-sim": dict(target="cuda"),
}


class Value:
    def __init__(self, name, shape, lo, hi):
        self.name, self.shape, self.lo, self.hi = name, list(shape), lo, hi

    @property
    def bound(self):
        return max(abs(self.lo), abs(self.hi))


class Graph:
    """A random graph under construction: values with shapes and ranges."""

    def __init__(self, rng):
        self.rng = rng
        self.values, self.nodes, self.inits, self.inputs = [], [], [], []
        self.feeds = {}
        self.count = 0

    def name(self, prefix):
        self.count += 1
        return "%s%d" % (prefix, self.count)

    def add_input(self, shape):
        v = Value(self.name("x"), shape, -2.0, 2.0)
        self.inputs.append(v)
        self.feeds[v.name] = self.rng.uniform(-2, 2, shape).astype(np.float32)
        self.values.append(v)
        return v

    def const(self, array, prefix="c"):
        name = self.name(prefix)
        self.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def weight(self, shape, scale=1.0):
        return self.const(self.rng.uniform(-scale, scale, shape)
                          .astype(np.float32), "w")

    def node(self, op, inputs, shape, lo, hi, **attrs):
        out = self.name("v")
        self.nodes.append(helper.make_node(op, inputs, [out], **attrs))
        lo, hi = float(lo), float(hi)
        v = Value(out, shape, min(lo, hi), max(lo, hi))
        self.values.append(v)
        return v

    def pick(self, pred=lambda v: True):
        choices = [v for v in self.values if pred(v)]
        if not choices:
            return None
        # Prefer recent values: deeper graphs.
        weights = np.arange(1, len(choices) + 1, dtype=float) ** 2
        return choices[self.rng.choice(len(choices), p=weights / weights.sum())]


def broadcast_partner(g, v):
    """A value (existing or new input/constant) numpy-broadcastable with v."""
    rng = g.rng
    same = [u for u in g.values if u.shape == v.shape and u is not v]
    r = rng.random()
    if same and r < 0.4:
        return same[rng.integers(len(same))]
    shape = list(v.shape)
    # Drop leading dims and set some dims to 1.
    cut = rng.integers(0, len(shape) + 1) if shape else 0
    shape = shape[cut:]
    shape = [1 if rng.random() < 0.3 else d for d in shape]
    if r < 0.7:
        return g.add_input(shape)
    name = g.weight(shape)
    return Value(name, shape, -1.0, 1.0)


def add_op(g):
    """Appends one random op whose inputs are safe; False when none fits."""
    rng = g.rng
    kind = rng.choice(["unary", "unary", "binary", "binary", "reduce",
                       "softmax", "transpose", "reshape", "concat", "slice",
                       "matmul", "gemm", "conv", "pool", "norm", "squeeze"])
    v = g.pick()
    b = v.bound
    if kind == "unary":
        options = [("Relu", 0, max(v.hi, 0)), ("Sigmoid", 0, 1),
                   ("Tanh", -1, 1), ("Abs", 0, b), ("Neg", -v.hi, -v.lo),
                   ("Erf", -1, 1), ("Softsign", -1, 1), ("Sin", -1, 1),
                   ("Cos", -1, 1), ("HardSigmoid", 0, 1),
                   ("LeakyRelu", min(v.lo * 0.1, 0), max(v.hi, 0)),
                   ("Elu", -1, max(v.hi, 0)), ("HardSwish", -0.4, max(v.hi, 0)),
                   ("Clip", -1, 1)]
        if v.hi < 8:
            options.append(("Exp", 0, np.exp(v.hi)))
        if v.hi < 20:
            options.append(("Softplus", 0, np.log1p(np.exp(v.hi)) + 1))
        if v.lo > 0.05:
            options += [("Log", np.log(v.lo), np.log(v.hi + 1e-3)),
                        ("Sqrt", np.sqrt(v.lo), np.sqrt(v.hi)),
                        ("Reciprocal", 1 / v.hi, 1 / v.lo)]
        if v.lo >= 0:
            options.append(("Sqrt", 0, np.sqrt(v.hi)))
        op, lo, hi = options[rng.integers(len(options))]
        if op == "Clip":
            lo_c, hi_c = g.const(np.float32(-1)), g.const(np.float32(1))
            return g.node("Clip", [v.name, lo_c, hi_c], v.shape, -1, 1)
        attrs = {"alpha": 0.1} if op == "LeakyRelu" else {}
        return g.node(op, [v.name], v.shape, lo, hi, **attrs)
    if kind == "binary":
        u = broadcast_partner(g, v)
        if len(u.shape) > len(v.shape):
            return None
        shape = v.shape
        ops = ["Add", "Sub", "Mul", "Max", "Min"]
        if u.lo > 0.5 or u.hi < -0.5:
            ops.append("Div")
        op = ops[rng.integers(len(ops))]
        if op == "Add":
            lo, hi = v.lo + u.lo, v.hi + u.hi
        elif op == "Sub":
            lo, hi = v.lo - u.hi, v.hi - u.lo
        elif op == "Mul":
            lo, hi = -v.bound * u.bound, v.bound * u.bound
        elif op == "Div":
            m = v.bound / min(abs(u.lo), abs(u.hi))
            lo, hi = -m, m
        else:
            lo, hi = min(v.lo, u.lo), max(v.hi, u.hi)
        if max(abs(lo), abs(hi)) > 1e4:
            return None
        return g.node(op, [v.name, u.name], shape, lo, hi)
    if kind == "reduce" and v.shape:
        rank = len(v.shape)
        axes = sorted(set(int(a) for a in rng.choice(
            rank, rng.integers(1, rank + 1), replace=False)))
        keep = int(rng.integers(0, 2))
        shape = [1 if i in axes else d for i, d in enumerate(v.shape)
                 if keep or i not in axes]
        n = int(np.prod([v.shape[a] for a in axes]))
        op = rng.choice(["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin"])
        if op == "ReduceSum":
            if v.bound * n > 1e4:
                return None
            return g.node(op, [v.name, g.const(np.array(axes, np.int64))],
                          shape, -v.bound * n, v.bound * n, keepdims=keep)
        return g.node(op, [v.name], shape, v.lo, v.hi, axes=axes,
                      keepdims=keep)
    if kind == "softmax" and v.shape:
        axis = int(rng.integers(-len(v.shape), len(v.shape)))
        op = rng.choice(["Softmax", "LogSoftmax"]) if v.bound < 20 else "Softmax"
        if op == "LogSoftmax":
            n = v.shape[axis]
            return g.node(op, [v.name], v.shape, -2 * v.bound - np.log(n), 0,
                          axis=axis)
        return g.node(op, [v.name], v.shape, 0, 1, axis=axis)
    if kind == "transpose" and len(v.shape) >= 2:
        perm = [int(p) for p in rng.permutation(len(v.shape))]
        return g.node("Transpose", [v.name], [v.shape[p] for p in perm],
                      v.lo, v.hi, perm=perm)
    if kind == "reshape" and v.shape:
        n = int(np.prod(v.shape))
        divisors = [d for d in range(1, n + 1) if n % d == 0]
        a = int(divisors[rng.integers(len(divisors))])
        shape = [a, n // a] if rng.random() < 0.7 else [n]
        target = list(shape)
        if rng.random() < 0.3:
            target[0] = -1
        return g.node("Reshape", [v.name, g.const(np.array(target, np.int64))],
                      shape, v.lo, v.hi)
    if kind == "concat" and v.shape:
        axis = int(rng.integers(len(v.shape)))
        others = [u for u in g.values if len(u.shape) == len(v.shape) and all(
            a == b for i, (a, b) in enumerate(zip(u.shape, v.shape))
            if i != axis)]
        u = others[rng.integers(len(others))]
        shape = list(v.shape)
        shape[axis] += u.shape[axis]
        if int(np.prod(shape)) > 4096:
            return None
        return g.node("Concat", [v.name, u.name], shape, min(v.lo, u.lo),
                      max(v.hi, u.hi), axis=axis)
    if kind == "slice" and v.shape:
        axis = int(rng.integers(len(v.shape)))
        d = v.shape[axis]
        if d < 2:
            return None
        start = int(rng.integers(0, d - 1))
        end = int(rng.integers(start + 1, d + 1))
        step = int(rng.choice([1, 2])) if end - start > 2 else 1
        shape = list(v.shape)
        shape[axis] = (end - start + step - 1) // step
        ins = [v.name] + [g.const(np.array([x], np.int64))
                          for x in (start, end, axis, step)]
        return g.node("Slice", ins, shape, v.lo, v.hi)
    if kind == "matmul" and len(v.shape) >= 1:
        k = v.shape[-1]
        n = int(rng.integers(1, 9))
        w = g.weight([k, n])
        shape = v.shape[:-1] + [n]
        m = v.bound * k
        if m > 1e4:
            return None
        return g.node("MatMul", [v.name, w], shape, -m, m)
    if kind == "gemm" and len(v.shape) == 2:
        k = v.shape[1]
        n = int(rng.integers(1, 9))
        m = v.bound * k + 1
        return g.node("Gemm", [v.name, g.weight([n, k]), g.weight([n])],
                      [v.shape[0], n], -m, m, transB=1)
    if kind in ("conv", "pool", "norm") and len(v.shape) != 4:
        # Make an image: [1, C, H, W] from a fresh input, sometimes.
        if rng.random() < 0.5:
            return None
        v = g.add_input([int(rng.integers(1, 3)), int(rng.integers(1, 5)),
                         int(rng.integers(3, 9)), int(rng.integers(3, 9))])
    if kind == "conv":
        n, c, h, w = v.shape
        depthwise = c > 1 and rng.random() < 0.3
        group = c if depthwise else 1
        m = c if depthwise else int(rng.integers(1, 5))
        kh, kw = int(rng.integers(1, min(h, 3) + 1)), int(
            rng.integers(1, min(w, 3) + 1))
        stride = int(rng.integers(1, 3))
        pad = int(rng.integers(0, 2))
        oh = (h + 2 * pad - kh) // stride + 1
        ow = (w + 2 * pad - kw) // stride + 1
        if oh < 1 or ow < 1:
            return None
        wname = g.weight([m, c // group, kh, kw])
        ins = [v.name, wname]
        if rng.random() < 0.5:
            ins.append(g.weight([m]))
        bound = v.bound * (c // group) * kh * kw + 1
        return g.node("Conv", ins, [n, m, oh, ow], -bound, bound,
                      kernel_shape=[kh, kw], strides=[stride, stride],
                      pads=[pad] * 4, group=group)
    if kind == "pool":
        n, c, h, w = v.shape
        if rng.random() < 0.3:
            return g.node("GlobalAveragePool", [v.name], [n, c, 1, 1],
                          v.lo, v.hi)
        k = int(rng.integers(1, min(h, w, 3) + 1))
        stride = int(rng.integers(1, 3))
        pad = int(rng.integers(0, 2)) if k > 1 else 0
        oh = (h + 2 * pad - k) // stride + 1
        ow = (w + 2 * pad - k) // stride + 1
        if oh < 1 or ow < 1:
            return None
        op = rng.choice(["MaxPool", "AveragePool"])
        lo, hi = v.lo, v.hi
        if op == "AveragePool" and pad:
            lo, hi = min(lo, 0), max(hi, 0)
        return g.node(op, [v.name], [n, c, oh, ow], lo, hi,
                      kernel_shape=[k, k], strides=[stride, stride],
                      pads=[pad] * 4)
    if kind == "norm":
        n, c, h, w = v.shape
        if rng.random() < 0.5:
            ins = [v.name, g.weight([c]), g.weight([c]), g.weight([c]),
                   g.const(rng.uniform(0.5, 2, [c]).astype(np.float32))]
            bound = (v.bound + 1) / np.sqrt(0.5) + 1
            return g.node("BatchNormalization", ins, v.shape, -bound, bound)
        axis = int(rng.integers(1, 4))
        norm_shape = v.shape[axis:]
        bound = np.sqrt(np.prod(norm_shape)) + 1
        return g.node("LayerNormalization",
                      [v.name, g.weight(norm_shape), g.weight(norm_shape)],
                      v.shape, -bound, bound, axis=axis, epsilon=1e-3)
    if kind == "squeeze" and v.shape:
        if 1 in v.shape and rng.random() < 0.5:
            axes = [i for i, d in enumerate(v.shape) if d == 1]
            shape = [d for d in v.shape if d != 1]
            return g.node("Squeeze", [v.name, g.const(np.array(axes,
                                                               np.int64))],
                          shape, v.lo, v.hi)
        if len(v.shape) < 4:
            axis = int(rng.integers(0, len(v.shape) + 1))
            shape = v.shape[:axis] + [1] + v.shape[axis:]
            return g.node("Unsqueeze", [v.name,
                                        g.const(np.array([axis], np.int64))],
                          shape, v.lo, v.hi)
    return None


def generate(seed, min_nodes=2, max_nodes=30):
    rng = np.random.default_rng(seed)
    g = Graph(rng)
    rank = int(rng.integers(1, 5))
    g.add_input([int(rng.integers(1, 9)) for _ in range(rank)])
    target = int(rng.integers(min_nodes, max_nodes + 1))
    tries = 0
    while len(g.nodes) < target and tries < 20 * max_nodes:
        tries += 1
        try:
            add_op(g)
        except (ValueError, ZeroDivisionError):
            pass
    return g


def to_model(g, outputs):
    shapes = {v.name: v.shape for v in g.values}
    ins = [helper.make_tensor_value_info(v.name, TensorProto.FLOAT, v.shape)
           for v in g.inputs]
    outs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, shapes[n])
            for n in outputs]
    graph = helper.make_graph(g.nodes, "difftest", ins, outs,
                              initializer=g.inits)
    model = helper.make_model(graph, opset_imports=[
        helper.make_opsetid("", OPSET)])
    model.ir_version = 8
    return model


def sinks(g):
    """Values no node reads (graph outputs), at most 3, the last always."""
    read = {i for n in g.nodes for i in n.input}
    node_outs = [n.output[0] for n in g.nodes]
    unread = [o for o in node_outs if o not in read]
    return unread[-3:] if unread else node_outs[-1:]


def ort_run(cases):
    """{case_dir: (outputs by name) or error string} through ORT."""
    if not cases:
        return {}
    root = os.path.dirname(cases[0])
    r = subprocess.run(["node", os.path.join(HERE, "ort_reference.js"), root],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("difftest: ONNX Runtime failed to run (is onnxruntime-node "
                 "installed by scripts/setup.sh?):\n" + r.stderr[-2000:])
    results = {}
    for d in cases:
        spec = json.load(open(os.path.join(d, "ort.json")))
        if "error" in spec:
            results[d] = spec["error"]
            continue
        outs = {}
        for o in spec["outputs"]:
            data = np.fromfile(os.path.join(d, o["file"]), dtype=o["dtype"])
            outs[o["name"]] = data.reshape(o["shape"])
        results[d] = outs
    return results


def write_case(d, g, model):
    os.makedirs(d, exist_ok=True)
    onnx.save(model, os.path.join(d, "model.onnx"))
    inputs = []
    for k, v in enumerate(g.inputs):
        f = "input_%d.bin" % k
        g.feeds[v.name].tofile(os.path.join(d, f))
        inputs.append({"name": v.name, "dtype": "float32", "shape": v.shape,
                       "file": f})
    json.dump({"inputs": inputs}, open(os.path.join(d, "case.json"), "w"))


def save_case(path, g, output, reference):
    """A minimized mismatch in ONNX's test-case layout (model.onnx,
    test_data_set_0/input_K.pb and output_0.pb, ONNX Runtime's values):
    bwc-run --check and test/e2e/difftest-regressions.sh replay it."""
    data = os.path.join(path, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    onnx.save(to_model(g, [output]), os.path.join(path, "model.onnx"))
    for k, v in enumerate(g.inputs):
        t = numpy_helper.from_array(g.feeds[v.name], v.name)
        with open(os.path.join(data, "input_%d.pb" % k), "wb") as f:
            f.write(t.SerializeToString())
    t = numpy_helper.from_array(np.asarray(reference, np.float32), output)
    with open(os.path.join(data, "output_0.pb"), "wb") as f:
        f.write(t.SerializeToString())


def agree(out, ref, variant):
    if out.shape != ref.shape:
        return False, "shape %s vs %s" % (out.shape, ref.shape)
    if not np.all(np.isfinite(out)):
        return False, "non-finite output"
    if variant == "fp16":
        err = np.linalg.norm(out - ref) / max(np.linalg.norm(ref), 1e-30)
        return err <= 1e-2 or np.max(np.abs(out - ref)) <= 1e-3, \
            "relative L2 %.3e" % err
    bad = np.abs(out - ref) > 1e-3 + 1e-2 * np.abs(ref)
    return not bad.any(), "%d of %d elements off, max abs %.3e" % (
        bad.sum(), bad.size, np.max(np.abs(out - ref)) if out.size else 0)


def run_bwc(bwc, model, feeds, variant):
    opts = dict(VARIANTS[variant])
    target = opts.get("target", "cpu")
    artifact = bwc.compile(model, **opts)
    device = "cuda-sim" if target == "cuda" else "cpu"
    session = bwc.Session(artifact, device=device)
    names = [o.name for o in session.get_outputs()]
    return dict(zip(names, session.run(None, feeds)))


def minimize(bwc, g, variant, tmp):
    """The first node whose value disagrees, with its ancestors."""
    every = [n.output[0] for n in g.nodes]
    d = os.path.join(tmp, "minimize")
    shutil.rmtree(d, ignore_errors=True)
    model = to_model(g, every)
    write_case(d, g, model)
    ref = ort_run([d])[d]
    if isinstance(ref, str):
        return None, "ORT: " + ref
    try:
        outs = run_bwc(bwc, model, dict(g.feeds), variant)
    except Exception as e:  # noqa: BLE001
        return None, "bwc on the expanded graph: %s" % str(e).splitlines()[0]
    producer = {n.output[0]: n for n in g.nodes}
    for name in every:
        ok, why = agree(outs[name], ref[name], variant)
        if ok:
            continue
        keep, todo = set(), [name]
        while todo:
            t = todo.pop()
            if t in producer and t not in keep:
                keep.add(t)
                todo.extend(producer[t].input)
        sub = Graph(g.rng)
        sub.values = g.values
        sub.nodes = [n for n in g.nodes if n.output[0] in keep]
        used = {i for n in sub.nodes for i in n.input}
        sub.inits = [t for t in g.inits if t.name in used]
        sub.inputs = [v for v in g.inputs if v.name in used]
        sub.feeds = {v.name: g.feeds[v.name] for v in sub.inputs}
        return (sub, name, ref[name]), "%s (%s)" % (why,
                                                    producer[name].op_type)
    return None, "no single node disagrees (the outputs only)"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--keep", help="save each minimized mismatch here")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--batch", type=int, default=100)
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args()
    sys.path.insert(0, os.path.join(args.build, "python"))
    import bwc  # noqa: E402
    variants = args.variants.split(",")
    for v in variants:
        if v not in VARIANTS:
            sys.exit("difftest: unknown variant '%s' (known: %s)" % (
                v, ", ".join(VARIANTS)))
    probe = subprocess.run(
        ["node", "-e", "const p = require('path'); const roots = "
         "[process.env.BWC_NPM_DIR, p.join(%r, 'build-npm')].filter(Boolean);"
         " for (const r of roots) { try { require(p.join(r, 'node_modules', "
         "'onnxruntime-node')); process.exit(0); } catch (e) {} }"
         " require('onnxruntime-node');" % ROOT],
        capture_output=True, text=True)
    if probe.returncode != 0:
        print("SKIPPED: onnxruntime-node not found (scripts/setup.sh installs "
              "it into build-npm/)")
        return 77
    tmp = tempfile.mkdtemp(prefix="difftest.")
    start = time.time()
    mismatches, failures, graphs, nodes = 0, 0, 0, 0
    by_variant = {v: 0 for v in variants}
    try:
        for first in range(0, args.count, args.batch):
            batch = []
            for i in range(first, min(first + args.batch, args.count)):
                seed = args.seed + i
                g = generate(seed)
                model = to_model(g, sinks(g))
                d = os.path.join(tmp, "case%07d" % seed)
                write_case(d, g, model)
                batch.append((seed, g, model, d))
            refs = ort_run([d for _, _, _, d in batch])
            for seed, g, model, d in batch:
                ref = refs[d]
                graphs += 1
                nodes += len(g.nodes)
                if isinstance(ref, str):
                    print("seed %d: ONNX Runtime refuses the graph: %s" % (
                        seed, ref.splitlines()[0]))
                    failures += 1
                    continue
                for variant in variants:
                    try:
                        outs = run_bwc(bwc, model, dict(g.feeds), variant)
                    except (bwc.CompileError, bwc.RuntimeError) as e:
                        failures += 1
                        by_variant[variant] += 1
                        print("seed %d %s: bwc fails: %s" % (
                            seed, variant, str(e).splitlines()[0]))
                        continue
                    bad = [(n, why) for n in ref
                           for ok, why in [agree(outs[n], ref[n], variant)]
                           if not ok]
                    if not bad:
                        continue
                    mismatches += 1
                    by_variant[variant] += 1
                    found, why = minimize(bwc, g, variant, tmp)
                    where = ""
                    if found and args.keep:
                        path = os.path.join(args.keep, "seed%d-%s" % (
                            seed, variant))
                        save_case(path, *found)
                        where = ", saved in " + path
                    print("seed %d %s: MISMATCH %s; minimized: %s%s" % (
                        seed, variant, bad[0][1],
                        "%d nodes, %s" % (len(found[0].nodes), why)
                        if found else why, where))
            if not args.quiet:
                print("... %d graphs (%.0f s)" % (graphs, time.time() - start),
                      file=sys.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("variants %s; %d nodes in all; %.0f s; findings by variant: %s" % (
        ",".join(variants), nodes, time.time() - start,
        ", ".join("%s %d" % kv for kv in by_variant.items())))
    print("%d graphs, %d mismatches" % (graphs, mismatches + failures))
    return 1 if mismatches else 2 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
