//===- FileUtil.h - Whole-file reads and writes for the runtime -*- C++ -*-===//
//
// Internal to lib/Runtime.
//
//===----------------------------------------------------------------------===//
#ifndef BWC_LIB_RUNTIME_FILEUTIL_H
#define BWC_LIB_RUNTIME_FILEUTIL_H

#include <string>

namespace bwc::rt {

/// Reads the whole file; on failure `error` says which file and why.
bool readWholeFile(const std::string &path, std::string &bytes,
                   std::string &error);
/// Writes (truncating) the whole file.
bool writeWholeFile(const std::string &path, const std::string &bytes,
                    std::string &error);

} // namespace bwc::rt

#endif // BWC_LIB_RUNTIME_FILEUTIL_H
