"""Writes DIR/test_data_set_0 for precision.mlir: x (f32, 4x64, seeded
uniform in [-1, 1]) and the f32 reference y = x @ w with w = 0.5 everywhere, the constant
of precision.mlir."""
import os
import sys

import numpy as np
from onnx import numpy_helper

d = os.path.join(sys.argv[1], "test_data_set_0")
os.makedirs(d, exist_ok=True)
x = np.random.default_rng(7).uniform(-1, 1, (4, 64)).astype(np.float32)
w = np.full((64, 8), 0.5, np.float32)
for name, a in (("input_0", x), ("output_0", x @ w)):
    t = numpy_helper.from_array(a, "x" if name == "input_0" else "y")
    with open(os.path.join(d, name + ".pb"), "wb") as f:
        f.write(t.SerializeToString())
