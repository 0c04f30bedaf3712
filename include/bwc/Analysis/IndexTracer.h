//===- IndexTracer.h - Which input elements an output element reads -*- C++ -*-===//
//
// A concrete integer interpreter of bwc index maps: given one element of a
// value inside a kernel, the elements of the kernel's arguments it reads.
// Data-dependent indices (gather) assume index value = position in the
// indices tensor. Reductions, contractions and windows enumerate their first
// `windowIterations` reduced positions (the iterations a thread runs close
// together in time), unless an op is `bound` (its value is already in
// registers or shared memory) or has explicit `reducedPositions`.
//
//===----------------------------------------------------------------------===//
#ifndef BWC_ANALYSIS_INDEXTRACER_H
#define BWC_ANALYSIS_INDEXTRACER_H

#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir::bwc {

using Index = SmallVector<int64_t, 6>;

/// Row-major linear index of `idx` in `shape`.
int64_t linearize(ArrayRef<int64_t> idx, ArrayRef<int64_t> shape);
/// The multi-index of `linear` in `shape`.
Index delinearize(int64_t linear, ArrayRef<int64_t> shape);

class IndexTracer {
public:
  /// Called once per distinct (argument, element) read.
  using ReadFn = function_ref<void(unsigned arg, int64_t element)>;

  int64_t windowIterations = 32;
  /// Ops whose values are not recomputed (no reads below them).
  llvm::DenseSet<Operation *> bound;
  /// Reduced positions (linear over the reduced dims) a reduce, arg_reduce
  /// or matmul (K) enumerates instead of the first windowIterations.
  llvm::DenseMap<Operation *, SmallVector<int64_t>> reducedPositions;
  /// Visits per trace() before it stops (a guard against huge windows).
  int64_t budget = 1 << 16;

  /// Reports the argument elements element `idx` of `v` reads.
  void trace(Value v, ArrayRef<int64_t> idx, ReadFn read);

private:
  void visit(Value v, ArrayRef<int64_t> idx);
  void visitOp(Operation *op, unsigned resultNo, ArrayRef<int64_t> idx);
  /// A conv or pool (either layout): its window and channel reads.
  void visitWindow(Operation *op, ArrayRef<int64_t> idx);
  /// The reduced positions `op` enumerates out of `count`.
  SmallVector<int64_t> positions(Operation *op, int64_t count);

  llvm::DenseSet<std::pair<Value, int64_t>> seen;
  ReadFn *reader = nullptr;
  int64_t left = 0;
};

} // namespace mlir::bwc

#endif // BWC_ANALYSIS_INDEXTRACER_H
