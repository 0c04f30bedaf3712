//===- BufferPlan.cpp - Offsets of intermediate buffers in one arena -----===//
//
// The planners work on groups: a buffer and the buffers that take over its
// storage in place form one group with one offset, live from the first
// definition to the last use of any member.
//
//===----------------------------------------------------------------------===//
#include "bwc/Analysis/BufferPlan.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/MathExtras.h"
#include <algorithm>
#include <iterator>
#include <map>
#include <numeric>
#include <queue>

using namespace mlir::bwc;

bool mlir::bwc::exclusiveBranches(
    llvm::ArrayRef<std::pair<int64_t, bool>> a,
    llvm::ArrayRef<std::pair<int64_t, bool>> b) {
  for (const auto &x : a)
    for (const auto &y : b)
      if (x.first == y.first && x.second != y.second)
        return true;
  return false;
}

uint64_t mlir::bwc::alignedBufferBytes(uint64_t bytes) {
  return llvm::alignTo(std::max<uint64_t>(bytes, 1), kArenaAlignment);
}

llvm::StringRef mlir::bwc::stringifyPlannerKind(PlannerKind kind) {
  switch (kind) {
  case PlannerKind::GreedyBySize:
    return "greedy-by-size";
  case PlannerKind::BestFit:
    return "best-fit";
  case PlannerKind::Search:
    return "search";
  }
  llvm_unreachable("unknown planner kind");
}

namespace {

using Guards = std::vector<std::pair<int64_t, bool>>;

struct Group {
  uint64_t bytes = 0; // aligned
  int64_t start = 0, end = 0;
  /// The guards every member's launch has (the intersection).
  Guards guards;
};

bool liveTogether(const Group &a, const Group &b) {
  return a.start <= b.end && b.start <= a.end &&
         !mlir::bwc::exclusiveBranches(a.guards, b.guards);
}

/// The in-place claims that are legal: the claimed buffer dies at the
/// claimant's definition, was defined before it, and nobody else claimed it.
std::vector<int64_t> legalClaims(llvm::ArrayRef<PlanBuffer> buffers) {
  std::vector<int64_t> claim(buffers.size(), -1);
  std::vector<bool> taken(buffers.size(), false);
  for (auto [i, b] : llvm::enumerate(buffers)) {
    int64_t a = b.inPlaceOf;
    if (a < 0 || a >= (int64_t)buffers.size() || a == (int64_t)i || taken[a])
      continue;
    if (buffers[a].lastUse != b.firstDef || buffers[a].firstDef >= b.firstDef)
      continue;
    taken[a] = true;
    claim[i] = a;
  }
  return claim;
}

/// Groups buffers by legal in-place claims: `groupOf[i]` is buffer i's group.
std::vector<Group> makeGroups(llvm::ArrayRef<PlanBuffer> buffers,
                              llvm::ArrayRef<int64_t> claim,
                              std::vector<size_t> &groupOf) {
  size_t n = buffers.size();
  std::vector<size_t> root(n);
  std::iota(root.begin(), root.end(), 0);
  auto find = [&](size_t i) {
    while (root[i] != i)
      i = root[i] = root[root[i]];
    return i;
  };
  for (size_t i = 0; i < n; ++i)
    if (claim[i] >= 0)
      root[find(i)] = find(claim[i]);
  std::vector<Group> groups;
  std::vector<int64_t> index(n, -1);
  groupOf.assign(n, 0);
  for (size_t i = 0; i < n; ++i) {
    size_t r = find(i);
    uint64_t bytes = alignedBufferBytes(buffers[i].bytes);
    if (index[r] < 0) {
      index[r] = groups.size();
      groups.push_back({bytes, buffers[i].firstDef, buffers[i].lastUse,
                        buffers[i].guards});
    } else {
      Group &g = groups[index[r]];
      g.bytes = std::max(g.bytes, bytes);
      g.start = std::min(g.start, buffers[i].firstDef);
      g.end = std::max(g.end, buffers[i].lastUse);
      Guards both;
      for (const auto &x : g.guards)
        if (llvm::is_contained(buffers[i].guards, x))
          both.push_back(x);
      g.guards = std::move(both);
    }
    groupOf[i] = index[r];
  }
  return groups;
}

std::vector<uint64_t> greedyBySize(llvm::ArrayRef<Group> groups,
                                   uint64_t &arena) {
  std::vector<size_t> order(groups.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (groups[a].bytes != groups[b].bytes)
      return groups[a].bytes > groups[b].bytes;
    return groups[a].start < groups[b].start;
  });
  std::vector<uint64_t> offset(groups.size(), 0);
  std::vector<size_t> placed;
  arena = 0;
  for (size_t g : order) {
    std::vector<size_t> conflicts;
    for (size_t p : placed)
      if (liveTogether(groups[g], groups[p]))
        conflicts.push_back(p);
    llvm::sort(conflicts,
               [&](size_t a, size_t b) { return offset[a] < offset[b]; });
    uint64_t at = 0;
    for (size_t p : conflicts) {
      if (offset[p] >= at + groups[g].bytes)
        break;
      at = std::max(at, offset[p] + groups[p].bytes);
    }
    offset[g] = at;
    arena = std::max(arena, at + groups[g].bytes);
    placed.push_back(g);
  }
  return offset;
}

