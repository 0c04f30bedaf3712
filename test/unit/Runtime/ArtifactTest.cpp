//===- ArtifactTest.cpp - Artifact format and validation tests ------------===//

#include "bwc/Runtime/Artifact.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

using namespace bwc::rt;

namespace {

/// An artifact that uses every field: two inputs, an output aliasing an
/// input, a weight, an arena intermediate and a standalone intermediate.
Artifact sample() {
  Artifact a;
  a.inputs = {{"x", DType::f32, {2, 3}}, {"ids", DType::i64, {4}}};
  a.outputs = {{"y", DType::f32, {2, 3}}, {"x_copy", DType::f32, {2, 3}}};
  a.inputBuffers = {0, 1};
  a.outputBuffers = {2, 0};
  a.weights = std::string(24, '\x01') + std::string(8, '\x02');
  a.arenaBytes = 128;
  Buffer x{BufferKind::input, 24, kNoArenaOffset, 0, 0};
  Buffer ids{BufferKind::input, 32, kNoArenaOffset, 0, 1};
  Buffer y{BufferKind::output, 24, kNoArenaOffset, 0, 0};
  Buffer w{BufferKind::weight, 24, kNoArenaOffset, 8, -1};
  Buffer t0{BufferKind::intermediate, 64, 64, 0, -1};
  Buffer t1{BufferKind::intermediate, 10, kNoArenaOffset, 0, -1};
  a.buffers = {x, ids, y, w, t0, t1};
  a.kernels = {{"k0", "bwc.binary add", 48, 24, 6},
               {"k1", "bwc.unary exp", 24, 24, 6}};
  a.launches = {{0, {0, 3, 4}}, {1, {4, 5, 2}}, {1, {2, 2}}};
  a.code = std::string("\x7f"
                       "ELF",
                       4) +
           std::string(100, '\0');
  a.report = "{\"kernels\": 2}";
  return a;
}

uint64_t fnv(const std::string &s, size_t from) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = from; i < s.size(); ++i)
    h = (h ^ static_cast<uint8_t>(s[i])) * 0x100000001b3ull;
  return h;
}

uint64_t readU64(const std::string &s, size_t at) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i)
    v |= uint64_t(static_cast<uint8_t>(s[at + i])) << (8 * i);
  return v;
}

void writeU64(std::string &s, size_t at, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    s[at + i] = static_cast<char>(v >> (8 * i));
}

/// Recomputes the header's payload size and checksum after an edit.
void reseal(std::string &s) {
  writeU64(s, 16, s.size() - 32);
  writeU64(s, 24, fnv(s, 32));
}

std::string errorOf(const std::string &bytes) {
  Artifact a;
  std::string error;
  EXPECT_FALSE(deserialize(bytes, a, error));
  return error;
}

std::string errorOf(const Artifact &a) { return errorOf(serialize(a)); }

bool startsWith(const std::string &s, const std::string &prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

} // namespace

TEST(ArtifactTest, RoundTrip) {
  Artifact a = sample();
  std::string bytes = serialize(a);
  Artifact b;
  std::string error;
  ASSERT_TRUE(deserialize(bytes, b, error)) << error;
  EXPECT_EQ(b.target, "cpu");
  ASSERT_EQ(b.inputs.size(), 2u);
  EXPECT_EQ(b.inputs[1].name, "ids");
  EXPECT_EQ(b.inputs[1].dtype, DType::i64);
  EXPECT_EQ(b.inputs[1].shape, std::vector<int64_t>{4});
  EXPECT_EQ(b.outputBuffers, (std::vector<uint32_t>{2, 0}));
  EXPECT_EQ(b.buffers[4].arenaOffset, 64u);
  EXPECT_EQ(b.buffers[5].arenaOffset, kNoArenaOffset);
  EXPECT_EQ(b.buffers[3].weightOffset, 8u);
  EXPECT_EQ(b.buffers[3].ioIndex, -1);
  EXPECT_EQ(b.kernels[1].ops, "bwc.unary exp");
  EXPECT_EQ(b.kernels[0].bytesRead, 48u);
  EXPECT_EQ(b.launches[1].args, (std::vector<uint32_t>{4, 5, 2}));
  EXPECT_EQ(b.arenaBytes, 128u);
  EXPECT_EQ(b.code, a.code);
  EXPECT_EQ(b.weights, a.weights);
  EXPECT_EQ(b.report, a.report);
  EXPECT_EQ(serialize(b), bytes);
}

