#!/usr/bin/python3
"""Checks bwc-grad's gradients against central finite differences of the
fp32 loss, along random directions (docs/training.md "Checking gradients").

The model's float weights (initializers, and Constant nodes of more than
one element) are listed as graph inputs too, so the compiled training step
(`--train=grad`) takes them at run time: one compile gives the gradients at
w and the losses at w +- eps*d. For each direction d (one random normal
tensor per parameter, scaled to the parameter's RMS so every layer moves in
proportion), the check compares the directional derivative sum(grad . d)
with (L(w + eps d) - L(w - eps d)) / (2 eps); the relative error is
|fd - ad| / max(|fd|, |ad|).

  grad_check.py MODEL.onnx [--input-shape NAME=DIMS] [--loss mse|cross-entropy]
                [--directions K] [--eps E] [--device cpu|cuda-sim]
  grad_check.py MODEL.onnx --precision fp16|bf16 [--loss-scale S] ...
      (instead: the low-precision step's gradients against fp32's)
"""
import argparse
import sys

import numpy as np
import onnx
from onnx import numpy_helper

import bwc


def weights_as_inputs(model):
    """A copy of `model` whose float weights are graph inputs with defaults;
    returns (model, {name: array})."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    g = m.graph
    keep = []
    for node in g.node:
        if (node.op_type == "Constant" and len(node.attribute) == 1 and
                node.attribute[0].name == "value"):
            t = node.attribute[0].t
            a = numpy_helper.to_array(t)
            if a.dtype.kind == "f" and a.size > 1:
                g.initializer.append(numpy_helper.from_array(a, node.output[0]))
                continue
        keep.append(node)
    del g.node[:]
    g.node.extend(keep)
    inputs = {i.name for i in g.input}
    weights = {}
    for init in g.initializer:
        a = numpy_helper.to_array(init)
        if a.dtype.kind != "f":
            continue
        weights[init.name] = a
        if init.name not in inputs:
            g.input.append(onnx.helper.make_tensor_value_info(
                init.name, init.data_type, list(a.shape)))
    return m, weights


def to_float64(model):
    """A copy of `model` computing in float64: float tensors (initializers,
    Constant values, inputs, outputs, value_info) and Cast-to-float become
    double. The finite differences use it: the fp32 loss rounds at 1e-7
    relative, too coarse to resolve a directional derivative to 1e-3 with a
    step small enough to stay clear of ReLU, max pool and clip kinks."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    F, D = onnx.TensorProto.FLOAT, onnx.TensorProto.DOUBLE

    def tensor(t):
        if t.data_type == F:
            a = numpy_helper.to_array(t).astype(np.float64)
            t.CopyFrom(numpy_helper.from_array(a, t.name))

    def graph(g):
        for t in g.initializer:
            tensor(t)
        for vi in list(g.input) + list(g.output) + list(g.value_info):
            if vi.type.tensor_type.elem_type == F:
                vi.type.tensor_type.elem_type = D
        for node in g.node:
            for attr in node.attribute:
                if attr.type == onnx.AttributeProto.TENSOR:
                    tensor(attr.t)
                elif attr.type == onnx.AttributeProto.GRAPH:
                    graph(attr.g)
                elif (node.op_type == "Cast" and attr.name == "to" and
                      attr.i == F):
                    attr.i = D
    graph(m.graph)
    return m


def step_feeds(session, weights, loss, rng):
    """Inputs of a training step: the weights as given, a target of the
    loss's kind (cross-entropy: class indices below 2, which every
    classifier has), normal data."""
    feeds = {}
    for i in session.get_inputs():
        if i.name in weights:
            feeds[i.name] = weights[i.name]
        elif i.name == "target" and loss == "cross-entropy":
            feeds[i.name] = rng.integers(0, 2, size=i.shape).astype(np.int64)
        else:
            feeds[i.name] = rng.standard_normal(i.shape).astype(i.dtype)
    return feeds


