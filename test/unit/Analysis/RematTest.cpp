//===- RematTest.cpp - Tests of the rematerialization strategies ----------===//
#include "bwc/Analysis/Remat.h"

#include <algorithm>
#include <gtest/gtest.h>

using namespace mlir::bwc;
using namespace mlir::bwc::remat;

namespace {

constexpr uint64_t U = kArenaAlignment;

/// Builds a program launch by launch; every launch has one result.
struct ProgramBuilder {
  Program p;

  int64_t input() {
    p.values.push_back({U, false, -1});
    return p.values.size() - 1;
  }
  /// A kernel reading `operands` and writing `units` aligned slots.
  int64_t launch(std::vector<int64_t> operands, uint64_t flops,
                 uint64_t units = 1, bool returned = false) {
    int64_t id = p.launches.size();
    p.values.push_back({units * U, !returned, id});
    RLaunch l;
    l.kernel = id;
    l.operands = std::move(operands);
    l.results = {(int64_t)p.values.size() - 1};
    p.launches.push_back(l);
    p.order.push_back(id);
    p.kernelFlops.push_back(flops);
    p.kernelBytes.push_back(0);
    return l.results[0];
  }
};

/// Which original kernels `p` runs again, in order.
std::vector<int64_t> recomputedKernels(const Program &p) {
  std::vector<int64_t> kernels;
  for (int64_t id : p.order)
    if ((size_t)id >= p.kernelFlops.size())
      kernels.push_back(p.launches[id].kernel);
  return kernels;
}

/// A skip connection: s = f(x) is read at the start and at the end, with a
/// branch of two live values in between. Peak 4 slots (s, a, c, d).
ProgramBuilder skip(uint64_t skipFlops) {
  ProgramBuilder b;
  int64_t x = b.input();
  int64_t s = b.launch({x}, skipFlops);
  int64_t a = b.launch({s}, 1);
  int64_t c = b.launch({a}, 1);
  int64_t d = b.launch({a, c}, 1);
  b.launch({d, s}, 1, 1, /*returned=*/true);
  return b;
}

TEST(RematTest, LiveBytesCountInPlaceOnce) {
  ProgramBuilder b = skip(1);
  EXPECT_EQ(liveBytes(b.p), (std::vector<uint64_t>{U, 2 * U, 3 * U, 4 * U,
                                                   2 * U}));
  // d written over c (which dies there): one slot less at launch 3.
  b.p.launches[3].inPlace = {{0, 1}};
  EXPECT_EQ(liveBytes(b.p)[3], 3 * U);
  EXPECT_EQ(arenaBuffers(b.p)[3].inPlaceOf, 2);
}

TEST(RematTest, SkipIsRecomputedBeforeItsLateUse) {
  ProgramBuilder b = skip(1);
  Program p = b.p;
  ASSERT_TRUE(recomputeLateUses(p, /*s=*/1, /*after=*/2, 0));
  // x -> s, a, c, d, s', out: s dies at launch 1.
  EXPECT_EQ(recomputedKernels(p), std::vector<int64_t>{0});
  EXPECT_EQ(p.order[4], 5);
  EXPECT_EQ(p.launches[p.order[5]].operands[1], p.launches[5].results[0]);
  std::vector<uint64_t> live = liveBytes(p);
  EXPECT_EQ(*std::max_element(live.begin(), live.end()), 3 * U);
  // Nothing reads s after the last launch.
  EXPECT_FALSE(recomputeLateUses(p, 1, 5, 0));
}

TEST(RematTest, GreedyMeetsBudgetAndRecordsCost) {
  Result r = rematerializeGreedy(skip(7).p, 3 * U);
  ASSERT_TRUE(r.met);
  EXPECT_EQ(r.arenaBefore, 4 * U);
  EXPECT_EQ(r.arenaAfter, 3 * U);
  EXPECT_EQ(r.recomputedOps, 1u);
  EXPECT_EQ(r.extraFlops, 7u);
  EXPECT_EQ(recomputedKernels(r.program), std::vector<int64_t>{0});
}

TEST(RematTest, GreedyPrefersCheapProducers) {
  // Two values of one slot each live across the peak: m (a matmul, 1000
  // flops) and e (elementwise, 1 flop); dropping one meets the budget.
  ProgramBuilder b;
  int64_t x = b.input();
  int64_t m = b.launch({x}, 1000);
  int64_t e = b.launch({x}, 1);
  int64_t t = b.launch({x}, 1);
  int64_t u = b.launch({t}, 1);
  int64_t v = b.launch({t, u}, 1);
  b.launch({v, m, e}, 1, 1, true);
  Result r = rematerializeGreedy(b.p, 4 * U);
  ASSERT_TRUE(r.met);
  EXPECT_EQ(recomputedKernels(r.program), std::vector<int64_t>{1});
  // With a tighter budget the matmul is recomputed too: the only way.
  Result tight = rematerializeGreedy(b.p, 3 * U);
  ASSERT_TRUE(tight.met);
  EXPECT_EQ(tight.extraFlops, 1001u);
}

TEST(RematTest, ChainFromKeptValue) {
  // k is read by every launch of the peak (kept); late = g(f(k)) is read
  // at the end. Recomputing g alone would keep f(k) alive: the chain is
  // recomputed from k.
  ProgramBuilder b;
  int64_t x = b.input();
  int64_t k = b.launch({x}, 1);
  int64_t f = b.launch({k}, 1);
  int64_t late = b.launch({f}, 1);
  int64_t t = b.launch({k}, 1);
  int64_t t2 = b.launch({t, k}, 1);
  int64_t t3 = b.launch({t2, k}, 1);
  b.launch({t3, late}, 1, 1, true);
  Result r = rematerializeGreedy(b.p, 3 * U);
  ASSERT_TRUE(r.met);
  EXPECT_EQ(recomputedKernels(r.program), (std::vector<int64_t>{1, 2}));
  // The chain reads k itself, not a recomputation of it.
  EXPECT_EQ(r.program.launches[r.program.order[6]].operands[0], k);
}

TEST(RematTest, NothingToSaveReportsTheArena) {
  ProgramBuilder b;
  int64_t x = b.input();
  int64_t a = b.launch({x}, 1, 4);
  b.launch({a}, 1, 1, true);
  for (Strategy s : {Strategy::Greedy, Strategy::Checkpoints, Strategy::Best}) {
    Result r = rematerialize(b.p, U, s);
    EXPECT_FALSE(r.met);
    EXPECT_EQ(r.minArena, 4 * U);
  }
}

/// A training step of `n` layers: forward h_i = f(h_{i-1}), a loss, and a
/// backward pass reading h_i in reverse order.
Program trainingStep(int n) {
  ProgramBuilder b;
  std::vector<int64_t> h = {b.input()};
  for (int i = 0; i < n; ++i)
    h.push_back(b.launch({h.back()}, 100));
  int64_t g = b.launch({h.back()}, 1);
  for (int i = n - 1; i >= 1; --i) {
    b.launch({h[i], g}, 100, 1, /*returned=*/true);
    g = b.launch({g, h[i]}, 100);
  }
  return b.p;
}

TEST(RematTest, MinimumIsReachedWhenAskedFor) {
  // The greedy steps do not depend on the budget: asking for the minimum
  // it reports reaches it.
  Program p = trainingStep(8);
  for (Strategy s : {Strategy::Greedy, Strategy::Checkpoints, Strategy::Best}) {
    Result floor = rematerialize(p, 0, s);
    ASSERT_FALSE(floor.met);
    EXPECT_LT(floor.minArena, floor.arenaBefore);
    Result r = rematerialize(p, floor.minArena, s);
    EXPECT_TRUE(r.met) << stringifyStrategy(s);
    EXPECT_LE(r.arenaAfter, floor.minArena);
  }
}

TEST(RematTest, CheckpointsRecomputeSegmentsOnce) {
  Program p = trainingStep(9);
  // h1..h9 and the loss gradient: 10 slots; stride 3 keeps h3, h6, h9.
  EXPECT_EQ(plannedArena(p), 10 * U);
  Result r = rematerializeCheckpoints(p, 6 * U);
  ASSERT_TRUE(r.met);
  EXPECT_FALSE(r.strides.empty());
  // Every recomputed forward layer runs at most once per segment: fewer
  // recomputations than layers.
  EXPECT_GT(r.recomputedOps, 0u);
  EXPECT_LT(r.recomputedOps, 9u);
  // Best keeps the cheaper of the two strategies.
  Result greedy = rematerializeGreedy(p, 6 * U);
  ASSERT_TRUE(greedy.met);
  Result best = rematerialize(p, 6 * U, Strategy::Best);
  EXPECT_EQ(best.extraFlops, std::min(greedy.extraFlops, r.extraFlops));
}

} // namespace
