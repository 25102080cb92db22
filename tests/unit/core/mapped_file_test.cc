// MappedFile on paths that are not plain files: errors, never a hang.
#include "wnn/core/mapped_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "wnn/core/error.h"

namespace wnn {
namespace {

std::string error_of(const std::string& path) {
  try {
    MappedFile::open(path);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(MappedFile, FifoIsRejectedWithoutBlocking) {
  const std::string dir =
      std::filesystem::temp_directory_path() / ("wnn_mapped_fifo_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string fifo = dir + "/weights.safetensors";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // Without O_NONBLOCK, open() would wait for a writer that never comes.
  EXPECT_NE(error_of(fifo).find("not a regular file"), std::string::npos) << error_of(fifo);
  EXPECT_NE(error_of(dir).find("not a regular file"), std::string::npos) << error_of(dir);
  std::filesystem::remove_all(dir);
}

TEST(MappedFile, EmptyFileMapsToNoBytesAndSlicesStayInside) {
  const std::string path =
      std::filesystem::temp_directory_path() / ("wnn_mapped_empty_" + std::to_string(::getpid()));
  {
    FILE* f = std::fopen(path.c_str(), "wb");
    std::fclose(f);
  }
  const auto file = MappedFile::open(path);
  EXPECT_EQ(file->size(), 0u);
  EXPECT_EQ(file->slice(0, 0).size(), 0u);
  EXPECT_THROW(file->slice(0, 1), Error);
  EXPECT_THROW(file->slice(1, 0), Error);
  std::filesystem::remove(path);
}

TEST(MappedFile, OneMappingPerFileWhileAlive) {
  const std::string dir =
      std::filesystem::temp_directory_path() / ("wnn_mapped_share_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/w.safetensors";
  const auto write = [&](const std::string& text) {
    const std::string tmp = path + ".tmp";
    FILE* f = std::fopen(tmp.c_str(), "wb");
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
    std::filesystem::rename(tmp, path);  // a new inode, as atomic writes make
  };
  write("abcdef");
  auto a = MappedFile::open(path);
  auto b = MappedFile::open(path);
  EXPECT_EQ(a.get(), b.get());
  EXPECT_EQ(a.use_count(), 2);
  // Another path to the same inode maps on its own (its messages name its own path).
  const std::string link = dir + "/link.safetensors";
  std::filesystem::create_hard_link(path, link);
  auto c = MappedFile::open(link);
  EXPECT_NE(c.get(), a.get());
  EXPECT_EQ(c->path(), link);
  // A rewritten file is a new mapping with the new bytes; the old one still views the old.
  write("XYZ");
  auto d = MappedFile::open(path);
  EXPECT_NE(d.get(), a.get());
  ASSERT_EQ(d->size(), 3u);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(d->data()), 3), "XYZ");
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(a->data()), 6), "abcdef");
  // Released, then opened again: the table hands out no dead mapping.
  d.reset();
  auto e = MappedFile::open(path);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(e->data()), 3), "XYZ");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace wnn
