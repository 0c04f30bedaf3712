"""bwc-grad's gradients (--train=grad) against central finite differences
of the loss along random directions (python/grad_check.py: the fp32 step's
gradients, the losses of the same step compiled in float64), on the CPU
target and on cuda-sim; a training step under --memory-budget; and the
optimizer steps (--train=sgd:LR|adam:LR) against numpy's update from those
gradients.
docs/training.md records the figures."""
import os
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))

import bwc  # noqa: E402
import grad_check  # noqa: E402
import make_training_models as models  # noqa: E402

LIMIT = 1e-3
SHARED = os.environ.get("BWC_SHARED_MODELS",
                        os.path.join(HERE, "..", "..", "..", "shared",
                                     "models"))
PPOCR_CLS = os.path.join(SHARED, "ppocr_cls", "model.onnx")


def check(model, shapes=None, loss="mse", device="cpu", eps=1e-6,
          directions=3):
    worst, results, grads, base = grad_check.check(
        model, shapes, loss, directions=directions, eps=eps, device=device,
        log=lambda line: print(line))
    assert np.isfinite(base)
    assert all(np.all(np.isfinite(g)) for g in grads.values())
    # Every direction moved the loss: the check compares real derivatives.
    assert all(abs(fd) > 1e-6 for fd, _, _ in results)
    assert worst <= LIMIT, results
    return grads


@pytest.mark.parametrize("device", ["cpu", "cuda-sim"])
def test_mlp(device):
    grads = check(models.forward_mlp(), device=device)
    assert sorted(grads) == sorted([f"w{i}" for i in range(8)] +
                                   [f"b{i}" for i in range(8)])


@pytest.mark.parametrize("device,loss", [("cpu", "mse"),
                                         ("cpu", "cross-entropy"),
                                         ("cuda-sim", "mse")])
def test_transformer_block(device, loss):
    check(models.transformer_block(), loss=loss, device=device)


def trig_model():
    """x [4, 6] @ w [6, 6] through every trigonometric and hyperbolic rule,
    each operand kept inside its function's domain (tanh(.) * 0.9 for
    asin/acos/atanh/tan, cosh(.) + 1 for acosh)."""
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(7)
    w = numpy_helper.from_array(
        (rng.standard_normal((6, 6)) * 0.4).astype(np.float32), "w")
    c = [helper.make_node("Constant", [], [n], value=numpy_helper.from_array(
        np.array(v, np.float32), n)) for n, v in [("k", 0.9), ("one", 1.0)]]
    n = [helper.make_node("MatMul", ["x", "w"], ["y"]),
         helper.make_node("Tanh", ["y"], ["t"]),
         helper.make_node("Mul", ["t", "k"], ["a"]),
         helper.make_node("Cosh", ["y"], ["ch"]),
         helper.make_node("Add", ["ch", "one"], ["ch1"])]
    terms = [("Asin", "a"), ("Acos", "a"), ("Atanh", "a"), ("Tan", "a"),
             ("Atan", "y"), ("Sinh", "y"), ("Asinh", "y"), ("Acosh", "ch1")]
    for i, (op, src) in enumerate(terms):
        n.append(helper.make_node(op, [src], [f"u{i}"]))
    n.append(helper.make_node("Sum", [f"u{i}" for i in range(len(terms))],
                              ["out"]))
    g = helper.make_graph(
        c + n, "trig",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 6])],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, [4, 6])],
        [w])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])


@pytest.mark.parametrize("device", ["cpu", "cuda-sim"])
def test_trigonometric_rules(device):
    grads = check(trig_model(), device=device)
    assert sorted(grads) == ["w"]