std::vector<uint64_t> bestFit(llvm::ArrayRef<Group> groups, uint64_t &arena) {
  std::vector<size_t> order(groups.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (groups[a].start != groups[b].start)
      return groups[a].start < groups[b].start;
    return groups[a].bytes > groups[b].bytes;
  });
  std::vector<uint64_t> offset(groups.size(), 0);
  std::map<uint64_t, uint64_t> freeBlocks; // offset -> bytes, coalesced
  auto release = [&](uint64_t at, uint64_t bytes) {
    auto next = freeBlocks.lower_bound(at);
    if (next != freeBlocks.end() && next->first == at + bytes) {
      bytes += next->second;
      next = freeBlocks.erase(next);
    }
    if (next != freeBlocks.begin()) {
      auto prev = std::prev(next);
      if (prev->first + prev->second == at) {
        prev->second += bytes;
        return;
      }
    }
    freeBlocks[at] = bytes;
  };
  using Live = std::pair<int64_t, size_t>; // (end, group)
  std::priority_queue<Live, std::vector<Live>, std::greater<Live>> live;
  arena = 0;
  for (size_t g : order) {
    while (!live.empty() && live.top().first < groups[g].start) {
      size_t dead = live.top().second;
      live.pop();
      release(offset[dead], groups[dead].bytes);
    }
    uint64_t need = groups[g].bytes;
    auto best = freeBlocks.end();
    for (auto it = freeBlocks.begin(); it != freeBlocks.end(); ++it)
      if (it->second >= need &&
          (best == freeBlocks.end() || it->second < best->second))
        best = it;
    if (best != freeBlocks.end()) {
      offset[g] = best->first;
      uint64_t rest = best->second - need;
      freeBlocks.erase(best);
      if (rest)
        freeBlocks[offset[g] + need] = rest;
    } else if (!freeBlocks.empty() &&
               std::prev(freeBlocks.end())->first +
                       std::prev(freeBlocks.end())->second ==
                   arena) {
      // Grow the arena from the free block at its end.
      offset[g] = std::prev(freeBlocks.end())->first;
      freeBlocks.erase(std::prev(freeBlocks.end()));
      arena = offset[g] + need;
    } else {
      offset[g] = arena;
      arena += need;
    }
    live.push({groups[g].end, g});
  }
  return offset;
}

