// Written-out activations WebNN has no op for (SiLU, mish, tanh-gelu) and softplus on the
// oneDNN delegate: each chain runs as one eltwise kernel, standalone or as a post-op of the
// matmul or conv before it, and computes what the reference kernels compute on the written-out
// graph; look-alikes (other constants, an intermediate read elsewhere) keep their nodes.
#include <gtest/gtest.h>

#include "onednn_compare.h"
#include "seeded_tensor.h"
#include "wnn/core/builder.h"

namespace wnn::runtime {
namespace {

using testing::count_prefix;
using testing::expect_same_as_reference;
using testing::has_label;
using testing::kernel_labels;
using testing::seeded;

OperandId scalar(GraphBuilder& b, float v) {
  Tensor t = Tensor::zeros(DataType::kFloat32, {});
  *t.mutable_view().as<float>() = v;
  return b.constant(b.unique_name("k"), t);
}

enum class Form { kSilu, kQuickGelu, kMish, kMishLogExp, kGeluPow, kGeluCube, kGeluHalfLast };

struct Chain {
  Form form;
  float kappa = 0.044715f;   // tanh-gelu's cubic coefficient
  bool share_inner = false;  // an intermediate is also a graph output
};

// The chain of `c` on x, named "y".
OperandId written_out(GraphBuilder& b, OperandId x, const Chain& c) {
  switch (c.form) {
    case Form::kSilu: {
      const auto s = b.add1(OpKind::kSigmoid, {x}, {}, "inner");
      return b.add1(OpKind::kMul, {s, x}, {}, "y");
    }
    case Form::kQuickGelu: {  // the importer's QuickGelu: swish with beta 1.702
      const auto s =
          b.add1(OpKind::kSigmoid, {b.add1(OpKind::kMul, {scalar(b, c.kappa), x})}, {}, "inner");
      return b.add1(OpKind::kMul, {x, s}, {}, "y");
    }
    case Form::kMish:
    case Form::kMishLogExp: {
      const auto sp =
          c.form == Form::kMish
              ? b.add1(OpKind::kSoftplus, {x})
              : b.add1(OpKind::kLog,
                       {b.add1(OpKind::kAdd, {scalar(b, 1), b.add1(OpKind::kExp, {x})})});
      return b.add1(OpKind::kMul, {x, b.add1(OpKind::kTanh, {sp}, {}, "inner")}, {}, "y");
    }
    default: {
      const auto cube = c.form == Form::kGeluPow
                            ? b.add1(OpKind::kPow, {x, scalar(b, 3)})
                            : b.add1(OpKind::kMul, {b.add1(OpKind::kMul, {x, x}), x});
      const auto inner =
          b.add1(OpKind::kAdd, {x, b.add1(OpKind::kMul, {scalar(b, c.kappa), cube})});
      const auto t = b.add1(OpKind::kTanh, {b.add1(OpKind::kMul, {inner, scalar(b, 0.7978846f)})},
                            {}, "inner");
      const auto gate = b.add1(OpKind::kAdd, {t, scalar(b, 1)});
      if (c.form == Form::kGeluHalfLast)
        return b.add1(OpKind::kMul, {scalar(b, 0.5f), b.add1(OpKind::kMul, {x, gate})}, {}, "y");
      return b.add1(OpKind::kMul, {b.add1(OpKind::kMul, {x, scalar(b, 0.5f)}), gate}, {}, "y");
    }
  }
}

std::shared_ptr<Graph> graph_of(const Chain& c, bool after_matmul) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  const auto in = b.input("x", {DataType::kFloat32, {3, 5, 13}});
  // A standalone chain reads an input scaled elementwise (a kernel of its own before it).
  const auto x = after_matmul ? b.add1(OpKind::kMatmul, {in, b.constant("w", seeded({13, 13}, 1))})
                              : b.add1(OpKind::kAbs, {in});
  const auto y = written_out(b, x, c);
  b.output(y);
  if (c.share_inner) b.output("inner");
  return g;
}

const std::vector<Form> kForms = {Form::kSilu,        Form::kQuickGelu, Form::kMish,
                                  Form::kMishLogExp,  Form::kGeluPow,   Form::kGeluCube,
                                  Form::kGeluHalfLast};

TEST(OnednnActivationChains, StandaloneChainIsOneKernel) {
  for (Form f : kForms) {
    SCOPED_TRACE(int(f));
    const auto g = graph_of({f, f == Form::kQuickGelu ? 1.702f : 0.044715f}, false);
    // Values past tanh's and softplus's saturation, negative ones and zeros.
    Tensor xv = seeded({3, 5, 13}, 4, -12, 12);
    xv.mutable_view().as<float>()[0] = 0;
    const std::vector<NamedView> feed = {{"x", xv.view()}};
    expect_same_as_reference(g, feed);
    const auto labels = kernel_labels(g, feed);
    EXPECT_EQ(labels.size(), 2u) << ::testing::PrintToString(labels);  // abs, the chain
    EXPECT_EQ(count_prefix(labels, "abs '"), 1u) << ::testing::PrintToString(labels);
  }
}

TEST(OnednnActivationChains, ChainAfterMatmulIsItsPostOp) {
  for (Form f : kForms) {
    SCOPED_TRACE(int(f));
    const auto g = graph_of({f, f == Form::kQuickGelu ? -0.75f : 0.044715f}, true);
    const Tensor xv = seeded({3, 5, 13}, 5, -3, 3);
    const std::vector<NamedView> feed = {{"x", xv.view()}};
    expect_same_as_reference(g, feed);
    const auto labels = kernel_labels(g, feed);
    EXPECT_EQ(labels.size(), 1u) << ::testing::PrintToString(labels);
    EXPECT_TRUE(has_label(labels, "matmul+")) << ::testing::PrintToString(labels);
  }
}

TEST(OnednnActivationChains, LookAlikesKeepTheirNodes) {
  // Another cubic coefficient, and an intermediate read as an output: no single kernel.
  for (const Chain& c :
       {Chain{Form::kGeluPow, 0.05f}, Chain{Form::kGeluCube, 0.05f},
        Chain{Form::kSilu, 0.044715f, true}, Chain{Form::kMish, 0.044715f, true}}) {
    SCOPED_TRACE(int(c.form));
    const auto g = graph_of(c, false);
    const Tensor xv = seeded({3, 5, 13}, 6, -4, 4);
    const std::vector<NamedView> feed = {{"x", xv.view()}};
    expect_same_as_reference(g, feed);
    EXPECT_GT(kernel_labels(g, feed).size(), 2u);
  }
}

// softplus (canonicalize writes log(1 + exp(x)) as it) on oneDNN's soft_relu, against the
// reference kernel's log1p form, where the written-out form overflows (x > 88) and where it
// rounds to 0 or 1 + tiny.
TEST(OnednnActivationChains, SoftplusMatchesTheReferenceKernel) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  const auto x = b.input("x", {DataType::kFloat32, {2, 9}});
  b.output(b.add1(OpKind::kSoftplus, {b.add1(OpKind::kAbs, {x})}, {}, "y"));
  b.output(b.add1(OpKind::kSoftplus, {b.add1(OpKind::kNeg, {x})}, {}, "z"));
  Tensor xv = Tensor::zeros(DataType::kFloat32, {2, 9});
  const float v[18] = {0,     1e-7f, 1e-3f, 0.5f,  1,     3,   10,  15.9f, 16.1f,
                       20.5f, 30,    50,    87.9f, 88.5f, 100, 500, 1e4f,  -0.25f};
  std::copy(v, v + 18, xv.mutable_view().as<float>());
  const std::vector<NamedView> feed = {{"x", xv.view()}};
  expect_same_as_reference(g, feed);
  Session s(g, {"onednn", 1, true, false});
  s.set_profiling(true);
  s.run(feed);
  size_t on_onednn = 0;
  for (const auto& row : s.profile()) {
    if (row.label.rfind("softplus", 0) != 0) continue;
    EXPECT_NE(row.where, "ref") << row.label;
    EXPECT_EQ(row.kernel.rfind("ref", 0), std::string::npos) << row.kernel;
    ++on_onednn;
  }
  EXPECT_EQ(on_onednn, 2u);
}

}  // namespace
}  // namespace wnn::runtime