def batchnorm_model():
    """Conv -> BatchNormalization (a channel's running variance 1e-3, as a
    trained model's dead channels have) -> Relu -> Conv."""
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(3)
    f = lambda a, n: numpy_helper.from_array(a.astype(np.float32), n)
    inits = [f(rng.standard_normal((4, 2, 3, 3)) * 0.5, "conv.w"),
             f(np.array([0.05, 1.0, 1.2, 0.8]), "bn.scale"), f(rng.random(4), "bn.bias"),
             f(rng.standard_normal(4), "bn.mean"),
             f(np.array([1e-3, 0.5, 1.0, 2.0]), "bn.var"),
             f(rng.standard_normal((3, 4, 1, 1)) * 0.5, "head.w")]
    n = [helper.make_node("Conv", ["x", "conv.w"], ["c"], pads=[1, 1, 1, 1]),
         helper.make_node("BatchNormalization",
                          ["c", "bn.scale", "bn.bias", "bn.mean", "bn.var"],
                          ["b"]),
         helper.make_node("Relu", ["b"], ["r"]),
         helper.make_node("Conv", ["r", "head.w"], ["y"])]
    g = helper.make_graph(
        n, "bn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 2, 5, 5])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3, 5, 5])],
        inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 15)])


@pytest.mark.parametrize("target", ["cpu", "cuda"])
def test_batchnorm_statistics_are_not_parameters(target):
    """A BatchNormalization's running mean and variance stay constants of
    the step (docs/training.md): they get no gradient and no update (SGD
    on them gave ppocr_cls NaN losses from its second step at lr 0.01),
    and the step trains the rest."""
    model = batchnorm_model()
    grad = bwc.compile(model, target=target, train="grad")
    device = "cuda-sim" if target == "cuda" else "cpu"
    names = [o.name for o in bwc.Session(grad, device=device).get_outputs()]
    assert names == ["loss", "grad.conv.w", "grad.bn.scale", "grad.bn.bias",
                     "grad.head.w"], names
    # The same with the weights as graph inputs (grad_check's form): the
    # statistics stay inputs, without gradients, and the others match
    # finite differences.
    grads = check(model, device=device, directions=2)
    assert sorted(grads) == ["bn.bias", "bn.scale", "conv.w", "head.w"]
    step = bwc.Session(bwc.compile(model, target=target, train="sgd:0.0002"),
                       device=device)
    rng = np.random.default_rng(4)
    feed = {"x": rng.standard_normal((2, 2, 5, 5)).astype(np.float32),
            "target": rng.standard_normal((2, 3, 5, 5)).astype(np.float32)}
    losses = [float(np.asarray(step.run(None, feed)[0])) for _ in range(4)]
    assert all(np.isfinite(losses)), losses
    assert all(b < a for a, b in zip(losses, losses[1:])), losses
    state = step.state()
    assert sorted(state) == ["bn.bias", "bn.scale", "conv.w", "head.w"]
    assert all(np.all(np.isfinite(v)) for v in state.values())
    # Asking for the statistics alone names them.
    with pytest.raises(bwc.CompileError, match="matches only initializers "
                       "the model reads as constants, not parameters: "
                       "'bn.mean', 'bn.var'"):
        bwc.compile(model, target=target, train="grad",
                    trainable=r"bn\.(mean|var)")


def resample_model(op, out_shape, **attrs):
    """y = op(x * w) over a 1x2x5x6 input: Resize to `out_shape` (sizes, an
    int64 constant) or Pad (int64 pads) with `attrs`; w is the parameter."""
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(3)
    w = numpy_helper.from_array(
        (1 + 0.3 * rng.standard_normal((1, 2, 5, 6))).astype(np.float32), "w")
    nodes = [helper.make_node("Mul", ["x", "w"], ["xw"])]
    if op == "Resize":
        nodes.append(helper.make_node("Constant", [], ["sizes"],
                                      value=numpy_helper.from_array(
                                          np.array(out_shape, np.int64))))
        nodes.append(helper.make_node("Resize", ["xw", "", "", "sizes"],
                                      ["out"], **attrs))
    else:
        pads = attrs.pop("pads")
        nodes.append(helper.make_node("Constant", [], ["pads"],
                                      value=numpy_helper.from_array(
                                          np.array(pads, np.int64))))
        nodes.append(helper.make_node("Pad", ["xw", "pads"], ["out"],
                                      **attrs))
    g = helper.make_graph(
        nodes, op.lower(),
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 5, 6])],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, out_shape)],
        [w])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])


