//===- SimProfileReport.cpp - cuda-sim's per-kernel counter table ---------===//

#include "bwc/Runtime/SimProfileReport.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace bwc::rt {

double estimateH200Us(const Kernel &k, double sectorEfficiency) {
  double efficiency = std::max(sectorEfficiency, 1e-6);
  double dram = double(k.bytesRead + k.bytesWritten) / efficiency;
  bool tensor = k.config.find("mma=1") != std::string::npos;
  double peak = (tensor ? kH200TensorGFlops : kH200Fp32GFlops) * 1e9;
  double seconds =
      std::max(dram / (kH200CopyGBps * 1e9), double(k.flops) / peak);
  return std::max(kH200KernelFloorUs, seconds * 1e6);
}

double estimateH200Us(const Kernel &k, const sim::LaunchProfile &p) {
  return estimateH200Us(k, p.sectorEfficiency());
}

namespace {

std::string jsonEscape(const std::string &s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (static_cast<unsigned char>(c) < 0x20)
      continue;
    out += c;
  }
  return out;
}

} // namespace

std::vector<sim::LaunchProfile>
lastRunProfiles(const Artifact &a, const std::vector<sim::LaunchProfile> &all,
                const std::vector<bool> &skipped) {
  size_t n = a.launches.size(), ran = n;
  for (size_t i = 0; i < skipped.size() && i < n; ++i)
    ran -= skipped[i];
  if (all.size() < ran)
    return {};
  std::vector<sim::LaunchProfile> out(n);
  size_t next = all.size() - ran;
  for (size_t i = 0; i < n; ++i) {
    if (i < skipped.size() && skipped[i]) {
      out[i].kernel = a.kernels[a.launches[i].kernel].name;
      out[i].skipped = true;
      continue;
    }
    out[i] = all[next++];
  }
  return out;
}

/// DRAM bytes the cost model counts over those the sectors fetched, over
/// the launches of `profiles` that ran.
static double
bytesWeightedSectorEfficiency(const Artifact &a,
                              const std::vector<sim::LaunchProfile> &profiles) {
  double bytesTotal = 0, fetchedTotal = 0;
  for (size_t i = 0; i < profiles.size() && i < a.launches.size(); ++i) {
    if (profiles[i].skipped)
      continue;
    const Kernel &k = a.kernels[a.launches[i].kernel];
    double bytes = double(k.bytesRead + k.bytesWritten);
    bytesTotal += bytes;
    fetchedTotal += bytes / std::max(profiles[i].sectorEfficiency(), 1e-6);
  }
  return fetchedTotal > 0 ? bytesTotal / fetchedTotal : 1.0;
}

