// SHA-256 digests (OpenSSL's libcrypto) of files and bytes, as lowercase hex: the cache keys its
// entries by them and every entry records the digests of its own files.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace wnn::validate {

// Incremental SHA-256.
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void update(std::span<const std::byte> bytes);
  void update(std::string_view text);
  // Streams the file at `path` in (throws naming the path when it cannot be read).
  void update_file(const std::string& path);
  std::string hex_digest();  // finishes; the object is spent afterwards

 private:
  void* ctx_;  // EVP_MD_CTX
};

std::string sha256_hex(std::string_view text);
std::string sha256_file_hex(const std::string& path);

}  // namespace wnn::validate
