#!/usr/bin/python3
"""Lists the ONNX backend test cases whose models use only the operators
bwc supports (the M1.2 list), one case directory per line.

Usage: backend_cases.py [--all] [DATA_ROOT]
  DATA_ROOT defaults to /usr/share/libonnx-testdata/data; the folders
  node, pytorch-converted, pytorch-operator and simple are scanned.
  --all prints every case with a tab and 'listed' or the unlisted ops.
"""
import os
import sys

import onnx

SUPPORTED = set("""
Abs Neg Exp Log Sqrt Reciprocal Sigmoid Tanh Relu LeakyRelu Elu Selu
HardSigmoid HardSwish Softplus Softsign Erf Clip Cast Floor Ceil Round Sin Cos
Sign Identity Not Add Sub Mul Div Pow Max Min Mean Sum Equal Less Greater
LessOrEqual GreaterOrEqual And Or Xor Where Mod PRelu ReduceMean ReduceSum
ReduceMax ReduceMin ReduceProd ReduceL1 ReduceL2 ReduceSumSquare
ReduceLogSumExp ArgMax ArgMin Softmax LogSoftmax LayerNormalization
BatchNormalization InstanceNormalization MatMul Gemm Conv ConvTranspose MaxPool
AveragePool GlobalAveragePool GlobalMaxPool Reshape Flatten Transpose Squeeze
Unsqueeze Concat Split Slice Gather Expand Tile Pad Resize Shape Size
ConstantOfShape Range Trilu DepthToSpace SpaceToDepth Constant Dropout
""".split())
FOLDERS = ["node", "pytorch-converted", "pytorch-operator", "simple"]


def main(argv):
    show_all = "--all" in argv
    args = [a for a in argv if a != "--all"]
    root = args[0] if args else "/usr/share/libonnx-testdata/data"
    for folder in FOLDERS:
        base = os.path.join(root, folder)
        if not os.path.isdir(base):
            continue
        for case in sorted(os.listdir(base)):
            path = os.path.join(base, case, "model.onnx")
            if not os.path.exists(path):
                continue
            try:
                model = onnx.load(path, load_external_data=False)
            except Exception as e:  # a broken case is reported, not fatal
                if show_all:
                    print(f"{os.path.dirname(path)}\tunreadable: {e}")
                continue
            ops = {n.op_type for n in model.graph.node}
            unlisted = sorted(ops - SUPPORTED)
            if show_all:
                print(f"{os.path.dirname(path)}\t"
                      f"{'listed' if not unlisted else ' '.join(unlisted)}")
            elif not unlisted:
                print(os.path.dirname(path))


if __name__ == "__main__":
    main(sys.argv[1:])