/// Searches for offsets of `groups` within `target` bytes; true and
/// `offset` filled when found. Groups go largest first, as greedy-by-size,
/// and each tries, lowest first, offset 0, the top of each placed group live
/// with it, the bottom of one minus its own size, and `target` minus its
/// size. The last two are what greedy-by-size lacks: on ppocr_cls after
/// fusion, two 600-slot buffers must leave a 96-slot gap below them for a
/// smaller buffer placed later. A failed group only depends on the groups
/// live with it, so the search jumps back to the deepest of those (conflict-
/// directed backjumping) instead of retrying the unrelated groups placed in
/// between. `nodes` counts placements; the search gives up at `budget`.
bool fitWithin(llvm::ArrayRef<Group> groups, uint64_t target,
               uint64_t budget, uint64_t &nodes,
               std::vector<uint64_t> &offset) {
  size_t n = groups.size();
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (groups[a].bytes != groups[b].bytes)
      return groups[a].bytes > groups[b].bytes;
    return groups[a].start < groups[b].start;
  });
  // earlier[d]: the depths before d whose group is live with order[d].
  std::vector<std::vector<size_t>> earlier(n);
  for (size_t d = 0; d < n; ++d)
    for (size_t e = 0; e < d; ++e)
      if (liveTogether(groups[order[d]], groups[order[e]]))
        earlier[d].push_back(e);
  std::vector<uint64_t> at(n, 0); // by depth
  // blame[d]: the depths (ascending) whose placement a failure at d
  // depends on: those live with it, and what deeper failures that jumped
  // back to d blamed. Sparse, so that a placement costs in the size of the
  // live set rather than in n (a training step has ~1,000 groups).
  std::vector<std::vector<uint32_t>> blame(n);
  std::vector<std::pair<uint64_t, uint64_t>> occupied; // [begin, end)
  std::vector<uint64_t> candidates;
  std::vector<uint32_t> merged;
  constexpr int64_t kFound = -2, kGiveUp = -3;
  // Returns kFound, kGiveUp, or the depth to resume at (-1: no plan).
  auto place = [&](auto &self, size_t d) -> int64_t {
    if (d == n)
      return kFound;
    const Group &g = groups[order[d]];
    blame[d].assign(earlier[d].begin(), earlier[d].end());
    // The bytes the groups live with this one occupy, merged into disjoint
    // ascending segments: a candidate is free when the segment starting
    // last before its end ends at or before its start.
    occupied.clear();
    for (size_t e : earlier[d])
      occupied.push_back({at[e], at[e] + groups[order[e]].bytes});
    llvm::sort(occupied);
    size_t kept = 0;
    for (auto seg : occupied) {
      if (kept && seg.first <= occupied[kept - 1].second)
        occupied[kept - 1].second =
            std::max(occupied[kept - 1].second, seg.second);
      else
        occupied[kept++] = seg;
    }
    occupied.resize(kept);
    candidates.assign({0});
    if (target >= g.bytes)
      candidates.push_back(target - g.bytes);
    for (auto [begin, end] : occupied) {
      candidates.push_back(end);
      if (begin >= g.bytes)
        candidates.push_back(begin - g.bytes);
    }
    llvm::sort(candidates);
    candidates.erase(std::unique(candidates.begin(), candidates.end()),
                     candidates.end());
    // The candidates of this depth: `candidates` is reused below it.
    std::vector<uint64_t> mine;
    for (uint64_t c : candidates) {
      if (c + g.bytes > target)
        break;
      auto next = llvm::upper_bound(
          occupied, c + g.bytes - 1,
          [](uint64_t x, const std::pair<uint64_t, uint64_t> &seg) {
            return x < seg.first;
          });
      if (next != occupied.begin() && std::prev(next)->second > c)
        continue;
      mine.push_back(c);
    }
    for (uint64_t c : mine) {
      if (nodes >= budget)
        return kGiveUp;
      ++nodes;
      at[d] = c;
      int64_t next = self(self, d + 1);
      if (next != (int64_t)d)
        return next;
    }
    if (blame[d].empty())
      return -1;
    int64_t back = blame[d].back();
    // The jump target inherits this failure's other causes.
    auto below = llvm::lower_bound(blame[d], (uint32_t)back);
    merged.clear();
    std::set_union(blame[back].begin(), blame[back].end(), blame[d].begin(),
                   below, std::back_inserter(merged));
    blame[back].swap(merged);
    return back;
  };
  if (place(place, 0) != kFound)
    return false;
  offset.assign(n, 0);
  for (size_t d = 0; d < n; ++d)
    offset[order[d]] = at[d];
  return true;
}

