#include "wnn/validate/model_inputs.h"

#include <gtest/gtest.h>

#include <cstring>

namespace wnn::validate {
namespace {

const std::string kFixtures = std::string(WNN_SOURCE_DIR) + "/tests/fixtures/validate/";

TEST(ModelInputs, VocabComesFromTheGatherTableThroughACast) {
  const onnx::ModelProto m = onnx::load_model(kFixtures + "embedding.onnx");
  EXPECT_EQ(embedding_rows(m, "input_ids"), 37);  // through Cast
  EXPECT_EQ(embedding_rows(m, "position_ids"), 16);
  EXPECT_EQ(embedding_rows(m, "attention_mask"), std::nullopt);
  const GeneratedInput ids = generate_input(m, "input_ids", {DataType::kInt64, {1, 300}}, false);
  int64_t lo = 1 << 30, hi = -1;
  for (int64_t i = 0; i < 300; ++i) {
    lo = std::min(lo, ids.tensor.view().as<int64_t>()[i]);
    hi = std::max(hi, ids.tensor.view().as<int64_t>()[i]);
  }
  EXPECT_EQ(lo, 0);  // 300 draws from 37 values reach both ends
  EXPECT_EQ(hi, 36);
  EXPECT_NE(ids.rule.find("[0, 37)"), std::string::npos);
}

TEST(ModelInputs, GatherAxisPicksTheTableDimension) {
  onnx::ModelProto m;
  onnx::TensorProto table;
  table.name = "w";
  table.dims = {5, 11};
  m.graph.initializer.push_back(table);
  onnx::NodeProto g;
  g.op_type = "Gather";
  g.input = {"w", "decoder_input_ids"};
  onnx::AttributeProto axis;
  axis.name = "axis";
  axis.i = -1;
  g.attribute.push_back(axis);
  m.graph.node.push_back(g);
  EXPECT_EQ(embedding_rows(m, "decoder_input_ids"), 11);
}

TEST(ModelInputs, NamedInputsFollowTheirRules) {
  const onnx::ModelProto m;  // no Gather: name rules only
  const OperandDesc ids{DataType::kInt64, {2, 5}};
  const auto mask = generate_input(m, "attention_mask", ids, false).tensor;
  const auto types = generate_input(m, "token_type_ids", ids, false).tensor;
  const auto pos = generate_input(m, "position_ids", ids, false).tensor;
  for (int64_t i = 0; i < 10; ++i) {
    EXPECT_EQ(mask.view().as<int64_t>()[i], 1);
    EXPECT_EQ(types.view().as<int64_t>()[i], 0);
    EXPECT_EQ(pos.view().as<int64_t>()[i], i % 5);
  }
  const auto input_ids = generate_input(m, "input_ids", ids, false).tensor;
  for (int64_t i = 0; i < 10; ++i) {
    EXPECT_GE(input_ids.view().as<int64_t>()[i], 0);  // never negative, even without a table
    EXPECT_LT(input_ids.view().as<int64_t>()[i], 16);
  }
  const auto past =
      generate_input(m, "past_key_values.0.key", {DataType::kFloat32, {1, 2, 0, 4}}, false);
  EXPECT_EQ(past.tensor.size(), 0);
  const auto past2 =
      generate_input(m, "past_key_values.3.value", {DataType::kFloat32, {1, 2, 3, 4}}, false);
  for (int64_t i = 0; i < 24; ++i) EXPECT_EQ(past2.tensor.view().as<float>()[i], 0.0f);
  const auto flags = generate_input(m, "flags", {DataType::kUint8, {5}}, true).tensor;
  const uint8_t* f = flags.view().as<uint8_t>();
  EXPECT_EQ(std::vector<uint8_t>(f, f + 5), (std::vector<uint8_t>{1, 0, 1, 0, 1}));
}

TEST(ModelInputs, FloatsAndImagesAreInRangeWithNegativesAndZeros) {
  const onnx::ModelProto m;
  const auto img = generate_input(m, "pixel_values", {DataType::kFloat32, {1, 3, 16, 16}}, false);
  int negatives = 0, zeros = 0;
  for (int64_t i = 0; i < img.tensor.size(); ++i) {
    const float v = img.tensor.view().as<float>()[i];
    EXPECT_GE(v, -1.0f);
    EXPECT_LE(v, 1.0f);
    negatives += v < 0;
    zeros += v == 0;
  }
  EXPECT_GT(negatives, 100);
  EXPECT_GT(zeros, 0);
  EXPECT_NE(img.rule.find("image"), std::string::npos);
  // Deterministic: the same name gives the same values, another name others.
  const auto again = generate_input(m, "pixel_values", {DataType::kFloat32, {1, 3, 16, 16}}, false);
  const auto other = generate_input(m, "other", {DataType::kFloat32, {1, 3, 16, 16}}, false);
  EXPECT_EQ(0,
            std::memcmp(img.tensor.data.data(), again.tensor.data.data(), img.tensor.byte_size()));
  EXPECT_NE(0,
            std::memcmp(img.tensor.data.data(), other.tensor.data.data(), img.tensor.byte_size()));
}

}  // namespace
}  // namespace wnn::validate
