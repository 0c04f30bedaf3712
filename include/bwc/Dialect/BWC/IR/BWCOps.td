//===- BWCOps.td - bwc dialect operations -------------------*- tablegen -*-===//
//
// Every op works on ranked, statically shaped tensors. Attributes hold
// normalized values (non-negative axes, explicit pads, explicit strides), so
// passes never re-derive ONNX defaults.
//
//===----------------------------------------------------------------------===//

#ifndef BWC_DIALECT_BWC_IR_BWCOPS_TD
#define BWC_DIALECT_BWC_IR_BWCOPS_TD

include "bwc/Dialect/BWC/IR/BWCBase.td"
include "bwc/Dialect/BWC/IR/BWCInterfaces.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

def BWC_ConstantOp : BWC_Op<"constant", [
    DeclareOpInterfaceMethods<BWC_DifferentiableOpInterface>, ConstantLike, Pure,
    AllTypesMatch<["value", "result"]>]> {
  let summary = "a constant tensor (weights, folded shape arithmetic)";
  let description = [{
    Holds a tensor literal. Weights imported from ONNX use `dense_resource`
    blobs so that printed IR stays readable.

    Example:
    ```mlir
    %c = bwc.constant dense<[1.0, 2.0]> : tensor<2xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs BWC_Tensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
  let builders = [OpBuilder<(ins "ElementsAttr":$value), [{
    build($_builder, $_state, value.getType(), value);
  }]>];
}

//===----------------------------------------------------------------------===//
// Elementwise (numpy broadcasting)
//===----------------------------------------------------------------------===//

def BWC_UnaryOp : BWC_Op<"unary", [
    DeclareOpInterfaceMethods<BWC_DifferentiableOpInterface>, Pure]> {
  let summary = "elementwise unary function";
  let description = [{
    Applies `fn` to every element. The result has the operand's type.
    `relu` is max(x, 0); `round` rounds half to even (ONNX Round); `not` takes
    i1; `sign`, `abs`, `neg` and `relu` also take integers; the rest take
    floats.

    Example:
    ```mlir
    %y = bwc.unary exp %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins BWC_UnaryFn:$fn, BWC_Tensor:$input);
  let results = (outs BWC_Tensor:$result);
  let assemblyFormat =
      "$fn $input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def BWC_BinaryOp : BWC_Op<"binary", [
    DeclareOpInterfaceMethods<BWC_DifferentiableOpInterface>, Pure]> {
  let summary = "elementwise binary function with numpy broadcasting";
  let description = [{
    Both operands have the same element type; their shapes broadcast (numpy
    rules) to the result shape. Comparisons (`eq lt gt le ge`) return i1;
    `and or xor` take i1; `mod` is the sign-of-divisor integer modulus and
    `fmod` the C fmod (ONNX Mod with fmod=0/1). `shl` and `shr` shift
    integers (logically on unsigned types, arithmetically on signed ones);
    a shift by the bit width or more gives 0 (ONNX BitShift).

    Example:
    ```mlir
    %z = bwc.binary add %x, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins BWC_BinaryFn:$fn, BWC_Tensor:$lhs, BWC_Tensor:$rhs);
  let results = (outs BWC_Tensor:$result);
  let assemblyFormat =
      "$fn $lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let extraClassDeclaration = [{
    /// True for the functions whose result is i1 (comparisons).
    bool isComparison();
  }];
}

def BWC_SelectOp : BWC_Op<"select", [
    DeclareOpInterfaceMethods<BWC_DifferentiableOpInterface>, Pure]> {
  let summary = "elementwise choice between two tensors (ONNX Where)";
  let description = [{
    `result = cond ? on_true : on_false`, the three operands broadcasting to
    the result shape.

    Example:
    ```mlir
    %r = bwc.select %c, %a, %b : (tensor<4xi1>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins StaticShapeTensorOf<[I1]>:$cond, BWC_Tensor:$on_true,
                   BWC_Tensor:$on_false);
  let results = (outs BWC_Tensor:$result);
  let assemblyFormat = "$cond `,` $on_true `,` $on_false attr-dict `:` "
                       "functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def BWC_CastOp : BWC_Op<"cast", [
    DeclareOpInterfaceMethods<BWC_DifferentiableOpInterface>, Pure]> {
  let summary = "elementwise conversion of the element type";
  let description = [{
    Converts each element to the result's element type with ONNX Cast
    semantics (float to int truncates toward zero; to i1 is `x != 0`).

    Example:
    ```mlir
    %h = bwc.cast %x : tensor<4xf32> to tensor<4xf16>
    ```
  }];
  let arguments = (ins BWC_Tensor:$input);
  let results = (outs BWC_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

def BWC_ReduceOp : BWC_Op<"reduce", [
    DeclareOpInterfaceMethods<BWC_DifferentiableOpInterface>, Pure]> {
  let summary = "reduction over a set of axes";
  let description = [{
    Reduces `input` over `axes` (sorted, unique, non-negative) with `kind`.
    With `keepdims` the reduced axes stay as size 1. Empty `axes` is the
    identity (ONNX noop_with_empty_axes).

    Example:
    ```mlir
    %m = bwc.reduce mean %x axes = [1] keepdims = true
        : (tensor<4x8xf32>) -> tensor<4x1xf32>
    ```
  }];
  let arguments = (ins BWC_ReduceKind:$kind, BWC_Tensor:$input,
                   DenseI64ArrayAttr:$axes, BoolAttr:$keepdims);
  let results = (outs BWC_Tensor:$result);
  let assemblyFormat = "$kind $input `axes` `=` $axes `keepdims` `=` $keepdims "
                       "attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def BWC_ArgReduceOp : BWC_Op<"arg_reduce", [
    DeclareOpInterfaceMethods<BWC_DifferentiableOpInterface>, Pure]> {
  let summary = "index of the largest or smallest element along one axis";
  let description = [{
    ONNX ArgMax/ArgMin. Ties go to the first index unless
    `select_last_index` is set. The result is i64.

    Example:
    ```mlir
    %i = bwc.arg_reduce argmax %x axis = 1 keepdims = false select_last_index = false
        : (tensor<4x8xf32>) -> tensor<4xi64>
    ```
  }];
  let arguments = (ins BWC_ArgReduceKind:$kind, BWC_Tensor:$input,
                   I64Attr:$axis, BoolAttr:$keepdims,
                   BoolAttr:$select_last_index);
  let results = (outs StaticShapeTensorOf<[I64]>:$result);
  let assemblyFormat = "$kind $input `axis` `=` $axis `keepdims` `=` $keepdims "
                       "`select_last_index` `=` $select_last_index attr-dict "
                       "`:` functional-type(operands, results)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Contraction, convolution, pooling
//===----------------------------------------------------------------------===//

def BWC_MatmulOp : BWC_Op<"matmul", [
    DeclareOpInterfaceMethods<BWC_DifferentiableOpInterface>, Pure]> {
  let summary = "batched matrix product with broadcast batch dimensions";
  let description = [{
    `lhs` is `[B..., M, K]`, `rhs` is `[B'..., K, N]` (both rank >= 2); the
    batch dims broadcast (numpy) and the result is `[B*..., M, N]`. Vectors
    (ONNX MatMul with 1-D operands) are reshaped at import.

    Example:
    ```mlir
    %c = bwc.matmul %a, %b : (tensor<2x4x8xf32>, tensor<8x16xf32>) -> tensor<2x4x16xf32>
    ```

    The optional `acc_type` (set by `bwc-mixed-precision`) is the float
    type products are summed in: operands and result stay in the element
    type, every kernel emitter accumulates in `acc_type` and rounds once at
    the end (`{acc_type = f32}` on f16/bf16 operands). Absent: the element
    type.
  }];
  let arguments = (ins BWC_Tensor:$lhs, BWC_Tensor:$rhs,
                   OptionalAttr<TypeAttr>:$acc_type);
  let results = (outs BWC_Tensor:$result);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def BWC_ConvOp : BWC_Op<"conv", [
    DeclareOpInterfaceMethods<BWC_DifferentiableOpInterface>, Pure]> {
  let summary = "N-d grouped convolution or transposed convolution (NC...)";
  let description = [{
    Input `[N, C, D...]`. For a direct convolution the filter is
    `[F, C/groups, K...]`; for `transposed` it is `[C, F/groups, K...]`
    (ONNX ConvTranspose). `pads` holds all begin pads then all end pads;
    `output_padding` applies to transposed convolutions only. The optional
    `bias` has shape `[F]`. The optional `acc_type` is the float type the
    products and the bias are summed in, as for `bwc.matmul`.

    With `channels_last` (set by bwc-select-layout) the same convolution
    reads and writes channels-last tensors: input `[N, D..., C]`, result
    `[N, D..., F]`, filter `[K..., C/groups, F]` (transposed:
    `[K..., F/groups, C]`). Strides, dilations and pads still list the
    spatial dims in order. The logical (channels-first) shapes are
    `getLogicalInputShape()` etc.; `getDataPerm()`/`getFilterPerm()` give
    the physical-from-logical permutations (bwc/Dialect/BWC/Utils/ShapeUtils.h).

    Example:
    ```mlir
    %y = bwc.conv %x, %w strides = [1, 1] dilations = [1, 1]
        pads = [1, 1, 1, 1] groups = 1
        : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x8x8xf32>
    ```
  }];
  let arguments = (ins BWC_FloatTensor:$input, BWC_FloatTensor:$filter,
                   Optional<BWC_FloatTensor>:$bias,
                   DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$dilations,
                   DenseI64ArrayAttr:$pads, I64Attr:$groups,
                   UnitAttr:$transposed,
                   OptionalAttr<DenseI64ArrayAttr>:$output_padding,
                   OptionalAttr<TypeAttr>:$acc_type,
                   UnitAttr:$channels_last);
  let results = (outs BWC_FloatTensor:$result);
  let extraClassDeclaration = [{
    /// Physical dim i of the input and result holds logical (N, C, D...)
    /// dim getDataPerm()[i]: the identity, or channelsLastPerm.
    ::llvm::SmallVector<int64_t> getDataPerm();
    /// Likewise for the filter: the identity, or channelsLastFilterPerm.
    ::llvm::SmallVector<int64_t> getFilterPerm();
    /// Shapes in the channels-first order the op's formulas use.
    ::llvm::SmallVector<int64_t> getLogicalInputShape();
    ::llvm::SmallVector<int64_t> getLogicalFilterShape();
    ::llvm::SmallVector<int64_t> getLogicalResultShape();
  }];
  let assemblyFormat = "$input `,` $filter (`,` $bias^)? `strides` `=` $strides "
                       "`dilations` `=` $dilations `pads` `=` $pads "
                       "`groups` `=` $groups attr-dict `:` "
                       "functional-type(operands, results)";
  let hasVerifier = 1;
}

def BWC_PoolOp : BWC_Op<"pool", [
    DeclareOpInterfaceMethods<BWC_DifferentiableOpInterface>, Pure]> {
  let summary = "N-d max or average pooling window (NC...)";
  let description = [{
    Slides a `kernel` window over the spatial dims of `[N, C, D...]`.
    `pads` holds begin pads then end pads; `ceil_mode` rounds the output size
    up. For `avg`, `count_include_pad` says whether padded positions count in
    the divisor. The optional `acc_type` is the float type an average
    pool sums and divides in, as for `bwc.matmul`. With `channels_last`
    (set by bwc-select-layout) input and result are `[N, D..., C]`.

    Example:
    ```mlir
    %y = bwc.pool max %x kernel = [2, 2] strides = [2, 2] dilations = [1, 1]
        pads = [0, 0, 0, 0] ceil_mode = false count_include_pad = false
        : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
    ```
  }];
  let arguments = (ins BWC_PoolKind:$kind, BWC_Tensor:$input,
                   DenseI64ArrayAttr:$kernel, DenseI64ArrayAttr:$strides,
                   DenseI64ArrayAttr:$dilations, DenseI64ArrayAttr:$pads,
                   BoolAttr:$ceil_mode, BoolAttr:$count_include_pad,
                   OptionalAttr<TypeAttr>:$acc_type,
                   UnitAttr:$channels_last);
  let results = (outs BWC_Tensor:$result);
  let extraClassDeclaration = [{
    /// As for bwc.conv: the identity or channelsLastPerm.
    ::llvm::SmallVector<int64_t> getDataPerm();
    ::llvm::SmallVector<int64_t> getLogicalInputShape();
    ::llvm::SmallVector<int64_t> getLogicalResultShape();
  }];
  let assemblyFormat = "$kind $input `kernel` `=` $kernel `strides` `=` $strides "
                       "`dilations` `=` $dilations `pads` `=` $pads "
                       "`ceil_mode` `=` $ceil_mode "
                       "`count_include_pad` `=` $count_include_pad attr-dict "
                       "`:` functional-type(operands, results)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

def BWC_TransposeOp : BWC_Op<"transpose", [
    DeclareOpInterfaceMethods<BWC_DifferentiableOpInterface>, Pure]> {
  let summary = "permutation of dimensions";
  let description = [{
    `result.shape[i] = input.shape[perm[i]]`.

    Canonicalization: a transpose that keeps the non-unit dims in order
    moves no element and becomes a `bwc.reshape` (a view, no kernel).

    Example:
    ```mlir
    %t = bwc.transpose %x perm = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
    ```
  }];
  let arguments = (ins BWC_Tensor:$input, DenseI64ArrayAttr:$perm);
  let results = (outs BWC_Tensor:$result);
  let assemblyFormat = "$input `perm` `=` $perm attr-dict `:` "
                       "functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
  // A transpose that only moves unit dims is a reshape.
  let hasCanonicalizer = 1;
}

def BWC_ReshapeOp : BWC_Op<"reshape", [
    DeclareOpInterfaceMethods<BWC_DifferentiableOpInterface>, Pure]> {
  let summary = "row-major reshape to the result type's shape";
  let description = [{
    Same elements in the same row-major order. ONNX Reshape, Flatten,
    Squeeze and Unsqueeze all import as this op.

    Example:
    ```mlir
    %r = bwc.reshape %x : (tensor<4x8xf32>) -> tensor<32xf32>
    ```
  }];
  let arguments = (ins BWC_Tensor:$input);
  let results = (outs BWC_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def BWC_BroadcastOp : BWC_Op<"broadcast", [
    DeclareOpInterfaceMethods<BWC_DifferentiableOpInterface>, Pure]> {
  let summary = "numpy broadcast to the result type's shape (ONNX Expand)";
  let description = [{
    The input shape must broadcast to exactly the result shape.

    Example:
    ```mlir
    %b = bwc.broadcast %x : (tensor<1x8xf32>) -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins BWC_Tensor:$input);
  let results = (outs BWC_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def BWC_SliceOp : BWC_Op<"slice", [
    DeclareOpInterfaceMethods<BWC_DifferentiableOpInterface>, Pure]> {
  let summary = "strided slice; the result shape gives the sizes";
  let description = [{
    `result[i...] = input[starts + i * steps]` per dim. Steps are non-zero
    and may be negative; every index touched lies inside the input.

    Example:
    ```mlir
    %s = bwc.slice %x starts = [0, 7] steps = [2, -1]
        : (tensor<4x8xf32>) -> tensor<2x8xf32>
    ```
  }];
  let arguments = (ins BWC_Tensor:$input, DenseI64ArrayAttr:$starts,
                   DenseI64ArrayAttr:$steps);
  let results = (outs BWC_Tensor:$result);
  let assemblyFormat = "$input `starts` `=` $starts `steps` `=` $steps "
                       "attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def BWC_ConcatOp : BWC_Op<"concat", [
    DeclareOpInterfaceMethods<BWC_DifferentiableOpInterface>, Pure]> {
  let summary = "concatenation along one axis";
  let description = [{
    Example:
    ```mlir
    %c = bwc.concat %a, %b axis = 0 : (tensor<2x8xf32>, tensor<3x8xf32>) -> tensor<5x8xf32>
    ```
  }];
  let arguments = (ins Variadic<BWC_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs BWC_Tensor:$result);
  let assemblyFormat = "$inputs `axis` `=` $axis attr-dict `:` "
                       "functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def BWC_PadOp : BWC_Op<"pad", [
    DeclareOpInterfaceMethods<BWC_DifferentiableOpInterface>, Pure]> {
  let summary = "padding with a constant, reflected or edge value";
  let description = [{
    `pads` holds the begin pads of every dim then the end pads, all
    non-negative (negative ONNX pads import as a slice). `value` is used by
    `constant` mode.

    Example:
    ```mlir
    %p = bwc.pad constant %x pads = [0, 1, 0, 1] value = 0.0 : f32
        : (tensor<4x8xf32>) -> tensor<4x10xf32>
    ```
  }];
  let arguments = (ins BWC_PadMode:$mode, BWC_Tensor:$input,
                   DenseI64ArrayAttr:$pads, TypedAttrInterface:$value);
  let results = (outs BWC_Tensor:$result);
  let assemblyFormat = "$mode $input `pads` `=` $pads `value` `=` $value "
                       "attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def BWC_GatherOp : BWC_Op<"gather", [
    DeclareOpInterfaceMethods<BWC_DifferentiableOpInterface>, Pure]> {
  let summary = "gather slices along one axis by index (ONNX Gather)";
  let description = [{
    `result.shape = data.shape[:axis] + indices.shape + data.shape[axis+1:]`.
    Negative indices count from the end, as in ONNX.

    Example:
    ```mlir
    %g = bwc.gather %x[%i] axis = 0 : (tensor<10x8xf32>, tensor<3xi64>) -> tensor<3x8xf32>
    ```
  }];
  let arguments = (ins BWC_Tensor:$data, BWC_IndexTensor:$indices,
                   I64Attr:$axis);
  let results = (outs BWC_Tensor:$result);
  let assemblyFormat = "$data `[` $indices `]` `axis` `=` $axis attr-dict `:` "
                       "functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def BWC_ResizeOp : BWC_Op<"resize", [
    DeclareOpInterfaceMethods<BWC_DifferentiableOpInterface>, Pure]> {
  let summary = "nearest or (multi)linear resampling (ONNX Resize/Upsample)";
  let description = [{
    Any numeric element type (ONNX allows integer images); interpolation of
    integers rounds to nearest and saturates, as ONNX Runtime does.
    Output size is the result shape; `scales` (one per dim) are the ratios
    used by the coordinate transformation, as ONNX defines them. `cubic`
    takes the kernel coefficient `cubic_coeff_a` (ONNX default -0.75) and
    `exclude_outside`, which renormalizes weights of taps outside the input.

    Example:
    ```mlir
    %r = bwc.resize nearest %x scales = [1.0, 1.0, 2.0, 2.0]
        coord = asymmetric nearest_mode = floor
        : (tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32>
    ```
  }];
  let arguments = (ins BWC_ResizeMode:$mode, BWC_Tensor:$input,
                   DenseF64ArrayAttr:$scales, BWC_CoordMode:$coord,
                   BWC_NearestMode:$nearest_mode,
                   OptionalAttr<F64Attr>:$cubic_coeff_a,
                   UnitAttr:$exclude_outside);
  let results = (outs BWC_Tensor:$result);
  let assemblyFormat = "$mode $input `scales` `=` $scales `coord` `=` $coord "
                       "`nearest_mode` `=` $nearest_mode attr-dict `:` "
                       "functional-type(operands, results)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Fusion
//===----------------------------------------------------------------------===//

def BWC_FusionOp : BWC_Op<"fusion", [IsolatedFromAbove,
    RecursiveMemoryEffects, SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "a group of ops that runs as exactly one kernel";
  let description = [{
    Formed by `bwc-fuse`. The region's block arguments stand for `inputs`
    (the only tensors the kernel reads from memory); `bwc.yield` gives the
    results (the only tensors it writes). Values inside never touch memory
    between ops on a GPU. `kind` says which emitter builds the kernel:
    `loop` (elementwise and data movement), `reduction` (reductions with
    their input and epilogue ops, e.g. a whole Softmax or LayerNorm per
    row), `contraction` (a matmul or convolution with its epilogue).

    Example:
    ```mlir
    %r = bwc.fusion loop (%x, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32> {
    ^bb0(%a: tensor<4x8xf32>, %c: tensor<8xf32>):
      %0 = bwc.binary add %a, %c : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
      %1 = bwc.unary relu %0 : (tensor<4x8xf32>) -> tensor<4x8xf32>
      bwc.yield %1 : tensor<4x8xf32>
    }
    ```
  }];
  let arguments = (ins BWC_FusionKind:$kind, Variadic<BWC_Tensor>:$inputs);
  let results = (outs Variadic<BWC_Tensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$kind (`(` $inputs^ `)`)? attr-dict `:` "
                       "functional-type($inputs, $results) $body";
  let hasVerifier = 1;
}

def BWC_YieldOp : BWC_Op<"yield", [Pure, ReturnLike, Terminator,
    HasParent<"FusionOp">]> {
  let summary = "results of a fusion region";
  let description = [{
    ```mlir
    bwc.yield %a, %b : tensor<4xf32>, tensor<4xf32>
    ```
  }];
  let arguments = (ins Variadic<BWC_Tensor>:$values);
  let builders = [OpBuilder<(ins), [{ /* no results */ }]>];
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

#endif // BWC_DIALECT_BWC_IR_BWCOPS_TD
