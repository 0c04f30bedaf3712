//===- BWCBase.td - bwc dialect definition and enums -------*- tablegen -*-===//
//
// The bwc graph dialect: tensor-level ops on ranked, statically shaped
// tensors, onto which the ONNX operator set maps. A small set of general ops
// (elementwise, reduce, contraction, convolution, pooling, data movement,
// cast, constant) so that composite ONNX ops decompose into them and every
// later pass (fusion, precision, layout, remat) reasons about few ops.
//
//===----------------------------------------------------------------------===//

#ifndef BWC_DIALECT_BWC_IR_BWCBASE_TD
#define BWC_DIALECT_BWC_IR_BWCBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/EnumAttr.td"

def BWC_Dialect : Dialect {
  let name = "bwc";
  let cppNamespace = "::mlir::bwc";
  let summary = "The bandwidth compiler's tensor graph dialect";
  let description = [{
    Ops on ranked, statically shaped tensors. Elementwise ops follow numpy
    broadcasting; axes are always normalized (non-negative) in the IR; every
    op's verifier checks the shape rules that ODS cannot express.
  }];
  let hasConstantMaterializer = 1;
}

class BWC_Op<string mnemonic, list<Trait> traits = []>
    : Op<BWC_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def BWC_UnaryFn : I32EnumAttr<"UnaryFn", "elementwise unary function", [
    I32EnumAttrCase<"abs", 0>, I32EnumAttrCase<"neg", 1>,
    I32EnumAttrCase<"exp", 2>, I32EnumAttrCase<"log", 3>,
    I32EnumAttrCase<"sqrt", 4>, I32EnumAttrCase<"rsqrt", 5>,
    I32EnumAttrCase<"reciprocal", 6>, I32EnumAttrCase<"sigmoid", 7>,
    I32EnumAttrCase<"tanh", 8>, I32EnumAttrCase<"erf", 9>,
    I32EnumAttrCase<"floor", 10>, I32EnumAttrCase<"ceil", 11>,
    I32EnumAttrCase<"round", 12>, I32EnumAttrCase<"sin", 13>,
    I32EnumAttrCase<"cos", 14>, I32EnumAttrCase<"sign", 15>,
    I32EnumAttrCase<"relu", 16>, I32EnumAttrCase<"not_", 17, "not">,
    I32EnumAttrCase<"tan", 18>, I32EnumAttrCase<"asin", 19>,
    I32EnumAttrCase<"acos", 20>, I32EnumAttrCase<"atan", 21>,
    I32EnumAttrCase<"sinh", 22>, I32EnumAttrCase<"cosh", 23>,
    I32EnumAttrCase<"asinh", 24>, I32EnumAttrCase<"acosh", 25>,
    I32EnumAttrCase<"atanh", 26>]> {
  let cppNamespace = "::mlir::bwc";
}

def BWC_BinaryFn : I32EnumAttr<"BinaryFn", "elementwise binary function", [
    I32EnumAttrCase<"add", 0>, I32EnumAttrCase<"sub", 1>,
    I32EnumAttrCase<"mul", 2>, I32EnumAttrCase<"div", 3>,
    I32EnumAttrCase<"pow", 4>, I32EnumAttrCase<"max", 5>,
    I32EnumAttrCase<"min", 6>, I32EnumAttrCase<"mod", 7>,
    I32EnumAttrCase<"fmod", 8>, I32EnumAttrCase<"eq", 9>,
    I32EnumAttrCase<"lt", 10>, I32EnumAttrCase<"gt", 11>,
    I32EnumAttrCase<"le", 12>, I32EnumAttrCase<"ge", 13>,
    I32EnumAttrCase<"and_", 14, "and">, I32EnumAttrCase<"or_", 15, "or">,
    I32EnumAttrCase<"xor_", 16, "xor">, I32EnumAttrCase<"shl", 17>,
    I32EnumAttrCase<"shr", 18>]> {
  let cppNamespace = "::mlir::bwc";
}

def BWC_ReduceKind : I32EnumAttr<"ReduceKind", "reduction kind", [
    I32EnumAttrCase<"sum", 0>, I32EnumAttrCase<"mean", 1>,
    I32EnumAttrCase<"max", 2>, I32EnumAttrCase<"min", 3>,
    I32EnumAttrCase<"prod", 4>]> {
  let cppNamespace = "::mlir::bwc";
}

def BWC_ArgReduceKind : I32EnumAttr<"ArgReduceKind", "index reduction kind", [
    I32EnumAttrCase<"argmax", 0>, I32EnumAttrCase<"argmin", 1>]> {
  let cppNamespace = "::mlir::bwc";
}

def BWC_PoolKind : I32EnumAttr<"PoolKind", "pooling kind", [
    I32EnumAttrCase<"max", 0>, I32EnumAttrCase<"avg", 1>]> {
  let cppNamespace = "::mlir::bwc";
}

def BWC_PadMode : I32EnumAttr<"PadMode", "padding mode", [
    I32EnumAttrCase<"constant", 0>, I32EnumAttrCase<"reflect", 1>,
    I32EnumAttrCase<"edge", 2>]> {
  let cppNamespace = "::mlir::bwc";
}

def BWC_ResizeMode : I32EnumAttr<"ResizeMode", "resize interpolation", [
    I32EnumAttrCase<"nearest", 0>, I32EnumAttrCase<"linear", 1>,
    I32EnumAttrCase<"cubic", 2>]> {
  let cppNamespace = "::mlir::bwc";
}

def BWC_CoordMode : I32EnumAttr<"CoordMode",
    "resize coordinate transformation (ONNX coordinate_transformation_mode)", [
    I32EnumAttrCase<"half_pixel", 0>, I32EnumAttrCase<"asymmetric", 1>,
    I32EnumAttrCase<"align_corners", 2>,
    I32EnumAttrCase<"pytorch_half_pixel", 3>,
    I32EnumAttrCase<"tf_half_pixel_for_nn", 4>]> {
  let cppNamespace = "::mlir::bwc";
}

def BWC_NearestMode : I32EnumAttr<"NearestMode", "resize nearest rounding", [
    I32EnumAttrCase<"round_prefer_floor", 0>,
    I32EnumAttrCase<"round_prefer_ceil", 1>,
    I32EnumAttrCase<"floor", 2>, I32EnumAttrCase<"ceil", 3>]> {
  let cppNamespace = "::mlir::bwc";
}

def BWC_FusionKind : I32EnumAttr<"FusionKind",
    "what a fusion region computes, which decides its kernel emitter", [
    I32EnumAttrCase<"loop", 0>, I32EnumAttrCase<"reduction", 1>,
    I32EnumAttrCase<"contraction", 2>]> {
  let cppNamespace = "::mlir::bwc";
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

def BWC_Element : AnyTypeOf<[F16, BF16, F32, F64, I1, I8, I16, I32, I64,
                             UI8, UI16, UI32, UI64]>;
def BWC_Tensor : StaticShapeTensorOf<[BWC_Element]>;
def BWC_FloatTensor : StaticShapeTensorOf<[F16, BF16, F32, F64]>;
def BWC_IndexTensor : StaticShapeTensorOf<[I32, I64]>;

#endif // BWC_DIALECT_BWC_IR_BWCBASE_TD
