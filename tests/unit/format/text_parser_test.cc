#include <gtest/gtest.h>

#include <cmath>

#include "format_test_util.h"
#include "wnn/format/graph_file.h"

namespace wnn::format {
namespace {

using testing::fixture;
using testing::parse_error;
using testing::with_nodes;

const Node& node_named(const Graph& g, const std::string& output) {
  const auto id = g.find(output);
  EXPECT_TRUE(id.has_value()) << output;
  return g.nodes()[g.operand(*id).producer];
}

TEST(TextParser, StringsMustBeUtf8BecauseTheJsonFormHoldsOnlyThat) {
  const std::string msg = parse_error(
      "webnn_graph \"to\xff"
      "ch\" v1 {\n  inputs { x: f32[2]; }\n  outputs { x; }\n}\n");
  EXPECT_NE(msg.find("t.webnn:1:13: the string is not valid UTF-8 (byte 2"), std::string::npos)
      << msg;
  const Graph g = parse_text(
      "webnn_graph \"t\xc3\xa9\" v1 {\n  inputs { x: f32[2]; }\n  nodes { y = relu(x); "
      "}\n  outputs { y; }\n}\n",
      "t.webnn");
  EXPECT_EQ(g.name, "t\xc3\xa9");
  EXPECT_EQ(parse_json(print_json(g), "t.json").name, g.name);
}

TEST(TextParser, PytorchConvWithPaddingInfersOutputShape) {
  const Graph g = parse_text(R"(webnn_graph "conv" v1 {
  inputs { x: f32[1, 1, 28, 28]; }
  consts { weight_1: f32[32, 1, 5, 5]; }
  nodes {
    y = conv2d(x, weight_1, filterLayout="oihw", groups=1, inputLayout="nchw", padding=[1, 1, 1, 1]);
  }
  outputs { y; }
})",
                             "conv.webnn");
  // (28 + 1 + 1 - 5) / 1 + 1 = 26
  EXPECT_EQ(g.desc(*g.find("y")).shape, (Shape{1, 32, 26, 26}));
  EXPECT_EQ(node_named(g, "y").attrs.get_ints("padding"), (IntList{1, 1, 1, 1}));
  // No annotation means @weights("<own name>").
  EXPECT_EQ(g.constants()[0].init, ConstantInitKind::kWeights);
  EXPECT_EQ(g.constants()[0].key, "weight_1");
}

TEST(TextParser, PytorchConvWithPadsIsRejectedSuggestingPadding) {
  const std::string msg = parse_error(R"(webnn_graph "conv" v1 {
  inputs { x: f32[1, 1, 28, 28]; }
  consts { weight_1: f32[32, 1, 5, 5]; }
  nodes {
    y = conv2d(x, weight_1, filterLayout="oihw", groups=1, inputLayout="nchw", pads=[1, 1, 1, 1]);
  }
  outputs { y; }
})",
                                      "conv.webnn");
  EXPECT_NE(msg.find("conv.webnn:5:5"), std::string::npos) << msg;   // the statement
  EXPECT_NE(msg.find("conv.webnn:5:80"), std::string::npos) << msg;  // the argument
  EXPECT_NE(msg.find("'pads'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("did you mean 'padding'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("conv2d"), std::string::npos) << msg;
}

TEST(TextParser, ConcatOfPositionalListInfersJoinedShape) {
  const Graph g = parse_text(R"(webnn_graph "cat" v1 {
  inputs { tensors_0: f32[2, 3, 4, 5]; tensors_1: f32[2, 3, 4, 5]; }
  nodes { cat = concat([tensors_0, tensors_1], axis=0); }
  outputs { cat; }
})",
                             "cat.webnn");
  EXPECT_EQ(g.desc(*g.find("cat")).shape, (Shape{4, 3, 4, 5}));
  EXPECT_EQ(node_named(g, "cat").attrs.get_operands("inputs").size(), 2u);
}

