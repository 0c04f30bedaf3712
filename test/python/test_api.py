"""The bwc package: compile, Artifact, load, Session (run, get_inputs,
get_outputs, bench, profile and its Chrome trace), cuda-sim, and an error
of each kind."""
import json
import os

import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper, TensorProto

import bwc
import bwc.backend as bwc_backend

CLS_SHAPE = (1, 3, 48, 192)


def read_pb(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


def rel_l2(a, b):
    return float(np.linalg.norm(a - b) / np.linalg.norm(b))


def small_model(op="Relu", shape=(2, 3)):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, list(shape))
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, list(shape))
    graph = helper.make_graph([helper.make_node(op, ["x"], ["y"])], "g",
                              [x], [y])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def reshape_model():
    """y = Reshape(x, shape): `shape` is a shape input (needs a value)."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    s = helper.make_tensor_value_info("shape", TensorProto.INT64, [2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    graph = helper.make_graph([helper.make_node("Reshape", ["x", "shape"],
                                                ["y"])], "g", [x, s], [y])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def test_real_model_matches_its_reference(models):
    case = os.path.join(models, "ppocr_cls")
    artifact = bwc.compile(os.path.join(case, "model.onnx"),
                           input_shapes={"x": CLS_SHAPE})
    assert artifact.target == "cpu"
    assert [i.name for i in artifact.inputs] == ["x"]
    assert artifact.inputs[0].shape == CLS_SHAPE
    assert artifact.report["totals"]["kernels"] > 10
    session = bwc.Session(artifact)
    x = read_pb(os.path.join(case, "test_data_set_0", "input_0.pb"))
    ref = read_pb(os.path.join(case, "test_data_set_0", "output_0.pb"))
    (y,) = session.run(None, {"x": x})
    assert y.dtype == np.float32 and y.shape == ref.shape
    assert rel_l2(y, ref) <= 1e-4


def test_compile_takes_bytes_and_model_protos():
    model = small_model()
    x = np.array([[-1, 2, -3], [4, -5, 6]], np.float32)
    for source in (model, model.SerializeToString()):
        (y,) = bwc.Session(bwc.compile(source)).run(None, {"x": x})
        np.testing.assert_array_equal(y, np.maximum(x, 0))


def test_save_and_load_round_trip(tmp_path):
    artifact = bwc.compile(small_model("Exp"))
    path = tmp_path / "m.bwc"
    artifact.save(path)
    loaded = bwc.load(path)
    assert loaded.data == artifact.data
    x = np.ones((2, 3), np.float32)
    (y,) = bwc.Session(str(path)).run(["y"], {"x": x})
    np.testing.assert_allclose(y, np.exp(x), rtol=1e-6)


def test_get_inputs_and_outputs_have_ort_shape():
    session = bwc.Session(bwc.compile(small_model()))
    (i,) = session.get_inputs()
    (o,) = session.get_outputs()
    assert (i.name, i.shape, i.dtype, i.type) == ("x", (2, 3),
                                                  np.dtype("float32"),
                                                  "tensor(float)")
    assert o.name == "y"


def test_input_values_bind_shape_inputs():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    artifact = bwc.compile(reshape_model(),
                           input_values={"shape": np.array([3, 2], np.int64)})
    session = bwc.Session(artifact)
    assert [i.name for i in session.get_inputs()] == ["x"]
    (y,) = session.run(None, {"x": x})
    np.testing.assert_array_equal(y, x.reshape(3, 2))


def test_run_does_not_copy_outputs_and_accepts_views():
    session = bwc.Session(bwc.compile(small_model("Neg")))
    big = np.arange(12, dtype=np.float32).reshape(2, 6)
    x = big[:, ::2]  # not contiguous: copied once, then run
    (y,) = session.run(None, {"x": x})
    np.testing.assert_array_equal(y, -x)
    assert y.base is not None  # the array owns the runtime's bytes


def test_output_names_select_and_order():
    session = bwc.Session(bwc.compile(small_model()))
    x = np.zeros((2, 3), np.float32)
    assert len(session.run(["y"], {"x": x})) == 1
    with pytest.raises(bwc.RuntimeError, match="no output named 'z'"):
        session.run(["z"], {"x": x})


@pytest.mark.parametrize("feeds, message", [
    ({}, "missing input 'x'"),
    ({"x": np.zeros((2, 3), np.float32), "q": np.zeros(1)},
     "no input named 'q'"),
    ({"x": np.zeros((2, 3), np.float64)},
     "has dtype float64 but the model expects float32"),
    ({"x": np.zeros((3, 2), np.float32)},
     r"has shape \(3, 2\) but the model expects \(2, 3\)"),
])
def test_run_checks_the_signature(feeds, message):
    session = bwc.Session(bwc.compile(small_model()))
    with pytest.raises(bwc.RuntimeError, match=message):
        session.run(None, feeds)


def test_compile_errors_carry_diagnostics(tmp_path):
    with pytest.raises(bwc.CompileError, match="is not an ONNX model") as e:
        bwc.compile(b"\x08\x07garbage")
    assert "<bytes>:" in e.value.diagnostics
    with pytest.raises(bwc.CompileError, match="unknown --precision 'fp8'"):
        bwc.compile(small_model(), precision="fp8")
    with pytest.raises(bwc.CompileError, match="unknown option 'bogus'"):
        bwc.compile(small_model(), bogus=1)
    with pytest.raises(bwc.CompileError, match="cannot open"):
        bwc.compile(str(tmp_path / "missing.onnx"))
    with pytest.raises(bwc.CompileError, match="unsupported operator"):
        bwc.compile(small_model("TfIdfVectorizer"))
    mlir = tmp_path / "bad.mlir"
    mlir.write_text("func.func @main(%x: tensor<2xf32>) {\n  bogus.op\n}\n")
    with pytest.raises(bwc.CompileError) as e:
        bwc.compile(str(mlir))
    assert e.value.diagnostics.startswith(str(mlir) + ":2:")
    with pytest.raises(TypeError):
        bwc.compile(42)


def chain_model(shape=(64, 64)):
    """x -> Exp -> Neg -> Exp -> y: two intermediates unfused."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, list(shape))
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, list(shape))
    nodes = [helper.make_node("Exp", ["x"], ["a"]),
             helper.make_node("Neg", ["a"], ["b"]),
             helper.make_node("Exp", ["b"], ["y"])]
    graph = helper.make_graph(nodes, "g", [x], [y])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def test_memory_budget_that_cannot_be_met_is_a_compile_error():
    with pytest.raises(bwc.CompileError, match="budget"):
        bwc.compile(chain_model(), fusion="none", memory_budget=1024)


