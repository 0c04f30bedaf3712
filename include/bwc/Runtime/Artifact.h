//===- Artifact.h - The compiled program file -------------------*- C++ -*-===//
//
// The artifact is one file holding everything a run needs: the I/O
// signature, the buffers (inputs, outputs, weights, intermediates), the
// kernels and their static cost, the ordered launch list, the code (a shared
// object for the CPU target; PTX and a cubin for CUDA) and the weights.
// docs/artifact.md specifies the byte layout.
//
// This header is part of the runtime: C++17 only, no MLIR or LLVM, so the
// runtime builds on machines without them. The compiler writes artifacts
// with the same code.
//
//===----------------------------------------------------------------------===//
#ifndef BWC_RUNTIME_ARTIFACT_H
#define BWC_RUNTIME_ARTIFACT_H

#include <cstdint>
#include <string>
#include <vector>

namespace bwc::rt {

/// Element types, numbered as ONNX's TensorProto.DataType so that .pb files
/// map directly.
enum class DType : int32_t {
  f32 = 1,
  u8 = 2,
  i8 = 3,
  u16 = 4,
  i16 = 5,
  i32 = 6,
  i64 = 7,
  boolean = 9,
  f16 = 10,
  f64 = 11,
  u32 = 12,
  u64 = 13,
  bf16 = 16,
};
/// Bytes per element; 0 for a value that is not a known DType.
size_t dtypeSize(DType t);
/// "f32", "i64", ... ; "unknown" otherwise.
const char *dtypeName(DType t);
/// True when `code` is one of the DType values.
bool isValidDType(int32_t code);

enum class BufferKind : uint8_t {
  input = 0,
  output = 1,
  weight = 2,
  intermediate = 3
};

struct TensorDesc {
  std::string name;
  DType dtype = DType::f32;
  std::vector<int64_t> shape;
  /// Elements (product of the shape).
  int64_t numElements() const;
  uint64_t bytes() const { return numElements() * dtypeSize(dtype); }
};

/// No arena: the runtime gives the buffer its own allocation (until the
/// buffer planner, M1.5, assigns arena offsets).
constexpr uint64_t kNoArenaOffset = ~uint64_t(0);

struct Buffer {
  BufferKind kind = BufferKind::intermediate;
  uint64_t bytes = 0;
  /// Offset in the arena for intermediates, or kNoArenaOffset.
  uint64_t arenaOffset = kNoArenaOffset;
  /// Weights: where the bytes are in Artifact::weights.
  uint64_t weightOffset = 0;
  /// Inputs/outputs: the index in Artifact::inputs/outputs; -1 otherwise.
  int32_t ioIndex = -1;
};

/// One generated kernel and its static cost (bytes each launch must move).
struct Kernel {
  std::string name; ///< symbol in the code object
  std::string ops;  ///< the bwc ops it computes, for reports
  uint64_t bytesRead = 0, bytesWritten = 0, flops = 0;
  /// CUDA launch configuration (all zero on the CPU target): grid and block
  /// dimensions and dynamic shared memory bytes. Shapes are static, so the
  /// compiler fixes them.
  uint32_t grid[3] = {0, 0, 0}, block[3] = {0, 0, 0};
  uint32_t sharedBytes = 0;
  /// The kernel configuration in words (emitter, vector width, elements per
  /// thread...), for reports; may be empty.
  std::string config;
};

/// A branch condition a launch runs under: the one-element bool tensor in
/// buffer `buffer` (one byte, nonzero = true) must equal `taken`. An If on
/// a runtime condition (docs/import.md) guards the kernels only one branch
/// needs (bwc-guard-branches); the executor reads the condition when the
/// first launch guarded by it comes and skips the launch when it differs.
struct LaunchGuard {
  uint32_t buffer = 0;
  bool taken = true;
};

/// One kernel launch; `args` are buffer indices in the kernel's argument
/// order (its inputs, then its outputs). It runs only when every guard
/// holds (none: always).
struct Launch {
  uint32_t kernel = 0;
  std::vector<uint32_t> args;
  std::vector<LaunchGuard> guards;
};

/// cuda-sim: one site of a kernel that calls into the emulator (a global or
/// shared load or store, a barrier, a shuffle or an mma), in the host
/// object's numbering (CudaSim.h).
enum class SimSiteKind : uint8_t {
  load = 0,
  store = 1,
  barrier = 2,
  shuffle = 3,
  mma = 4,
  ldmatrix = 5
};
/// What a load or store addresses.
enum class SimSpace : uint8_t { global = 0, shared = 1 };

struct SimSite {
  uint32_t kernel = 0; ///< index in Artifact::kernels
  SimSiteKind kind = SimSiteKind::load;
  SimSpace space = SimSpace::global;
  /// Loads and stores: bytes accessed and the alignment they need. mma: 0
  /// for f16 operands, 1 for bf16.
  uint32_t bytes = 0, align = 1;
  /// Loads and stores: the kernel parameter (global) or shared array
  /// (shared) the address derives from; -1 when the compiler could not
  /// trace it (the runtime then finds the allocation holding it).
  int32_t root = -1;
  /// The op's location ("model.onnx:12:3", or the kernel and op).
  std::string loc;
};

/// A kernel's shared arrays, in the order of the shared hook's numbering.
struct SimArray {
  uint32_t offset = 0, bytes = 0;
};

struct SimKernel {
  std::string name;         ///< the exported entry, = Kernel::name
  uint32_t params = 0;      ///< pointer parameters
  uint32_t sharedBytes = 0; ///< static shared memory of one block
  std::vector<SimArray> shared;
  /// Whether the kernel has a barrier, shuffle or mma (its threads then
  /// run as fibers).
  bool usesSync = false;
};

/// The host code of a CUDA artifact's kernels for cuda-sim: an ELF shared
/// object exporting `void <kernel>(void **params)` per kernel, the hook
/// table and the ABI version, with one SimKernel per Artifact::kernels
/// entry and the site table its hooks are called with.
struct SimCode {
  std::string object;
  std::vector<SimKernel> kernels;
  std::vector<SimSite> sites;
  bool empty() const { return object.empty(); }
};

/// Training state (docs/training.md): a weight buffer that persists
/// between runs (the parameters an optimizer step updates, its moments and
/// step count). After every run the executor copies buffer `update` (the
/// step's new value, outside the arena) into `buffer`.
struct StateTensor {
  TensorDesc desc;
  uint32_t buffer = 0, update = 0;
};

struct Artifact {
  /// "cpu" or "cuda".
  std::string target = "cpu";
  std::vector<TensorDesc> inputs, outputs;
  /// Buffer index of each input and output (outputs may share a buffer
  /// with an input, a weight or another output).
  std::vector<uint32_t> inputBuffers, outputBuffers;
  std::vector<Buffer> buffers;
  std::vector<Kernel> kernels;
  std::vector<Launch> launches;
  uint64_t arenaBytes = 0;
  /// CPU: an ELF shared object whose kernels are `void name(void **args)`.
  /// CUDA: the PTX text of one module holding every kernel, each taking one
  /// pointer per argument buffer.
  std::string code;
  /// CUDA: the cubin of `code` for `gpuArch` when ptxas was available at
  /// compile time (the runtime prefers it on a matching GPU and JIT-compiles
  /// the PTX otherwise); empty on the CPU target.
  std::string cubin;
  /// CUDA: the architecture the PTX targets ("sm_90"); empty on the CPU.
  std::string gpuArch;
  /// CUDA, optional: the kernels lowered for the host (cuda-sim).
  SimCode sim;
  std::string weights;
  /// The static report (JSON text), as `bwc-compile --report-json` writes.
  std::string report;
  /// Training steps with an optimizer: the state the runs carry.
  std::vector<StateTensor> state;
  /// Training steps with an optimizer compiled from ONNX: the model without
  /// its trained parameters (a serialized ModelProto), which
  /// `bwc-run --save-weights OUT.onnx` completes with the state's values
  /// (TensorFile.h, serializeTrainedModel); empty otherwise.
  std::string modelTemplate;
  /// The entries of `state` that are the model's parameters (the others are
  /// an optimizer's moments), ascending.
  std::vector<uint32_t> modelParameters;
};

/// Serializes with the header, format version and checksum.
std::string serialize(const Artifact &a);
/// `payload` behind the 32-byte header serialize() writes (magic, version,
/// size, checksum); the artifact fuzzer seals its mutated payloads so.
std::string sealPayload(const std::string &payload);
/// Parses and validates everything (magic, version, checksum, every index,
/// size and offset); on failure returns false with a one-line `error`.
bool deserialize(const std::string &bytes, Artifact &a, std::string &error);
/// Reads and deserializes a file; errors name the file. With `verifyKey`,
/// the artifact must carry a signature under that key (Signature.h),
/// checked before anything is parsed.
bool readArtifactFile(const std::string &path, Artifact &a, std::string &error,
                      const std::string *verifyKey = nullptr);
bool writeArtifactFile(const std::string &path, const Artifact &a,
                       std::string &error);

/// Which launches of a run execute: guards are read through `readCondition`
/// (buffer index -> the condition's byte, false with `error` when it cannot
/// be read), each condition at most once per run, when the first launch it
/// guards comes. Every executor decides with this.
class BranchDecider {
public:
  explicit BranchDecider(const Artifact &a);
  /// Forgets the conditions read (a new run).
  void reset();
  /// Whether launch `i` runs; false with `error` set when a condition
  /// could not be read.
  template <typename Read>
  bool runs(size_t i, bool &run, Read &&readCondition, std::string &error) {
    run = true;
    for (const LaunchGuard &g : artifact_.launches[i].guards) {
      int8_t &v = value_[g.buffer];
      if (v < 0) {
        uint8_t byte = 0;
        if (!readCondition(g.buffer, byte, error))
          return false;
        v = byte != 0;
      }
      if ((v != 0) != g.taken) {
        run = false;
        break;
      }
    }
    return true;
  }
  /// Whether any launch has a guard.
  bool any() const { return any_; }

private:
  const Artifact &artifact_;
  /// Per buffer: -1 unread, else the condition's value this run.
  std::vector<int8_t> value_;
  bool any_ = false;
};

/// Current format version; readers refuse others.
constexpr uint32_t kArtifactVersion = 6;

} // namespace bwc::rt

#endif // BWC_RUNTIME_ARTIFACT_H
