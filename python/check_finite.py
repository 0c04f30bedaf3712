#!/usr/bin/python3
"""Checks that --precision=fp16|bf16 creates no infinity or NaN in any
intermediate value of a model where fp32 has none.

The artifact records no element type for intermediate buffers, so the
intermediates are exposed instead: every float node output of the ONNX model
becomes a graph output, the model is compiled with --precision=P and
--io-precision=P (so the exposed values keep the low type they are computed
or stored in; exposing a value also rounds it where the real program might
keep it in f32 registers, which only makes the check stricter) and run on
the model's test input with `bwc-run --output-dir`; every output is scanned.
Constant nodes are not exposed (weights; bwc-mixed-precision never converts
one the low type cannot hold). The same model compiled in fp32 is the
baseline: a value non-finite in fp32
too is reported, not counted as a failure.

Usage: check_finite.py BIN_DIR MODEL_DIR --input-shape=NAME=DIMS --precision=P
Exit status 1 when a value is non-finite in P but finite in fp32.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

FLOAT_TYPES = (TensorProto.FLOAT, TensorProto.FLOAT16, TensorProto.BFLOAT16)


def expose(model):
    """The model with every float node output as a graph output, and the
    names in output order."""
    inferred = onnx.shape_inference.infer_shapes(model)
    types = {v.name: v.type.tensor_type.elem_type
             for v in list(inferred.graph.value_info) +
             list(inferred.graph.output) + list(inferred.graph.input)}
    have = {o.name for o in model.graph.output}
    for node in model.graph.node:
        # Constants are weights: the pass's range rule keeps the ones the
        # low type cannot hold in f32; exposing them would round them.
        if node.op_type == "Constant":
            continue
        for name in node.output:
            if name and name not in have and types.get(name) in FLOAT_TYPES:
                model.graph.output.append(
                    helper.make_tensor_value_info(name, types[name], None))
                have.add(name)
    return model, [o.name for o in model.graph.output]


def run(bin_dir, model_path, shape, precision, inputs, out_dir):
    artifact = os.path.join(out_dir, "m.bwc")
    flags = [f"--precision={precision}"]
    if precision != "fp32":
        flags.append(f"--io-precision={precision}")
    subprocess.run([os.path.join(bin_dir, "bwc-compile"), model_path,
                    f"--input-shape={shape}", "-o", artifact] + flags,
                   check=True, capture_output=True)
    subprocess.run([os.path.join(bin_dir, "bwc-run"), artifact,
                    "--output-dir", out_dir, "--quiet"] +
                   [f"--input={n}={f}" for n, f in inputs], check=True,
                   capture_output=True)


def read(path):
    """The tensor in f32, and whether it was stored in f16/bf16."""
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    lowType = t.data_type in (TensorProto.FLOAT16, TensorProto.BFLOAT16)
    if t.data_type == TensorProto.BFLOAT16:
        bits = np.frombuffer(t.raw_data, dtype=np.uint16).astype(np.uint32)
        return (bits << 16).view(np.float32).reshape(tuple(t.dims)), lowType
    return numpy_helper.to_array(t).astype(np.float32), lowType


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin_dir")
    ap.add_argument("model_dir")
    ap.add_argument("--input-shape", required=True)
    ap.add_argument("--precision", required=True, choices=["fp16", "bf16"])
    args = ap.parse_args()

    model, names = expose(onnx.load(os.path.join(args.model_dir,
                                                 "model.onnx")))
    case = os.path.join(args.model_dir, "test_data_set_0")
    inputs = []
    for i, inp in enumerate(model.graph.input):
        path = os.path.join(case, f"input_{i}.pb")
        if os.path.exists(path):
            inputs.append((inp.name, path))
    with tempfile.TemporaryDirectory(prefix="bwc-finite-") as tmp:
        path = os.path.join(tmp, "exposed.onnx")
        onnx.save(model, path)
        dirs = {}
        for p in ("fp32", args.precision):
            dirs[p] = os.path.join(tmp, p)
            os.makedirs(dirs[p])
            run(args.bin_dir, path, args.input_shape, p, inputs, dirs[p])
        bad = both = lowCount = 0
        for k, name in enumerate(names):
            f = f"output_{k}.pb"
            ref, _ = read(os.path.join(dirs["fp32"], f))
            low, isLow = read(os.path.join(dirs[args.precision], f))
            lowCount += isLow
            new = np.count_nonzero(~np.isfinite(low) & np.isfinite(ref))
            old = np.count_nonzero(~np.isfinite(ref))
            if new:
                print(f"NON-FINITE in {args.precision} only: '{name}' "
                      f"({new} of {low.size} values; fp32 max |v| "
                      f"{np.nanmax(np.abs(ref)):.4g})")
                bad += 1
            elif old:
                both += 1
        print(f"{os.path.basename(args.model_dir.rstrip('/'))} "
              f"{args.precision}: {len(names)} values checked ({lowCount} "
              f"stored in {args.precision}), {bad} "
              f"non-finite only in {args.precision}, {both} non-finite in "
              "fp32 too")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
