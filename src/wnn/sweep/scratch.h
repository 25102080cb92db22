// The scratch directory of one `wnn validate-models` run (per-entry reports, logs, skeleton
// outputs): $TMPDIR/wnn-sweep-XXXXXX, guarded by the lock file $TMPDIR/wnn-sweep-XXXXXX.lock that
// the run holds (flock) while it lives. A run killed with SIGKILL cannot remove its directory;
// the next run finds its lock free and removes both. A live run's directory is never touched.
#pragma once

#include <filesystem>

namespace wnn::sweep {

class ScratchDir {
 public:
  // Removes dead runs' directories in `parent`, then creates and locks a new one there.
  explicit ScratchDir(const std::filesystem::path& parent);
  ~ScratchDir();  // removes the directory, then its lock file
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  std::filesystem::path lock_path_;
  int lock_fd_ = -1;
};

// Removes every `wnn-sweep-*` directory in `parent` whose lock file is not held, with the lock.
void remove_dead_scratch_dirs(const std::filesystem::path& parent);

}  // namespace wnn::sweep
