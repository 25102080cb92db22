#include "wnn/core/digest.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace wnn {
namespace {

std::filesystem::path write_temp(const std::string& bytes) {
  const auto p = std::filesystem::temp_directory_path() /
                 ("wnn_digest_test_" + std::to_string(std::hash<std::string>{}(bytes)));
  std::ofstream(p, std::ios::binary) << bytes;
  return p;
}

// Expected values from the reference tools: `printf abc | sha256sum` and
// `printf 'hello\n' | git hash-object --stdin`.
TEST(Digest, Sha256OfAFile) {
  const auto p = write_temp("abc");
  EXPECT_EQ(sha256_file_hex(p.string()),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  std::filesystem::remove(p);
}

TEST(Digest, GitBlobSha1OfAFile) {
  const auto p = write_temp("hello\n");
  EXPECT_EQ(git_blob_sha1_file_hex(p.string()), "ce013625030ba8dba906f756967f9e9ca394464a");
  std::filesystem::remove(p);
}

TEST(Digest, EmptyText) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(Digest, LowerHexCheck) {
  EXPECT_TRUE(is_lower_hex("0123456789abcdef", 16));
  EXPECT_FALSE(is_lower_hex("0123456789ABCDEF", 16));
  EXPECT_FALSE(is_lower_hex("012", 4));
}

}  // namespace
}  // namespace wnn
