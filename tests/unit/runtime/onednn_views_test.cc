// Strided views in oneDNN regions (runtime/onednn/views.cc): transposes, reshapes, slices,
// constant-index gathers and scalar scales become strides, offsets and output scales of the
// matmuls reading them. Results must equal the reference kernels', and the attention pattern
// must run without layout copies between its matmuls.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "onednn_compare.h"
#include "seeded_tensor.h"
#include "wnn/core/builder.h"
#include "wnn/runtime/onednn/views.h"

namespace wnn::runtime {
namespace {

using Ints = std::vector<int64_t>;
using testing::expect_same_as_reference;
using testing::kernel_labels;
using testing::seeded;

// Strides worked out by hand: each new dim's stride is the element distance in the old view.
TEST(OnednnViews, ReshapeStridesFollowTheOldLayout) {
  using onednn::reshape_strides;
  using dims = dnnl::memory::dims;
  EXPECT_EQ(reshape_strides({2, 3, 4}, {12, 4, 1}, {6, 4}), dims({4, 1}));
  // A [128, 1, 192] slice of a [128, 1, 576] projection split into 6 heads of 32.
  EXPECT_EQ(reshape_strides({128, 1, 192}, {576, 576, 1}, {128, 6, 32}), dims({576, 32, 1}));
  // Heads first ([4, 10, 32] read from a [10, 4, 32] buffer): the last dim splits, the first
  // two cannot merge.
  EXPECT_EQ(reshape_strides({4, 10, 32}, {32, 128, 1}, {4, 10, 2, 16}), dims({32, 128, 16, 1}));
  EXPECT_EQ(reshape_strides({4, 10, 32}, {32, 128, 1}, {40, 32}), std::nullopt);
  EXPECT_EQ(reshape_strides({4, 3}, {1, 4}, {12}), std::nullopt);  // a transposed matrix
  // Unit dims anywhere: the non-unit ones keep their strides.
  const auto r = reshape_strides({6, 1, 4}, {8, 99, 2}, {1, 6, 4, 1});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ((*r)[1], 8);
  EXPECT_EQ((*r)[2], 2);
  EXPECT_EQ(reshape_strides({5}, {3}, {5, 1, 1}).value()[0], 3);
}

// Only unit dims' strides may differ between descs addressing the same bytes.
TEST(OnednnViews, SameAddressingIgnoresOnlyUnitDimStrides) {
  using dnnl::memory;
  using onednn::same_addressing;
  const auto f32 = memory::data_type::f32;
  const memory::desc plain({1, 5, 6}, f32, memory::dims{30, 6, 1});
  EXPECT_TRUE(same_addressing(memory::desc({1, 5, 6}, f32, memory::dims{6, 6, 1}), plain));
  EXPECT_TRUE(same_addressing(memory::desc({1, 5, 6}, f32, memory::format_tag::bac), plain));
  EXPECT_FALSE(same_addressing(memory::desc({1, 5, 6}, f32, memory::dims{30, 1, 5}), plain));
  EXPECT_FALSE(same_addressing(memory::desc({1, 5, 6}, f32, memory::dims{30, 7, 1}), plain));
  EXPECT_FALSE(same_addressing(memory::desc({1, 5, 6}, f32, memory::format_tag::aBc8b), plain));
  memory::desc shifted = plain;
  shifted.data.offset0 = 6;
  EXPECT_FALSE(same_addressing(shifted, plain));
}

// ViT's token concat ([1, 1, E] class token and [1, N, E] patches on axis 1) is held in a
// layout oneDNN tags "bac"; the residual adds reading it must still match the reference.
TEST(OnednnViews, ResidualAddOverAConcatOfTokensMatchesReference) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  const auto p = b.input("p", {DataType::kFloat32, {1, 6, 4}});
  const auto patches = b.add1(OpKind::kTranspose, {p}, {{"permutation", Ints{0, 2, 1}}});
  const auto tokens = b.add1(
      OpKind::kConcat,
      {std::vector<OperandId>{b.constant("cls", seeded({1, 1, 6}, 30)), patches}, int64_t(1)});
  const auto x = b.add1(OpKind::kAdd, {tokens, b.constant("pos", seeded({1, 5, 6}, 31))});
  const auto h = b.add1(OpKind::kMatmul, {x, b.constant("w", seeded({6, 6}, 32))});
  b.output(b.add1(OpKind::kAdd, {x, h}, {}, "y"));
  const Tensor pv = seeded({1, 6, 4}, 33);
  expect_same_as_reference(g, {{"p", pv.view()}});
}

OperandId scalar(GraphBuilder& b, const char* name, float v) {
  Tensor t = Tensor::zeros(DataType::kFloat32, {});
  *t.mutable_view().as<float>() = v;
  return b.constant(name, t);
}

// torch's exported self-attention with odd sizes: a fused [7, 1, 45] QKV projection sliced
// into q, k, v, split into 3 heads of 5 by reshape and transpose, q / sqrt(5), a causal mask
// of -inf plus a -1e9 entry added to the scores, softmax, the heads merged by transpose and
// reshape, and the output projection. The merged heads are also a graph output.
std::shared_ptr<const Graph> attention(bool masked) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  const int64_t L = 7, H = 3, D = 5, E = H * D;
  const auto x = b.input("x", {DataType::kFloat32, {L, 1, E}});
  const auto qkv = b.add1(
      OpKind::kAdd, {b.constant("bias", seeded({3 * E}, 21)),
                     b.add1(OpKind::kMatmul, {x, b.constant("w_in", seeded({E, 3 * E}, 22))})});
  auto head = [&](int64_t which, Ints perm) {
    const auto s = b.add1(OpKind::kSlice, {qkv, Ints{0, 0, which * E}, Ints{L, 1, E}});
    const auto r = b.add1(OpKind::kReshape, {s, Ints{L, H, D}});
    return b.add1(OpKind::kTranspose, {r}, {{"permutation", perm}});
  };
  const auto q = b.add1(OpKind::kDiv, {head(0, {1, 0, 2}), scalar(b, "sqrt_d", std::sqrt(5.0f))});
  const auto kt = head(1, {1, 2, 0});
  const auto v = head(2, {1, 0, 2});
  auto scores = b.add1(OpKind::kMatmul, {q, kt});
  if (masked) {
    Tensor mask = Tensor::zeros(DataType::kFloat32, {L, L});
    float* m = mask.mutable_view().as<float>();
    for (int64_t i = 0; i < L; ++i) {
      for (int64_t j = i + 1; j < L; ++j) m[i * L + j] = -std::numeric_limits<float>::infinity();
    }
    m[4 * L + 1] = -1e9f;
    m[6 * L + 0] = -0.75f;
    scores = b.add1(OpKind::kAdd, {scores, b.constant("mask", mask)});
  }
  const auto p = b.add1(OpKind::kSoftmax, {scores, int64_t(2)});
  const auto o = b.add1(OpKind::kMatmul, {p, v});
  const auto merged = b.add1(OpKind::kTranspose, {o}, {{"permutation", Ints{1, 0, 2}}}, "merged");
  const auto flat = b.add1(OpKind::kReshape, {merged, Ints{L, E}});
  b.output(b.add1(OpKind::kGemm, {flat, b.constant("w_out", seeded({E, E}, 23))},
                  {{"c", b.constant("b_out", seeded({E}, 24))}, {"bTranspose", true}}, "y"));
  b.output(merged);
  return g;
}

