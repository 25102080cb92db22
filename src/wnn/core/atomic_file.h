// Files that readers never see half-written: data goes to a temporary file in the target's
// directory, is flushed and fsynced, then renamed over the target (and the directory fsynced).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace wnn {

// Streams bytes to `.<name>.tmp.<pid>.<random>` beside `path`. commit() installs the file;
// destruction without commit() removes the temporary, so a failed write leaves nothing behind.
// A target that exists and is not a regular file (/dev/null, /dev/stdout, a FIFO) is written
// directly: renaming over it would replace the device node itself.
// The temporary is flock()ed while it is written; a process killed mid-write leaves it unlocked,
// and the next writer of the same path removes it (remove_stale_temporaries).
class AtomicFileWriter {
 public:
  explicit AtomicFileWriter(std::string path);
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  void write(std::span<const std::byte> bytes);
  // Flushes, fsyncs, renames onto the target path and fsyncs the directory.
  void commit();

 private:
  void flush_buffer();
  void write_through(const std::byte* data, size_t size);
  std::string path_;
  std::string temp_path_;
  int fd_ = -1;
  bool committed_ = false;
  bool direct_ = false;             // writing straight into a device or FIFO, no temporary
  uint64_t written_ = 0;            // bytes handed to write(2)
  uint64_t writeback_started_ = 0;  // bytes whose writeback has been started
  std::string buffer_;              // coalesces small writes into large write(2) calls
};

// Removes the temporaries of `path` left by dead writers: those whose lock is free and whose
// writer process (the pid in the name) no longer exists. A live writer's temporary is never
// touched: it holds the lock, and between creating and locking it its pid is alive.
void remove_stale_temporaries(const std::string& path);

// Writes `bytes` to `path` atomically (AtomicFileWriter in one call).
void write_file_atomic(const std::string& path, std::span<const std::byte> bytes);
void write_file_atomic(const std::string& path, std::string_view text);

// Reads a whole file into a string. Throws wnn::Error naming the path when it cannot.
std::string read_file(const std::string& path);

}  // namespace wnn
