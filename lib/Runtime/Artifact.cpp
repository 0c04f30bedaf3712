//===- Artifact.cpp - Artifact serialization and validation ---------------===//
//
// The byte layout and every validation rule are specified in
// docs/artifact.md. The reader treats the file as hostile: every count is
// bounded by the bytes left before anything is allocated, and every index,
// offset and size is checked before a runtime can use it.
//
//===----------------------------------------------------------------------===//

#include "bwc/Runtime/Artifact.h"
#include "FileUtil.h"
#include "bwc/Runtime/Signature.h"

#include <algorithm>
#include <cstring>
#include <limits>

namespace bwc::rt {

//===----------------------------------------------------------------------===//
// DType and TensorDesc
//===----------------------------------------------------------------------===//

size_t dtypeSize(DType t) {
  switch (t) {
  case DType::u8:
  case DType::i8:
  case DType::boolean:
    return 1;
  case DType::u16:
  case DType::i16:
  case DType::f16:
  case DType::bf16:
    return 2;
  case DType::f32:
  case DType::i32:
  case DType::u32:
    return 4;
  case DType::i64:
  case DType::f64:
  case DType::u64:
    return 8;
  }
  return 0;
}

const char *dtypeName(DType t) {
  switch (t) {
  case DType::f32:
    return "f32";
  case DType::u8:
    return "u8";
  case DType::i8:
    return "i8";
  case DType::u16:
    return "u16";
  case DType::i16:
    return "i16";
  case DType::i32:
    return "i32";
  case DType::i64:
    return "i64";
  case DType::boolean:
    return "bool";
  case DType::f16:
    return "f16";
  case DType::f64:
    return "f64";
  case DType::u32:
    return "u32";
  case DType::u64:
    return "u64";
  case DType::bf16:
    return "bf16";
  }
  return "unknown";
}

bool isValidDType(int32_t code) {
  return dtypeSize(static_cast<DType>(code)) != 0;
}

int64_t TensorDesc::numElements() const {
  // Wrapping product: only validated descriptors (no overflow) are used for
  // sizes, see validateDesc.
  uint64_t n = 1;
  for (int64_t d : shape)
    n *= static_cast<uint64_t>(d);
  return static_cast<int64_t>(n);
}

namespace {

//===----------------------------------------------------------------------===//
// Byte writer and bounded reader
//===----------------------------------------------------------------------===//

constexpr char kMagic[8] = {'B', 'W', 'C', 'A', 'R', 'T', 'F', '\0'};
constexpr size_t kHeaderBytes = 32;
/// No tensor or buffer may exceed this many bytes (keeps every sum of two
/// sizes or offsets below 2^63).
constexpr uint64_t kMaxBytes = uint64_t(1) << 62;

uint64_t fnv1a64(const char *data, size_t size) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < size; ++i) {
    h ^= static_cast<uint8_t>(data[i]);
    h *= 0x100000001b3ull;
  }
  return h;
}

struct Writer {
  std::string out;
  void u8(uint8_t v) { out.push_back(static_cast<char>(v)); }
  void u32(uint32_t v) {
    for (int i = 0; i < 4; ++i)
      u8(static_cast<uint8_t>(v >> (8 * i)));
  }
  void u64(uint64_t v) {
    for (int i = 0; i < 8; ++i)
      u8(static_cast<uint8_t>(v >> (8 * i)));
  }
  void str(const std::string &s) {
    u64(s.size());
    out += s;
  }
};

/// Reads little-endian fields; the first failure sticks in `error` and every
/// later read returns zero.
struct Reader {
  const std::string &in;
  size_t pos;
  std::string error;

