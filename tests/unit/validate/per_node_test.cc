// `wnn validate --per-node` end to end: ONNX Runtime on a copy with extra outputs, wnn on the
// graph with the same operands marked, batches, skipped values, the cache and external data.
#include "wnn/validate/per_node.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>

#include "test_env.h"
#include "wnn/core/atomic_file.h"
#include "wnn/validate/report.h"
#include "wnn/validate/validate.h"

namespace wnn::validate {
namespace {

using testing::kFixtures;
using testing::ScopedEnv;
using testing::ScratchDir;

ValidateOptions per_node_options(const std::string& backend = "ref") {
  ValidateOptions o;
  o.session.backend = backend;
  o.session.warn_fallback = false;
  o.per_node.enabled = true;
  return o;
}

std::map<std::string, const NodeRecord*> by_value(const PerNodeReport& r) {
  std::map<std::string, const NodeRecord*> m;
  for (const auto& n : r.nodes) m[n.value] = &n;
  return m;
}

// Every value of per_node_chain.onnx, in topological order, and the folded ones.
const std::vector<std::string> kChainValues = {"shifted", "selu",    "a",       "a_relu", "b",
                                               "b_sig",   "c",       "x_shape", "batch",  "target",
                                               "y",       "x_again", "two",     "x2",     "unused"};
const std::vector<std::string> kFolded = {"x_shape", "batch", "target", "two"};

TEST(PerNode, AMatchingConversionPassesAtEveryNodeAndListsFoldedValues) {
  const Report r = validate_onnx_model(kFixtures + "per_node_chain.onnx", per_node_options());
  ASSERT_TRUE(r.pass) << r.stage << ": " << r.message;
  ASSERT_TRUE(r.per_node.has_value());
  const PerNodeReport& p = *r.per_node;
  EXPECT_TRUE(p.error.empty()) << p.error;
  std::vector<std::string> values;
  for (const auto& n : p.nodes) values.push_back(n.value);
  EXPECT_EQ(values, kChainValues);
  EXPECT_EQ(p.compared, kChainValues.size() - kFolded.size());
  EXPECT_EQ(p.skipped, kFolded.size());
  EXPECT_EQ(p.failing, 0u);
  EXPECT_FALSE(p.first_divergent.has_value());
  const auto m = by_value(p);
  for (const auto& v : kFolded) {
    EXPECT_EQ(m.at(v)->skipped, "folded to a constant at conversion") << v;
  }
  const NodeRecord& selu = *m.at("selu");
  EXPECT_EQ(selu.node, "selu");
  EXPECT_EQ(selu.op_type, "Selu");
  EXPECT_TRUE(selu.compared());
  EXPECT_TRUE(selu.pass);
  EXPECT_EQ(m.at("a")->inputs, (std::vector<std::string>{"selu", "wa", "ba"}));
  EXPECT_EQ(m.at("a")->shape, (Shape{1, 6, 12, 12}));
  EXPECT_GT(m.at("unused")->metrics.elements, 0);  // a dead end is still a value of both
  // Skipped values are named in the summary with their reason, never dropped silently.
  const std::string s = report_summary(r);
  EXPECT_NE(s.find("skipped 4: folded to a constant at conversion: x_shape, batch, target, two"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("every compared value is within tolerance"), std::string::npos) << s;
}

TEST(PerNode, TheFaultyNodeIsTheFirstDivergentAndOnlyItsDescendantsDiverge) {
  ScopedEnv fault("WNN_VALIDATE_TEST_FAULT", "transpose-filter@b");
  const Report r = validate_onnx_model(kFixtures + "per_node_chain.onnx", per_node_options());
  EXPECT_FALSE(r.pass);
  EXPECT_EQ(r.stage, "numerical");
  ASSERT_TRUE(r.per_node.has_value());
  const PerNodeReport& p = *r.per_node;
  ASSERT_TRUE(p.first_divergent.has_value());
  const NodeRecord& first = p.nodes[*p.first_divergent];
  EXPECT_EQ(first.value, "b");
  EXPECT_EQ(first.node, "conv_b");
  EXPECT_EQ(first.op_type, "Conv");
  EXPECT_GT(first.metrics.max_normalized, 100);
  const auto m = by_value(p);
  for (const char* before : {"shifted", "selu", "a", "a_relu"}) {
    EXPECT_TRUE(m.at(before)->pass) << before;
  }
  for (const char* after : {"b", "b_sig", "c", "y"}) EXPECT_FALSE(m.at(after)->pass) << after;
  // The other branches do not read conv_b.
  for (const char* other : {"x_again", "x2", "unused"}) EXPECT_TRUE(m.at(other)->pass) << other;
  EXPECT_EQ(p.failing, 4u);
  ASSERT_FALSE(p.worst.empty());
  EXPECT_FALSE(p.nodes[p.worst.front()].pass);

  const auto j = report_json(r)["per_node"];
  EXPECT_EQ(j["first_divergent"]["onnx_node"], "conv_b");
  EXPECT_EQ(j["first_divergent"]["value"], "b");
  EXPECT_EQ(j["compared"], p.compared);
  const auto& b = j["nodes"][4];
  EXPECT_EQ(b["value"], "b");
  EXPECT_EQ(b["pass"], false);
  EXPECT_EQ(b["shape"], (std::vector<int64_t>{1, 6, 12, 12}));
  EXPECT_EQ(b["inputs"], (std::vector<std::string>{"a_relu", "wb", "bb"}));
  EXPECT_TRUE(j["nodes"][7]["pass"].is_null());  // x_shape: skipped
  EXPECT_EQ(j["nodes"][7]["skipped"], "folded to a constant at conversion");
  const std::string s = report_summary(r);
  EXPECT_NE(s.find("first divergent: 'conv_b' (Conv) -> b float32[1, 6, 12, 12]"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("inputs: a_relu, wb, bb"), std::string::npos) << s;
}

TEST(PerNode, SmallBatchesGiveTheSameAnswers) {
  ScopedEnv fault("WNN_VALIDATE_TEST_FAULT", "pad-off-by-one@a");
  const Report whole = validate_onnx_model(kFixtures + "per_node_chain.onnx", per_node_options());
  ValidateOptions tiny = per_node_options();
  tiny.per_node.memory_budget = 16 << 10;  // two 3456-byte values per batch and side
  const Report split = validate_onnx_model(kFixtures + "per_node_chain.onnx", tiny);
  ASSERT_TRUE(whole.per_node && split.per_node);
  EXPECT_EQ(whole.per_node->batches, 1u);
  EXPECT_GE(split.per_node->batches, 4u);
  // Each batch's tensors fit half the budget (the other half is ORT's copies).
  std::map<size_t, uint64_t> bytes;
  for (const auto& n : split.per_node->nodes) {
    if (n.compared()) bytes[n.batch] += OperandDesc{n.dtype, n.shape}.byte_size();
  }
  EXPECT_EQ(bytes.size(), split.per_node->batches);
  for (const auto& [batch, b] : bytes) EXPECT_LE(b, 8u << 10) << "batch " << batch;
  ASSERT_EQ(whole.per_node->nodes.size(), split.per_node->nodes.size());
  for (size_t i = 0; i < whole.per_node->nodes.size(); ++i) {
    const NodeRecord &w = whole.per_node->nodes[i], &s = split.per_node->nodes[i];
    EXPECT_EQ(w.pass, s.pass) << w.value;
    EXPECT_EQ(w.metrics.max_abs, s.metrics.max_abs) << w.value;
  }
  ASSERT_TRUE(split.per_node->first_divergent.has_value());
  EXPECT_EQ(split.per_node->nodes[*split.per_node->first_divergent].value, "a");
}

TEST(PerNode, MarkedOutputsKeepFusedDelegateResultsRight) {
  // On the delegates conv_a's Relu runs as a post-op of the convolution; marking the
  // pre-activation value `a` as an output must give its real (negative) values, not the fused
  // result.
  const Report r = validate_onnx_model(kFixtures + "per_node_chain.onnx", per_node_options("auto"));
  ASSERT_TRUE(r.pass) << r.message;
  ASSERT_TRUE(r.per_node.has_value());
  EXPECT_EQ(r.per_node->failing, 0u);
  const auto m = by_value(*r.per_node);
  EXPECT_TRUE(m.at("a")->pass);
  EXPECT_TRUE(m.at("a")->has_metrics());
}

TEST(PerNode, ExternalDataIsFoundFromTheCopy) {
  const Report r = validate_onnx_model(kFixtures + "per_node_external.onnx", per_node_options());
  ASSERT_TRUE(r.pass) << r.stage << ": " << r.message;
  ASSERT_TRUE(r.per_node.has_value());
  EXPECT_TRUE(r.per_node->error.empty()) << r.per_node->error;
  EXPECT_EQ(r.per_node->compared, kChainValues.size() - kFolded.size());
  EXPECT_EQ(r.per_node->failing, 0u);
}

TEST(PerNode, TheCacheEntryCarriesTheValueMap) {
  ScratchDir dir;
  ScopedEnv root("WNN_CACHE_DIR", dir.path());
  ScopedEnv fault("WNN_VALIDATE_TEST_FAULT", "transpose-filter@b");
  ValidateOptions o = per_node_options();
  o.storage = Storage::kCache;
  const Report built = validate_onnx_model(kFixtures + "per_node_chain.onnx", o);
  o.storage = Storage::kCachedOnly;
  const Report cached = validate_onnx_model(kFixtures + "per_node_chain.onnx", o);
  ASSERT_TRUE(built.per_node && cached.per_node);
  EXPECT_NE(cached.cache_note.find("used cache entry"), std::string::npos) << cached.cache_note;
  EXPECT_EQ(cached.per_node->compared, kChainValues.size() - kFolded.size());
  ASSERT_TRUE(cached.per_node->first_divergent.has_value());
  EXPECT_EQ(cached.per_node->nodes[*cached.per_node->first_divergent].value, "b");
}

TEST(PerNode, ANoiseFloorDoesNotHideAFaultInTheMiddle) {
  // ill_conditioned.onnx has a non-zero noise floor; epsilon dropped from the fourth
  // BatchNormalization: everything before it passes, it is the first divergent.
  ScopedEnv fault("WNN_VALIDATE_TEST_FAULT", "drop-epsilon@bn3");
  const Report r = validate_onnx_model(kFixtures + "ill_conditioned.onnx", per_node_options());
  EXPECT_FALSE(r.pass);
  ASSERT_TRUE(r.per_node.has_value());
  const PerNodeReport& p = *r.per_node;
  ASSERT_TRUE(p.first_divergent.has_value());
  EXPECT_EQ(p.nodes[*p.first_divergent].value, "bn3");
  EXPECT_GE(p.noise_floor_batches, 1u);
  const auto m = by_value(p);
  for (const char* before : {"conv0", "bn0", "relu0", "conv2", "bn2", "relu2", "conv3"}) {
    EXPECT_TRUE(m.at(before)->pass) << before;
  }
  ASSERT_TRUE(m.at("bn3")->floor.has_value());
  EXPECT_GT(m.at("bn3")->metrics.max_abs, 100 * kNoiseFloorFactor * m.at("bn3")->floor->value);
}

TEST(PerNode, NotRequestedMeansNoSection) {
  ValidateOptions o = per_node_options();
  o.per_node.enabled = false;
  const Report r = validate_onnx_model(kFixtures + "per_node_chain.onnx", o);
  EXPECT_FALSE(r.per_node.has_value());
  EXPECT_TRUE(report_json(r)["per_node"].is_null());
}

// Runs `wnn ARGS` through the shell; returns (exit code, stdout + stderr).
std::pair<int, std::string> wnn_cli(const std::string& args) {
  ScratchDir dir;
  const std::string cmd = fmt::format("'{}' {} > '{}/out' 2>&1", WNN_BINARY, args, dir.path());
  const int status = std::system(cmd.c_str());
  return {WEXITSTATUS(status), read_file(dir / "out")};
}

TEST(PerNodeCli, FlagsHelpAndExitCodes) {
  const auto [help_rc, help] = wnn_cli("validate --help");
  EXPECT_EQ(help_rc, 0);
  for (const char* flag : {"--noise-floor MODE", "--per-node ", "--per-node-memory MB"}) {
    EXPECT_NE(help.find(flag), std::string::npos) << flag;
  }
  // The help states k; it must be the k the comparison uses.
  EXPECT_NE(help.find(fmt::format("passes within {:g}x", kNoiseFloorFactor)), std::string::npos)
      << help;
  const std::string chain = kFixtures + "per_node_chain.onnx";
  const auto [bad_rc, bad] = wnn_cli("validate " + chain + " --noise-floor sometimes");
  EXPECT_EQ(bad_rc, 2);
  EXPECT_NE(bad.find("--noise-floor must be auto, always or off, got 'sometimes'"),
            std::string::npos)
      << bad;
  const auto [alone_rc, alone] = wnn_cli("validate " + chain + " --per-node-memory 64");
  EXPECT_EQ(alone_rc, 2);
  EXPECT_NE(alone.find("--per-node-memory needs --per-node"), std::string::npos) << alone;
  ScratchDir dir;
  const auto [rc, out] =
      wnn_cli("validate " + chain + " --backend ref --per-node --per-node-memory 1 --report '" +
              (dir / "r.json") + "'");
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("every compared value is within tolerance"), std::string::npos) << out;
  const auto j = nlohmann::json::parse(read_file(dir / "r.json"));
  EXPECT_EQ(j["per_node"]["memory_budget_mb"], 1.0);
  EXPECT_EQ(j["per_node"]["failing"], 0);
}

}  // namespace
}  // namespace wnn::validate
