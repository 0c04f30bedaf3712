"""python/plot_report.py: the before/after chart from a compile's report,
with the roofline of bench (measured) and cuda-sim profile (estimated)
times; a PNG is written and the totals line names both sides."""
import json
import os
import subprocess

import numpy as np
from onnx import helper, TensorProto

import bwc
from conftest import ROOT

PLOT = os.path.join(ROOT, "python", "plot_report.py")
BIN = os.path.join(os.path.dirname(os.environ["PYTHONPATH"].split(
    os.pathsep)[0]), "bin")


def model():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [256, 256])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [256, 256])
    nodes = [helper.make_node("Exp", ["x"], ["a"]),
             helper.make_node("Neg", ["a"], ["b"]),
             helper.make_node("ReduceMax", ["b"], ["m"], axes=[1]),
             helper.make_node("Sub", ["b", "m"], ["y"])]
    return helper.make_model(helper.make_graph(nodes, "g", [x], [y]),
                             opset_imports=[helper.make_opsetid("", 13)])


def plot(tmp_path, *args):
    out = tmp_path / "chart.png"
    r = subprocess.run(["/usr/bin/python3", PLOT, *map(str, args), str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert out.stat().st_size > 10000
    return r.stdout


def test_chart_and_rooflines(tmp_path):
    report = tmp_path / "report.json"
    cpu = bwc.compile(model())
    report.write_text(json.dumps(cpu.report))
    text = plot(tmp_path, report)
    assert "4 -> 1 kernels" in text
    cpu.save(tmp_path / "m.bwc")
    bench = tmp_path / "bench.json"
    subprocess.run([os.path.join(BIN, "bwc-run"), str(tmp_path / "m.bwc"),
                    "--bench", "3", "--peak-gbps", "20", "--json",
                    str(bench)], check=True, capture_output=True)
    assert "4 -> 1 kernels" in plot(tmp_path, report, "--times", bench)
    cuda = bwc.compile(model(), target="cuda", fusion="none")
    cuda.save(tmp_path / "g.bwc")
    bwc.write_tensor(tmp_path / "x.pb", np.ones((256, 256), np.float32))
    profile = tmp_path / "profile.json"
    subprocess.run([os.path.join(BIN, "bwc-run"), str(tmp_path / "g.bwc"),
                    "--device=cuda-sim", "--profile", "--input",
                    "x=%s" % (tmp_path / "x.pb"), "--json", str(profile)],
                   check=True, capture_output=True)
    assert json.loads(profile.read_text())["kernels"][0]["estimate_us"] > 0
    report.write_text(json.dumps(cuda.report))
    assert "4 -> 4 kernels" in plot(tmp_path, report, "--times", profile)
