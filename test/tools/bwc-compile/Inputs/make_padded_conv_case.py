"""Writes DIR/stft.mlir and DIR/test_data_set_0 for pad-channels.mlir: a
seeded STFT-like 1-D convolution (1 input channel, 257 output channels,
kernel 128, stride 40, with bias) followed by ReLU and a square, on x
(1x1x4000, uniform in [-1, 1]), and its numpy reference. bwc-select-layout
makes it channels-last and bwc-pad-channels computes 288 channels."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from case_io import lit, write_case  # noqa: E402

rng = np.random.default_rng(5)
x = rng.uniform(-1, 1, (1, 1, 4000)).astype(np.float32)
w = rng.uniform(-0.1, 0.1, (257, 1, 128)).astype(np.float32)
b = rng.uniform(-0.1, 0.1, (257,)).astype(np.float32)

frames = np.stack([x[0, 0, 40 * t:40 * t + 128] for t in range(97)])
h = frames.astype(np.float64) @ w[:, 0, :].T.astype(np.float64) + b
y = (np.maximum(h, 0) ** 2).T[None].astype(np.float32)  # 1x257x97


out = sys.argv[1]
write_case(out, [("x", x)], [("y", y)])
with open(os.path.join(out, "stft.mlir"), "w") as f:
    f.write(f"""func.func @main(%x: tensor<1x1x4000xf32> {{bwc.name = "x"}}) -> (tensor<1x257x97xf32> {{bwc.name = "y"}}) {{
  %w = bwc.constant dense<{lit(w)}> : tensor<257x1x128xf32>
  %b = bwc.constant dense<{lit(b)}> : tensor<257xf32>
  %two = bwc.constant dense<2.0> : tensor<f32>
  %c = bwc.conv %x, %w, %b strides = [40] dilations = [1] pads = [0, 0] groups = 1 : (tensor<1x1x4000xf32>, tensor<257x1x128xf32>, tensor<257xf32>) -> tensor<1x257x97xf32>
  %r = bwc.unary relu %c : (tensor<1x257x97xf32>) -> tensor<1x257x97xf32>
  %y = bwc.binary pow %r, %two : (tensor<1x257x97xf32>, tensor<f32>) -> tensor<1x257x97xf32>
  return %y : tensor<1x257x97xf32>
}}
""")
