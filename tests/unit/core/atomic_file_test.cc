#include "wnn/core/atomic_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "wnn/core/error.h"

namespace wnn {
namespace {

TEST(AtomicFile, WritesReplacesAndLeavesNoTemporary) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("wnn_atomic_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "f.txt").string();
  write_file_atomic(path, "first\n");
  EXPECT_EQ(read_file(path), "first\n");
  ::chmod(path.c_str(), 0640);
  const std::string binary("a\0b\xff", 4);
  write_file_atomic(path, binary);
  EXPECT_EQ(read_file(path), binary);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);  // the replaced file's mode is kept
  write_file_atomic(path, "");
  EXPECT_EQ(read_file(path), "");
  size_t entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++entries;
  EXPECT_EQ(entries, 1u);
  std::filesystem::remove_all(dir);
}

TEST(AtomicFile, ErrorsNameThePath) {
  try {
    write_file_atomic("/nonexistent_dir_wnn/x.webnn", "x");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent_dir_wnn/x.webnn"), std::string::npos);
  }
  try {
    read_file("/nonexistent_dir_wnn/y.webnn");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot open '/nonexistent_dir_wnn/y.webnn'"),
              std::string::npos);
  }
}

}  // namespace
}  // namespace wnn
