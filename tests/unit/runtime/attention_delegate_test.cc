// The attention delegate: grouped-query attention with rotary Q and K, a KV cache (concat of
// the past with the new rows and the gather placing them, the present outputs) and a mask,
// written in WebNN ops as the ONNX importer writes GroupQueryAttention, runs as one step with
// the reference kernels' results; the ungrouped form without a cache too; a look-alike whose
// scores are read elsewhere is left to the other delegates.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "seeded_tensor.h"
#include "wnn/core/builder.h"
#include "wnn/runtime/session.h"

namespace wnn::runtime {
namespace {

using K = OpKind;

std::mt19937& rng() {
  static std::mt19937 r(20261203);
  return r;
}

struct Sizes {
  int64_t s, past, heads, kv, head;  // new tokens, past rows, query and key/value heads, head size
};

struct Built {
  std::shared_ptr<const Graph> graph;
  std::vector<std::pair<std::string, Tensor>> inputs;
};

OperandId slice3(GraphBuilder& b, OperandId x, int64_t s, int64_t begin, int64_t size) {
  return b.add1(K::kSlice, {x, IntList{0, 0, begin}, IntList{1, s, size}});
}

OperandId heads(GraphBuilder& b, OperandId x, int64_t s, int64_t n, int64_t h) {
  return b.add1(K::kTranspose, {b.add1(K::kReshape, {x, IntList{1, s, n, h}})},
                {{"permutation", IntList{0, 2, 1, 3}}});
}

// How the importer writes a rotary embedding (onnx/ops/attention_core.cc): of the first `dims`
// columns of the head (0: all, else the rest passes through a concat), by halves or adjacent
// pairs (reshaped to [.., dims / 2, 2], the tables to [.., dims / 2, 1]).
struct RotaryForm {
  int64_t dims = 0;
  bool adjacent = false;
};

OperandId rotate(GraphBuilder& b, OperandId x, OperandId cos, OperandId sin, int64_t n, int64_t s,
                 int64_t h, RotaryForm form = {}) {
  const int64_t dims = form.dims ? form.dims : h, half = dims / 2;
  const OperandId part =
      dims == h ? x : b.add1(K::kSlice, {x, IntList{0, 0, 0, 0}, IntList{1, n, s, dims}});
  OperandId y;
  if (form.adjacent) {
    const OperandId p = b.add1(K::kReshape, {part, IntList{1, n, s, half, 2}});
    const IntList sizes{1, n, s, half, 1};
    const OperandId x1 = b.add1(K::kSlice, {p, IntList{0, 0, 0, 0, 0}, sizes});
    const OperandId x2 = b.add1(K::kSlice, {p, IntList{0, 0, 0, 0, 1}, sizes});
    const OperandId c = b.add1(K::kReshape, {cos, IntList{1, 1, s, half, 1}});
    const OperandId si = b.add1(K::kReshape, {sin, IntList{1, 1, s, half, 1}});
    const OperandId o1 = b.add1(K::kSub, {b.add1(K::kMul, {x1, c}), b.add1(K::kMul, {x2, si})});
    const OperandId o2 = b.add1(K::kAdd, {b.add1(K::kMul, {x2, c}), b.add1(K::kMul, {x1, si})});
    y = b.add1(K::kReshape, {b.add1(K::kConcat, {RawValue(OperandList{o1, o2}), int64_t(4)}),
                             IntList{1, n, s, dims}});
  } else {
    const OperandId x1 = b.add1(K::kSlice, {part, IntList{0, 0, 0, 0}, IntList{1, n, s, half}});
    const OperandId x2 = b.add1(K::kSlice, {part, IntList{0, 0, 0, half}, IntList{1, n, s, half}});
    const OperandId o1 = b.add1(K::kSub, {b.add1(K::kMul, {x1, cos}), b.add1(K::kMul, {x2, sin})});
    const OperandId o2 = b.add1(K::kAdd, {b.add1(K::kMul, {x2, cos}), b.add1(K::kMul, {x1, sin})});
    y = b.add1(K::kConcat, {RawValue(OperandList{o1, o2}), int64_t(3)});
  }
  if (dims == h) return y;
  const OperandId rest = b.add1(K::kSlice, {x, IntList{0, 0, 0, dims}, IntList{1, n, s, h - dims}});
  return b.add1(K::kConcat, {RawValue(OperandList{y, rest}), int64_t(3)});
}

Tensor floats(Shape shape, float lo, float hi) {
  return testing::uniform_floats(std::move(shape), lo, hi, rng());
}

// softmax(q k^T * scale [+ bias]) v over query heads grouped by key/value head through
// reshapes, heads merged back: [1, S, n h], named "attention". `scores` receives the scores.
OperandId grouped_attention(GraphBuilder& b, const Sizes& z, OperandId q, OperandId k, OperandId v,
                            float scale, std::optional<OperandId> bias,
                            OperandId* scores_out = nullptr) {
  const int64_t n = z.heads, kv = z.kv, h = z.head, s = z.s, t = z.past + z.s, grp = n / kv;
  Tensor factor = Tensor::zeros(DataType::kFloat32, {});
  factor.mutable_view().as<float>()[0] = scale;
  const OperandId kt = b.add1(K::kTranspose, {k}, {{"permutation", IntList{0, 1, 3, 2}}});
  OperandId scores = b.add1(
      K::kReshape, {b.add1(K::kMatmul, {b.add1(K::kReshape, {q, IntList{1, kv, grp * s, h}}), kt}),
                    IntList{1, n, s, t}});
  scores = b.add1(K::kMul, {scores, b.constant("scale", factor)});
  if (bias) scores = b.add1(K::kAdd, {scores, *bias});
  if (scores_out) *scores_out = scores;
  const OperandId probs = b.add1(K::kSoftmax, {scores, int64_t(3)});
  OperandId o =
      b.add1(K::kReshape,
             {b.add1(K::kMatmul, {b.add1(K::kReshape, {probs, IntList{1, kv, grp * s, t}}), v}),
              IntList{1, n, s, h}});
  o = b.add1(K::kTranspose, {o}, {{"permutation", IntList{0, 2, 1, 3}}});
  return b.add1(K::kReshape, {o, IntList{1, s, n * h}}, {}, "attention");
}

// GroupQueryAttention's decomposition: qkv [S, (n + 2 kv) h] (a fused projection's output) ->
// reshape [1, S, (n + 2 kv) h] -> rotary q, k -> present k, v
// = gather(concat(past, new), index) -> softmax(q k^T * scale + bias) v -> [1, S, n h].
// `leak` makes the scores a graph output too; `qkv_elsewhere` has another slice of the
// reshaped qkv as a graph output (the step then reads Q/K/V after the reshape).
Built gqa_graph(const Sizes& z, bool leak, bool qkv_elsewhere = false, RotaryForm form = {}) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  const int64_t n = z.heads, kv = z.kv, h = z.head, s = z.s, t = z.past + z.s;
  const int64_t width = (n + 2 * kv) * h;
  Built out;
  const OperandId qkv =
      b.add1(K::kReshape, {b.input("qkv", {DataType::kFloat32, {s, width}}), IntList{1, s, width}});
  const int64_t table = (form.dims ? form.dims : h) / 2;
  const OperandId cos = b.input("cos", {DataType::kFloat32, {1, 1, s, table}});
  const OperandId sin = b.input("sin", {DataType::kFloat32, {1, 1, s, table}});
  const OperandId past_k = b.input("past_k", {DataType::kFloat32, {1, kv, z.past, h}});
  const OperandId past_v = b.input("past_v", {DataType::kFloat32, {1, kv, z.past, h}});
  const OperandId index = b.input("index", {DataType::kInt32, {t}});
  const OperandId bias = b.input("bias", {DataType::kFloat32, {1, 1, s, t}});
  out.inputs.push_back({"qkv", floats({s, width}, -2, 2)});
  Tensor c = floats({1, 1, s, table}, -1, 1), si = floats({1, 1, s, table}, -1, 1);
  out.inputs.push_back({"cos", c});
  out.inputs.push_back({"sin", si});
  out.inputs.push_back({"past_k", floats({1, kv, z.past, h}, -2, 2)});
  out.inputs.push_back({"past_v", floats({1, kv, z.past, h}, -3, 3)});
  // Row t of present: the past below the new rows' start (one before the end, a ragged
  // batch's), the new rows from there, the last new row repeated after them.
  Tensor idx = Tensor::zeros(DataType::kInt32, {t});
  const int64_t start = z.past - 1;
  for (int64_t i = 0; i < t; ++i) {
    idx.mutable_view().as<int32_t>()[i] =
        int32_t(i < start ? i : std::min(z.past + (i - start), t - 1));
  }
  out.inputs.push_back({"index", idx});
  Tensor mask = Tensor::zeros(DataType::kFloat32, {1, 1, s, t});
  for (int64_t r = 0; r < s; ++r) {
    for (int64_t j = 0; j < t; ++j) {
      mask.mutable_view().as<float>()[r * t + j] =
          j > start + r ? std::numeric_limits<float>::lowest() : 0.0f;
    }
  }
  out.inputs.push_back({"bias", mask});
  const OperandId k_new = heads(b, slice3(b, qkv, s, n * h, kv * h), s, kv, h);
  const OperandId v_new = heads(b, slice3(b, qkv, s, (n + kv) * h, kv * h), s, kv, h);
  const OperandId q =
      rotate(b, heads(b, slice3(b, qkv, s, 0, n * h), s, n, h), cos, sin, n, s, h, form);
  const OperandId k_rot = rotate(b, k_new, cos, sin, kv, s, h, form);
  const OperandId k = b.add1(
      K::kGather, {b.add1(K::kConcat, {RawValue(OperandList{past_k, k_rot}), int64_t(2)}), index},
      {{"axis", int64_t(2)}}, "present_k");
  const OperandId v = b.add1(
      K::kGather, {b.add1(K::kConcat, {RawValue(OperandList{past_v, v_new}), int64_t(2)}), index},
      {{"axis", int64_t(2)}}, "present_v");
  OperandId scores;
  b.output(grouped_attention(b, z, q, k, v, float(1.0 / std::sqrt(double(h))), bias, &scores));
  b.output(k);
  b.output(v);
  if (leak) b.output(scores);
  if (qkv_elsewhere) b.output(slice3(b, qkv, s, width - 1, 1));
  out.graph = g;
  return out;
}

size_t attention_regions(const Session& s) {
  size_t count = 0;
  for (const auto& r : s.execution_plan().partition.regions) count += r.delegate == "attention";
  return count;
}

void expect_same(const Session& ref, const Session& fast, const Built& built) {
  std::vector<NamedView> in;
  for (const auto& [name, t] : built.inputs) in.push_back({name, t.view()});
  const auto want = ref.run(in);
  const auto got = fast.run(in);
  ASSERT_EQ(want.size(), got.size());
  for (size_t o = 0; o < want.size(); ++o) {
    SCOPED_TRACE(want[o].name);
    ASSERT_EQ(want[o].tensor.size(), got[o].tensor.size());
    const float* w = want[o].tensor.view().as<float>();
    const float* g = got[o].tensor.view().as<float>();
    double largest = 0;
    for (int64_t i = 0; i < want[o].tensor.size(); ++i) {
      largest = std::max(largest, std::abs(double(w[i])));
      ASSERT_NEAR(g[i], w[i], 2e-5 * (1 + std::abs(w[i]))) << i;
    }
    EXPECT_GT(largest, 0.1);
  }
}

// The whole graph (everything but the inputs' own reads; after the session's passes, which
// share identical nodes such as the two rotations' reshapes of a table) is one attention step,
// with the reference kernels' results.
void expect_one_step(const Built& built) {
  Session ref(built.graph, {"ref", 1});
  Session fast(built.graph, {"auto", 2});
  ASSERT_EQ(attention_regions(fast), 1u);
  const auto& plan = fast.execution_plan();
  EXPECT_EQ(plan.partition.regions.size(), 1u);
  EXPECT_EQ(plan.partition.regions[0].nodes.size(), plan.graph->nodes().size());
  expect_same(ref, fast, built);
}

TEST(AttentionDelegate, RunsGroupQueryAttentionWithRotaryAndKvCacheAsOneStep) {
  for (const Sizes& z : {Sizes{1, 9, 4, 2, 6}, Sizes{3, 5, 6, 3, 10}, Sizes{1, 127, 16, 4, 64}}) {
    SCOPED_TRACE(::testing::Message() << "s " << z.s << " past " << z.past << " heads " << z.heads);
    expect_one_step(gqa_graph(z, false));
  }
}

// GroupQueryAttention's rotary_interleaved (adjacent pairs), and a rotary of the head's first
// columns (partial, as phi's), by halves or pairs: the same one step.
TEST(AttentionDelegate, RunsAdjacentAndPartialRotaryAsOneStep) {
  for (const RotaryForm form : {RotaryForm{0, true}, RotaryForm{4, false}, RotaryForm{6, true}}) {
    for (const Sizes& z : {Sizes{1, 9, 4, 2, 10}, Sizes{3, 5, 6, 3, 10}}) {
      SCOPED_TRACE(::testing::Message()
                   << "dims " << form.dims << " adjacent " << form.adjacent << " s " << z.s);
      expect_one_step(gqa_graph(z, false, false, form));
    }
  }
}

TEST(AttentionDelegate, ReadsAfterTheProjectionReshapeWhenOthersReadItsResult) {
  const Built built = gqa_graph({1, 9, 4, 2, 6}, false, true);
  Session ref(built.graph, {"ref", 1});
  Session fast(built.graph, {"auto", 1});
  ASSERT_EQ(attention_regions(fast), 1u);
  // Node 0 is the projection's reshape, which the extra slice reads too: outside the step.
  ASSERT_EQ(built.graph->nodes()[0].op(), K::kReshape);
  for (const auto& r : fast.execution_plan().partition.regions) {
    if (r.delegate == "attention") {
      EXPECT_NE(r.nodes.front(), 0u);
    }
  }
  expect_same(ref, fast, built);
}

TEST(AttentionDelegate, LeavesTheFormWhenItsScoresAreReadElsewhere) {
  const Built built = gqa_graph({2, 5, 4, 2, 8}, true);
  Session ref(built.graph, {"ref", 1});
  Session fast(built.graph, {"auto", 1});
  EXPECT_EQ(attention_regions(fast), 0u);
  for (const auto& why : fast.execution_plan().partition.ref_reason) {
    EXPECT_EQ(why.find("attention"), std::string::npos) << why;
  }
  expect_same(ref, fast, built);
}

// Multi-head attention as transformers.js encoders write it: q, k, v [1, S, n h] split into
// heads by reshape + transpose, no grouping, k transposed, divided by sqrt(h), a padding mask.
// K^T given as one transpose [0, 2, 3, 1] of [1, S, n, h] (BERT exports) is read the same way.
// At 16 tokens the kernel takes its blocked form (many rows per head).
TEST(AttentionDelegate, RunsUngroupedEncoderAttention) {
  for (const bool pre_transposed : {false, true}) {
    for (const int64_t s : {7, 16}) {
      SCOPED_TRACE(::testing::Message() << "pre-transposed " << pre_transposed << " s " << s);
      const int64_t n = 3, h = 5 + 11 * (s > 8);
      auto g = std::make_shared<Graph>();
      GraphBuilder b(*g);
      std::vector<std::pair<std::string, Tensor>> inputs;
      OperandId in[3];
      const char* names[3] = {"q", "k", "v"};
      for (int i = 0; i < 3; ++i) {
        in[i] = b.input(names[i], {DataType::kFloat32, {1, s, n * h}});
        inputs.push_back({names[i], floats({1, s, n * h}, -2, 2)});
      }
      const OperandId mask = b.input("mask", {DataType::kFloat32, {1, 1, 1, s}});
      Tensor m = Tensor::zeros(DataType::kFloat32, {1, 1, 1, s});
      m.mutable_view().as<float>()[s - 1] = -10000.0f;
      inputs.push_back({"mask", m});
      Tensor d = Tensor::zeros(DataType::kFloat32, {});
      d.mutable_view().as<float>()[0] = std::sqrt(float(h));
      const OperandId kt =
          pre_transposed
              ? b.add1(K::kTranspose, {b.add1(K::kReshape, {in[1], IntList{1, s, n, h}})},
                       {{"permutation", IntList{0, 2, 3, 1}}})
              : b.add1(K::kTranspose, {heads(b, in[1], s, n, h)},
                       {{"permutation", IntList{0, 1, 3, 2}}});
      OperandId scores =
          b.add1(K::kDiv, {b.add1(K::kMatmul, {heads(b, in[0], s, n, h), kt}), b.constant("d", d)});
      scores = b.add1(K::kAdd, {mask, scores});
      OperandId o =
          b.add1(K::kMatmul, {b.add1(K::kSoftmax, {scores, int64_t(3)}), heads(b, in[2], s, n, h)});
      o = b.add1(K::kTranspose, {o}, {{"permutation", IntList{0, 2, 1, 3}}});
      b.output(b.add1(K::kReshape, {o, IntList{1, s, n * h}}, {}, "out"));
      expect_one_step(Built{g, inputs});
    }
  }
}

// A graph input of random values in [lo, hi], its value kept in `out`.
OperandId random_input(GraphBuilder& b, Built& out, const char* name, Shape shape, float lo,
                       float hi) {
  out.inputs.push_back({name, floats(shape, lo, hi)});
  return b.input(name, {DataType::kFloat32, shape});
}

// The projections' outputs q [1, S, n h], k and v [1, S, kv h], and the past keys and values.
struct Projections {
  OperandId q, k, v, past_k, past_v;
};
Projections projections(GraphBuilder& b, Built& out, const Sizes& z) {
  const int64_t s = z.s, h = z.head;
  return {random_input(b, out, "q", {1, s, z.heads * h}, -2, 2),
          random_input(b, out, "k", {1, s, z.kv * h}, -2, 2),
          random_input(b, out, "v", {1, s, z.kv * h}, -3, 3),
          random_input(b, out, "past_k", {1, z.kv, z.past, h}, -2, 2),
          random_input(b, out, "past_v", {1, z.kv, z.past, h}, -2, 2)};
}

// MultiHeadAttention after RotaryEmbedding as the importer writes them for rank-3 inputs: q and
// k [1, S, heads h] reshaped to [1, S, heads, h], rotated by tables [1, S, 1, h / 2], reshaped
// back, then split into heads; k and v after a past, whose concat is the present output. The
// rotation is read through, so everything is one step.
Built rotary_before_split_graph(const Sizes& z) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  const int64_t n = z.heads, kv = z.kv, h = z.head, s = z.s;
  Built out;
  auto input = [&](const char* name, Shape shape, float lo, float hi) {
    return random_input(b, out, name, std::move(shape), lo, hi);
  };
  const auto [q_in, k_in, v_in, past_k, past_v] = projections(b, out, z);
  const OperandId cos = input("cos", {1, s, 1, h / 2}, -1, 1);
  const OperandId sin = input("sin", {1, s, 1, h / 2}, -1, 1);
  // RotaryEmbedding over [1, S, heads, h]: the tables broadcast over the heads.
  auto rotary_rows = [&](OperandId x, int64_t heads) {
    const OperandId x4 = b.add1(K::kReshape, {x, IntList{1, s, heads, h}});
    const int64_t half = h / 2;
    const OperandId x1 = b.add1(K::kSlice, {x4, IntList{0, 0, 0, 0}, IntList{1, s, heads, half}});
    const OperandId x2 =
        b.add1(K::kSlice, {x4, IntList{0, 0, 0, half}, IntList{1, s, heads, half}});
    const OperandId o1 = b.add1(K::kSub, {b.add1(K::kMul, {x1, cos}), b.add1(K::kMul, {sin, x2})});
    const OperandId o2 = b.add1(K::kAdd, {b.add1(K::kMul, {x1, sin}), b.add1(K::kMul, {x2, cos})});
    const OperandId y = b.add1(K::kConcat, {RawValue(OperandList{o1, o2}), int64_t(3)});
    return b.add1(K::kReshape, {y, IntList{1, s, heads * h}});
  };
  const OperandId q = heads(b, rotary_rows(q_in, n), s, n, h);
  const OperandId k_new = heads(b, rotary_rows(k_in, kv), s, kv, h);
  const OperandId k =
      b.add1(K::kConcat, {RawValue(OperandList{past_k, k_new}), int64_t(2)}, {}, "present_k");
  const OperandId v =
      b.add1(K::kConcat, {RawValue(OperandList{past_v, heads(b, v_in, s, kv, h)}), int64_t(2)}, {},
             "present_v");
  b.output(grouped_attention(b, z, q, k, v, 0.37f, std::nullopt));
  b.output(k);
  b.output(v);
  out.graph = g;
  return out;
}

