#include "wnn/validate/cache.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <memory>
#include <random>
#include <set>
#include <string_view>
#include <vector>

#include "wnn/core/atomic_file.h"
#include "wnn/core/digest.h"
#include "wnn/core/error.h"

namespace wnn::validate {

namespace {

namespace fs = std::filesystem;

constexpr const char* kEntryFiles[] = {"model.webnn", "model.safetensors", "pinned.safetensors"};

// flock(2) on <root>/<key>.lock for the lifetime of the object. Lock files are never removed:
// removing one while another process waits on it would let two holders in.
class KeyLock {
 public:
  KeyLock(const std::string& path, bool exclusive) {
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    check(fd_ >= 0, "cache: cannot open lock file '{}': {}", path, std::strerror(errno));
    int rc;
    do {
      rc = ::flock(fd_, exclusive ? LOCK_EX : LOCK_SH);
    } while (rc != 0 && errno == EINTR);
    check(rc == 0, "cache: cannot lock '{}': {}", path, std::strerror(errno));
  }
  // The exclusive lock on `path` if nobody holds it now; null otherwise.
  static std::unique_ptr<KeyLock> try_exclusive(const std::string& path) {
    // Creating a missing lock file is safe: lock files are never removed.
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return nullptr;
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd);
      return nullptr;
    }
    return std::unique_ptr<KeyLock>(new KeyLock(fd));
  }
  ~KeyLock() { ::close(fd_); }  // closing releases the lock
  KeyLock(const KeyLock&) = delete;
  KeyLock& operator=(const KeyLock&) = delete;

 private:
  explicit KeyLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

constexpr std::string_view kTempPrefixes[] = {".tmp-", ".trash-"};

// The key of a `.tmp-<key>-<suffix>` or `.trash-<key>-<suffix>` directory, or "".
std::string scratch_key(const std::string& name) {
  for (std::string_view prefix : kTempPrefixes) {
    if (name.rfind(prefix, 0) != 0) continue;
    const size_t dash = name.find('-', prefix.size());
    if (dash == std::string::npos) return "";
    const std::string key = name.substr(prefix.size(), dash - prefix.size());
    // Keys are SHA-256 hex: anything else was not made by the cache and is left alone.
    if (key.size() == 64 && key.find_first_not_of("0123456789abcdef") == std::string::npos) {
      return key;
    }
  }
  return "";
}

// Removes the build and trash directories of writers that died (SIGKILL, power loss) before
// installing their entry. A writer holds its key's lock exclusively for the whole life of those
// directories, so one whose lock can be taken now belongs to a dead writer; a live writer's lock
// is held and its directories are left alone.
void remove_dead_writers_scratch(const std::string& root) {
  std::error_code ec;
  std::vector<std::pair<std::string, std::string>> found;  // (path, key)
  for (const auto& e : fs::directory_iterator(root, ec)) {
    const std::string key = scratch_key(e.path().filename().string());
    if (!key.empty()) found.emplace_back(e.path().string(), key);
  }
  for (const auto& [path, key] : found) {
    const auto lock = KeyLock::try_exclusive(root + "/" + key + ".lock");
    if (lock) fs::remove_all(path, ec);
  }
}

std::string unique_suffix() {
  std::random_device rd;
  return fmt::format("{}-{:08x}", ::getpid(), rd());
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

CacheEntry entry_at(const std::string& dir) {
  CacheEntry e;
  e.dir = dir;
  e.graph_path = dir + "/model.webnn";
  e.weights_path = dir + "/model.safetensors";
  e.pinned_path = dir + "/pinned.safetensors";
  return e;
}

// The entry at `dir` when every recorded file has its recorded size and digest; else the reason.
std::optional<CacheEntry> verify(const std::string& dir, std::string& problem) {
  CacheEntry e = entry_at(dir);
  const std::string meta_path = dir + "/metadata.json";
  std::string text;
  try {
    text = read_file(meta_path);
  } catch (const Error&) {
    problem = fmt::format("'{}' is missing", meta_path);
    return std::nullopt;
  }
  e.metadata = nlohmann::json::parse(text, nullptr, false);
  if (e.metadata.is_discarded() || !e.metadata.is_object() || !e.metadata.contains("files") ||
      !e.metadata["files"].is_object()) {
    problem = fmt::format("'{}' is not valid cache metadata", meta_path);
    return std::nullopt;
  }
  for (const char* name : kEntryFiles) {
    const auto& files = e.metadata["files"];
    if (!files.contains(name) || !files[name].contains("sha256") ||
        !files[name].contains("bytes")) {
      problem = fmt::format("'{}' records no digest for {}", meta_path, name);
      return std::nullopt;
    }
    const std::string path = dir + "/" + name;
    std::error_code ec;
    const auto size = fs::file_size(path, ec);
    if (ec || size != files[name]["bytes"].get<uint64_t>()) {
      problem = ec ? fmt::format("'{}' is missing", path)
                   : fmt::format("'{}' has {} bytes, the entry recorded {}", path, size,
                                 files[name]["bytes"].get<uint64_t>());
      return std::nullopt;
    }
    if (sha256_file_hex(path) != files[name]["sha256"].get<std::string>()) {
      problem = fmt::format("'{}' does not match its recorded SHA-256", path);
      return std::nullopt;
    }
  }
  return e;
}

}  // namespace

std::string cache_root() {
  std::string root;
  std::string from;
  if (const char* d = std::getenv("WNN_CACHE_DIR"); d && *d) {
    root = d;
    from = "WNN_CACHE_DIR";
  } else if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) {
    root = std::string(x) + "/wnn";
    from = "XDG_CACHE_HOME";
  } else if (const char* h = std::getenv("HOME"); h && *h) {
    root = std::string(h) + "/.cache/wnn";
    from = "HOME";
  } else {
    fail("cache: no cache directory: set WNN_CACHE_DIR (or XDG_CACHE_HOME or HOME)");
  }
  std::error_code ec;
  fs::create_directories(root, ec);
  check(!ec && fs::is_directory(root),
        "cache: cannot create the cache directory '{}' (from {}): {}; set WNN_CACHE_DIR to a "
        "writable directory",
        root, from, ec ? ec.message() : "not a directory");
  check(::access(root.c_str(), W_OK | X_OK) == 0,
        "cache: the cache directory '{}' (from {}) is not writable; set WNN_CACHE_DIR to a "
        "writable directory",
        root, from);
  return root;
}

