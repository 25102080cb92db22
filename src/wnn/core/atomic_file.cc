#include "wnn/core/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "wnn/core/error.h"

namespace wnn {

namespace {

// Closes the descriptor and removes the temporary unless the rename succeeded.
struct TempFile {
  std::string path;
  int fd = -1;
  bool keep = false;
  ~TempFile() {
    if (fd >= 0) ::close(fd);
    if (!keep && !path.empty()) ::unlink(path.c_str());
  }
};

}  // namespace

void write_file_atomic(const std::string& path, std::string_view bytes) {
  const std::filesystem::path target(path);
  const std::filesystem::path dir =
      target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
  // mkstemp makes the name unique, so concurrent writers of one target never share a temp.
  std::string pattern = (dir / ("." + target.filename().string() + ".tmp.XXXXXX")).string();
  TempFile tmp;
  tmp.fd = ::mkstemp(pattern.data());
  check(tmp.fd >= 0, "cannot create a temporary file beside '{}': {}", path, std::strerror(errno));
  tmp.path = pattern;
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(tmp.fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    check(n > 0, "cannot write '{}': {}", path, std::strerror(errno));
    done += size_t(n);
  }
  // mkstemp creates 0600: keep the mode of the file being replaced, else the usual 0644
  // (umask is process-global and racy to read, so it is not consulted).
  struct stat existing {};
  ::fchmod(tmp.fd, ::stat(path.c_str(), &existing) == 0 ? (existing.st_mode & 07777) : 0644);
  check(::fsync(tmp.fd) == 0, "cannot flush '{}': {}", path, std::strerror(errno));
  check(::close(tmp.fd) == 0, "cannot close '{}': {}", path, std::strerror(errno));
  tmp.fd = -1;
  check(::rename(tmp.path.c_str(), path.c_str()) == 0, "cannot rename into '{}': {}", path,
        std::strerror(errno));
  tmp.keep = true;
  // Make the rename itself durable.
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

std::string read_file(const std::string& path) {
  std::error_code ec;
  check(!std::filesystem::is_directory(path, ec), "'{}' is a directory, not a file", path);
  std::ifstream in(path, std::ios::binary);
  check(in.good(), "cannot open '{}': {}", path, std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  check(!in.bad(), "cannot read '{}'", path);
  return std::move(ss).str();
}

}  // namespace wnn