RESAMPLES = {
    "upsample-nearest-x2": ("Resize", [1, 2, 10, 12],
                            dict(mode="nearest",
                                 coordinate_transformation_mode="asymmetric",
                                 nearest_mode="floor")),
    "nearest-down-round": ("Resize", [1, 2, 3, 4],
                           dict(mode="nearest", nearest_mode="round_prefer_ceil")),
    "linear-half-pixel-7x9": ("Resize", [1, 2, 7, 9], dict(mode="linear")),
    "linear-align-corners": ("Resize", [1, 2, 9, 4],
                             dict(mode="linear",
                                  coordinate_transformation_mode="align_corners")),
    "cubic-exclude-outside": ("Resize", [1, 2, 8, 11],
                              dict(mode="cubic", exclude_outside=1)),
    # tf_half_pixel_for_nn shifts the unscaled axes too (the channel axis
    # here): ceil and round_prefer_ceil take the next channel, linear and
    # cubic average two or four.
    "tf-half-pixel-nearest-ceil": ("Resize", [1, 2, 10, 12],
                                   dict(mode="nearest", nearest_mode="ceil",
                                        coordinate_transformation_mode=
                                        "tf_half_pixel_for_nn")),
    "tf-half-pixel-round-prefer-ceil": ("Resize", [1, 2, 4, 4],
                                        dict(mode="nearest",
                                             nearest_mode="round_prefer_ceil",
                                             coordinate_transformation_mode=
                                             "tf_half_pixel_for_nn")),
    "tf-half-pixel-linear": ("Resize", [1, 2, 7, 9],
                             dict(mode="linear",
                                  coordinate_transformation_mode=
                                  "tf_half_pixel_for_nn")),
    "tf-half-pixel-cubic": ("Resize", [1, 2, 8, 11],
                            dict(mode="cubic", exclude_outside=1,
                                 coordinate_transformation_mode=
                                 "tf_half_pixel_for_nn")),
    "pad-reflect": ("Pad", [1, 2, 9, 9],
                    dict(pads=[0, 0, 2, 1, 0, 0, 2, 2], mode="reflect")),
    "pad-edge": ("Pad", [1, 4, 6, 10],
                 dict(pads=[0, 1, 0, 3, 0, 1, 1, 1], mode="edge")),
}


@pytest.mark.parametrize("case", sorted(RESAMPLES))
def test_resample_rules(case):
    """Resize (nearest, linear, cubic) and reflect/edge Pad: the adjoint is
    the op itself applied to the identity, one contraction per axis."""
    op, shape, attrs = RESAMPLES[case]
    grads = check(resample_model(op, shape, **dict(attrs)), directions=2)
    assert sorted(grads) == ["w"]


@pytest.mark.skipif(not os.path.exists(PPOCR_CLS),
                    reason="needs ../shared/models")
def test_ppocr_cls_batch_64():
    # 53 convolutions (depthwise 3x3 and 5x5 at strides (2,1) and 1, 1x1),
    # BatchNormalization, HardSwish, squeeze-excite, MaxPool, MatMul,
    # Softmax: 143 parameters (213 initializers less 35 BatchNormalization
    # means and variances, constants of the step since 2026-12-07).
    # ReLU/clip kinks are dense at this size, so the step is 1e-8 (float64
    # losses resolve it).
    grads = check(PPOCR_CLS, {"x": [64, 3, 48, 192]}, "cross-entropy",
                  eps=1e-8, directions=2)
    assert len(grads) == 143


@pytest.mark.skipif(not os.path.exists(PPOCR_CLS),
                    reason="needs ../shared/models")
def test_ppocr_cls_cuda_sim():
    check(PPOCR_CLS, {"x": [1, 3, 48, 192]}, "cross-entropy",
          device="cuda-sim", eps=1e-8, directions=2)


