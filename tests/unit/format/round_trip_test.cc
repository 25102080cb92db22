#include <gtest/gtest.h>

#include <set>

#include "format_test_util.h"
#include "wnn/format/graph_file.h"

namespace wnn::format {
namespace {

using testing::fixture;

const char* const kFixtures[] = {"all_ops.webnn", "torch2webnn_style.webnn",
                                 "onnx2webnn_style.webnn"};

TEST(RoundTrip, AllOpsFixtureCoversEveryOperatorAndOptionKind) {
  const Graph g = read_graph_file(fixture("all_ops.webnn"));
  std::set<OpKind> ops;
  std::set<ParamKind> kinds;
  for (const auto& n : g.nodes()) {
    ops.insert(n.op());
    for (size_t i = 0; i < n.attrs.size(); ++i) {
      if (!std::holds_alternative<std::monostate>(n.attrs.at(i))) {
        kinds.insert(n.attrs.schema().param(i).kind);
      }
    }
  }
  EXPECT_EQ(ops.size(), all_schemas().size());
  for (const auto& s : all_schemas()) EXPECT_TRUE(ops.contains(s.kind)) << s.name;
  for (ParamKind k : {ParamKind::kOperand, ParamKind::kOperandList, ParamKind::kBool,
                      ParamKind::kInt, ParamKind::kFloat, ParamKind::kNumber, ParamKind::kIntList,
                      ParamKind::kFloatList, ParamKind::kIntOrIntList, ParamKind::kEnum,
                      ParamKind::kEnumList, ParamKind::kDataType, ParamKind::kString}) {
    EXPECT_TRUE(kinds.contains(k)) << param_kind_name(k);
  }
}

TEST(RoundTrip, TextPrintParsePrintIsStable) {
  for (const char* name : kFixtures) {
    const Graph g = read_graph_file(fixture(name));
    const std::string once = print_text(g);
    const Graph again = parse_text(once, "printed.webnn");
    EXPECT_EQ(print_text(again), once) << name;
    EXPECT_EQ(again.nodes().size(), g.nodes().size()) << name;
    // Declaration order is kept.
    for (size_t i = 0; i < g.constants().size(); ++i) {
      EXPECT_EQ(again.name_of(again.constants()[i].id), g.name_of(g.constants()[i].id));
    }
  }
}

TEST(RoundTrip, JsonPrintParsePrintIsStableAndMatchesText) {
  for (const char* name : kFixtures) {
    const Graph g = read_graph_file(fixture(name));
    const std::string json = print_json(g);
    const Graph from_json = parse_graph(json, "printed.json");
    EXPECT_EQ(print_json(from_json), json) << name;
    EXPECT_EQ(print_text(from_json), print_text(g)) << name;
  }
}

TEST(RoundTrip, CanonicalLayoutFromHandWrittenText) {
  // The expectation is written by hand from the canonical rules, not copied from the printer.
  const Graph g = parse_text(R"(webnn_graph "c" v1 {
  nodes {
    [parts_0, parts_1] = split(x, axis=1, splits=2);
    y = conv2d(x, w, bias=b, groups=1, padding=[1, 1, 1, 1]);
    s = clamp(parts_0, maxValue=6, minValue=-inf);
    h = linear(y, beta=1e-7, alpha=100000000000000000000.0);
  }
  consts { b: f32[2] @scalar(0.1); w: f32[2, 2, 3, 3] @weights("conv.w"); }
  inputs { x: f32[1, 2, 4, 4]; }
  outputs { h, s; parts_1 }
})",
                             "c.webnn");
  const std::string expected = R"(webnn_graph "c" v1 {
  inputs {
    x: f32[1, 2, 4, 4];
  }
  consts {
    b: f32[2] @scalar(0.1);
    w: f32[2, 2, 3, 3] @weights("conv.w");
  }
  nodes {
    [parts_0, parts_1] = split(x, splits=2, axis=1);
    y = conv2d(x, w, padding=[1, 1, 1, 1], groups=1, bias=b);
    s = clamp(parts_0, minValue=-inf, maxValue=6);
    h = linear(y, alpha=1e+20, beta=1e-07);
  }
  outputs {
    h;
    s;
    parts_1;
  }
}
)";
  EXPECT_EQ(print_text(g), expected);
}

}  // namespace
}  // namespace wnn::format
