//===- Bf16MemoryAsI16.cpp - bf16 values that are only moved, as i16 ------===//
//
// bwc-bf16-memory-as-i16 (include/bwc/Conversion/Passes.td): after the CPU
// pipeline, bf16 is a storage type only (arith-emulate-unsupported-floats
// computes in f32, arith-expand turns the conversions into integer
// arithmetic). The loads, stores, constants and selects that still carry
// bf16 values are rewritten to carry the same bits as i16, so that LLVM's
// x86 back end never promotes a moved bf16 value to f32 and truncates it
// back through `__truncsfbf2`.
//
//===----------------------------------------------------------------------===//
#include "bwc/Conversion/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinAttributes.h"

namespace mlir::bwc {
#define GEN_PASS_DEF_BF16MEMORYASI16PASS
#include "bwc/Conversion/Passes.h.inc"
} // namespace mlir::bwc

using namespace mlir;

namespace {

/// The i16 type of the same bits as `t` (bf16 or a vector of bf16), or null.
Type bitsTypeOf(Type t) {
  if (t.isBF16())
    return IntegerType::get(t.getContext(), 16);
  if (auto v = dyn_cast<VectorType>(t); v && v.getElementType().isBF16())
    return v.clone(IntegerType::get(t.getContext(), 16));
  return {};
}

Value toBits(OpBuilder &b, Location loc, Value v) {
  return LLVM::BitcastOp::create(b, loc, bitsTypeOf(v.getType()), v);
}

/// Gives `result` its bits type and a bitcast back to bf16 for its users.
void retypeResult(OpBuilder &b, Value result) {
  Type bf16 = result.getType();
  result.setType(bitsTypeOf(bf16));
  b.setInsertionPointAfterValue(result);
  auto cast = LLVM::BitcastOp::create(b, result.getLoc(), bf16, result);
  result.replaceAllUsesExcept(cast.getResult(), cast);
}

struct Bf16MemoryAsI16Pass
    : bwc::impl::Bf16MemoryAsI16PassBase<Bf16MemoryAsI16Pass> {
  void runOnOperation() override {
    OpBuilder b(&getContext());
    getOperation().walk([&](Operation *op) {
      if (auto load = dyn_cast<LLVM::LoadOp>(op)) {
        if (bitsTypeOf(load.getType()))
          retypeResult(b, load.getResult());
      } else if (auto store = dyn_cast<LLVM::StoreOp>(op)) {
        if (bitsTypeOf(store.getValue().getType())) {
          b.setInsertionPoint(store);
          store.getValueMutable().assign(
              toBits(b, store.getLoc(), store.getValue()));
        }
      } else if (auto select = dyn_cast<LLVM::SelectOp>(op)) {
        if (bitsTypeOf(select.getType())) {
          b.setInsertionPoint(select);
          select.getTrueValueMutable().assign(
              toBits(b, select.getLoc(), select.getTrueValue()));
          select.getFalseValueMutable().assign(
              toBits(b, select.getLoc(), select.getFalseValue()));
          retypeResult(b, select.getResult());
        }
      } else if (auto constant = dyn_cast<LLVM::ConstantOp>(op)) {
        Type bits = bitsTypeOf(constant.getType());
        if (!bits)
          return;
        Attribute value;
        if (auto f = dyn_cast<FloatAttr>(constant.getValue()))
          value = IntegerAttr::get(bits, f.getValue().bitcastToAPInt());
        else if (auto d =
                     dyn_cast<DenseFPElementsAttr>(constant.getValue()))
          value = d.bitcast(cast<VectorType>(bits).getElementType());
        if (!value)
          return;
        constant.setValueAttr(value);
        retypeResult(b, constant.getResult());
      }
    });
  }
};

} // namespace
