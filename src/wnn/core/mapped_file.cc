#include "wnn/core/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "wnn/core/error.h"

namespace wnn {

std::shared_ptr<MappedFile> MappedFile::open(const std::string& path) {
  // O_NONBLOCK: a FIFO where a file is expected must fail the regular-file check below, not
  // block the open forever waiting for a writer. It changes nothing for regular files.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  check(fd >= 0, "{}: cannot open: {}", path, std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    fail("{}: not a regular file", path);
  }
  std::shared_ptr<MappedFile> f(new MappedFile());
  f->path_ = path;
  f->size_ = size_t(st.st_size);
  if (f->size_ > 0) {
    void* p = ::mmap(nullptr, f->size_, PROT_READ, MAP_PRIVATE, fd, 0);
    const int err = errno;
    ::close(fd);
    check(p != MAP_FAILED, "{}: cannot map: {}", path, std::strerror(err));
    f->data_ = static_cast<const std::byte*>(p);
  } else {
    ::close(fd);
  }
  return f;
}

MappedFile::~MappedFile() {
  if (data_ != nullptr) ::munmap(const_cast<std::byte*>(data_), size_);
}

Buffer MappedFile::slice(size_t offset, size_t length) const {
  check(offset <= size_ && length <= size_ - offset,
        "{}: range [{}, {}) is outside the file ({} bytes)", path_, offset, offset + length, size_);
  return Buffer::view(shared_from_this(), data_ + offset, length);
}

}  // namespace wnn
