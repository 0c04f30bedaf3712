//===- ArtifactFuzzer.cpp - libFuzzer target: artifact bytes --------------===//
//
// Fuzzes the artifact parser and validator (bwc::rt::deserialize). The
// input is an artifact's payload: the harness seals it with a valid header
// (magic, version, size, checksum), so the mutations reach the parser
// instead of dying at the checksum. A payload that validates must survive
// a round trip (serialize, deserialize, serialize again: the same bytes).
// Nothing is executed: an artifact holds machine code (docs/artifact.md).
//
// scripts/fuzz.sh artifact SECONDS builds and runs it (clang-22,
// libFuzzer, AddressSanitizer and UndefinedBehaviorSanitizer).
//
//===----------------------------------------------------------------------===//

#include "bwc/Runtime/Artifact.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

uint64_t fnv1a64(const char *data, size_t size) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < size; ++i) {
    h ^= static_cast<uint8_t>(data[i]);
    h *= 0x100000001b3ull;
  }
  return h;
}

void putLE(std::string &out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i)
    out.push_back(static_cast<char>(v >> (8 * i)));
}

/// The 32-byte header serialize() writes (docs/artifact.md).
std::string seal(const std::string &payload) {
  std::string out("BWCARTF\0", 8);
  putLE(out, bwc::rt::kArtifactVersion, 4);
  putLE(out, 0, 4);
  putLE(out, payload.size(), 8);
  putLE(out, fnv1a64(payload.data(), payload.size()), 8);
  return out + payload;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string payload(reinterpret_cast<const char *>(data), size);
  bwc::rt::Artifact a;
  std::string error;
  if (!bwc::rt::deserialize(seal(payload), a, error)) {
    if (error.empty() || error.find('\n') != std::string::npos)
      std::abort(); // every refusal is one line
    return 0;
  }
  std::string again = bwc::rt::serialize(a);
  bwc::rt::Artifact b;
  if (!bwc::rt::deserialize(again, b, error) ||
      bwc::rt::serialize(b) != again)
    std::abort(); // a valid artifact must round-trip
  return 0;
}
