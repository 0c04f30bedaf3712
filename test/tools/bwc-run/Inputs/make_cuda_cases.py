"""Writes ONNX-style test cases for the CUDA model of cuda.test.

y = x * w + 1 with x f32 2x3 and w = 1..6.
  make_cuda_cases.py DIR   writes DIR/good (2 data sets) and DIR/wrong
"""
import os
import sys

import numpy as np
from onnx import numpy_helper

W = np.arange(1, 7, dtype=np.float32).reshape(2, 3)


def write_set(case, index, x, y):
    d = os.path.join(case, "test_data_set_%d" % index)
    os.makedirs(d, exist_ok=True)
    for name, array, tensor in (("input_0", x, "x"), ("output_0", y, "y")):
        with open(os.path.join(d, name + ".pb"), "wb") as f:
            f.write(numpy_helper.from_array(array, tensor).SerializeToString())


def main(root):
    rng = np.random.default_rng(1)
    for i in range(2):
        x = rng.standard_normal((2, 3)).astype(np.float32)
        write_set(os.path.join(root, "good"), i, x, x * W + 1)
    write_set(os.path.join(root, "wrong"), 0, x, x * W + 2)


if __name__ == "__main__":
    main(sys.argv[1])
