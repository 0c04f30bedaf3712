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
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string payload(reinterpret_cast<const char *>(data), size);
  bwc::rt::Artifact a;
  std::string error;
  if (!bwc::rt::deserialize(bwc::rt::sealPayload(payload), a, error)) {
    if (error.empty() || error.find('\n') != std::string::npos)
      std::abort(); // every refusal is one line
    return 0;
  }
  std::string again = bwc::rt::serialize(a);
  bwc::rt::Artifact b;
  if (!bwc::rt::deserialize(again, b, error) || bwc::rt::serialize(b) != again)
    std::abort(); // a valid artifact must round-trip
  return 0;
}
