#!/usr/bin/python3
"""Regenerates the compiler fuzz targets' seed corpora (test/fuzz/corpus).

  corpus/onnx  (targets onnx and modelproto)
    - one ONNX backend test model per operator type (libonnx-testdata's
      node tests, the smallest case of each op, at most 8 KiB);
    - from each real model of ../shared/models, the part of the graph up
      to its 8th computing node (onnx.utils.Extractor: that node and its
      ancestors, constants included) with the inputs' dynamic dims fixed,
      so that a seed compiles in well under a second; prefixes over 64 KiB
      are skipped.
  corpus/mlir  (target mlir)
    - the bwc-dialect programs of the lit tests under test/ that
      bwc-compile compiles as they are, with their RUN/CHECK comments
      stripped;
    - each ONNX seed as bwc-opt imports it, when that program compiles.
  onnx.dict, mlir.dict: the targets' dictionaries.

Usage: /usr/bin/python3 test/fuzz/make_seeds.py [BUILD_DIR]
"""
import glob
import hashlib
import os
import re
import subprocess
import sys
import tempfile

import onnx
from onnx import utils

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
NODE_TESTS = "/usr/share/libonnx-testdata/data/node"
MODELS = os.path.join(ROOT, "..", "shared", "models")
# The dynamic dims of the real models' inputs, by axis (the rest become 1).
SEED_DIMS = {"ppocr_cls": {2: 48, 3: 64}, "ppocr_det": {2: 32, 3: 32},
             "ppocr_rec": {2: 48, 3: 64}, "oww_melspec": {1: 1600}}
# A seed above this (oww_melspec's prefix holds its 1 MiB STFT basis) would
# raise libFuzzer's -max_len for every input and slow each mutation.
MAX_PREFIX = 64 * 1024


def write(folder, name, data):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


def onnx_seeds(out):
    best = {}
    for path in sorted(glob.glob(os.path.join(NODE_TESTS, "*", "model.onnx"))):
        size = os.path.getsize(path)
        if size > 8192:
            continue
        m = onnx.load(path)
        if not m.graph.node:
            continue
        op = m.graph.node[0].op_type
        if op not in best or size < best[op][0]:
            best[op] = (size, path)
    for op, (size, path) in sorted(best.items()):
        with open(path, "rb") as f:
            write(out, "node-" + os.path.basename(os.path.dirname(path)), f.read())
    for model in sorted(glob.glob(os.path.join(MODELS, "*", "model.onnx"))):
        name = os.path.basename(os.path.dirname(model))
        m = onnx.load(model)
        for inp in m.graph.input:
            dims = inp.type.tensor_type.shape.dim
            for i, d in enumerate(dims):
                if not d.HasField("dim_value"):
                    d.dim_value = SEED_DIMS.get(name, {}).get(i, 1)
        m = onnx.shape_inference.infer_shapes(m)
        compute = [n for n in m.graph.node if n.op_type != "Constant"]
        outputs = [compute[min(8, len(compute)) - 1].output[0]]
        inputs = [i.name for i in m.graph.input]
        with tempfile.TemporaryDirectory() as tmp:
            full = os.path.join(tmp, "m.onnx")
            onnx.save(m, full)
            part = os.path.join(tmp, "p.onnx")
            utils.extract_model(full, part, inputs, outputs)
            with open(part, "rb") as f:
                data = f.read()
        if len(data) > MAX_PREFIX:
            print("skipped %s: its prefix has %d bytes" % (name, len(data)))
            continue
        write(out, "model-%s-prefix" % name, data)


