//===- BenchReport.cpp - bwc-run --bench's summary, table and JSON --------===//

#include "bwc/Runtime/BenchReport.h"

#include "bwc/Runtime/SimProfileReport.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace bwc::rt {
namespace {

/// One row of the table: a launch, or the totals (launch = -1).
struct Row {
  int launch = -1;
  std::string name;
  double timeUs = 0;
  /// The H200 estimate (CUDA artifacts; NaN otherwise): never measured.
  double estUs = NAN;
  uint64_t bytes = 0, flops = 0;
  /// NaN when unknown (no time, or no peak to compare with).
  double gbps = NAN, pctCopy = NAN, gflops = NAN, pctPeak = NAN;
  /// A launch of a runtime If's branch not taken: it did not run.
  bool skipped = false;
};

void derive(Row &row, const PeakFigures &peak) {
  if (row.timeUs > 0) {
    row.gbps = row.bytes / (row.timeUs * 1e3);
    row.gflops = row.flops / (row.timeUs * 1e3);
  }
  if (peak.copyGBps > 0)
    row.pctCopy = 100 * row.gbps / peak.copyGBps;
  if (peak.gflops > 0)
    row.pctPeak = 100 * row.gflops / peak.gflops;
}

std::vector<Row> rows(const Artifact &a, const BenchReport &r) {
  std::vector<Row> table;
  Row total;
  total.name = "total (" + std::to_string(a.launches.size()) + " kernels)";
  bool cuda = a.target == "cuda";
  if (cuda)
    total.estUs = 0;
  for (size_t i = 0; i < a.launches.size(); ++i) {
    const Kernel &k = a.kernels[a.launches[i].kernel];
    Row row;
    row.launch = int(i);
    row.name = k.name;
    row.timeUs = i < r.stats.launchMedianMs.size()
                     ? r.stats.launchMedianMs[i] * 1e3
                     : 0;
    row.bytes = k.bytesRead + k.bytesWritten;
    row.flops = k.flops;
    // The cost model's bytes as DRAM bytes: no sector efficiency on a GPU
    // (cuda-sim's --profile has it).
    if (cuda) {
      row.estUs = estimateH200Us(k, 1.0);
      total.estUs += row.estUs;
    }
    // A launch whose branch was not taken moved nothing.
    if (i < r.stats.launchSkipped.size() && r.stats.launchSkipped[i]) {
      row.skipped = true;
      row.timeUs = 0;
      if (cuda)
        total.estUs -= row.estUs;
      derive(row, r.peak);
      table.push_back(row);
      continue;
    }
    derive(row, r.peak);
    table.push_back(row);
    total.timeUs += row.timeUs;
    total.bytes += row.bytes;
    total.flops += row.flops;
  }
  derive(total, r.peak);
  table.push_back(total);
  return table;
}

std::string format(const char *fmt, ...) {
  char buf[512];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buf, sizeof(buf), fmt, args);
  va_end(args);
  return buf;
}

/// `v` with `fmt`, or "-" when unknown.
std::string cell(const char *fmt, double v) {
  return std::isfinite(v) ? format(fmt, v) : "-";
}

std::string jsonNumber(double v) {
  return std::isfinite(v) ? format("%.6g", v) : "null";
}

std::string jsonString(const std::string &s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\')
      out += '\\', out += char(c);
    else if (c < 0x20)
      out += format("\\u%04x", c);
    else
      out += char(c);
  }
  return out + "\"";
}

} // namespace

std::string formatBenchReport(const Artifact &a, const BenchReport &r) {
  const BenchStats &s = r.stats;
  std::string out = format(
      "bench: %d runs: median %.4f ms, min %.4f ms, max %.4f ms\n", r.runs,
      s.medianMs, s.minMs, s.maxMs);
  out += "device: " + r.device + (s.cudaGraph ? ", CUDA graph replay" : "") +
         "\n";
  out += "throughput: " +
         cell("%.1f", s.medianMs > 0 ? 1e3 / s.medianMs : NAN) +
         " inferences/s\n";
  out += "copy bandwidth: " +
         (r.peak.copyGBps > 0 ? format("%.1f GB/s (%s)", r.peak.copyGBps,
                                       r.peak.copyHow.c_str())
                              : std::string("unknown (--measure-peak)")) +
         "\n";
  out += "peak compute: " +
         (r.peak.gflops > 0 ? format("%.0f GFLOP/s (%s)", r.peak.gflops,
                                     r.peak.gflopsHow.c_str())
                            : "unknown (" + r.peak.gflopsHow + ")") +
         "\n";
  if (s.kernelTiming == "graph")
    out += "kernel times: event nodes in a captured CUDA graph (kernels back "
           "to back)\n";
  else if (s.kernelTiming == "stream")
    out += "kernel times: an event pair per launch on the stream (biased up "
           "by host submission gaps" +
           (s.kernelTimingNote.empty() ? std::string()
                                       : ": " + s.kernelTimingNote) +
           ")\n";
  if (a.target == "cuda")
    out += format("est(us): an H200 estimate, not a measurement: max(%.1f us, "
                  "bytes / %.0f GB/s, flops / peak) (docs/targets/cuda-sim.md, "
                  "\"Counters\")\n",
                  kH200KernelFloorUs, kH200CopyGBps);
  if (std::find(s.launchSkipped.begin(), s.launchSkipped.end(), true) !=
      s.launchSkipped.end())
    out += "skipped: the launch belongs to a runtime If's branch these inputs "
           "do not take; its bytes are not in the total\n";
  out += format("%4s  %-32s %11s %9s %13s %9s %7s %13s %9s %7s\n", "#",
                "kernel", "time(us)", "est(us)", "bytes", "GB/s", "%copy",
                "flops", "GFLOP/s", "%peak");
  for (const Row &row : rows(a, r)) {
    std::string index = row.launch < 0 ? "" : std::to_string(row.launch);
    std::string time = row.skipped ? "skipped" : format("%.3f", row.timeUs);
    out += format("%4s  %-32s %11s %9s %13llu %9s %7s %13llu %9s %7s\n",
                  index.c_str(), row.name.c_str(), time.c_str(),
                  cell("%.2f", row.estUs).c_str(),
                  (unsigned long long)row.bytes,
                  cell("%.2f", row.gbps).c_str(),
                  cell("%.1f%%", row.pctCopy).c_str(),
                  (unsigned long long)row.flops,
                  cell("%.2f", row.gflops).c_str(),
                  cell("%.1f%%", row.pctPeak).c_str());
  }
  return out;
}

