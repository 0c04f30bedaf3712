//===- MinCutTest.cpp - Minimum s-t cut on hand-solved graphs -------------===//

#include "bwc/Analysis/MinCut.h"

#include <gtest/gtest.h>

using mlir::bwc::MinCut;

namespace {

// Tests the textbook network (CLRS 26.1): max flow 23, and the source side
// of the minimum cut is {s, v1, v2, v4}.
TEST(MinCut, ClassicNetwork) {
  MinCut g;
  int v1 = g.addNode(), v2 = g.addNode(), v3 = g.addNode(), v4 = g.addNode();
  int s = g.source(), t = g.sink();
  g.addEdge(s, v1, 16);
  g.addEdge(s, v2, 13);
  g.addEdge(v2, v1, 4);
  g.addEdge(v1, v3, 12);
  g.addEdge(v3, v2, 9);
  g.addEdge(v2, v4, 14);
  g.addEdge(v4, v3, 7);
  g.addEdge(v3, t, 20);
  g.addEdge(v4, t, 4);
  EXPECT_DOUBLE_EQ(g.solve(), 23);
  EXPECT_TRUE(g.onSourceSide(v1));
  EXPECT_TRUE(g.onSourceSide(v2));
  EXPECT_FALSE(g.onSourceSide(v3));
  EXPECT_TRUE(g.onSourceSide(v4));
}

// Tests the two-label use bwc-select-layout makes of it: a chain a - b - c
// where b prefers the sink label by 10 but each disagreeing edge costs 6;
// labeling b alone costs 12 > 10, so nothing moves. With an edge cost of 4
// moving b alone (8) beats keeping it (10).
TEST(MinCut, LabelsPayForTheirEdges) {
  for (double edge : {6.0, 4.0}) {
    MinCut g;
    int a = g.addNode(), b = g.addNode(), c = g.addNode();
    g.addEdge(g.source(), a, MinCut::kInfinite); // a, c fixed to the source
    g.addEdge(g.source(), c, MinCut::kInfinite);
    g.addEdge(b, g.sink(), 10); // b on the source side costs 10
    for (int x : {a, c}) {
      g.addEdge(x, b, edge);
      g.addEdge(b, x, edge);
    }
    double cut = g.solve();
    EXPECT_DOUBLE_EQ(cut, std::min(10.0, 2 * edge));
    EXPECT_EQ(g.onSourceSide(b), edge == 6.0);
  }
}

// Tests that a node whose side costs nothing either way stays with the
// source: a disconnected node, and a node between equal costs.
TEST(MinCut, TiesStayWithTheSource) {
  MinCut g;
  int a = g.addNode(), b = g.addNode();
  g.addEdge(g.source(), b, 5);
  g.addEdge(b, g.sink(), 5);
  EXPECT_DOUBLE_EQ(g.solve(), 5);
  EXPECT_TRUE(g.onSourceSide(a));
  EXPECT_TRUE(g.onSourceSide(b));
  EXPECT_FALSE(g.onSourceSide(g.sink()));
}

} // namespace