def test_runtime_errors(tmp_path):
    artifact = bwc.compile(small_model())
    corrupted = bytearray(artifact.data)
    corrupted[len(corrupted) // 2] ^= 0xFF
    with pytest.raises(bwc.RuntimeError, match="not a valid bwc artifact"):
        bwc.Artifact(bytes(corrupted))
    with pytest.raises(bwc.RuntimeError, match="cannot read artifact"):
        bwc.load(tmp_path / "missing.bwc")
    with pytest.raises(bwc.RuntimeError, match="cannot run a cpu artifact"):
        bwc.Session(artifact, device="cuda-sim")
    with pytest.raises(bwc.RuntimeError, match="sanitize needs"):
        bwc.Session(artifact, sanitize="all")
    assert issubclass(bwc.RuntimeError, RuntimeError)


def test_bench_rows():
    session = bwc.Session(bwc.compile(small_model("Exp", (256, 256))))
    result = session.bench(5)
    assert len(result.runs_ms) == 5
    assert result.latency_ms["min"] <= result.latency_ms["median"]
    (row,) = result.rows
    assert row["bytes"] == 2 * 256 * 256 * 4 and row["ops"] == "unary.exp"
    assert row["time_us"] > 0 and row["gbps"] > 0
    assert "unary" in str(result) or "exp" in str(result)


def test_profile_and_chrome_trace(tmp_path):
    session = bwc.Session(bwc.compile(small_model("Exp", (64, 64))))
    profile = session.profile()
    assert len(profile.rows) == 1 and profile.counters is None
    path = tmp_path / "trace.json"
    profile.save_chrome_trace(path)
    trace = json.loads(path.read_text())
    events = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert [e["name"] for e in events] == [profile.rows[0]["name"]]
    assert events[0]["args"]["bytes"] == 2 * 64 * 64 * 4
    assert trace["otherData"]["timing"] == "host"


def test_cuda_sim_runs_and_counts():
    artifact = bwc.compile(small_model("Sigmoid", (32, 64)), target="cuda")
    assert artifact.target == "cuda"
    session = bwc.Session(artifact, device="cuda-sim", sanitize="all")
    x = np.linspace(-4, 4, 32 * 64, dtype=np.float32).reshape(32, 64)
    (y,) = session.run(None, {"x": x})
    np.testing.assert_allclose(y, 1 / (1 + np.exp(-x)), rtol=1e-5, atol=1e-6)
    profile = session.profile({"x": x}, runs=1)
    counters = profile.rows[0]["counters"]
    assert counters["global_load_requests"] > 0
    assert 0 < counters["sector_efficiency"] <= 1
    assert "emulator" in profile.timing
    assert profile.rows[0]["estimate_us"] > 0
    with pytest.raises(bwc.RuntimeError, match="no cuda-sim code"):
        bwc.Session(bwc.compile(small_model(), target="cuda", cuda_sim="off"),
                    device="cuda-sim")


def test_emit_returns_text():
    ptx = bwc.compile(small_model(), target="cuda", emit="ptx")
    assert ".visible .entry" in ptx


def test_fp16_io_and_bf16_inputs():
    x = np.linspace(-2, 2, 6, dtype=np.float32).reshape(2, 3)
    half = bwc.compile(small_model("Neg"), precision="fp16",
                       io_precision="fp16")
    session = bwc.Session(half)
    assert session.get_inputs()[0].dtype == np.float16
    (y,) = session.run(None, {"x": x.astype(np.float16)})
    assert y.dtype == np.float16
    np.testing.assert_array_equal(y, -x.astype(np.float16))
    bf = bwc.Session(bwc.compile(small_model("Neg"), precision="bf16",
                                 io_precision="bf16"))
    assert bf.get_inputs()[0].type == "tensor(bfloat16)"
    (z,) = bf.run(None, {"x": x})  # float32 in, rounded to bfloat16
    assert z.dtype == np.float32
    np.testing.assert_allclose(z, -x, rtol=1 / 128)


def test_version():
    assert bwc.__version__.count(".") == 2
    assert bwc.version().startswith("bwc " + bwc.__version__)


def test_signed_artifacts(tmp_path):
    key, other = tmp_path / "key", tmp_path / "other"
    key.write_bytes(os.urandom(32))
    other.write_bytes(os.urandom(32))
    signed = bwc.compile(small_model(), sign_key=key)
    path = tmp_path / "s.bwc"
    signed.save(path)
    x = np.ones((2, 3), np.float32)
    (y,) = bwc.Session(str(path), verify_key=key).run(None, {"x": x})
    np.testing.assert_array_equal(y, x)
    assert bwc.load(path, verify_key=key).data == signed.data
    bwc.Session(signed)  # runs without a key too
    with pytest.raises(bwc.RuntimeError, match="does not match the key"):
        bwc.load(path, verify_key=other)
    plain = tmp_path / "p.bwc"
    bwc.compile(small_model()).save(plain)
    with pytest.raises(bwc.RuntimeError, match="not signed"):
        bwc.Session(str(plain), verify_key=key)
    short = tmp_path / "short"
    short.write_bytes(b"x" * 8)
    with pytest.raises(bwc.CompileError, match="at least 32"):
        bwc.compile(small_model(), sign_key=short)


def sequence_model():
    """out = SequenceInsert(s, x) (a sequence output), c = its concat."""
    seq = helper.make_sequence_type_proto(
        helper.make_tensor_type_proto(TensorProto.FLOAT, ["n", 3]))
    s = helper.make_value_info("s", seq)
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 3])
    out = helper.make_value_info("out", seq)
    c = helper.make_tensor_value_info("c", TensorProto.FLOAT, ["m", 3])
    graph = helper.make_graph(
        [helper.make_node("SequenceInsert", ["s", "x"], ["out"]),
         helper.make_node("ConcatFromSequence", ["out"], ["c"], axis=0)],
        "g", [s, x], [out, c])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def test_sequence_inputs_and_outputs_are_flattened():
    model = sequence_model()
    art = bwc.compile(model, input_shapes={
        "s": bwc.SequenceShapes([[2, 3], [1, 3]])})
    sess = bwc.Session(art)
    assert [i.name for i in sess.get_inputs()] == ["s[0]", "s[1]", "x"]
    assert [o.name for o in sess.get_outputs()] == [
        "out[0]", "out[1]", "out[2]", "c"]
    rng = np.random.default_rng(0)
    s0, s1, x = (rng.standard_normal(s).astype(np.float32)
                 for s in [(2, 3), (1, 3), (4, 3)])
    outs = sess.run(None, {"s[0]": s0, "s[1]": s1, "x": x})
    np.testing.assert_array_equal(outs[3], np.concatenate([s0, s1, x]))
    # The backend takes and returns sequences as lists, compiling per
    # sequence length (an empty one too).
    rep = bwc_backend.prepare(model)
    got, cat = rep.run([[s0, s1], x])
    assert len(got) == 3
    np.testing.assert_array_equal(got[2], x)
    np.testing.assert_array_equal(cat, np.concatenate([s0, s1, x]))
    got, cat = rep.run([[], x])
    assert len(got) == 1
    np.testing.assert_array_equal(cat, x)


