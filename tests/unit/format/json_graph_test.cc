#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "format_test_util.h"
#include "wnn/format/graph_file.h"

namespace wnn::format {
namespace {

using testing::parse_error;

const char* const kSample = R"({
  "format": "webnn-graph-json", "version": 2, "name": "j", "quantized": false,
  "inputs": {
    "zeta": {"dataType": "float32", "shape": [{"name": "batch", "maxSize": 4}, 3]},
    "alpha": {"dataType": "float32", "shape": [4, 3]}
  },
  "consts": {
    "w": {"dataType": "float32", "shape": [3], "init": {"kind": "weights", "ref": "layer.w"}},
    "s": {"dataType": "float32", "shape": [3], "init": {"kind": "scalar", "value": -1.5}},
    "k": {"dataType": "uint8", "shape": [2], "init": {"kind": "inlineBytes", "bytes": [7, 255]}}
  },
  "nodes": [
    {"id": "sum", "op": "add", "inputs": ["zeta", "w"], "options": {}, "outputs": null},
    {"id": "cat", "op": "concat", "inputs": ["sum", "alpha", "sum"], "options": {"axis": 0}},
    {"id": "cat2", "op": "concat", "inputs": [["alpha", "alpha"]], "options": {"axis": 1}},
    {"id": "c", "op": "clamp", "inputs": ["cat"], "options": {"minValue": "-inf", "maxValue": 0}},
    {"id": "h", "op": "cast", "inputs": ["c"], "options": {"to": "Float16"}},
    {"id": "p0", "op": "split", "inputs": ["cat2"], "options": {"splits": [2, 4], "axis": 1},
     "outputs": ["p0", "p1"]}
  ],
  "outputs": {"result": "h", "p1": "p1"}
})";

TEST(JsonGraph, ReadsEveryFormOfTheSample) {
  const Graph g = parse_graph(kSample, "s.json");
  EXPECT_EQ(g.name, "j");
  // Declaration order is document order, not alphabetical.
  EXPECT_EQ(g.name_of(g.inputs()[0].id), "zeta");
  EXPECT_EQ(g.inputs()[0].dynamic_dims[0], (DynamicDim{"batch", 4}));
  EXPECT_EQ(g.constants()[0].key, "layer.w");
  EXPECT_EQ(std::get<double>(g.constants()[1].scalar), -1.5);
  EXPECT_EQ(g.constants()[2].bytes, (std::vector<uint8_t>{7, 255}));
  EXPECT_EQ(g.desc(*g.find("cat")).shape, (Shape{12, 3}));  // 4 + 4 + 4 rows
  EXPECT_EQ(g.desc(*g.find("cat2")).shape, (Shape{4, 6}));
  EXPECT_EQ(g.desc(*g.find("h")).dtype, DataType::kFloat16);
  EXPECT_EQ(g.desc(*g.find("p1")).shape, (Shape{4, 4}));
  const Node& clamp = g.nodes()[g.operand(*g.find("c")).producer];
  EXPECT_TRUE(std::isinf(clamp.attrs.get_float("minValue")));
  // "result" differs from its operand "h": an identity node carries the output's name.
  ASSERT_EQ(g.outputs().size(), 2u);
  EXPECT_EQ(g.name_of(g.outputs()[0]), "result");
  const Node& id = g.nodes()[g.operand(g.outputs()[0]).producer];
  EXPECT_EQ(id.op(), OpKind::kIdentity);
  EXPECT_EQ(g.name_of(id.inputs[0]), "h");
}

