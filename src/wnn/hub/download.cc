#include "wnn/hub/download.h"

#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <vector>

#include "wnn/core/atomic_file.h"
#include "wnn/core/digest.h"
#include "wnn/core/error.h"
#include "wnn/hub/file_lock.h"
#include "wnn/hub/http.h"
#include "wnn/hub/safe_names.h"

namespace wnn::hub {
namespace fs = std::filesystem;
namespace {

std::optional<std::string> env(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return std::nullopt;
  return std::string(v);
}

bool env_true(const char* name) {
  const auto v = env(name);
  return v && (*v == "1" || *v == "true" || *v == "TRUE" || *v == "yes" || *v == "ON");
}

// ~/.cache (or XDG_CACHE_HOME); empty when neither it nor HOME is set.
fs::path home_cache() {
  if (auto xdg = env("XDG_CACHE_HOME")) return *xdg;
  if (auto home = env("HOME")) return fs::path(*home) / ".cache";
  return {};
}

// What a downloaded file must hash to: the ETag when it is a digest, and the manifest's sha256.
struct ExpectedDigest {
  std::optional<std::string> sha256;
  std::optional<std::string> git_sha1;
};

ExpectedDigest expected_from(const std::string& etag, const FetchOptions& options) {
  ExpectedDigest d;
  if (is_lower_hex(etag, 64)) d.sha256 = etag;    // an LFS file: the ETag is its SHA-256
  if (is_lower_hex(etag, 40)) d.git_sha1 = etag;  // a Git file: the blob's SHA-1
  if (options.sha256) {
    check(!d.sha256 || *d.sha256 == *options.sha256,
          "the manifest's sha256 {} differs from the server's ETag {}", *options.sha256, etag);
    d.sha256 = options.sha256;
  }
  return d;
}

// Empty when `path` matches, else what differs.
std::string digest_mismatch(const fs::path& path, const ExpectedDigest& d) {
  if (d.sha256) {
    const std::string got = sha256_file_hex(path.string());
    if (got != *d.sha256) return fmt::format("sha256 {} (expected {})", got, *d.sha256);
  }
  if (d.git_sha1) {
    const std::string got = git_blob_sha1_file_hex(path.string());
    if (got != *d.git_sha1) return fmt::format("git sha1 {} (expected {})", got, *d.git_sha1);
  }
  return "";
}

uint64_t file_size_or_zero(const fs::path& p) {
  std::error_code ec;
  const auto n = fs::file_size(p, ec);
  return ec ? 0 : n;
}

// Downloads `url` into `target` through `target.incomplete`, resuming transport failures up to
// max_attempts times, then verifies it. A digest mismatch downloads once more from scratch, then
// fails. The caller holds the lock for `target`.
void fetch_verified(const HubSettings& s, const std::string& url,
                    const std::vector<std::string>& headers, const fs::path& target,
                    const ExpectedDigest& digest, std::optional<uint64_t> size) {
  const fs::path incomplete = target.string() + ".incomplete";
  fs::create_directories(target.parent_path());
  std::string mismatch;
  for (int full_try = 0; full_try < 2; ++full_try) {
    for (int attempt = 1;; ++attempt) {
      std::unique_ptr<FILE, decltype(&std::fclose)> out(std::fopen(incomplete.c_str(), "ab"),
                                                        &std::fclose);
      check(out != nullptr, "{}: cannot open for writing", incomplete.string());
      uint64_t have = file_size_or_zero(incomplete);
      if (size && have > *size) {  // not a prefix of this file: start over
        check(::ftruncate(::fileno(out.get()), 0) == 0, "{}: cannot truncate", incomplete.string());
        have = 0;
      }
      if (size && have == *size) break;  // complete from an earlier, interrupted run
      try {
        http_get_to_file(url, headers, out.get(), have);
        break;
      } catch (const HttpError& e) {
        // 416 for "bytes=N-" where N is the whole file: an earlier run got every byte.
        if (e.status() == 416 && have > 0 && !size) break;
        if (!e.is_transport() || attempt >= s.max_attempts) throw;
        // Keep the partial bytes: the next attempt asks for the rest with Range.
      }
    }
    const uint64_t got = file_size_or_zero(incomplete);
    if (size && got != *size) {
      mismatch = fmt::format("{} bytes (expected {})", got, *size);
    } else {
      mismatch = digest_mismatch(incomplete, digest);
    }
    if (mismatch.empty()) {
      fs::rename(incomplete, target);
      return;
    }
    fs::remove(incomplete);
  }
  fail("{}: downloaded twice and both copies fail verification: {}", url, mismatch);
}

// A cached file that no longer verifies is removed; the caller downloads it again.
bool cached_and_valid(const fs::path& path, const ExpectedDigest& digest) {
  if (!fs::exists(path)) return false;
  if (digest_mismatch(path, digest).empty()) return true;
  fs::remove(path);
  return false;
}

void write_text_atomic(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  write_file_atomic(path.string(), text);
}

std::string read_ref(const fs::path& ref) {
  std::ifstream f(ref);
  std::string commit;
  f >> commit;
  return commit;
}

// snapshots/<commit>/<file> -> relative path to blobs/<etag>, replaced atomically.
void link_snapshot(const fs::path& pointer, const fs::path& blob) {
  fs::create_directories(pointer.parent_path());
  const fs::path target = fs::relative(blob, pointer.parent_path());
  // One fixed temporary name: the caller holds the blob's lock, so no one else is linking this
  // pointer, and a link left by a killed run is removed here even when the pointer is intact.
  const fs::path temp = pointer.string() + ".link";
  std::error_code ec;
  fs::remove(temp, ec);
  if (fs::is_symlink(pointer, ec) && fs::read_symlink(pointer, ec) == target) return;
  fs::create_symlink(target, temp);
  fs::rename(temp, pointer);
}

std::string auth_header(const HubSettings& s) { return "Authorization: Bearer " + *s.token; }

std::vector<std::string> headers_for(const HubSettings& s, const std::string& url) {
  // The token goes only to the endpoint, never to a CDN host a redirect names.
  if (s.token && url_origin(url) == url_origin(s.endpoint)) return {auth_header(s)};
  return {};
}

std::string strip_etag(std::string etag) {
  if (etag.rfind("W/", 0) == 0) etag = etag.substr(2);
  if (etag.size() >= 2 && etag.front() == '"' && etag.back() == '"') {
    etag = etag.substr(1, etag.size() - 2);
  }
  return etag;
}

struct HubMetadata {
  std::string commit, etag, download_url;
  std::optional<uint64_t> size;
};

HubMetadata resolve_metadata(const HubSettings& s, const HubFileRef& ref) {
  std::string url = s.endpoint + "/" + ref.repo + "/resolve/" + url_quote(ref.revision, false) +
                    "/" + url_quote(ref.file, true);
  const std::string what = fmt::format("{}/{} at revision '{}'", ref.repo, ref.file, ref.revision);
  for (int redirects = 0; redirects < 5; ++redirects) {
    HttpResponse r = http_head(url, headers_for(s, url));
    if (r.status == 401 || r.status == 403) {
      fail("{}: HTTP {} from {}: the repository is private or gated{}", what, r.status, url,
           s.token ? "; HF_TOKEN does not grant access" : "; set HF_TOKEN to a token with access");
    }
    check(r.status != 404, "{}: not found (HTTP 404 from {})", what, url);
    const bool redirect = r.status >= 300 && r.status < 400 && r.headers.count("location");
    const std::string& location = r.headers["location"];
    if (redirect && !location.empty() && location.front() == '/' &&
        !r.headers.count("x-repo-commit")) {
      url = resolve_location(url, r.headers["location"]);  // a renamed repository: ask again
      continue;
    }
    check(redirect || r.status == 200, "{}: unexpected HTTP {} from {}", what, r.status, url);
    HubMetadata m;
    m.commit = r.headers["x-repo-commit"];
    check(is_lower_hex(m.commit, 40), "{}: the server gave no valid X-Repo-Commit ('{}')", what,
          m.commit);
    m.etag = strip_etag(r.headers.count("x-linked-etag") ? r.headers["x-linked-etag"]
                                                         : r.headers["etag"]);
    check(!m.etag.empty(), "{}: the server gave no ETag", what);
    check_single_component(m.etag, "ETag from " + url);
    const std::string size =
        r.headers.count("x-linked-size") ? r.headers["x-linked-size"] : r.headers["content-length"];
    if (!size.empty()) {
      uint64_t n = 0;
      const auto [end, ec] = std::from_chars(size.data(), size.data() + size.size(), n);
      check(ec == std::errc() && end == size.data() + size.size(),
            "{}: the server gave a size that is not a number: '{}'", what, size);
      m.size = n;
    }
    m.download_url = redirect ? resolve_location(url, r.headers["location"]) : url;
    return m;
  }
  fail("{}: too many redirects", what);
}

FetchedFile from_cache_only(const HubSettings& s, const HubFileRef& ref,
                            const FetchOptions& options, const std::string& why) {
  const fs::path repo_dir = repo_cache_dir(s, ref.repo);
  const std::string commit =
      is_lower_hex(ref.revision, 40) ? ref.revision : read_ref(repo_dir / "refs" / ref.revision);
  const fs::path pointer = repo_dir / "snapshots" / commit / ref.file;
  check(!commit.empty() && fs::exists(pointer),
        "{}/{} at revision '{}' is not in the cache ({}): {}", ref.repo, ref.file, ref.revision,
        repo_dir.string(), why);
  std::error_code ec;
  const fs::path blob = fs::is_symlink(pointer) ? fs::canonical(pointer, ec) : pointer;
  const ExpectedDigest digest = expected_from(blob.filename().string(), options);
  const std::string mismatch = digest_mismatch(blob, digest);
  check(mismatch.empty(), "{}: the cached copy is corrupt ({}) and {}", pointer.string(), mismatch,
        why);
  return {pointer, commit, false};
}

}  // namespace

HubSettings HubSettings::from_env() {
  HubSettings s;
  if (auto e = env("HF_ENDPOINT")) s.endpoint = *e;
  while (!s.endpoint.empty() && s.endpoint.back() == '/') s.endpoint.pop_back();
  s.token = env("HF_TOKEN");
  s.offline = env_true("HF_HUB_OFFLINE");
  if (auto c = env("HF_HUB_CACHE")) {
    s.hub_cache = *c;
  } else if (auto h = env("HF_HOME")) {
    s.hub_cache = fs::path(*h) / "hub";
  } else if (!home_cache().empty()) {
    s.hub_cache = home_cache() / "huggingface" / "hub";
  }
  if (auto w = env("WNN_CACHE_DIR")) {
    s.url_cache = fs::path(*w) / "urls";
  } else if (!home_cache().empty()) {
    s.url_cache = home_cache() / "wnn" / "urls";
  }
  return s;
}

fs::path repo_cache_dir(const HubSettings& s, const std::string& repo) {
  check_repo_id(repo);
  check(!s.hub_cache.empty(), "no Hugging Face cache directory: set HF_HUB_CACHE, HF_HOME or HOME");
  std::string folder = "models--" + repo;
  for (size_t i = 0; (i = folder.find('/', i)) != std::string::npos;) folder.replace(i, 1, "--");
  return s.hub_cache / folder;
}

FetchedFile hf_hub_download(const HubSettings& s, const HubFileRef& ref,
                            const FetchOptions& options) {
  const fs::path repo_dir = repo_cache_dir(s, ref.repo);
  check_relative_name(ref.file, fmt::format("file of {}", ref.repo));
  check_relative_name(ref.revision, fmt::format("revision of {}", ref.repo));
  if (options.sha256) {
    check(is_lower_hex(*options.sha256, 64), "sha256 '{}' must be 64 lowercase hex digits",
          *options.sha256);
  }
  if (s.offline) return from_cache_only(s, ref, options, "HF_HUB_OFFLINE is set");
  HubMetadata m;
  try {
    m = resolve_metadata(s, ref);
  } catch (const HttpError& e) {
    if (!e.is_transport() || options.refresh) throw;
    // The network is gone: a pinned, verified cached copy is as good as huggingface_hub's.
    return from_cache_only(s, ref, options, std::string("the Hub is unreachable: ") + e.what());
  }
  if (ref.revision != m.commit) write_text_atomic(repo_dir / "refs" / ref.revision, m.commit);
  const fs::path blob = repo_dir / "blobs" / m.etag;
  const fs::path pointer = repo_dir / "snapshots" / m.commit / ref.file;
  const ExpectedDigest digest = expected_from(m.etag, options);
  const fs::path lock_dir = s.hub_cache / ".locks" / repo_dir.filename();
  const FileLock lock(lock_dir / (m.etag + ".lock"));
  bool downloaded = false;
  if (options.refresh) fs::remove(blob);
  if (!cached_and_valid(blob, digest)) {
    fetch_verified(s, m.download_url, headers_for(s, m.download_url), blob, digest, m.size);
    downloaded = true;
  }
  link_snapshot(pointer, blob);
  return {pointer, m.commit, downloaded};
}

FetchedFile url_download(const HubSettings& s, const std::string& url,
                         const FetchOptions& options) {
  const std::string origin = url_origin(url);
  check(origin.rfind("http://", 0) == 0 || origin.rfind("https://", 0) == 0,
        "url '{}': only http:// and https:// URLs can be downloaded", url);
  std::string path = url.substr(origin.size());
  path = path.substr(0, path.find_first_of("?#"));
  std::string name = path.substr(path.rfind('/') + 1);
  if (name.empty()) name = "download";
  check_single_component(name, "file name of " + url);
  check(!s.url_cache.empty(), "no cache directory for URL downloads: set WNN_CACHE_DIR or HOME");
  const fs::path dir = s.url_cache / sha256_hex(url).substr(0, 32);
  const fs::path target = dir / name;
  const fs::path recorded = dir / (name + ".sha256");
  const FileLock lock(s.url_cache / ".locks" / (dir.filename().string() + ".lock"));
  // A run killed while rewriting the recorded digest (a refresh) left its temporary; this run
  // may not rewrite the file, so it removes the temporary here, under the lock.
  remove_stale_temporaries(recorded.string());
  ExpectedDigest digest;
  digest.sha256 = options.sha256;
  if (!digest.sha256 && fs::exists(recorded)) digest.sha256 = read_ref(recorded);
  if (options.refresh && !s.offline) fs::remove(target);
  if (s.offline) {
    check(fs::exists(target), "url '{}' is not in the cache ({}) and HF_HUB_OFFLINE is set", url,
          target.string());
  }
  if (cached_and_valid(target, digest)) {
    // A run killed between installing the file and recording its digest: record it now.
    if (!fs::exists(recorded)) write_text_atomic(recorded, sha256_file_hex(target.string()) + "\n");
    return {target, "", false};
  }
  check(!s.offline, "url '{}': the cached copy fails verification and HF_HUB_OFFLINE is set", url);
  fetch_verified(s, url, {}, target, digest, std::nullopt);
  write_text_atomic(recorded, sha256_file_hex(target.string()) + "\n");
  return {target, "", true};
}

}  // namespace wnn::hub
