// The packed delegate: MatMulNBits' graph form (dequantizeLinear of a uint4/uint8 constant with
// blocked scales, sliced to K, into gemm with bTranspose) runs as one packed-weight kernel, with
// the same results as the reference kernels; a look-alike whose inner value is read elsewhere
// stays on the other delegates, and nodes outside the pattern list no reason from it.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "seeded_tensor.h"
#include "wnn/core/builder.h"
#include "wnn/runtime/delegate.h"
#include "wnn/runtime/session.h"

namespace wnn::runtime {
namespace {

std::mt19937& rng() {
  static std::mt19937 r(20261202);
  return r;
}

Tensor levels(DataType dtype, Shape shape, int top) {
  return testing::uniform_ints(dtype, std::move(shape), 0, top, rng());
}

Tensor floats(Shape shape, float lo, float hi) {
  return testing::uniform_floats(std::move(shape), lo, hi, rng());
}

struct Built {
  std::shared_ptr<const Graph> graph;
  Tensor a;
};

// y = a [m, k] @ dequantize(w [n, blocks * block])[:, :k]^T + bias, as the converter writes it.
// With `leak`, the dequantized weight is a graph output too.
Built nbits_graph(int64_t m, int64_t n, int64_t k, int64_t block, DataType dtype, bool leak) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  const int64_t blocks = (k + block - 1) / block, kp = blocks * block;
  const int top = dtype == DataType::kUint4 ? 15 : 255;
  Built out;
  out.a = floats({m, k}, -2.0f, 2.0f);
  const OperandId a = b.input("a", {DataType::kFloat32, {m, k}});
  const OperandId w = b.constant("w", levels(dtype, {n, kp}, top));
  const OperandId s = b.constant("s", floats({n, blocks}, -0.04f, 0.06f));
  const OperandId z = b.constant("z", levels(dtype, {n, blocks}, top));
  const OperandId bias = b.constant("bias", floats({n}, -1.0f, 1.0f));
  const OperandId dq = b.add1(OpKind::kDequantizeLinear, {w, s, z});
  OperandId wk = dq;
  if (kp != k) wk = b.add1(OpKind::kSlice, {dq, IntList{0, 0}, IntList{n, k}});
  const OperandId y = b.add1(OpKind::kGemm, {a, wk}, {{"bTranspose", true}, {"c", bias}}, "y");
  b.output(y);
  if (leak) b.output(dq);
  out.graph = g;
  return out;
}

size_t packed_regions(const Session& s) {
  size_t count = 0;
  for (const auto& r : s.execution_plan().partition.regions) count += r.delegate == "packed";
  return count;
}

struct Shape4 {
  int64_t m, n, k, block;
  DataType dtype;
};

TEST(PackedMatmul, RunsMatMulNBitsFormAsOneKernelWithTheReferenceResult) {
  for (const Shape4& c :
       {Shape4{1, 37, 40, 16, DataType::kUint4},  // partial last block
        Shape4{5, 21, 64, 32, DataType::kUint4}, Shape4{3, 18, 77, 32, DataType::kUint8},  // odd K
        Shape4{2, 33, 128, 128, DataType::kUint4}}) {
    SCOPED_TRACE(::testing::Message()
                 << "m " << c.m << " n " << c.n << " k " << c.k << " block " << c.block);
    const Built built = nbits_graph(c.m, c.n, c.k, c.block, c.dtype, false);
    Session ref(built.graph, {"ref", 1});
    Session fast(built.graph, {"auto", 2});
    ASSERT_EQ(packed_regions(fast), 1u);
    const auto& region = fast.execution_plan().partition.regions[0];
    EXPECT_EQ(region.nodes.size(), c.k % c.block == 0 ? 2u : 3u);  // dequantize, slice, gemm
    const std::vector<NamedView> in = {{"a", built.a.view()}};
    const auto want = ref.run(in);
    const auto got = fast.run(in);
    const float* g = got[0].tensor.view().as<float>();
    const float* w = want[0].tensor.view().as<float>();
    double largest = 0;
    for (int64_t i = 0; i < want[0].tensor.size(); ++i) {
      largest = std::max(largest, std::abs(double(w[i])));
      ASSERT_NEAR(g[i], w[i], 1e-5 * (1 + std::abs(w[i]))) << i;
    }
    EXPECT_GT(largest, 0.5);
  }
}

TEST(PackedMatmul, LeavesTheFormWhenItsDequantizedWeightIsReadElsewhere) {
  const Built built = nbits_graph(2, 16, 32, 16, DataType::kUint4, true);
  Session fast(built.graph, {"auto", 1});
  EXPECT_EQ(packed_regions(fast), 0u);
  // Refusals of the packed delegate name no reason: what the other delegates say is unchanged.
  for (const auto& why : fast.execution_plan().partition.ref_reason) {
    EXPECT_EQ(why.find("packed"), std::string::npos) << why;
  }
}

// accuracy_level 4's form (onnx/ops/quantized_matmul.cc): A quantized per block to int8 in
// front of the gemm, written once per gemm reading it.
OperandId int8_activations(GraphBuilder& b, OperandId a, int64_t m, int64_t k, int64_t block) {
  const int64_t blocks = k / block;
  auto scalar = [&](DataType dtype, double v) {
    Tensor t = Tensor::zeros(dtype, {});
    store_double(t.mutable_view(), 0, v);
    return b.constant(b.unique_name("c"), t);
  };
  const OperandId x = b.add1(OpKind::kReshape, {a, IntList{m, blocks, block}});
  const OperandId amax = b.add1(OpKind::kReduceMax, {b.add1(OpKind::kAbs, {x})},
                                {{"axes", IntList{2}}, {"keepDimensions", true}});
  OperandId scale = b.add1(OpKind::kDiv, {amax, scalar(DataType::kFloat32, 127.0)});
  scale = b.add1(OpKind::kMax,
                 {scale, scalar(DataType::kFloat32, double(std::numeric_limits<float>::min()))});
  const OperandId zero =
      b.add1(OpKind::kExpand, {scalar(DataType::kInt8, 0.0), IntList{m, blocks, 1}});
  const OperandId q = b.add1(OpKind::kQuantizeLinear, {x, scale, zero});
  return b.add1(OpKind::kReshape,
                {b.add1(OpKind::kDequantizeLinear, {q, scale, zero}), IntList{m, k}});
}

// Every output of `fast` within rtol * (1 + |r|) of `ref`'s, and not all near zero.
void expect_same_outputs(Session& ref, Session& fast, const std::vector<NamedView>& in,
                         double rtol) {
  const auto want = ref.run(in);
  const auto got = fast.run(in);
  ASSERT_EQ(got.size(), want.size());
  for (size_t o = 0; o < want.size(); ++o) {
    const float* gv = got[o].tensor.view().as<float>();
    const float* wv = want[o].tensor.view().as<float>();
    double largest = 0;
    for (int64_t i = 0; i < want[o].tensor.size(); ++i) {
      largest = std::max(largest, std::abs(double(wv[i])));
      ASSERT_NEAR(gv[i], wv[i], rtol * (1 + std::abs(wv[i]))) << want[o].name << " " << i;
    }
    EXPECT_GT(largest, 0.1) << want[o].name;
  }
}

// With `leak`, the up projection's dequantized weight is a graph output too, so its pattern is
// refused; the gate's then is too, since the up gemm reads the shared quantization.
void shared_quantization(bool leak) {
  // A decoder's gate and up projections: two level-4 gemms of one A, each written with its own
  // quantization of A; passes/share_values leaves one, which both patterns hold.
  const int64_t m = 1, k = 64, block = 32, blocks = 2;
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  const Tensor a_value = floats({m, k}, -3.0f, 3.0f);
  const OperandId a = b.input("a", {DataType::kFloat32, {m, k}});
  for (const char* name : {"gate", "up"}) {
    const int64_t n = 20;
    const OperandId w = b.constant(std::string(name) + ".w", levels(DataType::kUint4, {n, k}, 15));
    const OperandId s = b.constant(std::string(name) + ".s", floats({n, blocks}, 0.01f, 0.05f));
    const OperandId z =
        b.constant(std::string(name) + ".z", levels(DataType::kUint4, {n, blocks}, 15));
    const OperandId dq = b.add1(OpKind::kDequantizeLinear, {w, s, z});
    b.output(b.add1(OpKind::kGemm, {int8_activations(b, a, m, k, block), dq},
                    {{"bTranspose", true}}, name));
    if (leak && std::string(name) == "up") b.output(dq);
  }
  Session ref(g, {"ref", 1});
  Session fast(g, {"auto", 2});
  EXPECT_EQ(packed_regions(fast), leak ? 0u : 1u);
  if (!leak) {
    EXPECT_EQ(fast.execution_plan().partition.regions.size(), 1u);
    for (const auto& why : fast.execution_plan().partition.ref_reason) {
      if (!why.empty()) ADD_FAILURE() << "left on the reference kernels: " << why;
    }
  }
  expect_same_outputs(ref, fast, {{"a", a_value.view()}}, 1e-5);
}

TEST(PackedMatmul, GemmsReadingOneInputShareItsInt8Quantization) { shared_quantization(false); }

TEST(PackedMatmul, ASharedQuantizationStaysWhenOneOfItsGemmsCannotBePacked) {
  shared_quantization(true);
}

// A decoder layer's MLP half as the importer writes it (onnx/ops/contrib.cc): the residual add
// of the attention projection's output (through its reshape), the RMS norm of the sum with the
// sum as an identity output (SkipSimplifiedLayerNormalization), the gate and up projections,
// silu(gate) * up, and the down projection.
struct LayerOptions {
  bool int8_activations = false;
  bool leak_norm = false;   // the norm's quotient is a graph output too
  bool other_axis = false;  // the mean over axis 1 instead of the last
  bool leak_sigmoid = false;
};

struct Layer {
  std::shared_ptr<const Graph> graph;
  Tensor h, o;
  std::vector<NamedView> inputs() const { return {{"h", h.view()}, {"o", o.view()}}; }
};

Layer decoder_mlp(int64_t m, int64_t k, int64_t n, int64_t block, const LayerOptions& opt) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  Layer out;
  out.h = floats({1, m, k}, -2.0f, 2.0f);
  out.o = floats({m, k}, -1.0f, 1.0f);
  auto scalar = [&](double v) {
    Tensor t = Tensor::zeros(DataType::kFloat32, {});
    store_double(t.mutable_view(), 0, v);
    return b.constant(b.unique_name("c"), t);
  };
  auto projection = [&](OperandId a, int64_t rows, int64_t cols, int64_t depth,
                        std::string name = "") {
    const int64_t blocks = depth / block;
    const OperandId w = b.constant(b.unique_name("w"), levels(DataType::kUint4, {cols, depth}, 15));
    const OperandId s = b.constant(b.unique_name("s"), floats({cols, blocks}, -0.05f, 0.06f));
    const OperandId z =
        b.constant(b.unique_name("z"), levels(DataType::kUint4, {cols, blocks}, 15));
    const OperandId dq = b.add1(OpKind::kDequantizeLinear, {w, s, z});
    const OperandId x = opt.int8_activations ? int8_activations(b, a, rows, depth, block) : a;
    return b.add1(OpKind::kGemm, {x, dq}, {{"bTranspose", true}}, std::move(name));
  };
  const OperandId h = b.input("h", {DataType::kFloat32, {1, m, k}});
  const OperandId o = b.input("o", {DataType::kFloat32, {m, k}});
  const OperandId sum = b.add1(OpKind::kAdd, {b.add1(OpKind::kReshape, {o, IntList{1, m, k}}), h});
  b.output(b.add1(OpKind::kIdentity, {sum}, {}, "residual"));
  const OperandId ms =
      b.add1(OpKind::kReduceMean, {b.add1(OpKind::kMul, {sum, sum})},
             {{"axes", IntList{opt.other_axis ? 1 : 2}}, {"keepDimensions", true}});
  const OperandId q = b.add1(
      OpKind::kDiv, {sum, b.add1(OpKind::kSqrt, {b.add1(OpKind::kAdd, {ms, scalar(1e-3)})})});
  if (opt.leak_norm) b.output(q);
  const OperandId gamma = b.constant("gamma", floats({k}, -1.5f, 1.5f));
  const OperandId normed = b.add1(OpKind::kIdentity, {b.add1(OpKind::kMul, {gamma, q})});
  const OperandId a = b.add1(OpKind::kReshape, {normed, IntList{m, k}});
  const OperandId gate = b.add1(OpKind::kReshape, {projection(a, m, n, k), IntList{1, m, n}});
  const OperandId up = b.add1(OpKind::kReshape, {projection(a, m, n, k), IntList{1, m, n}});
  const OperandId sig = b.add1(OpKind::kSigmoid, {gate});
  if (opt.leak_sigmoid) b.output(sig);
  const OperandId gated = b.add1(OpKind::kMul, {up, b.add1(OpKind::kMul, {sig, gate})});
  b.output(projection(b.add1(OpKind::kReshape, {gated, IntList{m, n}}), m, k, n, "y"));
  out.graph = g;
  return out;
}

