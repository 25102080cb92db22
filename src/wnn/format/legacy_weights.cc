// The legacy webnn-graph weights pair: `<name>.weights` ("WGWT", a little-endian u32 version,
// then tensor bytes) and a `*.manifest.json` giving each tensor's dataType, shape, byteOffset
// (from the start of the file) and byteLength. Read leniently: unknown fields are ignored, but
// every range is bounds-checked against the file before any tensor is handed out.

#include <dirent.h>

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>

#include "wnn/core/error.h"
#include "wnn/format/bounded_json.h"
#include "wnn/format/packed4.h"
#include "wnn/format/sibling_paths.h"
#include "wnn/format/stored_tensors.h"
#include "wnn/format/weights.h"

namespace wnn::format {

namespace {

using Json = nlohmann::json;

constexpr int kMaxManifestDepth = 16;
constexpr size_t kMaxManifestBytes = size_t(1) << 30;

// `<stem>.manifest.json`, `<file>.manifest.json`, `manifest.json`, else the only
// `*.manifest.json` in the directory.
std::string find_manifest(const std::string& weights_path) {
  const std::string dir = directory_of(weights_path);
  const std::string base = filename_of(weights_path);
  for (const std::string& name : {stem_of(weights_path) + ".manifest.json", base + ".manifest.json",
                                  std::string("manifest.json")}) {
    if (is_regular_file(sibling_path(dir, name))) return sibling_path(dir, name);
  }
  std::vector<std::string> found;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      const std::string suffix = ".manifest.json";
      if (name.size() > suffix.size() && name.ends_with(suffix)) found.push_back(name);
    }
    ::closedir(d);
  }
  std::sort(found.begin(), found.end());
  check(!found.empty(),
        "{}: no manifest found beside it (looked for {}.manifest.json, "
        "manifest.json and *.manifest.json)",
        weights_path, stem_of(weights_path));
  check(found.size() == 1, "{}: several manifests beside it ({}); cannot tell which describes it",
        weights_path, fmt::join(found, ", "));
  return sibling_path(dir, found[0]);
}

Json read_manifest(const std::string& path) {
  // Mapped, so the size is checked before a byte is read (not after reading it all in).
  const auto file = MappedFile::open(path);
  check(file->size() <= kMaxManifestBytes, "{}: manifest is {} bytes, above the limit of {} bytes",
        path, file->size(), kMaxManifestBytes);
  const std::string_view text(reinterpret_cast<const char*>(file->data()), file->size());
  return parse_bounded_json(text, kMaxManifestDepth, path + ": manifest");
}

uint64_t manifest_integer(const Json& entry, const char* field, const std::string& what) {
  check(entry.contains(field), "{} has no \"{}\"", what, field);
  const Json& v = entry[field];
  check(v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0),
        "{}: \"{}\" must be a non-negative integer, got {}", what, field, v.dump());
  return v.get<uint64_t>();
}

StoredDtype legacy_dtype(const std::string& name, const std::string& what) {
  if (auto st = parse_safetensors_dtype(name)) return *st;
  const auto t = parse_dtype(name);
  check(t.has_value(), "{}: unknown dataType \"{}\"", what, name);
  if (*t == DataType::kInt4) return StoredDtype::kI4;
  if (*t == DataType::kUint4) return StoredDtype::kU4;
  return *direct_stored_dtype(*t);
}

class LegacyWeights : public WeightsSource {
 public:
  LegacyWeights(std::string path, std::shared_ptr<MappedFile> file)
      : path_(std::move(path)), file_(std::move(file)) {}
  const std::string& path() const override { return path_; }
  const StoredTensor* find(const std::string& key) const override {
    const StoredEntry* e = index_.find(key, path_);
    return e ? &e->tensor : nullptr;
  }
  Buffer load(const std::string& key, const OperandDesc& desc) const override {
    const StoredEntry* e = index_.find(key, path_);
    check(e != nullptr, "{}: no tensor '{}' (declared {}) in the manifest", path_, key,
          desc.to_string());
    return load_stored(*e, desc, std::nullopt, path_);
  }
  std::vector<const StoredTensor*> tensors() const override { return index_.tensors(); }