std::string simProfileJson(const Artifact &a,
                           const std::vector<sim::LaunchProfile> &profiles) {
  std::ostringstream json;
  json << "{\n  \"device\": \"cuda-sim\",\n  \"sampling\": \"at most 64 "
          "blocks per launch, runs of 8 consecutive blocks evenly spaced; "
          "counters exact for them\",\n"
          "  \"estimate\": \"max("
       << kH200KernelFloorUs << " us, DRAM bytes / " << kH200CopyGBps
       << " GB/s, flops / peak), DRAM bytes = cost-model bytes / "
          "sector_efficiency; not a measurement\",\n  \"kernels\": [";
  for (size_t i = 0; i < profiles.size() && i < a.launches.size(); ++i) {
    const sim::LaunchProfile &p = profiles[i];
    const Kernel &k = a.kernels[a.launches[i].kernel];
    double est = estimateH200Us(k, p);
    json << (i ? "," : "") << "\n    {\"launch\": " << i << ", \"name\": \""
         << jsonEscape(k.name) << "\", \"skipped\": "
         << (p.skipped ? "true" : "false") << ", \"ops\": \"" << jsonEscape(k.ops)
         << "\", \"bytes\": " << (k.bytesRead + k.bytesWritten)
         << ", \"flops\": " << k.flops << ", \"estimate_us\": " << est
         << ", \"counters\": {\"blocks\": " << p.blocks
         << ", \"sampled_blocks\": " << p.sampledBlocks
         << ", \"global_load_requests\": " << p.globalLoadRequests
         << ", \"global_store_requests\": " << p.globalStoreRequests
         << ", \"global_load_sectors\": " << p.globalLoadSectors
         << ", \"global_store_sectors\": " << p.globalStoreSectors
         << ", \"ideal_sectors\": " << p.idealSectors
         << ", \"useful_bytes\": " << p.usefulBytes
         << ", \"bytes_per_request\": " << p.bytesPerRequest()
         << ", \"shared_requests\": " << p.sharedRequests
         << ", \"shared_wavefronts\": " << p.sharedWavefronts
         << ", \"shared_ideal_wavefronts\": " << p.sharedIdealWavefronts
         << ", \"barriers\": " << p.barriers
         << ", \"warp_instructions\": " << p.warpInstructions
         << ", \"sector_efficiency\": " << p.sectorEfficiency()
         << ", \"byte_efficiency\": " << p.byteEfficiency()
         << ", \"shared_conflict_ways\": " << p.sharedConflictWays() << "}}";
  }
  json << "\n  ],\n  \"bytes_weighted_sector_efficiency\": "
       << bytesWeightedSectorEfficiency(a, profiles) << "\n}\n";
  return json.str();
}

bool reportSimProfile(const Artifact &a,
                      const std::vector<sim::LaunchProfile> &profiles,
                      const std::string &jsonFile, std::string &error) {
  std::printf("cuda-sim profile: counters exact for the sampled blocks "
              "(at most 64 per launch, runs of 8 evenly spaced); est. us = max(%.1f "
              "us, cost-model bytes / sector efficiency / %.0f GB/s, flops "
              "/ peak) on an H200, an estimate, not a measurement\n",
              kH200KernelFloorUs, kH200CopyGBps);
  std::printf("%4s  %-40s %9s %9s %10s %9s %10s %6s %6s %9s %6s %8s %11s %9s\n",
              "#", "kernel", "blocks", "sampled", "ld req", "ld sect", "st req",
              "st sect", "eff", "B/req", "shared", "ways", "warp instr",
              "est. us");
  for (size_t i = 0; i < profiles.size() && i < a.launches.size(); ++i) {
    const sim::LaunchProfile &p = profiles[i];
    const Kernel &k = a.kernels[a.launches[i].kernel];
    if (p.skipped) {
      std::printf("%4zu  %-40.40s skipped (a runtime If's branch not "
                  "taken)\n",
                  i, k.name.c_str());
      continue;
    }
    double est = estimateH200Us(k, p);
    std::printf("%4zu  %-40.40s %9llu %9llu %10llu %9llu %10llu %6llu %6.3f "
                "%9.2f %6llu %8.3f %11.4g %9.3f\n",
                i, k.name.c_str(), (unsigned long long)p.blocks,
                (unsigned long long)p.sampledBlocks,
                (unsigned long long)p.globalLoadRequests,
                (unsigned long long)p.globalLoadSectors,
                (unsigned long long)p.globalStoreRequests,
                (unsigned long long)p.globalStoreSectors, p.sectorEfficiency(),
                p.bytesPerRequest(), (unsigned long long)p.sharedRequests,
                p.sharedConflictWays(), p.warpInstructions, est);
  }
  std::printf("      bytes-weighted sector efficiency %.3f over %zu "
              "launches\n",
              bytesWeightedSectorEfficiency(a, profiles),
              std::min(profiles.size(), a.launches.size()));
  if (jsonFile.empty())
    return true;
  std::ofstream out(jsonFile);
  out << simProfileJson(a, profiles);
  if (!out) {
    error = "cannot write " + jsonFile;
    return false;
  }
  return true;
}

} // namespace bwc::rt
