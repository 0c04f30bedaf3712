//===- Trace.h - Chrome trace of a run's launches ---------------*- C++ -*-===//
//
// The Trace Event Format that chrome://tracing and Perfetto open: one
// complete event ("ph": "X") per launch, laid out back to back from the
// launches' measured times, with the kernel's ops, bytes, flops and GB/s as
// arguments. bwc-run --trace and the Python Session.profile() write the
// same document.
//
//===----------------------------------------------------------------------===//
#ifndef BWC_RUNTIME_TRACE_H
#define BWC_RUNTIME_TRACE_H

#include "bwc/Runtime/Artifact.h"

#include <string>
#include <vector>

namespace bwc::rt {

/// The trace of one run: `launchMs[i]` is launch i's time (ms); `device`
/// names the process ("NVIDIA H200 ...", "cuda-sim", "host CPU") and
/// `timing` says how the times were taken (BenchStats::kernelTiming, plus
/// whether they are an emulator's CPU times), recorded in "otherData".
std::string chromeTraceJson(const Artifact &artifact,
                            const std::vector<double> &launchMs,
                            const std::string &device,
                            const std::string &timing);

/// Writes chromeTraceJson to `path`; false with `error`.
bool writeChromeTrace(const std::string &path, const Artifact &artifact,
                      const std::vector<double> &launchMs,
                      const std::string &device, const std::string &timing,
                      std::string &error);

} // namespace bwc::rt

#endif // BWC_RUNTIME_TRACE_H