/// Improves the incumbent `offset` (arena `arena`) by searching for a plan
/// within smaller targets: the lower bound first (the common case, and no
/// plan beats it), then by bisection between the best target that failed
/// and the best arena found. Each target gets half the placements left of
/// `nodeBudget`; a target that runs out counts as failed. Returns the
/// incumbent unless a complete plan, checked group by group against every
/// group live with it, beat it.
std::vector<uint64_t> search(llvm::ArrayRef<Group> groups,
                             std::vector<uint64_t> offset, uint64_t &arena,
                             uint64_t lowerBound, uint64_t nodeBudget,
                             uint64_t &nodes) {
  nodes = 0;
  uint64_t failed = lowerBound; // every target below this failed
  uint64_t target = lowerBound;
  while (target < arena && nodes < nodeBudget) {
    uint64_t used = 0;
    std::vector<uint64_t> found;
    bool ok = fitWithin(groups, target, (nodeBudget - nodes + 1) / 2, used,
                        found);
    nodes += used;
    if (ok) {
      offset = std::move(found);
      arena = 0;
      for (size_t g = 0; g < groups.size(); ++g)
        arena = std::max(arena, offset[g] + groups[g].bytes);
    } else {
      failed = target + kArenaAlignment;
    }
    target = llvm::alignDown(failed + (arena - failed) / 2, kArenaAlignment);
    target = std::max(target, failed);
  }
  return offset;
}

std::vector<uint64_t> expand(llvm::ArrayRef<uint64_t> groupOffsets,
                             llvm::ArrayRef<size_t> groupOf) {
  std::vector<uint64_t> offsets;
  for (size_t g : groupOf)
    offsets.push_back(groupOffsets[g]);
  return offsets;
}

/// The peak of the groups live at once among those a run taking the
/// branches `choice` (condition id -> then?) writes.
uint64_t peakLiveBytes(llvm::ArrayRef<Group> groups,
                       const std::map<int64_t, bool> &choice) {
  std::map<int64_t, int64_t> delta;
  for (const Group &g : groups) {
    bool written = llvm::all_of(g.guards, [&](const std::pair<int64_t, bool> &x) {
      auto it = choice.find(x.first);
      return it == choice.end() || it->second == x.second;
    });
    if (!written)
      continue;
    delta[g.start] += g.bytes;
    delta[g.end + 1] -= g.bytes;
  }
  int64_t live = 0, peak = 0;
  for (auto [t, d] : delta)
    peak = std::max(peak, live += d);
  return peak;
}

/// The largest peak over the branch choices of a run (each choice when
/// there are few conditions, else all-then and all-else: still a bound no
/// plan beats, as each is a run's).
uint64_t peakLiveBytes(llvm::ArrayRef<Group> groups) {
  std::vector<int64_t> conds;
  for (const Group &g : groups)
    for (const auto &x : g.guards)
      conds.push_back(x.first);
  llvm::sort(conds);
  conds.erase(std::unique(conds.begin(), conds.end()), conds.end());
  std::vector<uint64_t> masks;
  if (conds.size() <= mlir::bwc::kMaxEnumeratedConditions)
    for (uint64_t m = 0; m < (uint64_t(1) << conds.size()); ++m)
      masks.push_back(m);
  else
    masks = {0, ~uint64_t(0)};
  uint64_t peak = 0;
  for (uint64_t m : masks) {
    std::map<int64_t, bool> choice;
    for (size_t i = 0; i < conds.size(); ++i)
      choice[conds[i]] = (m >> std::min<size_t>(i, 63)) & 1;
    peak = std::max(peak, peakLiveBytes(groups, choice));
  }
  return peak;
}

} // namespace

std::vector<uint64_t>
mlir::bwc::planGreedyBySize(llvm::ArrayRef<PlanBuffer> buffers,
                            uint64_t &arena) {
  std::vector<size_t> groupOf;
  std::vector<Group> groups =
      makeGroups(buffers, legalClaims(buffers), groupOf);
  return expand(greedyBySize(groups, arena), groupOf);
}

std::vector<uint64_t> mlir::bwc::planBestFit(llvm::ArrayRef<PlanBuffer> buffers,
                                             uint64_t &arena) {
  std::vector<size_t> groupOf;
  std::vector<Group> groups =
      makeGroups(buffers, legalClaims(buffers), groupOf);
  return expand(bestFit(groups, arena), groupOf);
}

uint64_t mlir::bwc::lowerBoundBytes(llvm::ArrayRef<PlanBuffer> buffers) {
  std::vector<size_t> groupOf;
  return peakLiveBytes(makeGroups(buffers, legalClaims(buffers), groupOf));
}

