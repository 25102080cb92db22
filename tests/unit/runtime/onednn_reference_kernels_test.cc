// No silent slow paths: every (op, layout, broadcast form) the oneDNN delegate claims is
// compiled as a session compiles it, and no kernel the session keeps may be one of oneDNN's
// reference implementations (ref:any, gemm:ref: 10-100x slower than its jit kernels and than
// wnn's own). A node whose kernel would be one must be refused with that reason, so the
// partition leaves it to wnn's kernels. Results must match the reference kernels either way.
#include <gtest/gtest.h>

#include <map>

#include <cmath>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "seeded_tensor.h"
#include "wnn/core/builder.h"
#include "wnn/runtime/delegate.h"
#include "wnn/runtime/onednn/region_builder.h"
#include "wnn/runtime/session.h"

namespace wnn::runtime {
namespace {

using testing::seeded;
using Ints = std::vector<int64_t>;

// What computes the value the op under test reads, and so the layout it is held in.
enum class Producer {
  kInput,     // a region input: row-major
  kConvNchw,  // a dense conv2d in WebNN's NCHW: held NHWC (the region's convs pick their layout)
  kConvNhwc,  // a conv2d with inputLayout nhwc
  kMatmul,    // a batched matmul: row-major rank 3
  // A depthwise conv2d: the region runs blocked (layout_plan.h), nChw16c on AVX-512
  kDepthwise,
  // The same with 24 channels (nChw16c pads them to 32), then batchNormalization, as ppocr's
  // blocks (8 to 576 channels, a multiple of 8) compute
  kDepthwiseBatchNorm,
};

const char* producer_name(Producer p) {
  switch (p) {
    case Producer::kInput:
      return "input";
    case Producer::kConvNchw:
      return "conv-nchw";
    case Producer::kConvNhwc:
      return "conv-nhwc";
    case Producer::kMatmul:
      return "matmul";
    case Producer::kDepthwise:
      return "depthwise-blocked";
    case Producer::kDepthwiseBatchNorm:
      return "depthwise-24-batchnorm";
  }
  return "";
}

constexpr int64_t kH = 5, kW = 7;  // odd spatial sizes

// Channels: blocked by 8 and 16 exactly, or padded to a block.
int64_t channels(Producer p) { return p == Producer::kDepthwiseBatchNorm ? 24 : 16; }

// The producer's value shape.
Ints value_shape(Producer p) {
  const int64_t c = channels(p);
  switch (p) {
    case Producer::kConvNhwc:
      return {1, kH, kW, c};
    case Producer::kMatmul:
      return {2, kH, c};
    default:
      return {1, c, kH, kW};
  }
}

// The second operand's shapes a broadcast form names, for a value of shape `s`.
struct Form {
  std::string name;
  Ints shape;
  bool constant = true;
  bool constant_first = false;  // c op x
};

std::vector<Form> forms(Producer p) {
  const Ints s = value_shape(p);
  std::vector<Form> f = {{"rank-0 constant", {}},
                         {"[1] constant", {1}},
                         {"all-ones-shape constant", Ints(s.size(), 1)},
                         {"full-size constant", s},
                         {"full-size input", s, false},
                         {"rank-0 constant first", {}, true, true},
                         {"last-axis constant", {s.back()}}};
  if (p == Producer::kConvNhwc || p == Producer::kMatmul) {
    // Per-channel is the last axis: the last-axis form above, and with leading ones.
    Ints pc(s.size(), 1);
    pc.back() = s.back();
    f.push_back({"per-channel constant (leading ones)", pc});
  } else {
    const int64_t c = channels(p);
    f.push_back({"per-channel constant [C,1,1]", {c, 1, 1}});
    f.push_back({"per-channel constant [1,C,1,1]", {1, c, 1, 1}});
    f.push_back({"per-channel input [1,C,1,1]", {1, c, 1, 1}, false});
    f.push_back({"spatial constant [1,1,H,W]", {1, 1, kH, kW}});
  }
  return f;
}

struct Built {
  std::shared_ptr<const Graph> graph;
  std::vector<Tensor> feeds;  // in input order: "x", then "y" when the second operand is one
};

// producer -> node under test (-> its result is the output "out"). With `standalone` the
// producer's value is an output too, so the node runs as its own kernel, not as a post-op.
Built build(Producer p, bool standalone,
            const std::function<OperandId(GraphBuilder&, OperandId, std::vector<Tensor>&)>& op) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  Built r;
  OperandId v;
  switch (p) {
    case Producer::kInput:
      r.feeds.push_back(seeded(value_shape(p), 11));
      v = b.input("x", {DataType::kFloat32, value_shape(p)});
      break;
    case Producer::kConvNchw:
    case Producer::kConvNhwc: {
      const bool nhwc = p == Producer::kConvNhwc;
      const int64_t c = channels(p);
      const Ints in = nhwc ? Ints{1, kH, kW, 8} : Ints{1, 8, kH, kW};
      r.feeds.push_back(seeded(in, 12));
      const auto x = b.input("x", {DataType::kFloat32, in});
      const auto w = b.constant("w", seeded(nhwc ? Shape{c, 3, 3, 8} : Shape{c, 8, 3, 3}, 13));
      v = b.add1(OpKind::kConv2d, {x, w},
                 {{"padding", Ints{1, 1, 1, 1}},
                  {"inputLayout", std::string(nhwc ? "nhwc" : "nchw")},
                  {"filterLayout", std::string(nhwc ? "ohwi" : "oihw")}},
                 "v");
      break;
    }
    case Producer::kDepthwise:
    case Producer::kDepthwiseBatchNorm: {
      const int64_t c = channels(p);
      r.feeds.push_back(seeded({1, c, kH, kW}, 12));
      const auto x = b.input("x", {DataType::kFloat32, {1, c, kH, kW}});
      const auto w = b.constant("w", seeded({c, 1, 3, 3}, 13));
      const bool bn = p == Producer::kDepthwiseBatchNorm;
      v = b.add1(OpKind::kConv2d, {x, w}, {{"padding", Ints{1, 1, 1, 1}}, {"groups", c}},
                 bn ? "conv" : "v");
      if (bn) {
        // Variance kept positive; mean, scale and bias signed.
        Tensor var = seeded({c}, 16);
        for (int64_t i = 0; i < c; ++i) {
          float& e = var.mutable_view().as<float>()[i];
          e = std::abs(e) + 0.1f;
        }
        v = b.add1(OpKind::kBatchNormalization,
                   {v, b.constant("mean", seeded({c}, 17)), b.constant("var", var)},
                   {{"scale", b.constant("scale", seeded({c}, 18))},
                    {"bias", b.constant("bias", seeded({c}, 19))},
                    {"epsilon", 1e-3}},
                   "v");
      }
      break;
    }
    case Producer::kMatmul: {
      r.feeds.push_back(seeded({2, kH, 9}, 14));
      const auto x = b.input("x", {DataType::kFloat32, {2, kH, 9}});
      v = b.add1(OpKind::kMatmul, {x, b.constant("w", seeded({9, channels(p)}, 15))}, {}, "v");
      break;
    }
  }
  b.output(b.add1(OpKind::kIdentity, {op(b, v, r.feeds)}, {}, "out"));
  if (standalone && p != Producer::kInput) b.output(v);
  r.graph = g;
  return r;
}

struct Tally {
  int delegated = 0;  // the node under test ran on oneDNN
  int refused = 0;    // refused for a reference implementation
  std::vector<std::string> refused_names;
  std::map<std::string, int> concat_kernels;  // the kernels of kept concat steps, counted
};

// Compiles `built` for oneDNN, checks that no kept kernel is a reference implementation and
// that the node producing `under_test` (its output name) was either delegated or refused with
// a reason naming the implementation, and compares every output with the reference kernels.
void check_case(const std::string& name, const Built& built, const std::string& under_test,
                Tally& tally) {
  SCOPED_TRACE(name);
  std::vector<NamedView> in;
  const char* names[] = {"x", "y"};
  for (size_t i = 0; i < built.feeds.size(); ++i) in.push_back({names[i], built.feeds[i].view()});
  const Session ref(built.graph, {"ref", 1});
  const auto want = ref.run(in);
  Session s(built.graph, {"onednn", 1, true, false});
  s.set_profiling(true);
  const auto got = s.run(in);
  for (const auto& row : s.profile()) {
    if (row.where.rfind("onednn", 0) != 0) continue;
    if (row.label.rfind("concat", 0) == 0) ++tally.concat_kernels[row.kernel];
    EXPECT_FALSE(onednn::reference_impl(row.kernel))
        << "kept oneDNN's reference implementation " << row.kernel << " for " << row.label;
  }
  const Graph& g = s.graph();
  const auto& plan = s.execution_plan();
  for (size_t n = 0; n < g.nodes().size(); ++n) {
    if (g.name_of(g.nodes()[n].outputs[0]) != under_test) continue;
    if (plan.partition.region_of[n] >= 0) {
      ++tally.delegated;
    } else if (plan.partition.ref_reason[n].find("reference implementation") != std::string::npos) {
      ++tally.refused;
      tally.refused_names.push_back(name + ": " + plan.partition.ref_reason[n]);
    }
  }
  ASSERT_EQ(got.size(), want.size());
  for (size_t o = 0; o < got.size(); ++o) {
    const float* a = got[o].tensor.view().as<float>();
    const float* r = want[o].tensor.view().as<float>();
    for (int64_t i = 0; i < got[o].tensor.size(); ++i) {
      ASSERT_NEAR(a[i], r[i], 1e-4 + 1e-4 * std::abs(r[i])) << "output " << o << " at " << i;
    }
  }
}

const Producer kProducers[] = {Producer::kInput,     Producer::kConvNchw,
                               Producer::kConvNhwc,  Producer::kMatmul,
                               Producer::kDepthwise, Producer::kDepthwiseBatchNorm};

TEST(OnednnReferenceKernels, NoBinaryFormKeepsAReferenceImplementation) {
  Tally tally;
  for (Producer p : kProducers) {
    for (bool standalone : {false, true}) {
      if (standalone && p == Producer::kInput) continue;
      for (const Form& f : forms(p)) {
        for (OpKind op :
             {OpKind::kAdd, OpKind::kSub, OpKind::kMul, OpKind::kDiv, OpKind::kMax, OpKind::kMin}) {
          // c / x is never claimed (the first operand broadcasts), and near the conv's zeros
          // it only magnifies the conv's rounding on the reference kernels.
          if (op == OpKind::kDiv && f.constant_first) continue;
          const Built built =
              build(p, standalone, [&](GraphBuilder& b, OperandId v, std::vector<Tensor>& feeds) {
                OperandId y;
                // Away from zero, so a division stays well conditioned; negative values too.
                Tensor t = seeded(f.shape, 21);
                for (int64_t i = 0; i < t.size(); ++i) {
                  float& e = t.mutable_view().as<float>()[i];
                  e = e < 0 ? e - 0.5f : e + 0.5f;
                }
                if (f.constant) {
                  y = b.constant("c", t);
                } else {
                  y = b.input("y", {DataType::kFloat32, f.shape});
                  feeds.push_back(std::move(t));
                }
                return f.constant_first ? b.add1(op, {y, v}, {}, "t") : b.add1(op, {v, y}, {}, "t");
              });
          check_case(std::string(producer_name(p)) + (standalone ? " standalone " : " fused ") +
                         std::string(op_name(op)) + " with " + f.name,
                     built, "t", tally);
        }
      }
    }
  }
  for (const auto& r : tally.refused_names) std::printf("refused: %s\n", r.c_str());
  // The check is not vacuous: most forms run on oneDNN.
  EXPECT_GT(tally.delegated, 300) << tally.refused << " refused";
}

TEST(OnednnReferenceKernels, NoEltwiseFormKeepsAReferenceImplementation) {
  struct Unary {
    OpKind op;
    std::vector<std::pair<std::string, RawValue>> attrs;
  };
  const std::vector<Unary> unaries = {
      {OpKind::kRelu, {}},
      {OpKind::kLeakyRelu, {{"alpha", 0.3}}},
      {OpKind::kSigmoid, {}},
      {OpKind::kTanh, {}},
      {OpKind::kElu, {{"alpha", 0.7}}},
      {OpKind::kGelu, {}},
      {OpKind::kHardSwish, {}},
      {OpKind::kHardSigmoid, {{"alpha", 0.3}, {"beta", 0.4}}},
      {OpKind::kClamp, {{"minValue", -0.25}, {"maxValue", 0.5}}},
      {OpKind::kAbs, {}},
      {OpKind::kExp, {}},
      {OpKind::kNeg, {}},
      {OpKind::kLinear, {{"alpha", -1.5}, {"beta", 0.25}}},
      {OpKind::kSoftmax, {{"axis", int64_t(1)}}},
      {OpKind::kSoftmax, {{"axis", int64_t(2)}}},
  };
  Tally tally;
  for (Producer p : kProducers) {
    for (bool standalone : {false, true}) {
      if (standalone && p == Producer::kInput) continue;
      for (const Unary& u : unaries) {
        const Built built = build(p, standalone, [&](GraphBuilder& b, OperandId v, auto&) {
          return b.add1(u.op, {v}, u.attrs, "t");
        });
        check_case(std::string(producer_name(p)) + (standalone ? " standalone " : " fused ") +
                       std::string(op_name(u.op)),
                   built, "t", tally);
      }
    }
  }
  for (const auto& r : tally.refused_names) std::printf("refused: %s\n", r.c_str());
  EXPECT_GT(tally.delegated, 80) << tally.refused << " refused";
}

// Concat with a second input of the same shape on every axis, after every producer (so its
// inputs arrive dense, NHWC or blocked), the result read by a later op or a graph output. A
// concat is one reorder per input into its window of the output (movement.cc), never oneDNN's
// general "ref:any" concat; channel seams inside a block (7 channels) run row-major.
TEST(OnednnReferenceKernels, NoConcatFormKeepsAReferenceImplementation) {
  Tally tally;
  int cases = 0;
  for (Producer p : kProducers) {
    for (bool standalone : {false, true}) {
      if (standalone && p == Producer::kInput) continue;
      for (int axis = 0; axis < 4; ++axis) {
        bool valid = true;
        const Built built = build(p, standalone, [&](GraphBuilder& b, OperandId v, auto& feeds) {
          const Shape shape = b.graph().desc(v).shape;
          if (axis >= int(shape.size())) {
            valid = false;
            return b.add1(OpKind::kConcat, {std::vector<OperandId>{v}, int64_t(0)}, {}, "t");
          }
          const auto y = b.input("y", {DataType::kFloat32, shape});
          feeds.push_back(seeded(shape, 41 + axis));
          return b.add1(OpKind::kConcat, {std::vector<OperandId>{y, v, y}, int64_t(axis)}, {}, "t");
        });
        if (!valid) continue;
        ++cases;
        check_case(std::string(producer_name(p)) + (standalone ? " standalone" : " fused") +
                       " concat axis " + std::to_string(axis),
                   built, "t", tally);
      }
    }
  }
  for (const auto& r : tally.refused_names) std::printf("refused: %s\n", r.c_str());
  EXPECT_GT(cases, 30);
  EXPECT_EQ(tally.delegated, cases) << tally.refused << " refused";
  // Both ways ran: oneDNN's own parallel copy, and reorders where its concat would be ref:any.
  int simple = 0, reorders = 0;
  for (const auto& [kernel, count] : tally.concat_kernels) {
    std::printf("concat kernel %s: %d\n", kernel.c_str(), count);
    (kernel.rfind("simple", 0) == 0 ? simple : reorders) += count;
  }
  EXPECT_GT(simple, 0);
  EXPECT_GT(reorders, 0);
}

// A refused node says why: the op, its operands and oneDNN's implementation name. The
// compiled region itself reports the node (what plan_execution re-partitions on).
TEST(OnednnReferenceKernels, CompiledRegionReportsEveryStepOnAReferenceImplementation) {
  for (Producer p : kProducers) {
    for (const Form& f : forms(p)) {
      const Built built = build(p, true, [&](GraphBuilder& b, OperandId v, auto& feeds) {
        OperandId y;
        if (f.constant) {
          y = b.constant("c", seeded(f.shape, 31));
        } else {
          y = b.input("y", {DataType::kFloat32, f.shape});
          feeds.push_back(seeded(f.shape, 32));
        }
        return f.constant_first ? b.add1(OpKind::kMax, {y, v}, {}, "t")
                                : b.add1(OpKind::kMax, {v, y}, {}, "t");
      });
      SCOPED_TRACE(std::string(producer_name(p)) + " max with " + f.name);
      const Graph& g = *built.graph;
      const Delegate* d = find_delegate("onednn");
      passes::Region region{"onednn", {}, {}, {}};
      for (uint32_t n = 0; n < g.nodes().size(); ++n) {
        if (d->supports(g, g.nodes()[n]).ok) region.nodes.push_back(n);
      }
      passes::compute_region_io(g, region);
      const auto compiled = d->compile(g, region, {1});
      const auto slow = compiled->slow_nodes();
      for (const auto& st : compiled->profile_steps()) {
        if (!onednn::reference_impl(st.kernel)) continue;
        bool reported = false;
        for (const auto& s : slow) {
          reported |= int64_t(s.node) == st.node && s.reason.find(st.kernel) != std::string::npos &&
                      s.reason.find("reference implementation") != std::string::npos;
        }
        EXPECT_TRUE(reported) << st.kernel << " of node " << st.node << " not reported";
      }
    }
  }
}

TEST(OnednnReferenceKernels, ReferenceImplementationNames) {
  EXPECT_TRUE(onednn::reference_impl("ref:any"));
  EXPECT_TRUE(onednn::reference_impl("gemm:ref"));
  EXPECT_TRUE(onednn::reference_impl("ref_fused:any"));
  EXPECT_FALSE(onednn::reference_impl("jit:avx512_core"));
  EXPECT_FALSE(onednn::reference_impl("brgconv:avx512_core"));
  EXPECT_FALSE(onednn::reference_impl("jit_uni_binary:avx2"));
  EXPECT_FALSE(onednn::reference_impl(""));
}

}  // namespace
}  // namespace wnn::runtime
