// The validate-models manifest: which models a sweep validates, where each comes from and how
// to validate it. Parsing is strict (docs/validate-models.md): an unknown field, a missing or
// second source, or a malformed value is an error naming the entry and the field.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace wnn::sweep {

struct HfSource {
  std::string repo;
  std::string revision = "main";
  std::string file;
  std::vector<std::string> sidecars;  // external-data files fetched into the same snapshot
};

struct ManifestEntry {
  size_t index = 0;  // position in the manifest: reports and summaries keep this order
  std::string id;
  // Exactly one source.
  std::optional<HfSource> hf;
  std::optional<std::filesystem::path> path;  // resolved against the manifest's directory
  std::optional<std::string> url;
  std::optional<std::string> sha256;
  std::map<std::string, int64_t> override_dims;
  std::map<std::string, std::string> pin_inputs;        // value text: "3" or "1,2,3"
  std::map<std::string, std::filesystem::path> inputs;  // .npy files, resolved like `path`
  std::optional<double> atol, rtol;
  bool heavy = false;
  bool expect_pass = true;
  std::string expect_reason;  // the <reason> of "fail:<reason>"

  std::string expect_text() const { return expect_pass ? "pass" : "fail:" + expect_reason; }
  // "hf:ORG/NAME@REV/FILE", "path:..." or "url:...", for reports and --selection match=.
  std::string source_text() const;
};

struct Manifest {
  std::filesystem::path path;
  std::vector<ManifestEntry> models;
};

// Parses manifest JSON text; relative paths resolve against `manifest_path`'s directory.
Manifest parse_manifest(const std::string& text, const std::filesystem::path& manifest_path);
Manifest read_manifest(const std::filesystem::path& manifest_path);

// --selection all | match=TEXT | id=ID[,ID...]: the chosen entries' indices in manifest order.
// match= is a substring of the id or the source; an id= naming no entry is an error.
std::vector<size_t> select_entries(const Manifest& m, const std::string& selection);

// --shard K/N (1 <= K <= N): every N-th selected entry starting with the K-th, so shards
// partition the selection and together cover it.
std::vector<size_t> shard_entries(const std::vector<size_t>& selected, const std::string& shard);

}  // namespace wnn::sweep
