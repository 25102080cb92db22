// topo_order: the order the importer converts nodes in, whatever order the file lists them;
// and whole imports of files whose nodes (top level and If branches) are out of order.
#include "wnn/onnx/topo_order.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "test_util.h"
#include "wnn/core/ops/schema.h"
#include "wnn/onnx/import.h"

namespace wnn::onnx {
namespace {

using testing::error_of;

NodeProto node(std::string name, std::string op, std::vector<std::string> in,
               std::vector<std::string> out) {
  NodeProto n;
  n.name = std::move(name);
  n.op_type = std::move(op);
  n.input = std::move(in);
  n.output = std::move(out);
  return n;
}

auto available(std::set<std::string> names) {
  return [names = std::move(names)](const std::string& v) { return names.count(v) > 0; };
}

std::vector<size_t> order_of(const std::vector<NodeProto>& nodes,
                             std::set<std::string> outside = {"x", "w"}) {
  return topo_order(nodes, available(std::move(outside)));
}

TEST(TopoOrder, SortedListKeepsItsOrder) {
  // Two independent chains interleaved, a join, a node with an omitted optional input, and one
  // reading only outside values late in the list: already sorted, so nothing moves.
  const std::vector<NodeProto> nodes = {
      node("a1", "Relu", {"x"}, {"a"}),         node("b1", "Neg", {"w"}, {"b"}),
      node("a2", "Sigmoid", {"a"}, {"a2"}),     node("j", "Add", {"a2", "b"}, {"j"}),
      node("c", "Clip", {"j", "", "w"}, {"c"}), node("late", "Abs", {"x"}, {"late"}),
  };
  EXPECT_EQ(order_of(nodes), (std::vector<size_t>{0, 1, 2, 3, 4, 5}));
}

TEST(TopoOrder, CastsAppendedLastMoveBeforeTheirReaders) {
  // The float16 converter's shape: the body reads x_cast, whose Cast is listed last; the output
  // Cast (listed second to last) reads the body's result.
  const std::vector<NodeProto> nodes = {
      node("conv", "Conv", {"x_cast", "w"}, {"c"}),
      node("relu", "Relu", {"c"}, {"r"}),
      node("out_cast", "Cast", {"r"}, {"y"}),
      node("in_cast", "Cast", {"x"}, {"x_cast"}),
  };
  EXPECT_EQ(order_of(nodes), (std::vector<size_t>{3, 0, 1, 2}));
}

TEST(TopoOrder, ReadyNodesGoInListOrder) {
  // Reversed chain p3 <- p2 <- p1 plus two free nodes: the free ones are ready first and keep
  // their relative order; the chain follows as each producer is placed.
  const std::vector<NodeProto> nodes = {
      node("p3", "Relu", {"v2"}, {"v3"}),  node("free1", "Neg", {"w"}, {"f1"}),
      node("p2", "Relu", {"v1"}, {"v2"}),  node("p1", "Relu", {"x"}, {"v1"}),
      node("free0", "Abs", {"x"}, {"f0"}),
  };
  EXPECT_EQ(order_of(nodes), (std::vector<size_t>{1, 3, 2, 0, 4}));
}

TEST(TopoOrder, MissingProducerNamesTheNodeAndTheValue) {
  const std::vector<NodeProto> nodes = {node("ok", "Relu", {"x"}, {"a"}),
                                        node("/conv_in/Conv", "Conv", {"ghost", "w"}, {"b"})};
  EXPECT_EQ(error_of([&] { order_of(nodes); }),
            "node '/conv_in/Conv' (Conv) reads 'ghost', which nothing produced");
  // An unnamed node is still identified by its op.
  EXPECT_EQ(error_of([&] {
              order_of({node("", "Add", {"x", "nope"}, {"s"})});
            }),
            "node '(unnamed)' (Add) reads 'nope', which nothing produced");
}

TEST(TopoOrder, CycleIsReportedWithItsNodes) {
  // q and r read each other; s only waits on the cycle and is not part of it.
  const std::vector<NodeProto> nodes = {node("s", "Relu", {"qv"}, {"sv"}),
                                        node("q", "Add", {"x", "rv"}, {"qv"}),
                                        node("r", "Mul", {"qv", "w"}, {"rv"})};
  const std::string e = error_of([&] { order_of(nodes); });
  EXPECT_EQ(e,
            "the nodes form a cycle: node 'q' (Add) reads 'rv' from node 'r' (Mul) reads 'qv' "
            "from node 'q' (Add)");
}

TEST(TopoOrder, NodeReadingItsOwnOutputIsACycle) {
  EXPECT_EQ(error_of([&] {
              order_of({node("loop", "Add", {"x", "me"}, {"me"})});
            }),
            "the nodes form a cycle: node 'loop' (Add) reads 'me' from node 'loop' (Add)");
}

TEST(TopoOrder, EmptyListIsEmpty) { EXPECT_TRUE(order_of({}).empty()); }

GraphProto branch(std::vector<NodeProto> nodes, std::string output) {
  GraphProto g;
  g.node = std::move(nodes);
  g.output.push_back({std::move(output), {}});
  return g;
}

NodeProto if_node(std::string name, std::string cond, GraphProto then_g, GraphProto else_g,
                  std::string out) {
  NodeProto n = node(std::move(name), "If", {std::move(cond)}, {std::move(out)});
  AttributeProto t, e;
  t.name = "then_branch";
  t.type = e.type = AttributeProto::Type::kGraph;
  e.name = "else_branch";
  t.g = std::make_shared<GraphProto>(std::move(then_g));
  e.g = std::make_shared<GraphProto>(std::move(else_g));
  n.attribute = {t, e};
  return n;
}

TEST(TopoOrder, SubgraphCapturesAreDependencies) {
  // The If is listed first, but its then branch reads 'late' (and its else branch returns 'v'
  // straight from the outer scope): it must follow both producers.
  const std::vector<NodeProto> nodes = {
      if_node("if", "x", branch({node("t", "Neg", {"late"}, {"tv"})}, "tv"), branch({}, "v"), "y"),
      node("make_v", "Relu", {"x"}, {"v"}),
      node("make_late", "Abs", {"w"}, {"late"}),
  };
  EXPECT_EQ(order_of(nodes), (std::vector<size_t>{1, 2, 0}));
  EXPECT_EQ(outer_reads(*nodes[0].attribute[0].g), (std::set<std::string>{"late"}));
}

TEST(TopoOrder, ValuesASubgraphDefinesShadowOuterOnes) {
  // The branch defines 'v' itself (a node output) and 'k' (an input of the subgraph): neither is
  // a capture, so the If need not wait for the outer producer of 'v'.
  GraphProto b =
      branch({node("inner", "Relu", {"k"}, {"v"}), node("use", "Neg", {"v"}, {"o"})}, "o");
  b.input.push_back({"k", {}});
  const std::vector<NodeProto> nodes = {if_node("if", "x", b, branch({}, "x"), "y"),
                                        node("outer_v", "Relu", {"x"}, {"v"})};
  EXPECT_EQ(order_of(nodes), (std::vector<size_t>{0, 1}));
  EXPECT_TRUE(outer_reads(b).empty());
}

// A graph's structure as text: each node's op, its operands' names and descriptors, in order.
std::string structure(const Graph& g) {
  std::string s;
  auto operand = [&](OperandId id) { return g.name_of(id) + ":" + g.desc(id).to_string(); };
  for (const auto& n : g.nodes()) {
    s += std::string(op_name(n.op())) + "(";
    for (OperandId in : n.inputs) s += operand(in) + " ";
    s += ") -> ";
    for (OperandId out : n.outputs) s += operand(out) + " ";
    s += "\n";
  }
  return s;
}

// Models for whole imports: the same graph listed sorted and shuffled must convert to the same
// WebNN text.
ValueInfoProto input(std::string name, int32_t type, std::vector<int64_t> dims) {
  ValueInfoProto v;
  v.name = std::move(name);
  v.type.kind = TypeProto::Kind::kTensor;
  v.type.elem_type = type;
  v.type.has_shape = true;
  for (int64_t d : dims) v.type.dims.push_back({d, ""});
  return v;
}

AttributeProto to_attr(OnnxType t) {
  AttributeProto a;
  a.name = "to";
  a.type = AttributeProto::Type::kInt;
  a.i = int64_t(t);
  return a;
}

TensorProto float16_init(std::string name, std::vector<int64_t> dims, std::vector<int32_t> bits) {
  TensorProto t;
  t.name = std::move(name);
  t.dims = std::move(dims);
  t.data_type = int32_t(OnnxType::kFloat16);
  t.int32_data = std::move(bits);  // float16 travels as its bits in int32_data
  return t;
}

ModelProto keep_io_types_model(bool casts_last) {
  // float32 x -> Cast(float16) -> Mul by a float16 weight -> Relu -> Cast(float32) -> y.
  NodeProto in_cast = node("graph_input_cast0", "Cast", {"x"}, {"graph_input_cast_0"});
  in_cast.attribute = {to_attr(OnnxType::kFloat16)};
  NodeProto out_cast = node("graph_output_cast0", "Cast", {"r"}, {"y"});
  out_cast.attribute = {to_attr(OnnxType::kFloat)};
  const NodeProto mul = node("mul", "Mul", {"graph_input_cast_0", "w"}, {"m"});
  const NodeProto relu = node("relu", "Relu", {"m"}, {"r"});
  ModelProto m;
  m.ir_version = 8;
  m.opset_import = {{"", 17}};
  m.graph.input = {input("x", int32_t(OnnxType::kFloat), {2, 3})};
  m.graph.output.push_back({"y", {}});
  // 0x3e00 = 1.5, 0xc000 = -2, 0x0000 = 0
  m.graph.initializer = {float16_init("w", {3}, {0x3e00, 0xc000, 0x0000})};
  m.graph.node = casts_last ? std::vector<NodeProto>{mul, relu, in_cast, out_cast}
                            : std::vector<NodeProto>{in_cast, mul, relu, out_cast};
  return m;
}

TEST(ImportOrder, CastsListedLastConvertLikeTheSortedFile) {
  const ImportResult sorted = import_model(keep_io_types_model(false), "");
  std::vector<std::pair<size_t, size_t>> progress;
  ImportOptions options;
  options.on_node = [&](size_t done, size_t total) { progress.emplace_back(done, total); };
  const ImportResult shuffled = import_model(keep_io_types_model(true), "", options);
  EXPECT_EQ(structure(shuffled.graph), structure(sorted.graph));
  EXPECT_NE(structure(sorted.graph).find("float16"), std::string::npos);
  // Values are recorded in conversion order, which is the sorted file's.
  EXPECT_EQ(shuffled.values, sorted.values);
  ASSERT_FALSE(shuffled.values.empty());
  EXPECT_EQ(shuffled.values.front().first, "graph_input_cast_0");
  EXPECT_EQ(progress, (std::vector<std::pair<size_t, size_t>>{{1, 4}, {2, 4}, {3, 4}, {4, 4}}));
}

TEST(ImportOrder, IfBranchNodesAreOrderedToo) {
  // A known condition inlines the then branch, whose two nodes are listed consumer first.
  auto make = [](bool shuffled) {
    ModelProto m = keep_io_types_model(false);
    TensorProto cond;
    cond.name = "cond";
    cond.data_type = int32_t(OnnxType::kBool);
    cond.int32_data = {1};
    m.graph.initializer.push_back(cond);
    NodeProto neg = node("neg", "Neg", {"t1"}, {"t2"});
    NodeProto abs = node("abs", "Abs", {"x"}, {"t1"});
    GraphProto then_g = branch(
        shuffled ? std::vector<NodeProto>{neg, abs} : std::vector<NodeProto>{abs, neg}, "t2");
    m.graph.node.push_back(if_node("if", "cond", then_g, branch({}, "x"), "z"));
    m.graph.output.push_back({"z", {}});
    return m;
  };
  EXPECT_EQ(structure(import_model(make(true), "").graph),
            structure(import_model(make(false), "").graph));
}

TEST(ImportOrder, ReadOfAnUnproducedValueFailsBeforeConverting) {
  ModelProto m = keep_io_types_model(true);
  m.graph.node.pop_back();  // the output Cast
  m.graph.node.pop_back();  // the input Cast: the Mul reads a value nothing produces
  m.graph.node.push_back(node("y_id", "Identity", {"r"}, {"y"}));
  EXPECT_NE(error_of([&] {
              import_model(m, "");
            }).find("node 'mul' (Mul) reads 'graph_input_cast_0', which nothing produced"),
            std::string::npos);
}

}  // namespace
}  // namespace wnn::onnx
