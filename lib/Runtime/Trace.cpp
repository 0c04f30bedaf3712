//===- Trace.cpp - Chrome trace of a run's launches -----------------------===//
//
// Trace Event Format (the JSON object form): "traceEvents" holds process
// and thread names ("ph": "M") and one complete event per launch, its
// timestamp and duration in microseconds.
//
//===----------------------------------------------------------------------===//

#include "bwc/Runtime/Trace.h"

#include "FileUtil.h"

#include <cmath>
#include <cstdio>

namespace bwc::rt {
namespace {

std::string jsonString(const std::string &s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += char(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += char(c);
    }
  }
  return out + "\"";
}

std::string number(double v) {
  if (!std::isfinite(v))
    return "0";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

} // namespace

std::string chromeTraceJson(const Artifact &a,
                            const std::vector<double> &launchMs,
                            const std::string &device,
                            const std::string &timing) {
  std::string out =
      "{\"displayTimeUnit\": \"ms\", \"otherData\": {\"device\": " +
      jsonString(device) + ", \"timing\": " + jsonString(timing) +
      ", \"target\": " + jsonString(a.target) + "}, \"traceEvents\": [\n";
  out += "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": 1, "
         "\"args\": {\"name\": " +
         jsonString("bwc " + a.target + " on " + device) + "}},\n";
  out += "{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": 1, "
         "\"args\": {\"name\": \"launches\"}}";
  double ts = 0;
  for (size_t i = 0; i < a.launches.size() && i < launchMs.size(); ++i) {
    const Kernel &k = a.kernels[a.launches[i].kernel];
    double us = launchMs[i] * 1e3;
    uint64_t bytes = k.bytesRead + k.bytesWritten;
    double gbps = us > 0 ? bytes / (us * 1e3) : 0;
    out += ",\n{\"name\": " + jsonString(k.name) +
           ", \"cat\": \"kernel\", \"ph\": \"X\", \"pid\": 1, \"tid\": 1, "
           "\"ts\": " +
           number(ts) + ", \"dur\": " + number(us) +
           ", \"args\": {\"launch\": " + std::to_string(i) +
           ", \"ops\": " + jsonString(k.ops) +
           ", \"bytes\": " + std::to_string(bytes) +
           ", \"flops\": " + std::to_string(k.flops) +
           ", \"gbps\": " + number(gbps) +
           ", \"config\": " + jsonString(k.config) + "}}";
    ts += us;
  }
  return out + "\n]}\n";
}

bool writeChromeTrace(const std::string &path, const Artifact &a,
                      const std::vector<double> &launchMs,
                      const std::string &device, const std::string &timing,
                      std::string &error) {
  return writeWholeFile(path, chromeTraceJson(a, launchMs, device, timing),
                        error);
}

} // namespace bwc::rt