TEST(OnednnViews, AttentionHeadSplitRunsWithoutCopiesAndMatchesReference) {
  for (bool masked : {false, true}) {
    SCOPED_TRACE(masked ? "masked" : "unmasked");
    const auto g = attention(masked);
    const Tensor x = seeded({7, 1, 15}, 25);
    const std::vector<NamedView> in = {{"x", x.view()}};
    expect_same_as_reference(g, in);
    const auto labels = kernel_labels(g, in);
    // The windows, the transposes and reshapes cost nothing. The k and v windows start inside
    // the QKV buffer, which the matmul kernels read from a handle at their first element (they
    // ignore a desc's offset0). The copies are the merged heads written out as an output and
    // q's window made row-major for the division by sqrt(5): a true division, since x * (1/c)
    // is a scaled view only for a power-of-two c (ONNX Runtime divides).
    const auto copies = std::count_if(labels.begin(), labels.end(), [](const std::string& l) {
      return l.rfind("reorder", 0) == 0;
    });
    EXPECT_EQ(copies, 2) << ::testing::PrintToString(labels);
    // oneDNN 2.6 has only its reference matmul for a mask broadcast over the heads, so the
    // mask add runs as its own kernel rather than as a post-op.
    EXPECT_EQ(labels.size(), masked ? 9u : 8u) << ::testing::PrintToString(labels);
  }
}

