#include "wnn/sweep/manifest.h"

#include <gtest/gtest.h>

#include "wnn/core/error.h"

namespace wnn::sweep {
namespace {

std::string error_of(const std::string& text) {
  try {
    parse_manifest(text, "/m/sweep.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(Manifest, ParsesEveryField) {
  const Manifest m = parse_manifest(R"({"version": 1, "models": [
    {"id": "dec-prefill", "hf": {"repo": "org/dec", "revision": "v2", "file": "onnx/m.onnx",
     "sidecars": ["onnx/m.onnx_data"]}, "override_dims": {"seq": 7, "batch": 0},
     "pin_inputs": {"pos": [0, -1, 2], "flag": 0, "ids": "3,4"},
     "inputs": {"x": "data/x.npy"}, "tolerance": {"atol": 0.001, "rtol": 0},
     "heavy": true, "expect": "fail:Attention unsupported"},
    {"id": "dec-decode", "hf": {"repo": "org/dec", "file": "onnx/m.onnx"}},
    {"id": "local", "path": "models/a.onnx", "sha256":
     "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
    {"id": "web", "url": "https://example.org/b.onnx", "expect": "pass"}]})",
                                    "/m/sweep.json");
  ASSERT_EQ(m.models.size(), 4u);
  const auto& a = m.models[0];
  EXPECT_EQ(a.hf->repo, "org/dec");
  EXPECT_EQ(a.hf->revision, "v2");
  EXPECT_EQ(a.hf->sidecars, std::vector<std::string>{"onnx/m.onnx_data"});
  EXPECT_EQ(a.override_dims.at("seq"), 7);
  EXPECT_EQ(a.override_dims.at("batch"), 0);  // 0 is a value, not absent
  EXPECT_EQ(a.pin_inputs.at("pos"), "0,-1,2");
  EXPECT_EQ(a.pin_inputs.at("flag"), "0");
  EXPECT_EQ(a.pin_inputs.at("ids"), "3,4");
  EXPECT_EQ(a.inputs.at("x").string(), "/m/data/x.npy");
  EXPECT_DOUBLE_EQ(*a.atol, 0.001);
  EXPECT_DOUBLE_EQ(*a.rtol, 0.0);
  EXPECT_TRUE(a.heavy);
  EXPECT_FALSE(a.expect_pass);
  EXPECT_EQ(a.expect_reason, "Attention unsupported");
  EXPECT_EQ(a.expect_text(), "fail:Attention unsupported");
  // One model file in two entries, the second with defaults.
  EXPECT_EQ(m.models[1].hf->revision, "main");
  EXPECT_EQ(m.models[1].hf->file, a.hf->file);
  EXPECT_FALSE(m.models[1].heavy);
  EXPECT_TRUE(m.models[1].expect_pass);
  EXPECT_EQ(m.models[2].path->string(), "/m/models/a.onnx");
  EXPECT_EQ(m.models[2].index, 2u);
  EXPECT_EQ(m.models[3].source_text(), "url:https://example.org/b.onnx");
  EXPECT_EQ(m.models[1].source_text(), "hf:org/dec@main/onnx/m.onnx");
}

TEST(Manifest, UnknownFieldIsNamedWithItsEntry) {
  const std::string e =
      error_of(R"({"version": 1, "models": [{"id": "a", "path": "a.onnx", "tolerence": {}}]})");
  EXPECT_TRUE(contains(e, "unknown field 'tolerence'")) << e;
  EXPECT_TRUE(contains(e, "id 'a'")) << e;
  EXPECT_TRUE(contains(error_of(R"({"version": 1, "models": [], "extra": 1})"), "'extra'"));
  const std::string hf = error_of(
      R"({"version": 1, "models": [{"id": "b", "hf": {"repo": "o/r", "file": "f", "rev": "x"}}]})");
  EXPECT_TRUE(contains(hf, "'rev'")) << hf;
  EXPECT_TRUE(contains(hf, "id 'b'")) << hf;
  const std::string tol = error_of(
      R"({"version": 1, "models": [{"id": "c", "path": "p", "tolerance": {"atol": 1, "eps": 2}}]})");
  EXPECT_TRUE(contains(tol, "'eps'")) << tol;
}

TEST(Manifest, ExactlyOneSource) {
  EXPECT_TRUE(
      contains(error_of(R"({"version": 1, "models": [{"id": "a"}]})"), "exactly one source"));
  const std::string two = error_of(
      R"({"version": 1, "models": [{"id": "a", "path": "x.onnx", "url": "http://h/x.onnx"}]})");
  EXPECT_TRUE(contains(two, "exactly one source")) << two;
  EXPECT_TRUE(contains(two, "found 2")) << two;
}

TEST(Manifest, BadExpect) {
  for (const char* expect : {R"("failed")", R"("fail:")", R"("FAIL:x")", "true"}) {
    const std::string e = error_of(fmt::format(
        R"({{"version": 1, "models": [{{"id": "a", "path": "x", "expect": {}}}]}})", expect));
    EXPECT_TRUE(contains(e, "'expect' must be")) << expect << ": " << e;
  }
}

TEST(Manifest, OtherErrors) {
  EXPECT_TRUE(contains(error_of(R"({"version": 2, "models": []})"), "'version' must be 1"));
  EXPECT_TRUE(contains(error_of("{not json"), "not valid JSON"));
  // nlohmann throws out_of_range, not parse_error, for a number too large for a double (fuzzing).
  EXPECT_TRUE(contains(
      error_of(
          R"({"version": 1, "models": [{"id": "a", "path": "x", "tolerance": {"atol": 1e999}}]})"),
      "number overflow parsing '1e999'"));
  EXPECT_TRUE(contains(
      error_of(R"({"version": 1, "models": [{"id": "a", "path": "x"}, {"id": "a", "path": "y"}]})"),
      "used twice"));
  EXPECT_TRUE(contains(
      error_of(
          R"({"version": 1, "models": [{"id": "a", "path": "x", "override_dims": {"n": -1}}]})"),
      "override_dims 'n'"));
  EXPECT_TRUE(
      contains(error_of(R"({"version": 1, "models": [{"id": "a", "path": "x", "sha256": "ABC"}]})"),
               "sha256"));
  EXPECT_TRUE(contains(
      error_of(R"({"version": 1, "models": [{"id": "a", "path": "x", "heavy": 1}]})"), "heavy"));
}

Manifest five() {
  return parse_manifest(R"({"version": 1, "models": [
    {"id": "bert", "path": "a.onnx"}, {"id": "gpt-prefill", "path": "g.onnx"},
    {"id": "gpt-decode", "path": "g.onnx"}, {"id": "vit", "hf": {"repo": "o/vit", "file": "m.onnx"}},
    {"id": "t5", "path": "t5.onnx"}]})",
                        "/m/x.json");
}

