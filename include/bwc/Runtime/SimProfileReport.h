//===- SimProfileReport.h - cuda-sim's per-kernel counter table -*- C++ -*-===//
//
// bwc-run --device=cuda-sim --profile: the memory counters of each launch
// (CudaSim.h, LaunchProfile) as a table and as JSON, with a time estimate
// that says what it is. docs/targets/cuda-sim.md, "Counters".
//
//===----------------------------------------------------------------------===//
#ifndef BWC_RUNTIME_SIMPROFILEREPORT_H
#define BWC_RUNTIME_SIMPROFILEREPORT_H

#include "bwc/Runtime/Artifact.h"
#include "bwc/Runtime/CudaSim.h"

#include <string>
#include <vector>

namespace bwc::rt {

/// The H200 figures the estimate uses: the device-to-device copy measured
/// on the lent H200 (2026-11-29, ../shared/DESIGN.md), and the peaks from
/// NVIDIA's specification (not measured): FP32 132 SMs x 128 lanes x 2 x
/// 1.98 GHz, dense f16/bf16 tensor cores 989.4 TFLOP/s.
constexpr double kH200CopyGBps = 4282.0;
constexpr double kH200Fp32GFlops = 66908.0;
constexpr double kH200TensorGFlops = 989400.0;
/// The shortest a kernel takes in a replayed CUDA graph on the H200:
/// ppocr_cls's 78 kernels, nearly all tiny, ran in 188 us of graph latency
/// (2026-12-04, run 4 of docs/benchmarks.md): 2.4 us each.
constexpr double kH200KernelFloorUs = 2.4;

/// Estimated microseconds of `kernel` on an H200: max(floor, DRAM bytes /
/// copy bandwidth, flops / peak), DRAM bytes = the cost model's bytes /
/// `sectorEfficiency`, floor = kH200KernelFloorUs (since 2026-12-04); the
/// tensor-core peak where the kernel's configuration has mma=1. An
/// estimate, never a measurement. It has no term for launches too small
/// to fill the GPU (docs/targets/cuda-sim.md, "Counters").
double estimateH200Us(const Kernel &kernel, double sectorEfficiency);
/// The same with the sector efficiency cuda-sim counted (`p`).
double estimateH200Us(const Kernel &kernel, const sim::LaunchProfile &p);

/// One profile per launch of the artifact's last run, in launch order, from
/// cuda-sim's profiles of the launches it executed (`all`, oldest first):
/// a launch the run skipped (`skipped[i]`, Executor::lastRunSkipped; empty:
/// none) gets an empty profile marked `skipped`. Empty when `all` holds
/// fewer profiles than the run executed.
std::vector<sim::LaunchProfile>
lastRunProfiles(const Artifact &artifact,
                const std::vector<sim::LaunchProfile> &all,
                const std::vector<bool> &skipped);

/// The counters of `profiles` (one per launch, in launch order) as the JSON
/// document --profile --json writes: a "kernels" array with a "counters"
/// object each, and the bytes-weighted sector efficiency.
std::string simProfileJson(const Artifact &artifact,
                           const std::vector<sim::LaunchProfile> &profiles);

/// Prints the table of the artifact's launches (`profiles`, one per launch
/// in order) on stdout and, with `jsonFile`, writes them as JSON; false
/// with `error` when the file cannot be written.
bool reportSimProfile(const Artifact &artifact,
                      const std::vector<sim::LaunchProfile> &profiles,
                      const std::string &jsonFile, std::string &error);

} // namespace bwc::rt

#endif // BWC_RUNTIME_SIMPROFILEREPORT_H