TEST(TextParser, AcceptsCommentsBlocksInAnyOrderAndRepeated) {
  const Graph g = parse_text(R"(# a comment
// another comment
webnn_graph "t" v1 {
  outputs { z }        # outputs before the nodes they name
  nodes { y = relu(x); }  // trailing comment
  inputs { x: f32[3]; }
  nodes { z = add(y, c); }
  consts { c: f32[3] @scalar(-2); }
}
)",
                             "t.webnn");
  ASSERT_EQ(g.nodes().size(), 2u);
  ASSERT_EQ(g.outputs().size(), 1u);
  EXPECT_EQ(g.name_of(g.outputs()[0]), "z");
  EXPECT_EQ(std::get<int64_t>(g.constants()[0].scalar), -2);
}

TEST(TextParser, AcceptsOlderSpellings) {
  const Graph g = parse_text(with_nodes(R"(    [a] = cast(x, to="Float16");
    b = cast(x, type=i32);
    c = conv2d(p, q, inputLayout=nhwc, filterLayout=ohwi);
    y = relu(x);)")
                                 .insert(50, "    p: f32[1, 5, 5, 2];\n    q: f32[4, 3, 3, 2];\n"),
                             "t.webnn");
  EXPECT_EQ(g.desc(*g.find("a")).dtype, DataType::kFloat16);
  EXPECT_EQ(g.desc(*g.find("b")).dtype, DataType::kInt32);
  EXPECT_EQ(node_named(g, "c").attrs.get_enum("inputLayout"), "nhwc");
  EXPECT_EQ(g.desc(*g.find("c")).shape, (Shape{1, 3, 3, 4}));
}

TEST(TextParser, MultiOutputBracketForm) {
  const Graph g = parse_text(with_nodes("    [y, s2] = split(w, splits=[1, 2], axis=0);\n"
                                        "    [s3] = split(x, splits=1, axis=1);",
                                        "y, s2"),
                             "t.webnn");
  EXPECT_EQ(g.desc(*g.find("y")).shape, (Shape{1, 4}));
  EXPECT_EQ(g.desc(*g.find("s2")).shape, (Shape{2, 4}));
  EXPECT_EQ(g.desc(*g.find("s3")).shape, (Shape{2, 3}));
  EXPECT_EQ(g.outputs().size(), 2u);
}

TEST(TextParser, SpecialFloatLiterals) {
  const Graph g = parse_text(with_nodes("    y = clamp(x, minValue=-inf, maxValue=nan);\n"
                                        "    z = linear(x, alpha=inf, beta=-0.0);",
                                        "y, z"),
                             "t.webnn");
  const Node& y = node_named(g, "y");
  EXPECT_TRUE(std::isinf(y.attrs.get_float("minValue")));
  EXPECT_LT(y.attrs.get_float("minValue"), 0);
  EXPECT_TRUE(std::isnan(y.attrs.get_float("maxValue")));
  const Node& z = node_named(g, "z");
  EXPECT_GT(z.attrs.get_float("alpha"), 1e308);
  EXPECT_TRUE(std::signbit(z.attrs.get_float("beta")));
}

TEST(TextParser, AbsentIsNotZero) {
  const Graph g = parse_text(with_nodes("    y = softmax(x, axis=0);\n"
                                        "    r = reduceMean(x, keepDimensions=false);\n"
                                        "    t = reduceMean(x);",
                                        "y, r, t"),
                             "t.webnn");
  EXPECT_EQ(node_named(g, "y").attrs.get_int("axis"), 0);
  EXPECT_TRUE(node_named(g, "r").attrs.has("keepDimensions"));
  EXPECT_FALSE(node_named(g, "t").attrs.has("keepDimensions"));
  const std::string text = print_text(g);
  EXPECT_NE(text.find("y = softmax(x, axis=0);"), std::string::npos) << text;
  EXPECT_NE(text.find("r = reduceMean(x, keepDimensions=false);"), std::string::npos) << text;
  EXPECT_NE(text.find("t = reduceMean(x);"), std::string::npos) << text;
}

