"""ONNX's official backend runner over bwc.backend (the CPU target): every
CPU case of Debian's libonnx-testdata except the "real" ones, which
download their models. A case on onnx-backend-expected-failures.txt is an
expected failure, so one that starts passing fails this run (unexpected
success) until it is taken off the list; a case off the list that fails
fails the run. docs/conformance.md has the figure."""
import onnx_backend

globals().update(onnx_backend.test_cases(__name__,
                                         onnx_backend.read_expected()))