  Reader(const std::string &in, size_t pos) : in(in), pos(pos) {}
  bool ok() const { return error.empty(); }
  size_t left() const { return in.size() - pos; }
  bool need(size_t n, const char *what) {
    if (!ok())
      return false;
    if (n <= left())
      return true;
    error = std::string("artifact is malformed: ") + what + " needs " +
            std::to_string(n) + " bytes but " + std::to_string(left()) +
            " are left";
    return false;
  }
  uint64_t le(size_t n, const char *what) {
    if (!need(n, what))
      return 0;
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i)
      v |= uint64_t(static_cast<uint8_t>(in[pos + i])) << (8 * i);
    pos += n;
    return v;
  }
  uint8_t u8(const char *what) { return le(1, what); }
  uint32_t u32(const char *what) { return le(4, what); }
  uint64_t u64(const char *what) { return le(8, what); }
  std::string str(const char *what) {
    uint64_t n = u64(what);
    if (!need(n, what))
      return {};
    std::string s = in.substr(pos, n);
    pos += n;
    return s;
  }
  /// Reads a count of elements that each take at least `minBytes`, refusing
  /// counts the remaining bytes cannot hold.
  size_t count(size_t minBytes, const char *what) {
    uint64_t n = u64(what);
    if (!ok())
      return 0;
    if (n > left() / minBytes) {
      error = std::string("artifact is malformed: ") + what + " count " +
              std::to_string(n) + " exceeds the " + std::to_string(left()) +
              " bytes left";
      return 0;
    }
    return n;
  }
};

//===----------------------------------------------------------------------===//
// Payload fields, in the order of the structs in Artifact.h
//===----------------------------------------------------------------------===//

void writeDesc(Writer &w, const TensorDesc &d) {
  w.str(d.name);
  w.u32(static_cast<uint32_t>(d.dtype));
  w.u64(d.shape.size());
  for (int64_t s : d.shape)
    w.u64(static_cast<uint64_t>(s));
}

void readDesc(Reader &r, TensorDesc &d) {
  d.name = r.str("tensor name");
  d.dtype = static_cast<DType>(r.u32("tensor dtype"));
  d.shape.resize(r.count(8, "tensor shape"));
  for (int64_t &s : d.shape)
    s = static_cast<int64_t>(r.u64("tensor dim"));
}

void writeU32s(Writer &w, const std::vector<uint32_t> &v) {
  w.u64(v.size());
  for (uint32_t x : v)
    w.u32(x);
}

void readU32s(Reader &r, std::vector<uint32_t> &v, const char *what) {
  v.resize(r.count(4, what));
  for (uint32_t &x : v)
    x = r.u32(what);
}

// Minimal encoded sizes, used to bound counts before allocating.
constexpr size_t kMinDescBytes = 8 + 4 + 8;
constexpr size_t kBufferBytes = 1 + 8 + 8 + 8 + 4;
constexpr size_t kMinKernelBytes = 8 + 8 + 3 * 8 + 7 * 4 + 8;
constexpr size_t kMinLaunchBytes = 4 + 8;
constexpr size_t kLaunchGuardBytes = 4 + 4 + 1;
constexpr size_t kMinSimKernelBytes = 8 + 4 + 4 + 8 + 1;
constexpr size_t kSimArrayBytes = 4 + 4;
constexpr size_t kMinSimSiteBytes = 4 + 1 + 1 + 4 + 4 + 4 + 8;

void readSim(Reader &r, SimCode &sim) {
  sim.object = r.str("sim object");
  sim.kernels.resize(r.count(kMinSimKernelBytes, "sim kernel list"));
  for (SimKernel &k : sim.kernels) {
    k.name = r.str("sim kernel name");
    k.params = r.u32("sim kernel params");
    k.sharedBytes = r.u32("sim kernel shared bytes");
    k.shared.resize(r.count(kSimArrayBytes, "sim shared array list"));
    for (SimArray &s : k.shared) {
      s.offset = r.u32("sim shared array offset");
      s.bytes = r.u32("sim shared array bytes");
    }
    k.usesSync = r.u8("sim kernel sync flag") != 0;
  }
  sim.sites.resize(r.count(kMinSimSiteBytes, "sim site list"));
  for (SimSite &s : sim.sites) {
    s.kernel = r.u32("sim site kernel");
    s.kind = static_cast<SimSiteKind>(r.u8("sim site kind"));
    s.space = static_cast<SimSpace>(r.u8("sim site space"));
    s.bytes = r.u32("sim site bytes");
    s.align = r.u32("sim site alignment");
    s.root = static_cast<int32_t>(r.u32("sim site root"));
    s.loc = r.str("sim site location");
  }
}