TEST(ArtifactTest, HeaderLayout) {
  std::string bytes = serialize(sample());
  EXPECT_EQ(std::memcmp(bytes.data(), "BWCARTF\0", 8), 0);
  EXPECT_EQ(bytes[8], 6);                 // version, little-endian u32
  EXPECT_EQ(readU64(bytes, 8) >> 32, 0u); // reserved
  EXPECT_EQ(readU64(bytes, 16), bytes.size() - 32);
  EXPECT_EQ(readU64(bytes, 24), fnv(bytes, 32));
  // The payload starts with the target string.
  EXPECT_EQ(readU64(bytes, 32), 3u);
  EXPECT_EQ(bytes.substr(40, 3), "cpu");
}

TEST(ArtifactTest, EmptyArtifactRoundTrips) {
  Artifact a, b;
  std::string error;
  EXPECT_TRUE(deserialize(serialize(a), b, error)) << error;
}

TEST(ArtifactTest, TruncatedAtEveryOffset) {
  std::string bytes = serialize(sample());
  for (size_t n = 0; n < bytes.size(); ++n)
    EXPECT_TRUE(
        startsWith(errorOf(bytes.substr(0, n)), "artifact is truncated: "))
        << "at " << n;
}

TEST(ArtifactTest, TrailingBytes) {
  EXPECT_EQ(errorOf(serialize(sample()) + "xx"),
            "artifact has 2 trailing bytes after the payload");
}

TEST(ArtifactTest, FlippedPayloadBytesFailTheChecksum) {
  std::string bytes = serialize(sample());
  for (size_t i = 32; i < bytes.size(); ++i) {
    std::string bad = bytes;
    bad[i] ^= 0x40;
    EXPECT_EQ(errorOf(bad), "artifact checksum mismatch: the file is corrupted")
        << "at " << i;
  }
}

TEST(ArtifactTest, BadHeader) {
  std::string bytes = serialize(sample());
  std::string bad = bytes;
  bad[0] = 'X';
  EXPECT_EQ(errorOf(bad), "not a bwc artifact (bad magic)");
  EXPECT_EQ(errorOf("hello world, this is not an artifact at all"),
            "not a bwc artifact (bad magic)");
  bad = bytes;
  bad[8] = 1;
  EXPECT_EQ(errorOf(bad),
            "artifact format version 1 is not supported (expected 6)");
  bad = bytes;
  bad[12] = 1;
  EXPECT_TRUE(startsWith(errorOf(bad), "artifact header is malformed"));
  bad = bytes;
  bad[24] ^= 1;
  EXPECT_EQ(errorOf(bad), "artifact checksum mismatch: the file is corrupted");
  bad = bytes;
  writeU64(bad, 16, ~uint64_t(0));
  EXPECT_TRUE(startsWith(errorOf(bad), "artifact is truncated: "));
}

TEST(ArtifactTest, HostileCountsDoNotAllocate) {
  // A valid checksum over a payload whose target string claims 2^63 bytes,
  // then one whose input list claims 2^60 entries.
  std::string bytes = serialize(Artifact());
  std::string bad = bytes;
  writeU64(bad, 32, uint64_t(1) << 63);
  reseal(bad);
  EXPECT_TRUE(startsWith(errorOf(bad), "artifact is malformed: target"));
  bad = bytes;
  writeU64(bad, 32 + 8 + 3, uint64_t(1) << 60);
  reseal(bad);
  EXPECT_EQ(errorOf(bad), "artifact is malformed: tensor list count "
                          "1152921504606846976 exceeds the 152 bytes left");
}

