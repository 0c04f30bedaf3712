//===- Remat.cpp - Recompute instead of keep, under a memory budget -------===//
#include "bwc/Analysis/Remat.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>

using namespace mlir::bwc;
using namespace mlir::bwc::remat;

namespace {

/// Deepest chain of producers the greedy strategy recomputes for one value.
constexpr int kMaxChainDepth = 3;

/// Position in `p.order` of the last launch reading each value (-1 none).
std::vector<int64_t> lastUses(const Program &p) {
  std::vector<int64_t> last(p.values.size(), -1);
  for (size_t i = 0; i < p.order.size(); ++i)
    for (int64_t o : p.launches[p.order[i]].operands)
      last[o] = i;
  return last;
}

/// Recomputed ops, extra flops and bytes: the cost of every launch beyond
/// the originals that is still in the order.
struct Cost {
  uint64_t ops = 0, flops = 0, bytes = 0;
  uint64_t weighted() const { return flops + kFlopsPerByte * bytes; }
};

Cost recomputeCost(const Program &p) {
  Cost c;
  size_t originals = p.kernelFlops.size();
  for (int64_t id : p.order)
    if ((size_t)id >= originals) {
      int64_t k = p.launches[id].kernel;
      ++c.ops;
      c.flops += p.kernelFlops[k];
      c.bytes += p.kernelBytes[k];
    }
  return c;
}

/// Drops recomputations whose results nobody reads (a later step may have
/// served their uses from a newer one).
void pruneUnusedRecomputations(Program &p) {
  size_t originals = p.kernelFlops.size();
  for (bool changed = true; changed;) {
    changed = false;
    std::vector<int64_t> last = lastUses(p);
    std::vector<int64_t> kept;
    for (int64_t id : p.order) {
      const RLaunch &l = p.launches[id];
      bool unused = (size_t)id >= originals &&
                    std::all_of(l.results.begin(), l.results.end(),
                                [&](int64_t r) { return last[r] < 0; });
      if (unused)
        changed = true;
      else
        kept.push_back(id);
    }
    p.order = std::move(kept);
  }
}

struct Peak {
  uint64_t bytes = 0;
  size_t position = 0, count = 0;
};

Peak findPeak(const std::vector<uint64_t> &live) {
  Peak pk;
  for (size_t i = 0; i < live.size(); ++i) {
    if (live[i] > pk.bytes)
      pk = {live[i], i, 0};
    if (live[i] == pk.bytes)
      ++pk.count;
  }
  return pk;
}

/// Live bytes above `level`, summed over launches: what a step removes.
uint64_t excessAbove(const std::vector<uint64_t> &live, uint64_t level) {
  uint64_t sum = 0;
  for (uint64_t b : live)
    sum += b > level ? b - level : 0;
  return sum;
}

void fillCost(Result &r) {
  Cost c = recomputeCost(r.program);
  r.recomputedOps = c.ops;
  r.extraFlops = c.flops;
  r.extraBytes = c.bytes;
}

} // namespace

std::vector<PlanBuffer> remat::arenaBuffers(const Program &p) {
  std::vector<int64_t> last = lastUses(p);
  std::vector<PlanBuffer> buffers;
  std::vector<int64_t> bufferOf(p.values.size(), -1);
  for (size_t i = 0; i < p.order.size(); ++i)
    for (int64_t r : p.launches[p.order[i]].results)
      if (p.values[r].inArena) {
        PlanBuffer b;
        b.bytes = p.values[r].bytes;
        b.firstDef = i;
        b.lastUse = std::max<int64_t>(i, last[r]);
        bufferOf[r] = buffers.size();
        buffers.push_back(b);
      }
  // The first legal operand of each result, each operand once per launch.
  for (size_t i = 0; i < p.order.size(); ++i) {
    const RLaunch &l = p.launches[p.order[i]];
    std::vector<bool> taken(l.operands.size(), false);
    for (size_t k = 0; k < l.results.size(); ++k) {
      if (bufferOf[l.results[k]] < 0)
        continue;
      for (size_t j = 0; j < l.operands.size(); ++j) {
        int64_t o = l.operands[j];
        bool allowed = std::find(l.inPlace.begin(), l.inPlace.end(),
                                 std::make_pair<unsigned, unsigned>(k, j)) !=
                       l.inPlace.end();
        if (bufferOf[o] < 0 || taken[j] || last[o] > (int64_t)i || !allowed)
          continue;
        taken[j] = true;
        buffers[bufferOf[l.results[k]]].inPlaceOf = bufferOf[o];
        break;
      }
    }
  }
  return buffers;
}