TEST(PackedDecoder, NormProjectionsAndSiluRunAsOneRegionWithTheReferenceResult) {
  for (int64_t m : {1, 3}) {
    SCOPED_TRACE(::testing::Message() << "rows " << m);
    const Layer layer = decoder_mlp(m, 96, 64, 32, {});
    Session ref(layer.graph, {"ref", 1});
    Session fast(layer.graph, {"auto", 2});
    const auto& plan = fast.execution_plan();
    ASSERT_EQ(plan.partition.regions.size(), 1u);
    EXPECT_EQ(plan.partition.regions[0].delegate, "packed");
    EXPECT_EQ(plan.partition.regions[0].nodes.size(), plan.graph->nodes().size());
    // One norm, three matmuls and the gated product: five steps.
    const auto steps = plan.compiled[0]->profile_steps();
    ASSERT_EQ(steps.size(), 5u);
    EXPECT_NE(steps[0].kernel.find("rms norm " + std::to_string(m) + "x96 after the residual add"),
              std::string::npos)
        << steps[0].kernel;
    EXPECT_NE(steps[3].kernel.find("silu(gate) * up, " + std::to_string(m * 64) + " elements"),
              std::string::npos)
        << steps[3].kernel;
    expect_same_outputs(ref, fast, layer.inputs(), 1e-5);
  }
}