def test_memory_budget_keeps_gradients():
    """A training step at half its unconstrained arena: bwc-rematerialize
    meets it with at most 35% extra flops, and the gradients are those of
    the unconstrained step."""
    model = models.transformer_block()
    free = bwc.compile(model, train="grad")
    arena = free.report["memory"]["arena_bytes"]
    tight = bwc.compile(model, train="grad", memory_budget=arena // 2)
    report = tight.report
    assert report["memory"]["arena_bytes"] <= arena // 2
    assert report["remat"]["extra_flops_ratio"] <= 0.35
    rng = np.random.default_rng(0)
    feeds = {i.name: rng.standard_normal(i.shape).astype(np.float32)
             for i in bwc.Session(free).get_inputs()}
    a = bwc.Session(free).run(None, feeds)
    b = bwc.Session(tight).run(None, feeds)
    for x, y in zip(a, b):
        np.testing.assert_allclose(x, y, rtol=1e-5, atol=1e-7)


def test_errors_name_the_culprit():
    model = models.forward_mlp()
    with pytest.raises(bwc.CompileError, match="matches no float initializer"):
        bwc.compile(model, train="grad", trainable="nothing")
    with pytest.raises(bwc.CompileError, match="expects grad, sgd:LR"):
        bwc.compile(model, train="momentum:0.1")
    # Only the selected parameters get gradients.
    art = bwc.compile(model, train="grad", trainable="w[0-3]")
    names = [o.name for o in art.outputs]
    assert names == ["loss"] + ["grad.w%d" % i for i in range(4)]


def _optimizer_reference(model, optimizer, lr, steps, device):
    """Runs `steps` optimizer steps of bwc and of numpy (from bwc's own
    gradients at each step's weights) and returns the largest relative
    difference of any parameter."""
    m32, weights = grad_check.weights_as_inputs(model)
    target = "cuda" if device == "cuda-sim" else "cpu"
    # "cpu-elemental": the CPU target's elemental code generator, which
    # (like CUDA's) writes updates fused into epilogues in place.
    options = {"codegen": "elemental"} if device == "cpu-elemental" else {}
    device = "cpu" if device == "cpu-elemental" else device
    grad = bwc.Session(bwc.compile(m32, target=target, train="grad"),
                       device=device)
    step = bwc.Session(bwc.compile(model, target=target,
                                   train="%s:%g" % (optimizer, lr),
                                   **options),
                       device=device)
    assert [o.name for o in step.get_outputs()] == ["loss"]
    rng = np.random.default_rng(0)
    data = {i.name: rng.standard_normal(i.shape).astype(np.float32)
            for i in step.get_inputs()}
    w = {k: v.astype(np.float64) for k, v in weights.items()}
    m = {k: np.zeros_like(v) for k, v in w.items()}
    v2 = {k: np.zeros_like(v) for k, v in w.items()}
    worst, losses = 0.0, []
    for t in range(1, steps + 1):
        feeds = dict(data)
        feeds.update({k: a.astype(np.float32) for k, a in w.items()})
        out = dict(zip([o.name for o in grad.get_outputs()],
                       grad.run(None, feeds)))
        losses.append(float(step.run(["loss"], data)[0]))
        assert abs(losses[-1] - float(out["loss"])) <= 1e-5 * abs(losses[-1])
        for k in w:
            g = out["grad." + k].astype(np.float64)
            if optimizer == "sgd":
                w[k] = w[k] - lr * g
            else:
                m[k] = 0.9 * m[k] + 0.1 * g
                v2[k] = 0.999 * v2[k] + 0.001 * g * g
                mh = m[k] / (1 - 0.9 ** t)
                vh = v2[k] / (1 - 0.999 ** t)
                w[k] = w[k] - lr * mh / (np.sqrt(vh) + 1e-8)
        state = step.state()
        for k in w:
            d = np.linalg.norm(state[k] - w[k]) / np.linalg.norm(w[k])
            worst = max(worst, d)
    if optimizer == "adam":
        assert float(step.state()["adam.step"]) == steps
    assert losses[-1] < losses[0]
    return worst


@pytest.mark.parametrize("optimizer,device", [("sgd", "cpu"),
                                              ("adam", "cpu"),
                                              ("sgd", "cpu-elemental"),
                                              ("sgd", "cuda-sim"),
                                              ("adam", "cuda-sim")])
def test_optimizer_steps_update_weights_in_place(optimizer, device):
    """Each run of an sgd:LR / adam:LR step updates the parameters kept in
    the executor's buffers exactly as the optimizer's formula applied to
    the gradients bwc-grad gives at those weights."""
    lr = 0.05 if optimizer == "sgd" else 0.01
    worst = _optimizer_reference(models.forward_mlp(), optimizer, lr, 4,
                                 device)
    assert worst <= 1e-5, worst


def test_adam_updates_state_in_place():
    """Adam's elementwise update kernels write the new weights and moments
    over their own buffers (bwc-plan-buffers' bwc.state_inplace), so less
    is copied after each run; the steps above check the values."""
    art = bwc.compile(models.forward_mlp(), train="adam:0.01")
    state = art.report["state"]
    assert state["tensors"] == 8 * 2 * 3 + 1, state
    assert state["updated_in_place"] > 0, state
    full = sum(4 * (32 * 32 + 32) * 3 for _ in range(8)) + 4
    assert state["copied_bytes_per_run"] < full, state


@pytest.mark.parametrize("target,options", [("cuda", {}),
                                            ("cpu", {"codegen": "elemental"}),
                                            ("cpu", {})])
def test_sgd_updates_fused_into_epilogues_in_place(target, options):
    """SGD's updates fused into the gradient matmuls' and bias reductions'
    epilogues write the new weights over the old ones, with every code
    generator (CUDA, --codegen=elemental, and since 2026-12-07 the CPU's
    linalg path, whose contractions accumulate in their own buffers):
    nothing is copied after a run (33,792 bytes before on linalg;
    test_optimizer_steps_update_weights_in_place checks the values)."""
    state = bwc.compile(models.forward_mlp(), target=target,
                        train="sgd:0.1", **options).report["state"]
    assert state["tensors"] == 16, state
    assert state["updated_in_place"] == 16, state
    assert state["copied_bytes_per_run"] == 0, state


def test_save_weights_writes_the_trained_model(tmp_path):
    model = models.forward_mlp()
    step = bwc.Session(bwc.compile(model, train="sgd:0.1"))
    rng = np.random.default_rng(1)
    data = {i.name: rng.standard_normal(i.shape).astype(np.float32)
            for i in step.get_inputs()}
    for _ in range(3):
        step.run(None, data)
    step.save_weights(model, tmp_path / "trained.onnx")
    import onnx
    from onnx import numpy_helper
    trained = {t.name: numpy_helper.to_array(t) for t in
               onnx.load(str(tmp_path / "trained.onnx")).graph.initializer}
    state = step.state()
    assert sorted(trained) == sorted(k for k in state)
    for k, a in trained.items():
        np.testing.assert_array_equal(a, state[k])
    # The trained model runs for inference like any other.
    out = bwc.Session(bwc.compile(str(tmp_path / "trained.onnx"))).run(
        None, {"x": data["x"]})
    assert out[0].shape == (16, 32)


def test_bwc_run_save_weights_writes_onnx(tmp_path):
    """`bwc-run --save-weights OUT.onnx` writes the model compiled for
    training with its trained values: an initializer, a weight Constant
    node (written back as an initializer) and an initializer from external
    data take the state's values, one --trainable leaves out keeps its own,
    the optimizer's moments are not written, and ONNX's checker accepts the
    file. Python's save_weights(path) writes the same model."""
    import subprocess
    import onnx
    from onnx import helper, numpy_helper
    bin_dir = os.path.join(os.path.dirname(os.environ["PYTHONPATH"].split(
        os.pathsep)[0]), "bin")
    model = models.forward_mlp(layers=2, batch=4, width=8)
    g = model.graph
    w0 = next(i for i in g.initializer if i.name == "w0")
    g.node.insert(0, helper.make_node("Constant", [], ["w0"], value=w0))
    g.initializer.remove(w0)
    src = tmp_path / "model.onnx"
    onnx.save(model, str(src), save_as_external_data=True,
              all_tensors_to_one_file=True, location="weights.bin",
              size_threshold=200)
    original = {i.name: numpy_helper.to_array(i, str(tmp_path))
                for i in onnx.load(str(src), load_external_data=False)
                .graph.initializer}
    assert set(original) == {"w1", "b0", "b1"}
    assert any(i.data_location == onnx.TensorProto.EXTERNAL for i in
               onnx.load(str(src), load_external_data=False)
               .graph.initializer)
    rng = np.random.default_rng(3)
    x = rng.standard_normal((4, 8)).astype(np.float32)
    t = rng.standard_normal((4, 8)).astype(np.float32)
    for name, a in (("x", x), ("t", t)):
        (tmp_path / (name + ".pb")).write_bytes(
            numpy_helper.from_array(a, name).SerializeToString())
    step = tmp_path / "step.bwc"
    subprocess.run([os.path.join(bin_dir, "bwc-compile"), str(src), "-o",
                    str(step), "--train=adam:0.01", "--trainable=w.*|b0"],
                   check=True)
    run = [os.path.join(bin_dir, "bwc-run"), str(step), "--input",
           "x=" + str(tmp_path / "x.pb"), "--input",
           "target=" + str(tmp_path / "t.pb"), "--steps", "3", "--quiet",
           "--save-weights"]
    subprocess.run(run + [str(tmp_path / "trained.onnx")], check=True)
    subprocess.run(run + [str(tmp_path / "state")], check=True)
    trained = onnx.load(str(tmp_path / "trained.onnx"))
    onnx.checker.check_model(trained)
    assert not any(n.op_type == "Constant" for n in trained.graph.node)
    got = {i.name: numpy_helper.to_array(i)
           for i in trained.graph.initializer}
    assert sorted(got) == ["b0", "b1", "w0", "w1"]
    for name in ("w0", "w1", "b0"):
        pb = onnx.TensorProto()
        pb.ParseFromString((tmp_path / "state" / (name + ".pb"))
                           .read_bytes())
        np.testing.assert_array_equal(got[name], numpy_helper.to_array(pb))
        if name != "w0":
            assert not np.array_equal(got[name], original[name]), name
    np.testing.assert_array_equal(got["b1"], original["b1"])
    assert (tmp_path / "state" / "adam.step.pb").exists()
    # The Python API writes the same model from the artifact.
    session = bwc.Session(bwc.compile(str(src), train="adam:0.01",
                                      trainable="w.*|b0"))
    for _ in range(3):
        session.run(None, {"x": x, "target": t})
    session.save_weights(tmp_path / "py.onnx")
    py = {i.name: numpy_helper.to_array(i) for i in
          onnx.load(str(tmp_path / "py.onnx")).graph.initializer}
    assert sorted(py) == sorted(got)
    for name in got:
        np.testing.assert_allclose(py[name], got[name], rtol=1e-6,
                                   atol=1e-7)
    # A gradient step has no state to write.
    grad = tmp_path / "grad.bwc"
    subprocess.run([os.path.join(bin_dir, "bwc-compile"), str(src), "-o",
                    str(grad), "--train=grad"], check=True)
    r = subprocess.run([os.path.join(bin_dir, "bwc-run"), str(grad),
                        "--input", "x=" + str(tmp_path / "x.pb"), "--input",
                        "target=" + str(tmp_path / "t.pb"),
                        "--save-weights", str(tmp_path / "g.onnx")],
                       capture_output=True, text=True)
    assert r.returncode != 0 and "has no trained state" in r.stderr


def test_optimizer_errors():
    model = models.forward_mlp()
    m32, _ = grad_check.weights_as_inputs(model)
    with pytest.raises(bwc.CompileError, match="is also a graph input"):
        bwc.compile(m32, train="sgd:0.1")
    with pytest.raises(bwc.CompileError, match="expects grad, sgd:LR"):
        bwc.compile(model, train="sgd:0")


def test_dynamic_loss_scaling_skips_and_halves():
    """fp16 training steps scale the loss dynamically by default: with a
    target that makes the scaled gradients overflow fp16, the step is
    skipped (every weight unchanged), the scale halves, and once the
    gradients fit the steps go on (reported through loss_scale/skipped)."""
    model = models.forward_mlp()
    step = bwc.Session(bwc.compile(model, train="sgd:0.01",
                                   precision="fp16"))
    assert [o.name for o in step.get_outputs()] == ["loss", "loss_scale",
                                                    "skipped"]
    rng = np.random.default_rng(0)
    feeds = {"x": rng.standard_normal((16, 32)).astype(np.float32),
             "target": (300 * rng.standard_normal((16, 32)))
             .astype(np.float32)}
    scales, skips = [], []
    for _ in range(8):
        before = step.state()
        loss, scale, skipped = step.run(None, feeds)
        after = step.state()
        scales.append(float(scale))
        skips.append(float(skipped))
        moved = any(not np.array_equal(before[k], after[k])
                    for k in before if not k.startswith("loss_scale."))
        assert moved == (skips[-1] == 0.0)
        expect = scales[-1] / 2 if skips[-1] else scales[-1]
        assert float(after["loss_scale.scale"]) == expect
    assert scales[0] == 65536.0
    assert skips[0] == 1.0 and 0.0 in skips
    # A static scale: no state, the factor reported as given.
    static = bwc.Session(bwc.compile(model, train="grad", precision="fp16",
                                     loss_scale="1024"))
    names = [o.name for o in static.get_outputs()]
    assert names[:2] == ["loss", "loss_scale"] and "skipped" not in names
    assert static.state() == {}


def test_mixed_precision_gradients():
    """fp16 (dynamic loss scaling) and bf16 training steps of the
    transformer block against fp32: relative L2 of every gradient within
    1e-2 and 3e-2 (docs/training.md also lists the cases that miss)."""
    m32, weights = grad_check.weights_as_inputs(models.transformer_block())
    ref = bwc.Session(bwc.compile(m32, train="grad"))
    rng = np.random.default_rng(0)
    feeds = {i.name: weights.get(i.name, None) for i in ref.get_inputs()}
    for i in ref.get_inputs():
        if feeds[i.name] is None:
            feeds[i.name] = rng.standard_normal(i.shape).astype(np.float32)
    a = dict(zip([o.name for o in ref.get_outputs()], ref.run(None, feeds)))
    for precision, limit in (("fp16", 1e-2), ("bf16", 3e-2)):
        s = bwc.Session(bwc.compile(m32, train="grad", precision=precision))
        b = dict(zip([o.name for o in s.get_outputs()], s.run(None, feeds)))
        for k in a:
            if k.startswith("grad.") and np.linalg.norm(a[k]) > 0:
                err = np.linalg.norm(b[k] - a[k]) / np.linalg.norm(a[k])
                assert err <= limit, (precision, k, err)


@pytest.mark.parametrize("fusion", ["default", "none"])
def test_bf16_classifier_step_runs_on_the_cpu(fusion):
    """A bf16 training step whose copy kernels move bf16 values (unfused:
    broadcast, transpose) loads and matches fp32 within bf16's limit. Before
    bwc-bf16-memory-as-i16 the x86 back end promoted the moved values to f32
    and the kernel object referenced __truncsfbf2, which Debian 12's libgcc
    lacks ("undefined symbol" at load)."""
    model = models.classifier_head()
    rng = np.random.default_rng(1)
    feeds = {"x": rng.random((8, 3, 16, 16)).astype(np.float32),
             "target": rng.integers(0, 5, 8).astype(np.int64)}
    ref = bwc.Session(bwc.compile(model, train="grad",
                                  loss="cross-entropy"))
    a = dict(zip([o.name for o in ref.get_outputs()], ref.run(None, feeds)))
    s = bwc.Session(bwc.compile(model, train="grad", loss="cross-entropy",
                                precision="bf16", fusion=fusion))
    b = dict(zip([o.name for o in s.get_outputs()], s.run(None, feeds)))
    assert sorted(a) == sorted(b) and "grad.conv_w" in a
    for k in a:
        if np.linalg.norm(a[k]) > 0:
            err = np.linalg.norm(b[k] - a[k]) / np.linalg.norm(a[k])
            assert err <= 3e-2, (k, err)
