"""Random ops (RandomUniform, RandomNormal, their *Like forms, Bernoulli)
and training-mode Dropout, tested by their distributions: no two
generators agree on values, so ONNX's backend cases for them cannot pass
(test/python/onnx-backend-expected-failures.txt) and these tests check what
the ops promise instead, on the CPU and on cuda-sim:

- moments and a Kolmogorov-Smirnov distance against the distribution, with
  limits several standard errors wide (a fixed seed makes every run of the
  test draw the same values, so the test is deterministic);
- adjacent elements uncorrelated;
- a new draw every run of a session (the run counter, state "rng.counter"),
  the same draws from two sessions of one artifact, different draws for
  different seeds, and bit-identical uniform draws on both devices."""
import math
import os
import sys

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))

import bwc  # noqa: E402

DEVICES = ["cpu", "cuda-sim"]
SHAPE = [64, 256]
N = SHAPE[0] * SHAPE[1]


def model_of(nodes, inputs, outputs, opset=15):
    g = helper.make_graph(nodes, "random", inputs, outputs)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    onnx.checker.check_model(m)
    return m


def session(model, device):
    art = bwc.compile(model.SerializeToString(),
                      target="cuda" if device == "cuda-sim" else "cpu")
    return bwc.Session(art, device=device)


def uniform_model(seed=7.0, low=-2.0, high=3.0):
    return model_of(
        [helper.make_node("RandomUniform", [], ["y"], shape=SHAPE, low=low,
                          high=high, seed=seed)],
        [], [helper.make_tensor_value_info("y", TensorProto.FLOAT, SHAPE)])


def ks_distance(samples, cdf):
    """Kolmogorov-Smirnov statistic of `samples` against `cdf`."""
    x = np.sort(samples.astype(np.float64).ravel())
    n = len(x)
    f = np.array([cdf(v) for v in x])
    return max(np.max(np.arange(1, n + 1) / n - f),
               np.max(f - np.arange(0, n) / n))


# The KS distance of n uniform samples exceeds 1.63 / sqrt(n) with
# probability 1%.
KS_LIMIT = 1.63 / math.sqrt(N)


def check_fit(y, cdf, what):
    """KS distance to `cdf` under the 1% limit; neighbours uncorrelated."""
    d = ks_distance(y, cdf)
    print(f"{what}: KS distance {d:.4f} (limit {KS_LIMIT:.4f})")
    assert d < KS_LIMIT
    flat = y.ravel().astype(np.float64)
    assert abs(np.corrcoef(flat[:-1], flat[1:])[0, 1]) < 0.04


@pytest.mark.parametrize("device", DEVICES)
def test_random_uniform_distribution(device):
    (y,) = session(uniform_model(), device).run(None, {})
    assert y.shape == tuple(SHAPE) and y.dtype == np.float32
    assert y.min() >= -2.0 and y.max() < 3.0
    # Mean 0.5, variance 25 / 12; standard errors 0.011 and 0.016.
    assert abs(y.mean() - 0.5) < 0.06
    assert abs(y.var() - 25 / 12) < 0.08
    check_fit(y, lambda v: (v + 2.0) / 5.0, "uniform " + device)


@pytest.mark.parametrize("device", DEVICES)
def test_random_normal_distribution(device):
    m = model_of(
        [helper.make_node("RandomNormal", [], ["y"], shape=SHAPE, mean=1.0,
                          scale=2.0, seed=3.0)],
        [], [helper.make_tensor_value_info("y", TensorProto.FLOAT, SHAPE)])
    (y,) = session(m, device).run(None, {})
    assert np.all(np.isfinite(y))
    assert abs(y.mean() - 1.0) < 0.06
    assert abs(y.std() - 2.0) < 0.06
    check_fit(y, lambda v: 0.5 * (1 + math.erf((v - 1.0) / (2 * math.sqrt(2)))),
              "normal " + device)


@pytest.mark.parametrize("device", DEVICES)
def test_like_forms_take_shape_and_type(device):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT16, [8, 32])
    m = model_of(
        [helper.make_node("RandomUniformLike", ["x"], ["u"], seed=1.0),
         helper.make_node("RandomNormalLike", ["x"], ["n"], seed=2.0,
                          dtype=TensorProto.FLOAT)],
        [x], [helper.make_tensor_value_info("u", TensorProto.FLOAT16, [8, 32]),
              helper.make_tensor_value_info("n", TensorProto.FLOAT, [8, 32])])
    u, n = session(m, device).run(None, {"x": np.zeros((8, 32), np.float16)})
    assert u.dtype == np.float16 and u.shape == (8, 32)
    assert n.dtype == np.float32 and n.shape == (8, 32)
    assert u.min() >= 0 and u.max() <= 1 and len(np.unique(u)) > 100
    assert abs(n.mean()) < 0.3 and 0.8 < n.std() < 1.2


