#include "wnn/validate/validate.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "test_env.h"
#include "wnn/core/atomic_file.h"
#include "wnn/format/weights.h"
#include "wnn/validate/report.h"

namespace wnn::validate {
namespace {

namespace fs = std::filesystem;
using testing::kFixtures;
using testing::kTinyClassifier;
using testing::ScopedEnv;
using testing::ScratchDir;

ValidateOptions ref_options() {
  ValidateOptions o;
  o.session.backend = "ref";
  o.session.warn_fallback = false;
  return o;
}

TEST(Validate, SmallCnnMatchesOrtAndTheReportKeepsTheContract) {
  const Report r = validate_onnx_model(kTinyClassifier, ref_options());
  ASSERT_TRUE(r.pass) << r.stage << ": " << r.message;
  EXPECT_EQ(r.exit_code, 0);
  const nlohmann::json j = report_json(r);
  std::vector<std::string> keys;
  for (const auto& [k, _] : j.items()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"arithmetic", "inputs", "message", "model",
                                            "noise_floor", "outputs", "per_node", "sha256", "stage",
                                            "status", "timings_ms", "unsupported", "wnn_version"}));
  EXPECT_TRUE(j["arithmetic"].is_array() && j["arithmetic"].empty());  // no MatMulNBits
  EXPECT_EQ(j["status"], "pass");
  EXPECT_TRUE(j["stage"].is_null());
  ASSERT_EQ(j["outputs"].size(), 1u);
  std::vector<std::string> out_keys;
  for (const auto& [k, _] : j["outputs"][0].items()) out_keys.push_back(k);
  EXPECT_EQ(out_keys,
            (std::vector<std::string>{"atol", "cosine", "dtype", "failing", "failing_fraction",
                                      "failing_without_floor", "max_abs", "max_normalized",
                                      "mean_abs", "name", "noise_floor", "pass", "profile", "rmse",
                                      "rtol", "shape", "top1_agreement", "within_noise_floor"}));
  // auto: the output passed the dtype tolerance, so ORT ran once and no floor was measured.
  EXPECT_EQ(j["noise_floor"]["mode"], "auto");
  EXPECT_EQ(j["noise_floor"]["measured"], false);
  EXPECT_TRUE(j["outputs"][0]["noise_floor"].is_null());
  EXPECT_TRUE(j["timings_ms"]["noise_floor"].is_null());
  EXPECT_TRUE(j["per_node"].is_null());
  EXPECT_EQ(j["outputs"][0]["name"], "logits");
  EXPECT_EQ(j["outputs"][0]["top1_agreement"], 1.0);
  EXPECT_EQ(j["inputs"][0]["shape"], (std::vector<int64_t>{1, 3, 32, 32}));  // batch -> 1
  for (const char* t : {"convert", "load", "wnn_run", "ort_run"}) {
    EXPECT_TRUE(j["timings_ms"][t].is_number()) << t;
  }
  EXPECT_NE(report_summary(r).find("✓ logits"), std::string::npos);
}

TEST(Validate, ADeliberatelyWrongConversionIsCaught) {
  ScopedEnv perturb("WNN_VALIDATE_TEST_FAULT", "scale-weights");
  const Report r = validate_onnx_model(kTinyClassifier, ref_options());
  EXPECT_FALSE(r.pass);
  EXPECT_EQ(r.stage, "numerical");
  EXPECT_EQ(r.exit_code, 1);
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_FALSE(r.outputs[0].pass);
  EXPECT_GT(r.outputs[0].metrics.failing, 0);
  EXPECT_GT(r.outputs[0].metrics.max_normalized, 1.0);
  EXPECT_NE(report_summary(r).find("✗ logits"), std::string::npos);
}

TEST(Validate, AnUnknownTestFaultIsAnError) {
  ScopedEnv fault("WNN_VALIDATE_TEST_FAULT", "flip-everything");
  const Report r = validate_onnx_model(kTinyClassifier, ref_options());
  EXPECT_FALSE(r.pass);
  EXPECT_NE(r.message.find("expected one of scale-weights, pad-off-by-one"), std::string::npos)
      << r.message;
  ScopedEnv nowhere("WNN_VALIDATE_TEST_FAULT", "drop-epsilon");  // the classifier has none
  const Report n = validate_onnx_model(kTinyClassifier, ref_options());
  EXPECT_NE(n.message.find("no eligible node"), std::string::npos) << n.message;
}

