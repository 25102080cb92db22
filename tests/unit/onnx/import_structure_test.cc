// Importer behaviour checked on the WebNN graph it builds, from models written as structs.
#include <gtest/gtest.h>

#include "wnn/core/builder.h"

#include <set>
#include <tuple>

#include "wnn/core/names.h"
#include "wnn/onnx/import.h"
#include "wnn/onnx/registry.h"

namespace wnn::onnx {
namespace {

ValueInfoProto tensor_input(std::string name, std::vector<Dimension> dims,
                            int32_t type = int32_t(OnnxType::kFloat)) {
  ValueInfoProto v;
  v.name = std::move(name);
  v.type.kind = TypeProto::Kind::kTensor;
  v.type.elem_type = type;
  v.type.has_shape = true;
  v.type.dims = std::move(dims);
  return v;
}

Dimension dim(int64_t v) { return {v, ""}; }
Dimension param(std::string p) { return {std::nullopt, std::move(p)}; }

AttributeProto ints_attr(std::string name, std::vector<int64_t> v) {
  AttributeProto a;
  a.name = std::move(name);
  a.type = AttributeProto::Type::kInts;
  a.ints = std::move(v);
  return a;
}
AttributeProto int_attr(std::string name, int64_t v) {
  AttributeProto a;
  a.name = std::move(name);
  a.type = AttributeProto::Type::kInt;
  a.i = v;
  return a;
}

TensorProto int64_init(std::string name, std::vector<int64_t> v) {
  TensorProto t;
  t.name = std::move(name);
  t.dims = {int64_t(v.size())};
  t.data_type = int32_t(OnnxType::kInt64);
  t.int64_data = std::move(v);
  return t;
}

NodeProto node(std::string op, std::vector<std::string> in, std::vector<std::string> out,
               std::vector<AttributeProto> attrs = {}, std::string domain = "") {
  NodeProto n;
  n.name = op + "_node";
  n.op_type = std::move(op);
  n.input = std::move(in);
  n.output = std::move(out);
  n.attribute = std::move(attrs);
  n.domain = std::move(domain);
  return n;
}

ModelProto model(int64_t opset, std::vector<ValueInfoProto> inputs, std::vector<NodeProto> nodes,
                 std::vector<std::string> outputs, std::vector<TensorProto> inits = {}) {
  ModelProto m;
  m.ir_version = 8;
  m.opset_import = {{"", opset}};
  m.graph.input = std::move(inputs);
  m.graph.node = std::move(nodes);
  m.graph.initializer = std::move(inits);
  for (auto& o : outputs) m.graph.output.push_back({o, {}});
  return m;
}

const Node& only_node(const Graph& g, OpKind op) {
  const Node* found = nullptr;
  for (const auto& n : g.nodes()) {
    if (n.op() == op) {
      EXPECT_EQ(found, nullptr) << "more than one " << op_name(op);
      found = &n;
    }
  }
  EXPECT_NE(found, nullptr) << "no " << op_name(op);
  return *found;
}

TEST(ImportSlice, NegativeStepsBecomeReverseThenForwardSlice) {
  // x[4::-2 (from -1), 4:0:-3] on [5, 6]; the end -6 clamps to "before the first element".
  auto m = model(13, {tensor_input("x", {dim(5), dim(6)})},
                 {node("Slice", {"x", "starts", "ends", "axes", "steps"}, {"y"})}, {"y"},
                 {int64_init("starts", {-1, 4}), int64_init("ends", {-6, 0}),
                  int64_init("axes", {0, 1}), int64_init("steps", {-2, -3})});
  ImportResult r = import_model(m, "");
  const Node& rev = only_node(r.graph, OpKind::kReverse);
  EXPECT_EQ(rev.attrs.get_ints("axes"), (IntList{0, 1}));
  const Node& s = only_node(r.graph, OpKind::kSlice);
  // Rows 4, 2, 0 are reversed rows 0, 2, 4; columns 4, 1 are reversed columns 1, 4.
  EXPECT_EQ(s.attrs.get_ints("starts"), (IntList{0, 1}));
  // WebNN sizes are extents: 3 rows at stride 2 span 5, 2 columns at stride 3 span 4.
  EXPECT_EQ(s.attrs.get_ints("sizes"), (IntList{5, 4}));
  EXPECT_EQ(s.attrs.get_ints("strides"), (IntList{2, 3}));
  EXPECT_EQ(r.graph.desc(*r.graph.find("y")).shape, (Shape{3, 2}));
}

TEST(ImportSlice, OverflowingBoundsClampAndPositiveStepsSkipReverse) {
  auto m = model(
      13, {tensor_input("x", {dim(7)})},
      {node("Slice", {"x", "starts", "ends", "", "steps"}, {"y"})}, {"y"},
      {int64_init("starts", {-100}), int64_init("ends", {INT64_MAX}), int64_init("steps", {3})});
  ImportResult r = import_model(m, "");
  for (const auto& n : r.graph.nodes()) EXPECT_NE(n.op(), OpKind::kReverse);
  const Node& s = only_node(r.graph, OpKind::kSlice);
  EXPECT_EQ(s.attrs.get_ints("starts"), (IntList{0}));
  EXPECT_EQ(s.attrs.get_ints("sizes"), (IntList{7}));  // 0, 3, 6 span 7
  EXPECT_EQ(r.graph.desc(*r.graph.find("y")).shape, (Shape{3}));
}

TEST(ImportConv, PadsAreReorderedToWebnnOrder) {
  TensorProto w;
  w.name = "w";
  w.dims = {2, 1, 3, 3};
  w.data_type = int32_t(OnnxType::kFloat);
  w.float_data.assign(18, 0.5f);
  auto m = model(13, {tensor_input("x", {dim(1), dim(1), dim(8), dim(9)})},
                 {node("Conv", {"x", "w"}, {"y"}, {ints_attr("pads", {1, 2, 3, 4})})}, {"y"}, {w});
  ImportResult r = import_model(m, "");
  const Node& c = only_node(r.graph, OpKind::kConv2d);
  EXPECT_EQ(c.attrs.get_ints("padding"), (IntList{1, 3, 2, 4}));
  // H: 8 + 1 + 3 - 2 = 10, W: 9 + 2 + 4 - 2 = 13.
  EXPECT_EQ(r.graph.desc(*r.graph.find("y")).shape, (Shape{1, 2, 10, 13}));
}

TEST(ImportAttributes, ZeroIsNotAbsent) {
  // keepdims=0 drops the axis; absent keepdims keeps it.
  auto make = [](std::vector<AttributeProto> attrs) {
    return model(13, {tensor_input("x", {dim(2), dim(3), dim(4)})},
                 {node("ReduceSum", {"x", "axes"}, {"y"}, std::move(attrs))}, {"y"},
                 {int64_init("axes", {1})});
  };
  ImportResult dropped = import_model(make({int_attr("keepdims", 0)}), "");
  EXPECT_EQ(dropped.graph.desc(*dropped.graph.find("y")).shape, (Shape{2, 4}));
  ImportResult kept = import_model(make({}), "");
  EXPECT_EQ(kept.graph.desc(*kept.graph.find("y")).shape, (Shape{2, 1, 4}));

  // Flatten axis=0 gives [1, N]; the default axis=1 gives [d0, rest].
  auto flat = [](std::vector<AttributeProto> attrs) {
    return model(13, {tensor_input("x", {dim(2), dim(3)})},
                 {node("Flatten", {"x"}, {"y"}, std::move(attrs))}, {"y"});
  };
  ImportResult f0 = import_model(flat({int_attr("axis", 0)}), "");
  EXPECT_EQ(f0.graph.desc(*f0.graph.find("y")).shape, (Shape{1, 6}));
  ImportResult f1 = import_model(flat({}), "");
  EXPECT_EQ(f1.graph.desc(*f1.graph.find("y")).shape, (Shape{2, 3}));
}

TEST(ImportUnsupported, EveryUnsupportedNodeIsReportedAtOnce) {
  auto m = model(17, {tensor_input("x", {dim(2), dim(3)})},
                 {node("RandomNormalLike", {"x"}, {"r"}), node("Relu", {"x"}, {"a"}),
                  node("Gelu", {"a"}, {"g"}),  // Gelu exists from opset 20 only
                  node("FancyOp", {"a"}, {"f"}, {}, "com.example"),
                  // Mod's default fmod=0 is undefined on floats.
                  node("Mod", {"a", "a"}, {"y"})},
                 {"y"});
  try {
    import_model(m, "");
    FAIL() << "no error";
  } catch (const UnsupportedModelError& e) {
    ASSERT_EQ(e.nodes().size(), 4u) << e.what();
    EXPECT_EQ(e.nodes()[0].op_type, "RandomNormalLike");
    EXPECT_EQ(e.nodes()[0].category, "randomness");
    EXPECT_EQ(e.nodes()[1].op_type, "Gelu");
    EXPECT_NE(e.nodes()[1].reason.find("opset 17"), std::string::npos);
    EXPECT_EQ(e.nodes()[2].domain, "com.example");
    EXPECT_NE(e.nodes()[3].reason.find("fmod=0"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("4 unsupported node(s)"), std::string::npos);
  }
}

// An output the converter does not compute is reported, never an internal error: here a Relu
// given a second output (found by fuzz_onnx_import), next to a valid node.
TEST(ImportUnsupported, AnOutputTheConverterDoesNotComputeIsNamed) {
  auto m = model(17, {tensor_input("x", {dim(2), dim(3)})},
                 {node("Relu", {"x"}, {"y", "extra"}), node("Neg", {"y"}, {"z"})}, {"z"});
  try {
    import_model(m, "");
    FAIL() << "no error";
  } catch (const UnsupportedModelError& e) {
    ASSERT_EQ(e.nodes().size(), 1u) << e.what();
    EXPECT_EQ(e.nodes()[0].op_type, "Relu");
    EXPECT_NE(e.nodes()[0].reason.find("output 1 ('extra') is not computed"), std::string::npos)
        << e.nodes()[0].reason;
  }
}

// fuzz_onnx_import: strides [2, 0] divided by zero while sizing the pool's output. Each
// spatial attribute below 1 (and a negative pad) is reported, naming the axis.
TEST(ImportUnsupported, PoolAndConvAttributesBelowOneAreNamed) {
  const std::vector<std::pair<std::vector<AttributeProto>, std::string>> cases = {
      {{ints_attr("kernel_shape", {3, 3}), ints_attr("strides", {2, 0}), int_attr("ceil_mode", 1)},
       "spatial axis 1 has stride 0, dilation 1 and kernel size 3"},
      {{ints_attr("kernel_shape", {0, 2})},
       "spatial axis 0 has stride 1, dilation 1 and kernel size 0"},
      {{ints_attr("kernel_shape", {2, 2}), ints_attr("pads", {0, -1, 0, 0})},
       "pads of spatial axis 1 are -1 and 0"},
  };
  for (const auto& [attrs, want] : cases) {
    SCOPED_TRACE(want);
    auto m = model(17, {tensor_input("x", {dim(1), dim(1), dim(4), dim(4)})},
                   {node("AveragePool", {"x"}, {"y"}, attrs)}, {"y"});
    try {
      import_model(m, "");
      FAIL() << "no error";
    } catch (const UnsupportedModelError& e) {
      ASSERT_EQ(e.nodes().size(), 1u) << e.what();
      EXPECT_NE(e.nodes()[0].reason.find(want), std::string::npos) << e.nodes()[0].reason;
    }
  }
}

TEST(ImportDims, UnresolvedDimsAreListedTogetherAndOverridesResolveThem) {
  auto m = model(13,
                 {tensor_input("a", {param("batch"), param("seq")}),
                  tensor_input("b", {param("batch"), param("len")})},
                 {node("Add", {"a", "b"}, {"y"})}, {"y"});
  try {
    import_model(m, "");
    FAIL() << "no error";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("'a' dim 1 (seq)"), std::string::npos) << msg;
    EXPECT_NE(msg.find("'b' dim 1 (len)"), std::string::npos) << msg;
    EXPECT_EQ(msg.find("batch"), std::string::npos) << msg;  // batch-like: defaults to 1
    EXPECT_NE(msg.find("--override-dim"), std::string::npos);
  }
  ImportOptions o;
  o.override_dims = {{"seq", 5}, {"len", 5}, {"batch", 3}};
  ImportResult r = import_model(m, "", o);
  EXPECT_EQ(r.graph.desc(*r.graph.find("a")).shape, (Shape{3, 5}));
}

TEST(ImportDims, UnnamedDimsTakeAxisOverridesAndTheErrorNamesEachFlag) {
  const Dimension unnamed{std::nullopt, ""};
  auto m = model(
      13, {tensor_input("x", {unnamed, dim(4)}), tensor_input("in:0", {unnamed, param("seq")})},
      {node("Add", {"x", "in:0"}, {"y"})}, {"y"});
  try {
    import_model(m, "");
    FAIL() << "no error";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("'x' dim 0 (unnamed): --override-dim x:0=V"), std::string::npos) << msg;
    EXPECT_NE(msg.find("'in:0' dim 0 (unnamed): --override-dim in:0:0=V"), std::string::npos)
        << msg;
    EXPECT_NE(msg.find("'in:0' dim 1 (seq): --override-dim seq=V"), std::string::npos) << msg;
    EXPECT_NE(msg.find("3 free input dimension(s)"), std::string::npos) << msg;
  }
  ImportOptions o;
  o.override_dims = {{"x:0", 3}, {"in:0:0", 3}, {"seq", 4}};
  ImportResult r = import_model(m, "", o);
  EXPECT_EQ(r.graph.desc(*r.graph.find("x")).shape, (Shape{3, 4}));
  // An axis key wins over the dim's name; 0 is a value.
  o.override_dims = {{"x:0", 0}, {"in:0:0", 0}, {"seq", 9}, {"in:0:1", 4}};
  r = import_model(m, "", o);
  EXPECT_EQ(r.graph.desc(*r.graph.find("x")).shape, (Shape{0, 4}));
  EXPECT_EQ(r.inputs.size(), 2u);
  // A fixed dim must agree; an axis past the rank is refused.
  for (const auto& [key, expected] : std::vector<std::pair<std::string, std::string>>{
           {"x:1", "is fixed at 4"}, {"x:2", "has 2 axes"}}) {
    o.override_dims = {{"x:0", 3}, {"in:0:0", 3}, {"seq", 4}, {key, 5}};
    try {
      import_model(m, "", o);
      ADD_FAILURE() << key << " was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
  }
  o.override_dims = {{"x:0", 3}, {"in:0:0", 3}, {"seq", 4}, {"x:1", 4}};  // agrees: fine
  EXPECT_NO_THROW(import_model(m, "", o));
}

TEST(ImportNames, MappingIsValidInjectiveAndDeterministic) {
  NameMapper a, b;
  const std::vector<std::string> names = {"conv1.weight", "a b", "a_b", "a?b", "0x", "", "a b"};
  std::set<std::string> seen;
  for (size_t i = 0; i + 1 < names.size(); ++i) {
    const std::string m = a.map(names[i]);
    EXPECT_TRUE(is_valid_operand_name(m)) << m;
    EXPECT_TRUE(seen.insert(m).second) << names[i] << " -> " << m;
    EXPECT_EQ(b.map(names[i]), m);  // same answer in another mapper
  }
  EXPECT_EQ(a.map("conv1.weight"), "conv1.weight");
  EXPECT_EQ(a.map("a_b"), "a_b");
  EXPECT_NE(a.map("a b"), "a_b");
  EXPECT_EQ(a.map("a b"), a.map(names.back()));
}

TEST(ImportNames, GraphInputsAndOutputsKeepNamesTheTextFormCanHold) {
  auto m = model(13, {tensor_input("pixel_values", {dim(2)})},
                 {node("Relu", {"pixel_values"}, {"logits"})}, {"logits"});
  ImportResult r = import_model(m, "");
  EXPECT_EQ(r.graph.name_of(r.graph.outputs()[0]), "logits");
  EXPECT_TRUE(r.graph.find("pixel_values").has_value());
  EXPECT_EQ(r.inputs,
            (std::vector<std::pair<std::string, std::string>>{{"pixel_values", "pixel_values"}}));
}

TEST(ImportNames, OtherGraphNamesAreMappedAndTheMappingRecorded) {
  auto m = model(13, {tensor_input("in put", {dim(2)})}, {node("Relu", {"in put"}, {"0"})}, {"0"});
  ImportResult r = import_model(m, "");
  ASSERT_EQ(r.graph.outputs().size(), 1u);
  ASSERT_EQ(r.outputs.size(), 1u);
  ASSERT_EQ(r.inputs.size(), 1u);
  EXPECT_EQ(r.outputs[0].first, "0");
  EXPECT_EQ(r.inputs[0].first, "in put");
  EXPECT_EQ(r.graph.name_of(r.graph.outputs()[0]), r.outputs[0].second);
  EXPECT_TRUE(is_valid_operand_name(r.outputs[0].second)) << r.outputs[0].second;
  EXPECT_TRUE(is_valid_operand_name(r.inputs[0].second)) << r.inputs[0].second;
  EXPECT_TRUE(r.graph.find(r.inputs[0].second).has_value());
  EXPECT_NE(r.outputs[0].second, r.inputs[0].second);
}

TEST(ImportFolding, ShapeArithmeticFoldsToAConstantReshape) {
  // Reshape(x, Shape(x)[0:1] ++ [-1]) folds: no shape op reaches the graph.
  auto m = model(13, {tensor_input("x", {dim(2), dim(3), dim(4)})},
                 {node("Shape", {"x"}, {"s"}, {int_attr("end", 1)}),
                  node("Concat", {"s", "minus1"}, {"shape"}, {int_attr("axis", 0)}),
                  node("Reshape", {"x", "shape"}, {"y"})},
                 {"y"}, {int64_init("minus1", {-1})});
  ImportResult r = import_model(m, "");
  EXPECT_EQ(r.graph.desc(*r.graph.find("y")).shape, (Shape{2, 12}));
}

TensorProto scalar_init(std::string name, OnnxType type, float v) {
  TensorProto t;
  t.name = std::move(name);
  t.data_type = int32_t(type);
  if (type == OnnxType::kFloat)
    t.float_data = {v};
  else
    t.int32_data = {int32_t(v)};
  return t;
}

TEST(ImportDropout, TrainingModeWithAKnownZeroRatioIsTheIdentity) {
  // Dropout(x, ratio, training_mode) with its mask output; only the ratio varies.
  auto make = [](std::vector<TensorProto> inits, std::vector<std::string> in) {
    inits.push_back(scalar_init("train", OnnxType::kBool, 1));
    in.insert(in.begin(), "x");
    in.push_back("train");
    return model(13, {tensor_input("x", {dim(2), dim(3)})}, {node("Dropout", in, {"y", "mask"})},
                 {"y", "mask"}, std::move(inits));
  };
  ImportResult r = import_model(make({scalar_init("ratio", OnnxType::kFloat, 0)}, {"ratio"}), "");
  EXPECT_EQ(r.graph.desc(*r.graph.find("y")).shape, (Shape{2, 3}));
  const OperandDesc mask = r.graph.desc(*r.graph.find("mask"));
  EXPECT_EQ(mask.shape, (Shape{2, 3}));
  EXPECT_EQ(mask.dtype, DataType::kUint8);

  // A nonzero ratio, given or the default 0.5, drops at random: not expressible.
  for (auto [inits, in, ratio] :
       {std::tuple{std::vector<TensorProto>{scalar_init("ratio", OnnxType::kFloat, 0.25f)},
                   std::vector<std::string>{"ratio"}, "ratio 0.25"},
        std::tuple{std::vector<TensorProto>{}, std::vector<std::string>{""}, "ratio 0.5"}}) {
    try {
      import_model(make(inits, in), "");
      ADD_FAILURE() << "no error for " << ratio;
    } catch (const UnsupportedModelError& e) {
      ASSERT_EQ(e.nodes().size(), 1u) << e.what();
      EXPECT_EQ(e.nodes()[0].category, "training");
      EXPECT_NE(e.nodes()[0].reason.find(ratio), std::string::npos) << e.nodes()[0].reason;
    }
  }
}

TEST(ImportRegistry, DispatchHonoursOpsetRanges) {
  const Converter* old_softmax = find_converter("", "Softmax", 11);
  const Converter* new_softmax = find_converter("ai.onnx", "Softmax", 13);
  ASSERT_NE(old_softmax, nullptr);
  ASSERT_NE(new_softmax, nullptr);
  EXPECT_NE(old_softmax, new_softmax);
  EXPECT_EQ(find_converter("", "Gelu", 19), nullptr);
  EXPECT_EQ(find_converter("com.microsoft", "Relu", 1), nullptr);
}

}  // namespace
}  // namespace wnn::onnx