TEST(ArtifactTest, ExtraPayloadBytes) {
  std::string bad = serialize(sample()) + "abc";
  reseal(bad);
  EXPECT_EQ(errorOf(bad),
            "artifact is malformed: 3 unread bytes at the end of the payload");
}

TEST(ArtifactTest, InvalidContentWithValidChecksum) {
  auto expect = [](const Artifact &a, const char *message) {
    EXPECT_EQ(errorOf(a), message);
  };
  Artifact a = sample();
  a.target = "tpu";
  expect(a, "unknown artifact target 'tpu'");

  a = sample();
  a.launches[1].args[2] = 6;
  expect(a, "invalid artifact: launch 1 uses buffer 6 but there are 6");
  a = sample();
  a.launches[0].kernel = 2;
  expect(a, "invalid artifact: launch 0 uses kernel 2 but there are 2");
  a = sample();
  a.inputBuffers[1] = 99;
  expect(a, "invalid artifact: input 1 uses buffer 99 but there are 6");
  a = sample();
  a.outputBuffers[0] = 6;
  expect(a, "invalid artifact: output 0 uses buffer 6 but there are 6");
  a = sample();
  a.outputBuffers.pop_back();
  expect(a, "invalid artifact: the artifact has 2 outputs but 1 output "
            "buffers");

  a = sample();
  a.inputs[0].shape = {2, 4};
  expect(a, "invalid artifact: input 0 'x' needs 32 bytes but its buffer has "
            "24");
  a = sample();
  a.buffers[2].bytes = 28;
  expect(a, "invalid artifact: output 0 'y' needs 24 bytes but its buffer has "
            "28");
  a = sample();
  a.inputs[0].dtype = static_cast<DType>(8); // ONNX string
  expect(a, "invalid artifact: input 'x' has invalid dtype 8");
  a = sample();
  a.outputs[0].shape = {-2, -3};
  expect(a, "invalid artifact: output 'y' has negative dimension -2");
  a = sample();
  a.inputs[1].shape = {int64_t(1) << 40, int64_t(1) << 40};
  expect(a, "invalid artifact: input 'ids' is too large");

  a = sample();
  a.buffers[3].weightOffset = 9;
  expect(a, "invalid artifact: buffer 3 reads weight bytes [9, +24) outside "
            "the 32 weight bytes");
  a = sample();
  a.buffers[3].weightOffset = ~uint64_t(0) - 4;
  EXPECT_TRUE(startsWith(errorOf(a), "invalid artifact: buffer 3 reads"));
  a = sample();
  a.buffers[4].arenaOffset = 65;
  expect(a, "invalid artifact: buffer 4 occupies arena bytes [65, +64) "
            "outside the 128-byte arena");
  a = sample();
  a.buffers[3].arenaOffset = 0;
  expect(a, "invalid artifact: buffer 3 is not an intermediate but has an "
            "arena offset");
  a = sample();
  a.buffers[5].kind = static_cast<BufferKind>(7);
  expect(a, "invalid artifact: buffer 5 has invalid kind 7");
  a = sample();
  a.buffers[2].ioIndex = 1;
  expect(a, "invalid artifact: buffer 2 claims to be output 1 but is not "
            "listed as such");
  a = sample();
  a.buffers[5].ioIndex = 0;
  expect(a, "invalid artifact: buffer 5 is not an input or output but has io "
            "index 0");
  a = sample();
  a.inputBuffers[1] = 0; // two inputs in one buffer
  a.inputs[1] = a.inputs[0];
  expect(a, "invalid artifact: buffer 1 claims to be input 1 but is not "
            "listed as such");
  a = sample();
  a.kernels[0].name.clear();
  expect(a, "invalid artifact: kernel 0 has no name");
  a = sample();
  a.kernels[0].block[0] = 32;
  expect(a, "invalid artifact: kernel 'k0' has a launch configuration on the "
            "cpu target");
  a = sample();
  a.cubin = "x";
  expect(a, "invalid artifact: a cpu artifact carries a cubin or gpu arch");
}