// float16_body.onnx: onnxconverter-common's keep_io_types shape (make_validate_models.py), a
// float16 body between float32 casts listed after the nodes that read them.
const std::string kFloat16Body = kFixtures + "float16_body.onnx";

TEST(Validate, Float32OutputsOfAFloat16BodyGetTheFloat16Profile) {
  const Report r = validate_onnx_model(kFloat16Body, ref_options());
  ASSERT_TRUE(r.pass) << r.stage << ": " << r.message;
  ASSERT_EQ(r.outputs.size(), 2u);
  const OutputRecord& y = r.outputs[0];
  EXPECT_EQ(y.name, "y");
  EXPECT_EQ(y.dtype, DataType::kFloat32);
  EXPECT_EQ(y.profile, DataType::kFloat16);
  EXPECT_EQ(y.tol.atol, kFloat16Epsilon);
  EXPECT_EQ(y.tol.rtol, 10 * kFloat16Epsilon);
  // wnn rounds the float16 body's values: not bit-equal to ORT, well inside the profile.
  EXPECT_GT(y.metrics.max_abs, 0);
  const OutputRecord& idx = r.outputs[1];
  EXPECT_EQ(idx.profile, DataType::kInt64);  // integers stay exact
  EXPECT_EQ(idx.tol.atol, 0);
  EXPECT_EQ(report_json(r)["outputs"][0]["profile"], "float16");
  EXPECT_NE(report_summary(r).find("float16 profile: computed in float16"), std::string::npos);
  // A float32 model keeps the float32 profile.
  const Report f32 = validate_onnx_model(kTinyClassifier, ref_options());
  ASSERT_EQ(f32.outputs.size(), 1u);
  EXPECT_EQ(f32.outputs[0].profile, DataType::kFloat32);
  EXPECT_EQ(report_summary(f32).find("profile"), std::string::npos);
}

TEST(Validate, TheFloat16ProfileStillCatchesAWrongConversion) {
  ScopedEnv perturb("WNN_VALIDATE_TEST_FAULT", "scale-weights");
  const Report r = validate_onnx_model(kFloat16Body, ref_options());
  EXPECT_FALSE(r.pass);
  EXPECT_EQ(r.stage, "numerical");
  ASSERT_FALSE(r.outputs.empty());
  EXPECT_EQ(r.outputs[0].profile, DataType::kFloat16);
  EXPECT_FALSE(r.outputs[0].pass);
}

// ill_conditioned.onnx: ORT with and without graph optimizations disagrees beyond the float32
// tolerance on its output (see make_per_node_models.py), and so does wnn.
const std::string kIllConditioned = kFixtures + "ill_conditioned.onnx";

TEST(NoiseFloorValidate, AnIllConditionedOutputPassesWithinTheFloorOnly) {
  ValidateOptions off = ref_options();
  off.noise_floor = NoiseFloorMode::kOff;
  const Report plain = validate_onnx_model(kIllConditioned, off);
  EXPECT_FALSE(plain.pass);
  EXPECT_EQ(plain.stage, "numerical");
  EXPECT_FALSE(plain.noise_floor.measured);

  const Report r = validate_onnx_model(kIllConditioned, ref_options());
  ASSERT_TRUE(r.pass) << r.message;
  EXPECT_TRUE(r.noise_floor.measured);
  EXPECT_EQ(r.noise_floor.runs, (std::vector<std::string>{"optimization disabled, 1 thread",
                                                          "optimization all, 2 threads"}));
  ASSERT_EQ(r.outputs.size(), 1u);
  const OutputRecord& y = r.outputs[0];
  ASSERT_TRUE(y.floor.has_value());
  EXPECT_GT(y.floor->per_run[0], 1e-4);  // the optimizations move ORT's own answer
  EXPECT_EQ(y.tol.floor, kNoiseFloorFactor * y.floor->value);
  EXPECT_GT(y.metrics.failing_without_floor, 0);
  EXPECT_EQ(y.metrics.failing, 0);
  EXPECT_TRUE(y.metrics.within_floor_only());
  EXPECT_LE(y.metrics.max_normalized, 1.0);
  const auto j = report_json(r);
  EXPECT_EQ(j["noise_floor"]["within_floor"], (std::vector<std::string>{"y"}));
  EXPECT_EQ(j["noise_floor"]["k"], kNoiseFloorFactor);
  EXPECT_EQ(j["outputs"][0]["within_noise_floor"], true);
  EXPECT_EQ(j["outputs"][0]["noise_floor"]["max_abs"], y.floor->value);
  EXPECT_TRUE(j["timings_ms"]["noise_floor"].is_number());
  const std::string s = report_summary(r);
  EXPECT_NE(s.find("within noise floor ("), std::string::npos) << s;
  EXPECT_NE(s.find(fmt::format("1 output(s) match ONNX Runtime (1 within {:g}x the reference's "
                               "noise floor)",
                               kNoiseFloorFactor)),
            std::string::npos)
      << s;
}

