//===- TuningCache.cpp - Measured kernel configurations, by GPU -----------===//
//
// The signature hashes what decides a kernel's speed on one GPU (its ops,
// shapes, types and attributes) and nothing that names or configures it,
// so identical kernels of one model, or of two models, share one entry.
// The file is plain JSON so that a reader sees why a configuration won: every
// candidate's median time is kept beside the choice.
//
//===----------------------------------------------------------------------===//
#include "bwc/Analysis/TuningCache.h"

#include "bwc/Analysis/KernelFit.h"
#include "bwc/Analysis/TileCandidates.h"
#include "mlir/IR/Builders.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/xxhash.h"

using namespace mlir;
using namespace mlir::bwc;

std::string mlir::bwc::kernelSignature(func::FuncOp kernel) {
  func::FuncOp copy = kernel.clone();
  for (StringRef name : {kKernelConfigAttrName.data(), "bwc.coalescing",
                         kTunedAttrName.data(), kSignatureAttrName.data()})
    copy->removeAttr(name);
  copy.setSymName("kernel");
  std::string text;
  llvm::raw_string_ostream os(text);
  copy->print(os, OpPrintingFlags().useLocalScope());
  copy->erase();
  return llvm::formatv("{0:x-16}", llvm::xxh3_64bits(text)).str();
}

namespace {

/// Parses one `config` object into a bwc.config dictionary: a known
/// `emitter` string, integer `block` and `grid`, every other field an
/// integer.
FailureOr<DictionaryAttr> parseConfig(const llvm::json::Value *value,
                                      MLIRContext *ctx, std::string &why) {
  const llvm::json::Object *obj = value ? value->getAsObject() : nullptr;
  if (!obj)
    return why = "expects a 'config' object", failure();
  Builder b(ctx);
  NamedAttrList attrs;
  std::optional<StringRef> emitter;
  for (const auto &[key, v] : *obj) {
    if (key == "emitter") {
      emitter = v.getAsString();
      if (!emitter)
        return why = "expects 'emitter' to be a string", failure();
      if (!llvm::is_contained(kKnownEmitters, *emitter))
        return why = ("expects an emitter among loop, thread_per_output, "
                      "row_reduction, column_reduction, transpose_tiled, "
                      "contraction_tiled, contraction_thread but got '" +
                      *emitter + "'")
                         .str(),
               failure();
      attrs.set("emitter", b.getStringAttr(*emitter));
      continue;
    }
    std::optional<int64_t> i = v.getAsInteger();
    if (!i)
      return why =
                 ("expects config field '" + key.str() + "' to be an integer"),
             failure();
    attrs.set(key.str(), b.getI64IntegerAttr(*i));
  }
  if (!emitter)
    return why = "expects the config to name an 'emitter'", failure();
  for (StringRef f : {"block", "grid"})
    if (!attrs.get(f))
      return why = ("expects config field '" + f + "'").str(), failure();
  return attrs.getDictionary(ctx);
}

FailureOr<TuningEntry> parseEntry(const llvm::json::Value &value,
                                  MLIRContext *ctx, std::string &why) {
  const llvm::json::Object *obj = value.getAsObject();
  if (!obj)
    return why = "expects an object", failure();
  TuningEntry entry;
  if (std::optional<StringRef> k = obj->getString("kernel"))
    entry.kernel = k->str();
  FailureOr<DictionaryAttr> config = parseConfig(obj->get("config"), ctx, why);
  if (failed(config))
    return failure();
  entry.config = *config;
  if (const llvm::json::Value *list = obj->get("candidates")) {
    const llvm::json::Array *candidates = list->getAsArray();
    if (!candidates)
      return why = "expects 'candidates' to be an array", failure();
    for (const llvm::json::Value &c : *candidates) {
      const llvm::json::Object *co = c.getAsObject();
      std::optional<double> ms = co ? co->getNumber("median_ms") : std::nullopt;
      if (!ms)
        return why = "expects every candidate to have a number 'median_ms'",
               failure();
      FailureOr<DictionaryAttr> cc = parseConfig(co->get("config"), ctx, why);
      if (failed(cc))
        return why = "candidate: " + why, failure();
      entry.candidates.push_back({*cc, *ms});
    }
  }
  return entry;
}

llvm::json::Object configToJson(DictionaryAttr config) {
  llvm::json::Object obj;
  for (NamedAttribute a : config) {
    if (auto s = dyn_cast<StringAttr>(a.getValue()))
      obj[a.getName().getValue()] = s.getValue();
    else if (auto i = dyn_cast<IntegerAttr>(a.getValue()))
      obj[a.getName().getValue()] = i.getInt();
  }
  return obj;
}

} // namespace

