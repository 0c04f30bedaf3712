//===- BufferPlan.h - Offsets of intermediate buffers in one arena -*- C++
//-*-===//
//
// The buffer planner, without IR: buffers with a size and a live range over
// the launch order get offsets in one arena so that buffers live at the same
// launch never share bytes. Three planners run and the smallest arena wins:
// greedy-by-size (largest first, lowest fitting offset, as TFLite), best-fit
// in time order (as XLA's heap simulator), and, when both miss the lower
// bound, a bounded backtracking search for a smaller arena that keeps the
// better of the two unless it beats it. The lower bound is
// the peak of simultaneously live bytes, which no placement can beat for a
// fixed order.
//
//===----------------------------------------------------------------------===//
#ifndef BWC_ANALYSIS_BUFFERPLAN_H
#define BWC_ANALYSIS_BUFFERPLAN_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <string>
#include <vector>

namespace mlir::bwc {

/// Every arena offset, and the arena size, is a multiple of this.
constexpr uint64_t kArenaAlignment = 256;

/// `bytes` rounded up to kArenaAlignment (a zero-byte buffer still takes
/// one aligned slot, so every buffer has an address of its own).
uint64_t alignedBufferBytes(uint64_t bytes);

/// One buffer to place. Live on the closed range of launches
/// [firstDef, lastUse]: a kernel reads its inputs and writes its results
/// during one launch, so an input that dies at launch t and a result born
/// at t are both live at t.
struct PlanBuffer {
  uint64_t bytes = 0;
  int64_t firstDef = 0;
  int64_t lastUse = 0;
  /// Index of a buffer whose storage this one takes over in place (the
  /// kernel writes it element by element over that input), or -1. Legal
  /// only when that buffer's lastUse is this one's firstDef and no other
  /// buffer took it over; the caller decides that the kernel allows it.
  int64_t inPlaceOf = -1;
  /// The branch guards of the launch writing it (bwc-guard-branches):
  /// (condition id, then?) pairs, all of which hold in every run that
  /// writes or reads it. Two buffers whose guards need opposite branches
  /// of one condition are never both written in one run, so they may share
  /// bytes even while both are live.
  std::vector<std::pair<int64_t, bool>> guards;
};

/// True when guards `a` and `b` need opposite branches of some condition.
bool exclusiveBranches(llvm::ArrayRef<std::pair<int64_t, bool>> a,
                       llvm::ArrayRef<std::pair<int64_t, bool>> b);

enum class PlannerKind { GreedyBySize, BestFit, Search };

/// "greedy-by-size", "best-fit" or "search".
llvm::StringRef stringifyPlannerKind(PlannerKind kind);

struct BufferPlan {
  /// One offset per buffer, kArenaAlignment-aligned.
  std::vector<uint64_t> offsets;
  uint64_t arenaBytes = 0;
  /// Peak over launches of the (aligned) bytes live at once, counting an
  /// in-place pair once: no placement in this order does better.
  uint64_t lowerBoundBytes = 0;
  /// Sum of the aligned sizes: the arena without any reuse.
  uint64_t noReuseBytes = 0;
  PlannerKind planner = PlannerKind::GreedyBySize;
  /// The arena each planner produced (the smallest one is kept). The
  /// search starts from the smaller greedy arena and never ends above it;
  /// searchBytes is 0 when the search did not run.
  uint64_t greedyBySizeBytes = 0, bestFitBytes = 0, searchBytes = 0;
  /// Placements the search tried (at most the node budget).
  uint64_t searchNodes = 0;
  /// For each buffer, the in-place claim that was honoured (its inPlaceOf,
  /// or -1 where the claim was not legal).
  std::vector<int64_t> inPlaceOf;
};

/// Greedy-by-size placement alone: offsets per buffer, arena in `arena`.
std::vector<uint64_t> planGreedyBySize(llvm::ArrayRef<PlanBuffer> buffers,
                                       uint64_t &arena);
/// Best-fit in time order alone: offsets per buffer, arena in `arena`.
std::vector<uint64_t> planBestFit(llvm::ArrayRef<PlanBuffer> buffers,
                                  uint64_t &arena);
/// Placements the search may try. A few milliseconds on ~100 groups; enough
/// to close ppocr_cls after fusion (see docs/passes/bwc-plan-buffers.md).
constexpr uint64_t kSearchNodeBudget = 200000;

/// Runs both greedy planners, then the search (at most `nodeBudget`
/// placements; 0 skips it) from the smaller of their arenas, and keeps the
/// smallest arena (greedy-by-size on ties, the search only when strictly
/// smaller).
BufferPlan planBuffers(llvm::ArrayRef<PlanBuffer> buffers,
                       uint64_t nodeBudget = kSearchNodeBudget);
/// Runs one greedy planner only, without the search (the lower bound and
/// no-reuse figures are still computed). Search needs a greedy incumbent, so
/// `Search` is the overload above with the default budget.
BufferPlan planBuffers(llvm::ArrayRef<PlanBuffer> buffers, PlannerKind kind);

/// Peak of the aligned bytes live at one launch (in-place pairs once) in
/// one run: with branch guards, the largest such peak over the runs'
/// branch choices (every choice when there are at most
/// kMaxEnumeratedConditions conditions, else all-then and all-else).
uint64_t lowerBoundBytes(llvm::ArrayRef<PlanBuffer> buffers);
constexpr unsigned kMaxEnumeratedConditions = 10;

/// A violated plan: buffers `first` and `second` (indices) share bytes
/// [begin, end) while both live at `launch`; or, with second == -1, buffer
/// `first` occupies [begin, end) outside [0, arena); or is misaligned.
struct PlanConflict {
  enum Kind { Overlap, OutsideArena, Misaligned } kind;
  int64_t first = -1, second = -1;
  uint64_t begin = 0, end = 0;
  int64_t launch = 0;
};

/// Every violation of a plan: overlaps in bytes [offset, offset + bytes)
/// (unaligned sizes) of buffers live at the same launch, except a declared
/// in-place pair at the same offset at its hand-over launch and buffers of
/// opposite branches (exclusiveBranches); bytes outside
/// [0, arena); offsets not kArenaAlignment-aligned.
std::vector<PlanConflict> checkPlan(llvm::ArrayRef<PlanBuffer> buffers,
                                    llvm::ArrayRef<uint64_t> offsets,
                                    uint64_t arena);

} // namespace mlir::bwc

#endif // BWC_ANALYSIS_BUFFERPLAN_H
