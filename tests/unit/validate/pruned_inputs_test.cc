// Inputs the converted graph prunes (read by nothing after pinning and folding) are still fed
// to ONNX Runtime, which requires every declared input; also through a cache entry.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "test_env.h"
#include "wnn/validate/validate.h"

namespace wnn::validate {
namespace {

using testing::ScopedEnv;
using testing::ScratchDir;

// The If models of the onnx tests (tests/unit/onnx/make_if_models.py), generated once.
const std::string& models() {
  static ScratchDir dir;
  static const std::string path = [] {
    const std::string cmd = "/usr/bin/python3 " WNN_SOURCE_DIR
                            "/tests/unit/onnx/make_if_models.py " +
                            dir.path() + " 2>/dev/null";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    return dir.path();
  }();
  return path;
}

ValidateOptions ref_options() {
  ValidateOptions o;
  o.session.backend = "ref";
  o.session.warn_fallback = false;
  return o;
}

void expect_fed_to_ort_only(const Report& r, const std::string& name) {
  bool found = false;
  for (const auto& in : r.inputs) {
    if (in.name != name) continue;
    found = true;
    EXPECT_NE(in.source.find("ONNX Runtime only"), std::string::npos) << in.source;
  }
  EXPECT_TRUE(found) << name << " is not in the report's inputs";
}

TEST(PrunedInputs, UnreadInputsAreStillFedToOrt) {
  const Report r = validate_onnx_model(models() + "/unused_inputs/model.onnx", ref_options());
  ASSERT_TRUE(r.pass) << r.stage << ": " << r.message;
  EXPECT_EQ(r.inputs.size(), 3u);
  expect_fed_to_ort_only(r, "u");
  expect_fed_to_ort_only(r, "v");
}

TEST(PrunedInputs, PinnedIfMatchesOrtForBothBranches) {
  for (const char* mode : {"3", "-2"}) {
    ValidateOptions o = ref_options();
    o.import.pin_inputs["mode"] = mode;
    const Report r = validate_onnx_model(models() + "/outer_captures/model.onnx", o);
    ASSERT_TRUE(r.pass) << "mode=" << mode << ": " << r.stage << ": " << r.message;
    ASSERT_EQ(r.outputs.size(), 2u);
    if (std::string(mode) == "3") expect_fed_to_ort_only(r, "b");
  }
}

TEST(PrunedInputs, CacheEntriesRememberPrunedInputs) {
  ScratchDir dir;
  ScopedEnv env("WNN_CACHE_DIR", dir / "cache");
  ValidateOptions o = ref_options();
  o.storage = Storage::kCache;
  const std::string model = models() + "/unused_inputs/model.onnx";
  const Report first = validate_onnx_model(model, o);
  ASSERT_TRUE(first.pass) << first.stage << ": " << first.message;
  o.storage = Storage::kCachedOnly;
  const Report r = validate_onnx_model(model, o);
  ASSERT_TRUE(r.pass) << r.stage << ": " << r.message;
  expect_fed_to_ort_only(r, "u");
  expect_fed_to_ort_only(r, "v");
}

}  // namespace
}  // namespace wnn::validate