// A scaled view read by a kernel that needs row-major memory gets the scale in its copy;
// x * c with the constant first, and a scale on a plain input, too.
TEST(OnednnViews, ScaledViewsReadByOtherKernelsMatchReference) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  const auto x = b.input("x", {DataType::kFloat32, {3, 4, 5}});
  const auto t = b.add1(OpKind::kTranspose, {x}, {{"permutation", Ints{2, 0, 1}}});
  const auto s = b.add1(OpKind::kMul, {scalar(b, "minus_1_5", -1.5f), t});
  b.output(b.add1(OpKind::kRelu, {s}, {}, "relu"));
  b.output(b.add1(OpKind::kDiv, {x, scalar(b, "three", 3.0f)}, {}, "third"));
  const auto y = b.input("y", {DataType::kFloat32, {3, 5}});
  const auto yt = b.add1(OpKind::kTranspose, {b.add1(OpKind::kMul, {y, scalar(b, "two", 2.0f)})});
  b.output(
      b.add1(OpKind::kMatmul, {x, b.add1(OpKind::kDiv, {yt, scalar(b, "neg", -4.0f)})}, {}, "mm"));
  const Tensor xv = seeded({3, 4, 5}, 26), yv = seeded({3, 5}, 27);
  expect_same_as_reference(g, {{"x", xv.view()}, {"y", yv.view()}});
}

// gather of one constant index (ViT's class token): negative and clamped indices as the
// reference resolves them, read by a gemm and written out directly.
TEST(OnednnViews, ConstantIndexGatherIsASliceAndMatchesReference) {
  for (int64_t index : {int64_t(-2), int64_t(0), int64_t(3), int64_t(9)}) {
    SCOPED_TRACE(index);
    auto g = std::make_shared<Graph>();
    GraphBuilder b(*g);
    const auto x = b.input("x", {DataType::kFloat32, {2, 5, 3}});
    Tensor idx = Tensor::zeros(DataType::kInt64, {});
    *idx.mutable_view().as<int64_t>() = index;
    const auto row = b.add1(OpKind::kGather, {x, b.constant("i", idx)}, {{"axis", int64_t(1)}});
    b.output(b.add1(OpKind::kGemm, {row, b.constant("w", seeded({3, 4}, 28))}, {}, "y"));
    Tensor idx1 = Tensor::zeros(DataType::kInt32, {1});
    *idx1.mutable_view().as<int32_t>() = int32_t(index);
    b.output(b.add1(OpKind::kGather, {x, b.constant("i1", idx1)}, {{"axis", int64_t(2)}}, "z"));
    const Tensor xv = seeded({2, 5, 3}, 29);
    expect_same_as_reference(g, {{"x", xv.view()}});
  }
}

// Views of a region input that are themselves outputs: a window, a reshape of the window, and
// an identity; then a transpose of a reshaped window, a window of a window and a concat of
// windows. Each output needs its own copy.
TEST(OnednnViews, ViewsOfRegionInputsAsOutputsMatchReference) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  const auto x = b.input("x", {DataType::kFloat32, Shape{3, 4, 6}});
  const auto window = b.add1(OpKind::kSlice, {x, Ints{1, 1, 2}, Ints{2, 3, 3}}, {}, "window");
  const auto reshaped = b.add1(OpKind::kReshape, {window, Ints{3, 6}}, {}, "reshaped");
  b.output(window);
  b.output(reshaped);
  b.output(b.add1(OpKind::kIdentity, {x}, {}, "same"));
  b.output(b.add1(OpKind::kTranspose, {reshaped}, {}, "flipped"));
  b.output(b.add1(OpKind::kTanh, {window}, {}, "tanh"));
  // A window of a window, and a concat of two windows of the input.
  b.output(b.add1(OpKind::kSlice, {window, Ints{0, 1, 1}, Ints{2, 2, 2}}, {}, "inner"));
  const auto front = b.add1(OpKind::kSlice, {x, Ints{0, 0, 0}, Ints{3, 4, 2}});
  const auto back = b.add1(OpKind::kSlice, {x, Ints{0, 0, 3}, Ints{3, 4, 3}});
  b.output(b.add1(OpKind::kConcat, {std::vector<OperandId>{back, front}, int64_t(2)}, {}, "cat"));
  const Tensor xv = seeded({3, 4, 6}, 4);
  expect_same_as_reference(g, {{"x", xv.view()}});
}

}  // namespace
}  // namespace wnn::runtime

