"""Writes ONNX-style test cases for the model of bwc-run.test.

z = x * w + y (w = 1..6), npos = count(x > 0), x_out = x.
  make_cases.py DIR       writes DIR/{good,wrong,wrongint,nanout,badshape,missing}/,
                          DIR/x_1x3.pb and DIR/x_i64.pb
  make_cases.py --same A B  exits 1 unless two .pb files hold equal tensors
"""
import os
import sys

import numpy as np
from onnx import TensorProto, numpy_helper

W = np.arange(1, 7, dtype=np.float32).reshape(2, 3)


def write(path, array, name):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(array, name).SerializeToString())


def write_set(case, index, x, y, z=None, npos=None):
    d = os.path.join(case, "test_data_set_%d" % index)
    write(os.path.join(d, "input_0.pb"), x, "x")
    write(os.path.join(d, "input_1.pb"), y, "y")
    z = x * W + y if z is None else z
    npos = np.array([np.sum(x > 0)], np.int64) if npos is None else npos
    write(os.path.join(d, "output_0.pb"), z, "z")
    write(os.path.join(d, "output_1.pb"), npos, "npos")
    write(os.path.join(d, "output_2.pb"), x, "x_out")


def main(root):
    rng = np.random.default_rng(0)
    sets = [(rng.standard_normal((2, 3)).astype(np.float32),
             rng.standard_normal((2, 3)).astype(np.float32)) for _ in range(2)]
    nan_x = sets[0][0].copy()
    nan_x[0, 1] = np.nan
    sets.append((nan_x, sets[0][1]))
    for i, (x, y) in enumerate(sets):
        write_set(os.path.join(root, "good"), i, x, y)
    x, y = sets[0]
    # z off by 1% of its scale: fails the elementwise rule, passes L2 <= 0.5.
    write_set(os.path.join(root, "wrong"), 0, x, y, z=x * W + y + 0.05)
    # npos wrong (integers are exact).
    write_set(os.path.join(root, "wrongint"), 0, x, y,
              npos=np.array([99], np.int64))
    # NaN in the output where the reference is finite.
    write_set(os.path.join(root, "nanout"), 0, nan_x, y, z=x * W + y)
    write_set(os.path.join(root, "badshape"), 0, x, y,
              z=(x * W + y).reshape(3, 2))
    write_set(os.path.join(root, "missing"), 0, x, y)
    os.remove(os.path.join(root, "missing", "test_data_set_0", "output_1.pb"))
    write(os.path.join(root, "x_1x3.pb"), np.ones((1, 3), np.float32), "x")
    write(os.path.join(root, "x_i64.pb"), np.ones((2, 3), np.int64), "x")


def same(a, b):
    ta, tb = TensorProto(), TensorProto()
    ta.ParseFromString(open(a, "rb").read())
    tb.ParseFromString(open(b, "rb").read())
    na, nb = numpy_helper.to_array(ta), numpy_helper.to_array(tb)
    ok = na.dtype == nb.dtype and na.shape == nb.shape and np.allclose(
        na, nb, rtol=1e-6, atol=0, equal_nan=True)
    print("same" if ok else "different: %r vs %r" % (na, nb))
    return 0 if ok else 1


if __name__ == "__main__":
    if sys.argv[1] == "--same":
        sys.exit(same(sys.argv[2], sys.argv[3]))
    main(sys.argv[1])
