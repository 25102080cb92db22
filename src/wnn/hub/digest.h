// File digests the download cache verifies: SHA-256 (LFS ETags, manifest sha256) and Git's blob
// SHA-1 (the ETag the Hub gives small, non-LFS files). Both stream the file in blocks.
#pragma once

#include <filesystem>
#include <string>

namespace wnn::hub {

// Lowercase hex SHA-256 of the file's bytes.
std::string sha256_file(const std::filesystem::path& path);
// Lowercase hex SHA-1 of "blob <size>\0" + the file's bytes (what `git hash-object` prints).
std::string git_blob_sha1_file(const std::filesystem::path& path);
// Lowercase hex SHA-256 of `text` (cache keys for URLs).
std::string sha256_text(const std::string& text);

bool is_lower_hex(const std::string& s, size_t length);

}  // namespace wnn::hub
