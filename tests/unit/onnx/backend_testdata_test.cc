// Decodes every model and every tensor of the ONNX backend test suite Debian ships, and checks
// a few decoded values against relations the tests define (neg, cast) rather than our output.
#include <gtest/gtest.h>

#include <filesystem>

#include "wnn/core/error.h"
#include "wnn/core/half.h"
#include "wnn/onnx/model.h"
#include "wnn/onnx/tensor_data.h"

namespace wnn::onnx {
namespace {

namespace fs = std::filesystem;
const fs::path kTestData = "/usr/share/libonnx-testdata/data";

std::vector<fs::path> backend_models() {
  std::vector<fs::path> out;
  for (const char* suite : {"node", "pytorch-converted", "pytorch-operator", "simple"}) {
    if (!fs::exists(kTestData / suite)) continue;
    for (const auto& e : fs::recursive_directory_iterator(kTestData / suite)) {
      if (e.path().filename() == "model.onnx") out.push_back(e.path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Graph inputs that are fed at run time: those without an initializer of the same name.
std::vector<const ValueInfoProto*> runtime_inputs(const GraphProto& g) {
  std::vector<const ValueInfoProto*> out;
  for (const auto& in : g.input) {
    const bool is_init = std::any_of(g.initializer.begin(), g.initializer.end(),
                                     [&](const TensorProto& t) { return t.name == in.name; });
    if (!is_init) out.push_back(&in);
  }
  return out;
}

TEST(BackendTestData, DecodesEveryModelAndEveryTensorInput) {
  const auto models = backend_models();
  // Debian 12's libonnx-testdata has 1072 models across the four suites.
  ASSERT_GT(models.size(), 1000u) << "is libonnx-testdata installed?";
  size_t tensors = 0, unsupported = 0;
  std::vector<std::string> failures;
  for (const auto& path : models) {
    try {
      const ModelProto m = load_model(path.string());
      EXPECT_GT(m.ir_version, 0) << path;
      EXPECT_FALSE(m.opset_import.empty()) << path;
      EXPECT_FALSE(m.graph.node.empty()) << path;
      for (const auto& n : m.graph.node) EXPECT_FALSE(n.op_type.empty()) << path;
      const ExternalDataResolver external = ExternalDataResolver::for_model(path.string());
      for (const auto& init : m.graph.initializer) {
        if (wnn_dtype_for(init.data_type)) tensor_data(init, external);
      }
      // input_i.pb / output_i.pb hold tensors for tensor-typed graph inputs and outputs.
      const auto inputs = runtime_inputs(m.graph);
      for (const auto& set : fs::directory_iterator(path.parent_path())) {
        if (!set.is_directory()) continue;
        const auto check_files = [&](const char* prefix, const auto& infos) {
          for (size_t i = 0; i < infos.size(); ++i) {
            const ValueInfoProto& info = *infos[i];
            const fs::path pb = set.path() / (prefix + std::to_string(i) + ".pb");
            if (!info.type.is_tensor() || !fs::exists(pb)) continue;
            const TensorProto t = load_tensor(pb.string());
            ++tensors;
            // The suite stores bfloat16 data as UINT16 bit patterns.
            const bool bf16_as_uint16 = info.type.elem_type == int32_t(OnnxType::kBfloat16) &&
                                        t.data_type == int32_t(OnnxType::kUint16);
            if (!bf16_as_uint16) {
              EXPECT_EQ(t.data_type, info.type.elem_type) << pb;
            }
            if (!wnn_dtype_for(t.data_type)) {
              ++unsupported;
              continue;
            }
            const TensorData d = tensor_data(t, ExternalDataResolver());
            int64_t count = 1;
            for (int64_t dim : t.dims) count *= dim;
            EXPECT_EQ(d.data.size(), size_t(count) * dtype_size(d.dtype)) << pb;
          }
        };
        std::vector<const ValueInfoProto*> outputs;
        for (const auto& o : m.graph.output) outputs.push_back(&o);
        check_files("input_", inputs);
        check_files("output_", outputs);
      }
    } catch (const Error& e) {
      failures.push_back(e.what());
    }
  }
  EXPECT_TRUE(failures.empty()) << failures.size() << " failed, first: " << failures[0];
  EXPECT_GT(tensors, 2500u);
  EXPECT_GT(unsupported, 0u);  // string and int16 tensors exist and are reported, not decoded
  std::printf("decoded %zu models, %zu tensors (%zu of unsupported types)\n", models.size(),
              tensors, unsupported);
}

std::vector<float> floats_of(const TensorData& d) {
  EXPECT_EQ(d.dtype, DataType::kFloat32);
  const auto* p = reinterpret_cast<const float*>(d.data.data());
  return std::vector<float>(p, p + d.data.size() / 4);
}

TensorData load_data(const std::string& test, const char* file) {
  return tensor_data(load_tensor((kTestData / "node" / test / "test_data_set_0" / file).string()),
                     ExternalDataResolver());
}

TEST(BackendTestData, NegOutputIsTheNegatedInput) {
  const auto in = floats_of(load_data("test_neg", "input_0.pb"));
  const auto out = floats_of(load_data("test_neg", "output_0.pb"));
  ASSERT_EQ(in.size(), 60u);  // [3, 4, 5]
  ASSERT_EQ(out.size(), in.size());
  for (size_t i = 0; i < in.size(); ++i) EXPECT_EQ(out[i], -in[i]) << i;
}

TEST(BackendTestData, DoubleInputNarrowsToTheCastOutput) {
  const TensorData in = load_data("test_cast_DOUBLE_to_FLOAT", "input_0.pb");
  EXPECT_EQ(in.conversion, "DOUBLE narrowed to float32");
  EXPECT_FALSE(in.zero_copy);
  const auto narrowed = floats_of(in);
  const auto cast = floats_of(load_data("test_cast_DOUBLE_to_FLOAT", "output_0.pb"));
  ASSERT_EQ(narrowed.size(), 12u);
  EXPECT_EQ(narrowed, cast);
}

TEST(BackendTestData, Bfloat16InputWidensToTheCastOutput) {
  const auto dir = kTestData / "node/test_cast_BFLOAT16_to_FLOAT/test_data_set_0";
  TensorProto bits = load_tensor((dir / "input_0.pb").string());
  ASSERT_EQ(bits.data_type, int32_t(OnnxType::kUint16));  // see the note above
  bits.data_type = int32_t(OnnxType::kBfloat16);
  const TensorData in = tensor_data(bits, ExternalDataResolver());
  EXPECT_EQ(in.conversion, "BFLOAT16 widened to float32");
  const auto widened = floats_of(in);
  const auto cast = floats_of(load_data("test_cast_BFLOAT16_to_FLOAT", "output_0.pb"));
  ASSERT_EQ(widened.size(), cast.size());
  for (size_t i = 0; i < cast.size(); ++i) {
    if (std::isnan(cast[i])) {
      EXPECT_TRUE(std::isnan(widened[i]));
    } else {
      EXPECT_EQ(widened[i], cast[i]) << i;
    }
  }
}

TEST(BackendTestData, Float16InputWidensToTheCastOutput) {
  const TensorData in = load_data("test_cast_FLOAT16_to_FLOAT", "input_0.pb");
  ASSERT_EQ(in.dtype, DataType::kFloat16);
  const auto cast = floats_of(load_data("test_cast_FLOAT16_to_FLOAT", "output_0.pb"));
  ASSERT_EQ(in.data.size(), cast.size() * 2);
  const auto* h = reinterpret_cast<const uint16_t*>(in.data.data());
  for (size_t i = 0; i < cast.size(); ++i) {
    if (std::isnan(cast[i])) {
      EXPECT_TRUE(std::isnan(half_to_float(h[i])));
    } else {
      EXPECT_EQ(half_to_float(h[i]), cast[i]) << i;
    }
  }
}

TEST(BackendTestData, ConvAttributesAndInputShapesDecode) {
  const ModelProto m =
      load_model((kTestData / "node/test_conv_with_strides_padding/model.onnx").string());
  ASSERT_EQ(m.graph.node.size(), 1u);
  const NodeProto& conv = m.graph.node[0];
  EXPECT_EQ(conv.op_type, "Conv");
  ASSERT_NE(conv.find_attribute("pads"), nullptr);
  EXPECT_EQ(conv.find_attribute("pads")->ints, (std::vector<int64_t>{1, 1, 1, 1}));
  EXPECT_EQ(conv.find_attribute("strides")->ints, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(conv.find_attribute("kernel_shape")->type, AttributeProto::Type::kInts);
  EXPECT_EQ(conv.find_attribute("dilations"), nullptr);
  ASSERT_EQ(m.graph.input.size(), 2u);
  EXPECT_EQ(type_to_string(m.graph.input[0].type), "FLOAT[1,1,7,5]");
  EXPECT_EQ(type_to_string(m.graph.input[1].type), "FLOAT[1,1,3,3]");
}

TEST(BackendTestData, IfAndLoopSubgraphsDecodeRecursively) {
  const ModelProto if_model = load_model((kTestData / "node/test_if/model.onnx").string());
  const NodeProto& if_node = if_model.graph.node.at(0);
  EXPECT_EQ(if_node.op_type, "If");
  for (const char* branch : {"then_branch", "else_branch"}) {
    const AttributeProto* a = if_node.find_attribute(branch);
    ASSERT_NE(a, nullptr) << branch;
    EXPECT_EQ(a->type, AttributeProto::Type::kGraph);
    ASSERT_NE(a->g, nullptr);
    EXPECT_FALSE(a->g->node.empty());
    EXPECT_EQ(a->g->output.size(), 1u);
  }
  const ModelProto loop = load_model((kTestData / "node/test_loop11/model.onnx").string());
  const AttributeProto* body = loop.graph.node.at(0).find_attribute("body");
  ASSERT_NE(body, nullptr);
  ASSERT_NE(body->g, nullptr);
  EXPECT_GT(body->g->node.size(), 1u);
  EXPECT_EQ(body->g->input.size(), 3u);  // iteration number, condition, loop-carried y
}

}  // namespace
}  // namespace wnn::onnx