def test_sequence_input_without_shapes_is_a_named_error():
    with pytest.raises(bwc.CompileError,
                       match=r"input 's' is a sequence: give its length and "
                             r"element shapes with --input-shape=s="):
        bwc.compile(sequence_model())
    with pytest.raises(bwc.CompileError,
                       match="gives 'x' a sequence's shapes, but it is not a "
                             "sequence input"):
        bwc.compile(sequence_model(), input_shapes={
            "s": bwc.SequenceShapes([]), "x": bwc.SequenceShapes([[4, 3]])})


def test_optional_inputs_and_outputs():
    """An optional input is present or not at compile time (None through
    the backend, NAME=none on the command line); an empty optional output
    comes back as None."""
    opt = helper.make_optional_type_proto(
        helper.make_tensor_type_proto(TensorProto.FLOAT, [3]))
    o = helper.make_value_info("o", opt)
    h = helper.make_tensor_value_info("h", TensorProto.BOOL, [])
    out = helper.make_value_info("out", opt)
    graph = helper.make_graph(
        [helper.make_node("OptionalHasElement", ["o"], ["h"]),
         helper.make_node("Identity", ["o"], ["out"])], "g", [o], [h, out])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 16)])
    rep = bwc_backend.prepare(model)
    x = np.arange(3, dtype=np.float32)
    has, same = rep.run([x])
    assert bool(has) and same is not None
    np.testing.assert_array_equal(same, x)
    has, same = rep.run([None])
    assert not bool(has) and same is None
    with pytest.raises(bwc.CompileError,
                       match="gives 'h' as none, but it is not an optional"):
        bwc.compile(model, input_shapes={"h": "none"})


