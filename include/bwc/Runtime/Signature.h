//===- Signature.h - Signed artifacts (HMAC-SHA256) -------------*- C++ -*-===//
//
// An artifact holds machine code, so its checksum only detects corruption.
// A signature says who wrote it: `bwc-compile --sign-key=KEY` appends an
// HMAC-SHA256 of the whole artifact under a secret key, and
// `bwc-run --verify-key=KEY` (or bwc.load(path, verify_key=...)) refuses an
// artifact whose signature is missing or does not match, before anything
// in it is parsed or loaded. The MAC comes from OpenSSL's libcrypto; a
// runtime built without it refuses to sign or verify (docs/artifact.md
// "Signatures").
//
//===----------------------------------------------------------------------===//
#ifndef BWC_RUNTIME_SIGNATURE_H
#define BWC_RUNTIME_SIGNATURE_H

#include <string>

namespace bwc::rt {

/// Bytes the signature adds after the payload: an 8-byte tag and the MAC.
constexpr size_t kSignatureBytes = 8 + 32;

/// Reads a key file: at least 32 bytes (`head -c 32 /dev/urandom > KEY`).
bool readSigningKey(const std::string &path, std::string &key,
                    std::string &error);

/// `artifact` (serialized, unsigned) with its signature appended.
bool signArtifact(const std::string &artifact, const std::string &key,
                  std::string &signedArtifact, std::string &error);

/// Checks the signature of `bytes` under `key` and strips it: `unsigned_`
/// gets the artifact deserialize() reads. Fails, naming why, when the
/// artifact is not signed or the MAC does not match.
bool verifyArtifact(const std::string &bytes, const std::string &key,
                    std::string &unsignedArtifact, std::string &error);

/// Whether `bytes` ends with a signature; `unsignedArtifact` gets the bytes
/// without it (for readers that do not verify).
bool stripSignature(const std::string &bytes, std::string &unsignedArtifact);

/// Whether this runtime can sign and verify (built with libcrypto).
bool signaturesAvailable();

} // namespace bwc::rt

#endif // BWC_RUNTIME_SIGNATURE_H
