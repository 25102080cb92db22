#include "wnn/hub/file_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "wnn/core/error.h"

namespace wnn::hub {

FileLock::FileLock(const std::filesystem::path& path) {
  std::filesystem::create_directories(path.parent_path());
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  check(fd_ >= 0, "{}: cannot open lock file: {}", path.string(), std::strerror(errno));
  int rc = 0;
  while ((rc = ::flock(fd_, LOCK_EX)) != 0 && errno == EINTR) {
  }
  if (rc != 0) {
    const int err = errno;
    ::close(fd_);
    fail("{}: cannot lock: {}", path.string(), std::strerror(err));
  }
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the descriptor releases the lock
}

}  // namespace wnn::hub