// A prefill with no past, as the importer writes GroupQueryAttention at past length 0: the
// present outputs are identities of the rotated keys and of the values' head split, which the
// step then writes itself.
TEST(AttentionDelegate, WritesAPrefillsPresentKeysAndValues) {
  for (const Sizes& z : {Sizes{5, 0, 4, 2, 6}, Sizes{16, 0, 8, 2, 16}}) {
    SCOPED_TRACE(::testing::Message() << "s " << z.s << " heads " << z.heads);
    auto g = std::make_shared<Graph>();
    GraphBuilder b(*g);
    const int64_t n = z.heads, kv = z.kv, h = z.head, s = z.s;
    Built out;
    const auto [q_in, k_in, v_in, past_k, past_v] = projections(b, out, z);
    const OperandId cos = random_input(b, out, "cos", {1, 1, s, h / 2}, -1, 1);
    const OperandId sin = random_input(b, out, "sin", {1, 1, s, h / 2}, -1, 1);
    const OperandId q = rotate(b, heads(b, q_in, s, n, h), cos, sin, n, s, h);
    const OperandId k = rotate(b, heads(b, k_in, s, kv, h), cos, sin, kv, s, h);
    const OperandId v = heads(b, v_in, s, kv, h);
    b.output(grouped_attention(b, z, q, k, v, 0.41f, std::nullopt));
    b.output(b.add1(K::kIdentity, {k}, {}, "present_k"));
    b.output(b.add1(K::kIdentity, {v}, {}, "present_v"));
    out.graph = g;
    expect_one_step(out);
  }
}

