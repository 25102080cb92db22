// Model downloads with a cache that Python's huggingface_hub shares: Hugging Face files land in
// HF_HUB_CACHE/models--ORG--NAME/{blobs/<etag>, snapshots/<commit>/<file> -> ../../blobs/<etag>,
// refs/<revision>}. Downloads resume (Range), are verified (ETag or SHA-256) after download and
// on reuse, complete atomically (rename) and are serialised by lock files, so parallel workers
// never fetch one file twice or read half a file. Plain URLs go to a wnn-owned cache the same way.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace wnn::hub {

// Where and how to reach the Hub: from HF_ENDPOINT, HF_TOKEN, HF_HUB_OFFLINE, HF_HUB_CACHE /
// HF_HOME, and for URL downloads WNN_CACHE_DIR / XDG_CACHE_HOME.
struct HubSettings {
  std::string endpoint = "https://huggingface.co";
  std::optional<std::string> token;
  bool offline = false;
  std::filesystem::path hub_cache;  // .../huggingface/hub
  std::filesystem::path url_cache;  // .../wnn/urls
  int max_attempts = 3;             // transport failures resume up to this many times per fetch

  static HubSettings from_env();
};

struct HubFileRef {
  std::string repo;               // "ORG/NAME"
  std::string revision = "main";  // branch, tag or 40-hex commit
  std::string file;               // path inside the repository
};

struct FetchOptions {
  bool refresh = false;               // drop the cached copy and download again
  std::optional<std::string> sha256;  // expected SHA-256 (lowercase hex), checked as well
};

struct FetchedFile {
  std::filesystem::path path;  // the snapshot path (HF) or the cached file (URL)
  std::string commit;          // the resolved commit (HF only)
  bool downloaded = false;     // false when the cached copy was reused
};

// The cache folder of `repo`: hub_cache / "models--ORG--NAME".
std::filesystem::path repo_cache_dir(const HubSettings& s, const std::string& repo);

FetchedFile hf_hub_download(const HubSettings& s, const HubFileRef& ref,
                            const FetchOptions& options = {});
FetchedFile url_download(const HubSettings& s, const std::string& url,
                         const FetchOptions& options = {});

}  // namespace wnn::hub