  void add_from_manifest(const Json& manifest, const std::string& manifest_path);

 private:
  std::string path_;
  std::shared_ptr<MappedFile> file_;
  TensorIndex index_;
};

void LegacyWeights::add_from_manifest(const Json& manifest, const std::string& manifest_path) {
  check(manifest.is_object(), "{}: manifest must be a JSON object", manifest_path);
  const std::string format = manifest.value("format", std::string());
  check(format == "wg-weights-manifest" || format == "webnn-weights-manifest",
        "{}: \"format\" is \"{}\", expected \"wg-weights-manifest\" or "
        "\"webnn-weights-manifest\"",
        manifest_path, format);
  if (manifest.contains("endianness")) {
    check(manifest["endianness"] == "little", "{}: endianness {} is not supported (only little)",
          manifest_path, manifest["endianness"].dump());
  }
  check(manifest.contains("tensors") && manifest["tensors"].is_object(),
        "{}: \"tensors\" must be an object", manifest_path);
  struct Placed {
    uint64_t offset;
    StoredEntry entry;
  };
  std::vector<Placed> placed;
  for (const auto& [key, entry] : manifest["tensors"].items()) {
    const std::string what = fmt::format("{}: tensor '{}'", manifest_path, key);
    check(entry.is_object(), "{} must be an object", what);
    check(entry.contains("dataType") && entry["dataType"].is_string(),
          "{} has no string \"dataType\"", what);
    const std::string type_name = entry["dataType"].get<std::string>();
    const StoredDtype dtype = legacy_dtype(type_name, what);
    check(entry.contains("shape") && entry["shape"].is_array() && entry["shape"].size() <= kMaxRank,
          "{}: \"shape\" must be an array of at most {} dims", what, kMaxRank);
    Shape shape;
    for (const Json& d : entry["shape"]) {
      check(d.is_number_integer() && d.get<int64_t>() >= 0,
            "{}: shape dims must be non-negative integers, got {}", what, d.dump());
      shape.push_back(d.get<int64_t>());
    }
    validate_shape(shape, what.c_str());
    const uint64_t offset = manifest_integer(entry, "byteOffset", what);
    const uint64_t length = manifest_integer(entry, "byteLength", what);
    check(offset >= 8 && offset <= file_->size() && length <= file_->size() - offset,
          "{}: byte range [{}, {}) is outside the tensor data of '{}' (8 to {} bytes)", what,
          offset, offset + length, path_, file_->size());
    const uint64_t elements = uint64_t(element_count(shape));
    const uint64_t expected = stored_dtype_size(dtype) == 0 ? packed4_size(elements)
                                                            : elements * stored_dtype_size(dtype);
    check(length == expected, "{}: byteLength {} does not match {} {} ({} bytes)", what, length,
          type_name, shape_to_string(shape), expected);
    StoredTensor t{key, type_name, std::move(shape), file_->slice(offset, length)};
    placed.push_back({offset, StoredEntry{std::move(t), dtype}});
  }
  std::stable_sort(placed.begin(), placed.end(),
                   [](const Placed& a, const Placed& b) { return a.offset < b.offset; });
  for (Placed& p : placed) index_.add(std::move(p.entry), manifest_path);
}

}  // namespace

std::unique_ptr<WeightsSource> open_legacy_weights(const std::string& weights_path) {
  auto file = MappedFile::open(weights_path);
  check(file->size() >= 8 && std::memcmp(file->data(), "WGWT", 4) == 0,
        "{}: not a webnn-graph weights file (no WGWT magic)", weights_path);
  uint32_t version = 0;
  for (int i = 3; i >= 0; --i) version = (version << 8) | uint8_t(file->data()[4 + i]);
  check(version == 1, "{}: WGWT version {} is not supported (wnn reads version 1)", weights_path,
        version);
  const std::string manifest_path = find_manifest(weights_path);
  auto weights = std::make_unique<LegacyWeights>(weights_path, std::move(file));
  weights->add_from_manifest(read_manifest(manifest_path), manifest_path);
  return weights;
}

}  // namespace wnn::format
