// Writing files so that no reader ever sees half of one: the bytes go to a temporary name in
// the same directory, are flushed to disk, and the temporary is renamed over the target.
#pragma once

#include <string>
#include <string_view>

namespace wnn {

// Writes `bytes` to `path` atomically (temp file beside it, fsync, rename). Throws wnn::Error
// naming the path on any failure and leaves no temporary file behind.
void write_file_atomic(const std::string& path, std::string_view bytes);

// Reads a whole file into a string. Throws wnn::Error naming the path when it cannot.
std::string read_file(const std::string& path);

}  // namespace wnn
