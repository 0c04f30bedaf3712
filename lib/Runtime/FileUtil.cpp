//===- FileUtil.cpp - Whole-file reads and writes for the runtime ---------===//

#include "FileUtil.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace bwc::rt {

bool readWholeFile(const std::string &path, std::string &bytes,
                   std::string &error) {
  FILE *f = std::fopen(path.c_str(), "rb");
  if (!f) {
    error = "cannot open '" + path + "': " + std::strerror(errno);
    return false;
  }
  bytes.clear();
  char chunk[1 << 16];
  size_t n;
  while ((n = std::fread(chunk, 1, sizeof(chunk), f)) > 0)
    bytes.append(chunk, n);
  bool failed = std::ferror(f);
  std::fclose(f);
  if (failed) {
    error = "cannot read '" + path + "'";
    return false;
  }
  return true;
}

bool writeWholeFile(const std::string &path, const std::string &bytes,
                    std::string &error) {
  FILE *f = std::fopen(path.c_str(), "wb");
  if (!f) {
    error = "cannot create '" + path + "': " + std::strerror(errno);
    return false;
  }
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  ok &= std::fclose(f) == 0;
  if (!ok)
    error = "cannot write '" + path + "'";
  return ok;
}

} // namespace bwc::rt
