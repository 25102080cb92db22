#include "wnn/core/atomic_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <vector>

#include "wnn/core/error.h"

namespace wnn {

namespace {

constexpr size_t kBufferBytes = size_t(1) << 20;
// Writeback of what is written is started every this many bytes, so the disk works while the
// rest is produced and commit()'s fsync waits only for the tail (a 1 GiB output otherwise spends
// most of its commit in fsync).
constexpr uint64_t kWritebackBytes = uint64_t(32) << 20;

std::string directory_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string basename_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

void write_all(int fd, const std::byte* data, size_t size, const std::string& path) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    check(n > 0, "{}: cannot write: {}", path, std::strerror(errno));
    data += n;
    size -= size_t(n);
  }
}

bool process_exists(long pid) { return pid > 0 && (::kill(pid_t(pid), 0) == 0 || errno == EPERM); }

// The writer pid in `.<base>.tmp.<pid>.<hex>`, or -1 when `entry` is not such a name.
long temporary_pid(std::string_view entry, std::string_view prefix) {
  if (entry.substr(0, prefix.size()) != prefix) return -1;
  const std::string_view rest = entry.substr(prefix.size());
  const size_t dot = rest.find('.');
  if (dot == 0 || dot == std::string_view::npos || dot > 9) return -1;
  long pid = 0;
  for (char c : rest.substr(0, dot)) {
    if (c < '0' || c > '9') return -1;
    pid = pid * 10 + (c - '0');
  }
  return pid;
}

}  // namespace

void remove_stale_temporaries(const std::string& path) {
  const std::string dir = directory_of(path);
  const std::string prefix = "." + basename_of(path) + ".tmp.";
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return;
  std::vector<std::string> stale;
  while (const dirent* e = ::readdir(d)) {
    const long pid = temporary_pid(e->d_name, prefix);
    if (pid < 0 || pid == ::getpid() || process_exists(pid)) continue;
    stale.push_back(dir + "/" + e->d_name);
  }
  ::closedir(d);
  for (const std::string& temp : stale) {
    const int fd = ::open(temp.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) continue;
    // Held by someone (another host's writer on a shared filesystem): leave it.
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) ::unlink(temp.c_str());
    ::close(fd);
  }
}

AtomicFileWriter::AtomicFileWriter(std::string path) : path_(std::move(path)) {
  check(!path_.empty() && path_.back() != '/', "'{}' is not a file path", path_);
  struct stat target {};
  if (::stat(path_.c_str(), &target) == 0 && !S_ISREG(target.st_mode)) {
    check(!S_ISDIR(target.st_mode), "'{}' is a directory, not a file", path_);
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CLOEXEC);
    check(fd_ >= 0, "{}: cannot open for writing: {}", path_, std::strerror(errno));
    direct_ = true;
    buffer_.reserve(kBufferBytes);
    return;
  }
  remove_stale_temporaries(path_);
  std::random_device rd;
  const std::string prefix =
      directory_of(path_) + "/." + basename_of(path_) + ".tmp." + std::to_string(::getpid()) + ".";
  // O_EXCL plus a random suffix: concurrent writers of the same target never share a temp file.
  for (int attempt = 0; attempt < 16 && fd_ < 0; ++attempt) {
    temp_path_ = prefix + fmt::format("{:08x}", uint32_t(rd()));
    fd_ = ::open(temp_path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd_ < 0 && errno != EEXIST) break;
  }
  check(fd_ >= 0, "{}: cannot create temporary file '{}': {}", path_, temp_path_,
        std::strerror(errno));
  // Marks the temporary as live for remove_stale_temporaries; released when the fd closes.
  ::flock(fd_, LOCK_EX | LOCK_NB);
  buffer_.reserve(kBufferBytes);
}

AtomicFileWriter::~AtomicFileWriter() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_ && !direct_) ::unlink(temp_path_.c_str());
}

void AtomicFileWriter::write(std::span<const std::byte> bytes) {
  check_internal(fd_ >= 0 && !committed_, "{}: write after commit", path_);
  if (buffer_.size() + bytes.size() > kBufferBytes) flush_buffer();
  if (bytes.size() >= kBufferBytes) {
    write_through(bytes.data(), bytes.size());
  } else {
    buffer_.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  }
}

void AtomicFileWriter::flush_buffer() {
  write_through(reinterpret_cast<const std::byte*>(buffer_.data()), buffer_.size());
  buffer_.clear();
}

void AtomicFileWriter::write_through(const std::byte* data, size_t size) {
  write_all(fd_, data, size, direct_ ? path_ : temp_path_);
  written_ += size;
  if (!direct_ && written_ - writeback_started_ >= kWritebackBytes) {
    // Asynchronous: queues the range for writeback and returns. Where the filesystem does not
    // support it the final fsync does all the work, as before.
    ::sync_file_range(fd_, off64_t(writeback_started_), off64_t(written_ - writeback_started_),
                      SYNC_FILE_RANGE_WRITE);
    writeback_started_ = written_;
  }
}

void AtomicFileWriter::commit() {
  check_internal(fd_ >= 0 && !committed_, "{}: commit twice", path_);
  flush_buffer();
  if (direct_) {
    const int rc = ::close(fd_);
    fd_ = -1;
    check(rc == 0, "{}: cannot close: {}", path_, std::strerror(errno));
    committed_ = true;
    return;
  }
  // Replacing a file keeps its permissions.
  struct stat existing {};
  if (::stat(path_.c_str(), &existing) == 0) ::fchmod(fd_, existing.st_mode & 07777);
  check(::fsync(fd_) == 0, "{}: cannot fsync: {}", temp_path_, std::strerror(errno));
  const int rc = ::close(fd_);
  fd_ = -1;
  check(rc == 0, "{}: cannot close: {}", temp_path_, std::strerror(errno));
  check(::rename(temp_path_.c_str(), path_.c_str()) == 0, "{}: cannot rename '{}' onto it: {}",
        path_, temp_path_, std::strerror(errno));
  committed_ = true;
  // The rename is durable only once the directory entry is on disk.
  const int dir = ::open(directory_of(path_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
}

void write_file_atomic(const std::string& path, std::span<const std::byte> bytes) {
  AtomicFileWriter writer(path);
  writer.write(bytes);
  writer.commit();
}

void write_file_atomic(const std::string& path, std::string_view text) {
  write_file_atomic(path, std::as_bytes(std::span(text.data(), text.size())));
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
