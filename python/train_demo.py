#!/usr/bin/python3
"""The data and the scoring of scripts/train-demo.sh (docs/training.md).

  train_demo.py data OUT_DIR [--samples N] [--seed S]
      Writes a synthetic 3-class task, three interleaved spiral arms in 2-D
      (not linearly separable), and an MLP classifier 2 -> 32 -> 32 -> 3
      (tanh) with random initializers: OUT_DIR/model.onnx, x.pb (N x 2
      f32), labels.pb (N i64).
  train_demo.py accuracy TRAINED_MODEL DATA_DIR [--min A]
      Checks the trained model (bwc-run --save-weights OUT.onnx) with
      ONNX's checker, counts the initializers that differ from
      DATA_DIR/model.onnx's, compiles it for inference with bwc, runs it on
      the training data and on a held-out set (the same arms, other noise)
      and prints both accuracies; exits 1 when the held-out one is below
      --min.
"""
import argparse
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def spirals(n, seed):
    rng = np.random.default_rng(seed)
    per = n // 3
    xs, ys = [], []
    for c in range(3):
        r = np.linspace(0.1, 1.0, per)
        t = np.linspace(c * 2 * np.pi / 3, c * 2 * np.pi / 3 + 1.6 * np.pi,
                        per) + rng.normal(0, 0.12, per)
        xs.append(np.stack([r * np.sin(t), r * np.cos(t)], axis=1))
        ys.append(np.full(per, c))
    x, y = np.concatenate(xs), np.concatenate(ys)
    order = rng.permutation(len(y))
    return x[order].astype(np.float32), y[order].astype(np.int64)


def model(n, seed, hidden=32):
    rng = np.random.default_rng(seed + 1)
    sizes = [2, hidden, hidden, 3]
    inits, nodes, h = [], [], "x"
    for i in range(3):
        w = (rng.standard_normal((sizes[i], sizes[i + 1])) /
             np.sqrt(sizes[i])).astype(np.float32)
        inits += [numpy_helper.from_array(w, f"fc{i}.weight"),
                  numpy_helper.from_array(np.zeros(sizes[i + 1], np.float32),
                                          f"fc{i}.bias")]
        nodes += [helper.make_node("MatMul", [h, f"fc{i}.weight"], [f"m{i}"]),
                  helper.make_node("Add", [f"m{i}", f"fc{i}.bias"],
                                   ["logits" if i == 2 else f"a{i}"])]
        if i < 2:
            nodes.append(helper.make_node("Tanh", [f"a{i}"], [f"h{i}"]))
            h = f"h{i}"
    g = helper.make_graph(
        nodes, "spiral_mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [n, 2])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [n, 3])],
        inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(m)
    return m


def write_data(out, n, seed):
    os.makedirs(out, exist_ok=True)
    x, y = spirals(n, seed)
    onnx.save(model(len(y), seed), os.path.join(out, "model.onnx"))
    # A held-out set: the same arms, other noise.
    xt, yt = spirals(n, seed + 100)
    for name, a in (("x", x), ("labels", y), ("x_test", xt),
                    ("labels_test", yt)):
        with open(os.path.join(out, name + ".pb"), "wb") as f:
            f.write(numpy_helper.from_array(a, name).SerializeToString())
    print("wrote %d samples of 3 spiral classes and an MLP to %s" %
          (len(y), out))


def read(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


def accuracy(model_path, data, minimum):
    import bwc
    m = onnx.load(model_path)
    onnx.checker.check_model(m)
    before = {i.name: numpy_helper.to_array(i) for i in
              onnx.load(os.path.join(data, "model.onnx")).graph.initializer}
    trained = sum(not np.array_equal(numpy_helper.to_array(i),
                                     before[i.name])
                  for i in m.graph.initializer)
    session = bwc.Session(bwc.compile(m))
    scores = {}
    for split, suffix in (("training", ""), ("held-out", "_test")):
        x = read(os.path.join(data, "x%s.pb" % suffix))
        y = read(os.path.join(data, "labels%s.pb" % suffix))
        logits = session.run(None, {"x": x})[0]
        scores[split] = float(np.mean(np.argmax(logits, axis=1) == y))
        print("%s accuracy %.4f on %d samples (%d trained parameters)" %
              (split, scores[split], len(y), trained))
    return 0 if scores["held-out"] >= minimum else 1


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("data")
    d.add_argument("out")
    d.add_argument("--samples", type=int, default=300)
    d.add_argument("--seed", type=int, default=0)
    a = sub.add_parser("accuracy")
    a.add_argument("model")
    a.add_argument("data")
    a.add_argument("--min", type=float, default=0.0)
    args = p.parse_args()
    if args.cmd == "data":
        write_data(args.out, args.samples, args.seed)
        return 0
    return accuracy(args.model, args.data, args.min)


if __name__ == "__main__":
    sys.exit(main())
