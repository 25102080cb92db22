#include "wnn/core/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>

#include "wnn/core/error.h"

namespace wnn {

namespace {

// Which file a mapping holds: the same path, inode, size and modification time. A file
// rewritten atomically (renamed over) is a new inode; one rewritten in place changes its mtime.
struct FileIdentity {
  std::string path;
  dev_t device;
  ino_t inode;
  off_t size;
  int64_t mtime_ns;
  auto operator<=>(const FileIdentity&) const = default;
};

// The mappings alive in this process. Sessions over graphs that reference one weights file (the
// prefill and decode graphs of a decoder) then share one mapping instead of mapping it twice.
struct OpenFiles {
  std::mutex mutex;
  std::map<FileIdentity, std::weak_ptr<MappedFile>> files;
};

OpenFiles& open_files() {
  static OpenFiles* all = new OpenFiles();  // never destroyed: mappings may outlive main
  return *all;
}

}  // namespace

// While a mapping of the same file (path, inode, size, mtime) is alive in the process, open
// returns that one: two sessions over one weights file share its pages.
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
  const FileIdentity id{path, st.st_dev, st.st_ino, st.st_size,
                        int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
  OpenFiles& open = open_files();
  std::lock_guard lock(open.mutex);
  if (const auto it = open.files.find(id); it != open.files.end()) {
    if (auto alive = it->second.lock()) {
      ::close(fd);
      return alive;
    }
  }
  // Forget mappings that are gone, so the table holds only live ones.
  std::erase_if(open.files, [](const auto& entry) { return entry.second.expired(); });
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
  open.files[id] = f;
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
