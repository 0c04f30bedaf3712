"""ONNX's own backend test runner (onnx.backend.test.BackendTest) over
bwc.backend, shared by the pytest module test_onnx_backend.py and by
`python3 test/python/onnx_backend.py [--write-expected FILE] [--markdown
docs/conformance.md]`, which runs every case, prints the figure, and
rewrites the expected-failure list with each failure's reason (the first
line of its error) or the figure's section of docs/conformance.md.

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


# Cases whose values come from a random generator: bwc's draws differ from
# the reference's by design (test/python/test_random_ops.py checks their
# distributions instead).
RANDOM_CASES = ("test_bernoulli", "test_training_dropout")
RANDOM_REASON = ("random: bwc's generator draws other values than the "
                 "reference's; tested by statistics in test_random_ops.py")

# Cases whose reference values contradict their own model (checked by hand
# against ONNX 1.12's generator, onnx/backend/test/case/node/*.py).
KNOWN_BAD_CASES = {
    "test_adam_multiple_cpu":
        "bad case: its expected X comes from epsilon=1e-2 but its node "
        "leaves epsilon at the default 1e-6 (adam.py export_adam_multiple); "
        "V and H match",
}

BEGIN, END = "<!-- BEGIN onnx-runner -->", "<!-- END onnx-runner -->"


def write_markdown(path, result, failures):
    """Puts this run's figure in `path` (docs/conformance.md) between the
    BEGIN/END markers, after the title; python/conformance.py keeps the
    block when it rewrites the rest."""
    import collections
    import datetime
    total = result.testsRun - len(result.skipped)
    kinds = collections.Counter()
    for reason in failures.values():
        if reason.startswith("random:"):
            kinds["random values (tested by statistics)"] += 1
        elif "unsupported operator" in reason:
            kinds["unsupported operator"] += 1
        elif "imports no version of the default ONNX domain" in reason:
            kinds["operator of another domain (training, preview)"] += 1
        elif "not a tensor" in reason or "STRING" in reason:
            kinds["string, sequence or optional types"] += 1
        elif "unsupported" in reason or "not supported" in reason:
            kinds["unsupported attribute or mode"] += 1
        else:
            kinds["other (see the list)"] += 1
    block = [BEGIN, "## ONNX's own runner through bwc.backend", "",
             "Measured %s with `PYTHONPATH=build/python /usr/bin/python3 "
             "test/python/onnx_backend.py --markdown docs/conformance.md` "
             "(ctest `python-onnx-backend` runs the same cases against "
             "test/python/onnx-backend-expected-failures.txt): "
             "`onnx.backend.test.BackendTest` (Debian's ONNX 1.12, its "
             "checks: exact dtype, the case's rtol/atol) over `bwc.backend` "
             "on the CPU target, every CPU case of libonnx-testdata except "
             "the downloading \"real\" ones." % datetime.date.today()
             .isoformat(), "",
             "**%d of %d** cases pass." % (total - len(failures), total), "",
             "| why the other %d fail | cases |" % len(failures),
             "|---|---|"]
    block += ["| %s | %d |" % (k, n) for k, n in kinds.most_common()]
    block += ["", "Every failing case and its reason: "
              "test/python/onnx-backend-expected-failures.txt.", END]
    text = open(path).read() if os.path.exists(path) else "# Conformance\n"
    begin, end = text.find(BEGIN), text.find(END)
    if begin >= 0 and end > begin:
        text = text[:begin] + "\n".join(block) + text[end + len(END):]
    else:
        title_end = text.find("\n\n") + 2 if "\n\n" in text else len(text)
        text = text[:title_end] + "\n".join(block) + "\n\n" + text[title_end:]
    with open(path, "w") as f:
        f.write(text)


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
        if name.startswith(RANDOM_CASES):
            failures[name] = RANDOM_REASON + " (" + failures[name] + ")"
        elif name in KNOWN_BAD_CASES:
            failures[name] = KNOWN_BAD_CASES[name] + " (" + failures[name] + ")"
    total = result.testsRun - len(result.skipped)
    print("%d cases, %d passed, %d failed, %d skipped" % (
        result.testsRun, total - len(failures), len(failures),
        len(result.skipped)))
    if "--markdown" in argv:
        write_markdown(argv[argv.index("--markdown") + 1], result, failures)
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
