"""Ops whose ONNX 1.12 backend data has no case, checked against ONNX
Runtime's CPU provider instead (onnxruntime-node 1.30.0, installed by
scripts/setup.sh into build-npm/; python/ort_reference.js): RoiAlign in
`max` mode (opset 16) and Resize with `antialias` (opset 18), linear and
cubic, downscaling and upscaling, on the CPU target and on cuda-sim with
every sanitizer. docs/import.md records the figures."""
import json
import os
import sys
import tempfile

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))

import bwc  # noqa: E402
import difftest  # noqa: E402


def roialign_max(mode="max", ratio=2, ctm="half_pixel", out=(3, 4)):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 10, 12])
    rois = helper.make_tensor_value_info("rois", TensorProto.FLOAT, [4, 4])
    bi = helper.make_tensor_value_info("bi", TensorProto.INT64, [4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    node = helper.make_node("RoiAlign", ["x", "rois", "bi"], ["y"], mode=mode,
                            output_height=out[0], output_width=out[1],
                            sampling_ratio=ratio, spatial_scale=0.5,
                            coordinate_transformation_mode=ctm)
    g = helper.make_graph([node], "roialign", [x, rois, bi], [y])
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 16)])
    rng = np.random.default_rng(5)
    feeds = {
        "x": rng.standard_normal((2, 3, 10, 12)).astype(np.float32),
        # Boxes inside, across the border and past it (samples outside
        # [-1, H] weigh 0), in image coordinates (spatial_scale 0.5).
        "rois": np.array([[2, 3, 15, 14], [-4, -2, 8, 6], [10, 10, 30, 26],
                          [0, 0, 23, 19]], np.float32),
        "bi": np.array([0, 1, 1, 0], np.int64)}
    return model, feeds


def resize_antialias(mode, scales=None, sizes=None, exclude=0):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 12, 17])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    inits = [onnx.numpy_helper.from_array(np.zeros(0, np.float32), "roi")]
    inputs = ["x", "roi"]
    if scales is not None:
        inits.append(onnx.numpy_helper.from_array(
            np.array(scales, np.float32), "scales"))
        inputs.append("scales")
    else:
        inits.append(onnx.numpy_helper.from_array(
            np.zeros(0, np.float32), "scales"))
        inits.append(onnx.numpy_helper.from_array(
            np.array(sizes, np.int64), "sizes"))
        inputs += ["scales", "sizes"]
    node = helper.make_node("Resize", inputs, ["y"], mode=mode, antialias=1,
                            exclude_outside=exclude)
    g = helper.make_graph([node], "resize", [x], [y], inits)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    rng = np.random.default_rng(9)
    return model, {"x": rng.standard_normal((1, 2, 12, 17)).astype(np.float32)}


CASES = {
    "roialign-max": roialign_max(),
    "roialign-max-ratio3-output-half-pixel":
        roialign_max(ratio=3, ctm="output_half_pixel"),
    "resize-antialias-linear-down": resize_antialias(
        "linear", scales=[1, 1, 0.5, 0.3]),
    "resize-antialias-cubic-down": resize_antialias(
        "cubic", scales=[1, 1, 0.4, 0.7]),
    "resize-antialias-cubic-down-exclude": resize_antialias(
        "cubic", scales=[1, 1, 0.4, 0.7], exclude=1),
    "resize-antialias-linear-sizes": resize_antialias(
        "linear", sizes=[1, 2, 5, 9]),
    "resize-antialias-linear-up-down": resize_antialias(
        "linear", scales=[1, 1, 1.5, 0.6]),
}


@pytest.fixture(scope="module")
def references():
    root = tempfile.mkdtemp(prefix="bwc-ort-ops-")
    dirs = {}
    for name, (model, feeds) in CASES.items():
        d = os.path.join(root, name)
        os.makedirs(d)
        onnx.save(model, os.path.join(d, "model.onnx"))
        inputs = []
        for k, v in feeds.items():
            v.tofile(os.path.join(d, k + ".bin"))
            inputs.append({"name": k, "dtype": str(v.dtype),
                           "shape": list(v.shape), "file": k + ".bin"})
        json.dump({"inputs": inputs}, open(os.path.join(d, "case.json"), "w"))
        dirs[name] = d
    results = difftest.ort_run(list(dirs.values()))
    out = {}
    for name, d in dirs.items():
        assert not isinstance(results[d], str), results[d]
        out[name] = results[d]["y"]
    return out


