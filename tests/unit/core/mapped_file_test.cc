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

}  // namespace
}  // namespace wnn