TEST(TextParser, DynamicDimsAndQuantizedHeader) {
  const Graph g = parse_text(R"(webnn_graph "d" v2 @quantized {
  inputs { x: f32[dyn("batch", 16), 3]; }
  consts { k: i8[2] @bytes([255, 0]); }
  nodes { y = relu(x); }
  outputs { y; }
})",
                             "d.webnn");
  EXPECT_TRUE(g.quantized);
  ASSERT_EQ(g.inputs()[0].dynamic_dims.size(), 2u);
  EXPECT_EQ(g.inputs()[0].dynamic_dims[0], (DynamicDim{"batch", 16}));
  EXPECT_FALSE(g.inputs()[0].dynamic_dims[1].has_value());
  EXPECT_EQ(g.desc(g.inputs()[0].id).shape, (Shape{16, 3}));
  EXPECT_EQ(g.constants()[0].bytes, (std::vector<uint8_t>{255, 0}));
  EXPECT_EQ(static_cast<int8_t>(g.constants()[0].data.bytes()[0]), -1);
}

TEST(TextParser, NamesWithDotsSlashesDollarsAndColons) {
  const Graph g = parse_text(R"(webnn_graph "n" v1 {
  inputs { /enc/x.0: f32[2]; $tmp: f32[2]; onnx::Add_3: f32[2]; a-b: f32[2]; }
  nodes { out/y = add(/enc/x.0, $tmp); z = sub(onnx::Add_3, a-b); }
  outputs { out/y; z; }
})",
                             "n.webnn");
  EXPECT_TRUE(g.find("onnx::Add_3").has_value());
  EXPECT_TRUE(g.find("a-b").has_value());
  EXPECT_EQ(g.nodes().size(), 2u);
}

TEST(TextParser, StyleFixturesLoad) {
  const Graph t = read_graph_file(fixture("torch2webnn_style.webnn"));
  EXPECT_EQ(t.desc(*t.find("conv2d_1")).shape, (Shape{1, 32, 26, 26}));
  EXPECT_EQ(t.desc(*t.find("out")).dtype, DataType::kFloat16);
  EXPECT_EQ(t.desc(*t.find("out")).shape, (Shape{1, 10}));
  const Graph o = read_graph_file(fixture("onnx2webnn_style.webnn"));
  EXPECT_TRUE(o.has_dynamic_inputs());
  EXPECT_EQ(o.desc(*o.find("logits")).shape, (Shape{8, 4}));
  EXPECT_EQ(o.constants()[0].key, "onnx__MatMul_12");
  const std::string text = print_text(o);
  EXPECT_EQ(text.rfind("webnn_graph \"onnx_model\" v2 {\n", 0), 0u) << text;
}

// ---- rejections: each names the place, the operator and the argument ----

TEST(TextParserErrors, PositionalNonOperandSuggestsNamedForm) {
  const std::string msg = parse_error(with_nodes("    y = reshape(x, [1,6]);"));
  EXPECT_NE(msg.find("t.webnn:7:20"), std::string::npos) << msg;
  EXPECT_NE(msg.find("reshape"), std::string::npos) << msg;
  EXPECT_NE(msg.find("newShape=[1, 6]"), std::string::npos) << msg;
  const std::string axis = parse_error(with_nodes("    y = softmax(x, 1);"));
  EXPECT_NE(axis.find("axis=1"), std::string::npos) << axis;
  const std::string num = parse_error(with_nodes("    y = add(x, 2.5);"));
  EXPECT_NE(num.find("argument 'b' must be an operand name"), std::string::npos) << num;
  EXPECT_NE(num.find("2.5"), std::string::npos) << num;
}

