//===- FuzzReplayMain.cpp - Runs fuzz inputs once each, without libFuzzer -===//
//
// The main build (g++, no libFuzzer) links the compiler's fuzz targets with
// this driver, so that ctest replays their seeds and regressions on every
// CI run (docs/reliability.md "Fuzzing"). Each argument is a file or a
// folder of files; each input runs once through LLVMFuzzerTestOneInput. An
// input over 10 s is a finding, as under libFuzzer (-timeout=10): the
// driver names it and exits 1. A crash names the input it was on.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

namespace {

char current[4096];

void onAlarm(int) {
  const char msg[] = "fuzz replay: over 10 s on ";
  (void)!write(2, msg, sizeof(msg) - 1);
  (void)!write(2, current, strlen(current));
  (void)!write(2, "\n", 1);
  _exit(1);
}

void collect(const std::string &path, std::vector<std::string> &files) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    std::fprintf(stderr, "fuzz replay: cannot read %s\n", path.c_str());
    std::exit(2);
  }
  if (!S_ISDIR(st.st_mode)) {
    files.push_back(path);
    return;
  }
  DIR *dir = opendir(path.c_str());
  std::vector<std::string> names;
  while (dirent *e = dir ? readdir(dir) : nullptr)
    if (e->d_name[0] != '.')
      names.push_back(path + "/" + e->d_name);
  if (dir)
    closedir(dir);
  std::sort(names.begin(), names.end());
  for (const std::string &n : names)
    collect(n, files);
}

} // namespace

int main(int argc, char **argv) {
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i)
    collect(argv[i], files);
  std::signal(SIGALRM, onAlarm);
  for (const std::string &f : files) {
    std::ifstream in(f, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string bytes = ss.str();
    std::snprintf(current, sizeof(current), "%s", f.c_str());
    std::fprintf(stderr, "Running: %s\n", f.c_str());
    alarm(10);
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(bytes.data()),
                           bytes.size());
    alarm(0);
  }
  std::printf("replayed %zu inputs, no finding\n", files.size());
  return 0;
}
