//===- Remat.h - Recompute instead of keep, under a memory budget -*- C++ -*-===//
//
// Rematerialization without IR: a launch order of kernels reading and
// writing values, some of them in the arena. To shrink the arena, a value
// that lives across the peak is dropped after its early uses and its
// producer (and, where needed, a chain of producers back to values that are
// alive anyway) runs again just before the late uses. Two strategies:
// greedy by cost per byte saved at the peak (in the spirit of XLA's
// HloRematerialization), and Chen et al. 2016's checkpoint segments (keep
// the values made at every s-th launch, recompute the others from them).
// bwc-rematerialize maps the program function to and from this model.
//
//===----------------------------------------------------------------------===//
#ifndef BWC_ANALYSIS_REMAT_H
#define BWC_ANALYSIS_REMAT_H

#include "bwc/Analysis/BufferPlan.h"
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace mlir::bwc::remat {

/// One value of the program.
struct RValue {
  uint64_t bytes = 0;
  /// Intermediates are in the arena; graph inputs, weights and returned
  /// values are not (they are always available once produced).
  bool inArena = true;
  /// The launch (id) producing it, -1 for inputs and weights.
  int64_t producer = -1;
};

/// One launch: a kernel reading `operands` and writing `results` (value
/// ids). A recomputation has a fresh id and `kernel` naming the original
/// launch whose kernel it runs again.
struct RLaunch {
  int64_t kernel = -1;
  std::vector<int64_t> operands, results;
  /// (result, operand) index pairs the kernel may write in place (same
  /// type, bwc/Analysis/InPlace.h); taken, as bwc-plan-buffers does, when
  /// the operand is an intermediate that dies at this launch.
  std::vector<std::pair<unsigned, unsigned>> inPlace;
};

struct Program {
  std::vector<RValue> values;
  std::vector<RLaunch> launches; ///< by id; ids 0..n-1 are the originals
  std::vector<int64_t> order;    ///< launch ids in launch order
  /// Cost of each original kernel (indexed by RLaunch::kernel).
  std::vector<uint64_t> kernelFlops, kernelBytes;
};

/// Weight of one DRAM byte against one flop in the recompute cost: an H200
/// moves ~4.3 TB/s and computes ~67 TFLOP/s in f32, so a byte costs ~16 flops.
constexpr uint64_t kFlopsPerByte = 16;

/// The arena buffers of `p` (in-arena values, launch order, closed live
/// ranges, in-place claims), as bwc-plan-buffers builds them.
std::vector<PlanBuffer> arenaBuffers(const Program &p);
/// Live aligned arena bytes at each position of `p.order` (an in-place
/// result shares its operand's bytes at the hand-over launch).
std::vector<uint64_t> liveBytes(const Program &p);
/// The smallest arena bwc/Analysis/BufferPlan.h plans for `p`.
uint64_t plannedArena(const Program &p);

/// Makes the uses of value `v` at positions after `after` read a
/// recomputation placed just before the first of them. An operand of a
/// recomputed launch that is in the arena and dead at that point is itself
/// recomputed when `maxDepth` allows (a chain of producers, recursively) or
/// `dropped` (when non-empty, indexed by value id) marks it; otherwise its
/// live range is extended. Returns false when no use follows `after`.
bool recomputeLateUses(Program &p, int64_t v, size_t after, int maxDepth,
                       const std::vector<bool> &dropped = {});

enum class Strategy { Greedy, Checkpoints, Best };
/// "greedy", "checkpoints" or "best".
const char *stringifyStrategy(Strategy s);

struct Result {
  Program program; ///< the program kept (the input when nothing was needed)
  bool met = false;
  Strategy strategy = Strategy::Greedy; ///< the one whose program is kept
  uint64_t arenaBefore = 0, arenaAfter = 0;
  /// The smallest arena the strategy reached (met or not).
  uint64_t minArena = 0;
  uint64_t recomputedOps = 0, extraFlops = 0, extraBytes = 0;
  /// Strides the checkpoint strategy tried, with their arena and extra
  /// flops (for the strategy comparison); empty for greedy.
  std::vector<uint64_t> strides;
};

/// Greedy: while the planned arena exceeds `budget`, recompute the value
/// live across the peak (chains up to 3 producers deep) with the lowest
/// cost (flops + kFlopsPerByte * bytes) per live byte removed near the peak.
/// The sequence of steps does not depend on `budget` (it only says when to
/// stop), so a budget equal to a reported minimum is met.
Result rematerializeGreedy(const Program &p, uint64_t budget);
/// Checkpoints: for strides s (1, 2, 3, 4, 6, 8, ... up to the launch
/// count), keep the values made at every s-th launch, and recompute every
/// other value that outlives its segment from the kept ones before its
/// first use past the segment. Keeps the cheapest stride meeting `budget`,
/// else the one with the smallest arena.
Result rematerializeCheckpoints(const Program &p, uint64_t budget);
/// Runs `s` (both for Best, keeping the cheaper one meeting the budget, else
/// the smaller arena).
Result rematerialize(const Program &p, uint64_t budget, Strategy s);

} // namespace mlir::bwc::remat

#endif // BWC_ANALYSIS_REMAT_H
