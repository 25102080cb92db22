// The partitioner: maximal convex regions per delegate, preference order, and reasons.
#include <gtest/gtest.h>

#include <set>

#include "wnn/core/builder.h"
#include "wnn/passes/partition.h"

namespace wnn::passes {
namespace {

// A delegate that supports exactly the listed ops.
Candidate fake(std::string name, std::set<OpKind> ops) {
  return {name, [name, ops](const Graph&, const Node& n) {
            return ops.count(n.op()) ? Support::yes()
                                     : Support::no(name + " lacks " + std::string(op_name(n.op())));
          }};
}

struct Fixture {
  Graph g;
  GraphBuilder b{g};
  OperandId x = b.input("x", {DataType::kFloat32, {2, 3}});
};

std::vector<uint32_t> nodes_of(const Partition& p, size_t r) { return p.regions.at(r).nodes; }

TEST(Partition, NeverMergesAcrossAnUnsupportedDetour) {
  // n0 relu (sup) -> n1 sigmoid (unsup) -> n2 add(n0, n1) (sup): merging n0 and n2 would make
  // the region both feed and wait for n1.
  Fixture f;
  const auto a = f.b.add1(OpKind::kRelu, {f.x}, {}, "a");
  const auto s = f.b.add1(OpKind::kSigmoid, {a}, {}, "s");
  const auto y = f.b.add1(OpKind::kAdd, {a, s}, {}, "y");
  f.b.output(y);
  const auto p = partition_graph(f.g, {fake("d", {OpKind::kRelu, OpKind::kAdd})});
  ASSERT_EQ(p.regions.size(), 2u);
  EXPECT_EQ(nodes_of(p, 0), std::vector<uint32_t>{0});
  EXPECT_EQ(nodes_of(p, 1), std::vector<uint32_t>{2});
  EXPECT_EQ(p.region_of[1], -1);
  EXPECT_EQ(p.ref_reason[1], "d: d lacks sigmoid");
  EXPECT_EQ(p.regions[0].outputs, std::vector<OperandId>{a});
}

TEST(Partition, NeverJoinsARegionThatReachesAnotherProducerOfTheNode) {
  // b (sup) -> s (unsup) -> m (sup, joins a's region); then y = add(b, a) must not join b's
  // region: b's region would feed a's region through s while a's region feeds it through y.
  // Each region alone is convex; together they would form a cycle.
  Fixture f;
  const auto b = f.b.add1(OpKind::kRelu, {f.x}, {}, "b");
  const auto s = f.b.add1(OpKind::kSigmoid, {b}, {}, "s");
  const auto a = f.b.add1(OpKind::kAbs, {f.x}, {}, "a");
  const auto m = f.b.add1(OpKind::kAdd, {s, a}, {}, "m");
  const auto y = f.b.add1(OpKind::kMul, {b, a}, {}, "y");
  f.b.output(m);
  f.b.output(y);
  const auto p =
      partition_graph(f.g, {fake("d", {OpKind::kRelu, OpKind::kAbs, OpKind::kAdd, OpKind::kMul})});
  EXPECT_EQ(p.region_of[1], -1);
  EXPECT_EQ(p.region_of[3], p.region_of[2]);
  EXPECT_NE(p.region_of[4], p.region_of[0]);
  // Contract and check the graph of regions has no cycle: no region both feeds and reads the
  // reference node s.
  const int rb = p.region_of[0], ry = p.region_of[4];
  EXPECT_FALSE(rb == ry && p.region_of[3] == rb);
}

TEST(Partition, MergesBranchesThatRejoinInsideTheRegion) {
  Fixture f;
  const auto a = f.b.add1(OpKind::kRelu, {f.x}, {}, "a");
  const auto l = f.b.add1(OpKind::kNeg, {a}, {}, "l");
  const auto r = f.b.add1(OpKind::kAbs, {a}, {}, "r");
  f.b.output(f.b.add1(OpKind::kAdd, {l, r}, {}, "y"));
  const auto p =
      partition_graph(f.g, {fake("d", {OpKind::kRelu, OpKind::kNeg, OpKind::kAbs, OpKind::kAdd})});
  ASSERT_EQ(p.regions.size(), 1u);
  EXPECT_EQ(nodes_of(p, 0), (std::vector<uint32_t>{0, 1, 2, 3}));
  EXPECT_EQ(p.regions[0].inputs, std::vector<OperandId>{f.x});
  EXPECT_EQ(p.regions[0].outputs.size(), 1u);
}

TEST(Partition, MultiOutputNodeExposesOnlyOutputsReadOutside) {
  Fixture f;
  const auto parts =
      f.b.add(OpKind::kSplit, {f.x, int64_t(3)}, {{"axis", int64_t(1)}}, {"p0", "p1", "p2"});
  const auto r0 = f.b.add1(OpKind::kRelu, {parts[0]}, {}, "r0");
  const auto s1 = f.b.add1(OpKind::kSigmoid, {parts[1]}, {}, "s1");  // unsupported
  const auto r2 = f.b.add1(OpKind::kRelu, {parts[2]}, {}, "r2");
  f.b.output(f.b.add1(OpKind::kAdd, {r0, r2}, {}, "y"));
  f.b.output(s1);
  const auto p = partition_graph(f.g, {fake("d", {OpKind::kSplit, OpKind::kRelu, OpKind::kAdd})});
  ASSERT_EQ(p.regions.size(), 1u);
  EXPECT_EQ(nodes_of(p, 0), (std::vector<uint32_t>{0, 1, 3, 4}));
  // parts[1] feeds the reference node; the add's result is a graph output.
  ASSERT_EQ(p.regions[0].outputs.size(), 2u);
  EXPECT_EQ(p.regions[0].outputs[0], parts[1]);
  EXPECT_EQ(f.g.name_of(p.regions[0].outputs[1]), "y");
}

TEST(Partition, GraphOutputProducedMidRegionIsARegionOutput) {
  Fixture f;
  const auto a = f.b.add1(OpKind::kRelu, {f.x}, {}, "a");
  const auto y = f.b.add1(OpKind::kNeg, {a}, {}, "y");
  f.b.output(a);
  f.b.output(y);
  const auto p = partition_graph(f.g, {fake("d", {OpKind::kRelu, OpKind::kNeg})});
  ASSERT_EQ(p.regions.size(), 1u);
  EXPECT_EQ(p.regions[0].outputs, (std::vector<OperandId>{a, y}));
}

TEST(Partition, SingleSupportedNodeIsItsOwnRegion) {
  Fixture f;
  const auto a = f.b.add1(OpKind::kSigmoid, {f.x}, {}, "a");
  const auto r = f.b.add1(OpKind::kRelu, {a}, {}, "r");
  f.b.output(f.b.add1(OpKind::kSigmoid, {r}, {}, "y"));
  const auto p = partition_graph(f.g, {fake("d", {OpKind::kRelu})});
  ASSERT_EQ(p.regions.size(), 1u);
  EXPECT_EQ(nodes_of(p, 0), std::vector<uint32_t>{1});
  EXPECT_EQ(p.regions[0].inputs, std::vector<OperandId>{a});
  EXPECT_EQ(p.regions[0].outputs, std::vector<OperandId>{r});
}

TEST(Partition, TwoDelegatesMeetAndPreferenceDecides) {
  // first supports relu and add; second supports add and sigmoid. The add goes to the first.
  Fixture f;
  const auto r = f.b.add1(OpKind::kRelu, {f.x}, {}, "r");
  const auto s = f.b.add1(OpKind::kSigmoid, {r}, {}, "s");
  const auto y = f.b.add1(OpKind::kAdd, {s, s}, {}, "y");
  f.b.output(y);
  const auto p = partition_graph(f.g, {fake("first", {OpKind::kRelu, OpKind::kAdd}),
                                       fake("second", {OpKind::kAdd, OpKind::kSigmoid})});
  ASSERT_EQ(p.regions.size(), 3u);
  EXPECT_EQ(p.regions[0].delegate, "first");
  EXPECT_EQ(p.regions[1].delegate, "second");
  EXPECT_EQ(p.regions[2].delegate, "first");
  EXPECT_EQ(p.regions[1].inputs, std::vector<OperandId>{r});
  EXPECT_EQ(p.regions[1].outputs, std::vector<OperandId>{s});
}

TEST(Partition, NoSupportedNodeLeavesEverythingOnReferenceWithReasons) {
  Fixture f;
  f.b.output(f.b.add1(OpKind::kExp, {f.b.add1(OpKind::kSigmoid, {f.x})}, {}, "y"));
  const auto p = partition_graph(f.g, {fake("one", {OpKind::kRelu}), fake("two", {})});
  EXPECT_TRUE(p.regions.empty());
  EXPECT_EQ(p.region_of, (std::vector<int>{-1, -1}));
  EXPECT_EQ(p.ref_reason[0], "one: one lacks sigmoid; two: two lacks sigmoid");
  EXPECT_EQ(p.ref_reason[1], "one: one lacks exp; two: two lacks exp");
}

TEST(Partition, LongerDetourThroughTwoReferenceNodesStillSplits) {
  // r0 -> [sig -> exp] -> add(r0', ...) where r0' = relu(r0): region {r0, r0'} may merge, but
  // the add must not join them because the detour leaves and re-enters.
  Fixture f;
  const auto r0 = f.b.add1(OpKind::kRelu, {f.x}, {}, "r0");
  const auto r1 = f.b.add1(OpKind::kRelu, {r0}, {}, "r1");
  const auto e = f.b.add1(OpKind::kExp, {f.b.add1(OpKind::kSigmoid, {r0}, {}, "s")}, {}, "e");
  f.b.output(f.b.add1(OpKind::kAdd, {r1, e}, {}, "y"));
  const auto p = partition_graph(f.g, {fake("d", {OpKind::kRelu, OpKind::kAdd})});
  ASSERT_EQ(p.regions.size(), 2u);
  EXPECT_EQ(nodes_of(p, 0), (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(nodes_of(p, 1), std::vector<uint32_t>{4});
}

}  // namespace
}  // namespace wnn::passes
