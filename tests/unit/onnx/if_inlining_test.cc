// If nodes whose condition is known once inputs are pinned: the chosen branch replaces the If
// (make_if_models.py, expected outputs from numpy), captures resolve to outer values, branch
// names are scoped, unread inputs are pruned, and a run-time condition with an impure branch stays
// unsupported.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "test_util.h"
#include "wnn/onnx/external_data.h"
#include "wnn/onnx/import.h"
#include "wnn/runtime/session.h"

namespace wnn::onnx {
namespace {

namespace fs = std::filesystem;

const fs::path& models_dir() {
  static const fs::path dir = testing::generate_models("make_if_models.py", "wnn_if_models");
  return dir;
}

Tensor read_pb(const fs::path& p) {
  TensorProto t = load_tensor(p.string());
  TensorData d = tensor_data(t, ExternalDataResolver());
  return Tensor{d.dtype, d.shape, d.data};
}

std::vector<fs::path> files(const fs::path& dir, const std::string& prefix) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename().string().rfind(prefix, 0) == 0) out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Imports CASE with `pins`, runs it on CHOICE's inputs and compares with CHOICE's outputs.
ImportResult run_case(const std::string& name, const std::string& choice,
                      const std::map<std::string, std::string>& pins) {
  ImportOptions options;
  options.pin_inputs = pins;
  const fs::path dir = models_dir() / name;
  ImportResult r = import_model((dir / "model.onnx").string(), options);
  ImportResult kept;
  kept.inputs = r.inputs;
  kept.outputs = r.outputs;
  kept.pruned = r.pruned;
  kept.warnings = r.warnings;
  auto graph = std::make_shared<Graph>(std::move(r.graph));
  graph->bind_inline_constants();
  runtime::Session session(graph);
  std::vector<Tensor> inputs;
  std::vector<runtime::NamedView> views;
  for (const auto& p : files(dir / choice, "input_")) inputs.push_back(read_pb(p));
  const auto input_files = files(dir / choice, "input_");
  EXPECT_EQ(input_files.size(), kept.inputs.size()) << "inputs left after pinning and pruning";
  for (size_t i = 0; i < input_files.size(); ++i) {
    const std::string onnx_name = load_tensor(input_files[i].string()).name;
    for (const auto& [o, operand] : kept.inputs) {
      if (o == onnx_name) views.push_back({operand, inputs[i].view()});
    }
  }
  auto outputs = session.run(views);
  const auto expected = files(dir / choice, "output_");
  EXPECT_EQ(outputs.size(), expected.size());
  for (size_t i = 0; i < std::min(outputs.size(), expected.size()); ++i) {
    const Tensor want = read_pb(expected[i]);
    const Tensor& got = outputs[i].tensor;
    EXPECT_EQ(got.shape, want.shape) << name << "/" << choice << " output " << i;
    if (got.shape != want.shape) continue;
    for (int64_t k = 0; k < want.size(); ++k) {
      const double a = element_as_double(got.view(), k), e = element_as_double(want.view(), k);
      EXPECT_NEAR(a, e, 1e-5 + 1e-4 * std::abs(e)) << name << "/" << choice << " [" << k << "]";
    }
  }
  return kept;
}

TEST(IfInlining, PinnedInputPicksThenBranchAndPrunesTheElseOnlyInput) {
  ImportResult r = run_case("outer_captures", "then", {{"mode", "4"}});
  ASSERT_EQ(r.pruned.size(), 1u);
  EXPECT_EQ(r.pruned[0].first, "b");
  EXPECT_EQ(r.pruned[0].second.shape, Shape{3});
  bool warned = false;
  for (const auto& w : r.warnings) warned |= w.find("'b'") != std::string::npos;
  EXPECT_TRUE(warned);
  // The outer value named like the scoped branch value keeps its name: the branch's moved.
  bool kept = false;
  for (const auto& [o, operand] : r.outputs) kept |= o == operand && o == "choose/then/tmp";
  EXPECT_TRUE(kept);
}

TEST(IfInlining, PinnedZeroPicksElseBranchWithItsInitializerAndKeepsB) {
  ImportResult r = run_case("outer_captures", "else", {{"mode", "0"}});
  EXPECT_TRUE(r.pruned.empty());
  EXPECT_EQ(r.inputs.size(), 2u);
}

TEST(IfInlining, NestedIfsResolveCapturesOfTheEnclosingBranch) {
  run_case("nested", "then_then", {{"p1", "1"}, {"p2", "1"}});
  run_case("nested", "then_else", {{"p1", "1"}, {"p2", "0"}});
  // The inner If is never converted, so its runtime-only condition p2 does not matter.
  ImportResult r = run_case("nested", "else_then", {{"p1", "0"}, {"p2", "1"}});
  EXPECT_TRUE(r.pruned.empty());
}

TEST(IfInlining, NestedIfWithRuntimeInnerConditionSelectsBetweenBothBranches) {
  for (const char* choice : {"then_p2_true", "then_p2_false"}) {
    ImportResult r = run_case("nested", choice, {{"p1", "1"}});
    ASSERT_EQ(r.inputs.size(), 2u);
    EXPECT_EQ(r.inputs[1].first, "p2");
    ASSERT_EQ(r.warnings.size(), 1u);
    EXPECT_NE(r.warnings[0].find("the condition is only known at run time"), std::string::npos)
        << r.warnings[0];
    // inner then: Mul; inner else: Mul, Add (the Constant is a weight); plus the where.
    EXPECT_NE(r.warnings[0].find("4 ops added"), std::string::npos) << r.warnings[0];
    EXPECT_NE(r.warnings[0].find("(then: 1 ops, 0 FLOPs, 24 bytes written; else: 2 ops, 0 FLOPs, "
                                 "48 bytes written)"),
              std::string::npos)
        << r.warnings[0];
  }
}

TEST(PruneInputs, InputsReadByNothingOrOnlyByAFoldedShapeArePruned) {
  ImportResult r = run_case("unused_inputs", "default", {});
  ASSERT_EQ(r.pruned.size(), 2u);
  EXPECT_EQ(r.pruned[0].first, "u");
  EXPECT_EQ(r.pruned[0].second.shape, Shape{4});
  EXPECT_EQ(r.pruned[1].first, "v");
  EXPECT_EQ(r.pruned[1].second.shape, (Shape{3, 2}));
  ASSERT_EQ(r.inputs.size(), 1u);
  EXPECT_EQ(r.inputs[0].first, "x");
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("'u', 'v'"), std::string::npos) << r.warnings[0];
}

