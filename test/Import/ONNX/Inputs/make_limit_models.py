#!/usr/bin/python3
"""Writes one model per import limit (bwc/Import/ONNX/Importer.h,
ImportLimits) just past it, into OUT:

  input-rank.onnx      an input of rank 17
  input-elements.onnx  an input of 2^90 elements (the product overflows)
  init-rank.onnx       an initializer of rank 17
  init-elements.onnx   an initializer declaring 2^40 elements with 4 bytes
  init-data.onnx       an initializer declaring 8 floats with 4 bytes
  result-elements.onnx Expand to 2^20 x 2^20 (a node result past the limit)
  nodes.onnx           1,048,577 Identity nodes
  depth.onnx           If bodies nested 17 deep

Usage: make_limit_models.py OUT
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper


def save(path, graph, opset=13):
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    with open(path, "wb") as f:
        f.write(m.SerializeToString())


def vi(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def relu(shape):
    return helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g",
                             [vi("x", shape)], [vi("y", shape)])


def with_init(init):
    return helper.make_graph([helper.make_node("Add", ["x", "w"], ["y"])], "g",
                             [vi("x", [4])], [vi("y", None)],
                             initializer=[init])


def raw_init(dims, data):
    t = TensorProto()
    t.name, t.data_type = "w", TensorProto.FLOAT
    t.dims.extend(dims)
    t.raw_data = data
    return t


def nested_if(depth):
    """An If whose then-branch holds an If ... `depth` graphs deep."""
    body = helper.make_graph([helper.make_node("Identity", ["x"], ["y0"])],
                             "leaf", [], [vi("y0", [4])])
    for k in range(depth):
        node = helper.make_node("If", ["c"], ["y%d" % (k + 1)],
                                then_branch=body, else_branch=body)
        body = helper.make_graph([node], "level%d" % k, [],
                                 [vi("y%d" % (k + 1), [4])])
    return body.node[0]


def main(out):
    os.makedirs(out, exist_ok=True)
    save(os.path.join(out, "input-rank.onnx"), relu([1] * 17))
    save(os.path.join(out, "input-elements.onnx"), relu([1 << 30] * 3))
    save(os.path.join(out, "init-rank.onnx"),
         with_init(raw_init([1] * 17, b"\0" * 4)))
    save(os.path.join(out, "init-elements.onnx"),
         with_init(raw_init([1 << 20, 1 << 20], b"\0" * 4)))
    save(os.path.join(out, "init-data.onnx"),
         with_init(raw_init([8], b"\0" * 4)))
    shape = numpy_helper.from_array(np.array([1 << 20, 1 << 20], np.int64), "s")
    save(os.path.join(out, "result-elements.onnx"), helper.make_graph(
        [helper.make_node("Expand", ["x", "s"], ["y"])], "g",
        [vi("x", [1])], [vi("y", None)], initializer=[shape]))
    g = helper.make_graph([], "g", [vi("x", [4])], [vi("y", [4])])
    prev = "x"
    for k in range((1 << 20) + 1):
        name = "y" if k == 1 << 20 else "t%d" % k
        n = g.node.add()
        n.op_type = "Identity"
        n.input.append(prev)
        n.output.append(name)
        prev = name
    save(os.path.join(out, "nodes.onnx"), g)
    cond = helper.make_tensor_value_info("c", TensorProto.BOOL, [])
    save(os.path.join(out, "depth.onnx"), helper.make_graph(
        [nested_if(17)], "g", [cond, vi("x", [4])], [vi("y17", [4])]))


if __name__ == "__main__":
    main(sys.argv[1])