void writeSim(Writer &p, const SimCode &sim) {
  p.str(sim.object);
  p.u64(sim.kernels.size());
  for (const SimKernel &k : sim.kernels) {
    p.str(k.name);
    p.u32(k.params);
    p.u32(k.sharedBytes);
    p.u64(k.shared.size());
    for (const SimArray &s : k.shared) {
      p.u32(s.offset);
      p.u32(s.bytes);
    }
    p.u8(k.usesSync ? 1 : 0);
  }
  p.u64(sim.sites.size());
  for (const SimSite &s : sim.sites) {
    p.u32(s.kernel);
    p.u8(static_cast<uint8_t>(s.kind));
    p.u8(static_cast<uint8_t>(s.space));
    p.u32(s.bytes);
    p.u32(s.align);
    p.u32(static_cast<uint32_t>(s.root));
    p.str(s.loc);
  }
}

void readPayload(Reader &r, Artifact &a) {
  a.target = r.str("target");
  for (auto *descs : {&a.inputs, &a.outputs}) {
    descs->resize(r.count(kMinDescBytes, "tensor list"));
    for (TensorDesc &d : *descs)
      readDesc(r, d);
  }
  readU32s(r, a.inputBuffers, "input buffer list");
  readU32s(r, a.outputBuffers, "output buffer list");
  a.buffers.resize(r.count(kBufferBytes, "buffer list"));
  for (Buffer &b : a.buffers) {
    b.kind = static_cast<BufferKind>(r.u8("buffer kind"));
    b.bytes = r.u64("buffer size");
    b.arenaOffset = r.u64("buffer arena offset");
    b.weightOffset = r.u64("buffer weight offset");
    b.ioIndex = static_cast<int32_t>(r.u32("buffer io index"));
  }
  a.kernels.resize(r.count(kMinKernelBytes, "kernel list"));
  for (Kernel &k : a.kernels) {
    k.name = r.str("kernel name");
    k.ops = r.str("kernel ops");
    k.bytesRead = r.u64("kernel bytes read");
    k.bytesWritten = r.u64("kernel bytes written");
    k.flops = r.u64("kernel flops");
    for (uint32_t &g : k.grid)
      g = r.u32("kernel grid");
    for (uint32_t &b : k.block)
      b = r.u32("kernel block");
    k.sharedBytes = r.u32("kernel shared bytes");
    k.config = r.str("kernel config");
  }
  a.launches.resize(r.count(kMinLaunchBytes, "launch list"));
  for (Launch &l : a.launches) {
    l.kernel = r.u32("launch kernel");
    readU32s(r, l.args, "launch argument list");
  }
  a.arenaBytes = r.u64("arena size");
  a.code = r.str("code");
  a.cubin = r.str("cubin");
  a.gpuArch = r.str("gpu arch");
  readSim(r, a.sim);
  a.weights = r.str("weights");
  a.report = r.str("report");
  a.state.resize(r.count(kMinDescBytes + 8, "state list"));
  for (StateTensor &s : a.state) {
    readDesc(r, s.desc);
    s.buffer = r.u32("state buffer");
    s.update = r.u32("state update buffer");
  }
  a.modelTemplate = r.str("model template");
  readU32s(r, a.modelParameters, "model parameter list");
  // The launches' guards, (launch, buffer, taken) in launch order (format
  // version 6): a section of its own, after the rest.
  size_t guards = r.count(kLaunchGuardBytes, "launch guard list");
  for (size_t i = 0; i < guards && r.ok(); ++i) {
    uint32_t launch = r.u32("launch guard launch");
    LaunchGuard g;
    g.buffer = r.u32("launch guard buffer");
    g.taken = r.u8("launch guard branch") != 0;
    if (!r.ok())
      break;
    if (launch >= a.launches.size()) {
      r.error = "artifact is malformed: launch guard " + std::to_string(i) +
                " names launch " + std::to_string(launch) + " but there are " +
                std::to_string(a.launches.size());
      break;
    }
    a.launches[launch].guards.push_back(g);
  }
}

//===----------------------------------------------------------------------===//
// Semantic validation
//===----------------------------------------------------------------------===//

