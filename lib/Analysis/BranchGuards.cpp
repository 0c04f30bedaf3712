//===- BranchGuards.cpp - The branch guards of a launch -------------------===//
#include "bwc/Analysis/BranchGuards.h"

#include "mlir/IR/BuiltinAttributes.h"
#include <algorithm>

using namespace mlir;

std::vector<std::pair<int64_t, bool>> mlir::bwc::launchGuards(Operation *op,
                                                              bool *ok) {
  std::vector<std::pair<int64_t, bool>> out;
  if (ok)
    *ok = true;
  auto list = op->getAttrOfType<ArrayAttr>("bwc.guard");
  if (!list)
    return out;
  for (Attribute a : list) {
    auto dict = dyn_cast<DictionaryAttr>(a);
    auto cond = dict ? dict.getAs<IntegerAttr>("cond") : IntegerAttr();
    auto branch = dict ? dict.getAs<StringAttr>("branch") : StringAttr();
    if (!cond || !branch ||
        (branch.getValue() != "then" && branch.getValue() != "else")) {
      if (ok)
        *ok = false;
      return {};
    }
    out.push_back({cond.getInt(), branch.getValue() == "then"});
  }
  std::sort(out.begin(), out.end());
  return out;
}
