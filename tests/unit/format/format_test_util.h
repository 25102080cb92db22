// Helpers shared by the format tests: fixture paths, and running a parse expected to fail.
#pragma once

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <string>

#include "wnn/core/atomic_file.h"
#include "wnn/core/error.h"
#include "wnn/format/graph_file.h"

namespace wnn::format::testing {

inline std::string fixture(const std::string& name) {
  return std::string(WNN_SOURCE_DIR) + "/tests/fixtures/graphs/" + name;
}

// The full message of the wnn::Error that parsing `text` throws; fails the test if none.
inline std::string parse_error(const std::string& text, const std::string& file = "t.webnn") {
  try {
    parse_graph(text, file);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInvalidInput) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "expected a parse error for:\n" << text;
  return {};
}

// A one-node graph around `statement`, with inputs x: f32[2, 3] and w: f32[3, 4].
inline std::string with_nodes(const std::string& nodes, const std::string& outputs = "y") {
  return "webnn_graph \"t\" v1 {\n  inputs {\n    x: f32[2, 3];\n    w: f32[3, 4];\n  }\n"
         "  nodes {\n" +
         nodes + "\n  }\n  outputs { " + outputs + "; }\n}\n";
}

// A fresh directory per test, removed afterwards.
class TempDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("wnn_format_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::filesystem::path dir_;
};

}  // namespace wnn::format::testing