std::string benchReportJson(const Artifact &a, const BenchReport &r) {
  const BenchStats &s = r.stats;
  auto rowJson = [](const Row &row) {
    return "\"time_us\": " + jsonNumber(row.timeUs) +
           ", \"estimate_us\": " + jsonNumber(row.estUs) +
           ", \"bytes\": " + std::to_string(row.bytes) +
           ", \"gbps\": " + jsonNumber(row.gbps) +
           ", \"pct_copy\": " + jsonNumber(row.pctCopy) +
           ", \"flops\": " + std::to_string(row.flops) +
           ", \"gflops\": " + jsonNumber(row.gflops) +
           ", \"pct_peak_flops\": " + jsonNumber(row.pctPeak);
  };
  std::vector<Row> table = rows(a, r);
  std::string out = "{\n  \"target\": " + jsonString(a.target) +
                    ",\n  \"device\": " + jsonString(r.device) +
                    ",\n  \"runs\": " + std::to_string(r.runs) +
                    ",\n  \"cuda_graph\": " +
                    (s.cudaGraph ? "true" : "false") +
                    ",\n  \"kernel_timing\": " + jsonString(s.kernelTiming) +
                    ",\n  \"kernel_timing_note\": " +
                    jsonString(s.kernelTimingNote) +
                    ",\n  \"latency_ms\": {\"median\": " +
                    jsonNumber(s.medianMs) + ", \"min\": " +
                    jsonNumber(s.minMs) + ", \"max\": " + jsonNumber(s.maxMs) +
                    "},\n  \"throughput_per_s\": " +
                    jsonNumber(s.medianMs > 0 ? 1e3 / s.medianMs : NAN) +
                    ",\n  \"copy_gbps\": " +
                    jsonNumber(r.peak.copyGBps > 0 ? r.peak.copyGBps : NAN) +
                    ",\n  \"copy_how\": " + jsonString(r.peak.copyHow) +
                    ",\n  \"peak_gflops\": " +
                    jsonNumber(r.peak.gflops > 0 ? r.peak.gflops : NAN) +
                    ",\n  \"peak_gflops_how\": " +
                    jsonString(r.peak.gflopsHow) + ",\n  \"kernels\": [";
  for (size_t i = 0; i + 1 < table.size(); ++i)
    out += std::string(i ? "," : "") + "\n    {\"launch\": " +
           std::to_string(table[i].launch) +
           ", \"name\": " + jsonString(table[i].name) +
           ", \"skipped\": " + (table[i].skipped ? "true" : "false") + ", " +
           rowJson(table[i]) + "}";
  out += "\n  ],\n  \"totals\": {\"kernels\": " +
         std::to_string(a.launches.size()) + ", " + rowJson(table.back()) +
         "}\n}\n";
  return out;
}

bool runBenchmark(Executor &exec, const BenchOptions &o,
                  const std::vector<HostTensor> &inputs, std::string &error,
                  BenchReport *result) {
  BenchReport report;
  report.device = exec.deviceName();
  report.runs = o.runs;
  PeakFigures &peak = report.peak;
  if (o.peakGbps > 0) {
    peak.copyGBps = o.peakGbps;
    peak.copyHow = "given (--peak-gbps)";
  } else if (o.measurePeak) {
    uint64_t bytes = o.peakCopyBytes;
    if (!exec.measureCopyBandwidth(bytes, 10, peak.copyGBps, error))
      return false;
    peak.copyHow = "measured: median of 10 copies of " +
                   std::to_string(bytes) + " bytes, read + write";
  }
  if (o.peakGflops > 0) {
    peak.gflops = o.peakGflops;
    peak.gflopsHow = "given (--peak-gflops)";
  } else {
    peak.gflops = exec.peakGflops(peak.gflopsHow);
    if (peak.gflopsHow.empty())
      peak.gflopsHow = "give --peak-gflops";
  }
  if (!exec.benchmark(inputs, std::min(o.runs, 10), o.runs, report.stats,
                      error))
    return false;
  const Artifact &a = exec.artifact();
  std::fputs(formatBenchReport(a, report).c_str(), stdout);
  if (result)
    *result = report;
  if (o.jsonFile.empty())
    return true;
  FILE *f = std::fopen(o.jsonFile.c_str(), "w");
  std::string json = benchReportJson(a, report);
  if (!f || std::fwrite(json.data(), 1, json.size(), f) != json.size()) {
    error = "cannot write '" + o.jsonFile + "': " + std::strerror(errno);
    if (f)
      std::fclose(f);
    return false;
  }
  std::fclose(f);
  return true;
}

} // namespace bwc::rt
