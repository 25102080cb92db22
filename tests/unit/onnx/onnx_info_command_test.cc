// `wnn onnx-info` end to end, on a backend-suite model whose counts were computed with
// Debian's python3-onnx (10 nodes in test_loop11 including the Loop body).
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <string>

#include "test_util.h"

namespace {

std::string run(const std::string& command, int* status) {
  return wnn::onnx::testing::run_command(command, status);
}

TEST(OnnxInfoCommand, JsonCountsSubgraphNodesAndNamesInputs) {
  int status = 0;
  const std::string out = run(std::string(WNN_BINARY) +
                                  " onnx-info --json "
                                  "/usr/share/libonnx-testdata/data/node/test_loop11/model.onnx",
                              &status);
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_NE(out.find("\"nodes_including_subgraphs\": 10"), std::string::npos) << out;
  EXPECT_NE(out.find("\"type\": \"INT64[]\""), std::string::npos) << out;
  EXPECT_NE(out.find("\"op\": \"ai.onnx::Loop\""), std::string::npos) << out;
}

TEST(OnnxInfoCommand, GarbageFileExitsWithBadInput) {
  const std::string path = ::testing::TempDir() + "wnn_garbage.onnx";
  FILE* f = fopen(path.c_str(), "wb");
  fwrite("\x0e\x01", 1, 2, f);  // field 1 with the invalid wire type 6
  fclose(f);
  int status = 0;
  const std::string out = run(std::string(WNN_BINARY) + " onnx-info " + path + " 2>&1", &status);
  EXPECT_EQ(WEXITSTATUS(status), 2);
  EXPECT_NE(out.find("invalid wire type 6"), std::string::npos) << out;
  std::remove(path.c_str());
}

}  // namespace
