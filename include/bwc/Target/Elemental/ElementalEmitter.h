//===- ElementalEmitter.h - One element of any value of a kernel -*- C++ -*-===//
//
// The shared core of the kernel emitters (XLA's "elemental IR emitter"):
// given an outlined kernel function (bwc ops on tensors, static shapes) and
// the flat buffers its arguments live in, it emits the scalar code that
// computes ONE element of any value of the kernel at a given index:
//
//   - a kernel argument: a load from its buffer (row-major linearization);
//   - an inline constant: the constant (splat or per-element select);
//   - unary/binary/select/cast: the operands' elements (numpy broadcasting
//     folded into the index), then the scalar op;
//   - broadcast/reshape/transpose/slice/concat/pad/gather/resize: index
//     arithmetic on the operand's element (guarded where an index may fall
//     outside an operand, so that no load ever reads out of bounds);
//   - reduce/arg_reduce/matmul/conv/pool: a sequential loop (scf.for with
//     f32-or-wider accumulation where the op asks for it) over the reduced
//     elements, unless the driver bound the value (bindValue) because it
//     computed it itself (a block-wide row reduction on the GPU, the row
//     pass of a CPU reduction kernel).
//
// Drivers decide the iteration: the CPU elemental driver loops over output
// elements; the CUDA emitters map output elements to threads, warps and
// blocks. The emitter itself knows nothing of threads, so its semantics are
// checked on the CPU against the ONNX references and then reused unchanged
// on the GPU.
//
// The emitted code uses the arith, math, scf and memref dialects only, on
// signless scalar types (the kernel's unsigned integers are computed as
// signless values with unsigned ops). No `math` op without a GPU lowering
// may be emitted: the CUDA target lowers math ops through polynomial
// approximations, not libm/libdevice.
//
//===----------------------------------------------------------------------===//
#ifndef BWC_TARGET_ELEMENTAL_ELEMENTALEMITTER_H
#define BWC_TARGET_ELEMENTAL_ELEMENTALEMITTER_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

#include <map>
#include <vector>

namespace mlir::bwc {

class ElementalEmitter {
public:
  /// `kernel` is the outlined kernel (tensor form, before any lowering); it
  /// is only read. `argBuffers[i]` is a 1-D static memref (memref<N x T>,
  /// T signless, N the element count of argument i) in the code being
  /// built, holding kernel argument i in row-major order.
  ElementalEmitter(func::FuncOp kernel, ValueRange argBuffers);

  /// Emits, at the builder's insertion point, the code computing element
  /// `index` of `value` (a value defined in `kernel`: a block argument or an
  /// op result). `index` holds one `index`-typed value per dimension of the
  /// value's type (empty for rank 0). Returns the scalar (signless element
  /// type), or failure after emitting an error at the op it cannot handle
  /// ("expects ... but got ..."), never a crash.
  FailureOr<Value> emit(OpBuilder &b, Location loc, Value value,
                        ValueRange index);

  /// The elements `indices` of `value` (one index each, as emit() takes).
  /// A convolution computes them in one loop nest with one accumulator
  /// each, so that the loads of a tap sit side by side: the CUDA `loop`
  /// driver's groups of consecutive channels, whose loads
  /// bwc-vectorize-gpu-loads merges into 16-byte vectors. Any other value
  /// (or a bound one) element by element, as emit().
  FailureOr<SmallVector<Value>> emitGroup(OpBuilder &b, Location loc,
                                          Value value,
                                          ArrayRef<SmallVector<Value>> indices);

  /// Same, with the index given as a row-major linear index into `value`.
  FailureOr<Value> emitLinear(OpBuilder &b, Location loc, Value value,
                              Value linearIndex);