@pytest.mark.parametrize("device", DEVICES)
def test_bernoulli_frequencies(device):
    p = np.repeat(np.array([0.0, 0.1, 0.5, 0.9, 1.0], np.float32), 4096)
    m = model_of(
        [helper.make_node("Bernoulli", ["p"], ["y"], seed=5.0)],
        [helper.make_tensor_value_info("p", TensorProto.FLOAT, [p.size])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [p.size])])
    (y,) = session(m, device).run(None, {"p": p})
    assert set(np.unique(y)) <= {0.0, 1.0}
    freq = y.reshape(5, 4096).mean(axis=1)
    print(f"bernoulli {device}: {freq}")
    # Standard error at p = 0.5: 0.0078.
    np.testing.assert_allclose(freq, [0.0, 0.1, 0.5, 0.9, 1.0], atol=0.03)
    assert freq[0] == 0.0 and freq[4] == 1.0


def dropout_model(ratio, seed):
    g = helper.make_graph(
        [helper.make_node("Dropout", ["x", "r", "t"], ["y", "mask"], seed=int(seed))],
        "dropout",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, SHAPE)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, SHAPE),
         helper.make_tensor_value_info("mask", TensorProto.BOOL, SHAPE)],
        [helper.make_tensor("r", TensorProto.FLOAT, [], [ratio]),
         helper.make_tensor("t", TensorProto.BOOL, [], [True])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(m)
    return m


@pytest.mark.parametrize("device", DEVICES)
def test_training_dropout(device):
    x = np.random.default_rng(0).uniform(1, 2, SHAPE).astype(np.float32)
    s = session(dropout_model(0.3, 11), device)
    y, mask = s.run(None, {"x": x})
    assert mask.dtype == np.bool_
    dropped = 1 - mask.mean()
    print(f"dropout {device}: dropped {dropped:.4f} (ratio 0.3)")
    assert abs(dropped - 0.3) < 0.015
    np.testing.assert_array_equal(y[~mask], 0)
    np.testing.assert_allclose(y[mask], x[mask] / 0.7, rtol=1e-6)
    # The next run (a training step) drops a different mask.
    _, mask2 = s.run(None, {"x": x})
    assert (mask != mask2).mean() > 0.3


@pytest.mark.parametrize("device", DEVICES)
def test_runs_sessions_and_seeds(device):
    art_model = uniform_model(seed=7.0)
    s1 = session(art_model, device)
    (a1,) = s1.run(None, {})
    (a2,) = s1.run(None, {})
    assert not np.array_equal(a1, a2), "a second run must draw new values"
    (b1,) = session(art_model, device).run(None, {})
    np.testing.assert_array_equal(a1, b1)
    (c1,) = session(uniform_model(seed=8.0), device).run(None, {})
    assert (a1 != c1).mean() > 0.99


def test_devices_draw_the_same_uniform_values():
    (cpu,) = session(uniform_model(low=0.0, high=1.0), "cpu").run(None, {})
    (sim,) = session(uniform_model(low=0.0, high=1.0), "cuda-sim").run(None, {})
    np.testing.assert_array_equal(cpu, sim)


def test_run_counter_is_state():
    art = bwc.compile(uniform_model().SerializeToString())
    assert [o.name for o in art.outputs] == ["y"]


def test_dropout_in_a_training_step():
    """bwc-grad keeps the run counter's update next to the step's own, so
    every step drops a new mask; the CPU and cuda-sim drop the same one."""
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array(
        rng.standard_normal((16, 8)).astype(np.float32) * 0.3, "w")
    g = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["h"]),
         helper.make_node("Dropout", ["h", "r", "t"], ["y"], seed=4)], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 8])],
        [w, helper.make_tensor("r", TensorProto.FLOAT, [], [0.5]),
         helper.make_tensor("t", TensorProto.BOOL, [], [True])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    x = rng.standard_normal((4, 16)).astype(np.float32)
    feeds = {"x": x, "target": np.ones((4, 8), np.float32)}
    grads = {}
    for device in DEVICES:
        art = bwc.compile(m.SerializeToString(), train="grad", trainable="w",
                          target="cuda" if device == "cuda-sim" else "cpu")
        assert [o.name for o in art.outputs] == ["loss", "grad.w"]
        s = bwc.Session(art, device=device)
        grads[device] = [s.run(None, feeds)[1] for _ in range(2)]
        assert np.all(np.isfinite(grads[device][0]))
        assert not np.allclose(grads[device][0], grads[device][1])
    for a, b in zip(grads["cpu"], grads["cuda-sim"]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    # The ratio initializer matches the default --trainable (all float
    # initializers), but Dropout needs it as a constant: it stays one and
    # gets no gradient.
    art = bwc.compile(m.SerializeToString(), train="grad")
    assert [o.name for o in art.outputs] == ["loss", "grad.w"]
