//===- Signature.cpp - Signed artifacts (HMAC-SHA256) ---------------------===//
//
// Layout: the artifact as serialize() writes it (header, payload), then
// "BWCSIGv1" and HMAC-SHA256(key, header + payload). The header's payload
// size does not count the signature, so a reader that does not know
// signatures refuses a signed artifact (trailing bytes) instead of running
// it unverified.
//
//===----------------------------------------------------------------------===//

#include "bwc/Runtime/Signature.h"

#include "FileUtil.h"

#include <cstring>

#ifdef BWC_HAVE_OPENSSL
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#endif

namespace bwc::rt {
namespace {

constexpr char kTag[8] = {'B', 'W', 'C', 'S', 'I', 'G', 'v', '1'};

bool mac(const std::string &key, const std::string &data, std::string &out,
         std::string &error) {
#ifdef BWC_HAVE_OPENSSL
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (!HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
            reinterpret_cast<const unsigned char *>(data.data()), data.size(),
            digest, &length) ||
      length != 32)
    return error = "HMAC-SHA256 failed", false;
  out.assign(reinterpret_cast<const char *>(digest), length);
  return true;
#else
  (void)key, (void)data, (void)out;
  return error = "this runtime was built without OpenSSL (libssl-dev): it "
                 "cannot sign or verify artifacts",
         false;
#endif
}

bool equalMacs(const std::string &a, const std::string &b) {
#ifdef BWC_HAVE_OPENSSL
  return a.size() == b.size() &&
         CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
#else
  return false;
#endif
}

} // namespace

bool signaturesAvailable() {
#ifdef BWC_HAVE_OPENSSL
  return true;
#else
  return false;
#endif
}

bool readSigningKey(const std::string &path, std::string &key,
                    std::string &error) {
  if (!readWholeFile(path, key, error))
    return false;
  if (key.size() < 32)
    return error = "key file '" + path + "' holds " +
                   std::to_string(key.size()) +
                   " bytes; a signing key needs at least 32 (head -c 32 "
                   "/dev/urandom > KEY)",
           false;
  return true;
}

bool stripSignature(const std::string &bytes, std::string &unsignedArtifact) {
  if (bytes.size() < kSignatureBytes ||
      std::memcmp(bytes.data() + bytes.size() - kSignatureBytes, kTag,
                  sizeof(kTag)) != 0) {
    unsignedArtifact = bytes;
    return false;
  }
  unsignedArtifact = bytes.substr(0, bytes.size() - kSignatureBytes);
  return true;
}

bool signArtifact(const std::string &artifact, const std::string &key,
                  std::string &signedArtifact, std::string &error) {
  std::string digest;
  if (!mac(key, artifact, digest, error))
    return false;
  signedArtifact = artifact + std::string(kTag, sizeof(kTag)) + digest;
  return true;
}

bool verifyArtifact(const std::string &bytes, const std::string &key,
                    std::string &unsignedArtifact, std::string &error) {
  if (!stripSignature(bytes, unsignedArtifact))
    return error = "the artifact is not signed, and a verify key was given "
                   "(compile it with --sign-key)",
           false;
  std::string want, digest(bytes.end() - 32, bytes.end());
  if (!mac(key, unsignedArtifact, want, error))
    return false;
  if (!equalMacs(want, digest))
    return error = "the artifact's signature does not match the key: it was "
                   "modified after signing or signed with another key",
           false;
  return true;
}

} // namespace bwc::rt
