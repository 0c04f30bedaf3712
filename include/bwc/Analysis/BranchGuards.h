//===- BranchGuards.h - The branch guards of a launch -----------*- C++ -*-===//
//
// bwc-guard-branches records on a call the runtime If conditions it runs
// under (`bwc.guard`); the planner, its verifier and the artifact builder
// read them back through this.
//
//===----------------------------------------------------------------------===//
#ifndef BWC_ANALYSIS_BRANCHGUARDS_H
#define BWC_ANALYSIS_BRANCHGUARDS_H

#include "mlir/IR/Operation.h"
#include <utility>
#include <vector>

namespace mlir::bwc {

/// The (condition id, branch is then) pairs of `op`'s `bwc.guard`, sorted;
/// empty when it has none. `ok` (when given) becomes false for a malformed
/// attribute (an entry without an integer `cond` or a `branch` of "then"
/// or "else").
std::vector<std::pair<int64_t, bool>> launchGuards(Operation *op,
                                                   bool *ok = nullptr);

} // namespace mlir::bwc

#endif // BWC_ANALYSIS_BRANCHGUARDS_H
