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
// Each read carries a site: a hash of the argument and of the loop
// iterations it lies in (which reduction or window, which of its
// positions), so that the reads two threads make at one site are the
// lanes of one warp-level request (the k-th execution of one load by each
// lane, as cuda-sim's counters define a request), and a weight: how many
// executions of that load the read stands for (a window's or reduction's
// positions over those enumerated). A window tap in the padding is read at
// its clamped position, as the elemental emitter loads it (and selects 0).
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

/// One read of a kernel argument's element.
struct TracedRead {
  unsigned arg;
  int64_t element;
  uint64_t site;  ///< the load and loop iteration (see above)
  double weight;  ///< executions of the load it stands for
  /// Under a branch of the emitter (a concat's input, a constant pad's
  /// inside): its own scf.if per element, never merged into a vector.
  bool branched;
};

class IndexTracer {
public:
  /// Called once per distinct (argument, element, site) read.
  using ReadFn = function_ref<void(const TracedRead &)>;

  int64_t windowIterations = 32;
  /// Ops whose values are not recomputed (no reads below them).
  llvm::DenseSet<Operation *> bound;
  /// Reduced positions (linear over the reduced dims) a reduce, arg_reduce
  /// or matmul (K) enumerates instead of the first windowIterations.
  llvm::DenseMap<Operation *, SmallVector<int64_t>> reducedPositions;
  /// Executions each of an op's `reducedPositions` stands for (default:
  /// the op's reduced positions over the listed ones).
  llvm::DenseMap<Operation *, double> reducedWeights;
  /// Visits per trace() before it stops (a guard against huge windows
  /// and nested reductions: a fused softmax-backward kernel of a float64
  /// transformer training step, one thread per output, enumerates 32
  /// positions at each of three nested levels; at 2^16 visits per trace
  /// its ~1,000 sample lanes took 31 s of a 70 s compile, at 2^12 the
  /// whole compile takes 10 s and its figure moves by 0.001).
  int64_t budget = 1 << 12;

  /// Reports the argument elements element `idx` of `v` reads.
  void trace(Value v, ArrayRef<int64_t> idx, ReadFn read);

private:
  void visit(Value v, ArrayRef<int64_t> idx);
  void visitOp(Operation *op, unsigned resultNo, ArrayRef<int64_t> idx);
  /// A conv or pool (either layout): its window and channel reads.
  void visitWindow(Operation *op, ArrayRef<int64_t> idx);
  /// The reduced positions `op` enumerates out of `count`, and the
  /// executions each stands for.
  SmallVector<int64_t> positions(Operation *op, int64_t count,
                                 double &weight);
  /// Visits below iteration `position` of `op`'s loop.
  void visitIn(Operation *op, int64_t position, double weight, Value v,
               ArrayRef<int64_t> idx);

  llvm::DenseSet<std::pair<Value, std::pair<int64_t, uint64_t>>> seen;
  ReadFn *reader = nullptr;
  int64_t left = 0;
  uint64_t context = 0; ///< hash of the enclosing loop iterations
  double weight = 1;
  bool branched = false;
};

} // namespace mlir::bwc

#endif // BWC_ANALYSIS_INDEXTRACER_H