TEST(TextParserErrors, UndefinedNameAndRedefinition) {
  const std::string undefined = parse_error(with_nodes("    y = add(x, nothing);"));
  EXPECT_NE(undefined.find("t.webnn:7:5"), std::string::npos) << undefined;
  EXPECT_NE(undefined.find("'nothing' is not defined"), std::string::npos) << undefined;
  EXPECT_NE(undefined.find("argument 'b'"), std::string::npos) << undefined;
  const std::string later = parse_error(with_nodes("    y = relu(z);\n    z = relu(x);"));
  EXPECT_NE(later.find("'z' is not defined before its use"), std::string::npos) << later;
  const std::string twice = parse_error(with_nodes("    y = relu(x);\n    y = relu(w);"));
  EXPECT_NE(twice.find("t.webnn:8:5"), std::string::npos) << twice;
  EXPECT_NE(twice.find("already defined"), std::string::npos) << twice;
  const std::string shadow = parse_error(with_nodes("    x = relu(w);\n    y = relu(x);"));
  EXPECT_NE(shadow.find("'x' is already defined"), std::string::npos) << shadow;
}

TEST(TextParserErrors, UnknownOptionWrongTypeAndMissingArgument) {
  const std::string unknown = parse_error(with_nodes("    y = relu(x, alpha=1);"));
  EXPECT_NE(unknown.find("unknown option 'alpha'"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("t.webnn:7:17"), std::string::npos) << unknown;
  const std::string type = parse_error(with_nodes("    y = softmax(x, axis=\"one\");"));
  EXPECT_NE(type.find("argument 'axis'"), std::string::npos) << type;
  EXPECT_NE(type.find("expected an integer"), std::string::npos) << type;
  const std::string missing = parse_error(with_nodes("    y = softmax(x);"));
  EXPECT_NE(missing.find("missing required argument 'axis'"), std::string::npos) << missing;
  const std::string op = parse_error(with_nodes("    y = rellu(x);"));
  EXPECT_NE(op.find("did you mean 'relu'"), std::string::npos) << op;
  const std::string shape = parse_error(with_nodes("    y = matmul(w, x);"));
  EXPECT_NE(shape.find("t.webnn:7:5"), std::string::npos) << shape;
  EXPECT_NE(shape.find("matmul"), std::string::npos) << shape;
}

TEST(TextParserErrors, OutputsMustNameSomethingAndExist) {
  const std::string nothing = parse_error(with_nodes("    y = relu(x);", "y, ghost"));
  EXPECT_NE(nothing.find("t.webnn:9:16"), std::string::npos) << nothing;
  EXPECT_NE(nothing.find("'ghost' names nothing"), std::string::npos) << nothing;
  const std::string none = parse_error("webnn_graph \"t\" v1 {\n  inputs { x: f32[1]; }\n}\n");
  EXPECT_NE(none.find("t.webnn:1:1"), std::string::npos) << none;
  EXPECT_NE(none.find("no outputs"), std::string::npos) << none;
}

TEST(TextParserErrors, UnterminatedAndGarbage) {
  const std::string str = parse_error("webnn_graph \"t v1 {\n");
  EXPECT_NE(str.find("t.webnn:1:13: unterminated string"), std::string::npos) << str;
  const std::string block = parse_error("webnn_graph \"t\" v1 {\n  inputs {\n    x: f32[1];\n");
  EXPECT_NE(block.find("unterminated 'inputs' block"), std::string::npos) << block;
  EXPECT_NE(block.find("2:10"), std::string::npos) << block;
  const std::string graph = parse_error("webnn_graph \"t\" v1 {\n  inputs { x: f32[1]; }\n");
  EXPECT_NE(graph.find("unterminated graph"), std::string::npos) << graph;
  const std::string stray = parse_error(with_nodes("    y = relu(x) % 2;"));
  EXPECT_NE(stray.find("t.webnn:7:17: unexpected character '%'"), std::string::npos) << stray;
  const std::string trailing = parse_error(with_nodes("    y = relu(x);") + "extra");
  EXPECT_NE(trailing.find("after the graph's closing"), std::string::npos) << trailing;
  const std::string header = parse_error("graph \"t\" v1 {}");
  EXPECT_NE(header.find("t.webnn:1:1: expected the header"), std::string::npos) << header;
  const std::string version = parse_error("webnn_graph \"t\" v3 { }");
  EXPECT_NE(version.find("unsupported version 'v3'"), std::string::npos) << version;
  const std::string alias = parse_error(with_nodes("    y = x;"));
  EXPECT_NE(alias.find("aliases are not allowed"), std::string::npos) << alias;
}

TEST(TextParserErrors, NumbersAndBytesAreBounded) {
  const std::string big = parse_error(with_nodes("    y = softmax(x, axis=99999999999999999999);"));
  EXPECT_NE(big.find("does not fit in 64 bits"), std::string::npos) << big;
  EXPECT_NE(big.find("t.webnn:7:25"), std::string::npos) << big;
  const std::string huge = parse_error(with_nodes("    y = clamp(x, minValue=1e999);"));
  EXPECT_NE(huge.find("out of the range"), std::string::npos) << huge;
  const std::string byte = parse_error(
      "webnn_graph \"t\" v1 {\n  consts { c: u8[2] @bytes([1, 256]); }\n  outputs { c; }\n}\n");
  EXPECT_NE(byte.find("t.webnn:2:32: @bytes value 256 is not in 0..255"), std::string::npos)
      << byte;
  const std::string negative = parse_error(
      "webnn_graph \"t\" v1 {\n  consts { c: u8[2] @bytes([-1, 2]); }\n  outputs { c; }\n}\n");
  EXPECT_NE(negative.find("@bytes value -1"), std::string::npos) << negative;
  const std::string length = parse_error(
      "webnn_graph \"t\" v1 {\n  consts { c: f32[2] @bytes([1, 2]); }\n  outputs { c; }\n}\n");
  EXPECT_NE(length.find("t.webnn:2:12"), std::string::npos) << length;
  EXPECT_NE(length.find("needs 8 bytes, got 2"), std::string::npos) << length;
  const std::string dim = parse_error(
      "webnn_graph \"t\" v1 {\n  consts { c: f32[dyn(\"b\", 2)]; }\n  outputs { c; }\n}\n");
  EXPECT_NE(dim.find("inputs only"), std::string::npos) << dim;
}

TEST(TextParserErrors, DeepNestingIsRejectedNotACrash) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  const std::string msg = parse_error(with_nodes("    y = reshape(x, newShape=" + deep + ");"));
  EXPECT_NE(msg.find("nest deeper than 64"), std::string::npos) << msg.substr(0, 200);
  const std::string objects = parse_error(with_nodes("    y = relu(x, label=" + [] {
    std::string s;
    for (int i = 0; i < 5000; ++i) s += "{k: ";
    return s;
  }() + ");"));
  EXPECT_NE(objects.find("nest deeper"), std::string::npos) << objects.substr(0, 200);
}

