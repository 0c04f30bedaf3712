"""The graph inputs a static compiler needs as values at compile time.

Pure Python over an onnx.ModelProto (no bwc import), so that the
command-line conformance tooling (python/backend_cases.py) loads this file
by path and shares it with bwc.backend.
"""

# Operand positions a static compiler needs as values at compile time
# (TensorRT's shape tensors): graph inputs that reach them are bound to the
# values of the first run, and the model is compiled then.
SHAPE_OPERANDS = {
    "Reshape": [1], "Expand": [1], "Tile": [1], "Slice": [1, 2, 3, 4],
    "Squeeze": [1], "Unsqueeze": [1], "Split": [1], "Pad": [1, 2, 3],
    "ConstantOfShape": [0], "Range": [0, 1, 2], "Resize": [1, 2, 3],
    "Upsample": [1], "Dropout": [1, 2], "OneHot": [1], "TopK": [1],
    "CenterCropPad": [1], "Col2Im": [1, 2], "CumSum": [1],
    "HannWindow": [0], "HammingWindow": [0], "BlackmanWindow": [0],
    "MelWeightMatrix": [0, 1, 2, 3, 4], "If": [0], "Loop": [0, 1],
    "Compress": [1], "DFT": [1], "STFT": [1, 3],
    "SequenceInsert": [2], "SequenceAt": [1], "SequenceErase": [1],
    "SplitToSequence": [1], "MaxUnpool": [2],
    **{op: [1] for op in ["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin",
                          "ReduceProd", "ReduceL1", "ReduceL2",
                          "ReduceSumSquare", "ReduceLogSumExp"]},
}


def shape_inputs(model):
    """The graph inputs whose values reach a shape operand, through any
    chain of nodes, in graph-input order."""
    g = model.graph
    inits = {t.name for t in g.initializer}
    inputs = [i.name for i in g.input if i.name not in inits]
    producer = {o: n for n in g.node for o in n.output}
    todo = [n.input[k] for n in g.node
            for k in SHAPE_OPERANDS.get(n.op_type, []) if k < len(n.input)]
    seen, found = set(), set()
    while todo:
        t = todo.pop()
        if not t or t in seen:
            continue
        seen.add(t)
        if t in inputs:
            found.add(t)
        elif t in producer:
            todo.extend(producer[t].input)
    return [name for name in inputs if name in found]
