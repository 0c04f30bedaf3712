"""Writes DIR/chain.mlir and DIR/test_data_set_0 for layout.mlir: a
seeded conv chain (1x1 conv + bias, ReLU, depthwise 3x3 stride 2, ReLU,
1x1 conv, 2x2 max pool) on x (1x4x16x16, uniform in [-1, 1]) and its numpy
reference, so each --layout compiles the same program and meets the same
reference."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from case_io import lit, write_case  # noqa: E402

rng = np.random.default_rng(11)
x = rng.uniform(-1, 1, (1, 4, 16, 16)).astype(np.float32)
w0 = rng.uniform(-1, 1, (8, 4, 1, 1)).astype(np.float32)
b0 = rng.uniform(-1, 1, (8,)).astype(np.float32)
w1 = rng.uniform(-1, 1, (8, 1, 3, 3)).astype(np.float32)
w2 = rng.uniform(-1, 1, (4, 8, 1, 1)).astype(np.float32)


def conv(a, w, stride, pad, groups, bias=None):
    n, c, h, wd = a.shape
    f, cg, kh, kw = w.shape
    a = np.pad(a, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh = (h + 2 * pad - kh) // stride + 1
    ow = (wd + 2 * pad - kw) // stride + 1
    out = np.zeros((n, f, oh, ow), np.float64)
    per = f // groups
    for o in range(f):
        g = o // per
        for i in range(cg):
            for y in range(kh):
                for z in range(kw):
                    out[:, o] += w[o, i, y, z] * a[:, g * cg + i,
                                                   y:y + stride * oh:stride,
                                                   z:z + stride * ow:stride]
    if bias is not None:
        out += bias[None, :, None, None]
    return out


h = np.maximum(conv(x, w0, 1, 0, 1, b0), 0)
h = np.maximum(conv(h, w1, 2, 1, 8), 0)
h = conv(h, w2, 1, 0, 1)
y = h.reshape(1, 4, 4, 2, 4, 2).max(axis=(3, 5)).astype(np.float32)


out = sys.argv[1]
write_case(out, [("x", x)], [("y", y)])
with open(os.path.join(out, "chain.mlir"), "w") as f:
    f.write(f"""func.func @main(%x: tensor<1x4x16x16xf32> {{bwc.name = "x"}}) -> (tensor<1x4x4x4xf32> {{bwc.name = "y"}}) {{
  %w0 = bwc.constant dense<{lit(w0)}> : tensor<8x4x1x1xf32>
  %b0 = bwc.constant dense<{lit(b0)}> : tensor<8xf32>
  %w1 = bwc.constant dense<{lit(w1)}> : tensor<8x1x3x3xf32>
  %w2 = bwc.constant dense<{lit(w2)}> : tensor<4x8x1x1xf32>
  %c0 = bwc.conv %x, %w0, %b0 strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 1 : (tensor<1x4x16x16xf32>, tensor<8x4x1x1xf32>, tensor<8xf32>) -> tensor<1x8x16x16xf32>
  %r0 = bwc.unary relu %c0 : (tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
  %c1 = bwc.conv %r0, %w1 strides = [2, 2] dilations = [1, 1] pads = [1, 1, 1, 1] groups = 8 : (tensor<1x8x16x16xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x8x8xf32>
  %r1 = bwc.unary relu %c1 : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %c2 = bwc.conv %r1, %w2 strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 1 : (tensor<1x8x8x8xf32>, tensor<4x8x1x1xf32>) -> tensor<1x4x8x8xf32>
  %y = bwc.pool max %c2 kernel = [2, 2] strides = [2, 2] dilations = [1, 1] pads = [0, 0, 0, 0] ceil_mode = false count_include_pad = false : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  return %y : tensor<1x4x4x4xf32>
}}
""")
