#include "wnn/core/digest.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

#include "wnn/core/error.h"

namespace wnn {

namespace {
EVP_MD_CTX* ctx_of(void* p) { return static_cast<EVP_MD_CTX*>(p); }
}  // namespace

Sha256::Sha256() : Sha256(EVP_sha256()) {}

Sha256::Sha256(const void* md) : ctx_(EVP_MD_CTX_new()) {
  check_internal(ctx_ != nullptr &&
                     EVP_DigestInit_ex(ctx_of(ctx_), static_cast<const EVP_MD*>(md), nullptr) == 1,
                 "digest: EVP_DigestInit_ex failed");
}

Sha256 Sha256::sha1() { return Sha256(EVP_sha1()); }

Sha256::~Sha256() { EVP_MD_CTX_free(ctx_of(ctx_)); }

void Sha256::update(std::span<const std::byte> bytes) {
  check_internal(EVP_DigestUpdate(ctx_of(ctx_), bytes.data(), bytes.size()) == 1,
                 "SHA-256: EVP_DigestUpdate failed");
}

void Sha256::update(std::string_view text) {
  update(std::as_bytes(std::span<const char>(text.data(), text.size())));
}

void Sha256::update_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  check(fd >= 0, "cannot read '{}': {}", path, std::strerror(errno));
  std::vector<std::byte> chunk(1 << 20);
  for (;;) {
    const ssize_t n = ::read(fd, chunk.data(), chunk.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = errno;
      ::close(fd);
      check(n == 0, "cannot read '{}': {}", path, std::strerror(err));
      return;
    }
    update(std::span(chunk.data(), size_t(n)));
  }
}

std::string Sha256::hex_digest() {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  check_internal(EVP_DigestFinal_ex(ctx_of(ctx_), md, &len) == 1,
                 "SHA-256: EVP_DigestFinal_ex failed");
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < len; ++i) {
    out += kHex[md[i] >> 4];
    out += kHex[md[i] & 15];
  }
  return out;
}

std::string sha256_hex(std::string_view text) {
  Sha256 h;
  h.update(text);
  return h.hex_digest();
}

std::string sha256_file_hex(const std::string& path) {
  Sha256 h;
  h.update_file(path);
  return h.hex_digest();
}

std::string git_blob_sha1_file_hex(const std::string& path) {
  Sha256 h = Sha256::sha1();
  const std::string header = fmt::format("blob {}", std::filesystem::file_size(path));
  h.update(std::string_view(header.data(), header.size() + 1));  // with the NUL
  h.update_file(path);
  return h.hex_digest();
}

bool is_lower_hex(const std::string& s, size_t length) {
  if (s.size() != length) return false;
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

}  // namespace wnn
