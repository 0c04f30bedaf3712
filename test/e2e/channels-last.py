"""channels_last bwc.conv / bwc.pool against their channels-first selves.

For each case, two programs with the same NCHW input and output: the
channels-first op, and bwc.transpose to NHWC -> the channels_last op (its
filter constant already in [K..., C/groups, F] order) -> bwc.transpose
back. Both are compiled with each --codegen (linalg, elemental), run by
bwc-run on the same seeded input, and must agree at relative L2 <= 1e-5
(the channels_last loops sum channels in another order, so the bits may
differ). A negative control per codegen compiles a direct conv whose
filter is permuted wrongly (kernel dims swapped) and expects the
comparison to fail, so a layout mistake cannot pass unseen.

When bwc-compile has --layout (bwc-select-layout), the reference is
compiled with --layout=nchw and the channels-first program is also
compiled with --layout=nhwc and compared the same way.

The convolutions with groups 1 are also compiled with --codegen=elemental
--elemental-conv=gemm (every one summed through its implicit-GEMM view,
GemmView, the mapping the CUDA contraction driver stages), both programs
and --layout=nhwc, against the direct elemental reference.

Usage: channels-last.py BIN_DIR [--keep DIR]
"""
import math
import os
import subprocess
import sys
import tempfile

import numpy as np
from onnx import TensorProto, numpy_helper

TOLERANCE = 1e-5