def check(model, input_shapes=None, loss="mse", directions=3, eps=1e-5,
          device="cpu", seed=0, trainable=".*", log=print, **options):
    """Compiles the training step of `model` (a path or ModelProto) twice,
    in fp32 (the gradients checked) and in float64 (the losses the finite
    differences take), and compares along `directions` random directions.
    Returns (worst relative error, [(fd, ad, rel)], fp32 gradients by
    parameter, fp32 loss)."""
    rng = np.random.default_rng(seed)
    if isinstance(model, str):
        model = onnx.load(model)
    m32, weights = weights_as_inputs(model)
    m64 = to_float64(m32)
    target = "cuda" if device == "cuda-sim" else "cpu"
    kw = dict(input_shapes=input_shapes, train="grad", loss=loss,
              trainable=trainable, **options)
    s32 = bwc.Session(bwc.compile(m32, target=target, **kw), device=device)
    # The float64 reference only takes losses: channels-first as imported
    # (layout="nchw"), so it skips bwc-select-layout's pricing, ~19 s of a
    # ppocr_cls step's compile, for layouts that do not change its math.
    s64 = bwc.Session(bwc.compile(m64, target="cpu", **dict(kw, layout="nchw")))
    params = [o.name[len("grad."):] for o in s32.get_outputs()
              if o.name.startswith("grad.")]
    feeds = step_feeds(s32, weights, loss, rng)
    out = dict(zip([o.name for o in s32.get_outputs()], s32.run(None, feeds)))
    grads = {p: out["grad." + p] for p in params}

    def loss64(step, d):
        f = {k: (v.astype(np.float64) if v.dtype == np.float32 else v)
             for k, v in feeds.items()}
        for p in params:
            f[p] = weights[p].astype(np.float64) + step * d[p]
        return float(s64.run(["loss"], f)[0])

    results = []
    for k in range(directions):
        d = {}
        for p in params:
            w = weights[p].astype(np.float64)
            d[p] = rng.standard_normal(w.shape) * (np.sqrt(np.mean(w * w)) +
                                                   1e-2)
        ad = sum(float(np.sum(grads[p].astype(np.float64) * d[p]))
                 for p in params)
        fd = (loss64(eps, d) - loss64(-eps, d)) / (2 * eps)
        rel = abs(fd - ad) / max(abs(fd), abs(ad), 1e-30)
        results.append((fd, ad, rel))
        log("direction %d: finite difference %.9g, gradient . d %.9g, "
            "relative error %.3g" % (k, fd, ad, rel))
    return max(r[2] for r in results), results, grads, float(out["loss"])