std::vector<uint64_t> remat::liveBytes(const Program &p) {
  std::vector<int64_t> delta(p.order.size() + 1, 0);
  for (const PlanBuffer &b : arenaBuffers(p)) {
    int64_t from = b.firstDef + (b.inPlaceOf >= 0 ? 1 : 0);
    if (from > b.lastUse)
      continue;
    delta[from] += alignedBufferBytes(b.bytes);
    delta[b.lastUse + 1] -= alignedBufferBytes(b.bytes);
  }
  std::vector<uint64_t> live(p.order.size());
  int64_t running = 0;
  for (size_t i = 0; i < live.size(); ++i)
    live[i] = running += delta[i];
  return live;
}

uint64_t remat::plannedArena(const Program &p) {
  return planBuffers(arenaBuffers(p)).arenaBytes;
}

bool remat::recomputeLateUses(Program &p, int64_t v, size_t after,
                              int maxDepth, const std::vector<bool> &dropped) {
  size_t n = p.order.size(), first = n;
  auto reads = [&](size_t pos, int64_t value) {
    const std::vector<int64_t> &ops = p.launches[p.order[pos]].operands;
    return std::find(ops.begin(), ops.end(), value) != ops.end();
  };
  for (size_t i = after + 1; i < n && first == n; ++i)
    if (reads(i, v))
      first = i;
  if (first == n || p.values[v].producer < 0)
    return false;
  std::vector<int64_t> last = lastUses(p);
  auto isDropped = [&](int64_t value) {
    return (size_t)value < dropped.size() && dropped[value];
  };
  std::map<int64_t, int64_t> copyOf;
  std::vector<int64_t> added;
  // Reads of `value` from position `first` on now read `copy`.
  auto redirect = [&](int64_t value, int64_t copy) {
    for (size_t i = first; i < n; ++i)
      for (int64_t &o : p.launches[p.order[i]].operands)
        if (o == value)
          o = copy;
  };
  std::function<int64_t(int64_t, int)> recompute = [&](int64_t value,
                                                       int depth) {
    if (auto it = copyOf.find(value); it != copyOf.end())
      return it->second;
    int64_t producer = p.values[value].producer;
    RLaunch copy;
    copy.kernel = p.launches[producer].kernel;
    copy.inPlace = p.launches[producer].inPlace;
    std::vector<int64_t> operands = p.launches[producer].operands;
    std::vector<int64_t> results = p.launches[producer].results;
    for (int64_t o : operands) {
      const RValue &ov = p.values[o];
      bool dead = ov.inArena && last[o] < (int64_t)first;
      bool again = ov.producer >= 0 && ov.inArena &&
                   ((dead && depth > 0) || isDropped(o));
      copy.operands.push_back(again ? recompute(o, depth - 1) : o);
    }
    int64_t id = p.launches.size();
    for (int64_t r : results) {
      int64_t fresh = p.values.size();
      p.values.push_back(RValue{p.values[r].bytes, true, id});
      copy.results.push_back(fresh);
      copyOf[r] = fresh;
    }
    p.launches.push_back(std::move(copy));
    added.push_back(id);
    for (int64_t r : results)
      redirect(r, copyOf[r]);
    return copyOf[value];
  };
  recompute(v, maxDepth);
  p.order.insert(p.order.begin() + first, added.begin(), added.end());
  return true;
}

const char *remat::stringifyStrategy(Strategy s) {
  switch (s) {
  case Strategy::Greedy:
    return "greedy";
  case Strategy::Checkpoints:
    return "checkpoints";
  case Strategy::Best:
    return "best";
  }
  return "";
}

/// The result of doing nothing: met when `input` already fits.
static Result unchanged(const Program &input, uint64_t budget, Strategy s) {
  Result r;
  r.strategy = s;
  r.program = input;
  r.arenaBefore = r.arenaAfter = r.minArena = plannedArena(input);
  r.met = r.arenaBefore <= budget;
  return r;
}

