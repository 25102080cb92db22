// The graph commands as a user runs them: exit codes, stdout and files written.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include <nlohmann/json.hpp>
#include "format_test_util.h"

#include "wnn/core/atomic_file.h"

namespace wnn::format {
namespace {

struct CommandResult {
  int code;
  std::string out;
};

CommandResult run(const std::string& args) {
  const std::string cmd = std::string(WNN_BINARY) + " " + args + " 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int status = ::pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

class CliTest : public testing::TempDirTest {};

const char* const kMessy = R"(// written by hand
webnn_graph "g" v1 {
  nodes { [y] = softmax(x, axis=0); }
  inputs { x: f32[2, 3]; }
  outputs { y }
}
)";

TEST_F(CliTest, FmtPrintsChecksAndRewrites) {
  write_file_atomic(path("g.webnn"), kMessy);
  const CommandResult printed = run("fmt " + path("g.webnn"));
  EXPECT_EQ(printed.code, 0);
  EXPECT_EQ(printed.out,
            "webnn_graph \"g\" v1 {\n  inputs {\n    x: f32[2, 3];\n  }\n  nodes {\n"
            "    y = softmax(x, axis=0);\n  }\n  outputs {\n    y;\n  }\n}\n");
  const CommandResult not_canonical = run("fmt --check " + path("g.webnn"));
  EXPECT_EQ(not_canonical.code, 1);
  EXPECT_NE(not_canonical.out.find("not in canonical form"), std::string::npos);
  EXPECT_EQ(read_file(path("g.webnn")), kMessy);  // --check never writes
  EXPECT_EQ(run("fmt -i " + path("g.webnn")).code, 0);
  EXPECT_EQ(read_file(path("g.webnn")), printed.out);
  EXPECT_EQ(run("fmt --check " + path("g.webnn")).code, 0);
}

TEST_F(CliTest, CheckReportsOkOrTheErrorWithLocation) {
  write_file_atomic(path("g.webnn"), kMessy);
  const CommandResult ok = run("check " + path("g.webnn"));
  EXPECT_EQ(ok.code, 0) << ok.out;
  EXPECT_EQ(ok.out.rfind("OK ", 0), 0u) << ok.out;
  write_file_atomic(path("bad.webnn"), testing::with_nodes("    y = reshape(x, [6]);"));
  const CommandResult bad = run("check " + path("bad.webnn"));
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.out.find("wnn: error: " + path("bad.webnn") + ":7:20"), std::string::npos)
      << bad.out;
  EXPECT_NE(bad.out.find("newShape=[6]"), std::string::npos) << bad.out;
  EXPECT_EQ(run("check").code, 2);
}

TEST_F(CliTest, ConvertBetweenTextAndJson) {
  write_file_atomic(path("g.webnn"), kMessy);
  EXPECT_EQ(run("convert " + path("g.webnn") + " -o " + path("g.json")).code, 0);
  EXPECT_EQ(read_file(path("g.json")).front(), '{');
  EXPECT_EQ(run("convert " + path("g.json") + " -o " + path("back.webnn")).code, 0);
  EXPECT_EQ(read_file(path("back.webnn")), run("fmt " + path("g.webnn")).out);
  const CommandResult unknown = run("convert " + path("g.webnn") + " -o " + path("g.onnx"));
  EXPECT_EQ(unknown.code, 2);
  EXPECT_NE(unknown.out.find("must end in .webnn or .json"), std::string::npos);
}

TEST_F(CliTest, ConvertJsonToTextMapsNamesTheTextFormCannotHold) {
  // Names as tf2onnx and PyTorch write them; JSON holds any string.
  write_file_atomic(path("g.json"), R"({"format": "webnn-graph-json", "version": 1, "name": "g",
    "inputs": {"input:0": {"dataType": "float32", "shape": [2]}},
    "consts": {},
    "nodes": [{"id": "/m/If/then//m/relu", "op": "relu", "inputs": ["input:0"], "options": {},
               "outputs": null},
              {"id": "\"y\"", "op": "neg", "inputs": ["/m/If/then//m/relu"], "options": {},
               "outputs": null}],
    "outputs": {"\"y\"": "\"y\""}})");
  const CommandResult json_check = run("check " + path("g.json"));
  EXPECT_EQ(json_check.code, 0) << json_check.out;
  const CommandResult converted = run("convert " + path("g.json") + " -o " + path("g.webnn"));
  EXPECT_EQ(converted.code, 0) << converted.out;
  EXPECT_NE(converted.out.find("renamed 3 operand(s)"), std::string::npos) << converted.out;
  const std::string text = read_file(path("g.webnn"));
  EXPECT_NE(text.find("input_0_"), std::string::npos) << text;
  EXPECT_NE(text.find("/m/If/then/_m/relu_"), std::string::npos) << text;
  EXPECT_EQ(text.find(':', text.find("input_0_")), text.find(": f32[2]")) << text;
  const CommandResult reloaded = run("check " + path("g.webnn"));
  EXPECT_EQ(reloaded.code, 0) << reloaded.out << text;
  // Converting the printed text back to JSON and again to text changes nothing.
  EXPECT_EQ(run("convert " + path("g.webnn") + " -o " + path("again.json")).code, 0);
  EXPECT_EQ(run("convert " + path("again.json") + " -o " + path("again.webnn")).code, 0);
  EXPECT_EQ(read_file(path("again.webnn")), text);
}

