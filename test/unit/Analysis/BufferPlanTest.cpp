//===- BufferPlanTest.cpp - Tests of the arena planners -------------------===//
#include "bwc/Analysis/BufferPlan.h"

#include <gtest/gtest.h>

using namespace mlir::bwc;

namespace {

constexpr uint64_t U = kArenaAlignment;

/// A buffer of `units` aligned slots live on [def, use].
PlanBuffer buf(uint64_t units, int64_t def, int64_t use, int64_t inPlace = -1) {
  return PlanBuffer{units * U, def, use, inPlace};
}

uint64_t greedyArena(llvm::ArrayRef<PlanBuffer> b) {
  uint64_t arena = 0;
  planGreedyBySize(b, arena);
  return arena;
}

uint64_t bestFitArena(llvm::ArrayRef<PlanBuffer> b) {
  uint64_t arena = 0;
  planBestFit(b, arena);
  return arena;
}

void expectSound(llvm::ArrayRef<PlanBuffer> b, const BufferPlan &p) {
  EXPECT_TRUE(checkPlan(b, p.offsets, p.arenaBytes).empty());
  EXPECT_GE(p.arenaBytes, p.lowerBoundBytes);
  EXPECT_LE(p.arenaBytes, p.noReuseBytes);
}

TEST(BufferPlanTest, ChainReusesTwoSlots) {
  // a -> b -> c -> d: each buffer lives from its producer to its consumer,
  // so two neighbours are live at once and two slots suffice.
  std::vector<PlanBuffer> b = {buf(4, 0, 1), buf(4, 1, 2), buf(4, 2, 3),
                               buf(4, 3, 4)};
  BufferPlan p = planBuffers(b);
  EXPECT_EQ(p.arenaBytes, 8 * U);
  EXPECT_EQ(p.lowerBoundBytes, 8 * U);
  EXPECT_EQ(p.noReuseBytes, 16 * U);
  EXPECT_EQ(p.offsets[0], p.offsets[2]);
  EXPECT_EQ(p.offsets[1], p.offsets[3]);
  EXPECT_NE(p.offsets[0], p.offsets[1]);
  expectSound(b, p);
}

TEST(BufferPlanTest, DisjointBuffersShareOffsetZero) {
  std::vector<PlanBuffer> b = {buf(3, 0, 0), buf(1, 1, 1), buf(2, 2, 2)};
  BufferPlan p = planBuffers(b);
  EXPECT_EQ(p.arenaBytes, 3 * U);
  EXPECT_EQ(p.offsets, (std::vector<uint64_t>{0, 0, 0}));
  EXPECT_EQ(p.lowerBoundBytes, 3 * U);
  EXPECT_EQ(p.noReuseBytes, 6 * U);
}

TEST(BufferPlanTest, EmptyProgram) {
  BufferPlan p = planBuffers({});
  EXPECT_EQ(p.arenaBytes, 0u);
  EXPECT_EQ(p.lowerBoundBytes, 0u);
  EXPECT_EQ(p.noReuseBytes, 0u);
}

TEST(BufferPlanTest, GreedyBySizeLosesToBestFit) {
  // Greedy places the two size-2 buffers first, both at offset 0 (they are
  // never live together), which leaves no room for the two size-1 buffers
  // below offset 2: arena 4. Best-fit in time order packs them in 3, the
  // optimum (= the lower bound).
  std::vector<PlanBuffer> b = {buf(2, 3, 6), buf(1, 1, 2), buf(2, 0, 1),
                               buf(1, 2, 3)};
  EXPECT_EQ(greedyArena(b), 4 * U);
  EXPECT_EQ(bestFitArena(b), 3 * U);
  BufferPlan p = planBuffers(b);
  EXPECT_EQ(p.planner, PlannerKind::BestFit);
  EXPECT_EQ(p.arenaBytes, 3 * U);
  EXPECT_EQ(p.lowerBoundBytes, 3 * U);
  EXPECT_EQ(p.greedyBySizeBytes, 4 * U);
  EXPECT_EQ(p.bestFitBytes, 3 * U);
  expectSound(b, p);
}

TEST(BufferPlanTest, BestFitLosesToGreedyBySize) {
  // Best-fit puts the size-2 buffer born at 5 above the hole left by the
  // buffer that died at 4 (too small, and not at the arena's end): arena 4.
  // Greedy places the size-2 buffer first at 0: arena 3, the optimum.
  std::vector<PlanBuffer> b = {buf(1, 4, 7), buf(1, 2, 4), buf(2, 5, 6)};
  EXPECT_EQ(greedyArena(b), 3 * U);
  EXPECT_EQ(bestFitArena(b), 4 * U);
  BufferPlan p = planBuffers(b);
  EXPECT_EQ(p.planner, PlannerKind::GreedyBySize);
  EXPECT_EQ(p.arenaBytes, 3 * U);
  EXPECT_EQ(p.lowerBoundBytes, 3 * U);
  expectSound(b, p);
}

TEST(BufferPlanTest, TwoSlotBufferNeedsContiguousRoom) {
  // a [0,1] and b [0,2] take one slot each; d [1,3] one slot; c [2,3] two
  // contiguous slots. At launch 2, b, d and c are live: 4 slots, the bound.
  // Best-fit in time order strands c above b and d (5); greedy-by-size
  // places c first and reaches the bound.
  std::vector<PlanBuffer> b = {buf(1, 0, 1), buf(1, 0, 2), buf(1, 1, 3),
                               buf(2, 2, 3)};
  EXPECT_EQ(greedyArena(b), 4 * U);
  EXPECT_EQ(bestFitArena(b), 5 * U);
  BufferPlan p = planBuffers(b);
  EXPECT_EQ(p.lowerBoundBytes, 4 * U);
  EXPECT_EQ(p.arenaBytes, 4 * U);
  expectSound(b, p);
}

TEST(BufferPlanTest, SizesAreAligned) {
  std::vector<PlanBuffer> b = {{1, 0, 1, -1}, {300, 0, 1, -1}, {0, 0, 1, -1}};
  BufferPlan p = planBuffers(b);
  EXPECT_EQ(alignedBufferBytes(1), U);
  EXPECT_EQ(alignedBufferBytes(300), 2 * U);
  EXPECT_EQ(alignedBufferBytes(0), U);
  EXPECT_EQ(alignedBufferBytes(512), 2 * U);
  for (uint64_t o : p.offsets)
    EXPECT_EQ(o % U, 0u);
  EXPECT_EQ(p.arenaBytes, 4 * U);
  EXPECT_EQ(p.lowerBoundBytes, 4 * U);
  EXPECT_EQ(p.noReuseBytes, 4 * U);
  expectSound(b, p);
}

TEST(BufferPlanTest, InPlacePairIsOneInterval) {
  // x0 -> x1 (in place of x0) -> x2 (in place of x1): one slot for the
  // chain, which is also what the lower bound counts.
  std::vector<PlanBuffer> b = {buf(4, 0, 1), buf(4, 1, 2, 0), buf(4, 2, 3, 1)};
  BufferPlan p = planBuffers(b);
  EXPECT_EQ(p.arenaBytes, 4 * U);
  EXPECT_EQ(p.lowerBoundBytes, 4 * U);
  EXPECT_EQ(p.noReuseBytes, 12 * U);
  EXPECT_EQ(p.offsets, (std::vector<uint64_t>{0, 0, 0}));
  EXPECT_EQ(p.inPlaceOf, (std::vector<int64_t>{-1, 0, 1}));
  expectSound(b, p);
  // Without the claims, neighbours are live together: two slots.
  for (PlanBuffer &x : b)
    x.inPlaceOf = -1;
  EXPECT_EQ(planBuffers(b).arenaBytes, 8 * U);
}

TEST(BufferPlanTest, IllegalInPlaceClaimsAreIgnored) {
  // 1 claims 0, but 0 is still read after 1 is born; 3 claims 2, which 4
  // claimed first... in index order 3 comes first, so 4's claim is dropped.
  std::vector<PlanBuffer> b = {buf(1, 0, 2), buf(1, 1, 2, 0), buf(1, 3, 4),
                               buf(1, 4, 5, 2), buf(1, 4, 5, 2)};
  BufferPlan p = planBuffers(b);
  EXPECT_EQ(p.inPlaceOf, (std::vector<int64_t>{-1, -1, -1, 2, -1}));
  EXPECT_NE(p.offsets[0], p.offsets[1]);
  EXPECT_EQ(p.offsets[2], p.offsets[3]);
  EXPECT_NE(p.offsets[3], p.offsets[4]);
  expectSound(b, p);
}

TEST(BufferPlanTest, CheckPlanReportsOverlapsAndArenaBounds) {
  std::vector<PlanBuffer> b = {buf(2, 0, 3), buf(2, 2, 4), buf(1, 5, 6)};
  std::vector<uint64_t> offsets = {0, U, 4 * U};
  std::vector<PlanConflict> c = checkPlan(b, offsets, 4 * U);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].kind, PlanConflict::OutsideArena);
  EXPECT_EQ(c[0].first, 2);
  EXPECT_EQ(c[1].kind, PlanConflict::Overlap);
  EXPECT_EQ(c[1].first, 0);
  EXPECT_EQ(c[1].second, 1);
  EXPECT_EQ(c[1].begin, U);
  EXPECT_EQ(c[1].end, 2 * U);
  EXPECT_EQ(c[1].launch, 2);
  // A misaligned offset.
  c = checkPlan({buf(1, 0, 0)}, {8}, 4 * U);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].kind, PlanConflict::Misaligned);
}