/// A name read from the artifact, quoted for a refusal: every refusal is one
/// printable line, so control and non-ASCII bytes print as \xNN and a name
/// past 200 bytes is cut with "...".
std::string quoted(const std::string &name) {
  static const char hex[] = "0123456789abcdef";
  std::string out = "'";
  for (size_t i = 0; i < name.size() && i < 200; ++i) {
    auto c = static_cast<unsigned char>(name[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out + (name.size() > 200 ? "...'" : "'");
}

std::string validateDesc(const TensorDesc &d, const std::string &what) {
  std::string where = what + " " + quoted(d.name);
  if (!isValidDType(static_cast<int32_t>(d.dtype)))
    return where + " has invalid dtype " +
           std::to_string(static_cast<int32_t>(d.dtype));
  uint64_t bytes = dtypeSize(d.dtype);
  for (int64_t dim : d.shape) {
    if (dim < 0)
      return where + " has negative dimension " + std::to_string(dim);
    if (dim != 0 && bytes > kMaxBytes / static_cast<uint64_t>(dim))
      return where + " is too large";
    bytes *= static_cast<uint64_t>(dim);
  }
  return {};
}

/// Checks a buffer used as input or output `index` (`what` = "input" or
/// "output").
std::string validateIO(const Artifact &a, const std::vector<TensorDesc> &descs,
                       const std::vector<uint32_t> &bufferIds,
                       const char *what) {
  std::string kind = what;
  if (bufferIds.size() != descs.size())
    return "the artifact has " + std::to_string(descs.size()) + " " + kind +
           "s but " + std::to_string(bufferIds.size()) + " " + kind +
           " buffers";
  for (size_t i = 0; i < descs.size(); ++i) {
    std::string where = kind + " " + std::to_string(i);
    if (std::string e = validateDesc(descs[i], kind); !e.empty())
      return e;
    if (bufferIds[i] >= a.buffers.size())
      return where + " uses buffer " + std::to_string(bufferIds[i]) +
             " but there are " + std::to_string(a.buffers.size());
    const Buffer &b = a.buffers[bufferIds[i]];
    if (b.bytes != descs[i].bytes())
      return where + " " + quoted(descs[i].name) + " needs " +
             std::to_string(descs[i].bytes()) + " bytes but its buffer has " +
             std::to_string(b.bytes);
  }
  return {};
}

std::string validateBuffers(const Artifact &a) {
  for (size_t i = 0; i < a.buffers.size(); ++i) {
    const Buffer &b = a.buffers[i];
    std::string where = "buffer " + std::to_string(i);
    if (b.kind > BufferKind::intermediate)
      return where + " has invalid kind " +
             std::to_string(static_cast<int>(b.kind));
    if (b.bytes > kMaxBytes)
      return where + " is too large";
    bool isIO = b.kind == BufferKind::input || b.kind == BufferKind::output;
    if (isIO) {
      const auto &ids =
          b.kind == BufferKind::input ? a.inputBuffers : a.outputBuffers;
      if (b.ioIndex < 0 || static_cast<size_t>(b.ioIndex) >= ids.size() ||
          ids[b.ioIndex] != i)
        return where + " claims to be " +
               (b.kind == BufferKind::input ? "input " : "output ") +
               std::to_string(b.ioIndex) + " but is not listed as such";
    } else if (b.ioIndex != -1) {
      return where + " is not an input or output but has io index " +
             std::to_string(b.ioIndex);
    }
    if (b.kind == BufferKind::weight &&
        (b.weightOffset > a.weights.size() ||
         b.bytes > a.weights.size() - b.weightOffset))
      return where + " reads weight bytes [" + std::to_string(b.weightOffset) +
             ", +" + std::to_string(b.bytes) + ") outside the " +
             std::to_string(a.weights.size()) + " weight bytes";
    if (b.arenaOffset == kNoArenaOffset)
      continue;
    if (b.kind != BufferKind::intermediate)
      return where + " is not an intermediate but has an arena offset";
    if (b.arenaOffset > a.arenaBytes || b.bytes > a.arenaBytes - b.arenaOffset)
      return where + " occupies arena bytes [" + std::to_string(b.arenaOffset) +
             ", +" + std::to_string(b.bytes) + ") outside the " +
             std::to_string(a.arenaBytes) + "-byte arena";
  }
  // Every input has its own input buffer: run() fills each one once.
  for (size_t i = 0; i < a.inputBuffers.size(); ++i) {
    const Buffer &b = a.buffers[a.inputBuffers[i]];
    if (b.kind != BufferKind::input || b.ioIndex != static_cast<int32_t>(i))
      return "input " + std::to_string(i) + " uses buffer " +
             std::to_string(a.inputBuffers[i]) + " which is not its own " +
             "input buffer";
  }
  return {};
}

/// CUDA limits of compute capability 7.0 and later.
constexpr uint64_t kMaxGridX = (uint64_t(1) << 31) - 1, kMaxGridYZ = 65535,
                   kMaxBlockThreads = 1024, kMaxBlockZ = 64,
                   kMaxSharedBytes = 227 * 1024;

std::string validateKernel(const Artifact &a, const Kernel &k) {
  std::string where = "kernel " + quoted(k.name);
  bool cuda = a.target == "cuda";
  bool anyConfig = k.sharedBytes != 0;
  for (int d = 0; d < 3; ++d)
    anyConfig |= k.grid[d] != 0 || k.block[d] != 0;
  if (!cuda)
    return anyConfig ? where + " has a launch configuration on the cpu target"
                     : std::string();
  uint64_t threads = uint64_t(k.block[0]) * k.block[1] * k.block[2];
  if (!k.grid[0] || !k.grid[1] || !k.grid[2] || !threads)
    return where + " has an empty grid or block";
  if (k.grid[0] > kMaxGridX || k.grid[1] > kMaxGridYZ || k.grid[2] > kMaxGridYZ)
    return where + " has a grid beyond the CUDA limits";
  if (threads > kMaxBlockThreads || k.block[2] > kMaxBlockZ)
    return where + " has " + std::to_string(threads) +
           " threads per block (at most 1024)";
  if (k.sharedBytes > kMaxSharedBytes)
    return where + " asks for " + std::to_string(k.sharedBytes) +
           " bytes of shared memory (at most " +
           std::to_string(kMaxSharedBytes) + ")";
  return {};
}

std::string validateLaunches(const Artifact &a) {
  for (size_t i = 0; i < a.kernels.size(); ++i) {
    if (a.kernels[i].name.empty())
      return "kernel " + std::to_string(i) + " has no name";
    if (std::string e = validateKernel(a, a.kernels[i]); !e.empty())
      return e;
  }
  for (size_t i = 0; i < a.launches.size(); ++i) {
    const Launch &l = a.launches[i];
    std::string where = "launch " + std::to_string(i);
    if (l.kernel >= a.kernels.size())
      return where + " uses kernel " + std::to_string(l.kernel) +
             " but there are " + std::to_string(a.kernels.size());
    for (uint32_t arg : l.args)
      if (arg >= a.buffers.size())
        return where + " uses buffer " + std::to_string(arg) +
               " but there are " + std::to_string(a.buffers.size());
    for (const LaunchGuard &g : l.guards) {
      if (g.buffer >= a.buffers.size())
        return where + " is guarded by buffer " + std::to_string(g.buffer) +
               " but there are " + std::to_string(a.buffers.size());
      if (a.buffers[g.buffer].bytes != 1)
        return where + " is guarded by buffer " + std::to_string(g.buffer) +
               " of " + std::to_string(a.buffers[g.buffer].bytes) +
               " bytes, not a one-byte condition";
    }
  }
  return {};
}

/// The cuda-sim section: one SimKernel per kernel whose parameters match
/// every launch of it, shared arrays inside the kernel's shared bytes, and
/// sites whose kernel, kind, size and root are in range.
std::string validateSim(const Artifact &a) {
  const SimCode &sim = a.sim;
  if (sim.empty())
    return sim.kernels.empty() && sim.sites.empty()
               ? std::string()
               : "the cuda-sim section has kernels or sites but no object";
  if (a.target != "cuda")
    return "a " + a.target + " artifact carries a cuda-sim object";
  if (sim.kernels.size() != a.kernels.size())
    return "the cuda-sim section describes " +
           std::to_string(sim.kernels.size()) + " kernels but there are " +
           std::to_string(a.kernels.size());
  for (size_t i = 0; i < sim.kernels.size(); ++i) {
    const SimKernel &k = sim.kernels[i];
    std::string where = "cuda-sim kernel " + quoted(a.kernels[i].name);
    if (k.name != a.kernels[i].name)
      return "cuda-sim kernel " + std::to_string(i) + " is " + quoted(k.name) +
             " but kernel " + std::to_string(i) + " is " +
             quoted(a.kernels[i].name);
    if (k.sharedBytes > kMaxSharedBytes)
      return where + " has " + std::to_string(k.sharedBytes) +
             " shared bytes (at most " + std::to_string(kMaxSharedBytes) + ")";
    for (const SimArray &s : k.shared)
      if (s.offset > k.sharedBytes || s.bytes > k.sharedBytes - s.offset)
        return where + " has a shared array [" + std::to_string(s.offset) +
               ", +" + std::to_string(s.bytes) + ") outside its " +
               std::to_string(k.sharedBytes) + " shared bytes";
  }
  for (size_t i = 0; i < a.launches.size(); ++i)
    if (a.launches[i].args.size() != sim.kernels[a.launches[i].kernel].params)
      return "launch " + std::to_string(i) + " passes " +
             std::to_string(a.launches[i].args.size()) +
             " arguments but its cuda-sim kernel takes " +
             std::to_string(sim.kernels[a.launches[i].kernel].params);
  for (size_t i = 0; i < sim.sites.size(); ++i) {
    const SimSite &s = sim.sites[i];
    std::string where = "cuda-sim site " + std::to_string(i);
    if (s.kernel >= sim.kernels.size())
      return where + " names kernel " + std::to_string(s.kernel) +
             " but there are " + std::to_string(sim.kernels.size());
    if (static_cast<uint8_t>(s.kind) >
        static_cast<uint8_t>(SimSiteKind::ldmatrix))
      return where + " has unknown kind " +
             std::to_string(static_cast<int>(s.kind));
    if (s.kind != SimSiteKind::load && s.kind != SimSiteKind::store) {
      if (s.kind == SimSiteKind::mma && s.bytes > 1)
        return where + " has unknown mma operand type " +
               std::to_string(s.bytes);
      if (s.kind == SimSiteKind::ldmatrix && s.bytes != 1 && s.bytes != 2 &&
          s.bytes != 4)
        return where + " loads " + std::to_string(s.bytes) +
               " matrices (ldmatrix: 1, 2 or 4)";
      continue;
    }
    const SimKernel &k = sim.kernels[s.kernel];
    if (s.space != SimSpace::global && s.space != SimSpace::shared)
      return where + " has unknown address space " +
             std::to_string(static_cast<int>(s.space));
    if (s.bytes == 0 || s.bytes > 256)
      return where + " accesses " + std::to_string(s.bytes) +
             " bytes (1 to 256)";
    if (s.align == 0 || (s.align & (s.align - 1)) || s.align > 256)
      return where + " has alignment " + std::to_string(s.align) +
             " (a power of two up to 256)";
    int64_t roots = s.space == SimSpace::global ? int64_t(k.params)
                                                : int64_t(k.shared.size());
    if (s.root < -1 || s.root >= roots ||
        (s.space == SimSpace::shared && s.root < 0))
      return where + " derives from " +
             (s.space == SimSpace::global ? "parameter " : "shared array ") +
             std::to_string(s.root) + " but its kernel has " +
             std::to_string(roots);
  }
  return {};
}

/// A state tensor names a weight buffer of its size and an update buffer of
/// the same size that no input, weight or arena slot shares.
std::string validateState(const Artifact &a) {
  for (size_t i = 0; i < a.state.size(); ++i) {
    const StateTensor &s = a.state[i];
    std::string where =
        "state " + std::to_string(i) + " " + quoted(s.desc.name);
    if (std::string e = validateDesc(s.desc, "state"); !e.empty())
      return e;
    if (s.buffer >= a.buffers.size() || s.update >= a.buffers.size())
      return where + " uses buffers " + std::to_string(s.buffer) + " and " +
             std::to_string(s.update) + " but there are " +
             std::to_string(a.buffers.size());
    const Buffer &b = a.buffers[s.buffer], &u = a.buffers[s.update];
    if (b.kind != BufferKind::weight)
      return where + " is not a weight buffer";
    if (b.bytes != s.desc.bytes() || u.bytes != s.desc.bytes())
      return where + " has " + std::to_string(s.desc.bytes()) +
             " bytes but its buffers hold " + std::to_string(b.bytes) +
             " and " + std::to_string(u.bytes);
    // update == buffer: a kernel writes the new value in place.
    if (s.update != s.buffer &&
        (u.kind == BufferKind::input || u.kind == BufferKind::weight ||
         u.arenaOffset != kNoArenaOffset))
      return where + ": its update buffer " + std::to_string(s.update) +
             " must be a kernel result outside the arena (or the state's "
             "own buffer)";
  }
  // The model parameters: ascending (so distinct) indices into the state
  // list, and only with a model to write them into.
  if (a.modelTemplate.empty() && !a.modelParameters.empty())
    return "model parameters listed without a model template";
  for (size_t i = 0; i < a.modelParameters.size(); ++i) {
    uint32_t p = a.modelParameters[i];
    if (p >= a.state.size())
      return "model parameter " + std::to_string(i) + " is state " +
             std::to_string(p) + " but there are " +
             std::to_string(a.state.size());
    if (i > 0 && p <= a.modelParameters[i - 1])
      return "model parameters are not in ascending order at " +
             std::to_string(i);
  }
  return {};
}

std::string validate(const Artifact &a) {
  if (a.target != "cpu" && a.target != "cuda")
    return "unknown artifact target " + quoted(a.target);
  if (a.target == "cpu" && (!a.cubin.empty() || !a.gpuArch.empty()))
    return "invalid artifact: a cpu artifact carries a cubin or gpu arch";
  if (a.target == "cuda" && a.gpuArch.rfind("sm_", 0) != 0)
    return "invalid artifact: cuda artifact has gpu arch " + quoted(a.gpuArch) +
           " (expected sm_NN)";
  if (a.arenaBytes > kMaxBytes)
    return "the arena is too large";
  std::string e = validateIO(a, a.inputs, a.inputBuffers, "input");
  if (e.empty())
    e = validateIO(a, a.outputs, a.outputBuffers, "output");
  if (e.empty())
    e = validateBuffers(a);
  if (e.empty())
    e = validateLaunches(a);
  if (e.empty())
    e = validateSim(a);
  if (e.empty())
    e = validateState(a);
  if (!e.empty())
    return "invalid artifact: " + e;
  return {};
}

} // namespace

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

std::string serialize(const Artifact &a) {
  Writer p;
  p.str(a.target);
  for (const auto *descs : {&a.inputs, &a.outputs}) {
    p.u64(descs->size());
    for (const TensorDesc &d : *descs)
      writeDesc(p, d);
  }
  writeU32s(p, a.inputBuffers);
  writeU32s(p, a.outputBuffers);
  p.u64(a.buffers.size());
  for (const Buffer &b : a.buffers) {
    p.u8(static_cast<uint8_t>(b.kind));
    p.u64(b.bytes);
    p.u64(b.arenaOffset);
    p.u64(b.weightOffset);
    p.u32(static_cast<uint32_t>(b.ioIndex));
  }
  p.u64(a.kernels.size());
  for (const Kernel &k : a.kernels) {
    p.str(k.name);
    p.str(k.ops);
    p.u64(k.bytesRead);
    p.u64(k.bytesWritten);
    p.u64(k.flops);
    for (uint32_t g : k.grid)
      p.u32(g);
    for (uint32_t b : k.block)
      p.u32(b);
    p.u32(k.sharedBytes);
    p.str(k.config);
  }
  p.u64(a.launches.size());
  for (const Launch &l : a.launches) {
    p.u32(l.kernel);
    writeU32s(p, l.args);
  }
  p.u64(a.arenaBytes);
  p.str(a.code);
  p.str(a.cubin);
  p.str(a.gpuArch);
  writeSim(p, a.sim);
  p.str(a.weights);
  p.str(a.report);
  p.u64(a.state.size());
  for (const StateTensor &s : a.state) {
    writeDesc(p, s.desc);
    p.u32(s.buffer);
    p.u32(s.update);
  }
  p.str(a.modelTemplate);
  writeU32s(p, a.modelParameters);
  size_t guards = 0;
  for (const Launch &l : a.launches)
    guards += l.guards.size();
  p.u64(guards);
  for (size_t i = 0; i < a.launches.size(); ++i)
    for (const LaunchGuard &g : a.launches[i].guards) {
      p.u32(static_cast<uint32_t>(i));
      p.u32(g.buffer);
      p.u8(g.taken ? 1 : 0);
    }

  return sealPayload(p.out);
}

BranchDecider::BranchDecider(const Artifact &a)
    : artifact_(a), value_(a.buffers.size(), -1) {
  for (const Launch &l : a.launches)
    any_ = any_ || !l.guards.empty();
}

void BranchDecider::reset() { std::fill(value_.begin(), value_.end(), -1); }

std::string sealPayload(const std::string &payload) {
  Writer h;
  h.out.append(kMagic, sizeof(kMagic));
  h.u32(kArtifactVersion);
  h.u32(0);
  h.u64(payload.size());
  h.u64(fnv1a64(payload.data(), payload.size()));
  return h.out + payload;
}

bool deserialize(const std::string &bytes, Artifact &a, std::string &error) {
  if (std::memcmp(bytes.data(), kMagic, std::min(bytes.size(), sizeof(kMagic))))
    return error = "not a bwc artifact (bad magic)", false;
  if (bytes.size() < kHeaderBytes)
    return error = "artifact is truncated: " + std::to_string(bytes.size()) +
                   " bytes, shorter than the 32-byte header",
           false;
  Reader h(bytes, sizeof(kMagic));
  uint32_t version = h.u32("version");
  uint32_t reserved = h.u32("reserved");
  uint64_t payloadSize = h.u64("payload size");
  uint64_t checksum = h.u64("checksum");
  if (version != kArtifactVersion)
    return error = "artifact format version " + std::to_string(version) +
                   " is not supported (expected " +
                   std::to_string(kArtifactVersion) + ")",
           false;
  if (reserved != 0)
    return error = "artifact header is malformed: reserved field is " +
                   std::to_string(reserved) + ", expected 0",
           false;
  uint64_t have = bytes.size() - kHeaderBytes;
  if (payloadSize > have)
    return error = "artifact is truncated: the header promises " +
                   std::to_string(payloadSize) + " payload bytes but " +
                   std::to_string(have) + " follow it",
           false;
  // A signed artifact (Signature.h) reads as the artifact it signs; the
  // signature is checked only where a verify key is given.
  std::string unsignedBytes;
  if (payloadSize < have && have - payloadSize == kSignatureBytes &&
      stripSignature(bytes, unsignedBytes))
    return deserialize(unsignedBytes, a, error);
  if (payloadSize < have)
    return error = "artifact has " + std::to_string(have - payloadSize) +
                   " trailing bytes after the payload",
           false;
  if (fnv1a64(bytes.data() + kHeaderBytes, payloadSize) != checksum)
    return error = "artifact checksum mismatch: the file is corrupted", false;

  Artifact parsed;
  Reader r(bytes, kHeaderBytes);
  readPayload(r, parsed);
  if (!r.ok())
    return error = r.error, false;
  if (r.left())
    return error = "artifact is malformed: " + std::to_string(r.left()) +
                   " unread bytes at the end of the payload",
           false;
  if (std::string e = validate(parsed); !e.empty())
    return error = e, false;
  a = std::move(parsed);
  return true;
}

bool readArtifactFile(const std::string &path, Artifact &a, std::string &error,
                      const std::string *verifyKey) {
  std::string bytes;
  if (!readWholeFile(path, bytes, error))
    return false;
  if (verifyKey) {
    std::string unsignedBytes;
    if (!verifyArtifact(bytes, *verifyKey, unsignedBytes, error)) {
      error = path + ": " + error;
      return false;
    }
    bytes.swap(unsignedBytes);
  }
  if (!deserialize(bytes, a, error)) {
    error = path + ": " + error;
    return false;
  }
  return true;
}

bool writeArtifactFile(const std::string &path, const Artifact &a,
                       std::string &error) {
  return writeWholeFile(path, serialize(a), error);
}

} // namespace bwc::rt
