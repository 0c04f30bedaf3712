"""What the numpy-checked cases of these tests share: an array as an MLIR
dense literal, and a test_data_set_0 of .pb inputs and outputs."""
import os

import numpy as np
from onnx import numpy_helper


def lit(a):
    """`a` as the body of an MLIR dense<...> literal, exactly."""
    return np.array2string(a, separator=", ", threshold=1 << 30,
                           floatmode="unique").replace("\n", "")


def write_case(out, inputs, outputs):
    """DIR/test_data_set_0 with input_i.pb and output_i.pb, each (name,
    array) in order."""
    d = os.path.join(out, "test_data_set_0")
    os.makedirs(d, exist_ok=True)
    for kind, pairs in (("input", inputs), ("output", outputs)):
        for i, (name, a) in enumerate(pairs):
            with open(os.path.join(d, f"{kind}_{i}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(a, name).SerializeToString())