TEST(BufferPlanTest, CheckPlanAllowsInPlaceHandOverOnly) {
  // Same offset at the hand-over launch: fine.
  std::vector<PlanBuffer> b = {buf(1, 0, 1), buf(1, 1, 2, 0)};
  EXPECT_TRUE(checkPlan(b, {0, 0}, U).empty());
  // Undeclared: the same bytes at launch 1 are a conflict.
  b[1].inPlaceOf = -1;
  EXPECT_EQ(checkPlan(b, {0, 0}, U).size(), 1u);
  // Declared but the input is read again at launch 2.
  b = {buf(1, 0, 2), buf(1, 1, 2, 0)};
  EXPECT_EQ(checkPlan(b, {0, 0}, U).size(), 1u);
}

TEST(BufferPlanTest, PlansOfManyBuffersAreSound) {
  // A deterministic pseudo-random interval set: both planners stay sound
  // and the kept arena is the smaller one.
  std::vector<PlanBuffer> b;
  uint64_t seed = 12345;
  auto next = [&] {
    return seed = seed * 6364136223846793005ull + 1442695040888963407ull;
  };
  for (int i = 0; i < 300; ++i) {
    int64_t def = (next() >> 33) % 200;
    int64_t len = (next() >> 33) % 20;
    b.push_back({(next() >> 33) % 100000, def, def + len, -1});
  }
  BufferPlan p = planBuffers(b);
  expectSound(b, p);
  EXPECT_LE(p.arenaBytes, std::min(p.greedyBySizeBytes, p.bestFitBytes));
  uint64_t arena = 0;
  std::vector<uint64_t> g = planGreedyBySize(b, arena);
  EXPECT_TRUE(checkPlan(b, g, arena).empty());
  std::vector<uint64_t> f = planBestFit(b, arena);
  EXPECT_TRUE(checkPlan(b, f, arena).empty());
}

