//===- CudaSim.h - The emulated CUDA device (cuda-sim) ----------*- C++ -*-===//
//
// cuda-sim runs an artifact's CUDA kernels on the CPU. The compiler lowers
// the very gpu.module that becomes PTX, after the same NVVM conversion, for
// the host (lib/Target/CUDA/SimHost.cpp): special registers, barriers,
// `shfl.sync`, `mma.sync`, `ldmatrix`, `cp.async` (with its commit and wait
// groups) and shared memory become calls through a table
// of hooks, and every global and shared load and store passes through the
// access hook first. The artifact carries that host object (Artifact::sim).
//
// The runtime side is a CUDA driver API implemented on the CPU: the
// unchanged CudaExecutor drives it exactly as it drives libcuda. Blocks run
// one after another; a kernel with a barrier, shuffle or mma runs each
// thread of a block as a fiber (Boost.Context), others as a plain loop.
// Sanitizers modelled on compute-sanitizer check every access.
// docs/targets/cuda-sim.md describes it.
//
// This header is shared by the compiler (the ABI constants) and the
// runtime: C++17 only.
//
//===----------------------------------------------------------------------===//
#ifndef BWC_RUNTIME_CUDASIM_H
#define BWC_RUNTIME_CUDASIM_H

#include "bwc/Runtime/CudaDriver.h"

#include <cstdint>
#include <string>
#include <vector>

namespace bwc::rt::sim {

/// Version of the hook ABI between a sim object and the runtime; the
/// object exports it as `__bwcsim_abi` (i32).
constexpr int32_t kSimAbiVersion = 2;

/// Index of each hook in the object's exported `__bwcsim_hooks` table of
/// function pointers, which the runtime fills after loading it.
enum Hook : int32_t {
  /// void *access(void *p, i32 site): checks the access of `site` at p and
  /// returns the pointer to use (a scratch buffer when p is out of bounds).
  kHookAccess = 0,
  /// i32 sreg(i32 which): a special register (SpecialRegister below).
  kHookSreg = 1,
  /// void barrier(i32 site): bar.sync 0 of the whole block.
  kHookBarrier = 2,
  /// i64 shfl(i32 site, i32 kind, i32 mask, i32 value, i32 offset,
  /// i32 maskAndClamp): the value in the low 32 bits, validity in bit 32.
  kHookShuffle = 3,
  /// void mma(i32 site, i32 *a /*4*/, i32 *b /*2*/, f32 *c /*4*/,
  /// f32 *d /*4*/): mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.
  kHookMma = 4,
  /// void *shared(i32 array): the block's copy of shared array `array`.
  kHookShared = 5,
  /// void cpAsync(i32 loadSite, i32 storeSite, void *dst, void *src,
  /// i32 srcBytes): cp.async.{ca,cg}.shared.global of the sites' size;
  /// srcBytes (0 or the size) are read, the rest zero-filled. The copy joins
  /// the thread's open group and lands in shared memory when a wait
  /// completes that group.
  kHookCpAsync = 6,
  /// void cpAsyncCommit(): cp.async.commit_group.
  kHookCpAsyncCommit = 7,
  /// void cpAsyncWait(i32 n): cp.async.wait_group n.
  kHookCpAsyncWait = 8,
  /// void ldmatrix(i32 site, i32 loadSite, void *row, i32 tiles, i32 trans,
  /// i32 *out /*tiles*/): ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans]
  /// .shared.b16; `row` is the 16-byte row this lane addresses.
  kHookLdMatrix = 9,
  kNumHooks = 10,
};

enum SpecialRegister : int32_t {
  kTidX = 0, kTidY, kTidZ, kNtidX, kNtidY, kNtidZ,
  kCtaidX, kCtaidY, kCtaidZ, kNctaidX, kNctaidY, kNctaidZ,
  kLaneId, kWarpSize, kNumSpecialRegisters
};

/// shfl.sync kinds, as NVVM's ShflKind numbers them.
enum ShuffleKind : int32_t { kShflBfly = 0, kShflUp = 1, kShflDown = 2,
                             kShflIdx = 3 };

/// What the sanitizers check (bwc-run --sanitize).
struct SimOptions {
  bool memcheck = true, racecheck = false, synccheck = true,
       initcheck = false;
  /// Findings printed per launch; the rest are counted.
  unsigned maxReports = 10;
  /// Memory counters per launch (bwc-run --profile): exact for the blocks
  /// they sample, at most `profileBlocks` per launch: all of them, or
  /// runs of 8 consecutive blocks at evenly spaced starts.
  bool profile = false;
  unsigned profileBlocks = 64;
  /// A launch running longer than this (seconds, 0: never) is a synccheck
  /// error that ends the process with exit code 1: a thread that never
  /// reaches its barrier or never exits (an endless loop) must not hang
  /// the run.
  double timeoutSeconds = 600;
};

/// Nsight-Compute-style memory counters of one launch, over its sampled
/// blocks. A warp-level request is one dynamic execution of a load or
/// store by the lanes of a warp: the k-th execution of a site by each lane
/// (lanes that execute a site fewer times are inactive in the later
/// requests).
struct LaunchProfile {
  std::string kernel;
  uint64_t blocks = 0, sampledBlocks = 0;
  uint64_t globalLoadRequests = 0, globalStoreRequests = 0;
  /// Distinct 32-byte sectors per request, summed.
  uint64_t globalLoadSectors = 0, globalStoreSectors = 0;
  /// Per request, the sectors a perfectly coalesced request of the same
  /// distinct bytes would take (ceil(distinct bytes / 32)), summed.
  uint64_t idealSectors = 0;
  /// Per request, the distinct bytes its active lanes access, summed.
  uint64_t usefulBytes = 0;
  /// Bytes each lane accesses per request (the access width), summed over
  /// global requests.
  uint64_t globalRequestBytes = 0;
  uint64_t sharedRequests = 0;
  /// Shared-memory wavefronts (32 banks x 4 bytes; 8- and 16-byte accesses
  /// in 2 and 4 phases of 16 and 8 lanes): per phase, the most distinct
  /// 4-byte words any bank serves; and the conflict-free minimum, one per
  /// phase with an active lane.
  uint64_t sharedWavefronts = 0, sharedIdealWavefronts = 0;
  /// Barriers completed by the sampled blocks.
  uint64_t barriers = 0;
  /// NVVM-level ops of the whole launch over all threads, / 32.
  double warpInstructions = 0;
  /// Set by lastRunProfiles for a launch the run skipped (a runtime If's
  /// branch not taken): it ran nothing, every counter is 0.
  bool skipped = false;

