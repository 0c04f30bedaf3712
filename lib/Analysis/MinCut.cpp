//===- MinCut.cpp - Minimum s-t cut (Dinic) -------------------------------===//

#include "bwc/Analysis/MinCut.h"

#include <algorithm>
#include <cassert>
#include <deque>

using namespace mlir::bwc;

namespace {
/// Residual capacities below this are exhausted (costs are bytes: >= 1).
constexpr double kEpsilon = 1e-9;
} // namespace

MinCut::MinCut() : out(2) {}

int MinCut::addNode() {
  out.emplace_back();
  return out.size() - 1;
}

void MinCut::addEdge(int from, int to, double capacity) {
  assert(capacity >= 0 && "negative capacity");
  out[from].push_back(edges.size());
  edges.push_back({to, capacity});
  out[to].push_back(edges.size());
  edges.push_back({from, 0});
}

bool MinCut::levels() {
  level.assign(out.size(), -1);
  std::deque<int> queue = {source()};
  level[source()] = 0;
  while (!queue.empty()) {
    int v = queue.front();
    queue.pop_front();
    for (int i : out[v])
      if (edges[i].capacity > kEpsilon && level[edges[i].to] < 0) {
        level[edges[i].to] = level[v] + 1;
        queue.push_back(edges[i].to);
      }
  }
  return level[sink()] >= 0;
}

double MinCut::push(int v, double limit) {
  if (v == sink())
    return limit;
  for (int &k = next[v]; k < (int)out[v].size(); ++k) {
    Edge &e = edges[out[v][k]];
    if (e.capacity <= kEpsilon || level[e.to] != level[v] + 1)
      continue;
    double pushed = push(e.to, std::min(limit, e.capacity));
    if (pushed > kEpsilon) {
      e.capacity -= pushed;
      edges[out[v][k] ^ 1].capacity += pushed;
      return pushed;
    }
  }
  return 0;
}

double MinCut::solve() {
  double flow = 0;
  while (levels()) {
    next.assign(out.size(), 0);
    while (double pushed = push(source(), kInfinite))
      flow += pushed;
  }
  // The sink side: what still reaches the sink in the residual graph; the
  // rest is the source side, so a tie keeps a node with the source.
  reached.assign(out.size(), true);
  std::deque<int> queue = {sink()};
  reached[sink()] = false;
  while (!queue.empty()) {
    int v = queue.front();
    queue.pop_front();
    for (int i : out[v]) {
      int u = edges[i].to;
      if (edges[i ^ 1].capacity > kEpsilon && reached[u]) {
        reached[u] = false;
        queue.push_back(u);
      }
    }
  }
  return flow;
}
