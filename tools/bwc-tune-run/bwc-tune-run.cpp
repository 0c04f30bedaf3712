//===- bwc-tune-run.cpp - Times a tuning bundle on GPU 0 ------------------===//
//
// The GPU half of tuning for machines without LLVM: `bwc-compile
// --tune-export=DIR` writes DIR/bundle.tsv and one PTX file per candidate
// configuration; this tool times each candidate on GPU 0 (KernelTimer:
// zero-filled buffers, PTX JIT, median of event-timed launches) and writes
// DIR/results.tsv, which `bwc-compile --tune-import=DIR` merges into a
// tuning cache. Runtime only: C++17 and libdl. docs/targets/cuda.md,
// "Tuning".
//
//===----------------------------------------------------------------------===//
#include "bwc/Runtime/KernelTimer.h"
#include "bwc/Version.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <optional>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

using bwc::rt::cuda::KernelTimer;

namespace {

std::vector<std::string> splitTabs(const std::string &line) {
  std::vector<std::string> fields;
  std::stringstream ss(line);
  std::string f;
  while (std::getline(ss, f, '\t'))
    fields.push_back(f);
  return fields;
}

const char *kUsage =
    "usage: bwc-tune-run DIR [--warmup N] [--runs N]\n"
    "  times the candidates of DIR/bundle.tsv (bwc-compile "
    "--tune-export=DIR) on GPU 0 and writes DIR/results.tsv\n";

int usage() {
  std::cerr << kUsage;
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2)
    return usage();
  std::string first = argv[1];
  if (first == "--help" || first == "-h") {
    std::cout << kUsage;
    return 0;
  }
  if (first == "--version") {
    std::cout << "bwc-tune-run (bwc " << BWC_VERSION << ")\n";
    return 0;
  }
  std::string dir = argv[1];
  int warmup = 3, runs = 20;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if ((a == "--warmup" || a == "--runs") && i + 1 < argc) {
      char *end = nullptr;
      long v = std::strtol(argv[++i], &end, 10);
      if (*end || v < (a == "--runs" ? 1 : 0))
        return std::cerr << "bwc-tune-run: " << a << " expects a count but got '"
                         << argv[i] << "'\n",
               2;
      (a == "--warmup" ? warmup : runs) = int(v);
    } else {
      return usage();
    }
  }
  std::ifstream bundle(dir + "/bundle.tsv");
  if (!bundle)
    return std::cerr << "bwc-tune-run: cannot read " << dir
                     << "/bundle.tsv (bwc-compile --tune-export=" << dir
                     << " writes it)\n",
           1;
  KernelTimer timer;
  if (std::string e = timer.open(); !e.empty())
    return std::cerr << "bwc-tune-run: needs a CUDA GPU: " << e << "\n", 1;
  std::ostringstream results;
  results << "# gpu\t" << timer.gpuName() << "\n";
  std::string line, signature;
  int lineNo = 0, timed = 0, skipped = 0;
  while (std::getline(bundle, line)) {
    ++lineNo;
    if (line.empty() || line[0] == '#')
      continue;
    std::vector<std::string> f = splitTabs(line);
    std::string where = dir + "/bundle.tsv:" + std::to_string(lineNo);
    if (f.size() != 8)
      return std::cerr << "bwc-tune-run: " << where
                       << ": expects 8 tab-separated fields but got "
                       << f.size() << "\n",
             1;
    char *end = nullptr;
    unsigned long grid = std::strtoul(f[3].c_str(), &end, 10);
    bool bad = *end || grid == 0;
    unsigned long block = std::strtoul(f[4].c_str(), &end, 10);
    bad |= *end || block == 0;
    std::vector<size_t> bytes;
    std::stringstream bs(f[5]);
    for (std::string b; std::getline(bs, b, ',');) {
      bytes.push_back(std::strtoull(b.c_str(), &end, 10));
      bad |= bool(*end);
    }
    if (bad)
      return std::cerr << "bwc-tune-run: " << where
                       << ": expects a positive grid and block and buffer "
                          "byte sizes but got '"
                       << f[3] << "', '" << f[4] << "', '" << f[5] << "'\n",
             1;
    std::ifstream ptxFile(dir + "/" + f[6]);
    if (!ptxFile)
      return std::cerr << "bwc-tune-run: " << where << ": cannot read " << dir
                       << "/" << f[6] << "\n",
             1;
    std::string ptx((std::istreambuf_iterator<char>(ptxFile)),
                    std::istreambuf_iterator<char>());
    if (f[0] != signature) {
      signature = f[0];
      if (std::string e = timer.allocate(bytes); !e.empty())
        return std::cerr << "bwc-tune-run: kernel " << f[1] << ": " << e
                         << "\n",
               1;
    }
    std::string skip, error;
    std::optional<double> ms =
        timer.time(ptx, f[2], unsigned(grid), unsigned(block), warmup, runs,
                   skip, error);
    if (!error.empty())
      return std::cerr << "bwc-tune-run: kernel " << f[1] << " (" << f[6]
                       << "): " << error << "\n",
             1;
    if (ms) {
      results << f[6] << "\t" << *ms << "\n";
      ++timed;
    } else {
      results << f[6] << "\tskip\t" << skip << "\n";
      ++skipped;
    }
  }
  std::ofstream out(dir + "/results.tsv");
  out << results.str();
  if (!out)
    return std::cerr << "bwc-tune-run: cannot write " << dir
                     << "/results.tsv\n",
           1;
  std::cout << "bwc-tune-run: " << timed << " candidates timed, " << skipped
            << " skipped on " << timer.gpuName() << "; merge with bwc-compile "
            << "--tune-import=" << dir << " --tuning-cache=FILE\n";
  return 0;
}