FailureOr<TuningCache> mlir::bwc::readTuningCache(StringRef path,
                                                  MLIRContext *ctx,
                                                  bool mayBeMissing,
                                                  std::string &error) {
  TuningCache cache;
  if (mayBeMissing && !llvm::sys::fs::exists(path))
    return cache;
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!file)
    return error = ("cannot read tuning cache '" + path +
                    "': " + file.getError().message())
                       .str(),
           failure();
  auto fail = [&](const Twine &where, const Twine &why) {
    error = ("tuning cache '" + path + "'" + where + ": " + why).str();
    return failure();
  };
  llvm::Expected<llvm::json::Value> json =
      llvm::json::parse((*file)->getBuffer());
  if (!json)
    return fail("", "expects JSON but got " + llvm::toString(json.takeError()));
  const llvm::json::Object *root = json->getAsObject();
  if (!root)
    return fail("", "expects a JSON object");
  std::optional<int64_t> version = root->getInteger("version");
  if (version != kTuningCacheVersion)
    return fail("", "expects version " + Twine(kTuningCacheVersion) +
                        " but got " +
                        (version ? Twine(*version).str() : "none"));
  const llvm::json::Object *gpus = root->getObject("gpus");
  if (!gpus)
    return fail("", "expects a 'gpus' object");
  for (const auto &[gpu, kernels] : *gpus) {
    const llvm::json::Object *entries = kernels.getAsObject();
    if (!entries)
      return fail(" gpu '" + gpu.str() + "'", "expects an object of entries");
    auto &slot = cache.gpus[gpu.str()];
    for (const auto &[signature, value] : *entries) {
      std::string why;
      FailureOr<TuningEntry> entry = parseEntry(value, ctx, why);
      if (failed(entry))
        return fail(" entry '" + gpu.str() + "/" + signature.str() + "'", why);
      slot[signature.str()] = std::move(*entry);
    }
  }
  return cache;
}

LogicalResult mlir::bwc::writeTuningCache(StringRef path,
                                          const TuningCache &cache,
                                          std::string &error) {
  llvm::json::Object gpus;
  for (const auto &[gpu, entries] : cache.gpus) {
    llvm::json::Object kernels;
    for (const auto &[signature, entry] : entries) {
      llvm::json::Array candidates;
      for (const TunedCandidate &c : entry.candidates)
        candidates.push_back(llvm::json::Object{
            {"config", configToJson(c.config)}, {"median_ms", c.medianMs}});
      kernels[signature] =
          llvm::json::Object{{"kernel", entry.kernel},
                             {"config", configToJson(entry.config)},
                             {"candidates", std::move(candidates)}};
    }
    gpus[gpu] = std::move(kernels);
  }
  llvm::json::Value root = llvm::json::Object{{"version", kTuningCacheVersion},
                                              {"gpus", std::move(gpus)}};
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_Text);
  if (ec)
    return error = ("cannot write tuning cache '" + path + "': " + ec.message())
                       .str(),
           failure();
  os << llvm::formatv("{0:2}", root) << "\n";
  return success();
}
