"""--calibrate (bwc.compile(calibrate=[...])): the ranges and the validation
search choose what stays f32 so that fp16/bf16 gradients meet the
mixed-precision limits (fp16 1e-2, bf16 3e-2 relative L2) on data the
search did not see. Each case first checks that without calibration the
limit is missed, so the test fails if calibration stops mattering.
docs/passes/bwc-mixed-precision.md "Calibration" records the figures."""
import os
import sys

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))

import bwc  # noqa: E402
import make_training_models as models  # noqa: E402

LIMITS = {"fp16": 1e-2, "bf16": 3e-2}


def write_set(folder, tensors):
    os.makedirs(folder, exist_ok=True)
    for i, (name, array) in enumerate(tensors.items()):
        onnx.save_tensor(numpy_helper.from_array(array, name),
                         os.path.join(folder, f"input_{i}.pb"))


def worst_error(session, reference, feeds):
    a = reference.run(None, feeds)
    b = session.run(None, feeds)
    names = [o.name for o in reference.get_outputs()]
    return max((np.linalg.norm(y - x) / np.linalg.norm(x), n)
               for x, y, n in zip(a, b, names)
               if "grad" in n and np.linalg.norm(x) > 0)


@pytest.mark.parametrize("precision", ["fp16", "bf16"])
def test_written_out_mlp_training_step(tmp_path, precision):
    """The issue's 8-layer MLP training step written out in ONNX (forward
    and backward, [64, 256]): the ReLU masks of the backward pass flip
    where the forward pre-activations are rounded, which no loss scale
    fixes; the search keeps the forward matmuls in f32."""
    model, inputs = models.build("mlp", 8, 64, 256, 0)
    names = [i.name for i in model.graph.input]
    write_set(str(tmp_path / "cal"), dict(zip(names, inputs)))
    rng = np.random.default_rng(77)
    held = dict(zip(names, inputs))
    held["x"] = rng.standard_normal(held["x"].shape).astype(np.float32)
    held["y"] = rng.standard_normal(held["y"].shape).astype(np.float32)
    ref = bwc.Session(bwc.compile(model))
    plain = bwc.Session(bwc.compile(model, precision=precision))
    art = bwc.compile(model, precision=precision,
                      calibrate=[str(tmp_path / "cal")])
    cal = art.report["calibration"]
    kept = [k for k in cal["kept_f32"] if k["reason"].startswith("validation")]
    assert cal["data_sets"] == 1 and 0 < len(kept) < 23, cal
    assert cal["worst_error"] <= cal["tolerance"]
    # The search's other objective: no accepted trial moves more bytes
    # than the program chosen before it; the last accepted is the chosen
    # program, the one compiled here (CPU target, as the trials are).
    chosen = cal["bytes_all_f32"]
    for t in cal["trial_log"]:
        if t["accepted"]:
            assert t["bytes"] <= chosen and t["error"] <= cal["tolerance"], t
            chosen = t["bytes"]
    assert cal["bytes_chosen"] == chosen == art.report["totals"]["bytes"]
    assert chosen < cal["bytes_all_f32"]
    assert len(cal["trial_log"]) == cal["trials"]
    before = worst_error(plain, ref, held)
    after = worst_error(bwc.Session(art), ref, held)
    print(precision, "held-out", before, "->", after, len(kept), "kept")
    assert before[0] > LIMITS[precision]
    assert after[0] <= LIMITS[precision]


def wide_mlp_with_three_sets(folder):
    """The wide MLP (8 x [64, 256], ReLU and tanh), three calibration sets
    of x and target under `folder`, and a held-out set."""
    model = models.forward_mlp(layers=8, batch=64, width=256)

    def data(seed):
        rng = np.random.default_rng(seed)
        return {"x": rng.standard_normal((64, 256)).astype(np.float32),
                "target": rng.standard_normal((64, 256)).astype(np.float32)}
    for seed in (11, 12, 13):
        write_set(str(folder / f"test_data_set_{seed}"), data(seed))
    return model, data(2)


def test_bwc_grad_step_with_three_data_sets(tmp_path):
    """bwc-grad's step of the wide MLP (8 x [64, 256], ReLU and tanh) in
    fp16, calibrated on three data sets (one alone fits its noise: 3.8e-4
    on it, 1.7e-2 held out, 2026-12-03)."""
    model, held = wide_mlp_with_three_sets(tmp_path / "cal")
    ref = bwc.Session(bwc.compile(model, train="grad"))
    plain = bwc.Session(bwc.compile(model, train="grad", precision="fp16"))
    art = bwc.compile(model, train="grad", precision="fp16",
                      calibrate=[str(tmp_path / "cal")])
    assert art.report["calibration"]["data_sets"] == 3
    before = worst_error(plain, ref, held)
    after = worst_error(bwc.Session(art), ref, held)
    print("held-out", before, "->", after)
    assert before[0] > LIMITS["fp16"]
    assert after[0] <= LIMITS["fp16"]


