// The three overlays: the class and panel facts each gives a known node.
#include <gtest/gtest.h>

#include <memory>

#include "wnn/core/builder.h"
#include "wnn/core/error.h"
#include "wnn/view/overlay.h"

namespace wnn::view {
namespace {

// x -> conv2d -> relu -> sigmoid -> add(., x') -> y ; the filter and bias are weights.
struct Net {
  Graph g;
  GraphBuilder b{g};
  Net() {
    const auto x = b.input("x", {DataType::kFloat32, {1, 2, 5, 5}});
    const auto w = b.constant("w", {DataType::kFloat32, {2, 2, 3, 3}}, ConstantInitKind::kScalar,
                              {}, Value(0.5));
    const auto c = b.add1(OpKind::kConv2d, {x, w}, {{"padding", IntList{1, 1, 1, 1}}}, "conv");
    const auto r = b.add1(OpKind::kRelu, {c}, {}, "relu");
    const auto s = b.add1(OpKind::kSigmoid, {r}, {}, "sig");
    b.output(b.add1(OpKind::kAdd, {s, x}, {}, "y"));
  }
  uint32_t node(const std::string& name) const { return g.operand(*g.find(name)).producer; }
};

passes::Candidate supporting(std::string name, std::set<OpKind> ops) {
  return {name, [name, ops](const Graph&, const Node& n) {
            return ops.count(n.op())
                       ? passes::Support::yes()
                       : passes::Support::no(name + " has no " + std::string(op_name(n.op())));
          }};
}

TEST(PartitionOverlay, ColoursByDelegateAndGivesTheReasonsOfReferenceNodes) {
  Net net;
  runtime::ExecutionPlan plan;
  plan.graph = std::make_shared<const Graph>(net.g);
  plan.partition = passes::partition_graph(
      *plan.graph, {supporting("onednn", {OpKind::kConv2d, OpKind::kRelu, OpKind::kAdd}),
                    supporting("xnnpack", {OpKind::kConv2d})});
  const Overlay o = partition_overlay(net.g, plan);
  EXPECT_EQ(o.nodes[net.node("conv")]->css_class, "part-onednn shade-0");
  EXPECT_EQ(o.nodes[net.node("relu")]->css_class, "part-onednn shade-0");
  EXPECT_EQ(o.nodes[net.node("sig")]->css_class, "part-ref");
  EXPECT_EQ(o.nodes[net.node("sig")]->detail["reasons"],
            "onednn: onednn has no sigmoid; xnnpack: xnnpack has no sigmoid");
  EXPECT_EQ(o.nodes[net.node("y")]->css_class, "part-onednn shade-1");  // a second region
}

TEST(PartitionOverlay, MarksNodesTheExecutedGraphFoldedOrFused) {
  Net net;
  // The executed graph: conv folded into a constant of the same name, relu gone (fused),
  // sig and y left as they are.
  Graph executed;
  GraphBuilder b(executed);
  const auto x = b.input("x", {DataType::kFloat32, {1, 2, 5, 5}});
  const auto conv = b.constant("conv", {DataType::kFloat32, {1, 2, 5, 5}},
                               ConstantInitKind::kScalar, {}, Value(1.0));
  const auto s = b.add1(OpKind::kSigmoid, {conv}, {}, "sig");
  b.output(b.add1(OpKind::kAdd, {s, x}, {}, "y"));
  runtime::ExecutionPlan plan;
  plan.graph = std::make_shared<const Graph>(std::move(executed));
  plan.partition = passes::partition_graph(*plan.graph, {supporting("onednn", {OpKind::kAdd})});
  const Overlay o = partition_overlay(net.g, plan);
  EXPECT_EQ(o.nodes[net.node("conv")]->css_class, "part-folded");
  EXPECT_EQ(o.nodes[net.node("relu")]->css_class, "part-fused");
  EXPECT_EQ(o.nodes[net.node("sig")]->css_class, "part-ref");
  EXPECT_EQ(o.nodes[net.node("y")]->css_class, "part-onednn shade-0");
}

nlohmann::json report_fixture() {
  // The shape of validate::report_json with --per-node (the browser test checks a real one).
  return nlohmann::json::parse(R"({
    "model": "net.onnx", "status": "fail", "stage": "numerical", "message": "y differs",
    "outputs": [{"name": "y", "dtype": "float32", "shape": [1, 2, 5, 5], "pass": false,
                 "max_abs": 0.3, "max_normalized": 2950.0}],
    "per_node": {
      "compared": 5, "skipped": 0, "first_divergent": {"onnx_node": "Sigmoid_3", "op_type": "Sigmoid", "value": "sig:0",
                          "operand": "sig"},
      "nodes": [
        {"onnx_node": "Conv_1", "op_type": "Conv", "value": "conv", "operand": "conv",
         "pass": true, "max_abs": 1e-7, "max_normalized": 0.004},
        {"onnx_node": "Relu_2", "op_type": "Relu", "value": "relu", "operand": "relu",
         "pass": true, "max_abs": 5e-5, "max_normalized": 0.6},
        {"onnx_node": "Sigmoid_3", "op_type": "Sigmoid", "value": "sig:0", "operand": "sig",
         "pass": false, "max_abs": 0.0013, "max_normalized": 12.5},
        {"onnx_node": "Add_4", "op_type": "Add", "value": "y", "operand": "y",
         "pass": false, "max_abs": 0.3, "max_normalized": 2950.0},
        {"onnx_node": "Gone_5", "op_type": "Relu", "value": "gone", "operand": "gone",
         "pass": true, "max_normalized": 0.1}
      ]}})");
}

TEST(ReportOverlay, ColoursByNormalizedErrorAndMarksTheFirstDivergentNode) {
  Net net;
  const Overlay o = report_overlay(net.g, report_fixture());
  EXPECT_EQ(o.nodes[net.node("conv")]->css_class, "err-low");
  EXPECT_EQ(o.nodes[net.node("relu")]->css_class, "err-pass");
  EXPECT_EQ(o.nodes[net.node("sig")]->css_class, "err-fail err-first");
  EXPECT_EQ(o.nodes[net.node("y")]->css_class, "err-high");
  EXPECT_EQ(o.nodes[net.node("sig")]->detail["compared"][0]["max_normalized"], 12.5);
  EXPECT_EQ(o.outputs[0]->css_class, "err-high");
  EXPECT_EQ(o.summary["outputs"][0]["name"], "y");
  ASSERT_EQ(o.warnings.size(), 1u);  // the entry for an operand this graph lacks
  EXPECT_NE(o.warnings[0].find("'gone'"), std::string::npos);
}

TEST(ReportOverlay, AReportWithoutPerNodeStillColoursTheOutputs) {
  Net net;
  nlohmann::json r = report_fixture();
  r.erase("per_node");
  const Overlay o = report_overlay(net.g, r);
  EXPECT_FALSE(o.nodes[net.node("sig")].has_value());
  EXPECT_EQ(o.outputs[0]->css_class, "err-high");
  EXPECT_EQ(o.warnings.size(), 1u);
}

TEST(ReportOverlay, RejectsJsonThatIsNotAReport) {
  Net net;
  EXPECT_THROW(report_overlay(net.g, nlohmann::json::parse(R"({"name": "resnet18"})")), Error);
  EXPECT_THROW(report_overlay(net.g, nlohmann::json::parse("[]")), Error);
}

TEST(ProfileOverlay, ChargesAFusedStepByFlopsAndColoursByShareOfTheHottest) {
  Net net;
  const auto bench = nlohmann::json::parse(R"({"profile": [
    {"label": "conv2d+relu 'relu'", "where": "onednn#0", "op": "conv2d", "ms": 2.0,
     "nodes": ["conv", "relu"]},
    {"label": "sigmoid 'sig'", "where": "ref", "op": "sigmoid", "ms": 0.1, "nodes": ["sig"]},
    {"label": "reorder", "where": "onednn#0", "op": "reorder", "ms": 0.05, "nodes": []}]})");
  const Overlay o = profile_overlay(net.g, bench);
  EXPECT_EQ(o.nodes[net.node("conv")]->css_class, "heat-5");
  EXPECT_EQ(o.nodes[net.node("conv")]->detail["ms per run"], 2.0);
  EXPECT_EQ(o.nodes[net.node("relu")]->css_class, "heat-0");  // no FLOPs: nothing charged
  EXPECT_EQ(o.nodes[net.node("sig")]->css_class, "heat-3");   // 0.1 / 2.0 = 5%
  EXPECT_EQ(o.nodes[net.node("y")]->css_class, "heat-none");
  EXPECT_EQ(o.summary["not charged to a node"], 0.05);
}

TEST(ProfileOverlay, AStepOfNodesWithoutFlopsIsSharedEvenly) {
  Net net;
  const auto bench = nlohmann::json::parse(R"({"profile": [
    {"label": "region", "where": "onednn#0", "op": "region", "ms": 1.0, "nodes": ["sig", "y"]}]})");
  const Overlay o = profile_overlay(net.g, bench);
  EXPECT_EQ(o.nodes[net.node("sig")]->detail["ms per run"], 0.5);
  EXPECT_EQ(o.nodes[net.node("y")]->detail["ms per run"], 0.5);
}

TEST(ProfileOverlay, RejectsAProfileWithoutNodeNames) {
  Net net;
  const auto old = nlohmann::json::parse(R"({"profile": [{"label": "x", "ms": 1.0}]})");
  EXPECT_THROW(profile_overlay(net.g, old), Error);
  EXPECT_THROW(profile_overlay(net.g, nlohmann::json::parse("{}")), Error);
}

}  // namespace
}  // namespace wnn::view
