//===- BenchReportTest.cpp - bwc-run --bench's table and JSON -------------===//

#include "bwc/Runtime/BenchReport.h"
#include "bwc/Runtime/SimProfileReport.h"

#include <gtest/gtest.h>

using namespace bwc::rt;

namespace {

/// Two launches of kernel `k` (2000 bytes, 3000 flops each) and one of `j`
/// (1000 bytes, no flops), timed 1, 1 and 2 us.
BenchReport report(Artifact &a, double copyGBps, double gflops) {
  a.kernels.resize(2);
  a.kernels[0].name = "k";
  a.kernels[0].bytesRead = 1500;
  a.kernels[0].bytesWritten = 500;
  a.kernels[0].flops = 3000;
  a.kernels[1].name = "j";
  a.kernels[1].bytesRead = 1000;
  a.launches = {{0, {}}, {0, {}}, {1, {}}};
  BenchReport r;
  r.device = "dev";
  r.runs = 7;
  r.stats.medianMs = 0.004;
  r.stats.minMs = 0.003;
  r.stats.maxMs = 0.01;
  r.stats.launchMedianMs = {0.001, 0.001, 0.002};
  r.peak.copyGBps = copyGBps;
  r.peak.copyHow = "given";
  r.peak.gflops = gflops;
  r.peak.gflopsHow = "given";
  return r;
}

// Tests the summary, each row's derived figures and the totals.
TEST(BenchReportTest, Table) {
  Artifact a;
  std::string text = formatBenchReport(a, report(a, 4, 6));
  EXPECT_NE(text.find("bench: 7 runs: median 0.0040 ms, min 0.0030 ms, "
                      "max 0.0100 ms\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("throughput: 250000.0 inferences/s"), std::string::npos);
  // 2000 bytes in 1 us = 2 GB/s, 50% of 4 GB/s; 3000 flops = 3 GFLOP/s,
  // 50% of 6.
  // A CPU artifact has no H200 estimate ("-").
  EXPECT_NE(text.find("   0  k                                      1.000 "
                      "        -          2000      2.00   50.0%          3000 "
                      "     3.00   50.0%\n"),
            std::string::npos)
      << text;
  // Totals: 5000 bytes in 4 us = 1.25 GB/s.
  EXPECT_NE(text.find("total (3 kernels)                      4.000 "
                      "        -          5000      1.25   31.2%          6000 "
                      "     1.50   25.0%\n"),
            std::string::npos)
      << text;
}

// Tests that a launch skipped because its branch was not taken is marked
// and moves no bytes in the totals.
TEST(BenchReportTest, SkippedLaunch) {
  Artifact a;
  BenchReport r = report(a, 4, 6);
  r.stats.launchSkipped = {false, true, false};
  r.stats.launchMedianMs = {0.001, 0, 0.002};
  std::string text = formatBenchReport(a, r);
  EXPECT_NE(text.find("   1  k                                    skipped "),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("skipped: the launch belongs to a runtime If's branch"),
            std::string::npos);
  EXPECT_NE(benchReportJson(a, r).find("{\"launch\": 1, \"name\": \"k\", "
                                       "\"skipped\": true,"),
            std::string::npos)
      << benchReportJson(a, r);
  // 3000 bytes in 3 us = 1 GB/s.
  EXPECT_NE(text.find("total (3 kernels)                      3.000 "
                      "        -          3000      1.00   25.0%"),
            std::string::npos)
      << text;
}

// Tests that cuda-sim's profiles of a run that skipped a launch line up
// with the launches: the last run's profiles go to the launches that ran,
// the skipped one gets an empty profile marked skipped, and too few
// profiles give none.
TEST(BenchReportTest, LastRunProfilesSkipLaunches) {
  Artifact a;
  report(a, 4, 6);
  std::vector<sim::LaunchProfile> all(4);
  for (size_t i = 0; i < all.size(); ++i)
    all[i].blocks = 10 + i; // an earlier run's last launch, then this run's
  std::vector<sim::LaunchProfile> last =
      lastRunProfiles(a, all, {false, true, false});
  ASSERT_EQ(last.size(), 3u);
  EXPECT_EQ(last[0].blocks, 12u);
  EXPECT_TRUE(last[1].skipped);
  EXPECT_EQ(last[1].blocks, 0u);
  EXPECT_EQ(last[2].blocks, 13u);
  EXPECT_EQ(lastRunProfiles(a, all, {}).front().blocks, 11u);
  EXPECT_TRUE(lastRunProfiles(a, {all[0]}, {false, true, false}).empty());
  // The skipped launch is named and left out of the efficiency.
  std::string json = simProfileJson(a, last);
  EXPECT_NE(json.find("{\"launch\": 1, \"name\": \"k\", \"skipped\": true"),
            std::string::npos)
      << json;
}

// Tests that the table says how the kernel times were taken.
TEST(BenchReportTest, KernelTimingLine) {
  Artifact a;
  BenchReport r = report(a, 4, 6);
  EXPECT_EQ(formatBenchReport(a, r).find("kernel times:"), std::string::npos);
  r.stats.kernelTiming = "graph";
  EXPECT_NE(formatBenchReport(a, r).find(
                "kernel times: event nodes in a captured CUDA graph (kernels "
                "back to back)\n"),
            std::string::npos);
  r.stats.kernelTiming = "stream";
  r.stats.kernelTimingNote = "why";
  EXPECT_NE(formatBenchReport(a, r).find(
                "kernel times: an event pair per launch on the stream (biased "
                "up by host submission gaps: why)\n"),
            std::string::npos)
      << formatBenchReport(a, r);
}

// Tests that unknown peaks print "-" and JSON null.
TEST(BenchReportTest, UnknownPeaks) {
  Artifact a;
  BenchReport r = report(a, 0, 0);
  r.peak.gflopsHow = "give --peak-gflops";
  std::string text = formatBenchReport(a, r);
  EXPECT_NE(text.find("copy bandwidth: unknown (--measure-peak)"),
            std::string::npos);
  EXPECT_NE(text.find("peak compute: unknown (give --peak-gflops)"),
            std::string::npos);
  EXPECT_NE(text.find("   2  j                                      2.000 "
                      "        -          1000      0.50       -             0 "
                      "     0.00       -\n"),
            std::string::npos)
      << text;
  std::string json = benchReportJson(a, r);
  EXPECT_NE(json.find("\"copy_gbps\": null"), std::string::npos) << json;
  EXPECT_NE(json.find("\"pct_copy\": null"), std::string::npos);
}

// Tests the JSON keys and values.
TEST(BenchReportTest, Json) {
  Artifact a;
  a.target = "cuda";
  BenchReport r = report(a, 4, 6);
  r.device = "a \"quoted\" device";
  r.stats.cudaGraph = true;
  r.stats.kernelTiming = "stream";
  r.stats.kernelTimingNote = "no event nodes";
  std::string json = benchReportJson(a, r);
  for (const char *part :
       {"\"target\": \"cuda\"", "\"device\": \"a \\\"quoted\\\" device\"",
        "\"runs\": 7", "\"cuda_graph\": true",
        "\"kernel_timing\": \"stream\"",
        "\"kernel_timing_note\": \"no event nodes\"",
        "\"latency_ms\": {\"median\": 0.004, \"min\": 0.003, \"max\": 0.01}",
        "\"throughput_per_s\": 250000", "\"copy_gbps\": 4",
        // A CUDA artifact's H200 estimate: these kernels are at the 2.4 us
        // floor.
        "{\"launch\": 2, \"name\": \"j\", \"skipped\": false, \"time_us\": 2, \"estimate_us\": "
        "2.4, \"bytes\": 1000, "
        "\"gbps\": 0.5, \"pct_copy\": 12.5, \"flops\": 0, \"gflops\": 0, "
        "\"pct_peak_flops\": 0}",
        "\"totals\": {\"kernels\": 3, \"time_us\": 4, \"estimate_us\": "
        "7.2, \"bytes\": 5000, "
        "\"gbps\": 1.25, \"pct_copy\": 31.25, \"flops\": 6000, "
        "\"gflops\": 1.5, \"pct_peak_flops\": 25}"})
    EXPECT_NE(json.find(part), std::string::npos) << part << "\n" << json;
  // The text table prints it beside the measured time, and says what it is.
  std::string text = formatBenchReport(a, r);
  EXPECT_NE(text.find("est(us): an H200 estimate, not a measurement"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("   2  j                                      2.000 "
                      "     2.40          1000"),
            std::string::npos)
      << text;
}

} // namespace
