#!/usr/bin/python3
"""Writes one model folder per external-data case under OUT, each with
model.onnx holding y = x + W, W (4 floats) stored as external data:

  ok/                a valid weights.bin in the folder
  cve-2022-25882/    location ../../../../etc/passwd
  cve-2024-27318/    location subdir/../../secret.bin (subdir exists)
  absolute/          location /etc/passwd
  symlink/           weights.bin -> ../secret.bin
  symlink-dir/       d/weights.bin with d -> .. (a folder link)
  hardlink/          weights.bin hard-linked to ../secret.bin
  fifo/              weights.bin is a FIFO (must not hang)
  range/             offset past the end of weights.bin
  malformed/         offset "12abc"

OUT/secret.bin holds 16 bytes outside every model folder.
Usage: make_external_data_attacks.py OUT
"""
import os
import sys

import numpy as np
import onnx
from onnx import helper, TensorProto


def model(location, offset=None):
    w = TensorProto()
    w.name, w.data_type = "W", TensorProto.FLOAT
    w.dims.append(4)
    w.data_location = TensorProto.EXTERNAL
    entries = [("location", location)]
    if offset is not None:
        entries.append(("offset", offset))
    for k, v in entries:
        e = w.external_data.add()
        e.key, e.value = k, v
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])
    g = helper.make_graph([helper.make_node("Add", ["x", "W"], ["y"])], "g",
                          [x], [y], initializer=[w])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])


def case(out, name, location, offset=None, setup=None):
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    if setup:
        setup(d)
    with open(os.path.join(d, "model.onnx"), "wb") as f:
        f.write(model(location, offset).SerializeToString())


def main(out):
    os.makedirs(out, exist_ok=True)
    secret = os.path.join(out, "secret.bin")
    np.arange(4, dtype=np.float32).tofile(secret)
    weights = lambda d: np.ones(4, np.float32).tofile(
        os.path.join(d, "weights.bin"))
    case(out, "ok", "weights.bin", setup=weights)
    case(out, "cve-2022-25882", "../../../../etc/passwd")
    case(out, "cve-2024-27318", "subdir/../../secret.bin",
         setup=lambda d: os.makedirs(os.path.join(d, "subdir"), exist_ok=True))
    case(out, "absolute", "/etc/passwd")
    case(out, "symlink", "weights.bin",
         setup=lambda d: os.symlink("../secret.bin",
                                    os.path.join(d, "weights.bin")))
    case(out, "symlink-dir", "d/secret.bin",
         setup=lambda d: os.symlink("..", os.path.join(d, "d")))
    case(out, "hardlink", "weights.bin",
         setup=lambda d: os.link(secret, os.path.join(d, "weights.bin")))
    case(out, "fifo", "weights.bin",
         setup=lambda d: os.mkfifo(os.path.join(d, "weights.bin")))
    case(out, "range", "weights.bin", offset="64", setup=weights)
    case(out, "malformed", "weights.bin", offset="12abc", setup=weights)


if __name__ == "__main__":
    main(sys.argv[1])