@pytest.mark.parametrize("target,device", [("cpu", "cpu"),
                                           ("cuda", "cuda-sim")])
@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_onnx_runtime(references, name, target, device):
    model, feeds = CASES[name]
    sess = bwc.Session(bwc.compile(model, target=target), device=device)
    (got,) = sess.run(None, feeds)
    ref = references[name]
    assert got.shape == ref.shape
    err = np.linalg.norm(got - ref) / max(np.linalg.norm(ref), 1e-30)
    print("%s %s: relative L2 %.2e" % (name, device, err))
    assert err <= 1e-5, "%s: relative L2 %.3g" % (name, err)
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-5)


def test_roialign_max_bound_names_the_node():
    """A max-mode tap tensor past the bound is an error naming the node."""
    model, _ = roialign_max(out=(1024, 1024))
    with pytest.raises(bwc.CompileError, match="max mode gathers"):
        bwc.compile(model)


def test_antialias_is_not_the_plain_filter(references):
    """The comparison can fail: without antialias the downscaled result is
    far from ONNX Runtime's antialiased one, and avg mode far from max."""
    for name in ("resize-antialias-linear-down", "resize-antialias-cubic-down",
                 "roialign-max"):
        model, feeds = CASES[name]
        node = model.graph.node[0]
        for a in node.attribute:
            if a.name == "antialias":
                a.i = 0
            if a.name == "mode" and a.s == b"max":
                a.s = b"avg"
        (got,) = bwc.Session(bwc.compile(model)).run(None, feeds)
        ref = references[name]
        err = np.linalg.norm(got - ref) / np.linalg.norm(ref)
        assert err > 1e-2, (name, err)


@pytest.mark.parametrize("target,device,codegen", [
    ("cpu", "cpu", "linalg"), ("cpu", "cpu", "elemental"),
    ("cuda", "cuda-sim", "linalg")])
def test_reductions_of_empty_tensors(target, device, codegen):
    """Reducing a tensor with no elements gives the reduction's identity,
    as ONNX (opset 18's wording) and numpy define it: sums 0, product 1,
    max -inf, min +inf, log-sum-exp -inf; the mean is 0/0, NaN (numpy's).
    Until 2026-12-07 (found by fuzz-modelproto) ReduceSumSquare crashed
    bwc-compile with --codegen=elemental and --target=cuda (the elemental
    emitter read the last of no values of the folded empty constant) and
    ReduceSum, ReduceMax and ReduceMean failed on the CPU ("cannot be
    converted to LLVM IR": a 3x2x0 buffer in the bare-pointer calling
    convention)."""
    expect = {"ReduceSumSquare": 0.0, "ReduceSum": 0.0, "ReduceL1": 0.0,
              "ReduceL2": 0.0, "ReduceProd": 1.0, "ReduceMax": -np.inf,
              "ReduceMin": np.inf, "ReduceLogSumExp": -np.inf,
              "ReduceMean": np.nan}
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 2, 0])
    nodes = [helper.make_node(op, ["x"], [op.lower()]) for op in expect]
    outs = [helper.make_tensor_value_info(op.lower(), TensorProto.FLOAT,
                                          [1, 1, 1]) for op in expect]
    g = helper.make_graph(nodes, "empty", [x], outs)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    sess = bwc.Session(bwc.compile(model, target=target, codegen=codegen),
                       device=device)
    got = sess.run(None, {"x": np.zeros((3, 2, 0), np.float32)})
    for (op, want), y in zip(expect.items(), got):
        assert y.shape == (1, 1, 1), op
        np.testing.assert_array_equal(y, np.full((1, 1, 1), want,
                                                 np.float32), err_msg=op)
