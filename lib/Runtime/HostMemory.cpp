//===- HostMemory.cpp - The runtime's large host allocations --------------===//

#include "bwc/Runtime/HostMemory.h"

#include <atomic>
#include <cstdlib>

namespace bwc::rt {
namespace {
std::atomic<uint64_t> failAt{0}, calls{0}, succeeded{0}, live{0};
} // namespace

void *allocateHost(size_t bytes, size_t alignment) {
  uint64_t call = ++calls;
  uint64_t target = failAt.load();
  if (target && call == target) {
    failAt = 0;
    return nullptr;
  }
  void *p = nullptr;
  if (posix_memalign(&p, alignment, bytes ? bytes : 1) != 0)
    return nullptr;
  ++succeeded;
  ++live;
  return p;
}

void freeHost(void *p) {
  if (!p)
    return;
  --live;
  std::free(p);
}

namespace testing {
void failHostAllocation(uint64_t n) { failAt = n ? calls.load() + n : 0; }
uint64_t hostAllocations() { return succeeded; }
uint64_t liveHostAllocations() { return live; }
} // namespace testing

} // namespace bwc::rt