@pytest.mark.parametrize("target,device", [("cpu", "cpu"),
                                           ("cuda", "cuda-sim")])
def test_if_on_a_runtime_condition(target, device):
    """An If whose condition is a runtime input (cond = sum(x) > 0) runs
    both branches and selects each output: the then branch's Log of a
    negative value (NaN) never reaches the result when else is taken, and
    both outputs of a two-output If follow the condition."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    outs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2, 3])
            for n in ("y", "z")]
    then_g = helper.make_graph(
        [helper.make_node("Log", ["x"], ["t0"]),
         helper.make_node("Mul", ["x", "x"], ["t1"])], "then", [],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2, 3])
         for n in ("t0", "t1")])
    else_g = helper.make_graph(
        [helper.make_node("Abs", ["x"], ["e0"]),
         helper.make_node("Neg", ["x"], ["e1"])], "else", [],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2, 3])
         for n in ("e0", "e1")])
    g = helper.make_graph(
        [helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0),
         helper.make_node("Greater", ["s", "zero"], ["c"]),
         helper.make_node("If", ["c"], ["y", "z"], then_branch=then_g,
                          else_branch=else_g)],
        "runtime_if", [x], outs,
        [numpy_helper.from_array(np.array(0, np.float32), "zero")])
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    sess = bwc.Session(bwc.compile(model, target=target), device=device)
    pos = np.array([[1, 2, 3], [4, 5, 6]], np.float32)
    y, z = sess.run(None, {"x": pos})
    np.testing.assert_allclose(y, np.log(pos), rtol=1e-6)
    np.testing.assert_allclose(z, pos * pos, rtol=1e-6)
    neg = -pos
    y, z = sess.run(None, {"x": neg})
    np.testing.assert_array_equal(y, np.abs(neg))
    np.testing.assert_array_equal(z, pos)


def _branchy_if_model():
    """cond = sum(x) > 0; then: relu(x @ A) @ B (two contractions), else:
    softmax(x) * 3 (reductions): each branch has launches of its own."""
    rng = np.random.default_rng(7)
    a = rng.standard_normal((64, 64)).astype(np.float32)
    b = rng.standard_normal((64, 64)).astype(np.float32)
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [32, 64])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [32, 64])
    out = [helper.make_tensor_value_info("o", TensorProto.FLOAT, [32, 64])]
    then_g = helper.make_graph(
        [helper.make_node("MatMul", ["x", "A"], ["t0"]),
         helper.make_node("Relu", ["t0"], ["t1"]),
         helper.make_node("MatMul", ["t1", "B"], ["o"])], "then", [], out)
    else_g = helper.make_graph(
        [helper.make_node("Softmax", ["x"], ["e0"], axis=1),
         helper.make_node("Mul", ["e0", "three"], ["o"])], "else", [], out)
    g = helper.make_graph(
        [helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0),
         helper.make_node("Greater", ["s", "zero"], ["c"]),
         helper.make_node("If", ["c"], ["y"], then_branch=then_g,
                          else_branch=else_g)],
        "branchy_if", [x], [y],
        [numpy_helper.from_array(np.array(0, np.float32), "zero"),
         numpy_helper.from_array(np.array(3, np.float32), "three"),
         numpy_helper.from_array(a, "A"), numpy_helper.from_array(b, "B")])
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])

    def reference(xv):
        if xv.sum() > 0:
            return np.maximum(xv @ a, 0) @ b
        e = np.exp(xv - xv.max(axis=1, keepdims=True))
        return 3 * e / e.sum(axis=1, keepdims=True)
    return model, reference


@pytest.mark.parametrize("target,device", [("cpu", "cpu"),
                                           ("cuda", "cuda-sim")])
def test_if_on_a_runtime_condition_skips_the_other_branch(target, device):
    """The launches only one branch needs are guarded by the condition
    (bwc-guard-branches) and skipped when the other branch is taken: the
    results still match numpy either way (cuda-sim with every sanitizer,
    initcheck included), and each branch skips launches the other runs
    (test/Transforms/bwc-guard-branches.mlir checks the arena sharing)."""
    model, reference = _branchy_if_model()
    art = bwc.compile(model, target=target)
    sess = bwc.Session(art, device=device)
    rng = np.random.default_rng(3)
    pos = np.abs(rng.standard_normal((32, 64))).astype(np.float32)
    neg = -pos
    skipped = {}
    for name, xv in (("then", pos), ("else", neg)):
        (got,) = sess.run(None, {"x": xv})
        np.testing.assert_allclose(got, reference(xv), rtol=2e-4, atol=2e-4)
        rows = sess.bench(n=2, input_feed={"x": xv}).rows
        skipped[name] = {r["name"] for r in rows if r["skipped"]}
        assert skipped[name], "no launch skipped when %s is taken" % name
        # A launch of the taken branch runs; the join and the condition too.
        assert len(skipped[name]) < len(rows)
        if device == "cuda-sim":
            # The emulator's counters line up with the launches that ran.
            prof = sess.profile(input_feed={"x": xv}, runs=1)
            assert prof.counters is not None
            for row, k in zip(prof.rows, prof.counters["kernels"]):
                assert k["name"] == row["name"]
                assert k["skipped"] == row["skipped"]
                ran = row["counters"]["global_load_requests"] > 0
                assert ran != row["skipped"], row
    assert not skipped["then"] & skipped["else"]