def test_optimizer_step(tmp_path):
    """An SGD step of the wide MLP in fp16, calibrated on three data sets:
    the validation search compares each weight's change (new - old, the
    step's effect) with the fp32 step's. Held out, the change of every
    parameter after one step is within fp16's limit, which it is not
    uncalibrated."""
    model, held = wide_mlp_with_three_sets(tmp_path / "cal")
    kw = dict(train="sgd:0.01", loss_scale="none")
    art = bwc.compile(model, precision="fp16",
                      calibrate=[str(tmp_path / "cal")], **kw)
    cal = art.report["calibration"]
    assert cal["trials"] > 1, cal
    assert cal["worst_error"] <= cal["tolerance"], cal

    def changes(artifact):
        s = bwc.Session(artifact)
        before = s.state()
        s.run(None, held)
        return {k: v - before[k] for k, v in s.state().items()}

    ref = changes(bwc.compile(model, **kw))

    def worst(c):
        return max(np.linalg.norm(c[k] - ref[k]) / np.linalg.norm(ref[k])
                   for k in ref)
    before = worst(changes(bwc.compile(model, precision="fp16", **kw)))
    after = worst(changes(art))
    print("held-out change error", before, "->", after)
    assert before > LIMITS["fp16"]
    assert after <= LIMITS["fp16"]


def test_dynamic_loss_scale_is_calibrated(tmp_path):
    """A bwc-grad step in fp16 with a dynamic loss scale whose initial
    65536 overflows (a target of scale 300): uncalibrated its first step
    is skipped and returns non-finite gradients; calibration settles the
    scale on the sample set (halving until no step is skipped) and starts
    the step at half of it, so the first step on held-out data is not
    skipped and its gradients are within fp16's limit. The search compares
    the gradients of steps that were not skipped (before, every trial
    compared an overflowed step and failed, keeping everything f32)."""
    model = models.forward_mlp()

    def data(seed):
        rng = np.random.default_rng(seed)
        return {"x": rng.standard_normal((16, 32)).astype(np.float32),
                "target": (300 * rng.standard_normal((16, 32)))
                .astype(np.float32)}
    # Three sets, as for the wide MLP: one alone fits its own noise (seed
    # 6 flips first-layer ReLU masks in fp16 at any scale, 9.6e-2).
    for seed in (5, 6, 8):
        write_set(str(tmp_path / "cal" / f"test_data_set_{seed}"), data(seed))
    held = data(7)
    kw = dict(train="grad", precision="fp16", loss_scale="dynamic")
    plain = bwc.Session(bwc.compile(model, **kw))
    out = dict(zip([o.name for o in plain.get_outputs()],
                   plain.run(None, held)))
    assert out["loss_scale"] == 65536 and out["skipped"] == 1
    art = bwc.compile(model, calibrate=[str(tmp_path / "cal")], **kw)
    cal = art.report["calibration"]
    scale = cal["loss_scale"]
    assert scale["initial"] == 65536 and scale["calibrated"] < 65536, cal
    # Half a power of two below 65536: the settled scale, halved.
    assert np.log2(scale["calibrated"]) == int(np.log2(scale["calibrated"]))
    kept = [k for k in cal["kept_f32"] if k["reason"].startswith("validation")]
    assert cal["worst_error"] <= cal["tolerance"], cal
    assert len(kept) < 16, kept
    step = bwc.Session(art)
    assert float(step.state()["loss_scale.scale"]) == scale["calibrated"]
    ref = bwc.Session(bwc.compile(model, train="grad"))
    out = dict(zip([o.name for o in step.get_outputs()],
                   step.run(None, held)))
    assert out["skipped"] == 0 and out["loss_scale"] == scale["calibrated"]
    err = max(np.linalg.norm(out[n] - r) / np.linalg.norm(r)
              for n, r in zip([o.name for o in ref.get_outputs()],
                              ref.run(None, held)) if n.startswith("grad."))
    print("calibrated scale", scale, "held-out worst", err, len(kept), "kept")
    assert err <= LIMITS["fp16"]


def test_cross_entropy_step_of_a_classifier(tmp_path):
    """A bwc-grad step with the cross-entropy loss (its options must not
    leak into the programs calibration compiles), a small trial budget: the
    report counts the trials, and untried contractions stay f32 and say
    so."""
    model = models.classifier_head()
    rng = np.random.default_rng(4)
    write_set(str(tmp_path / "cal"), {
        "x": rng.random((8, 3, 16, 16)).astype(np.float32),
        "target": rng.integers(0, 5, 8).astype(np.int64)})
    art = bwc.compile(model, train="grad", loss="cross-entropy",
                      precision="bf16", calibrate=[str(tmp_path / "cal")],
                      calibrate_trials=1)
    cal = art.report["calibration"]
    assert cal["trials"] == 1, cal
    reasons = [k["reason"] for k in cal["kept_f32"]]
    # One trial: everything low at once either passes (nothing kept) or
    # fails, and then nothing else is tried.
    assert all(r.startswith("validation: not tried") for r in reasons) or \
        not reasons, reasons


def test_calibrate_errors(tmp_path):
    model = models.forward_mlp(layers=2, batch=4, width=8)
    with pytest.raises(bwc.CompileError, match="--calibrate expects "
                       "--precision=fp16 or bf16"):
        bwc.compile(model, calibrate=[str(tmp_path)])
    with pytest.raises(bwc.CompileError, match="holds no test_data_set_"):
        bwc.compile(model, precision="fp16", calibrate=[str(tmp_path)])
    write_set(str(tmp_path / "wrong"), {"y": np.zeros((4, 8), np.float32)})
    with pytest.raises(bwc.CompileError, match="has no input_K.pb for "
                       "input 'x'"):
        bwc.compile(model, precision="fp16",
                    calibrate=[str(tmp_path / "wrong")])
