// The conversion cache: converted models (.webnn + .safetensors + metadata) keyed by the SHA-256
// of the source model, the conversion options and the wnn version. Entries appear atomically
// (built in a temporary directory, renamed into place under a per-key lock file) and carry the
// digests of their files, so a damaged entry is detected and rebuilt, never used.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "wnn/onnx/model.h"

namespace wnn::validate {

// WNN_CACHE_DIR, else $XDG_CACHE_HOME/wnn, else $HOME/.cache/wnn; created when missing. Throws
// an error naming the directory and the variables to set when it cannot be created or written.
std::string cache_root();

// SHA-256 over the model file and every external data file its initializers name (in order of
// first use, each preceded by its location), so editing either changes the key.
std::string source_digest(const std::string& onnx_path, const onnx::ModelProto& model);

// The entry key: SHA-256 of the source digest, the canonical options JSON and the wnn version.
std::string cache_key(const std::string& source_digest, const nlohmann::json& options);

struct CacheEntry {
  std::string dir;
  std::string graph_path;    // <dir>/model.webnn
  std::string weights_path;  // <dir>/model.safetensors
  std::string pinned_path;   // <dir>/pinned.safetensors (the pinned inputs' values)
  nlohmann::json metadata;   // <dir>/metadata.json
};

class ConversionCache {
 public:
  explicit ConversionCache(std::string root) : root_(std::move(root)) {}
  const std::string& root() const { return root_; }

  // Writes model.webnn, model.safetensors and pinned.safetensors into the (empty) directory it
  // is given and returns the metadata to record (the cache adds key, files and time).
  using Builder = std::function<nlohmann::json(const std::string& dir)>;

  struct Lookup {
    std::optional<CacheEntry> entry;  // present and every file matches its digest
    std::string problem;              // why an existing entry is unusable; empty if absent
  };
  // Looks `key` up under the key's lock (shared), verifying every file's size and digest.
  Lookup find(const std::string& key) const;

  struct Result {
    CacheEntry entry;
    bool built = false;   // false: an existing valid entry was reused
    std::string rebuilt;  // why an existing entry was replaced
  };
  // The valid entry for `key`, built with `build` first when missing or damaged. Holds the key's
  // lock (exclusive) throughout, so concurrent callers build once and all succeed.
  Result get_or_build(const std::string& key, const Builder& build) const;

 private:
  std::string root_;
};

}  // namespace wnn::validate
