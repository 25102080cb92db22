// `wnn convert` end to end on an If model: a pinned input inlines the If and prunes the input
// only the other branch read, with one warning naming it and nothing else on stderr when it is
// not a TTY (no progress line); `wnn onnx-ops` says If converts when its condition is constant.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "test_util.h"

namespace wnn::onnx {
namespace {

namespace fs = std::filesystem;

std::string run(const std::string& command, int* status) {
  return wnn::onnx::testing::run_command(command, status);
}

std::string slurp(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

TEST(ConvertCommand, PinnedIfPrunesTheOtherBranchsInputWithOneWarningAndNoProgress) {
  const fs::path models = testing::generate_models("make_if_models.py", "wnn_convert_if");
  const fs::path out = models / "converted";
  const fs::path err = models / "stderr.txt";
  int status = 0;
  const std::string stdout_text =
      run(std::string(WNN_BINARY) + " convert " + (models / "outer_captures/model.onnx").string() +
              " --pin-input mode=2 -o " + out.string() + " 2>" + err.string(),
          &status);
  EXPECT_EQ(WEXITSTATUS(status), 0) << slurp(err);
  EXPECT_NE(stdout_text.find("3 ONNX nodes ->"), std::string::npos) << stdout_text;
  const std::string e = slurp(err);
  EXPECT_EQ(e,
            "wnn: warning: graph input(s) 'b' are read by nothing after pinning and folding: "
            "removed from the converted graph\n");
  const std::string graph = slurp(out / "model.webnn");
  EXPECT_EQ(graph.find(" b:"), std::string::npos) << graph;
  EXPECT_NE(graph.find("choose/then/tmp$1"), std::string::npos) << graph;
  fs::remove_all(models);
}

TEST(ConvertCommand, OnnxOpsSaysHowIfConvertsWithAConstantAndARunTimeCondition) {
  int status = 0;
  const std::string out = run(std::string(WNN_BINARY) + " onnx-ops", &status);
  EXPECT_EQ(WEXITSTATUS(status), 0);
  const auto line_start = out.find(" If ");
  ASSERT_NE(line_start, std::string::npos) << out;
  const std::string line = out.substr(line_start, out.find('\n', line_start) - line_start);
  EXPECT_NE(line.find("folded"), std::string::npos) << line;
  EXPECT_NE(line.find("a constant condition"), std::string::npos) << line;
  EXPECT_NE(line.find("selects each output with where"), std::string::npos) << line;
}

}  // namespace
}  // namespace wnn::onnx