TEST(BufferPlanTest, SearchBeatsBothGreedyPlanners) {
  // The shape of ppocr_cls after fusion, in units: two pairs of 6-slot
  // buffers (a, b live together at 2; c, d at 5) and three 1-slot buffers
  // p [1,3], q [3,5], r [6,7]. Peak 13 at launches 2 and 5. Greedy-by-size
  // stacks a, b and c, d at 0 and 6, so p goes to 12 and q, live with b, p,
  // c and d, to 13: arena 14. Best-fit in time order does no better. The
  // optimum leaves a gap of one slot: b and c at 7, d at 1, q at 0.
  std::vector<PlanBuffer> b = {buf(6, 2, 2), buf(6, 2, 3), buf(6, 4, 5),
                               buf(6, 5, 6), buf(1, 1, 3), buf(1, 3, 5),
                               buf(1, 6, 7)};
  BufferPlan p = planBuffers(b);
  EXPECT_EQ(p.lowerBoundBytes, 13 * U);
  EXPECT_GT(p.greedyBySizeBytes, 13 * U);
  EXPECT_GT(p.bestFitBytes, 13 * U);
  EXPECT_EQ(p.planner, PlannerKind::Search);
  EXPECT_EQ(p.arenaBytes, 13 * U);
  EXPECT_EQ(p.searchBytes, 13 * U);
  EXPECT_GT(p.searchNodes, 0u);
  expectSound(b, p);
  EXPECT_EQ(stringifyPlannerKind(p.planner), "search");
  // Without the search the greedy arena stays.
  BufferPlan noSearch = planBuffers(b, /*nodeBudget=*/0);
  EXPECT_EQ(noSearch.arenaBytes,
            std::min(p.greedyBySizeBytes, p.bestFitBytes));
  EXPECT_EQ(noSearch.searchNodes, 0u);
  expectSound(b, noSearch);
}

TEST(BufferPlanTest, SearchRespectsItsNodeBudget) {
  // Many buffers with odd sizes: the greedy arenas are above the bound and
  // the search cannot finish; it stops at the budget with a valid plan no
  // larger than the greedy ones.
  std::vector<PlanBuffer> b;
  uint64_t seed = 777;
  auto next = [&] {
    return seed = seed * 6364136223846793005ull + 1442695040888963407ull;
  };
  for (int i = 0; i < 400; ++i) {
    int64_t def = (next() >> 33) % 300;
    int64_t len = (next() >> 33) % 30;
    b.push_back({((next() >> 33) % 64 + 1) * U, def, def + len, -1});
  }
  for (uint64_t budget : {1ull, 100ull, 5000ull}) {
    BufferPlan p = planBuffers(b, budget);
    expectSound(b, p);
    EXPECT_GT(std::min(p.greedyBySizeBytes, p.bestFitBytes),
              p.lowerBoundBytes);
    EXPECT_LE(p.searchNodes, budget);
    EXPECT_GT(p.searchNodes, 0u);
    EXPECT_LE(p.arenaBytes, std::min(p.greedyBySizeBytes, p.bestFitBytes));
  }
}

} // namespace