TEST(NoiseFloorValidate, AlwaysMeasuresEvenAPassingModel) {
  ValidateOptions o = ref_options();
  o.noise_floor = NoiseFloorMode::kAlways;
  const Report r = validate_onnx_model(kTinyClassifier, o);
  ASSERT_TRUE(r.pass) << r.message;
  EXPECT_TRUE(r.noise_floor.measured);
  ASSERT_TRUE(r.outputs[0].floor.has_value());
  EXPECT_FALSE(r.outputs[0].metrics.within_floor_only());
  EXPECT_EQ(report_summary(r).find("within"), std::string::npos);
}

TEST(NoiseFloorValidate, WrongConversionsFailWithTheFloorInUse) {
  for (const char* fault : {"pad-off-by-one", "drop-epsilon", "transpose-filter"}) {
    ScopedEnv env("WNN_VALIDATE_TEST_FAULT", fault);
    const Report r = validate_onnx_model(kIllConditioned, ref_options());
    EXPECT_FALSE(r.pass) << fault;
    EXPECT_EQ(r.stage, "numerical") << fault << ": " << r.message;
    ASSERT_EQ(r.outputs.size(), 1u) << fault;
    const OutputRecord& y = r.outputs[0];
    ASSERT_TRUE(y.floor.has_value()) << fault;
    EXPECT_GT(y.tol.floor, 0) << fault;
    EXPECT_GT(y.metrics.failing_fraction, 0.5) << fault;
  }
}

// int8_activations.onnx (make_per_node_models.py): two MatMulNBits at accuracy_level 4 on the
// way to y, one at level 0 on the way to y0.
const std::string kInt8Activations = kFixtures + "int8_activations.onnx";

TEST(NoiseFloorValidate, Int8ActivationsGetAFloorFromTheirFloatPath) {
  ValidateOptions o = ref_options();
  o.noise_floor = NoiseFloorMode::kAlways;
  const Report r = validate_onnx_model(kInt8Activations, o);
  ASSERT_TRUE(r.pass) << r.message;
  ASSERT_EQ(r.noise_floor.runs.size(), 3u);
  EXPECT_EQ(r.noise_floor.runs[2],
            "2 MatMulNBits at accuracy_level 0 (float activations), optimization all, 1 thread");
  ASSERT_EQ(r.outputs.size(), 2u);
  const OutputRecord& y = r.outputs[0];
  const OutputRecord& y0 = r.outputs[1];
  ASSERT_EQ(y.name, "y");
  ASSERT_TRUE(y.floor && y.floor->int8_activations);
  // The int8 quantization moves y well beyond the 8-bit tolerance, and its arithmetic floor
  // is ORT agreeing with itself.
  EXPECT_GT(*y.floor->int8_activations, 5 * y.tol.atol);
  EXPECT_EQ(y.floor->per_run.size(), 3u);
  EXPECT_EQ(y.floor->per_run[2], *y.floor->int8_activations);
  EXPECT_EQ(y.tol.floor, std::max(kNoiseFloorFactor * y.floor->value,
                                  kInt8ActivationsFactor * *y.floor->int8_activations));
  // y0 is computed at level 0 only: the copy leaves it where it was.
  ASSERT_TRUE(y0.floor && y0.floor->int8_activations);
  EXPECT_EQ(*y0.floor->int8_activations, 0);
  EXPECT_EQ(y0.floor->int8_differing, 0);
  const auto j = report_json(r);
  EXPECT_EQ(j["noise_floor"]["k_int8_activations"], kInt8ActivationsFactor);
  EXPECT_EQ(j["outputs"][0]["noise_floor"]["int8_activations_max_abs"], *y.floor->int8_activations);
  EXPECT_NE(report_summary(r).find(", int8 activations "), std::string::npos);
  // A model without int8 activations has no such run (and no such field).
  const Report plain = validate_onnx_model(kTinyClassifier, o);
  ASSERT_TRUE(plain.pass) << plain.message;
  EXPECT_EQ(plain.noise_floor.runs.size(), 2u);
  ASSERT_TRUE(plain.outputs[0].floor.has_value());
  EXPECT_FALSE(plain.outputs[0].floor->int8_activations.has_value());
}