TEST_F(CliTest, GraphWithoutOutputsIsRefused) {
  write_file_atomic(path("none.webnn"),
                    "webnn_graph \"g\" v1 {\n  inputs { x: f32[2]; }\n  outputs { }\n}\n");
  write_file_atomic(path("none.json"), R"({"format": "webnn-graph-json", "version": 1,
    "name": "g", "inputs": {"x": {"dataType": "float32", "shape": [2]}}, "consts": {},
    "nodes": [], "outputs": {}})");
  for (const char* file : {"none.webnn", "none.json"}) {
    for (const std::string command : {"check ", "run ", "info "}) {
      const CommandResult r = run(command + path(file));
      EXPECT_EQ(r.code, 2) << command << file << ": " << r.out;
      EXPECT_NE(r.out.find("the graph has no outputs"), std::string::npos) << r.out;
    }
  }
}

TEST_F(CliTest, InfoSummarisesWithoutWeights) {
  const CommandResult text = run("info " + testing::fixture("all_ops.webnn") + " --json");
  // all_ops has @weights constants and no weights file beside it: info still works.
  EXPECT_EQ(text.code, 0) << text.out;
  const auto j = nlohmann::json::parse(text.out);
  EXPECT_EQ(j["nodes"], 95);
  EXPECT_EQ(j["ops"]["gru"], 1);
  EXPECT_EQ(j["inputs"][0]["type"], "float32[2, 3, 4, 5]");
  EXPECT_EQ(j["outputs"][1]["name"], "a_conv");
  EXPECT_EQ(j["outputs"][1]["type"], "float32[2, 6, 4, 5]");
  // Parameters: 6*3*3*3 + 3*2*3*3 + 6 + 3 + 3 + 5 + 6 + 6 + 60 + 75 + 60 + 75 + 15 + 15 + 80 +
  // 100 + 80 + 100 + 120 + 2 + 120 + 120 + 120.
  EXPECT_EQ(j["parameters"], 162 + 54 + 6 + 3 + 3 + 5 + 6 + 6 + 60 + 75 + 60 + 75 + 15 + 15 + 80 +
                                 100 + 80 + 100 + 120 + 2 + 120 + 120 + 120);
  EXPECT_TRUE(j["weights"].is_null());
}

TEST_F(CliTest, EveryGraphCommandHasHelp) {
  for (const char* cmd : {"check", "fmt", "info", "convert"}) {
    const CommandResult help = run(std::string(cmd) + " --help");
    EXPECT_EQ(help.code, 0);
    EXPECT_EQ(help.out.rfind(std::string("usage: wnn ") + cmd, 0), 0u) << help.out;
  }
}

}  // namespace
}  // namespace wnn::format
