// Message digests (OpenSSL's libcrypto) of files and bytes, as lowercase hex: the conversion
// cache keys its entries by SHA-256 and records the digests of its files; the download cache
// verifies blobs by SHA-256 (LFS ETags, manifest sha256) or Git's blob SHA-1 (the ETag the Hub
// gives small, non-LFS files).
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace wnn {

// Incremental SHA-256 (or SHA-1, for Git's blob ids).
class Sha256 {
 public:
  Sha256();
  static Sha256 sha1();  // the same interface over SHA-1
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void update(std::span<const std::byte> bytes);
  void update(std::string_view text);
  // Streams the file at `path` in (throws naming the path when it cannot be read).
  void update_file(const std::string& path);
  std::string hex_digest();  // finishes; the object is spent afterwards

 private:
  explicit Sha256(const void* md);  // EVP_MD
  void* ctx_;                       // EVP_MD_CTX
};

std::string sha256_hex(std::string_view text);
std::string sha256_file_hex(const std::string& path);
// SHA-1 of "blob <size>\0" + the file's bytes (what `git hash-object` prints).
std::string git_blob_sha1_file_hex(const std::string& path);
// Whether `s` is `length` lowercase hex digits.
bool is_lower_hex(const std::string& s, size_t length);

}  // namespace wnn