std::string source_digest(const std::string& onnx_path, const onnx::ModelProto& model) {
  Sha256 h;
  h.update_file(onnx_path);
  std::set<std::string> seen;
  const fs::path base = fs::path(onnx_path).parent_path();
  for (const auto& init : model.graph.initializer) {
    if (!init.is_external()) continue;
    for (const auto& [k, v] : init.external_data) {
      if (k != "location" || !seen.insert(v).second) continue;
      h.update(v);
      h.update(std::string_view("\0", 1));
      h.update_file((base / v).string());
    }
  }
  return h.hex_digest();
}

std::string cache_key(const std::string& source_digest, const nlohmann::json& options) {
  return sha256_hex(
      // v2: metadata holds the value map (--per-node); v1 entries are never looked up again.
      fmt::format("wnn-cache-v2\n{}\n{}\n{}", source_digest, options.dump(), WNN_VERSION));
}

ConversionCache::Lookup ConversionCache::find(const std::string& key) const {
  KeyLock lock(root_ + "/" + key + ".lock", false);
  Lookup out;
  const std::string dir = root_ + "/" + key;
  if (!fs::exists(dir)) return out;
  out.entry = verify(dir, out.problem);
  return out;
}

ConversionCache::Result ConversionCache::get_or_build(const std::string& key,
                                                      const Builder& build) const {
  remove_dead_writers_scratch(root_);
  KeyLock lock(root_ + "/" + key + ".lock", true);
  Result result;
  const std::string dir = root_ + "/" + key;
  if (fs::exists(dir)) {
    if (auto e = verify(dir, result.rebuilt)) {
      result.entry = std::move(*e);
      return result;
    }
  }
  const std::string tmp = root_ + "/.tmp-" + key + "-" + unique_suffix();
  fs::create_directories(tmp);
  try {
    nlohmann::json meta = build(tmp);
    meta["key"] = key;
    meta["created"] = utc_now();
    meta["files"] = nlohmann::json::object();
    for (const char* name : kEntryFiles) {
      const std::string path = tmp + "/" + name;
      meta["files"][name] = {{"sha256", sha256_file_hex(path)}, {"bytes", fs::file_size(path)}};
    }
    write_file_atomic(tmp + "/metadata.json", meta.dump(2) + "\n");
    if (fs::exists(dir)) {
      // A damaged entry: move it aside first so the rename below installs the new one whole.
      const std::string trash = root_ + "/.trash-" + key + "-" + unique_suffix();
      fs::rename(dir, trash);
      fs::remove_all(trash);
    }
    fs::rename(tmp, dir);
  } catch (...) {
    std::error_code ec;
    fs::remove_all(tmp, ec);
    throw;
  }
  std::string problem;
  auto e = verify(dir, problem);
  check_internal(e.has_value(), "cache: the entry just written is unusable: {}", problem);
  result.entry = std::move(*e);
  result.built = true;
  return result;
}

}  // namespace wnn::validate