TEST(PackedDecoder, Int8ActivationsKeepTheNormAndSiluInTheRegion) {
  // At accuracy_level 4 a rounding difference in the norm can move an element of A across an
  // int8 rounding boundary (docs/validation.md): one step of max|a| / 127 times a weight, so
  // the comparison allows a few such steps.
  const Layer layer = decoder_mlp(2, 64, 64, 32, {true});
  Session ref(layer.graph, {"ref", 1});
  Session fast(layer.graph, {"auto", 1});
  const auto& plan = fast.execution_plan();
  ASSERT_EQ(plan.partition.regions.size(), 1u);
  EXPECT_EQ(plan.partition.regions[0].nodes.size(), plan.graph->nodes().size());
  expect_same_outputs(ref, fast, layer.inputs(), 2e-2);
}

TEST(PackedDecoder, LookAlikesStayWithTheOtherDelegates) {
  struct Case {
    const char* what;
    LayerOptions opt;
    size_t packed_steps;  // of the region holding the gemms
  };
  for (const Case& c : {Case{"quotient read outside", {false, true}, 4},
                        Case{"mean over another axis", {false, false, true}, 4},
                        Case{"sigmoid read outside", {false, false, false, true}, 4}}) {
    SCOPED_TRACE(c.what);
    const Layer layer = decoder_mlp(2, 64, 32, 32, c.opt);
    Session ref(layer.graph, {"ref", 1});
    Session fast(layer.graph, {"auto", 1});
    const auto& plan = fast.execution_plan();
    EXPECT_GT(plan.partition.regions.size(), 1u);
    size_t steps = 0;
    for (size_t r = 0; r < plan.partition.regions.size(); ++r) {
      if (plan.partition.regions[r].delegate == "packed") {
        steps += plan.compiled[r]->profile_steps().size();
      }
    }
    EXPECT_EQ(steps, c.packed_steps);
    expect_same_outputs(ref, fast, layer.inputs(), 1e-5);
  }
}

}  // namespace
}  // namespace wnn::runtime
