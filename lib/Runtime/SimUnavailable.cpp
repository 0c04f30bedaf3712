//===- SimUnavailable.cpp - cuda-sim in a runtime built without it --------===//
//
// A runtime built where Boost.Context is missing (a GPU machine's
// runtime-only build) has no fibers: Driver::simulated says so.
//
//===----------------------------------------------------------------------===//
#include "SimDevice.h"

namespace bwc::rt::sim {

bool simAvailable() { return false; }

void fillHooks(void **) {}

cuda::CUresult executeLaunch(const SimFunction &, const uint32_t[3],
                             const uint32_t[3], const std::vector<uint64_t> &,
                             const std::vector<uint64_t> &,
                             const std::vector<std::string> &,
                             std::string &text) {
  text = "this runtime was built without cuda-sim";
  return cuda::CUDA_ERROR_LAUNCH_FAILED;
}

} // namespace bwc::rt::sim