TEST(NoiseFloorValidate, AWrongConversionOfInt8ActivationsFailsWithTheirFloor) {
  // Every float constant of the fixture is a multiplier or a scale: 1.25x one of them is far
  // beyond what the int8 quantization does.
  ScopedEnv env("WNN_VALIDATE_TEST_FAULT", "scale-weights");
  ValidateOptions o = ref_options();
  o.noise_floor = NoiseFloorMode::kAlways;
  const Report r = validate_onnx_model(kInt8Activations, o);
  EXPECT_FALSE(r.pass);
  EXPECT_EQ(r.stage, "numerical") << r.message;
  ASSERT_EQ(r.outputs.size(), 2u);
  for (const OutputRecord& out : r.outputs) {
    ASSERT_TRUE(out.floor.has_value()) << out.name;
    EXPECT_FALSE(out.pass) << out.name;
    EXPECT_GT(out.metrics.failing_fraction, 0.5) << out.name;
  }
  EXPECT_GT(*r.outputs[0].floor->int8_activations, 0);
}

TEST(Validate, OrtFailureReportsOrtsOwnMessage) {
  ScratchDir dir;
  const Report r = validate_onnx_model(kFixtures + "ort_rejects.onnx", ref_options());
  EXPECT_EQ(r.stage, "reference");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.message.find("Unsupported model IR version: 99"), std::string::npos) << r.message;
  write_report(dir / "r.json", r);
  const auto j = nlohmann::json::parse(read_file(dir / "r.json"));
  EXPECT_EQ(j["status"], "fail");
  EXPECT_EQ(j["stage"], "reference");
  EXPECT_TRUE(j["timings_ms"]["convert"].is_number());
}

TEST(Validate, ScalarInputsAndZeroElementTensors) {
  const Report r = validate_onnx_model(kFixtures + "scalar_and_empty.onnx", ref_options());
  ASSERT_TRUE(r.pass) << r.message;
  ASSERT_EQ(r.inputs.size(), 3u);
  EXPECT_EQ(r.inputs[1].name, "s");
  EXPECT_EQ(r.inputs[1].shape, Shape{});
  EXPECT_EQ(r.inputs[2].shape, (Shape{0, 3}));
  ASSERT_EQ(r.outputs.size(), 2u);
  EXPECT_EQ(r.outputs[1].shape, (Shape{0, 3}));
  EXPECT_FALSE(r.outputs[1].metrics.cosine.has_value());
}

TEST(Validate, OutputNamedLikeAPinnedInput) {
  ValidateOptions o = ref_options();
  o.import.pin_inputs["n"] = "-3";
  const Report r = validate_onnx_model(kFixtures + "pinned_output.onnx", o);
  ASSERT_TRUE(r.pass) << r.message;
  ASSERT_EQ(r.inputs.size(), 2u);
  EXPECT_EQ(r.inputs[1].name, "n");
  EXPECT_EQ(r.inputs[1].source, "pinned");
  ASSERT_EQ(r.outputs.size(), 2u);
  EXPECT_EQ(r.outputs[1].name, "n");
  EXPECT_EQ(r.outputs[1].dtype, DataType::kInt64);
}

TEST(Validate, OutputNamedLikeItsInputPassesThroughUnpinned) {
  // The ONNX output "n" is the graph input "n" itself: the identity that carries it takes a
  // fresh operand name, and the name map still pairs it with ORT's "n".
  const Report r = validate_onnx_model(kFixtures + "pinned_output.onnx", ref_options());
  ASSERT_TRUE(r.pass) << r.message;
  ASSERT_EQ(r.outputs.size(), 2u);
  EXPECT_EQ(r.outputs[1].name, "n");
  EXPECT_EQ(r.inputs[1].source, "integer in [-8, 8)");
}

