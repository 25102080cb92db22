// The rank ranges of the operator table (ParamSpec::ranks, same_rank_as, output_ranks) against
// what the builder accepts: the generic check rejects exactly the ranks outside each operand's
// range, and inference accepts the bounds of every range the spec narrows below "any rank", so
// the table opSupportLimits() and `wnn ops` print cannot disagree with the check.
#include <map>

#include "infer_test_util.h"
#include "wnn/core/ops/schema.h"

namespace wnn::testing {
namespace {

constexpr DataType F = DataType::kFloat32;
constexpr DataType I32 = DataType::kInt32;

bool is_operand(const ParamSpec& p) {
  return p.kind == ParamKind::kOperand || p.kind == ParamKind::kOperandList;
}

// Every operand parameter of `s` gets an id; a list gets two items. ranks[i] is the rank of
// parameter i's operands (shape all 2s).
struct FakeOperands {
  const OpSchema& s;
  std::map<size_t, size_t> ranks;  // parameter index -> rank

  bool accepted() const {
    Attributes attrs(s);
    std::vector<OperandDesc> descs;
    for (const auto& [index, r] : ranks) {
      const size_t rank = r;  // clang 14 cannot capture a structured binding
      const auto add = [&] {
        descs.push_back({F, Shape(rank, 2)});
        return OperandId{uint32_t(descs.size() - 1)};
      };
      if (s.param(index).kind == ParamKind::kOperandList) {
        attrs.set(index, Value(OperandList{add(), add()}));
      } else {
        attrs.set(index, Value(add()));
      }
    }
    const InferContext ctx(attrs,
                           [&](OperandId id) -> const OperandDesc& { return descs[id.index]; });
    try {
      schema::require_ranks(ctx);
      return true;
    } catch (const Error&) {
      return false;
    }
  }
};

TEST(RankLimits, TheCheckRejectsExactlyTheRanksOutsideEachOperandsRange) {
  size_t restricted = 0;
  for (const OpSchema& s : all_schemas()) {
    for (size_t i = 0; i < s.num_params(); ++i) {
      const ParamSpec& p = s.param(i);
      if (!is_operand(p)) continue;
      if (p.ranks != RankRange{} || !p.same_rank_as.empty()) ++restricted;
      for (size_t rank = 0; rank <= kMaxRank + 1; ++rank) {
        // The others at the least rank their range allows; one tied to another follows it.
        FakeOperands f{s, {}};
        for (size_t j = 0; j < s.num_params(); ++j) {
          if (is_operand(s.param(j))) f.ranks[j] = j == i ? rank : s.param(j).ranks.min;
        }
        for (size_t j = 0; j < s.num_params(); ++j) {
          const ParamSpec& q = s.param(j);
          if (j == i || !is_operand(q) || q.same_rank_as.empty()) continue;
          f.ranks[j] = f.ranks[*s.find_param(q.same_rank_as)];
        }
        bool expected = p.ranks.contains(rank);
        if (!p.same_rank_as.empty()) {
          const auto target = s.find_param(p.same_rank_as);
          ASSERT_TRUE(target.has_value()) << s.name << "." << p.name;
          expected = expected && rank == f.ranks[*target];
        }
        EXPECT_EQ(f.accepted(), expected) << s.name << "." << p.name << " at rank " << rank;
      }
    }
  }
  // conv2d's three, matmul's two, ... : the spec narrows about seventy operands.
  EXPECT_GE(restricted, 60u);
}

TEST(RankLimits, OutputRangesNameEveryOutputOfTheRecurrentOperators) {
  EXPECT_EQ(schema_of(OpKind::kGru).output_rank(1), (RankRange{4, 4}));
  EXPECT_EQ(schema_of(OpKind::kLstm).output_rank(0), (RankRange{3, 3}));
  EXPECT_EQ(schema_of(OpKind::kLstm).output_rank(2), (RankRange{4, 4}));
  // No output_ranks: the first operand's range ("same as input"), repeated for split's list.
  EXPECT_EQ(schema_of(OpKind::kSplit).output_rank(5), (RankRange{1, kMaxRank}));
  EXPECT_EQ(schema_of(OpKind::kConv2d).output_rank(0), (RankRange{4, 4}));
}

// Inference accepts both ends of each narrowed range (so the table is not narrower than the
// shape rules) and the builder rejects the rank just outside (so it is not wider).
struct Bound {
  InferCase accepted;
  Shape output;  // of the first output
  InferCase rejected;
  std::string message;
};

std::vector<Bound> bounds() {
  using L = IntList;
  return {
      {{"matmul", {{"a", F, {2, 3}}, {"b", F, {3, 4}}}, {pos("a"), pos("b")}},
       {2, 4},
       {"matmul", {{"a", F, {3}}, {"b", F, {3, 4}}}, {pos("a"), pos("b")}},
       "a must have rank >= 2, has rank 1"},
      {{"matmul", {{"a", F, {1, 1, 1, 1, 1, 2, 2, 3}}, {"b", F, {3, 5}}}, {pos("a"), pos("b")}},
       {1, 1, 1, 1, 1, 2, 2, 5},
       {"matmul", {{"a", F, {2, 3}}, {"b", F, {5}}}, {pos("a"), pos("b")}},
       "b must have rank >= 2, has rank 1"},
      {{"gemm",
        {{"a", F, {2, 3}}, {"b", F, {3, 4}}, {"c", F, {}}},
        {pos("a"), pos("b"), named_operand("c", "c")}},
       {2, 4},
       {"gemm",
        {{"a", F, {2, 3}}, {"b", F, {3, 4}}, {"c", F, {1, 2, 4}}},
        {pos("a"), pos("b"), named_operand("c", "c")}},
       "c must have rank in [0, 2], has rank 3"},
      {{"triangular", {{"x", F, {3, 2}}}, {pos("x"), named("diagonal", -1)}},
       {3, 2},
       {"triangular", {{"x", F, {5}}}, {pos("x")}},
       "input must have rank >= 2, has rank 1"},
      {{"softmax", {{"x", F, {7}}}, {pos("x"), named("axis", 0)}},
       {7},
       {"softmax", {{"x", F, {}}}, {pos("x"), named("axis", 0)}},
       "input must have rank >= 1, has rank 0"},
      {{"argMax", {{"x", F, {5}}}, {pos("x"), named("axis", 0)}},
       {},
       {"argMax", {{"x", F, {}}}, {pos("x"), named("axis", 0)}},
       "input must have rank >= 1"},
      {{"cumulativeSum", {{"x", F, {5}}}, {pos("x"), named("axis", 0), named("exclusive", true)}},
       {5},
       {"cumulativeSum", {{"x", F, {}}}, {pos("x"), named("axis", 0)}},
       "input must have rank >= 1"},
      {{"gather", {{"x", F, {6}}, {"i", I32, {}}}, {pos("x"), pos("i")}},
       {},
       {"gather", {{"x", F, {}}, {"i", I32, {}}}, {pos("x"), pos("i")}},
       "input must have rank >= 1"},
      {{"gatherElements", {{"x", F, {4, 3}}, {"i", I32, {2, 3}}}, {pos("x"), pos("i")}},
       {2, 3},
       {"gatherElements", {{"x", F, {4, 3}}, {"i", I32, {2}}}, {pos("x"), pos("i")}},
       "indices has rank 1, input has rank 2 (they must match)"},
      {{"gatherND", {{"x", F, {6}}, {"i", I32, {1}}}, {pos("x"), pos("i")}},
       {},
       {"gatherND", {{"x", F, {6}}, {"i", I32, {}}}, {pos("x"), pos("i")}},
       "indices must have rank >= 1"},
      {{"scatterElements",
        {{"x", F, {4, 3}}, {"i", I32, {1, 3}}, {"u", F, {1, 3}}},
        {pos("x"), pos("i"), pos("u")}},
       {4, 3},
       {"scatterElements",
        {{"x", F, {4, 3}}, {"i", I32, {1, 3}}, {"u", F, {3}}},
        {pos("x"), pos("i"), pos("u")}},
       "updates has rank 1, input has rank 2 (they must match)"},
      {{"concat", {{"a", F, {2}}, {"b", F, {3}}}, {pos_list({"a", "b"}), named("axis", 0)}},
       {5},
       {"concat", {{"a", F, {}}, {"b", F, {}}}, {pos_list({"a", "b"}), named("axis", 0)}},
       "inputs[0] must have rank >= 1, has rank 0"},
      {{"split", {{"x", F, {6}}}, {pos("x"), named("splits", L{2, 4})}},
       {2},
       {"split", {{"x", F, {}}}, {pos("x"), named("splits", int64_t(1))}},
       "input must have rank >= 1"},
      {{"batchNormalization",
        {{"x", F, {3}}, {"m", F, {3}}, {"v", F, {3}}},
        {pos("x"), pos("m"), pos("v"), named("axis", 0)}},
       {3},
       {"batchNormalization",
        {{"x", F, {2, 3}}, {"m", F, {1, 3}}, {"v", F, {3}}},
        {pos("x"), pos("m"), pos("v")}},
       "mean must have rank 1, has rank 2"},
      {{"conv2d",
        {{"x", F, {1, 2, 5, 5}}, {"w", F, {3, 2, 3, 3}}, {"bias", F, {3}}},
        {pos("x"), pos("w"), named_operand("bias", "bias")}},
       {1, 3, 3, 3},
       {"conv2d",
        {{"x", F, {1, 2, 5, 5}}, {"w", F, {3, 2, 3, 3}}, {"bias", F, {1, 3}}},
        {pos("x"), pos("w"), named_operand("bias", "bias")}},
       "bias must have rank 1, has rank 2"},
      {{"instanceNormalization", {{"x", F, {1, 2, 3, 3}}}, {pos("x")}},
       {1, 2, 3, 3},
       {"instanceNormalization", {{"x", F, {2, 3, 3}}}, {pos("x")}},
       "input must have rank 4, has rank 3"},
      {{"gru",
        {{"x", F, {2, 1, 3}}, {"w", F, {1, 12, 3}}, {"r", F, {1, 12, 4}}},
        {pos("x"), pos("w"), pos("r"), named("steps", 2), named("hiddenSize", 4),
         named("returnSequence", true)}},
       {1, 1, 4},
       {"gru",
        {{"x", F, {2, 3}}, {"w", F, {1, 12, 3}}, {"r", F, {1, 12, 4}}},
        {pos("x"), pos("w"), pos("r"), named("steps", 2), named("hiddenSize", 4)}},
       "input must have rank 3, has rank 2"},
  };
}

TEST(RankLimits, InferenceAcceptsTheBoundsAndTheBuilderRejectsJustOutside) {
  for (const Bound& b : bounds()) {
    SCOPED_TRACE(b.accepted.op);
    Graph g;
    std::vector<OperandDesc> outs;
    ASSERT_NO_THROW(outs = infer(b.accepted, g));
    ASSERT_FALSE(outs.empty());
    EXPECT_EQ(outs[0].shape, b.output);
    EXPECT_NE(rejection(b.rejected).find(b.message), std::string::npos) << rejection(b.rejected);
  }
}

}  // namespace
}  // namespace wnn::testing