TEST(TextParserErrors, MutatedFilesNeverCrash) {
  // Deterministic mutations of valid text and JSON files: every one must either parse or
  // throw wnn::Error naming the file.
  const Graph base = read_graph_file(fixture("torch2webnn_style.webnn"));
  const std::string sources[] = {read_file(fixture("torch2webnn_style.webnn")),
                                 read_file(fixture("onnx2webnn_style.webnn")), print_json(base)};
  uint64_t state = 0x9e3779b97f4a7c15ull;
  const auto next = [&] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  for (const std::string& valid : sources) {
    int errors = 0, parsed = 0;
    for (int i = 0; i < 1500; ++i) {
      std::string text = valid;
      const int edits = 1 + int(next() % 3);
      for (int e = 0; e < edits; ++e) {
        const size_t at = next() % text.size();
        switch (next() % 3) {
          case 0:
            text[at] = char(next() & 0xff);
            break;
          case 1:
            text.erase(at, 1 + next() % 8);
            break;
          default:
            text.insert(at, 1, "[]{}(),;:=\"@#/-0"[next() % 16]);
            break;
        }
        if (text.empty()) text = "x";
      }
      try {
        parse_graph(text, "fuzz.webnn");
        ++parsed;
      } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("fuzz.webnn"), std::string::npos) << e.what();
        ++errors;
      }
    }
    // Most mutations break the file; some (inside comments, names) leave it valid.
    EXPECT_GT(errors, 500);
    EXPECT_GT(parsed, 0);
  }
}

}  // namespace
}  // namespace wnn::format