def precision_error(model, precision, input_shapes=None, loss="mse",
                    loss_scale="auto", seed=0, calibrate_trials=None,
                    info=None):
    """The relative L2 error of every gradient of the `precision` training
    step (`loss_scale`: auto is none for a gradient step; "dynamic" then
    returns the first step's gradients, Inf when the initial scale
    overflows: 65536, or the one calibration chose) against the fp32 step's, on the same random inputs:
    {name: error}. With `calibrate_trials`, the low-precision step is
    compiled with --calibrate on one data set of other random inputs (seed
    + 100) and that many validation trials, so the inputs compared are
    held out; `info` (a dict) then receives the calibration report and the
    static DRAM bytes of the fp32, uncalibrated and calibrated steps."""
    import tempfile
    rng = np.random.default_rng(seed)
    if isinstance(model, str):
        model = onnx.load(model)
    m32, weights = weights_as_inputs(model)
    kw = dict(input_shapes=input_shapes, train="grad", loss=loss)
    ref_art = bwc.compile(m32, **kw)
    ref = bwc.Session(ref_art)
    low_kw = dict(precision=precision, loss_scale=loss_scale, **kw)
    if calibrate_trials is None:
        low = bwc.Session(bwc.compile(m32, **low_kw))
    else:
        cal_feeds = step_feeds(ref, weights, loss,
                               np.random.default_rng(seed + 100))
        with tempfile.TemporaryDirectory() as cal:
            for k, (name, a) in enumerate(cal_feeds.items()):
                onnx.save_tensor(numpy_helper.from_array(a, name),
                                 "%s/input_%d.pb" % (cal, k))
            art = bwc.compile(m32, calibrate=[cal],
                              calibrate_trials=calibrate_trials, **low_kw)
        low = bwc.Session(art)
        if info is not None:
            plain = bwc.compile(m32, **low_kw)
            info["calibration"] = art.report["calibration"]
            info["bytes"] = {name: a.report["totals"]["bytes"] for name, a in
                             (("fp32", ref_art), (precision, plain),
                              ("calibrated", art))}
    feeds = step_feeds(ref, weights, loss, rng)
    a = dict(zip([o.name for o in ref.get_outputs()], ref.run(None, feeds)))
    b = dict(zip([o.name for o in low.get_outputs()], low.run(None, feeds)))
    return {k[len("grad."):]: float(np.linalg.norm(
        b[k].astype(np.float64) - a[k]) / max(np.linalg.norm(a[k]), 1e-30))
        for k in a if k.startswith("grad.")}


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("model")
    p.add_argument("--input-shape", action="append", default=[])
    p.add_argument("--loss", default="mse")
    p.add_argument("--directions", type=int, default=3)
    p.add_argument("--eps", type=float, default=1e-5)
    p.add_argument("--device", default="cpu")
    p.add_argument("--limit", type=float, default=1e-3)
    p.add_argument("--precision", help="instead: compare the fp16 or bf16 "
                   "step's gradients with the fp32 step's")
    p.add_argument("--loss-scale", default="auto")
    p.add_argument("--calibrate-trials", type=int, help="with --precision: "
                   "calibrate on one other data set with this many trials "
                   "first")
    a = p.parse_args()
    shapes = {}
    for s in a.input_shape:
        name, dims = s.split("=")
        shapes[name] = [int(x) for x in dims.split("x")]
    if a.precision:
        info = {}
        errors = precision_error(a.model, a.precision, shapes or None, a.loss,
                                 a.loss_scale,
                                 calibrate_trials=a.calibrate_trials,
                                 info=info)
        worst = max(errors, key=errors.get)
        limit = 1e-2 if a.precision == "fp16" else 3e-2
        print("%s (loss scale %s): worst gradient relative L2 %.3g (%s) over "
              "%d parameters, %d over %g" % (
                  a.precision, a.loss_scale, errors[worst], worst,
                  len(errors), sum(e > limit for e in errors.values()),
                  limit))
        if info:
            cal = info["calibration"]
            kept = [k for k in cal["kept_f32"]
                    if k["reason"].startswith("validation")]
            print("calibration: %d trials, %d contractions kept f32 by "
                  "validation, error on its data set %s; static DRAM bytes "
                  "%s" % (cal["trials"], len(kept), cal.get("worst_error"),
                          info["bytes"]))
            print("trials (candidates in the low type: error, accepted): " +
                  ", ".join("%d: %s%s" % (
                      t["low"], "inf" if t["error"] is None else
                      "%.2g" % t["error"], " yes" if t["accepted"] else "")
                      for t in cal.get("trial_log", [])))
            if "loss_scale" in cal:
                print("loss scale: calibrated %g (bwc-grad's %g)%s" % (
                    cal["loss_scale"]["calibrated"],
                    cal["loss_scale"]["initial"],
                    ": " + cal["loss_scale"]["note"]
                    if "note" in cal["loss_scale"] else ""))
        return 0
    worst, _, grads, base = check(a.model, shapes, a.loss, a.directions,
                                  a.eps, a.device)
    print("loss %.9g, %d parameters, worst relative error %.3g (limit %g)" %
          (base, len(grads), worst, a.limit))
    return 0 if worst <= a.limit else 1


if __name__ == "__main__":
    sys.exit(main())
