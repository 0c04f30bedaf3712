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
NegativeLogLikelihoodLoss SoftmaxCrossEntropyLoss GatherElements
Tan Asin Acos Atan Sinh Cosh Asinh Acosh Atanh IsNaN IsInf BitShift CastLike
Celu ThresholdedRelu Shrink Mish Gelu Hardmax OneHot EyeLike CumSum TopK
HannWindow HammingWindow BlackmanWindow MelWeightMatrix
MeanVarianceNormalization LRN GatherND ScatterElements Scatter ScatterND
Einsum QuantizeLinear DequantizeLinear DynamicQuantizeLinear MatMulInteger
QLinearMatMul Adagrad Adam Momentum RNN GRU LSTM If Loop Scan Compress ConvInteger QLinearConv DFT STFT GridSample ReverseSequence Det RoiAlign
SequenceConstruct SequenceEmpty SequenceInsert SequenceAt SequenceErase
SequenceLength SplitToSequence ConcatFromSequence
""".split())
FOLDERS = ["node", "pytorch-converted", "pytorch-operator", "simple"]

# The shape-operand rule bwc.backend uses (bindings/python/bwc/
# _shape_inputs.py), loaded by path: it imports nothing of bwc.
def _load_shape_rule():
    import importlib.util
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                        "bindings", "python", "bwc", "_shape_inputs.py")
    spec = importlib.util.spec_from_file_location("bwc_shape_inputs", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_SHAPE_RULE = _load_shape_rule()
SHAPE_OPERANDS = _SHAPE_RULE.SHAPE_OPERANDS


def shape_inputs(case):
    """Graph inputs whose values reach a shape operand (through any chain
    of nodes), with the test-data file that holds each value."""
    model = onnx.load(os.path.join(case, "model.onnx"), load_external_data=False)
    g = model.graph
    inits = {t.name for t in g.initializer}
    inputs = [i.name for i in g.input if i.name not in inits]
    data = os.path.join(case, "test_data_set_0")
    return [(name, os.path.join(data, f"input_{inputs.index(name)}.pb"))
            for name in _SHAPE_RULE.shape_inputs(model)]


def classify(root="/usr/share/libonnx-testdata/data"):
    """Yields (case_dir, unlisted_ops) for every case; unlisted_ops is None
    for a model that cannot be read."""
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
            except Exception:  # a broken case is reported, not fatal
                yield os.path.dirname(path), None
                continue
            ops = {n.op_type for n in model.graph.node}
            # What the command line cannot feed: sequence inputs and
            # outputs (one .pb per element, NAME[i]; bwc.backend's runner
            # covers them) and dynamic input dims (no --input-shape here).
            g = model.graph
            inits = {t.name for t in g.initializer}
            for v in list(g.input) + list(g.output):
                kind = v.type.WhichOneof("value")
                if v.name in inits:
                    continue
                if kind != "tensor_type":
                    ops.add("<%s graph input or output>" % kind)
                elif v in g.input and any(
                        not d.HasField("dim_value")
                        for d in v.type.tensor_type.shape.dim):
                    ops.add("<dynamic input dims>")
            yield os.path.dirname(path), sorted(ops - SUPPORTED)


def list_cases(root="/usr/share/libonnx-testdata/data"):
    """The case directories made only of supported operators."""
    return [case for case, unlisted in classify(root) if unlisted == []]


def key(case):
    """`folder/case`, the name expected-failure lists use."""
    parts = case.rstrip("/").split("/")
    return "/".join(parts[-2:])


def read_expected(path):
    """`folder/case  # reason` lines into a dict."""
    expected = {}
    if path:
        for line in open(path):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            name, _, reason = line.partition("#")
            expected[name.strip()] = reason.strip()
    return expected


def main(argv):
    show_all = "--all" in argv
    args = [a for a in argv if a != "--all"]
    root = args[0] if args else "/usr/share/libonnx-testdata/data"
    for case, unlisted in classify(root):
        if show_all:
            state = ("unreadable" if unlisted is None else
                     "listed" if not unlisted else " ".join(unlisted))
            print(f"{case}\t{state}")
        elif unlisted == []:
            print(case)


if __name__ == "__main__":
    main(sys.argv[1:])