def mlir_seeds(out, build):
    compiler = os.path.join(build, "bin", "bwc-compile")
    for path in sorted(glob.glob(os.path.join(ROOT, "test", "**", "*.mlir"),
                                 recursive=True)):
        text = open(path).read()
        if "func.func @main" not in text or "bwc." not in text:
            continue
        body = "\n".join(l for l in text.splitlines()
                         if not l.lstrip().startswith("//"))
        body = body.split("// -----")[0].strip() + "\n"
        if len(body) > 6000 or "-----" in body:
            continue
        with tempfile.NamedTemporaryFile("w", suffix=".mlir") as f:
            f.write(body)
            f.flush()
            r = subprocess.run([compiler, f.name, "-o", "/dev/null"],
                               capture_output=True, timeout=60)
        if r.returncode != 0:
            continue
        rel = os.path.relpath(path, os.path.join(ROOT, "test"))
        write(out, re.sub(r"[^A-Za-z0-9.-]", "-", rel), body.encode())


def imported_seeds(onnx_dir, out, build):
    """Each ONNX seed as bwc-opt imports it, when that program compiles."""
    opt = os.path.join(build, "bin", "bwc-opt")
    compiler = os.path.join(build, "bin", "bwc-compile")
    for path in sorted(glob.glob(os.path.join(onnx_dir, "*"))):
        with tempfile.TemporaryDirectory() as tmp:
            model = os.path.join(tmp, "m.onnx")
            with open(path, "rb") as f, open(model, "wb") as g:
                g.write(f.read())
            r = subprocess.run([opt, model], capture_output=True, timeout=60)
            if r.returncode != 0 or len(r.stdout) > 6000:
                continue
            text = os.path.join(tmp, "m.mlir")
            with open(text, "wb") as g:
                g.write(r.stdout)
            r2 = subprocess.run([compiler, text, "-o", "/dev/null"],
                                capture_output=True, timeout=60)
            if r2.returncode == 0:
                write(out, "import-" + os.path.basename(path) + ".mlir",
                      r.stdout)


def dictionaries():
    """onnx.dict: every ONNX operator type and attribute name of the
    schemas; mlir.dict: the bwc dialect's op names and the type and
    attribute syntax its programs use."""
    ops, attrs = set(), set()
    for schema in onnx.defs.get_all_schemas_with_history():
        if schema.domain in ("", "ai.onnx"):
            ops.add(schema.name)
            attrs.update(schema.attributes)
    with open(os.path.join(HERE, "onnx.dict"), "w") as f:
        f.write("# ONNX operator types and attribute names (generated by "
                "make_seeds.py from onnx.defs)\n")
        for w in sorted(ops | attrs):
            f.write('"%s"\n' % w)
    td = open(os.path.join(ROOT, "include", "bwc", "Dialect", "BWC", "IR",
                           "BWCOps.td")).read()
    names = sorted(set(re.findall(r'BWC_Op<"([a-z_0-9.]+)"', td)))
    words = ["bwc." + n for n in names] + [
        "func.func @main(", "return ", "tensor<", "xf32>", "xf16>", "xbf16>",
        "xi64>", "xi32>", "xi1>", "xi8>", "f32", "f16", "bf16", "i64",
        " : (", ") -> ", "{bwc.name = ", "axes = [", "keepdims = true",
        "dense<", "0x", "%0", "%arg0", "add", "sub", "mul", "div", "max",
        "exp", "tanh", "sum", "mean", "strides = [", "pads = [",
        "dilations = [", "group = ", "perm = [", "?x", "0x", "-1",
        "{bwc.if_both_branches}"]
    with open(os.path.join(HERE, "mlir.dict"), "w") as f:
        f.write("# bwc dialect op names and IR syntax (generated by "
                "make_seeds.py from BWCOps.td)\n")
        for w in words:
            f.write('"%s"\n' % w.replace('"', '\\"'))


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build")
    onnx_seeds(os.path.join(HERE, "corpus", "onnx"))
    mlir_seeds(os.path.join(HERE, "corpus", "mlir"), build)
    imported_seeds(os.path.join(HERE, "corpus", "onnx"),
                   os.path.join(HERE, "corpus", "mlir"), build)
    dictionaries()


if __name__ == "__main__":
    main()