TEST(IfInlining, RuntimeConditionIfAndLoopAreReportedTogether) {
  try {
    import_model((models_dir() / "runtime_condition" / "model.onnx").string());
    FAIL() << "no error";
  } catch (const UnsupportedModelError& e) {
    ASSERT_EQ(e.nodes().size(), 2u);
    EXPECT_EQ(e.nodes()[0].name, "branchy");
    EXPECT_EQ(e.nodes()[0].op_type, "If");
    EXPECT_NE(e.nodes()[0].reason.find("only known at run time"), std::string::npos)
        << e.nodes()[0].reason;
    EXPECT_NE(e.nodes()[0].reason.find("the else branch is impure (RandomUniformLike 'noise'"),
              std::string::npos)
        << e.nodes()[0].reason;
    EXPECT_EQ(e.nodes()[0].category, "runtime control flow");
    EXPECT_EQ(e.nodes()[1].name, "loopy");
    EXPECT_EQ(e.nodes()[1].category, "runtime control flow");
  }
}

TEST(IfInlining, PinnedConditionOfRuntimeModelInlinesAndPrunesNothing) {
  // With flag pinned the If inlines its pure branch, but the Loop still runs on flag at run time:
  // unsupported.
  ImportOptions options;
  options.pin_inputs = {{"flag", "1"}};
  try {
    import_model((models_dir() / "runtime_condition" / "model.onnx").string(), options);
    FAIL() << "no error";
  } catch (const UnsupportedModelError& e) {
    ASSERT_EQ(e.nodes().size(), 1u);
    EXPECT_EQ(e.nodes()[0].op_type, "Loop");
  }
}

}  // namespace
}  // namespace wnn::onnx