TEST(Selection, AllMatchAndIds) {
  const Manifest m = five();
  EXPECT_EQ(select_entries(m, "all"), (std::vector<size_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(select_entries(m, "match=gpt"), (std::vector<size_t>{1, 2}));
  EXPECT_EQ(select_entries(m, "match=o/vit"), (std::vector<size_t>{3}));    // the source counts
  EXPECT_EQ(select_entries(m, "id=t5,bert"), (std::vector<size_t>{0, 4}));  // manifest order
  EXPECT_THROW(select_entries(m, "id=bert,nope"), Error);
  EXPECT_THROW(select_entries(m, "some"), Error);
  EXPECT_THROW(select_entries(m, "match="), Error);
}

TEST(Shard, PartitionsTheSelection) {
  const std::vector<size_t> sel = {0, 2, 3, 5, 8};
  EXPECT_EQ(shard_entries(sel, "1/2"), (std::vector<size_t>{0, 3, 8}));
  EXPECT_EQ(shard_entries(sel, "2/2"), (std::vector<size_t>{2, 5}));
  EXPECT_EQ(shard_entries(sel, "3/3"), (std::vector<size_t>{3}));
  EXPECT_EQ(shard_entries(sel, "1/1"), sel);
  EXPECT_TRUE(shard_entries(sel, "7/7").empty());
  for (const char* bad : {"0/2", "3/2", "1", "a/b", "1/0", "1/2x"}) {
    EXPECT_THROW(shard_entries(sel, bad), Error) << bad;
  }
}

}  // namespace
}  // namespace wnn::sweep