TEST(Validate, GivenInputBindsFreeDimsAndGeneratedIdsUseTheVocab) {
  ScratchDir dir;
  Tensor ids = Tensor::zeros(DataType::kInt64, {1, 6});
  for (int i = 0; i < 6; ++i) ids.mutable_view().as<int64_t>()[i] = 36 - 7 * i;
  format::write_npy(dir / "ids.npy", ids.view());
  ValidateOptions o = ref_options();
  o.input_files.emplace_back("input_ids", dir / "ids.npy");
  const Report r = validate_onnx_model(kFixtures + "embedding.onnx", o);
  ASSERT_TRUE(r.pass) << r.message;
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_EQ(r.outputs[0].shape, (Shape{1, 6, 4}));  // seq bound to 6 by the file
  ASSERT_EQ(r.inputs.size(), 4u);
  EXPECT_EQ(r.inputs[0].source, "file " + (dir / "ids.npy"));
  EXPECT_EQ(r.inputs[1].source, "attention mask: ones");
  EXPECT_NE(r.inputs[3].source.find("position ids"), std::string::npos);

  // Without the file the ids come from [0, 37).
  ValidateOptions g = ref_options();
  g.import.override_dims["seq"] = 9;
  const Report generated = validate_onnx_model(kFixtures + "embedding.onnx", g);
  ASSERT_TRUE(generated.pass) << generated.message;
  EXPECT_NE(generated.inputs[0].source.find("[0, 37)"), std::string::npos);
}

TEST(Validate, UnsupportedNodesAreListedInTheReport) {
  const Report r = validate_onnx_model(kFixtures + "unsupported.onnx", ref_options());
  EXPECT_EQ(r.stage, "conversion");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.message.find('\n'), std::string::npos);
  ASSERT_EQ(r.unsupported.size(), 1u);
  EXPECT_EQ(r.unsupported[0].node, "frob0");
  EXPECT_EQ(r.unsupported[0].op_type, "Frobnicate");
  EXPECT_EQ(r.unsupported[0].domain, "com.example");
  EXPECT_EQ(r.unsupported[0].opset, 1);
  const auto j = report_json(r);
  EXPECT_EQ(j["unsupported"][0]["op_type"], "Frobnicate");
  EXPECT_TRUE(j["timings_ms"]["convert"].is_null());
  EXPECT_TRUE(j["outputs"].empty());
}

TEST(Validate, InputErrorsAreUserErrorsWithAReport) {
  ScratchDir dir;
  Tensor x = Tensor::zeros(DataType::kInt64, {2, 6});
  format::write_npy(dir / "x.npy", x.view());
  ValidateOptions o = ref_options();
  o.input_files.emplace_back("nope", dir / "x.npy");
  Report r = validate_onnx_model(kFixtures + "embedding.onnx", o);
  EXPECT_EQ(r.stage, "conversion");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.message.find("no graph input 'nope'"), std::string::npos) << r.message;
  // A fixed dimension that the file contradicts.
  o.input_files = {{"input_ids", dir / "x.npy"}};
  r = validate_onnx_model(kFixtures + "embedding.onnx", o);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.message.find("dim 0 is 2 in the value, 1 in the model"), std::string::npos)
      << r.message;
}

TEST(Validate, MissingReferenceSetupIsAnActionableError) {
  ScratchDir dir;
  fs::copy_file(std::string(WNN_SOURCE_DIR) + "/tools/ort-reference/run.js", dir / "run.js");
  ScopedEnv env("WNN_ORT_REFERENCE", dir.path());  // run.js without node_modules
  const Report r = validate_onnx_model(kTinyClassifier, ref_options());
  EXPECT_EQ(r.stage, "reference");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.message.find("make deps"), std::string::npos) << r.message;
  ScopedEnv no_node("WNN_NODE", dir / "no-such-node");
  ScopedEnv real("WNN_ORT_REFERENCE", std::nullopt);
  const Report r2 = validate_onnx_model(kTinyClassifier, ref_options());
  EXPECT_EQ(r2.exit_code, 2);
  EXPECT_NE(r2.message.find("Node.js"), std::string::npos) << r2.message;
}

TEST(Validate, ReferenceTimeoutIsAReferenceFailure) {
  ScratchDir dir;
  // A runner that never answers: node sleeping, in a directory that looks installed.
  fs::create_directories(dir / "node_modules/onnxruntime-node");
  std::ofstream(dir / "run.js") << "setTimeout(() => {}, 60000);\n";
  ScopedEnv env("WNN_ORT_REFERENCE", dir.path());
  ValidateOptions o = ref_options();
  o.reference.timeout_seconds = 1;
  const Report r = validate_onnx_model(kTinyClassifier, o);
  EXPECT_EQ(r.stage, "reference");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.message.find("within 1 s"), std::string::npos) << r.message;
}

}  // namespace
}  // namespace wnn::validate