def window_out(n, k, s, d, pb, pe, ceil):
    # As ShapeUtils' windowOutputSize (ceil_mode: last window starts inside).
    avail = n + pb + pe - (d * (k - 1) + 1)
    out = (-(-avail // s) if ceil else avail // s) + 1
    if ceil and (out - 1) * s >= n + pb:
        out -= 1
    return out


def ttype(shape):
    return "tensor<" + "x".join(str(d) for d in shape) + "xf32>"


def dense(a):
    return "dense<" + np.array2string(
        a, separator=", ", threshold=sys.maxsize, floatmode="unique",
        max_line_width=sys.maxsize).replace("\n", "") + "> : " + ttype(a.shape)


def cl(shape):
    """NCHW shape or array -> NHWC."""
    return [shape[0]] + list(shape[2:]) + [shape[1]]


def to_last(rank):
    return [0] + list(range(2, rank)) + [1]


def to_first(rank):
    return [0, rank - 1] + list(range(1, rank - 1))


def conv_case(rng, name, x, f_shape, groups, strides, dilations, pads,
              bias=True, transposed=False, output_padding=None, relu_pool=False):
    """A conv (optionally + relu + 2x2 max pool) as channels-first and
    channels-last programs; returns (x, first_text, last_text, bad_text)."""
    rank = len(x)
    sp = rank - 2
    w = rng.uniform(-1, 1, f_shape).astype(np.float32)
    f = f_shape[1] * groups if transposed else f_shape[0]
    b = rng.uniform(-1, 1, (f,)).astype(np.float32)
    out = [x[0], f]
    for i in range(sp):
        k = f_shape[2 + i]
        if transposed:
            op = output_padding[i] if output_padding else 0
            out.append(strides[i] * (x[2 + i] - 1) + op + (k - 1) * dilations[i]
                       + 1 - pads[i] - pads[sp + i])
        else:
            out.append(window_out(x[2 + i], k, strides[i], dilations[i],
                                  pads[i], pads[sp + i], False))
    attrs = (f"strides = {list(strides)} dilations = {list(dilations)} "
             f"pads = {list(pads)} groups = {groups}")
    extra = []
    if transposed:
        extra.append("transposed")
        if output_padding:
            extra.append(f"output_padding = array<i64: {', '.join(map(str, output_padding))}>")
    pool_out = out[:2] + [window_out(n, 2, 2, 1, 0, 0, False) for n in out[2:]]
    filter_perm = list(range(2, rank)) + [1, 0]

    def program(last, wperm):
        wt = np.transpose(w, wperm) if last else w
        lines = [f'func.func @main(%x: {ttype(x)} {{bwc.name = "x"}}) -> '
                 f'({ttype(pool_out if relu_pool else out)} {{bwc.name = "y"}}) {{',
                 f"  %w = bwc.constant {dense(wt)}"]
        operands = "%w"
        if bias:
            lines.append(f"  %b = bwc.constant {dense(b)}")
            operands += ", %b"
        xin, o = ("%x", out)
        attr = ", ".join(extra + (["channels_last"] if last else []))
        attr = f" {{{attr}}}" if attr else ""
        if last:
            lines.append(f"  %t = bwc.transpose %x perm = {to_last(rank)} : "
                         f"({ttype(x)}) -> {ttype(cl(x))}")
            xin, o = "%t", cl(out)
        xt = cl(x) if last else x
        types = [ttype(xt), ttype(wt.shape)] + ([ttype(b.shape)] if bias else [])
        lines.append(f"  %c = bwc.conv {xin}, {operands} {attrs}{attr} : "
                     f"({', '.join(types)}) -> {ttype(o)}")
        res, rshape = "%c", o
        if relu_pool:
            lines.append(f"  %r = bwc.unary relu %c : ({ttype(o)}) -> {ttype(o)}")
            po = cl(pool_out) if last else pool_out
            lines.append(
                f"  %p = bwc.pool max %r kernel = {[2] * sp} strides = {[2] * sp} "
                f"dilations = {[1] * sp} pads = {[0] * 2 * sp} ceil_mode = false "
                f"count_include_pad = false{' {channels_last}' if last else ''} : "
                f"({ttype(o)}) -> {ttype(po)}")
            res, rshape = "%p", po
        if last:
            first = [rshape[0], rshape[-1]] + list(rshape[1:-1])
            lines.append(f"  %y = bwc.transpose {res} perm = {to_first(rank)} : "
                         f"({ttype(rshape)}) -> {ttype(first)}")
            res, rshape = "%y", first
        lines.append(f"  return {res} : {ttype(rshape)}")
        lines.append("}")
        return "\n".join(lines) + "\n"

    # The negative control: the two kernel dims swapped (a square 2-d
    # kernel, so the shapes still verify).
    bad = None
    if sp == 2 and f_shape[2] == f_shape[3]:
        bad_perm = [filter_perm[1], filter_perm[0]] + filter_perm[2:]
        bad = program(True, bad_perm)
    return name, x, program(False, None), program(True, filter_perm), bad


def pool_case(name, kind, x, kernel, strides, dilations, pads, ceil, include):
    rank = len(x)
    sp = rank - 2
    out = x[:2] + [window_out(x[2 + i], kernel[i], strides[i], dilations[i],
                              pads[i], pads[sp + i], ceil) for i in range(sp)]
    attrs = (f"kernel = {list(kernel)} strides = {list(strides)} "
             f"dilations = {list(dilations)} pads = {list(pads)} "
             f"ceil_mode = {str(ceil).lower()} count_include_pad = {str(include).lower()}")

    def program(last):
        head = f'func.func @main(%x: {ttype(x)} {{bwc.name = "x"}}) -> ({ttype(out)} {{bwc.name = "y"}}) {{'
        if not last:
            return (f"{head}\n  %p = bwc.pool {kind} %x {attrs} : ({ttype(x)}) -> {ttype(out)}\n"
                    f"  return %p : {ttype(out)}\n}}\n")
        return (f"{head}\n"
                f"  %t = bwc.transpose %x perm = {to_last(rank)} : ({ttype(x)}) -> {ttype(cl(x))}\n"
                f"  %p = bwc.pool {kind} %t {attrs} {{channels_last}} : ({ttype(cl(x))}) -> {ttype(cl(out))}\n"
                f"  %y = bwc.transpose %p perm = {to_first(rank)} : ({ttype(cl(out))}) -> {ttype(out)}\n"
                f"  return %y : {ttype(out)}\n}}\n")

    return name, x, program(False), program(True), None


def cases():
    rng = np.random.default_rng(10)
    return [
        conv_case(rng, "conv2d", [2, 3, 9, 8], [8, 3, 3, 2], 1, [2, 1], [1, 2],
                  [1, 0, 2, 1]),
        conv_case(rng, "conv2d_square", [1, 5, 7, 7], [6, 5, 3, 3], 1, [1, 1],
                  [1, 1], [1, 1, 1, 1]),
        conv_case(rng, "grouped", [1, 4, 7, 7], [6, 2, 3, 3], 2, [1, 1],
                  [1, 1], [1, 1, 1, 1], bias=False),
        conv_case(rng, "depthwise", [1, 8, 6, 6], [8, 1, 3, 3], 8, [2, 2],
                  [1, 1], [1, 1, 1, 1]),
        conv_case(rng, "conv1d", [1, 3, 10], [4, 3, 3], 1, [2], [1], [1, 0]),
        conv_case(rng, "transposed", [1, 4, 5, 4], [4, 2, 3, 2], 2, [2, 2],
                  [1, 2], [1, 0, 0, 1], transposed=True, output_padding=[1, 0]),
        conv_case(rng, "transposed_plain", [1, 3, 4, 4], [3, 5, 3, 3], 1, [1, 1],
                  [1, 1], [1, 1, 1, 1], bias=False, transposed=True),
        conv_case(rng, "conv_relu_pool", [1, 3, 8, 8], [6, 3, 3, 3], 1, [1, 1],
                  [1, 1], [1, 1, 1, 1], relu_pool=True),
        pool_case("maxpool", "max", [1, 3, 9, 7], [3, 3], [2, 2], [1, 1],
                  [1, 1, 0, 0], True, False),
        pool_case("avgpool", "avg", [2, 4, 7, 6], [3, 2], [2, 2], [1, 1],
                  [1, 0, 1, 1], True, False),
        pool_case("avgpool_pad", "avg", [1, 3, 6, 6], [3, 3], [1, 2], [2, 1],
                  [1, 1, 2, 0], False, True),
    ]


# Direct convolutions with groups 1: the ones with an implicit-GEMM view.
GEMM_CASES = ("conv2d", "conv2d_square", "conv1d", "conv_relu_pool")


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(" ".join(cmd) + "\n" + p.stdout + p.stderr)


def has_layout_flag(bindir):
    p = subprocess.run([os.path.join(bindir, "bwc-compile"), "--help"],
                       capture_output=True, text=True)
    return "--layout=" in p.stdout


def output_of(bindir, tmp, tag, text, codegen, xfile, flags=()):
    src = os.path.join(tmp, tag + ".mlir")
    with open(src, "w") as f:
        f.write(text)
    art = os.path.join(tmp, f"{tag}.{codegen}.bwc")
    out = os.path.join(tmp, f"{tag}.{codegen}.out")
    os.makedirs(out, exist_ok=True)
    run([os.path.join(bindir, "bwc-compile"), src, "-o", art,
         f"--codegen={codegen}", *flags])
    run([os.path.join(bindir, "bwc-run"), art, "--input", f"x={xfile}",
         "--output-dir", out, "--quiet"])
    t = TensorProto()
    with open(os.path.join(out, "output_0.pb"), "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


def rel_l2(a, b):
    return float(np.linalg.norm((a - b).ravel()) / max(np.linalg.norm(b.ravel()), 1e-30))


def main():
    bindir = sys.argv[1]
    keep = sys.argv[sys.argv.index("--keep") + 1] if "--keep" in sys.argv else None
    tmp = keep or tempfile.mkdtemp()
    os.makedirs(tmp, exist_ok=True)
    rng = np.random.default_rng(11)
    failed = 0
    # With bwc-select-layout in bwc-compile, the reference is compiled with
    # --layout=nchw (so auto cannot rewrite it), and the same channels-first
    # program compiled with --layout=nhwc is checked too (the pass's
    # rewrite through these lowerings).
    layout = has_layout_flag(bindir)
    first_flags = ["--layout=nchw"] if layout else []
    for name, x, first, last, bad in cases():
        xa = rng.uniform(-1, 1, x).astype(np.float32)
        xfile = os.path.join(tmp, name + ".x.pb")
        with open(xfile, "wb") as f:
            f.write(numpy_helper.from_array(xa, "x").SerializeToString())
        variants = [("linalg", "linalg", []), ("elemental", "elemental", [])]
        if name in GEMM_CASES:
            variants.append(("gemm", "elemental", ["--elemental-conv=gemm"]))
        for codegen, backend, extra in variants:
            try:
                ref = output_of(bindir, tmp, name + ".first", first, backend,
                                xfile, first_flags)
                got = {"channels_last op": output_of(
                    bindir, tmp, name + ".last." + codegen, last, backend,
                    xfile, extra)}
                if extra:
                    got["channels-first op"] = output_of(
                        bindir, tmp, name + ".first." + codegen, first, backend,
                        xfile, first_flags + extra)
                if layout:
                    got["--layout=nhwc"] = output_of(
                        bindir, tmp, name + ".nhwc." + codegen, first, backend,
                        xfile, ["--layout=nhwc"] + extra)
            except RuntimeError as e:
                print(f"FAILED: {name} {codegen}: {e}")
                failed += 1
                continue
            for what, out in got.items():
                err = rel_l2(out, ref) if out.shape == ref.shape else math.inf
                ok = err <= TOLERANCE and np.isfinite(ref).all()
                print(f"{name} {codegen} {what}: shape {list(ref.shape)} "
                      f"rel-l2 {err:.2e} {'PASS' if ok else 'FAIL'}")
                failed += not ok
            if bad is not None and name == "conv2d_square" and not extra:
                wrong = output_of(bindir, tmp, name + ".bad", bad, codegen,
                                  xfile)
                berr = rel_l2(wrong, ref)
                detected = berr > TOLERANCE
                print(f"{name} {codegen} negative control (kernel dims swapped): "
                      f"rel-l2 {berr:.2e} {'detected' if detected else 'NOT DETECTED'}")
                failed += not detected
    print(f"channels-last: {'all passed' if not failed else f'{failed} failed'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
