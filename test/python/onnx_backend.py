"""ONNX's own backend test runner (onnx.backend.test.BackendTest) over
bwc.backend, shared by the pytest module test_onnx_backend.py and by
`python3 test/python/onnx_backend.py --write-expected FILE`, which runs
every case and rewrites the expected-failure list with each failure's
reason (the first line of its error).

The suite is every CPU case Debian's libonnx-testdata ships (node,
pytorch-converted, pytorch-operator, simple); the "real" cases download
their models and are left out. Debian's runner (ONNX 1.12) compares with
np.object, which numpy 1.24 removed: assert_similar_outputs is replaced by
the same checks (exact dtype, numpy.testing.assert_allclose with the case's
rtol and atol, exact equality for object arrays).
"""
import os
import sys
import unittest

import numpy as np
import onnx.backend.test

import bwc.backend

HERE = os.path.dirname(os.path.abspath(__file__))
EXPECTED = os.path.join(HERE, "onnx-backend-expected-failures.txt")
KINDS = ["OnnxBackendNodeModelTest", "OnnxBackendSimpleModelTest",
         "OnnxBackendPyTorchConvertedModelTest",
         "OnnxBackendPyTorchOperatorModelTest"]


class Runner(onnx.backend.test.BackendTest):
    @classmethod
    def assert_similar_outputs(cls, ref_outputs, outputs, rtol, atol):
        np.testing.assert_equal(len(outputs), len(ref_outputs))
        for ref, out in zip(ref_outputs, outputs):
            if isinstance(out, (list, tuple)):
                cls.assert_similar_outputs(ref, out, rtol, atol)
                continue
            np.testing.assert_equal(out.dtype, ref.dtype)
            if ref.dtype == object:
                np.testing.assert_array_equal(out, ref)
            else:
                np.testing.assert_allclose(out, ref, rtol=rtol, atol=atol)


def read_expected(path=EXPECTED):
    """{test name: reason} from the list (name, spaces, reason)."""
    expected = {}
    if os.path.exists(path):
        for line in open(path):
            line = line.strip()
            if line and not line.startswith("#"):
                name, _, reason = line.partition(" ")
                expected[name] = reason.strip()
    return expected


def test_cases(module_name, expected=None):
    """The unittest classes, with the listed cases marked expectedFailure."""
    runner = Runner(bwc.backend, module_name)
    runner.include(r".*_cpu$")
    for name in sorted(expected or {}):
        runner.xfail("^%s$" % name)
    cases = runner.test_cases
    # The runner skips rather than drops the CUDA variants; drop them.
    for cls in cases.values():
        for name in [n for n in vars(cls) if n.endswith("_cuda")]:
            delattr(cls, name)
    return {k: cases[k] for k in KINDS if k in cases}


def first_line(text):
    for line in text.splitlines():
        if "error:" in line:
            return line.split("error: ", 1)[-1].strip()
    lines = [l.strip() for l in text.strip().splitlines() if l.strip()]
    return lines[-1] if lines else "failed"


def main(argv):
    """Runs every case; with --write-expected FILE writes the failures."""
    classes = test_cases("__main__")
    suite = unittest.TestSuite()
    for cls in classes.values():
        suite.addTests(unittest.defaultTestLoader.loadTestsFromTestCase(cls))
    result = unittest.TextTestRunner(stream=open(os.devnull, "w"),
                                     verbosity=0).run(suite)
    failures = {}
    for test, trace in result.failures + result.errors:
        name = test.id().rsplit(".", 1)[-1]
        failures[name] = first_line(trace)
    total = result.testsRun - len(result.skipped)
    print("%d cases, %d passed, %d failed, %d skipped" % (
        result.testsRun, total - len(failures), len(failures),
        len(result.skipped)))
    if "--write-expected" in argv:
        path = argv[argv.index("--write-expected") + 1]
        with open(path, "w") as f:
            f.write("# ONNX backend cases (onnx.backend.test through "
                    "bwc.backend, CPU) that do not pass,\n# with the reason: "
                    "the first line of the failure. Rewritten by\n# "
                    "`python3 test/python/onnx_backend.py --write-expected "
                    "FILE`.\n")
            for name in sorted(failures):
                f.write("%s %s\n" % (name, failures[name].replace("\n", " ")))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