namespace {
/// `sample()` as a CUDA artifact with a valid launch configuration.
Artifact cudaSample() {
  Artifact a = sample();
  a.target = "cuda";
  a.gpuArch = "sm_90";
  a.code = "//\n.version 8.0\n.target sm_90\n";
  a.cubin = std::string("\x7f"
                        "ELF",
                        4);
  for (Kernel &k : a.kernels) {
    k.grid[0] = 132, k.grid[1] = k.grid[2] = 1;
    k.block[0] = 256, k.block[1] = k.block[2] = 1;
    k.config = "loop vector=4 elements=8";
  }
  a.kernels[1].sharedBytes = 1024;
  return a;
}
} // namespace

/// sample() with training state: the weight w, replaced after each run by
/// a standalone intermediate w2 that the last launch writes.
Artifact sampleWithState() {
  Artifact a = sample();
  a.buffers.push_back({BufferKind::intermediate, 24, kNoArenaOffset, 0, -1});
  a.launches.push_back({1, {3, 6}});
  a.state = {{{"w", DType::f32, {2, 3}}, 3, 6}};
  return a;
}

TEST(ArtifactTest, StateRoundTrips) {
  std::string bytes = serialize(sampleWithState());
  Artifact b;
  std::string error;
  ASSERT_TRUE(deserialize(bytes, b, error)) << error;
  ASSERT_EQ(b.state.size(), 1u);
  EXPECT_EQ(b.state[0].desc.name, "w");
  EXPECT_EQ(b.state[0].desc.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(b.state[0].buffer, 3u);
  EXPECT_EQ(b.state[0].update, 6u);
  EXPECT_EQ(serialize(b), bytes);
}

TEST(ArtifactTest, InvalidState) {
  auto with = [](auto edit) {
    Artifact a = sampleWithState();
    edit(a.state[0]);
    return errorOf(a);
  };
  EXPECT_EQ(with([](StateTensor &s) { s.buffer = 99; }),
            "invalid artifact: state 0 'w' uses buffers 99 and 6 but there "
            "are 7");
  EXPECT_EQ(with([](StateTensor &s) { s.buffer = 0; }),
            "invalid artifact: state 0 'w' is not a weight buffer");
  EXPECT_EQ(with([](StateTensor &s) { s.desc.shape = {3}; }),
            "invalid artifact: state 0 'w' has 12 bytes but its buffers "
            "hold 24 and 24");
  // The state's own buffer: updated in place by a kernel.
  Artifact a = sampleWithState();
  a.state[0].update = 3;
  Artifact back;
  std::string error;
  EXPECT_TRUE(deserialize(serialize(a), back, error)) << error;
  a = sampleWithState();
  a.buffers[6].arenaOffset = 0;
  EXPECT_EQ(errorOf(a), "invalid artifact: state 0 'w': its update buffer 6 "
                        "must be a kernel result outside the arena (or the "
                        "state's own buffer)");
  a = sampleWithState();
  a.buffers[6].kind = BufferKind::weight;
  EXPECT_EQ(errorOf(a), "invalid artifact: state 0 'w': its update buffer 6 "
                        "must be a kernel result outside the arena (or the "
                        "state's own buffer)");
}

TEST(ArtifactTest, ModelTemplateRoundTrips) {
  Artifact a = sampleWithState();
  a.modelTemplate = std::string("\x08\x07\0", 3);
  a.modelParameters = {0};
  std::string bytes = serialize(a);
  Artifact b;
  std::string error;
  ASSERT_TRUE(deserialize(bytes, b, error)) << error;
  EXPECT_EQ(b.modelTemplate, a.modelTemplate);
  EXPECT_EQ(b.modelParameters, a.modelParameters);
  EXPECT_EQ(serialize(b), bytes);
}

TEST(ArtifactTest, InvalidModelParameters) {
  Artifact a = sampleWithState();
  a.modelParameters = {0};
  EXPECT_EQ(errorOf(a), "invalid artifact: model parameters listed without "
                        "a model template");
  a.modelTemplate = "m";
  a.modelParameters = {1};
  EXPECT_EQ(errorOf(a), "invalid artifact: model parameter 0 is state 1 but "
                        "there are 1");
  a.state.push_back(a.state[0]);
  a.modelParameters = {0, 0};
  EXPECT_EQ(errorOf(a), "invalid artifact: model parameters are not in "
                        "ascending order at 1");
}

/// The sample with a one-byte condition buffer (6) guarding launches 1
/// (then) and 2 (then, and else of the same condition: never runs).
Artifact sampleWithGuards() {
  Artifact a = sample();
  a.buffers.push_back({BufferKind::intermediate, 1, kNoArenaOffset, 0, -1});
  a.launches[1].guards = {{6, true}};
  a.launches[2].guards = {{6, true}, {6, false}};
  return a;
}

TEST(ArtifactTest, LaunchGuardsRoundTrip) {
  std::string bytes = serialize(sampleWithGuards());
  Artifact b;
  std::string error;
  ASSERT_TRUE(deserialize(bytes, b, error)) << error;
  EXPECT_TRUE(b.launches[0].guards.empty());
  ASSERT_EQ(b.launches[1].guards.size(), 1u);
  EXPECT_EQ(b.launches[1].guards[0].buffer, 6u);
  EXPECT_TRUE(b.launches[1].guards[0].taken);
  ASSERT_EQ(b.launches[2].guards.size(), 2u);
  EXPECT_FALSE(b.launches[2].guards[1].taken);
  EXPECT_EQ(serialize(b), bytes);
}

TEST(ArtifactTest, InvalidLaunchGuards) {
  Artifact a = sampleWithGuards();
  a.launches[1].guards[0].buffer = 9;
  EXPECT_EQ(errorOf(a), "invalid artifact: launch 1 is guarded by buffer 9 "
                        "but there are 7");
  a = sampleWithGuards();
  a.launches[1].guards[0].buffer = 4;
  EXPECT_EQ(errorOf(a), "invalid artifact: launch 1 is guarded by buffer 4 "
                        "of 64 bytes, not a one-byte condition");
  // A guard naming a launch that does not exist: the guard list's launch
  // index, edited in the sealed payload (its last 9 bytes are the second
  // guard of launch 2).
  std::string bytes = serialize(sampleWithGuards());
  bytes[bytes.size() - 9] = 7;
  std::string payload = bytes.substr(32);
  Artifact b;
  std::string error;
  EXPECT_FALSE(deserialize(sealPayload(payload), b, error));
  EXPECT_EQ(error, "artifact is malformed: launch guard 2 names launch 7 but "
                   "there are 3");
}

TEST(ArtifactTest, BranchDeciderReadsEachConditionOnceAndSkips) {
  Artifact a = sampleWithGuards();
  BranchDecider d(a);
  EXPECT_TRUE(d.any());
  int reads = 0;
  uint8_t value = 1;
  auto read = [&](uint32_t buffer, uint8_t &byte, std::string &) {
    EXPECT_EQ(buffer, 6u);
    ++reads;
    byte = value;
    return true;
  };
  std::string error;
  bool run = false;
  ASSERT_TRUE(d.runs(0, run, read, error));
  EXPECT_TRUE(run);
  EXPECT_EQ(reads, 0);
  ASSERT_TRUE(d.runs(1, run, read, error));
  EXPECT_TRUE(run);
  ASSERT_TRUE(d.runs(2, run, read, error));
  EXPECT_FALSE(run);
  EXPECT_EQ(reads, 1);
  d.reset();
  value = 0;
  ASSERT_TRUE(d.runs(1, run, read, error));
  EXPECT_FALSE(run);
  EXPECT_EQ(reads, 2);
  // A condition that cannot be read is an error, not a guess.
  d.reset();
  auto fail = [](uint32_t, uint8_t &, std::string &e) {
    e = "cannot read";
    return false;
  };
  EXPECT_FALSE(d.runs(1, run, fail, error));
  EXPECT_EQ(error, "cannot read");
  EXPECT_FALSE(BranchDecider(sample()).any());
}

TEST(ArtifactTest, CudaLaunchConfigurationRoundTrips) {
  Artifact a = cudaSample(), b;
  std::string error;
  ASSERT_TRUE(deserialize(serialize(a), b, error)) << error;
  EXPECT_EQ(b.gpuArch, "sm_90");
  EXPECT_EQ(b.cubin, a.cubin);
  EXPECT_EQ(b.kernels[0].grid[0], 132u);
  EXPECT_EQ(b.kernels[0].block[0], 256u);
  EXPECT_EQ(b.kernels[1].sharedBytes, 1024u);
  EXPECT_EQ(b.kernels[1].config, "loop vector=4 elements=8");
}

TEST(ArtifactTest, InvalidCudaLaunchConfiguration) {
  auto expect = [](const Artifact &a, const char *message) {
    EXPECT_EQ(errorOf(a), message);
  };
  Artifact a = cudaSample();
  a.gpuArch = "gfx90a";
  expect(a, "invalid artifact: cuda artifact has gpu arch 'gfx90a' (expected "
            "sm_NN)");
  a = cudaSample();
  a.kernels[0].grid[1] = 0;
  expect(a, "invalid artifact: kernel 'k0' has an empty grid or block");
  a = cudaSample();
  a.kernels[0].grid[2] = 70000;
  expect(a, "invalid artifact: kernel 'k0' has a grid beyond the CUDA limits");
  a = cudaSample();
  a.kernels[1].block[1] = 8;
  expect(a, "invalid artifact: kernel 'k1' has 2048 threads per block (at "
            "most 1024)");
  a = cudaSample();
  a.kernels[1].sharedBytes = 1 << 20;
  expect(a, "invalid artifact: kernel 'k1' asks for 1048576 bytes of shared "
            "memory (at most 232448)");
}

namespace {
/// `cudaSample()` with a cuda-sim section: k0 takes one parameter per
/// argument of its launch, k1 has two shared arrays and synchronizes.
Artifact simSample() {
  Artifact a = cudaSample();
  a.launches[2].args = {2, 2, 3}; // every launch of k1 passes 3
  a.sim.object = std::string("\x7f"
                             "ELF",
                             4);
  for (size_t i = 0; i < a.kernels.size(); ++i) {
    SimKernel k;
    k.name = a.kernels[i].name;
    for (const Launch &l : a.launches)
      if (l.kernel == i)
        k.params = uint32_t(l.args.size());
    a.sim.kernels.push_back(k);
  }
  a.sim.kernels[1].sharedBytes = 1024;
  a.sim.kernels[1].shared = {{0, 512}, {512, 512}};
  a.sim.kernels[1].usesSync = true;
  SimSite load;
  load.kernel = 0;
  load.bytes = 16;
  load.align = 16;
  load.root = 0;
  load.loc = "k0: llvm.load at 'Add_1' (model.onnx:3:0)";
  SimSite shared = load;
  shared.kernel = 1;
  shared.kind = SimSiteKind::store;
  shared.space = SimSpace::shared;
  shared.root = 1;
  SimSite barrier;
  barrier.kernel = 1;
  barrier.kind = SimSiteKind::barrier;
  a.sim.sites = {load, shared, barrier};
  return a;
}
} // namespace

TEST(ArtifactTest, SimSectionRoundTrips) {
  Artifact a = simSample(), b;
  std::string error;
  ASSERT_TRUE(deserialize(serialize(a), b, error)) << error;
  EXPECT_EQ(b.sim.object, a.sim.object);
  ASSERT_EQ(b.sim.kernels.size(), 2u);
  EXPECT_EQ(b.sim.kernels[1].name, "k1");
  EXPECT_EQ(b.sim.kernels[1].shared[1].offset, 512u);
  EXPECT_TRUE(b.sim.kernels[1].usesSync);
  ASSERT_EQ(b.sim.sites.size(), 3u);
  EXPECT_EQ(b.sim.sites[1].space, SimSpace::shared);
  EXPECT_EQ(b.sim.sites[0].loc, a.sim.sites[0].loc);
  EXPECT_EQ(serialize(b), serialize(a));
}

TEST(ArtifactTest, InvalidSimSection) {
  auto expect = [](const Artifact &a, const char *message) {
    EXPECT_EQ(errorOf(a), message);
  };
  Artifact a = simSample();
  a.sim.kernels.pop_back();
  expect(a, "invalid artifact: the cuda-sim section describes 1 kernels but "
            "there are 2");
  a = simSample();
  a.sim.kernels[0].name = "k9";
  expect(a, "invalid artifact: cuda-sim kernel 0 is 'k9' but kernel 0 is "
            "'k0'");
  // A name read from the file prints escaped on the refusal's one line
  // (the artifact fuzzer's finding of 2026-12-05: a newline in a name).
  a = simSample();
  a.sim.kernels[0].name = std::string("k\0\n\\", 4);
  expect(a, "invalid artifact: cuda-sim kernel 0 is 'k\\x00\\x0a\\x5c' but "
            "kernel 0 is 'k0'");
  a = simSample();
  a.sim.kernels[0].name = std::string(300, 'k');
  expect(a, ("invalid artifact: cuda-sim kernel 0 is '" +
             std::string(200, 'k') + "...' but kernel 0 is 'k0'")
                .c_str());
  a = simSample();
  a.sim.kernels[1].shared[1].bytes = 513;
  expect(a, "invalid artifact: cuda-sim kernel 'k1' has a shared array [512, "
            "+513) outside its 1024 shared bytes");
  a = simSample();
  a.sim.kernels[0].params += 1;
  expect(a, ("invalid artifact: launch 0 passes " +
             std::to_string(a.launches[0].args.size()) +
             " arguments but its cuda-sim kernel takes " +
             std::to_string(a.sim.kernels[0].params))
                .c_str());
  a = simSample();
  a.sim.sites[0].kernel = 2;
  expect(a, "invalid artifact: cuda-sim site 0 names kernel 2 but there are 2");
  a = simSample();
  a.sim.sites[0].align = 3;
  expect(a, "invalid artifact: cuda-sim site 0 has alignment 3 (a power of "
            "two up to 256)");
  a = simSample();
  a.sim.sites[1].root = 2;
  expect(a, "invalid artifact: cuda-sim site 1 derives from shared array 2 "
            "but its kernel has 2");
  a = simSample();
  a.sim.sites[0].root = int32_t(a.sim.kernels[0].params);
  expect(a, ("invalid artifact: cuda-sim site 0 derives from parameter " +
             std::to_string(a.sim.kernels[0].params) + " but its kernel has " +
             std::to_string(a.sim.kernels[0].params))
                .c_str());
  a = simSample();
  a.sim.sites[2].kind = SimSiteKind(7);
  expect(a, "invalid artifact: cuda-sim site 2 has unknown kind 7");
  a = simSample();
  a.sim.object.clear();
  expect(a, "invalid artifact: the cuda-sim section has kernels or sites but "
            "no object");
  a = sample();
  a.sim = simSample().sim;
  expect(a, "invalid artifact: a cpu artifact carries a cuda-sim object");
}

TEST(ArtifactTest, RandomMutationsNeverCrash) {
  // Resealed random edits reach the semantic checks; none may crash (this
  // test is most useful in the ASan build).
  std::string bytes = serialize(sample());
  std::mt19937 rng(42);
  int accepted = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    std::string bad = bytes;
    int edits = 1 + rng() % 4;
    for (int e = 0; e < edits; ++e) {
      size_t at = 32 + rng() % (bad.size() - 32);
      bad[at] = static_cast<char>(rng() % 3 == 0 ? 0xff : rng());
    }
    if (rng() % 4 == 0)
      bad.resize(32 + rng() % (bad.size() - 32));
    reseal(bad);
    Artifact a;
    std::string error;
    if (deserialize(bad, a, error))
      ++accepted;
    else
      EXPECT_FALSE(error.empty());
  }
  // Edits inside strings and the cost fields are still valid artifacts.
  EXPECT_GT(accepted, 0);
}