TEST(JsonGraph, WritesTheWebnnGraphJsonShape) {
  const Graph g = parse_graph(kSample, "s.json");
  const auto j = nlohmann::ordered_json::parse(print_json(g));
  EXPECT_EQ(j["format"], "webnn-graph-json");
  EXPECT_EQ(j["version"], 2);  // dynamic dims
  EXPECT_EQ(j["inputs"].begin().key(), "zeta");
  EXPECT_EQ(j["inputs"]["zeta"]["shape"][0]["maxSize"], 4);
  EXPECT_EQ(j["inputs"]["zeta"]["dataType"], "float32");
  EXPECT_EQ(j["consts"]["w"]["init"]["kind"], "weights");
  EXPECT_EQ(j["consts"]["w"]["init"]["ref"], "layer.w");
  EXPECT_EQ(j["consts"]["s"]["init"]["kind"], "scalar");
  EXPECT_EQ(j["consts"]["s"]["init"]["value"], -1.5);
  EXPECT_EQ(j["consts"]["k"]["init"]["kind"], "inlineBytes");
  EXPECT_EQ(j["consts"]["k"]["init"]["bytes"][1], 255);
  const auto& cat = j["nodes"][1];
  EXPECT_EQ(cat["id"], "cat");
  EXPECT_EQ(cat["inputs"], nlohmann::ordered_json({"sum", "alpha", "sum"}));
  EXPECT_EQ(cat["options"]["axis"], 0);
  EXPECT_TRUE(cat["outputs"].is_null());
  EXPECT_EQ(j["nodes"][3]["options"]["minValue"], "-inf");
  EXPECT_EQ(j["nodes"][4]["options"]["type"], "float16");
  EXPECT_EQ(j["nodes"][5]["outputs"], nlohmann::ordered_json({"p0", "p1"}));
  EXPECT_EQ(j["outputs"]["result"], "result");
}

TEST(JsonGraph, Rejections) {
  const std::string bad_json =
      parse_error("{\n  \"format\": \"webnn-graph-json\",\n  oops\n}", "b.json");
  EXPECT_NE(bad_json.find("b.json:3:3: invalid JSON"), std::string::npos) << bad_json;
  const std::string deep = parse_error(
      "{\"nodes\": " + std::string(100000, '[') + std::string(100000, ']') + "}", "d.json");
  EXPECT_NE(deep.find("deeper than 64"), std::string::npos) << deep.substr(0, 200);
  const std::string format = parse_error(R"({"format": "other"})", "f.json");
  EXPECT_NE(format.find("webnn-graph-json"), std::string::npos) << format;
  const std::string pads = parse_error(R"({"format": "webnn-graph-json",
    "inputs": {"x": {"dataType": "float32", "shape": [1, 1, 4, 4]}},
    "consts": {"w": {"dataType": "float32", "shape": [1, 1, 3, 3]}},
    "nodes": [{"id": "y", "op": "conv2d", "inputs": ["x", "w"], "options": {"pads": [1, 1, 1, 1]}}],
    "outputs": {"y": "y"}})",
                                       "p.json");
  EXPECT_NE(pads.find("nodes[0]"), std::string::npos) << pads;
  EXPECT_NE(pads.find("did you mean 'padding'"), std::string::npos) << pads;
  const std::string bytes = parse_error(R"({"format": "webnn-graph-json",
    "consts": {"k": {"dataType": "uint8", "shape": [1], "init": {"kind": "inlineBytes", "bytes": [300]}}},
    "outputs": {"k": "k"}})",
                                        "k.json");
  EXPECT_NE(bytes.find("300 is not in 0..255"), std::string::npos) << bytes;
  const std::string ghost = parse_error(R"({"format": "webnn-graph-json",
    "inputs": {"x": {"dataType": "float32", "shape": [1]}}, "outputs": {"y": "ghost"}})",
                                        "o.json");
  EXPECT_NE(ghost.find("'ghost' names nothing"), std::string::npos) << ghost;
  const std::string none = parse_error(R"({"format": "webnn-graph-json",
    "inputs": {"x": {"dataType": "float32", "shape": [1]}}})",
                                       "n.json");
  EXPECT_NE(none.find("no outputs"), std::string::npos) << none;
  const std::string overflow = parse_error(R"({"format": "webnn-graph-json",
    "inputs": {"x": {"dataType": "float32", "shape": [18446744073709551615]}}, "outputs": {"x": "x"}})",
                                           "v.json");
  EXPECT_NE(overflow.find("does not fit in 64 bits"), std::string::npos) << overflow;
}

}  // namespace
}  // namespace wnn::format