  /// Tells the emitter that every element of `value` the next emit() calls
  /// ask for is `scalar` (a driver computed it: e.g. the reduction of the
  /// current row, the accumulator of the current output element). Element
  /// requests for `value` then return `scalar` whatever the index; the
  /// driver guarantees they ask for the element it computed.
  void bindValue(Value value, Value scalar) { bound[value] = scalar; }
  void unbindValue(Value value) { bound.erase(value); }
  void clearBindings() { bound.clear(); }

  /// emit() memoizes (value, index operands) -> scalar so that a DAG with
  /// reconvergent uses (gelu's x, softmax's exp) is emitted once per index,
  /// not once per path. A cached scalar is reused only where it dominates
  /// the insertion point; drivers call clearCache() when they leave the
  /// region the cached code lives in.
  void clearCache();

  /// For a `bwc.reduce` input element: the full input index of reduced
  /// position `reducedIndex` (one value per reduced axis, in axis order) of
  /// the output element `outIndex` (the reduce result's index; keepdims or
  /// not). Drivers use it to iterate a row themselves.
  SmallVector<Value> reduceInputIndex(OpBuilder &b, Location loc,
                                      Operation *reduce, ValueRange outIndex,
                                      ValueRange reducedIndex);

  /// The pieces of a `bwc.reduce` (non-empty axes) for drivers that
  /// iterate a row themselves (the CPU row pass, a GPU block reduction):
  /// the accumulator's identity; input element `reducedIndex` of output
  /// element `outIndex`, converted to the accumulator type; the combination
  /// of two partial accumulators (associative, so threads may combine in
  /// any tree); the output element from the final accumulator (mean's
  /// division, the rounding to the element type). Sequentially:
  ///   acc = identity; for each j: acc = combine(acc, element(j));
  ///   result = finish(acc)
  /// is exactly what emit() computes for the reduce.
  Value reduceIdentity(OpBuilder &b, Location loc, Operation *reduce);
  FailureOr<Value> reduceElement(OpBuilder &b, Location loc, Operation *reduce,
                                 ValueRange outIndex, ValueRange reducedIndex);
  Value reduceCombine(OpBuilder &b, Location loc, Operation *reduce, Value lhs,
                      Value rhs);
  Value reduceFinish(OpBuilder &b, Location loc, Operation *reduce, Value acc);

  /// Row-major index helpers (static shapes).
  static SmallVector<Value> delinearize(OpBuilder &b, Location loc,
                                        Value linear, ArrayRef<int64_t> shape);
  static Value linearize(OpBuilder &b, Location loc, ValueRange index,
                         ArrayRef<int64_t> shape);

  func::FuncOp getKernel() const { return kernel; }
  /// The CPU check of GemmView: float direct convolutions with groups 1
  /// summed over their implicit-GEMM view instead of their window (see
  /// bwc-emit-elemental-kernels' conv-via-gemm).
  void setConvViaGemm(bool on) { convViaGemm = on; }
  bool getConvViaGemm() const { return convViaGemm; }
  ValueRange getArgBuffers() const { return argBuffers; }

  /// The type `op` (a reduce, matmul, conv or pool) sums in: its
  /// `acc_type` attribute when set, else f32 for f16/bf16 elements, else
  /// the (signless) element type `elt`.
  static Type accumulatorType(Operation *op, Type elt);

private:
  FailureOr<Value> emitOp(OpBuilder &b, Location loc, Operation *op,
                          ValueRange index);
  FailureOr<Value> emitConstant(OpBuilder &b, Location loc, Operation *op,
                                ValueRange index);

  func::FuncOp kernel;
  SmallVector<Value> argBuffers;
  bool convViaGemm = false;
  llvm::DenseMap<Value, Value> bound;
  /// (value, index operands...) -> scalar, see clearCache().
  std::map<std::vector<const void *>, Value> cache;
  /// Constants too large to select from: the memref.global holding them.
  llvm::DenseMap<Operation *, StringAttr> constantGlobals;
};

} // namespace mlir::bwc

#endif // BWC_TARGET_ELEMENTAL_ELEMENTALEMITTER_H
