//===- SimExecution.cpp - Runs one launch on cuda-sim ---------------------===//
//
// Blocks run one after another. A kernel without barrier, shuffle, mma or
// ldmatrix runs its threads as a plain loop on the caller's stack. Any other kernel
// runs each thread of a block as a fiber (Boost.Context's fcontext, ~10 ns
// a switch): a thread runs until it reaches a barrier or a warp collective
// and yields; when no thread can run, the scheduler completes the warp
// collectives whose member lanes have all arrived (with PTX's semantics),
// then the barrier once every live thread waits at it. Anything else is a
// synccheck error, never a hang.
//
// Every global and shared access goes through the access hook first:
// memcheck (inside the buffer the compiler traced it to, or inside an
// allocation; aligned), initcheck (reads of bytes nothing wrote), and
// racecheck (shared-memory hazards between two barriers).
//
// cp.async reads its source when issued and writes shared memory only when
// a cp.async.wait_group of the issuing thread completes its group (or the
// thread exits): a kernel that reads a stage before waiting for it reads
// stale bytes, as it may on the GPU, and the checks see the write where
// PTX lets it happen.
//
//===----------------------------------------------------------------------===//
#include "SimDevice.h"

#include <boost/context/detail/fcontext.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sys/mman.h>
#include <unordered_map>
#include <unistd.h>