Result remat::rematerializeGreedy(const Program &input, uint64_t budget) {
  Result r = unchanged(input, budget, Strategy::Greedy);
  Program cur = input;
  size_t maxSteps = 4 * input.order.size() + 64;
  for (size_t step = 0; !r.met && step < maxSteps; ++step) {
    std::vector<uint64_t> live = liveBytes(cur);
    Peak peak = findPeak(live);
    // Bytes removed within 10% of the peak count as saved: a step that
    // lowers one of several equal peaks makes progress too.
    uint64_t level = peak.bytes - peak.bytes / 10;
    uint64_t excess = excessAbove(live, level);
    std::vector<int64_t> last = lastUses(cur);
    const std::vector<int64_t> &atPeak =
        cur.launches[cur.order[peak.position]].operands;
    uint64_t baseCost = recomputeCost(cur).weighted();
    double bestScore = 0;
    std::optional<Program> best;
    for (size_t def = 0; def < peak.position; ++def) {
      for (int64_t v : cur.launches[cur.order[def]].results) {
        if (!cur.values[v].inArena || last[v] <= (int64_t)peak.position ||
            std::find(atPeak.begin(), atPeak.end(), v) != atPeak.end())
          continue;
        size_t previousSize = 0;
        for (int depth = 0; depth <= kMaxChainDepth; ++depth) {
          Program trial = cur;
          if (!recomputeLateUses(trial, v, peak.position, depth))
            break;
          // A deeper chain found nothing more to recompute.
          if (trial.launches.size() == previousSize)
            break;
          previousSize = trial.launches.size();
          std::vector<uint64_t> after = liveBytes(trial);
          Peak newPeak = findPeak(after);
          uint64_t newExcess = excessAbove(after, level);
          if (newPeak.bytes > peak.bytes ||
              (newPeak.bytes == peak.bytes && newPeak.count >= peak.count) ||
              newExcess >= excess)
            continue;
          double score = double(recomputeCost(trial).weighted() - baseCost + 1) /
                         double(excess - newExcess);
          if (!best || score < bestScore) {
            bestScore = score;
            best = std::move(trial);
          }
        }
      }
    }
    if (!best)
      break;
    cur = std::move(*best);
    pruneUnusedRecomputations(cur);
    uint64_t arena = plannedArena(cur);
    r.minArena = std::min(r.minArena, arena);
    if (arena <= budget) {
      r.met = true;
      r.program = cur;
      r.arenaAfter = arena;
    }
  }
  fillCost(r);
  return r;
}

Result remat::rematerializeCheckpoints(const Program &input, uint64_t budget) {
  Result r = unchanged(input, budget, Strategy::Checkpoints);
  if (r.met)
    return r;
  size_t n = input.order.size();
  std::vector<int64_t> last = lastUses(input);
  std::vector<size_t> position(input.launches.size(), 0);
  for (size_t i = 0; i < n; ++i)
    position[input.order[i]] = i;
  uint64_t bestCost = 0;
  for (size_t stride = 2; stride <= n; stride = std::max(stride + 1, stride * 3 / 2)) {
    // Values made between checkpoints that outlive their segment.
    std::vector<bool> dropped(input.values.size(), false);
    std::vector<std::pair<int64_t, int64_t>> work; // value, segment's last launch
    for (size_t v = 0; v < input.values.size(); ++v) {
      const RValue &val = input.values[v];
      if (!val.inArena || val.producer < 0)
        continue;
      size_t def = position[val.producer];
      size_t segmentEnd = std::min(n - 1, (def / stride + 1) * stride - 1);
      if (def == segmentEnd || last[v] <= (int64_t)segmentEnd)
        continue;
      dropped[v] = true;
      work.push_back({v, input.order[segmentEnd]});
    }
    // Latest first: recomputing a value recomputes the dropped values it
    // reads, which then serve their own late uses (one recomputation of a
    // segment, as in Chen et al.).
    std::sort(work.begin(), work.end(), [&](auto a, auto b) {
      return position[input.values[a.first].producer] >
             position[input.values[b.first].producer];
    });
    Program trial = input;
    bool tooLarge = false;
    for (auto [v, boundary] : work) {
      size_t at = std::find(trial.order.begin(), trial.order.end(), boundary) -
                  trial.order.begin();
      recomputeLateUses(trial, v, at, 0, dropped);
      if ((tooLarge = trial.order.size() > 4 * n))
        break;
    }
    if (tooLarge)
      continue;
    pruneUnusedRecomputations(trial);
    uint64_t arena = plannedArena(trial);
    uint64_t cost = recomputeCost(trial).weighted();
    r.strides.push_back(stride);
    r.minArena = std::min(r.minArena, arena);
    bool better = arena <= budget ? (!r.met || cost < bestCost)
                                  : (!r.met && arena < r.arenaAfter);
    if (better) {
      r.met = arena <= budget;
      r.program = std::move(trial);
      r.arenaAfter = arena;
      bestCost = cost;
    }
  }
  if (!r.met) {
    r.program = input;
    r.arenaAfter = r.arenaBefore;
  }
  fillCost(r);
  return r;
}

Result remat::rematerialize(const Program &p, uint64_t budget, Strategy s) {
  if (s == Strategy::Greedy)
    return rematerializeGreedy(p, budget);
  if (s == Strategy::Checkpoints)
    return rematerializeCheckpoints(p, budget);
  Result greedy = rematerializeGreedy(p, budget);
  Result checkpoints = rematerializeCheckpoints(p, budget);
  uint64_t minArena = std::min(greedy.minArena, checkpoints.minArena);
  bool takeCheckpoints =
      checkpoints.met &&
      (!greedy.met || checkpoints.extraFlops + kFlopsPerByte * checkpoints.extraBytes <
                          greedy.extraFlops + kFlopsPerByte * greedy.extraBytes);
  Result best = takeCheckpoints ? std::move(checkpoints) : std::move(greedy);
  best.minArena = minArena;
  return best;
}
