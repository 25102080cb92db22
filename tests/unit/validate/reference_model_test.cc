#include "wnn/validate/reference_model.h"

#include <gtest/gtest.h>

#include "test_env.h"
#include "wnn/core/error.h"
#include "wnn/core/mapped_file.h"
#include "wnn/onnx/model.h"
#include "wnn/onnx/wire.h"

namespace wnn::validate {
namespace {

using testing::kFixtures;
using testing::ScratchDir;

std::vector<std::string> output_names(const onnx::ModelProto& m) {
  std::vector<std::string> names;
  for (const auto& o : m.graph.output) names.push_back(o.name);
  return names;
}

TEST(PerNodeModel, OutputsAreAppendedAndEverythingElseIsKept) {
  const std::string path = kFixtures + "per_node_chain.onnx";
  const auto file = MappedFile::open(path);
  const onnx::ModelProto before = onnx::load_model(path);
  const std::string bytes = model_with_outputs(file->bytes(), {"a", "b_sig", "name with spaces"});
  const auto view = std::as_bytes(std::span(bytes.data(), bytes.size()));
  const onnx::ModelProto after = onnx::decode_model(view, nullptr);
  EXPECT_EQ(output_names(after),
            (std::vector<std::string>{"y", "x2", "a", "b_sig", "name with spaces"}));
  EXPECT_FALSE(after.graph.output[2].type.is_tensor());  // name only: ORT infers the type
  EXPECT_EQ(after.graph.node.size(), before.graph.node.size());
  EXPECT_EQ(after.graph.initializer.size(), before.graph.initializer.size());
  EXPECT_EQ(after.ir_version, before.ir_version);
  EXPECT_EQ(after.opset_import.size(), before.opset_import.size());
  EXPECT_EQ(after.graph.output[0].type.dims.size(), 3u);  // the original outputs keep their types
  // Nothing to add: the same bytes.
  EXPECT_EQ(model_with_outputs(file->bytes(), {}),
            std::string(reinterpret_cast<const char*>(file->data()), file->size()));
}

TEST(PerNodeModel, TheLastOfRepeatedGraphFieldsGetsTheOutputs) {
  // Protobuf merges repeated message fields (graph {output y} graph {name "g"} is one graph), so
  // the outputs go at the end of the last one and everything before stays byte for byte.
  onnx::WireWriter out_y, out_z, g1, g2, g2z;
  out_y.length_delimited(1, "y");
  out_z.length_delimited(1, "z");
  g1.length_delimited(12, out_y.bytes());
  g2.length_delimited(2, "g");
  g2z.length_delimited(2, "g");
  g2z.length_delimited(12, out_z.bytes());
  auto model_of = [&](const std::string& last) {
    onnx::WireWriter m;
    m.tag(1, onnx::WireType::kVarint);
    m.varint(8);  // ir_version
    m.length_delimited(7, g1.bytes());
    m.length_delimited(7, last);
    return m.take();
  };
  const std::string m = model_of(g2.bytes());
  EXPECT_EQ(model_with_outputs(std::as_bytes(std::span(m.data(), m.size())), {"z"}),
            model_of(g2z.bytes()));
}

TEST(PerNodeModel, AModelWithoutAGraphIsAnError) {
  onnx::WireWriter model;
  model.tag(1, onnx::WireType::kVarint);
  model.varint(8);
  const std::string m = model.take();
  EXPECT_THROW(model_with_outputs(std::as_bytes(std::span(m.data(), m.size())), {"z"}), wnn::Error);
}

TEST(PerNodeModel, WireWriterEncodesVarintsAndLengths) {
  onnx::WireWriter w;
  w.varint(300);
  w.length_delimited(12, "ab");
  EXPECT_EQ(w.bytes(), std::string("\xac\x02\x62\x02"
                                   "ab",
                                   6));
}

const onnx::NodeProto& node_named(const onnx::ModelProto& m, const std::string& name) {
  for (const auto& n : m.graph.node) {
    if (n.name == name) return n;
  }
  throw std::runtime_error("no node " + name);
}

int64_t level_of(const onnx::NodeProto& n) {
  const auto* a = n.find_attribute("accuracy_level");
  return a ? a->i : -1;
}

TEST(FloatActivations, OnlyLevel4MatMulNBitsChangeAndNothingMoves) {
  const std::string path = kFixtures + "int8_activations.onnx";
  const auto file = MappedFile::open(path);
  const std::string before(reinterpret_cast<const char*>(file->data()), file->size());
  const FloatActivationsCopy result = model_with_float_activations(file->bytes());
  EXPECT_EQ(result.changed, 2);
  const std::string& copy = result.bytes;
  ASSERT_EQ(copy.size(), before.size());
  size_t changed_bytes = 0;
  for (size_t i = 0; i < copy.size(); ++i) changed_bytes += copy[i] != before[i];
  EXPECT_EQ(changed_bytes, 2u);  // one varint byte per node, 4 -> 0
  const auto m = onnx::decode_model(std::as_bytes(std::span(copy.data(), copy.size())), nullptr);
  const auto o = onnx::decode_model(file->bytes(), nullptr);
  EXPECT_EQ(level_of(node_named(o, "q4")), 4);
  EXPECT_EQ(level_of(node_named(m, "q4")), 0);
  EXPECT_EQ(level_of(node_named(m, "q8")), 0);
  EXPECT_EQ(level_of(node_named(m, "f4")), 0);
  EXPECT_EQ(node_named(m, "q8").find_attribute("bits")->i, 8);  // the other attributes stay
  EXPECT_EQ(node_named(m, "q4").find_attribute("block_size")->i, 32);
  // Once at level 0, nothing is left to change, and nothing is copied.
  const auto again =
      model_with_float_activations(std::as_bytes(std::span(copy.data(), copy.size())));
  EXPECT_EQ(again.changed, 0);
  EXPECT_TRUE(again.bytes.empty());
}

TEST(FloatActivations, DomainOpTypeAndEncodingAreHonoured) {
  // Nodes: MatMulNBits in the default domain, another com.microsoft op with accuracy_level 4,
  // and a MatMulNBits whose level is a 2-byte varint (0x84 0x00) with op_type after the
  // attribute; only the last is changed, to 0x80 0x00.
  auto attribute = [](std::string_view level_varint) {
    onnx::WireWriter a;
    a.length_delimited(1, "accuracy_level");
    a.tag(3, onnx::WireType::kVarint);
    a.raw(std::as_bytes(std::span(level_varint.data(), level_varint.size())));
    return a.take();
  };
  auto node = [&](std::string_view op, std::string_view domain, std::string_view level,
                  bool op_last) {
    onnx::WireWriter n;
    if (!op_last) n.length_delimited(4, op);
    n.length_delimited(5, attribute(level));
    if (op_last) n.length_delimited(4, op);
    n.length_delimited(7, domain);
    return n.take();
  };
  onnx::WireWriter graph;
  graph.length_delimited(1, node("MatMulNBits", "", "\x04", false));
  graph.length_delimited(1, node("Other", "com.microsoft", "\x04", false));
  graph.length_delimited(1, node("MatMulNBits", "com.microsoft", std::string("\x84\x00", 2), true));
  onnx::WireWriter model;
  model.length_delimited(7, graph.bytes());
  const std::string before = model.take();
  const FloatActivationsCopy result =
      model_with_float_activations(std::as_bytes(std::span(before.data(), before.size())));
  EXPECT_EQ(result.changed, 1);
  const std::string& copy = result.bytes;
  ASSERT_EQ(copy.size(), before.size());
  const size_t at = before.rfind(std::string("\x84\x00", 2));
  ASSERT_NE(at, std::string::npos);
  EXPECT_EQ(copy.substr(0, at), before.substr(0, at));
  EXPECT_EQ(copy.substr(at, 2), std::string("\x80\x00", 2));
  EXPECT_EQ(copy.substr(at + 2), before.substr(at + 2));
  const auto m = onnx::decode_model(std::as_bytes(std::span(copy.data(), copy.size())), nullptr);
  ASSERT_EQ(m.graph.node.size(), 3u);
  EXPECT_EQ(level_of(m.graph.node[0]), 4);
  EXPECT_EQ(level_of(m.graph.node[1]), 4);
  EXPECT_EQ(level_of(m.graph.node[2]), 0);
}

}  // namespace
}  // namespace wnn::validate
