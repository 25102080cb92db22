#include "wnn/sweep/scratch.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "wnn/core/error.h"

namespace wnn::sweep {
namespace fs = std::filesystem;
namespace {

constexpr std::string_view kPrefix = "wnn-sweep-";
constexpr std::string_view kLockSuffix = ".lock";

// True when `fd` is still the file at `path`: a lock taken on a file someone unlinked (a cleaner
// that raced us) guards nothing.
bool same_file(int fd, const fs::path& path) {
  struct stat a {
  }, b{};
  return ::fstat(fd, &a) == 0 && ::stat(path.c_str(), &b) == 0 && a.st_dev == b.st_dev &&
         a.st_ino == b.st_ino;
}

fs::path dir_of_lock(const fs::path& lock) {
  const std::string s = lock.string();
  return s.substr(0, s.size() - kLockSuffix.size());
}

}  // namespace

void remove_dead_scratch_dirs(const fs::path& parent) {
  std::error_code ec;
  std::vector<fs::path> locks;
  for (const auto& e : fs::directory_iterator(parent, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind(kPrefix, 0) == 0 && name.size() > kLockSuffix.size() &&
        name.compare(name.size() - kLockSuffix.size(), kLockSuffix.size(), kLockSuffix) == 0) {
      locks.push_back(e.path());
    }
  }
  for (const fs::path& lock : locks) {
    const int fd = ::open(lock.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) continue;
    // Held: a live run. Taken but replaced meanwhile: someone else cleaned it up.
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0 && same_file(fd, lock)) {
      fs::remove_all(dir_of_lock(lock), ec);
      ::unlink(lock.c_str());  // last, so the directory is never left without its lock
    }
    ::close(fd);
  }
}

ScratchDir::ScratchDir(const fs::path& parent) {
  remove_dead_scratch_dirs(parent);
  for (int attempt = 0; attempt < 16 && lock_fd_ < 0; ++attempt) {
    std::string tmpl = (parent / (std::string(kPrefix) + "XXXXXX.lock")).string();
    const int fd = ::mkstemps(tmpl.data(), int(kLockSuffix.size()));
    check(fd >= 0, "cannot create a scratch lock file in {}: {}", parent.string(),
          std::strerror(errno));
    ::fcntl(fd, F_SETFD, FD_CLOEXEC);  // the entries' subprocesses must not inherit the lock
    // A concurrent cleaner may have taken and removed the fresh, still unlocked file: retry.
    if (::flock(fd, LOCK_EX) == 0 && same_file(fd, tmpl)) {
      lock_fd_ = fd;
      lock_path_ = tmpl;
    } else {
      ::close(fd);
    }
  }
  check(lock_fd_ >= 0, "cannot lock a scratch directory in {}", parent.string());
  path_ = dir_of_lock(lock_path_);
  std::error_code ec;
  fs::create_directory(path_, ec);
  if (ec) {
    ::unlink(lock_path_.c_str());
    ::close(lock_fd_);
    fail("cannot create the scratch directory {}: {}", path_.string(), ec.message());
  }
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
  ::unlink(lock_path_.c_str());
  ::close(lock_fd_);
}

}  // namespace wnn::sweep
