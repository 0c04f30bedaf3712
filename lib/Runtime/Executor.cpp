//===- Executor.cpp - Picks the executor of an artifact's target ----------===//

#include "bwc/Runtime/Executor.h"
#include "bwc/Runtime/CpuExecutor.h"
#include "bwc/Runtime/CudaExecutor.h"

#include <algorithm>

namespace bwc::rt {

double median(std::vector<double> values) {
  if (values.empty())
    return 0;
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

void summarizeRuns(BenchStats &stats) {
  stats.medianMs = median(stats.runsMs);
  stats.minMs = *std::min_element(stats.runsMs.begin(), stats.runsMs.end());
  stats.maxMs = *std::max_element(stats.runsMs.begin(), stats.runsMs.end());
}

bool copyBandwidth(uint64_t bytes, const std::vector<double> &ms, double &gbps,
                   std::string &error) {
  double mid = median(ms);
  if (!(mid > 0)) {
    error =
        "the copy of " + std::to_string(bytes) + " bytes was too fast to time";
    return false;
  }
  gbps = 2.0 * bytes / (mid * 1e6);
  return true;
}

std::string describeBuffer(const Artifact &a, size_t index) {
  const Buffer &b = a.buffers[index];
  if (b.kind == BufferKind::input)
    return "input '" + a.inputs[b.ioIndex].name + "'";
  if (b.kind == BufferKind::output)
    return "output '" + a.outputs[b.ioIndex].name + "'";
  return std::string(b.kind == BufferKind::weight ? "weight" : "intermediate") +
         " buffer " + std::to_string(index);
}

std::string hostCopyOutOfMemory(const TensorDesc &output) {
  return "cannot allocate " + std::to_string(output.bytes()) +
         " bytes for the host copy of output '" + output.name +
         "': out of memory";
}

std::vector<TensorRef> refsOf(const std::vector<HostTensor> &tensors) {
  std::vector<TensorRef> refs;
  refs.reserve(tensors.size());
  for (const HostTensor &t : tensors)
    refs.push_back({t.desc, t.data.data(), t.data.size()});
  return refs;
}

bool checkInputs(const Artifact &a, const std::vector<TensorRef> &inputs,
                 std::string &error) {
  if (inputs.size() != a.inputs.size()) {
    error = "the model expects " + std::to_string(a.inputs.size()) +
            " inputs but got " + std::to_string(inputs.size());
    return false;
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorDesc &want = a.inputs[i];
    const TensorRef &got = inputs[i];
    std::string where = "input '" + want.name + "'";
    if (got.desc.dtype != want.dtype) {
      error = where + " has type " + dtypeName(got.desc.dtype) +
              " but the model expects " + dtypeName(want.dtype);
      return false;
    }
    if (got.desc.shape != want.shape) {
      error = where + " has shape " + formatShape(got.desc.shape) +
              " but the model expects " + formatShape(want.shape);
      return false;
    }
    if (got.bytes != want.bytes()) {
      error = where + " has " + std::to_string(got.bytes) +
              " bytes of data but needs " + std::to_string(want.bytes());
      return false;
    }
  }
  return true;
}

std::unique_ptr<Executor> createExecutor(Artifact artifact,
                                         const ExecutorOptions &options,
                                         std::string &error) {
  if (artifact.target == "cuda")
    return CudaExecutor::create(std::move(artifact), options, error);
  if (options.device != "cuda") {
    error = options.device == "cuda-sim"
                ? "--device=cuda-sim runs cuda artifacts, but this artifact's "
                  "target is '" +
                      artifact.target + "'"
                : "unknown device '" + options.device +
                      "' (expected cuda or cuda-sim)";
    return nullptr;
  }
  return CpuExecutor::create(std::move(artifact), error);
}

} // namespace bwc::rt
