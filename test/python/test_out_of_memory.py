"""Out-of-memory injection: the n-th host allocation of the runtime (the
CPU executor's buffers and arena, cuda-sim's device memory) fails, for
every n in turn. Each failure is a bwc.RuntimeError naming what was being
allocated and its size, frees everything allocated before it, and leaves
the runtime able to run again (docs/reliability.md)."""
import gc
import re

import numpy as np
import pytest
from onnx import TensorProto, helper

import bwc
from bwc import _runtime


def chain_model():
    """x + w -> Exp -> Neg -> y with two intermediates unfused."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [32, 32])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [32, 32])
    w = helper.make_tensor("w", TensorProto.FLOAT, [32],
                           np.linspace(-1, 1, 32).astype(np.float32))
    nodes = [helper.make_node("Add", ["x", "w"], ["a"]),
             helper.make_node("Exp", ["a"], ["b"]),
             helper.make_node("Neg", ["b"], ["y"])]
    graph = helper.make_graph(nodes, "g", [x], [y], initializer=[w])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


@pytest.mark.parametrize("target, device", [("cpu", "cpu"),
                                            ("cuda", "cuda-sim")])
def test_every_allocation_failure(target, device):
    artifact = bwc.compile(chain_model(), target=target, fusion="none")
    x = np.linspace(-1, 1, 32 * 32, dtype=np.float32).reshape(32, 32)
    want = -np.exp(x + np.linspace(-1, 1, 32, dtype=np.float32))
    gc.collect()
    live = _runtime.live_host_allocations()
    failures = []
    for n in range(1, 50):
        _runtime.fail_host_allocation(n)
        try:
            session = bwc.Session(artifact, device=device)
            (y,) = session.run(None, {"x": x})
        except bwc.RuntimeError as e:
            failures.append(str(e))
            assert re.match(r"cannot allocate \d+ bytes (on the GPU )?for "
                            r"(input 'x'|output 'y'|weight buffer \d+|the "
                            r"arena of intermediates): .*out of memory",
                            str(e)), str(e)
            gc.collect()
            assert _runtime.live_host_allocations() == live, \
                "allocation %d leaks" % n
            continue
        finally:
            _runtime.fail_host_allocation(0)
        np.testing.assert_allclose(y, want, rtol=1e-5)
        break
    else:
        pytest.fail("allocation failures never stop")
    # The arena, the input, the output and the weight, at least.
    assert len(failures) >= 4, failures
    del session
    gc.collect()
    assert _runtime.live_host_allocations() == live
    # And the runtime runs again, uninjected.
    (y,) = bwc.Session(artifact, device=device).run(None, {"x": x})
    np.testing.assert_allclose(y, want, rtol=1e-5)
