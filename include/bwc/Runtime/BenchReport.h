//===- BenchReport.h - bwc-run --bench's summary, table and JSON -*- C++ -*-===//
//
// One code path for every target: the trtexec-like latency summary, the
// per-launch table (time, static bytes, achieved GB/s against the measured
// copy bandwidth, flops against the peak) and the same figures as JSON.
//
//===----------------------------------------------------------------------===//
#ifndef BWC_RUNTIME_BENCHREPORT_H
#define BWC_RUNTIME_BENCHREPORT_H

#include "bwc/Runtime/Executor.h"

#include <string>

namespace bwc::rt {

/// The references the achieved figures are compared with; 0 = unknown
/// (the percentage columns then print "-" and the JSON null).
struct PeakFigures {
  double copyGBps = 0;
  std::string copyHow; ///< "measured: ..." or "given (--peak-gbps)"
  double gflops = 0;
  std::string gflopsHow;
};

struct BenchReport {
  std::string device;
  int runs = 0;
  BenchStats stats;
  PeakFigures peak;
};

/// The summary lines then the per-launch table with its totals row.
std::string formatBenchReport(const Artifact &artifact, const BenchReport &r);
/// The same figures as one JSON object (docs/runtime-cuda.md lists the
/// keys).
std::string benchReportJson(const Artifact &artifact, const BenchReport &r);

/// What bwc-run's --bench options ask for.
struct BenchOptions {
  int runs = 0;
  /// Measure the copy bandwidth first, copying between two buffers of
  /// peakCopyBytes; peakGbps/peakGflops > 0 are taken as given instead.
  bool measurePeak = false;
  uint64_t peakCopyBytes = uint64_t(1) << 30;
  double peakGbps = 0, peakGflops = 0;
  /// Where to write the JSON report; empty: nowhere.
  std::string jsonFile;
};

/// The peaks, up to 10 warm-up runs then `runs` timed runs, the report on
/// stdout and the JSON file; `result`, when given, receives the report.
bool runBenchmark(Executor &exec, const BenchOptions &options,
                  const std::vector<HostTensor> &inputs, std::string &error,
                  BenchReport *result = nullptr);

} // namespace bwc::rt

#endif // BWC_RUNTIME_BENCHREPORT_H
