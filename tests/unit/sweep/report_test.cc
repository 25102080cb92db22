#include "wnn/sweep/report.h"

#include <gtest/gtest.h>

#include "wnn/core/error.h"
#include "wnn/sweep/progress.h"

namespace wnn::sweep {
namespace {
using nlohmann::json;

EntryResult entry(size_t index, const std::string& id, const std::string& expect) {
  EntryResult r;
  r.index = index;
  r.id = id;
  r.source = "path:/m/" + id + ".onnx";
  r.expect = expect;
  r.expect_pass = expect == "pass";
  r.seconds = 0.3 * double(index + 1);
  return r;
}

size_t count(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

// Manifest order: a pass, a numerical failure, an expected conversion failure, a crash, an
// unexpected pass, another unsupported-op failure of the same op and a download failure.
SweepReport sample() {
  SweepReport rep;
  rep.manifest = "zoo.json";
  rep.weights = "real";
  rep.selection = "all";
  rep.shard = "1/1";
  rep.manifest_entries = 7;
  EntryResult a = entry(0, "alpha", "pass");
  classify_validate_report(a, json{{"status", "pass"}, {"stage", nullptr}});
  EntryResult b = entry(1, "beta", "pass");
  classify_validate_report(
      b, json{{"status", "fail"},
              {"stage", "numerical"},
              {"message", "1 output differs"},
              {"outputs", json::array({json{{"name", "logits"}, {"pass", true}, {"max_abs", 1e-6}},
                                       json{{"name", "pooled <x>"},
                                            {"pass", false},
                                            {"max_abs", 0.0312},
                                            {"failing", 17}}})}});
  EntryResult c = entry(2, "gamma", "fail:needs Loop");
  classify_validate_report(
      c, json{{"status", "fail"},
              {"stage", "conversion"},
              {"message", "1 unsupported node(s)"},
              {"unsupported",
               json::array(
                   {json{{"node", "n"}, {"op_type", "Loop"}, {"domain", ""}, {"opset", 17}}})}});
  EntryResult d = entry(3, "delta", "pass");
  mark_failed(d, "crash", "killed by signal 6 (Aborted)");
  EntryResult e = entry(4, "epsilon", "fail:ORT rejects it");
  classify_validate_report(e, json{{"status", "pass"}});
  EntryResult f = entry(5, "zeta", "pass");
  classify_validate_report(
      f,
      json{{"status", "fail"},
           {"stage", "conversion"},
           {"message", "2 unsupported node(s)"},
           {"unsupported", json::array({json{{"op_type", "Attention"}, {"domain", "com.microsoft"}},
                                        json{{"op_type", "Loop"}, {"domain", ""}}})}});
  EntryResult g = entry(6, "eta", "pass");
  mark_failed(g, "download", "org/x/m.onnx: HTTP 401 from http://h\nsecond line");
  rep.entries = {a, b, c, d, e, f, g};
  return rep;
}

TEST(Classify, OutcomesAgainstExpectations) {
  const SweepReport r = sample();
  EXPECT_EQ(r.entries[0].outcome(), Outcome::kPass);
  EXPECT_EQ(r.entries[1].outcome(), Outcome::kFail);
  EXPECT_EQ(r.entries[2].outcome(), Outcome::kExpectedFail);
  EXPECT_EQ(r.entries[4].outcome(), Outcome::kUnexpectedPass);
  EXPECT_TRUE(r.is_red());
  EXPECT_EQ(r.entries[1].stage, "numerical");
  EXPECT_EQ(r.entries[1].message, "output 'pooled <x>': max error 0.0312 (17 elements off)");
  EXPECT_EQ(r.entries[2].blocker, "conversion: unsupported op Loop");
  EXPECT_EQ(r.entries[5].blocker, "conversion: unsupported op com.microsoft::Attention");
  EXPECT_EQ(r.entries[6].message, "org/x/m.onnx: HTTP 401 from http://h");  // one line
}

TEST(Classify, NumericalWithNullMetricsStillNamesTheOutput) {
  EntryResult r = entry(0, "a", "pass");
  classify_validate_report(
      r, json{{"status", "fail"},
              {"stage", "numerical"},
              {"outputs",
               json::array({json{
                   {"name", "y"}, {"pass", false}, {"max_abs", nullptr}, {"failing", nullptr}}})}});
  EXPECT_EQ(r.message, "output 'y': max error 0 (? elements off)");
  EXPECT_EQ(r.blocker, "numerical");
}

TEST(Classify, ExpectedFailuresOnlyIsGreen) {
  SweepReport r = sample();
  r.entries = {r.entries[0], r.entries[2]};
  EXPECT_FALSE(r.is_red());
}

TEST(Classify, ConvertFailureNamesTheUnsupportedOp) {
  EntryResult r = entry(0, "a", "pass");
  classify_convert_failure(r, 2,
                           "wnn: error: m.onnx: 2 unsupported node(s); nothing was written:\n"
                           "  node 'mha': MultiHeadAttention (domain 'com.microsoft', opset 1): "
                           "no converter\n  node 'l': Loop (domain 'ai.onnx', opset 17): x");
  EXPECT_EQ(r.stage, "conversion");
  EXPECT_EQ(r.blocker, "conversion: unsupported op com.microsoft::MultiHeadAttention");
  EXPECT_EQ(r.message, "wnn: error: m.onnx: 2 unsupported node(s); nothing was written:");
  EntryResult other = entry(0, "b", "pass");
  classify_convert_failure(other, 2, "wnn: error: m.onnx: bad protobuf at byte 7");
  EXPECT_EQ(other.blocker, "conversion");
}

TEST(Summary, ListsInManifestOrderAndGroupsByFirstBlocker) {
  const std::string s = summary_text(sample());
  EXPECT_EQ(s.substr(0, s.find('\n')),
            "7 entries: 1 passed (14.3%), 5 failed (71.4%), 1 expected failures (14.3%)");
  EXPECT_NE(s.find("passed (1):\n  alpha\n"), std::string::npos) << s;
  EXPECT_NE(s.find("expected failures (1):\n  gamma [fail:needs Loop: conversion]\n"),
            std::string::npos)
      << s;
  const std::string groups =
      "failed (5), by first blocker:\n"
      "  numerical (1):\n    beta: output 'pooled <x>': max error 0.0312 (17 elements off)\n"
      "  crash (1):\n    delta: killed by signal 6 (Aborted)\n"
      "  unexpected pass (1):\n    epsilon: passed although the manifest expects fail:ORT "
      "rejects it\n"
      "  conversion: unsupported op com.microsoft::Attention (1):\n    zeta: 2 unsupported "
      "node(s)\n"
      "  download (1):\n    eta: org/x/m.onnx: HTTP 401 from http://h\n";
  EXPECT_NE(s.find(groups), std::string::npos) << s;
}

TEST(JsonReport, RoundTripsAndCounts) {
  const SweepReport rep = sample();
  const json j = to_json(rep);
  EXPECT_EQ(j["summary"]["entries"], 7);
  EXPECT_EQ(j["summary"]["passed"], 1);
  EXPECT_EQ(j["summary"]["failed"], 4);
  EXPECT_EQ(j["summary"]["expected_failures"], 1);
  EXPECT_EQ(j["summary"]["unexpected_passes"], 1);
  EXPECT_EQ(j["summary"]["passed_within_noise_floor"], 0);
  EXPECT_EQ(j["summary"]["red"], true);
  EXPECT_EQ(j["entries"][4]["outcome"], "unexpected-pass");
  EXPECT_EQ(j["entries"][0]["stage"], nullptr);
  EXPECT_EQ(j["entries"][1]["validate_report"]["outputs"][1]["failing"], 17);
  const SweepReport back = sweep_report_from_json(j, "r.json");
  EXPECT_EQ(to_json(back), j);
  EXPECT_THROW(sweep_report_from_json(json{{"entries", json::array()}}, "x.json"), Error);
}

TEST(JsonReport, MergeRestoresManifestOrderAndRejectsOverlap) {
  const SweepReport all = sample();
  SweepReport s1 = all, s2 = all;
  s1.shard = "1/2";
  s2.shard = "2/2";
  s1.entries.clear();
  s2.entries.clear();
  for (size_t i = 0; i < all.entries.size(); ++i) {
    (i % 2 == 0 ? s1 : s2).entries.push_back(all.entries[i]);
  }
  const SweepReport merged = merge_reports({{"b.json", s2}, {"a.json", s1}});
  ASSERT_EQ(merged.entries.size(), 7u);
  for (size_t i = 0; i < 7; ++i) EXPECT_EQ(merged.entries[i].id, all.entries[i].id);
  EXPECT_EQ(summary_text(merged), summary_text(all));
  try {
    merge_reports({{"a.json", s1}, {"c.json", s1}});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'alpha' is also in a.json"), std::string::npos);
  }
  SweepReport other = s2;
  other.manifest = "other.json";
  EXPECT_THROW(merge_reports({{"a.json", s1}, {"o.json", other}}), Error);
  other = s2;
  other.weights = "zeros";
  EXPECT_THROW(merge_reports({{"a.json", s1}, {"o.json", other}}), Error);
}

TEST(JUnit, OneTestcasePerEntryWithFailuresAndSkips) {
  const std::string x = junit_xml(sample());
  EXPECT_EQ(count(x, "<testcase "), 7u);
  EXPECT_NE(x.find("<testsuites name=\"wnn validate-models\" tests=\"7\" failures=\"5\" "
                   "skipped=\"1\" time=\"8.400\">"),
            std::string::npos)
      << x;
  EXPECT_EQ(count(x, "<failure "), 5u);
  EXPECT_EQ(count(x, "<skipped "), 1u);
  EXPECT_NE(
      x.find("<failure type=\"numerical\" message=\"output &apos;pooled &lt;x&gt;&apos;: max error "
             "0.0312 (17 elements off)\">"),
      std::string::npos)
      << x;
  EXPECT_NE(x.find("<failure type=\"unexpected-pass\""), std::string::npos);
  EXPECT_NE(x.find("<testcase classname=\"validate-models\" name=\"alpha\" time=\"0.300\"/>"),
            std::string::npos);
}

TEST(NoiseFloor, PassesThatReliedOnTheFloorAreMarkedEverywhere) {
  SweepReport rep = sample();
  EntryResult& a = rep.entries[0];
  classify_validate_report(
      a, json{{"status", "pass"},
              {"stage", nullptr},
              {"noise_floor", {{"measured", true}, {"within_floor", {"offsets", "s<1>"}}}}});
  EXPECT_EQ(a.within_noise_floor, (std::vector<std::string>{"offsets", "s<1>"}));
  EXPECT_EQ(noise_floor_note(a), "within the reference's noise floor: offsets, s<1>");
  const std::string s = summary_text(rep);
  EXPECT_EQ(s.substr(0, s.find('\n')),
            "7 entries: 1 passed (14.3%, 1 within the reference's noise floor), 5 failed (71.4%), "
            "1 expected failures (14.3%)");
  EXPECT_NE(s.find("  alpha [within the reference's noise floor: offsets, s<1>]\n"),
            std::string::npos)
      << s;
  EXPECT_EQ(Progress::line(1, 7, a),
            "[1/7] PASS alpha (0.3 s) (within the reference's noise floor: offsets, s<1>)");
  const json j = to_json(rep);
  EXPECT_EQ(j["summary"]["passed_within_noise_floor"], 1);
  EXPECT_EQ(j["entries"][0]["within_noise_floor"], (std::vector<std::string>{"offsets", "s<1>"}));
  EXPECT_EQ(to_json(sweep_report_from_json(j, "r.json")), j);
  const std::string x = junit_xml(rep);
  EXPECT_NE(x.find("<testcase classname=\"validate-models\" name=\"alpha\" time=\"0.300\">\n"
                   "      <properties><property name=\"within_noise_floor\" "
                   "value=\"offsets,s&lt;1&gt;\"/></properties>\n"
                   "      <system-out>within the reference&apos;s noise floor: offsets, "
                   "s&lt;1&gt;</system-out>\n    </testcase>"),
            std::string::npos)
      << x;
  // A failure never carries the note, whatever its report lists.
  EntryResult& b = rep.entries[1];
  b.within_noise_floor = {"logits"};
  EXPECT_EQ(noise_floor_note(b), "");
}

TEST(Progress, BarAndLines) {
  EXPECT_EQ(Progress::bar(3, 10, 2, 1, 0, 6.0),
            "[#########.....................] 3/10  pass 2  fail 1  ETA 14s");
  EXPECT_EQ(Progress::bar(2, 4, 0, 0, 2, 40.0),
            "[###############...............] 2/4  pass 0  fail 0  xfail 2  ETA 40s");
  EXPECT_EQ(Progress::bar(1, 4, 1, 0, 0, 40.0),
            "[#######.......................] 1/4  pass 1  fail 0  ETA 2m00s");
  EXPECT_EQ(Progress::bar(0, 0, 0, 0, 0, 0.0).substr(0, 32), "[##############################]");
  const SweepReport rep = sample();
  EXPECT_EQ(Progress::line(2, 7, rep.entries[1]),
            "[2/7] FAIL beta (0.6 s): numerical: output 'pooled <x>': max error 0.0312 (17 "
            "elements off)");
  EXPECT_EQ(Progress::line(1, 7, rep.entries[0]), "[1/7] PASS alpha (0.3 s)");
  EXPECT_EQ(Progress::line(3, 7, rep.entries[2]).substr(0, 17), "[3/7] XFAIL gamma");
  EXPECT_EQ(Progress::line(5, 7, rep.entries[4]), "[5/7] XPASS epsilon (1.5 s)");
}

}  // namespace
}  // namespace wnn::sweep
