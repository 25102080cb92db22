// The scene of a WebNN graph: chains collapsed into one box, constants inside their readers,
// every node and operand use drawn exactly once, no edge through a box or a label, and the
// same page bytes for the same graph.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "wnn/core/builder.h"
#include "wnn/format/graph_file.h"
#include "wnn/view/page.h"
#include "wnn/view/scene.h"

namespace wnn::view {
namespace {

const OperandDesc kDesc{DataType::kFloat32, {2, 3}};

// x -> relu -> tanh -> add(tanh, sigmoid(x)) -> mul(., w) -> y, with `a` (relu's output)
// optionally a graph output too.
struct Branchy {
  Graph g;
  GraphBuilder b{g};
  explicit Branchy(bool relu_is_output) {
    const auto x = b.input("x", kDesc);
    const auto w = b.constant("w", kDesc, ConstantInitKind::kScalar, {}, Value(int64_t(3)));
    const auto a = b.add1(OpKind::kRelu, {x}, {}, "a");
    const auto t = b.add1(OpKind::kTanh, {a}, {}, "t");
    const auto s = b.add1(OpKind::kSigmoid, {x}, {}, "s");
    const auto d = b.add1(OpKind::kAdd, {t, s}, {}, "d");
    const auto y = b.add1(OpKind::kMul, {d, w}, {}, "y");
    b.output(y);
    if (relu_is_output) b.output(a);
  }
};

std::vector<std::string> ops_of(const Graph& g, const SceneBox& box) {
  std::vector<std::string> ops;
  for (const auto& s : box.sections) ops.push_back(std::string(op_name(g.nodes()[s.node].op())));
  return ops;
}

TEST(Scene, CollapsesChainsThatHandOneValueStraightOn) {
  Branchy f(false);
  const Scene s = build_scene(f.g);
  // input, [relu tanh], [sigmoid], [add mul], output
  ASSERT_EQ(s.boxes.size(), 5u);
  EXPECT_EQ(s.boxes[0].kind, BoxKind::kInput);
  EXPECT_EQ(ops_of(f.g, s.boxes[1]), (std::vector<std::string>{"relu", "tanh"}));
  EXPECT_EQ(ops_of(f.g, s.boxes[2]), (std::vector<std::string>{"sigmoid"}));
  EXPECT_EQ(ops_of(f.g, s.boxes[3]), (std::vector<std::string>{"add", "mul"}));
  EXPECT_EQ(s.boxes[4].kind, BoxKind::kOutput);
  EXPECT_EQ(s.box_of_node, (std::vector<uint32_t>{1, 1, 2, 3, 3}));
  // The scalar constant is a row of mul's section, with its value.
  ASSERT_EQ(s.boxes[3].sections[1].constants.size(), 1u);
  EXPECT_EQ(s.boxes[3].sections[1].constants[0].text, "b: float32[2,3] = 3");
  // Inner edges: relu->tanh and add->mul; edges: x->relu, x->sigmoid, tanh->add,
  // sigmoid->add, mul->output.
  EXPECT_EQ(s.inner_edges.size(), 2u);
  EXPECT_EQ(s.edges.size(), 5u);
}

TEST(Scene, AGraphOutputInTheMiddleBreaksTheChain) {
  Branchy f(true);
  const Scene s = build_scene(f.g);
  EXPECT_NE(s.box_of_node[0], s.box_of_node[1]);  // relu's value must leave its box
  EXPECT_EQ(s.box_of_node[3], s.box_of_node[4]);
}

TEST(Scene, WithoutCollapsingEveryNodeIsItsOwnBox) {
  Branchy f(false);
  SceneOptions o;
  o.collapse_chains = false;
  const Scene s = build_scene(f.g, o);
  EXPECT_EQ(s.boxes.size(), 7u);
  EXPECT_TRUE(s.inner_edges.empty());
  EXPECT_EQ(s.edges.size(), 7u);
}

TEST(Scene, AValueReadTwiceIsNotAChain) {
  Graph g;
  GraphBuilder b(g);
  const auto x = b.input("x", kDesc);
  const auto a = b.add1(OpKind::kRelu, {x}, {}, "a");
  const auto p = b.add1(OpKind::kExp, {a}, {}, "p");
  const auto q = b.add1(OpKind::kAbs, {a}, {}, "q");
  b.output(p);
  b.output(q);
  const Scene s = build_scene(g);
  EXPECT_EQ(std::set<uint32_t>(s.box_of_node.begin(), s.box_of_node.end()).size(), 3u);
}

// A random graph of elementwise nodes with branches, long skips and shared constants.
Graph random_graph(size_t nodes, uint32_t seed) {
  std::mt19937 rng(seed);
  Graph g;
  GraphBuilder b(g);
  std::vector<OperandId> values = {b.input("x", kDesc), b.input("z", kDesc)};
  const auto c = b.constant("c", kDesc, ConstantInitKind::kScalar, {}, Value(int64_t(2)));
  const OpKind unary[] = {OpKind::kRelu, OpKind::kTanh, OpKind::kExp, OpKind::kAbs};
  const OpKind binary[] = {OpKind::kAdd, OpKind::kMul, OpKind::kSub, OpKind::kMax};
  for (size_t i = 0; i < nodes; ++i) {
    auto pick = [&] {
      const size_t back =
          rng() % 6 == 0 ? rng() % values.size() : rng() % std::min<size_t>(3, values.size());
      return values[values.size() - 1 - back];
    };
    const std::string name = "v" + std::to_string(i);
    switch (rng() % 3) {
      case 0:
        values.push_back(b.add1(unary[rng() % 4], {pick()}, {}, name));
        break;
      case 1:
        values.push_back(b.add1(binary[rng() % 4], {pick(), pick()}, {}, name));
        break;
      default:
        values.push_back(b.add1(binary[rng() % 4], {pick(), c}, {}, name));
    }
  }
  b.output(values.back());
  b.output(values[values.size() / 2]);
  return g;
}

struct Rect {
  int x0, y0, x1, y1;
};
bool enters(const Point& a, const Point& b, const Rect& r) {
  return std::min(a.x, b.x) < r.x1 && std::max(a.x, b.x) > r.x0 && std::min(a.y, b.y) < r.y1 &&
         std::max(a.y, b.y) > r.y0;
}

TEST(Scene, DrawsEveryNodeAndUseOnceAndRoutesAroundBoxesAndLabels) {
  const Graph g = random_graph(150, 3);
  const Scene s = build_scene(g);
  std::vector<int> drawn(g.nodes().size(), 0);
  for (const auto& box : s.boxes) {
    for (const auto& sec : box.sections) ++drawn[sec.node];
  }
  for (size_t n = 0; n < drawn.size(); ++n) EXPECT_EQ(drawn[n], 1) << "node " << n;
  // Distinct (operand, reader) pairs of non-constant operands, plus the graph outputs: each is
  // either an edge between boxes or an arrow inside a chain box.
  std::set<std::pair<uint32_t, uint32_t>> uses;
  for (uint32_t n = 0; n < g.nodes().size(); ++n) {
    for (OperandId id : g.nodes()[n].inputs) {
      if (g.operand(id).kind != OperandKind::kConstant) uses.insert({id.index, n});
    }
  }
  EXPECT_EQ(s.edges.size() + s.inner_edges.size(), uses.size() + g.outputs().size());
  std::vector<Rect> obstacles;
  for (const auto& box : s.boxes)
    obstacles.push_back({box.x, box.y, box.x + box.width, box.y + box.height});
  for (const auto& l : s.labels) {
    const int w = int(display_width(l.text) * kRowCharWidth);
    obstacles.push_back({l.x, l.y - 9, l.x + w, l.y + 2});
  }
  for (size_t e = 0; e < s.edges.size(); ++e) {
    const auto& pts = s.edges[e].points;
    for (size_t k = 0; k + 1 < pts.size(); ++k) {
      for (size_t o = 0; o < obstacles.size(); ++o) {
        ASSERT_FALSE(enters(pts[k], pts[k + 1], obstacles[o]))
            << "edge " << e << " segment " << k << " crosses obstacle " << o;
      }
    }
  }
  for (size_t a = 0; a < s.boxes.size(); ++a) {
    for (size_t b = a + 1; b < s.boxes.size(); ++b) {
      const Rect ra = obstacles[a], rb = obstacles[b];
      ASSERT_FALSE(ra.x0 < rb.x1 && rb.x0 < ra.x1 && ra.y0 < rb.y1 && rb.y0 < ra.y1)
          << "boxes " << a << " and " << b << " overlap";
    }
  }
}

TEST(Page, SameGraphGivesTheSameBytes) {
  const std::string text = format::print_text(random_graph(400, 9));
  auto page_of = [&] {
    const Graph g = format::parse_text(text, "g.webnn");
    const Scene s = build_scene(g);
    PageInput in;
    in.title = "g.webnn";
    in.graph = &g;
    in.scene = &s;
    return render_page(in);
  };
  const std::string a = page_of();
  EXPECT_EQ(a, page_of());
  // Every node is in the page as its own element, every edge as a path.
  const Graph g = format::parse_text(text, "g.webnn");
  for (size_t n = 0; n < g.nodes().size(); ++n) {
    EXPECT_NE(a.find("id=\"n" + std::to_string(n) + "\" data-n="), std::string::npos) << n;
  }
  EXPECT_EQ(a.find("</script><script"), a.rfind("</script><script"));  // no injected script
}

TEST(Page, NamesCannotBreakOutOfTheMarkup) {
  Graph g;
  GraphBuilder b(g);
  const auto x = b.input("x</script><b>&\"", kDesc);
  b.output(b.add1(OpKind::kRelu, {x}, {}, "y<!--"));
  const Scene s = build_scene(g);
  PageInput in;
  in.title = "<i>title</i>";
  in.graph = &g;
  in.scene = &s;
  const std::string page = render_page(in);
  EXPECT_EQ(page.find("x</script>"), std::string::npos);
  EXPECT_EQ(page.find("<b>&"), std::string::npos);
  EXPECT_EQ(page.find("y<!--"), std::string::npos);
  EXPECT_EQ(page.find("<i>"), std::string::npos);
  EXPECT_NE(page.find("x&lt;/script&gt;&lt;b&gt;&amp;&quot;"), std::string::npos);
  EXPECT_NE(page.find("x\\u003c/script>\\u003cb>&\\\""), std::string::npos);  // the JSON
}

TEST(Scene, TwoThousandNodesAreLaidOut) {
  const Graph g = random_graph(2000, 21);
  const Scene s = build_scene(g);
  size_t sections = 0;
  for (const auto& box : s.boxes) sections += box.sections.size();
  EXPECT_EQ(sections, 2000u);
  EXPECT_GT(s.height, 0);
}

}  // namespace
}  // namespace wnn::view