  uint64_t globalRequests() const {
    return globalLoadRequests + globalStoreRequests;
  }
  uint64_t globalSectors() const {
    return globalLoadSectors + globalStoreSectors;
  }
  /// ideal / actual sectors (1 when there is no global access): how far
  /// requests are from coalesced, counting whole sectors.
  double sectorEfficiency() const {
    return globalSectors() ? double(idealSectors) / double(globalSectors())
                           : 1.0;
  }
  /// useful bytes / (32 x sectors): also counting a sector's unused bytes
  /// (a broadcast scalar: 4 of 32), the static access model's measure.
  double byteEfficiency() const {
    return globalSectors() ? double(usefulBytes) / (32.0 * globalSectors())
                           : 1.0;
  }
  /// wavefronts / conflict-free wavefronts (1 without shared accesses).
  double sharedConflictWays() const {
    return sharedIdealWavefronts
               ? double(sharedWavefronts) / double(sharedIdealWavefronts)
               : 1.0;
  }
  double bytesPerRequest() const {
    return globalRequests() ? double(globalRequestBytes) / globalRequests()
                            : 0.0;
  }
};

/// The profiles of the launches since the last clear, in launch order
/// (empty unless SimOptions::profile).
std::vector<LaunchProfile> simProfiles();
void clearSimProfiles();

/// "memcheck,synccheck", "all" or "none" into `options`; false with an
/// error naming an unknown sanitizer.
bool parseSanitizers(const std::string &list, SimOptions &options,
                     std::string &error);
/// "memcheck,synccheck" (the enabled ones) or "none".
std::string describeSanitizers(const SimOptions &options);

/// ldmatrix.sync.aligned.m8n8.x`tiles`[.trans].b16 (PTX ISA "Warp-level
/// matrix load instruction: ldmatrix"): `rows[8 j + r]` is row r (8
/// consecutive 16-bit elements) of matrix j, as lane 8 j + r addresses it;
/// `out[lane][j]` receives the lane's 32-bit fragment of matrix j. Exposed
/// for the unit test that checks it against the ISA's fragment table.
void ldmatrixFragments(const uint8_t *const rows[32], int tiles, bool trans,
                       uint32_t out[32][4]);

/// What the emulated device has executed since the process started.
struct SimStats {
  uint64_t launches = 0, blocks = 0, threads = 0;
  /// NVVM-level ops executed, summed over threads (each about one PTX
  /// instruction; the object counts each basic block's ops as it runs).
  uint64_t instructions = 0;
  /// Global and shared loads and stores that went through the access hook.
  uint64_t accesses = 0;
  /// Host wall time inside the emulated kernels.
  double seconds = 0;
};
SimStats simStats();

/// Whether this runtime was built with cuda-sim (it needs Boost.Context).
bool simAvailable();

/// The driver API of the emulated device, configured by `options`. The
/// device is one process-wide instance: loading it again reconfigures it.
const cuda::DriverApi &simulatedDriverApi(const SimOptions &options);

} // namespace bwc::rt::sim

#endif // BWC_RUNTIME_CUDASIM_H
