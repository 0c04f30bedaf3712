#!/usr/bin/python3
"""Writes the small binary ONNX models the importer's lit tests read
(test/Import/ONNX/Inputs/). Run from the repository root."""
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = "test/Import/ONNX/Inputs/"


def mlp():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 8])
    w = numpy_helper.from_array(
        np.arange(64, dtype=np.float32).reshape(8, 8), "w")
    b = numpy_helper.from_array(np.ones(8, dtype=np.float32), "b")
    g = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["h"], name="mm"),
         helper.make_node("Add", ["h", "b"], ["a"], name="add"),
         helper.make_node("Relu", ["a"], ["y"], name="relu")],
        "mlp", [x], [y], [w, b])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(m)
    return m


def main():
    m = mlp()
    onnx.save(m, OUT + "mlp_dynamic_batch.onnx")
    # The same model with its weights in an external data file.
    onnx.save(m, OUT + "mlp_external.onnx", save_as_external_data=True,
              all_tensors_to_one_file=True, location="mlp_external.data",
              size_threshold=0)


if __name__ == "__main__":
    main()
