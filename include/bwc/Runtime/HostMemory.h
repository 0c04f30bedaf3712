//===- HostMemory.h - The runtime's large host allocations ------*- C++ -*-===//
//
// Every buffer the runtime allocates on the host goes through here: the CPU
// executor's buffers and arena, and cuda-sim's device memory. A refusal is
// reported by the caller as a named error ("cannot allocate N bytes for
// the arena"); tests make the n-th allocation fail to check that every
// site does so, leaks nothing and leaves the runtime usable
// (docs/reliability.md "Out of memory").
//
//===----------------------------------------------------------------------===//
#ifndef BWC_RUNTIME_HOSTMEMORY_H
#define BWC_RUNTIME_HOSTMEMORY_H

#include <cstddef>
#include <cstdint>

namespace bwc::rt {

/// `bytes` (at least 1) aligned to `alignment` (a power of two, at least
/// sizeof(void *)); null when the system refuses or a test's injected
/// failure fires.
void *allocateHost(size_t bytes, size_t alignment);
/// Frees what allocateHost returned (null is a no-op).
void freeHost(void *p);

namespace testing {
/// From now, the `n`-th allocateHost call fails (1: the next one); 0: none.
void failHostAllocation(uint64_t n);
/// allocateHost calls that succeeded, since the process started.
uint64_t hostAllocations();
/// Allocations not freed yet.
uint64_t liveHostAllocations();
} // namespace testing

} // namespace bwc::rt

#endif // BWC_RUNTIME_HOSTMEMORY_H
