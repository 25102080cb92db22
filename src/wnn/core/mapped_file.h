// Read-only memory-mapped files. Weights stay in the mapping; Buffers viewing it keep it alive.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>

#include "wnn/core/tensor.h"

namespace wnn {

class MappedFile : public std::enable_shared_from_this<MappedFile> {
 public:
  // Maps the whole file. Throws wnn::Error naming the path on failure.
  static std::shared_ptr<MappedFile> open(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const std::byte* data() const { return data_; }
  size_t size() const { return size_; }
  std::span<const std::byte> bytes() const { return {data_, size_}; }
  const std::string& path() const { return path_; }
  // A Buffer viewing [offset, offset + length) that keeps this mapping alive.
  // Throws when the range is outside the file.
  Buffer slice(size_t offset, size_t length) const;

 private:
  MappedFile() = default;
  std::string path_;
  const std::byte* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace wnn