static BufferPlan plan(llvm::ArrayRef<PlanBuffer> buffers, bool greedy,
                       bool best, uint64_t nodeBudget) {
  BufferPlan p;
  p.inPlaceOf = legalClaims(buffers);
  std::vector<size_t> groupOf;
  std::vector<Group> groups = makeGroups(buffers, p.inPlaceOf, groupOf);
  p.lowerBoundBytes = peakLiveBytes(groups);
  for (const PlanBuffer &b : buffers)
    p.noReuseBytes += alignedBufferBytes(b.bytes);
  std::vector<uint64_t> g, f;
  if (greedy)
    g = greedyBySize(groups, p.greedyBySizeBytes);
  if (best)
    f = bestFit(groups, p.bestFitBytes);
  bool useBestFit = !greedy || (best && p.bestFitBytes < p.greedyBySizeBytes);
  p.planner = useBestFit ? PlannerKind::BestFit : PlannerKind::GreedyBySize;
  p.arenaBytes = useBestFit ? p.bestFitBytes : p.greedyBySizeBytes;
  std::vector<uint64_t> kept = useBestFit ? f : g;
  if (nodeBudget) {
    p.searchBytes = p.arenaBytes;
    std::vector<uint64_t> s = search(groups, kept, p.searchBytes,
                                     p.lowerBoundBytes, nodeBudget,
                                     p.searchNodes);
    if (p.searchBytes < p.arenaBytes) {
      p.planner = PlannerKind::Search;
      p.arenaBytes = p.searchBytes;
      kept = std::move(s);
    }
  }
  p.offsets = expand(kept, groupOf);
  return p;
}

BufferPlan mlir::bwc::planBuffers(llvm::ArrayRef<PlanBuffer> buffers,
                                  uint64_t nodeBudget) {
  return plan(buffers, true, true, nodeBudget);
}

BufferPlan mlir::bwc::planBuffers(llvm::ArrayRef<PlanBuffer> buffers,
                                  PlannerKind kind) {
  if (kind == PlannerKind::Search)
    return plan(buffers, true, true, kSearchNodeBudget);
  return plan(buffers, kind == PlannerKind::GreedyBySize,
              kind == PlannerKind::BestFit, 0);
}

std::vector<PlanConflict>
mlir::bwc::checkPlan(llvm::ArrayRef<PlanBuffer> buffers,
                     llvm::ArrayRef<uint64_t> offsets, uint64_t arena) {
  std::vector<PlanConflict> conflicts;
  size_t n = std::min(buffers.size(), offsets.size());
  for (size_t i = 0; i < n; ++i) {
    uint64_t end = offsets[i] + buffers[i].bytes;
    if (offsets[i] % kArenaAlignment)
      conflicts.push_back({PlanConflict::Misaligned, (int64_t)i, -1, offsets[i],
                           end, buffers[i].firstDef});
    if (end > arena || end < offsets[i])
      conflicts.push_back({PlanConflict::OutsideArena, (int64_t)i, -1,
                           offsets[i], end, buffers[i].firstDef});
  }
  for (size_t j = 0; j < n; ++j) {
    for (size_t i = 0; i < j; ++i) {
      const PlanBuffer &a = buffers[i], &b = buffers[j];
      int64_t from = std::max(a.firstDef, b.firstDef);
      int64_t to = std::min(a.lastUse, b.lastUse);
      if (from > to)
        continue;
      uint64_t lo = std::max(offsets[i], offsets[j]);
      uint64_t hi = std::min(offsets[i] + a.bytes, offsets[j] + b.bytes);
      if (lo >= hi)
        continue;
      // An in-place pair shares its storage at the hand-over launch only.
      bool pair = (b.inPlaceOf == (int64_t)i && a.lastUse == b.firstDef) ||
                  (a.inPlaceOf == (int64_t)j && b.lastUse == a.firstDef);
      if (pair && offsets[i] == offsets[j] && from == to)
        continue;
      if (exclusiveBranches(a.guards, b.guards))
        continue;
      conflicts.push_back(
          {PlanConflict::Overlap, (int64_t)i, (int64_t)j, lo, hi, from});
    }
  }
  return conflicts;
}
