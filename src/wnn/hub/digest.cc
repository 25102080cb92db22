#include "wnn/hub/digest.h"

#include <openssl/evp.h>

#include <cstdio>
#include <memory>
#include <vector>

#include "wnn/core/error.h"

namespace wnn::hub {
namespace {

using DigestContext = std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)>;

DigestContext start(const EVP_MD* md) {
  DigestContext ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  check_internal(ctx && EVP_DigestInit_ex(ctx.get(), md, nullptr) == 1,
                 "cannot initialise a message digest");
  return ctx;
}

std::string finish(EVP_MD_CTX* ctx) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  check_internal(EVP_DigestFinal_ex(ctx, out, &n) == 1, "cannot finish a message digest");
  std::string hex;
  for (unsigned i = 0; i < n; ++i) hex += fmt::format("{:02x}", out[i]);
  return hex;
}

void update_with_file(EVP_MD_CTX* ctx, const std::filesystem::path& path) {
  std::unique_ptr<FILE, decltype(&std::fclose)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  check(f != nullptr, "{}: cannot open to verify its digest", path.string());
  std::vector<char> block(size_t(1) << 20);
  size_t n = 0;
  while ((n = std::fread(block.data(), 1, block.size(), f.get())) > 0) {
    EVP_DigestUpdate(ctx, block.data(), n);
  }
  check(!std::ferror(f.get()), "{}: read error while verifying its digest", path.string());
}

}  // namespace

std::string sha256_file(const std::filesystem::path& path) {
  auto ctx = start(EVP_sha256());
  update_with_file(ctx.get(), path);
  return finish(ctx.get());
}

std::string git_blob_sha1_file(const std::filesystem::path& path) {
  auto ctx = start(EVP_sha1());
  const std::string header = fmt::format("blob {}", std::filesystem::file_size(path));
  EVP_DigestUpdate(ctx.get(), header.data(), header.size() + 1);  // with the NUL
  update_with_file(ctx.get(), path);
  return finish(ctx.get());
}

std::string sha256_text(const std::string& text) {
  auto ctx = start(EVP_sha256());
  EVP_DigestUpdate(ctx.get(), text.data(), text.size());
  return finish(ctx.get());
}

bool is_lower_hex(const std::string& s, size_t length) {
  if (s.size() != length) return false;
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

}  // namespace wnn::hub
