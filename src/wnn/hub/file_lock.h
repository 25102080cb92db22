// An exclusive advisory lock on a lock file (flock), held for the object's lifetime. Workers in
// other processes and other threads (each opens its own descriptor) wait for it. Python's
// huggingface_hub locks the same .locks/<repo>/<etag>.lock files the same way.
#pragma once

#include <filesystem>

namespace wnn::hub {

class FileLock {
 public:
  explicit FileLock(const std::filesystem::path& path);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace wnn::hub
