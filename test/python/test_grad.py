"""bwc-grad's gradients (--train=grad) against central finite differences
of the loss along random directions (python/grad_check.py: the fp32 step's
gradients, the losses of the same step compiled in float64), on the CPU
target and on cuda-sim; and a training step under --memory-budget.
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


@pytest.mark.skipif(not os.path.exists(PPOCR_CLS),
                    reason="needs ../shared/models")
def test_ppocr_cls_batch_64():
    # 53 convolutions (depthwise 3x3 and 5x5 at strides (2,1) and 1, 1x1),
    # BatchNormalization, HardSwish, squeeze-excite, MaxPool, MatMul,
    # Softmax: 213 parameters. ReLU/clip kinks are dense at this size, so
    # the step is 1e-8 (float64 losses resolve it).
    grads = check(PPOCR_CLS, {"x": [64, 3, 48, 192]}, "cross-entropy",
                  eps=1e-8, directions=2)
    assert len(grads) == 213


@pytest.mark.skipif(not os.path.exists(PPOCR_CLS),
                    reason="needs ../shared/models")
def test_ppocr_cls_cuda_sim():
    check(PPOCR_CLS, {"x": [2, 3, 48, 192]}, "cross-entropy",
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
    with pytest.raises(bwc.CompileError, match="not implemented yet"):
        bwc.compile(model, train="adam:0.001")
    # Only the selected parameters get gradients.
    art = bwc.compile(model, train="grad", trainable="w[0-3]")
    names = [o.name for o in art.outputs]
    assert names == ["loss"] + ["grad.w%d" % i for i in range(4)]
