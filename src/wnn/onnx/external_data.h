// External tensor data: TensorProto payloads stored in sidecar files next to the model, as the
// ONNX external data format describes (keys location, offset, length). Locations must stay
// inside the model's directory; each file is mapped once and tensors are zero-copy views.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "wnn/core/mapped_file.h"
#include "wnn/onnx/model.h"

namespace wnn::onnx {

// The external_data entries of `t` as key -> value (the last one of a repeated key wins).
struct ExternalDataInfo {
  std::string location;
  uint64_t offset = 0;
  std::optional<uint64_t> length;
};
class ExternalDataResolver {
 public:
  // Rejects every external tensor: for models decoded from memory with no directory.
  ExternalDataResolver();
  // Resolves locations relative to `model_dir`.
  explicit ExternalDataResolver(const std::filesystem::path& model_dir);
  // The resolver for the directory holding `model_path`.
  static ExternalDataResolver for_model(const std::string& model_path);

  // The `byte_size` bytes of external tensor `t`. A given `length` must equal byte_size; without
  // it the data runs byte_size bytes from `offset`. Throws naming the tensor and the file.
  Buffer read(const TensorProto& t, uint64_t byte_size) const;

  // Every external file mapped so far, as absolute paths, sorted.
  std::vector<std::string> files() const;

  // Skeleton mode: a missing file, or data past a file's end, reads as zeros instead of failing.
  void zero_fill_missing(bool on) { zero_missing_ = on; }
  // The locations read as zeros so far, sorted.
  std::vector<std::string> zero_filled() const;

 private:
  // Whether the bytes of `info` are absent (no file, or the file ends before them).
  bool is_missing(const std::string& tensor, const ExternalDataInfo& info,
                  uint64_t byte_size) const;
  // `location` checked to stay inside the model's directory, as an absolute path.
  std::filesystem::path resolve(const std::string& tensor, const std::string& location) const;
  std::shared_ptr<MappedFile> map_location(const std::string& tensor,
                                           const std::string& location) const;

  std::filesystem::path dir_;        // canonical; empty when external data is not allowed
  std::filesystem::path link_root_;  // where symlinks in dir_ may point (dir_, or an HF repo)
  struct Cache {
    std::mutex mutex;
    std::map<std::string, std::shared_ptr<MappedFile>> files;  // by canonical path
    std::set<std::string> zero_filled;                         // locations
  };
  bool zero_missing_ = false;
  std::shared_ptr<Cache> cache_ = std::make_shared<Cache>();
};

ExternalDataInfo external_data_info(const TensorProto& t);

}  // namespace wnn::onnx
