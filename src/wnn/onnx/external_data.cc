#include "wnn/onnx/external_data.h"

#include <algorithm>
#include <charconv>

#include "wnn/core/error.h"

namespace wnn::onnx {
namespace fs = std::filesystem;
namespace {

uint64_t parse_size(const std::string& tensor, const std::string& key, const std::string& text) {
  uint64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  check(!text.empty() && ec == std::errc() && ptr == end,
        "tensor '{}': external_data {} '{}' is not a non-negative integer", tensor, key, text);
  return value;
}

// True when `path` is `dir` or inside it, comparing whole components.
bool is_within(const fs::path& path, const fs::path& dir) {
  auto p = path.begin();
  for (auto d = dir.begin(); d != dir.end(); ++d, ++p) {
    if (d->empty()) continue;  // the trailing "" of "dir/"
    if (p == path.end() || *p != *d) return false;
  }
  return true;
}

}  // namespace

ExternalDataInfo external_data_info(const TensorProto& t) {
  ExternalDataInfo info;
  for (const auto& [key, value] : t.external_data) {
    if (key == "location") {
      info.location = value;
    } else if (key == "offset") {
      info.offset = parse_size(t.name, key, value);
    } else if (key == "length") {
      info.length = parse_size(t.name, key, value);
    }
    // "checksum" is not verified, and other keys (onnx's Python helper may write "basepath")
    // do not change where the bytes are.
  }
  check(!info.location.empty(), "tensor '{}': external data has no 'location'", t.name);
  return info;
}

ExternalDataResolver::ExternalDataResolver() = default;

ExternalDataResolver::ExternalDataResolver(const fs::path& model_dir) {
  std::error_code ec;
  dir_ = fs::canonical(model_dir.empty() ? fs::path(".") : model_dir, ec);
  check(!ec, "{}: cannot resolve the model directory: {}", model_dir.string(), ec.message());
  // A Hugging Face cache snapshot (.../models--ORG--NAME/snapshots/<commit>/...) holds symlinks
  // to ../../blobs/<etag>: those stay inside the repository's own cache folder.
  link_root_ = dir_;
  for (fs::path p = dir_; p.has_parent_path() && p != p.parent_path(); p = p.parent_path()) {
    const fs::path up = p.parent_path();
    if (up.filename() == "snapshots" &&
        up.parent_path().filename().string().rfind("models--", 0) == 0) {
      link_root_ = up.parent_path();
      break;
    }
  }
}

ExternalDataResolver ExternalDataResolver::for_model(const std::string& model_path) {
  return ExternalDataResolver(fs::path(model_path).parent_path());
}

fs::path ExternalDataResolver::resolve(const std::string& tensor,
                                       const std::string& location) const {
  check(!dir_.empty(), "tensor '{}': external data '{}' needs the model's directory", tensor,
        location);
  const fs::path rel(location);
  check(!rel.is_absolute(),
        "tensor '{}': external data location '{}' is an absolute path; it must be relative to "
        "the model's directory",
        tensor, location);
  for (const auto& part : rel) {
    check(part != "..",
          "tensor '{}': external data location '{}' contains '..'; it must stay inside the "
          "model's directory",
          tensor, location);
  }
  std::error_code ec;
  const fs::path resolved = fs::weakly_canonical(dir_ / rel, ec);
  check(!ec, "tensor '{}': cannot resolve external data location '{}': {}", tensor, location,
        ec.message());
  check(is_within(resolved, dir_) || is_within(resolved, link_root_),
        "tensor '{}': external data location '{}' resolves to {}, outside the model's directory "
        "{} (through a symlink)",
        tensor, location, resolved.string(), dir_.string());
  return resolved;
}

std::shared_ptr<MappedFile> ExternalDataResolver::map_location(const std::string& tensor,
                                                               const std::string& location) const {
  const fs::path resolved = resolve(tensor, location);
  const std::lock_guard lock(cache_->mutex);
  auto& slot = cache_->files[resolved.string()];
  if (!slot) slot = MappedFile::open(resolved.string());
  return slot;
}

Buffer ExternalDataResolver::read(const TensorProto& t, uint64_t byte_size) const {
  const ExternalDataInfo info = external_data_info(t);
  if (info.length) {
    check(*info.length == byte_size,
          "tensor '{}': external data length {} does not match the {} bytes its type and dims "
          "need",
          t.name, *info.length, byte_size);
  }
  if (zero_missing_ && is_missing(t.name, info, byte_size)) {
    const std::lock_guard lock(cache_->mutex);
    cache_->zero_filled.insert(info.location);
    return Buffer::allocate(size_t(byte_size));
  }
  const auto file = map_location(t.name, info.location);
  check(info.offset <= file->size() && byte_size <= file->size() - info.offset,
        "tensor '{}': external data of {} bytes at offset {} is outside '{}' ({} bytes)", t.name,
        byte_size, info.offset, info.location, file->size());
  return file->slice(size_t(info.offset), size_t(byte_size));
}

bool ExternalDataResolver::is_missing(const std::string& tensor, const ExternalDataInfo& info,
                                      uint64_t byte_size) const {
  const fs::path candidate = resolve(tensor, info.location);
  std::error_code ec;
  if (!fs::exists(candidate, ec)) return true;
  const uint64_t size = fs::file_size(candidate, ec);
  return !ec && (info.offset > size || byte_size > size - info.offset);
}

std::vector<std::string> ExternalDataResolver::zero_filled() const {
  const std::lock_guard lock(cache_->mutex);
  return {cache_->zero_filled.begin(), cache_->zero_filled.end()};
}

std::vector<std::string> ExternalDataResolver::files() const {
  const std::lock_guard lock(cache_->mutex);
  std::vector<std::string> out;
  for (const auto& entry : cache_->files) out.push_back(entry.first);
  return out;
}

}  // namespace wnn::onnx
