#include "wnn/validate/per_node_model.h"

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

}  // namespace
}  // namespace wnn::validate