namespace wnn::onnx {
namespace {

TEST(ImportOrigins, EveryNodeNamesTheOnnxNodeItCameFrom) {
  // Relu -> Slice with negative steps (two WebNN nodes: reverse, slice); the input passed
  // straight to a second output gets an identity the importer adds on its own.
  auto m = model(
      13, {tensor_input("x", {dim(5), dim(6)})},
      {node("Relu", {"x"}, {"r"}), node("Slice", {"r", "starts", "ends", "axes", "steps"}, {"y"})},
      {"y", "x"},
      {int64_init("starts", {-1}), int64_init("ends", {-6}), int64_init("axes", {0}),
       int64_init("steps", {-2})});
  m.graph.output[1].name = "x";
  const ImportResult r = import_model(m, "");
  ASSERT_EQ(r.origin_of.size(), r.graph.nodes().size());
  ASSERT_EQ(r.origins.size(), 2u);
  EXPECT_EQ(r.origins[0].name, "Relu_node");
  EXPECT_EQ(r.origins[0].op_type, "Relu");
  EXPECT_EQ(r.origins[0].outputs, (std::vector<std::pair<std::string, std::string>>{{"r", "r"}}));
  EXPECT_EQ(r.origins[1].name, "Slice_node");
  std::map<OpKind, int32_t> origin_by_op;
  for (size_t n = 0; n < r.graph.nodes().size(); ++n) {
    origin_by_op[r.graph.nodes()[n].op()] = r.origin_of[n];
  }
  EXPECT_EQ(origin_by_op[OpKind::kRelu], 0);
  EXPECT_EQ(origin_by_op[OpKind::kReverse], 1);
  EXPECT_EQ(origin_by_op[OpKind::kSlice], 1);
  EXPECT_EQ(origin_by_op[OpKind::kIdentity], -1);
}

}  // namespace
}  // namespace wnn::onnx