namespace bwc::rt::sim {

using namespace cuda;
namespace ctx = boost::context::detail;

bool simAvailable() { return true; }

namespace {

constexpr int kWarp = 32;
constexpr size_t kStackBytes = 64 * 1024;

enum class State : uint8_t { ready, barrier, collective, exited };
enum class Collective : uint8_t { shuffle, mma, ldmatrix };

/// A cp.async issued and not yet landed in shared memory.
struct AsyncCopy {
  uint64_t group = 0;
  int32_t storeSite = -1;
  void *dst = nullptr;
  uint32_t bytes = 0;
  uint8_t data[16] = {};
};

struct Thread {
  uint32_t tid[3] = {0, 0, 0};
  uint32_t linear = 0;
  State state = State::ready;
  /// The site a waiting thread waits at.
  int32_t site = -1;
  // A shuffle's operands and result, an mma's fragments, or an ldmatrix's
  // row address (`row`, null for lanes that address none), tile count,
  // transpose and result.
  int32_t kind = 0;
  Collective collective = Collective::shuffle;
  const uint8_t *row = nullptr;
  int32_t tiles = 0;
  bool trans = false;
  int32_t *out = nullptr;
  // cp.async: the copies in flight and the groups committed so far (a copy
  // belongs to group `committed` at its issue).
  std::vector<AsyncCopy> copies;
  uint64_t committed = 0;
  uint32_t mask = 0, value = 0, offset = 0, clamp = 0;
  uint64_t result = 0;
  const int32_t *a = nullptr, *b = nullptr;
  const float *c = nullptr;
  float *d = nullptr;
  ctx::fcontext_t context = nullptr, caller = nullptr;
};

/// Fiber stacks with a guard page below each, kept across launches.
class Stacks {
public:
  ~Stacks() {
    if (base_)
      munmap(base_, count_ * slot());
  }
  /// Top of stack `i` of at least `n` stacks.
  void *top(size_t i, size_t n) {
    if (n > count_) {
      if (base_)
        munmap(base_, count_ * slot());
      count_ = n;
      base_ = static_cast<char *>(mmap(nullptr, count_ * slot(),
                                       PROT_READ | PROT_WRITE,
                                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
      if (base_ == MAP_FAILED) {
        base_ = nullptr;
        count_ = 0;
        return nullptr;
      }
      for (size_t s = 0; s < count_; ++s)
        mprotect(base_ + s * slot(), page(), PROT_NONE);
    }
    return base_ + (i + 1) * slot();
  }

private:
  static size_t page() { return size_t(sysconf(_SC_PAGESIZE)); }
  static size_t slot() { return kStackBytes + page(); }
  char *base_ = nullptr;
  size_t count_ = 0;
};

/// One byte of shared memory under racecheck: the last writer and reader
/// in the current barrier interval (epoch).
struct RaceCell {
  uint32_t writeEpoch = 0, readEpoch = 0;
  int32_t writer = -1, reader = -1;
  /// Another thread than `reader` that read the byte in the interval.
  int32_t otherReader = -1;
  bool manyReaders = false;
};

/// The state of the launch being executed, read by the hooks.
struct Launch {
  const SimModule *module = nullptr;
  uint32_t kernel = 0;
  const SimKernel *info = nullptr;
  std::string name;
  uint32_t grid[3], block[3], threads = 0;
  std::vector<uint64_t> params;
  std::vector<void *> paramSlots;
  /// Per parameter: its extent for memcheck, the allocation holding it
  /// (initcheck's shadow) and what to call it.
  std::vector<size_t> extents;
  std::vector<Allocation *> allocations;
  std::vector<std::string> paramNames;
  uint32_t blockId[3] = {0, 0, 0};
  std::vector<Thread> threadList;
  Thread *current = nullptr;
  Thread plain;
  bool fibers = false;
  /// Shared memory of the current block and its shadows.
  std::vector<uint8_t> shared;
  std::vector<uint32_t> sharedWritten; // block generation that wrote it
  std::vector<RaceCell> race;
  uint32_t blockGeneration = 0, epoch = 0;
  bool aborted = false;
  // Profiling (SimOptions::profile): whether the current block is sampled,
  // per thread the executions of each site so far (a lane's k-th execution
  // of a site is its part of the warp's k-th request there), per warp the
  // lanes and addresses of each pending request.
  bool profiling = false;
  LaunchProfile profile;
  std::vector<std::unordered_map<int32_t, uint32_t>> occurrences;
  std::vector<std::unordered_map<uint64_t,
                                 std::vector<std::pair<uint32_t, uintptr_t>>>>
      requests;
  // Findings.
  unsigned findings = 0, printed = 0, memFindings = 0;
  uint64_t accesses = 0;
  std::vector<std::pair<int, int32_t>> reported; // (check, site) seen
  std::string first;
};

Launch *g_launch = nullptr;
Stacks g_stacks;
/// Where an out-of-bounds access goes instead.
alignas(256) uint8_t g_scratch[256];
/// Generations survive launches so no shadow needs clearing.
uint32_t g_generation = 0, g_epoch = 0;

const char *kCheckNames[] = {"memcheck", "racecheck", "synccheck",
                             "initcheck"};
enum Check { kMem = 0, kRace = 1, kSync = 2, kInit = 3 };

std::string dims(const uint32_t d[3]) {
  return "(" + std::to_string(d[0]) + "," + std::to_string(d[1]) + "," +
         std::to_string(d[2]) + ")";
}

std::string threadName(const Launch &l, const Thread &t) {
  return "block " + dims(l.blockId) + " thread " + dims(t.tid);
}

const SimSite &siteOf(const Launch &l, int32_t site) {
  return l.module->sites[size_t(site)];
}

std::string siteLoc(const Launch &l, int32_t site) {
  if (site < 0 || size_t(site) >= l.module->sites.size())
    return "<unknown site " + std::to_string(site) + ">";
  return siteOf(l, site).loc;
}

/// Records a finding of `check` at `site`; one line per (check, site) is
/// printed, up to maxReports per launch.
void report(Launch &l, Check check, int32_t site, const std::string &text) {
  ++l.findings;
  if (check == kMem)
    ++l.memFindings;
  std::pair<int, int32_t> key{check, site};
  if (std::find(l.reported.begin(), l.reported.end(), key) != l.reported.end())
    return;
  l.reported.push_back(key);
  std::string line = std::string("cuda-sim: ") + kCheckNames[check] +
                     ": kernel '" + l.name + "' " + text;
  if (l.first.empty())
    l.first = line;
  if (l.printed++ < device().options.maxReports)
    std::fprintf(stderr, "%s\n", line.c_str());
}

Thread &cur() { return *g_launch->current; }

/// Whether `site` is a site of the launched kernel of one of `kinds`: the
/// object calls the hooks with its own numbers, which the artifact's
/// validation cannot tie to the calls themselves.
bool validSite(const Launch &l, int32_t site,
               std::initializer_list<SimSiteKind> kinds) {
  if (site < 0 || size_t(site) >= l.module->sites.size())
    return false;
  const SimSite &s = l.module->sites[size_t(site)];
  return s.kernel == l.kernel &&
         std::find(kinds.begin(), kinds.end(), s.kind) != kinds.end();
}

void setThreadIds(const Launch &l, Thread &t, uint32_t linear) {
  t.linear = linear;
  t.tid[0] = linear % l.block[0];
  t.tid[1] = linear / l.block[0] % l.block[1];
  t.tid[2] = linear / (l.block[0] * l.block[1]);
}


//===----------------------------------------------------------------------===//
// Profiling: warp-level requests, sectors, shared wavefronts
//===----------------------------------------------------------------------===//

/// Files a sampled access under its warp's request.
void recordRequest(Launch &l, int32_t site, uintptr_t a) {
  const Thread &t = cur();
  uint32_t n = l.occurrences[t.linear][site]++;
  uint64_t key = (uint64_t(uint32_t(site)) << 32) | n;
  l.requests[t.linear / kWarp][key].push_back({t.linear % kWarp, a});
}

/// Counts an execution of `site` by the current lane that accesses no
/// memory (a zero-filling cp.async), so its later requests stay aligned
/// with the other lanes'.
void skipRequest(Launch &l, int32_t site) {
  ++l.occurrences[cur().linear][site];
}

/// Turns warp `w`'s pending requests into counters.
void foldWarp(Launch &l, size_t w) {
  LaunchProfile &p = l.profile;
  std::vector<uint64_t> units;
  for (auto &[key, lanes] : l.requests[w]) {
    const SimSite &s = siteOf(l, int32_t(key >> 32));
    if (s.space == SimSpace::global) {
      bool store = s.kind == SimSiteKind::store;
      (store ? p.globalStoreRequests : p.globalLoadRequests) += 1;
      p.globalRequestBytes += s.bytes;
      units.clear();
      for (auto [lane, a] : lanes)
        for (uint64_t x = a >> 5; x <= (a + s.bytes - 1) >> 5; ++x)
          units.push_back(x);
      std::sort(units.begin(), units.end());
      uint64_t sectors =
          std::unique(units.begin(), units.end()) - units.begin();
      (store ? p.globalStoreSectors : p.globalLoadSectors) += sectors;
      // The distinct bytes the active lanes asked for, and the sectors a
      // perfectly coalesced request of them would take.
      units.clear();
      for (auto [lane, a] : lanes)
        units.push_back(a);
      std::sort(units.begin(), units.end());
      uint64_t distinct = 0, end = 0;
      for (uint64_t a : units) {
        uint64_t from = std::max<uint64_t>(a, end);
        if (a + s.bytes > from)
          distinct += a + s.bytes - from;
        end = std::max<uint64_t>(end, a + s.bytes);
      }
      p.usefulBytes += distinct;
      p.idealSectors += (distinct + 31) / 32;
      continue;
    }
    // Shared: 4-, 8- and 16-byte accesses are served in 1, 2 and 4 phases
    // of 32, 16 and 8 lanes; a phase takes as many wavefronts as the most
    // distinct 4-byte words one of the 32 banks must deliver.
    ++p.sharedRequests;
    uint32_t lanesPerPhase = s.bytes >= 16 ? 8 : s.bytes >= 8 ? 16 : 32;
    for (uint32_t phase = 0; phase * lanesPerPhase < kWarp; ++phase) {
      units.clear();
      for (auto [lane, a] : lanes)
        if (lane / lanesPerPhase == phase)
          for (uint64_t word = a >> 2; word <= (a + s.bytes - 1) >> 2; ++word)
            units.push_back(word);
      if (units.empty())
        continue;
      std::sort(units.begin(), units.end());
      units.erase(std::unique(units.begin(), units.end()), units.end());
      uint32_t perBank[32] = {0}, most = 0;
      for (uint64_t word : units)
        most = std::max(most, ++perBank[word % 32]);
      p.sharedWavefronts += most;
      p.sharedIdealWavefronts += 1;
    }
  }
  l.requests[w].clear();
}

//===----------------------------------------------------------------------===//
// The access hook: memcheck, initcheck, racecheck
//===----------------------------------------------------------------------===//

void *hookAccess(void *p, int32_t siteId) {
  Launch &l = *g_launch;
  ++l.accesses;
  const SimOptions &o = device().options;
  if (!validSite(l, siteId, {SimSiteKind::load, SimSiteKind::store})) {
    report(l, kMem, siteId,
           "accesses memory through site " + std::to_string(siteId) +
               ", which is no load or store of this kernel");
    return g_scratch;
  }
  const SimSite &s = siteOf(l, siteId);
  if (!o.memcheck && !o.initcheck && !o.racecheck && !l.profiling)
    return p;
  bool store = s.kind == SimSiteKind::store;
  uintptr_t a = reinterpret_cast<uintptr_t>(p);
  const char *verb = store ? "store" : "load";
  auto where = [&] {
    return threadName(l, cur()) + ": " + verb + " of " +
           std::to_string(s.bytes) + " bytes at " + s.loc;
  };

  if (s.space == SimSpace::shared) {
    const SimArray &arr = l.info->shared[size_t(s.root)];
    uintptr_t base = reinterpret_cast<uintptr_t>(l.shared.data()) + arr.offset;
    if (a < base || a - base > arr.bytes || s.bytes > arr.bytes - (a - base)) {
      if (o.memcheck) {
        int64_t off = int64_t(a) - int64_t(base);
        report(l, kMem, siteId,
               where() + " is out of bounds of shared array " +
                   std::to_string(s.root) + " (" + std::to_string(arr.bytes) +
                   " bytes): byte offset " + std::to_string(off) +
                   " (element " + std::to_string(off / int64_t(s.bytes)) +
                   ")");
      }
      return g_scratch; // never touch memory outside the block's arrays
    }
    if (o.memcheck && a % s.align) {
      report(l, kMem, siteId,
             where() + " is misaligned: shared array " +
                 std::to_string(s.root) + " byte offset " +
                 std::to_string(a - base) + " is not a multiple of " +
                 std::to_string(s.align));
      return g_scratch;
    }
    size_t off = a - reinterpret_cast<uintptr_t>(l.shared.data());
    Thread &t = cur();
    if (o.initcheck) {
      if (store) {
        std::fill_n(l.sharedWritten.begin() + off, s.bytes,
                    l.blockGeneration);
      } else {
        for (uint32_t i = 0; i < s.bytes; ++i)
          if (l.sharedWritten[off + i] != l.blockGeneration) {
            report(l, kInit, siteId,
                   where() + " reads shared array " + std::to_string(s.root) +
                       " byte offset " + std::to_string(a - base + i) +
                       " that no thread of the block wrote");
            break;
          }
      }
    }
    if (o.racecheck) {
      int32_t me = int32_t(t.linear);
      for (uint32_t i = 0; i < s.bytes; ++i) {
        RaceCell &c = l.race[off + i];
        auto hazard = [&](const char *kind, int32_t other) {
          Thread u;
          setThreadIds(l, u, uint32_t(other));
          report(l, kRace, siteId,
                 where() + ": " + kind + " hazard on shared array " +
                     std::to_string(s.root) + " byte offset " +
                     std::to_string(a - base + i) + " with thread " +
                     dims(u.tid) + " in the same barrier interval");
        };
        bool sameEpochWrite = c.writeEpoch == l.epoch && c.writer >= 0;
        bool sameEpochRead = c.readEpoch == l.epoch && c.reader >= 0;
        if (store) {
          if (sameEpochWrite && c.writer != me) {
            hazard("write-after-write", c.writer);
            break;
          }
          if (sameEpochRead && (c.reader != me || c.manyReaders)) {
            hazard("write-after-read",
                   c.reader != me ? c.reader : c.otherReader);
            break;
          }
          c.writer = me;
          c.writeEpoch = l.epoch;
        } else {
          if (sameEpochWrite && c.writer != me) {
            hazard("read-after-write", c.writer);
            break;
          }
          if (!sameEpochRead) {
            c.reader = me;
            c.readEpoch = l.epoch;
            c.manyReaders = false;
          } else if (c.reader != me) {
            c.manyReaders = true;
            c.otherReader = me;
          }
        }
      }
    }
    if (l.profiling)
      recordRequest(l, siteId, a);
    return p;
  }

  // Global memory.
  uintptr_t base = 0;
  size_t extent = 0;
  Allocation *alloc = nullptr;
  static const std::string kAllocation = "its allocation";
  const std::string *bufferName = &kAllocation;
  if (s.root >= 0) {
    base = uintptr_t(l.params[size_t(s.root)]);
    extent = l.extents[size_t(s.root)];
    alloc = l.allocations[size_t(s.root)];
    bufferName = &l.paramNames[size_t(s.root)];
  } else if ((alloc = device().find(a, s.bytes))) {
    base = alloc->base;
    extent = alloc->bytes;
  }
  const std::string &buffer = *bufferName;
  if (!alloc || a < base || a - base > extent ||
      s.bytes > extent - (a - base)) {
    if (o.memcheck) {
      if (alloc) {
        int64_t off = int64_t(a) - int64_t(base);
        report(l, kMem, siteId,
               where() + " is out of bounds of " + buffer + " (" +
                   std::to_string(extent) + " bytes): byte offset " +
                   std::to_string(off) + " (element " +
                   std::to_string(off / int64_t(s.bytes)) + ")");
      } else {
        report(l, kMem, siteId,
               where() + " is outside every allocation (address 0x" +
                   [&] {
                     char b[32];
                     std::snprintf(b, sizeof(b), "%llx",
                                   (unsigned long long)a);
                     return std::string(b);
                   }() +
                   ")");
      }
    }
    return g_scratch; // never touch memory outside the buffer
  }
  if (o.memcheck && a % s.align) {
    report(l, kMem, siteId,
           where() + " is misaligned: " + buffer + " byte offset " +
               std::to_string(a - base) + " is not a multiple of " +
               std::to_string(s.align));
    return g_scratch;
  }
  if (l.profiling)
    recordRequest(l, siteId, a);
  if (o.initcheck && !alloc->written.empty()) {
    uint8_t *shadow = alloc->written.data() + (a - alloc->base);
    if (store) {
      std::memset(shadow, 1, s.bytes);
    } else {
      for (uint32_t i = 0; i < s.bytes; ++i)
        if (!shadow[i]) {
          report(l, kInit, siteId,
                 where() + " reads " + buffer + " byte offset " +
                     std::to_string(a - base + i) + " that nothing wrote");
          break;
        }
    }
  }
  return p;
}

//===----------------------------------------------------------------------===//
// Special registers, shared memory, collectives
//===----------------------------------------------------------------------===//

int32_t hookSreg(int32_t which) {
  Launch &l = *g_launch;
  const Thread &t = cur();
  switch (which) {
  case kTidX: case kTidY: case kTidZ: return int32_t(t.tid[which - kTidX]);
  case kNtidX: case kNtidY: case kNtidZ:
    return int32_t(l.block[which - kNtidX]);
  case kCtaidX: case kCtaidY: case kCtaidZ:
    return int32_t(l.blockId[which - kCtaidX]);
  case kNctaidX: case kNctaidY: case kNctaidZ:
    return int32_t(l.grid[which - kNctaidX]);
  case kLaneId: return int32_t(t.linear % kWarp);
  case kWarpSize: return kWarp;
  default: return 0;
  }
}

void *hookShared(int32_t array) {
  Launch &l = *g_launch;
  if (array < 0 || size_t(array) >= l.info->shared.size())
    return g_scratch;
  return l.shared.data() + l.info->shared[size_t(array)].offset;
}

/// Back to the scheduler until it resumes this thread.
void yield(Thread &t) {
  ctx::transfer_t r = ctx::jump_fcontext(t.caller, nullptr);
  t.caller = r.fctx;
}

/// A collective reached outside a fiber: the compiler said the kernel has
/// none. Never expected; reported rather than hanging.
bool needFibers(Launch &l, int32_t site) {
  if (l.fibers)
    return true;
  report(l, kSync, site,
         threadName(l, cur()) + ": reaches a barrier or warp collective at " +
             siteLoc(l, site) +
             " but the kernel was compiled as having none");
  return false;
}

void hookBarrier(int32_t site) {
  Launch &l = *g_launch;
  if (!validSite(l, site, {SimSiteKind::barrier})) {
    report(l, kSync, site, "reaches a barrier through a site that is none");
    return;
  }
  if (!needFibers(l, site))
    return;
  Thread &t = cur();
  t.state = State::barrier;
  t.site = site;
  yield(t);
}

int64_t hookShuffle(int32_t site, int32_t kind, int32_t mask, int32_t value,
                    int32_t offset, int32_t clamp) {
  Launch &l = *g_launch;
  if (!validSite(l, site, {SimSiteKind::shuffle})) {
    report(l, kSync, site, "shuffles through a site that is no shfl.sync");
    return int64_t(uint32_t(value));
  }
  if (!needFibers(l, site))
    return int64_t(uint32_t(value));
  Thread &t = cur();
  t.state = State::collective;
  t.site = site;
  t.collective = Collective::shuffle;
  t.kind = kind;
  t.mask = uint32_t(mask);
  t.value = uint32_t(value);
  t.offset = uint32_t(offset);
  t.clamp = uint32_t(clamp);
  yield(t);
  return int64_t(t.result);
}

void hookMma(int32_t site, const int32_t *a, const int32_t *b, const float *c,
             float *d) {
  Launch &l = *g_launch;
  if (!validSite(l, site, {SimSiteKind::mma})) {
    report(l, kSync, site, "runs an mma through a site that is none");
    return;
  }
  if (!needFibers(l, site))
    return;
  Thread &t = cur();
  t.state = State::collective;
  t.site = site;
  t.collective = Collective::mma;
  t.mask = 0xFFFFFFFFu;
  t.a = a;
  t.b = b;
  t.c = c;
  t.d = d;
  yield(t);
}

void hookLdMatrix(int32_t site, int32_t loadSite, void *row, int32_t tiles,
                  int32_t trans, int32_t *out) {
  Launch &l = *g_launch;
  if (!validSite(l, site, {SimSiteKind::ldmatrix}) ||
      !validSite(l, loadSite, {SimSiteKind::load}) ||
      siteOf(l, loadSite).space != SimSpace::shared ||
      siteOf(l, loadSite).bytes != 16) {
    report(l, kSync, site, "runs an ldmatrix through a site that is none");
    return;
  }
  if (tiles != 1 && tiles != 2 && tiles != 4) {
    report(l, kSync, site,
           threadName(l, cur()) + ": ldmatrix of " + std::to_string(tiles) +
               " matrices at " + siteLoc(l, site) + " (PTX has .x1, .x2, .x4)");
    return;
  }
  if (!needFibers(l, site))
    return;
  Thread &t = cur();
  // Lanes 0..8 tiles - 1 each address one 16-byte row; the others' addresses
  // are unused (PTX ISA).
  t.row = nullptr;
  if (t.linear % kWarp < uint32_t(8 * tiles))
    t.row = static_cast<const uint8_t *>(hookAccess(row, loadSite));
  t.state = State::collective;
  t.site = site;
  t.collective = Collective::ldmatrix;
  t.mask = 0xFFFFFFFFu;
  t.tiles = tiles;
  t.trans = trans != 0;
  t.out = out;
  yield(t);
}

/// Lands the copies of `t` in groups before `group` (all when `group` is
/// past the last).
void landCopies(Launch &l, Thread &t, uint64_t group) {
  Thread *saved = l.current;
  l.current = &t;
  size_t kept = 0;
  for (AsyncCopy &c : t.copies) {
    if (c.group >= group) {
      t.copies[kept++] = c;
      continue;
    }
    void *dst = hookAccess(c.dst, c.storeSite);
    if (dst != g_scratch)
      std::memcpy(dst, c.data, c.bytes);
  }
  t.copies.resize(kept);
  l.current = saved;
}

void hookCpAsync(int32_t loadSite, int32_t storeSite, void *dst, void *src,
                 int32_t srcBytes) {
  Launch &l = *g_launch;
  if (!validSite(l, loadSite, {SimSiteKind::load}) ||
      !validSite(l, storeSite, {SimSiteKind::store}) ||
      siteOf(l, loadSite).space != SimSpace::global ||
      siteOf(l, storeSite).space != SimSpace::shared ||
      siteOf(l, loadSite).bytes != siteOf(l, storeSite).bytes ||
      siteOf(l, loadSite).bytes > 16) {
    report(l, kMem, loadSite, "runs a cp.async through sites that are none");
    return;
  }
  Thread &t = cur();
  uint32_t bytes = siteOf(l, loadSite).bytes;
  AsyncCopy c;
  c.group = t.committed;
  c.storeSite = storeSite;
  c.dst = dst;
  c.bytes = bytes;
  if (srcBytes == int32_t(bytes)) {
    // Read when issued: the source does not change while a kernel runs.
    const void *from = hookAccess(src, loadSite);
    std::memcpy(c.data, from, bytes);
  } else if (srcBytes == 0) {
    if (l.profiling)
      skipRequest(l, loadSite);
  } else {
    report(l, kMem, loadSite,
           threadName(l, t) + ": cp.async of " + std::to_string(bytes) +
               " bytes reads " + std::to_string(srcBytes) + " at " +
               siteLoc(l, loadSite) +
               "; cuda-sim models a source size of 0 or the whole copy");
    return;
  }
  t.copies.push_back(c);
}

void hookCpAsyncCommit() { ++cur().committed; }

void hookCpAsyncWait(int32_t n) {
  Thread &t = cur();
  // Groups committed before the n most recent ones are complete; copies
  // not yet committed are not waited for (PTX ISA cp.async.wait_group).
  uint64_t keep = n < 0 ? 0 : uint64_t(n);
  if (t.committed > keep)
    landCopies(*g_launch, t, t.committed - keep);
}

float halfToFloat(uint16_t h, bool bf16) {
  if (bf16) {
    uint32_t bits = uint32_t(h) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  uint32_t sign = (h >> 15) & 1, exp = (h >> 10) & 31, man = h & 1023;
  float f;
  if (exp == 0)
    f = std::ldexp(float(man), -24);
  else if (exp == 31)
    f = man ? NAN : INFINITY;
  else
    f = std::ldexp(float(man | 1024), int(exp) - 25);
  return sign ? -f : f;
}

/// mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32 over
/// the 32 lanes of `warp` (PTX ISA "Matrix Fragments for mma.m16n8k16"):
/// g = lane >> 2, t = lane % 4; A a0..a7 at row g (a0,a1,a4,a5) or g + 8,
/// column 2t + (i & 1) (+ 8 for i >= 4); B b0..b3 at k = 2t + (i & 1)
/// (+ 8 for i >= 2), n = g; C/D c0..c3 at row g (c0,c1) or g + 8, column
/// 2t + (i & 1). The lower-index element is in the low 16 bits.
void executeMma(Thread *const lanes[kWarp], bool bf16) {
  float A[16][16], B[16][8], C[16][8];
  for (int lane = 0; lane < kWarp; ++lane) {
    const Thread &t = *lanes[lane];
    int g = lane >> 2, q = lane % 4;
    for (int i = 0; i < 8; ++i) {
      uint16_t h = uint16_t(uint32_t(t.a[i / 2]) >> (16 * (i & 1)));
      int row = (i == 0 || i == 1 || i == 4 || i == 5) ? g : g + 8;
      int col = 2 * q + (i & 1) + (i >= 4 ? 8 : 0);
      A[row][col] = halfToFloat(h, bf16);
    }
    for (int i = 0; i < 4; ++i) {
      uint16_t h = uint16_t(uint32_t(t.b[i / 2]) >> (16 * (i & 1)));
      int k = 2 * q + (i & 1) + (i >= 2 ? 8 : 0);
      B[k][g] = halfToFloat(h, bf16);
    }
    for (int i = 0; i < 4; ++i)
      C[i < 2 ? g : g + 8][2 * q + (i & 1)] = t.c[i];
  }
  for (int lane = 0; lane < kWarp; ++lane) {
    int g = lane >> 2, q = lane % 4;
    for (int i = 0; i < 4; ++i) {
      int m = i < 2 ? g : g + 8, n = 2 * q + (i & 1);
      // f16/bf16 products are exact in f32; summed in ascending k (the
      // unit's own order is undocumented).
      float acc = C[m][n];
      for (int k = 0; k < 16; ++k)
        acc += A[m][k] * B[k][n];
      lanes[lane]->d[i] = acc;
    }
  }
}

} // namespace

void ldmatrixFragments(const uint8_t *const rows[32], int tiles, bool trans,
                       uint32_t out[32][4]) {
  for (int lane = 0; lane < kWarp; ++lane)
    for (int j = 0; j < tiles; ++j) {
      // Matrix j's row r is rows[8 j + r]. Lane l holds (row l / 4,
      // columns 2 (l % 4) and + 1) of the matrix, or of its transpose.
      int g = lane / 4, q = lane % 4;
      uint16_t lo, hi;
      if (!trans) {
        std::memcpy(&lo, rows[8 * j + g] + 4 * q, 2);
        std::memcpy(&hi, rows[8 * j + g] + 4 * q + 2, 2);
      } else {
        std::memcpy(&lo, rows[8 * j + 2 * q] + 2 * g, 2);
        std::memcpy(&hi, rows[8 * j + 2 * q + 1] + 2 * g, 2);
      }
      out[lane][j] = uint32_t(lo) | uint32_t(hi) << 16;
    }
}

namespace {

/// ldmatrix over the 32 lanes of a warp: every lane's row addresses.
void executeLdMatrix(Thread *const lanes[kWarp]) {
  const uint8_t *rows[kWarp];
  int tiles = lanes[0]->tiles;
  for (int lane = 0; lane < kWarp; ++lane)
    rows[lane] = lanes[lane]->row ? lanes[lane]->row : g_scratch;
  uint32_t out[kWarp][4];
  ldmatrixFragments(rows, tiles, lanes[0]->trans, out);
  for (int lane = 0; lane < kWarp; ++lane)
    for (int j = 0; j < tiles; ++j)
      lanes[lane]->out[j] = int32_t(out[lane][j]);
}

/// shfl.sync for the lanes of `mask` (PTX ISA "shfl.sync"): with b the
/// lane offset, c the clamp (bits 4:0) and the segment mask (bits 12:8),
/// maxLane = (lane & seg) | (c & ~seg), minLane = lane & seg; up:
/// j = lane - b, valid if j >= maxLane; down: j = lane + b, valid if
/// j <= maxLane; bfly: j = lane ^ b, valid if j <= maxLane; idx:
/// j = minLane | (b & ~seg), valid if j <= maxLane; j = lane if invalid.
bool executeShuffle(Launch &l, Thread *const lanes[kWarp], uint32_t mask) {
  uint32_t results[kWarp], valid[kWarp];
  for (int lane = 0; lane < kWarp; ++lane) {
    if (!(mask >> lane & 1))
      continue;
    const Thread &t = *lanes[lane];
    int32_t b = int32_t(t.offset & 31), c = int32_t(t.clamp & 31),
            seg = int32_t((t.clamp >> 8) & 31);
    int32_t maxLane = (lane & seg) | (c & ~seg), minLane = lane & seg, j = 0;
    bool ok = false;
    switch (t.kind) {
    case kShflUp: j = lane - b; ok = j >= maxLane; break;
    case kShflDown: j = lane + b; ok = j <= maxLane; break;
    case kShflBfly: j = lane ^ b; ok = j <= maxLane; break;
    case kShflIdx: j = minLane | (b & ~seg); ok = j <= maxLane; break;
    default:
      report(l, kSync, t.site,
             threadName(l, t) + ": shfl.sync of unknown kind " +
                 std::to_string(t.kind) + " at " + siteLoc(l, t.site));
      return false;
    }
    if (!ok)
      j = lane;
    if (j < 0 || j >= kWarp || !(mask >> j & 1)) {
      report(l, kSync, t.site,
             threadName(l, t) + ": shfl.sync at " + siteLoc(l, t.site) +
                 " reads lane " + std::to_string(j) +
                 ", which is not in its member mask");
      return false;
    }
    results[lane] = lanes[j]->value;
    valid[lane] = ok;
  }
  for (int lane = 0; lane < kWarp; ++lane)
    if (mask >> lane & 1)
      lanes[lane]->result = uint64_t(results[lane]) |
                            (uint64_t(valid[lane]) << 32);
  return true;
}

const char *stateName(State s) {
  switch (s) {
  case State::ready: return "running";
  case State::barrier: return "waiting at a barrier";
  case State::collective: return "waiting at a warp collective";
  case State::exited: return "exited";
  }
  return "?";
}

/// Completes every warp collective whose member lanes have all arrived.
/// Returns the number completed; -1 after a synccheck error (a member lane
/// that exited, waits at a barrier or at another collective: since no
/// thread can run, it never arrives).
int resolveCollectives(Launch &l, bool reportMissing) {
  int done = 0;
  size_t n = l.threadList.size();
  for (size_t w = 0; w * kWarp < n; ++w) {
    Thread *lanes[kWarp] = {};
    int present = 0;
    for (int i = 0; i < kWarp && w * kWarp + i < n; ++i, ++present)
      lanes[i] = &l.threadList[w * kWarp + i];
    for (int first = 0; first < present; ++first) {
      Thread &t = *lanes[first];
      if (t.state != State::collective)
        continue;
      uint32_t mask = t.mask;
      Collective kind = t.collective;
      const char *what = kind == Collective::mma        ? "mma.sync"
                         : kind == Collective::ldmatrix ? "ldmatrix"
                                                        : "shfl.sync";
      if (!(mask >> first & 1)) {
        report(l, kSync, t.site,
               threadName(l, t) + ": warp collective at " +
                   siteLoc(l, t.site) +
                   " with a member mask that excludes the lane itself");
        return -1;
      }
      bool complete = true;
      for (int lane = 0; lane < kWarp && complete; ++lane) {
        if (!(mask >> lane & 1))
          continue;
        Thread *u = lane < present ? lanes[lane] : nullptr;
        if (!u || u->state != State::collective || u->site != t.site ||
            u->mask != mask ||
            (kind == Collective::ldmatrix &&
             (u->tiles != t.tiles || u->trans != t.trans))) {
          // Another group may complete first and free the missing lane.
          complete = false;
          if (!reportMissing)
            break;
          std::string why =
              !u ? "is not in the block"
                 : u->state == State::collective && u->site != t.site
                       ? "waits at another collective, at " +
                             siteLoc(l, u->site)
                 : u->state == State::collective && u->mask != mask
                       ? "uses another member mask"
                 : u->state == State::collective
                       ? "loads another number of matrices or layout"
                       : std::string(stateName(u->state)) +
                                   (u->state == State::barrier
                                        ? " at " + siteLoc(l, u->site)
                                        : "");
          report(l, kSync, t.site,
                 threadName(l, t) + ": " + what +
                     " at " + siteLoc(l, t.site) + " misses lane " +
                     std::to_string(lane) + " of its warp, which " + why);
          return -1;
        }
      }
      if (!complete)
        continue;
      if (kind == Collective::mma) {
        executeMma(lanes, siteOf(l, t.site).bytes == 1);
      } else if (kind == Collective::ldmatrix) {
        executeLdMatrix(lanes);
      } else if (!executeShuffle(l, lanes, mask)) {
        return -1;
      }
      for (int lane = 0; lane < kWarp; ++lane)
        if (mask >> lane & 1)
          lanes[lane]->state = State::ready;
      ++done;
    }
  }
  return done;
}

void fiberMain(ctx::transfer_t from) {
  auto *t = static_cast<Thread *>(from.data);
  t->caller = from.fctx;
  Launch &l = *g_launch;
  l.module->entries[l.kernel](l.paramSlots.data());
  // Copies still in flight land (the GPU completes them after the exit).
  landCopies(l, *t, UINT64_MAX);
  t->state = State::exited;
  ctx::jump_fcontext(t->caller, nullptr);
}

/// Runs one block with fibers; false after a synccheck error.
bool runBlockWithFibers(Launch &l) {
  size_t n = l.threads;
  l.threadList.assign(n, Thread());
  for (size_t i = 0; i < n; ++i) {
    Thread &t = l.threadList[i];
    setThreadIds(l, t, uint32_t(i));
    void *top = g_stacks.top(i, n);
    if (!top) {
      report(l, kSync, -1, "cannot allocate fiber stacks");
      return false;
    }
    t.context = ctx::make_fcontext(top, kStackBytes, fiberMain);
  }
  size_t exitedInInterval = 0;
  while (true) {
    for (Thread &t : l.threadList) {
      if (t.state != State::ready)
        continue;
      l.current = &t;
      ctx::transfer_t r = ctx::jump_fcontext(t.context, &t);
      t.context = r.fctx;
      if (t.state == State::exited)
        ++exitedInInterval;
    }
    // Complete every collective that can; only when none can is a missing
    // lane an error (it will never arrive).
    int done = resolveCollectives(l, /*reportMissing=*/false);
    if (done == 0)
      done = resolveCollectives(l, /*reportMissing=*/true);
    if (done < 0)
      return false;
    if (done > 0)
      continue;
    size_t atBarrier = 0, exited = 0;
    const Thread *waiter = nullptr, *other = nullptr;
    for (const Thread &t : l.threadList) {
      if (t.state == State::barrier) {
        ++atBarrier;
        if (!waiter)
          waiter = &t;
        else if (t.site != waiter->site && !other)
          other = &t;
      } else if (t.state == State::exited) {
        ++exited;
      }
    }
    if (exited == n)
      return true;
    bool synccheck = device().options.synccheck;
    if (atBarrier + exited == n && !other &&
        (exitedInInterval == 0 || !synccheck)) {
      for (Thread &t : l.threadList)
        if (t.state == State::barrier)
          t.state = State::ready;
      l.epoch = ++g_epoch;
      if (l.profiling)
        ++l.profile.barriers;
      exitedInInterval = 0;
      continue;
    }
    // No thread can run and the barrier cannot complete.
    std::string why;
    if (other)
      why = "threads wait at different barriers: " + threadName(l, *waiter) +
            " at " + siteLoc(l, waiter->site) + ", " +
            threadName(l, *other) + " at " + siteLoc(l, other->site);
    else if (atBarrier + exited == n)
      why = std::to_string(atBarrier) + " threads wait at the barrier at " +
            siteLoc(l, waiter->site) + " but " +
            std::to_string(exitedInInterval) +
            " threads of the block exited without reaching it";
    else
      why = "deadlock: " + std::to_string(atBarrier) +
            " threads wait at a barrier while others wait at warp "
            "collectives";
    report(l, kSync, waiter ? waiter->site : -1,
           "block " + dims(l.blockId) + ": " + why);
    return false;
  }
}

/// The watchdog: a thread that ends the process when one launch runs past
/// SimOptions::timeoutSeconds. The kernel's code cannot be interrupted
/// safely (it runs on fiber stacks, in compiled code), so the finding is
/// printed and the process exits 1, which is what a finding does anyway.
struct Watchdog {
  std::atomic<double> startedAt{0}; // steady-clock seconds; 0: idle
  std::atomic<double> limit{0};
  std::atomic<uint32_t> block[3] = {0, 0, 0};
  std::string kernel; // written before startedAt is set
  std::thread thread;

  static double now() {
    using namespace std::chrono;
    return duration<double>(steady_clock::now().time_since_epoch()).count();
  }
  void arm(const std::string &name, double seconds) {
    if (seconds <= 0)
      return;
    kernel = name;
    limit = seconds;
    startedAt = now();
    if (!thread.joinable()) {
      thread = std::thread([this] {
        while (true) {
          std::this_thread::sleep_for(std::chrono::milliseconds(100));
          double t = startedAt.load();
          if (t > 0 && now() - t > limit.load()) {
            std::fprintf(stderr,
                         "cuda-sim: synccheck: kernel '%s' block (%u,%u,%u) "
                         "ran past %.0f s: a thread that never reaches its "
                         "barrier or never exits (an endless loop?); "
                         "stopping (bwc-run --sim-timeout sets the limit)\n",
                         kernel.c_str(), block[0].load(), block[1].load(),
                         block[2].load(), limit.load());
            std::fflush(stderr);
            std::_Exit(1);
          }
        }
      });
      thread.detach();
    }
  }
  void disarm() { startedAt = 0; }
};

Watchdog &watchdog() {
  static Watchdog *w = new Watchdog; // never destroyed: the thread runs on
  return *w;
}

} // namespace

void fillHooks(void **table) {
  table[kHookAccess] = reinterpret_cast<void *>(hookAccess);
  table[kHookSreg] = reinterpret_cast<void *>(hookSreg);
  table[kHookBarrier] = reinterpret_cast<void *>(hookBarrier);
  table[kHookShuffle] = reinterpret_cast<void *>(hookShuffle);
  table[kHookMma] = reinterpret_cast<void *>(hookMma);
  table[kHookShared] = reinterpret_cast<void *>(hookShared);
  table[kHookCpAsync] = reinterpret_cast<void *>(hookCpAsync);
  table[kHookCpAsyncCommit] = reinterpret_cast<void *>(hookCpAsyncCommit);
  table[kHookCpAsyncWait] = reinterpret_cast<void *>(hookCpAsyncWait);
  table[kHookLdMatrix] = reinterpret_cast<void *>(hookLdMatrix);
}

CUresult executeLaunch(const SimFunction &f, const uint32_t grid[3],
                       const uint32_t block[3],
                       const std::vector<uint64_t> &params,
                       const std::vector<uint64_t> &extents,
                       const std::vector<std::string> &names,
                       std::string &text) {
  Device &dev = device();
  Launch l;
  l.module = f.module;
  l.kernel = f.kernel;
  l.info = &f.module->kernels[f.kernel];
  l.name = l.info->name;
  std::copy(grid, grid + 3, l.grid);
  std::copy(block, block + 3, l.block);
  l.threads = block[0] * block[1] * block[2];
  l.params = params;
  for (uint64_t &p : l.params)
    l.paramSlots.push_back(&p);
  for (size_t i = 0; i < params.size(); ++i) {
    uintptr_t p = uintptr_t(params[i]);
    Allocation *a = dev.find(p, 0);
    size_t extent = a ? a->bytes - (p - a->base) : 0;
    std::string name = "parameter " + std::to_string(i);
    if (extents.size() == params.size() && a) {
      // The executor said which buffer this argument is.
      extent = std::min<size_t>(extent, extents[i]);
      name += ", " + names[i];
    }
    l.extents.push_back(extent);
    l.allocations.push_back(a);
    l.paramNames.push_back(name);
  }
  l.fibers = l.info->usesSync;
  l.shared.assign(l.info->sharedBytes, 0xFF);
  if (dev.options.initcheck)
    l.sharedWritten.assign(l.info->sharedBytes, 0);
  if (dev.options.racecheck)
    l.race.assign(l.info->sharedBytes, RaceCell());

  uint64_t totalBlocks = uint64_t(grid[0]) * grid[1] * grid[2];
  // Profiled blocks: every block up to the budget, else runs of
  // kSampleRun consecutive blocks at evenly spaced starts (budget /
  // kSampleRun runs). Evenly spaced single blocks alias with a pattern
  // whose period divides the stride (oww_embedding's 48-channel rows
  // straddle every third warp: one-warp blocks sampled every third block
  // all missed it, counting 1.000 where the kernel has 0.94); a run covers
  // every period up to its length.
  constexpr uint64_t kSampleRun = 8;
  uint64_t sampleStride = 0, sampleRun = 1;
  if (dev.options.profile) {
    uint64_t budget = std::max(1u, dev.options.profileBlocks);
    if (totalBlocks <= budget) {
      sampleStride = 1;
    } else {
      sampleRun = std::min(kSampleRun, budget);
      uint64_t runs = std::max<uint64_t>(1, budget / sampleRun);
      sampleStride = (totalBlocks + runs - 1) / runs;
    }
    l.profile.kernel = l.name;
    l.profile.blocks = totalBlocks;
    l.occurrences.resize(l.threads);
    l.requests.resize((l.threads + kWarp - 1) / kWarp);
  }
  Launch *saved = g_launch;
  g_launch = &l;
  bool ok = true;
  uint64_t instructionsBefore =
      f.module->instructions ? *f.module->instructions : 0;
  auto start = std::chrono::steady_clock::now();
  watchdog().arm(l.name, dev.options.timeoutSeconds);
  for (uint32_t z = 0; ok && z < grid[2]; ++z)
    for (uint32_t y = 0; ok && y < grid[1]; ++y)
      for (uint32_t x = 0; ok && x < grid[0]; ++x) {
        l.blockId[0] = x;
        l.blockId[1] = y;
        l.blockId[2] = z;
        watchdog().block[0] = x;
        watchdog().block[1] = y;
        watchdog().block[2] = z;
        l.blockGeneration = ++g_generation;
        l.epoch = ++g_epoch;
        // A block's shared memory starts as NaN bytes, as device memory:
        // a missing shared store shows in the results even without
        // initcheck.
        std::fill(l.shared.begin(), l.shared.end(), uint8_t(0xFF));
        uint64_t linearBlock = x + uint64_t(grid[0]) * (y + uint64_t(grid[1]) * z);
        l.profiling = sampleStride && linearBlock % sampleStride < sampleRun;
        if (l.profiling) {
          ++l.profile.sampledBlocks;
          for (auto &m : l.occurrences)
            m.clear();
        }
        if (l.fibers) {
          ok = runBlockWithFibers(l);
          if (l.profiling)
            for (size_t w = 0; w < l.requests.size(); ++w)
              foldWarp(l, w);
          continue;
        }
        for (uint32_t t = 0; t < l.threads; ++t) {
          setThreadIds(l, l.plain, t);
          l.current = &l.plain;
          l.plain.copies.clear();
          l.plain.committed = 0;
          l.module->entries[l.kernel](l.paramSlots.data());
          landCopies(l, l.plain, UINT64_MAX);
          if (l.profiling && (t % kWarp == kWarp - 1 || t + 1 == l.threads))
            foldWarp(l, t / kWarp);
        }
      }
  l.profiling = false;
  g_launch = saved;
  watchdog().disarm();
  SimStats &stats = dev.stats;
  ++stats.launches;
  stats.blocks += uint64_t(grid[0]) * grid[1] * grid[2];
  stats.threads += uint64_t(grid[0]) * grid[1] * grid[2] * l.threads;
  stats.accesses += l.accesses;
  uint64_t instructions =
      f.module->instructions ? *f.module->instructions - instructionsBefore
                             : 0;
  stats.instructions += instructions;
  if (dev.options.profile) {
    l.profile.warpInstructions = double(instructions) / kWarp;
    dev.profiles.push_back(l.profile);
  }
  stats.seconds += std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count();
  if (!l.findings)
    return CUDA_SUCCESS;
  if (l.printed > dev.options.maxReports)
    std::fprintf(stderr,
                 "cuda-sim: %u more distinct findings (check and site) in "
                 "kernel '%s' not shown\n",
                 l.printed - dev.options.maxReports, l.name.c_str());
  text = "cuda-sim found " + std::to_string(l.findings) +
         " error(s) in kernel '" + l.name + "'; the first: " + l.first;
  return l.memFindings ? CUDA_ERROR_ILLEGAL_ADDRESS : CUDA_ERROR_LAUNCH_FAILED;
}

} // namespace bwc::rt::sim