TEST(AttentionDelegate, ReadsThroughRotaryAppliedBeforeTheHeadSplit) {
  for (const Sizes& z : {Sizes{1, 9, 4, 2, 6}, Sizes{5, 3, 3, 3, 10}, Sizes{4, 0, 2, 1, 8}}) {
    SCOPED_TRACE(::testing::Message() << "s " << z.s << " past " << z.past << " heads " << z.heads);
    expect_one_step(rotary_before_split_graph(z));
  }
}

// Attention as optimum exports a Llama (torch's ops in WebNN): q, k, v split into heads,
// rotary as x * cos + concat(-x2, x1) * sin with tables of the full head, the keys and values
// after the past (the present outputs), repeated for the query heads by reshape, expand and
// reshape (repeat_kv), k transposed, divided by sqrt(h), a mask added. All of it is one step.
Built optimum_graph(const Sizes& z) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  const int64_t n = z.heads, kv = z.kv, h = z.head, s = z.s, t = z.past + z.s, grp = n / kv;
  Built out;
  auto input = [&](const char* name, Shape shape, float lo, float hi) {
    return random_input(b, out, name, std::move(shape), lo, hi);
  };
  const auto [q_in, k_in, v_in, past_k, past_v] = projections(b, out, z);
  const OperandId cos = input("cos", {1, 1, s, h}, -1, 1);
  const OperandId sin = input("sin", {1, 1, s, h}, -1, 1);
  const OperandId mask = input("mask", {1, 1, s, t}, -1, 0);
  auto rotate_half = [&](OperandId x, int64_t heads, bool swapped) {
    const IntList sizes{1, heads, s, h / 2};
    const OperandId x1 = b.add1(K::kSlice, {x, IntList{0, 0, 0, 0}, sizes});
    const OperandId x2 = b.add1(K::kSlice, {x, IntList{0, 0, 0, h / 2}, sizes});
    const OperandId turned =
        b.add1(K::kConcat, {RawValue(OperandList{b.add1(K::kNeg, {x2}), x1}), int64_t(3)});
    const OperandId a = b.add1(K::kMul, {x, cos}), c = b.add1(K::kMul, {sin, turned});
    return swapped ? b.add1(K::kAdd, {c, a}) : b.add1(K::kAdd, {a, c});
  };
  auto repeat = [&](OperandId x) {
    const OperandId u = b.add1(K::kReshape, {x, IntList{1, kv, 1, t, h}});
    const OperandId e = b.add1(K::kExpand, {u, IntList{1, kv, grp, t, h}});
    return b.add1(K::kReshape, {e, IntList{1, n, t, h}});
  };
  const OperandId q = rotate_half(heads(b, q_in, s, n, h), n, false);
  const OperandId k = b.add1(
      K::kConcat,
      {RawValue(OperandList{past_k, rotate_half(heads(b, k_in, s, kv, h), kv, true)}), int64_t(2)},
      {}, "present_k");
  const OperandId v =
      b.add1(K::kConcat, {RawValue(OperandList{past_v, heads(b, v_in, s, kv, h)}), int64_t(2)}, {},
             "present_v");
  Tensor d = Tensor::zeros(DataType::kFloat32, {});
  d.mutable_view().as<float>()[0] = std::sqrt(float(h));
  const OperandId kt = b.add1(K::kTranspose, {repeat(k)}, {{"permutation", IntList{0, 1, 3, 2}}});
  OperandId scores = b.add1(K::kDiv, {b.add1(K::kMatmul, {q, kt}), b.constant("d", d)});
  scores = b.add1(K::kAdd, {scores, mask});
  OperandId o = b.add1(K::kMatmul, {b.add1(K::kSoftmax, {scores, int64_t(3)}), repeat(v)});
  o = b.add1(K::kTranspose, {o}, {{"permutation", IntList{0, 2, 1, 3}}});
  b.output(b.add1(K::kReshape, {o, IntList{1, s, n * h}}, {}, "attention"));
  b.output(k);
  b.output(v);
  out.graph = g;
  return out;
}

TEST(AttentionDelegate, ReadsThroughOptimumsRotateHalfAndRepeatKv) {
  for (const Sizes& z : {Sizes{1, 7, 4, 2, 8}, Sizes{6, 0, 6, 2, 16}, Sizes{3, 4, 3, 3, 6}}) {
    SCOPED_TRACE(::testing::Message()
                 << "s " << z.s << " past " << z.past << " heads " << z.heads << " kv " << z.kv);
    expect_one_step(optimum_graph(z));
  }
}

}  // namespace
}  // namespace wnn::runtime
