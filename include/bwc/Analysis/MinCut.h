//===- MinCut.h - Minimum s-t cut of a small capacity graph -----*- C++ -*-===//
//
// An exact minimum s-t cut (Dinic's max-flow) for the two-label decisions
// of bwc's passes: each node goes to the source side or the sink side, an
// edge a -> b of capacity c costs c when a is on the source side and b on
// the sink side. bwc-select-layout labels ops channels-first (source) or
// channels-last (sink) with it (docs/passes/bwc-select-layout.md).
//
//===----------------------------------------------------------------------===//
#ifndef BWC_ANALYSIS_MINCUT_H
#define BWC_ANALYSIS_MINCUT_H

#include <vector>

namespace mlir::bwc {

class MinCut {
public:
  /// A capacity no finite cut pays: the edge is never cut.
  static constexpr double kInfinite = 1e30;

  /// A graph holding only the source and the sink.
  MinCut();
  int source() const { return 0; }
  int sink() const { return 1; }
  /// Adds a node and returns its index.
  int addNode();
  /// Adds edge `from` -> `to`; capacities must be >= 0.
  void addEdge(int from, int to, double capacity);
  /// Computes the minimum cut; returns its capacity.
  double solve();
  /// After solve(): true when `node` is on the source side. Of the minimum
  /// cuts, the one with the smallest sink side: a node whose side does not
  /// change the cost stays with the source.
  bool onSourceSide(int node) const { return reached[node]; }

private:
  struct Edge {
    int to;
    double capacity;
  };
  bool levels();
  double push(int node, double limit);

  std::vector<Edge> edges; // edge i and i ^ 1 are a pair
  std::vector<std::vector<int>> out;
  std::vector<int> level, next;
  std::vector<bool> reached;
};

} // namespace mlir::bwc

#endif // BWC_ANALYSIS_MINCUT_H