namespace wnn::runtime {
namespace {

// Exported attention's output projection: gemm -> reshape [L, 1, E] -> transpose [1, L, E] ->
// residual add. The reshape and unit-dim transpose keep the bytes in order, so the add is a
// post-op of the gemm; a broadcast add after a reshape, or a real transpose, ends the chain.
TEST(OnednnViews, EpilogueRunsThroughSameOrderReshapes) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  const auto a = b.input("a", {DataType::kFloat32, {6, 5}});
  const auto x = b.input("x", {DataType::kFloat32, {1, 6, 10}});
  const auto gm = b.add1(OpKind::kGemm, {a, b.constant("w", seeded({10, 5}, 34))},
                         {{"c", b.constant("c", seeded({10}, 35))}, {"bTranspose", true}});
  const auto r = b.add1(OpKind::kReshape, {gm, Ints{6, 1, 10}});
  const auto t = b.add1(OpKind::kTranspose, {r}, {{"permutation", Ints{1, 0, 2}}});
  b.output(b.add1(OpKind::kAdd, {x, t}, {}, "residual"));
  // A real transpose: not fused.
  const auto m = b.add1(OpKind::kMatmul, {a, b.constant("w2", seeded({5, 4}, 36))});
  const auto mt = b.add1(OpKind::kTranspose, {m});
  b.output(b.add1(OpKind::kAdd, {mt, b.constant("d", seeded({4, 6}, 37))}, {}, "moved"));
  // A broadcast operand after a reshape: not fused.
  const auto m2 = b.add1(OpKind::kMatmul, {a, b.constant("w3", seeded({5, 4}, 38))});
  const auto r2 = b.add1(OpKind::kReshape, {m2, Ints{3, 2, 4}});
  b.output(b.add1(OpKind::kSub, {r2, b.constant("e", seeded({4}, 39))}, {}, "broadcast"));
  // Reshapes ending at a graph output: the gemm writes the caller's buffer, no copy after.
  const auto g2 = b.add1(OpKind::kGemm, {a, b.constant("w4", seeded({5, 3}, 42))});
  const auto r3 = b.add1(OpKind::kReshape, {g2, Ints{6, 1, 3}});
  b.output(b.add1(OpKind::kTranspose, {r3}, {{"permutation", Ints{1, 0, 2}}}, "projected"));
  const Tensor av = seeded({6, 5}, 40), xv = seeded({1, 6, 10}, 41);
  const std::vector<NamedView> in = {{"a", av.view()}, {"x", xv.view()}};
  expect_same_as_reference(g, in);
  const auto labels = kernel_labels(g, in);
  EXPECT_TRUE(testing::has_label(labels, "gemm+reshape+transpose+add 'residual'"))
      << ::testing::PrintToString(labels);
  EXPECT_TRUE(testing::has_label(labels, "gemm+reshape+transpose 'projected'"))
      << ::testing::PrintToString(labels);
  EXPECT_FALSE(testing::has_label(labels, "reorder for transpose 'projected'"))
      << ::testing::PrintToString(labels);
  EXPECT_FALSE(testing::has_label(labels, "matmul+transpose")) << ::testing::PrintToString(labels);
  EXPECT_FALSE(testing::has_label(labels, "matmul+reshape")) << ::testing::PrintToString(labels);
}

// Windows that start inside their buffer, read by matmul as either operand and by a reduction
// that runs as a matmul: a region input sliced on the middle axis (brg kernel) and on the last
// axis (a strided [6, 1] column, the real and imaginary halves of a DFT), also behind a relu so
// the buffer is the region's own.
TEST(OnednnViews, OffsetWindowsIntoMatmulMatchReference) {
  for (bool through_relu : {false, true}) {
    SCOPED_TRACE(through_relu ? "internal buffer" : "region input");
    auto g = std::make_shared<Graph>();
    GraphBuilder b(*g);
    const auto x = b.input("x", {DataType::kFloat32, {1, 2, 6}});
    const auto src = through_relu ? b.add1(OpKind::kRelu, {x}) : x;
    const auto row = b.add1(OpKind::kSlice, {src, Ints{0, 1, 0}, Ints{1, 1, 6}});
    b.output(b.add1(OpKind::kMatmul, {row, b.constant("w", seeded({6, 4}, 41))}, {}, "y_row"));
    const auto col =
        b.add1(OpKind::kSlice, {b.add1(OpKind::kTranspose, {src}, {{"permutation", Ints{0, 2, 1}}}),
                                Ints{0, 0, 1}, Ints{1, 6, 1}});
    b.output(b.add1(OpKind::kMatmul, {b.constant("m", seeded({4, 6}, 42)), col}, {}, "y_col"));
    // The reduction over a middle axis also runs as a matmul on the view (reduce_matmul.cc); a
    // slice of its own, which no earlier reader has copied.
    const auto row3 =
        b.add1(OpKind::kReshape,
               {b.add1(OpKind::kSlice, {src, Ints{0, 1, 0}, Ints{1, 1, 6}}), Ints{1, 2, 3}});
    b.output(b.add1(OpKind::kReduceSum, {row3}, {{"axes", Ints{1}}}, "y_sum"));
    const Tensor xv = seeded({1, 2, 6}, 43);
    expect_same_as_reference(g, {{"x", xv.view()}});
  }
}

}  // namespace
}  // namespace wnn::runtime
