// RMS normalization written out (the importer's SimplifiedLayerNormalization, optimum Llama's
// Pow/ReduceMean/Add/Sqrt/Div(1, .)/Mul) runs on the oneDNN delegate as one step of wnn's own
// inside the region, computing what the reference kernels compute on the written-out graph;
// look-alikes keep their nodes.
#include <gtest/gtest.h>

#include "onednn_compare.h"
#include "seeded_tensor.h"
#include "wnn/core/builder.h"

namespace wnn::runtime {
namespace {

using testing::expect_same_as_reference;
using testing::seeded;
using Ints = std::vector<int64_t>;

enum class Inverse { kDiv, kOneOver, kReciprocal };

struct Rms {
  Shape x = {2, 7, 24};
  Ints axes = {2};
  Inverse inverse = Inverse::kDiv;
  bool pow = false;
  bool gamma = true;
  bool gamma_first = false;
  float eps = 1e-6f;
  bool eps_first = false;
  bool after_matmul = false;
};

OperandId scalar(GraphBuilder& b, float v) {
  Tensor t = Tensor::zeros(DataType::kFloat32, {});
  *t.mutable_view().as<float>() = v;
  return b.constant(b.unique_name("k"), t);
}

std::shared_ptr<Graph> rms_graph(const Rms& r) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  const auto in = b.input("x", {DataType::kFloat32, r.x});
  const int64_t last = r.x.back();
  // x read elsewhere too (the residual of the next block).
  const auto x = r.after_matmul
                     ? b.add1(OpKind::kMatmul, {in, b.constant("w", seeded({last, last}, 1))})
                     : b.add1(OpKind::kAdd, {in, b.constant("skip", seeded(r.x, 2))});
  const auto sq = r.pow ? b.add1(OpKind::kPow, {x, scalar(b, 2)}) : b.add1(OpKind::kMul, {x, x});
  const auto ms = b.add1(OpKind::kReduceMean, {sq}, {{"axes", r.axes}, {"keepDimensions", true}});
  const auto e = scalar(b, r.eps);
  const auto s = b.add1(
      OpKind::kSqrt, {r.eps_first ? b.add1(OpKind::kAdd, {e, ms}) : b.add1(OpKind::kAdd, {ms, e})});
  OperandId n;
  switch (r.inverse) {
    case Inverse::kDiv:
      n = b.add1(OpKind::kDiv, {x, s});
      break;
    case Inverse::kOneOver:
      n = b.add1(OpKind::kMul, {x, b.add1(OpKind::kDiv, {scalar(b, 1), s})});
      break;
    case Inverse::kReciprocal:
      n = b.add1(OpKind::kMul, {b.add1(OpKind::kReciprocal, {s}), x});
      break;
  }
  OperandId y = n;
  if (r.gamma) {
    Shape gs(r.x.end() - long(r.axes.size()), r.x.end());
    const auto gv = b.constant("gamma", seeded(gs, 3, 0.5, 1.5));
    y = b.add1(OpKind::kMul, {r.gamma_first ? gv : n, r.gamma_first ? n : gv});
  }
  b.output(b.add1(OpKind::kIdentity, {y}, {}, "y"));
  b.output(b.add1(OpKind::kTanh, {x}, {}, "other"));
  return g;
}

// Kernels named by what they are: the RMS step's implementation is "wnn:rms".
std::vector<std::string> kernels(const std::shared_ptr<Graph>& g, const std::vector<NamedView>& in,
                                 std::vector<std::string>* where = nullptr) {
  Session s(g, {"onednn", 1, true, false});
  s.set_profiling(true);
  s.run(in);
  std::vector<std::string> k;
  for (const auto& row : s.profile()) {
    k.push_back(row.kernel);
    if (where) where->push_back(row.where);
  }
  return k;
}

size_t count(const std::vector<std::string>& v, std::string_view s) {
  return size_t(std::count(v.begin(), v.end(), s));
}

TEST(OnednnRmsNorm, EveryWrittenOutFormIsOneStep) {
  std::vector<Rms> forms;
  for (Inverse inv : {Inverse::kDiv, Inverse::kOneOver, Inverse::kReciprocal}) {
    Rms r;
    r.inverse = inv;
    forms.push_back(r);
  }
  Rms p;
  p.pow = true;
  p.eps_first = true;
  p.gamma_first = true;
  p.after_matmul = true;
  forms.push_back(p);
  Rms no_gamma;
  no_gamma.gamma = false;
  no_gamma.inverse = Inverse::kOneOver;
  forms.push_back(no_gamma);
  Rms two_axes;  // over the last two axes, odd sizes, eps 0
  two_axes.x = {3, 5, 9};
  two_axes.axes = {1, 2};
  two_axes.eps = 0;
  forms.push_back(two_axes);
  for (size_t i = 0; i < forms.size(); ++i) {
    SCOPED_TRACE(i);
    const auto g = rms_graph(forms[i]);
    Tensor xv = seeded(forms[i].x, 4, -3, 3);
    xv.mutable_view().as<float>()[1] = 0;
    const std::vector<NamedView> feed = {{"x", xv.view()}};
    expect_same_as_reference(g, feed);
    std::vector<std::string> where;
    const auto k = kernels(g, feed, &where);
    EXPECT_EQ(count(k, "wnn:rms"), 1u) << ::testing::PrintToString(k);
    EXPECT_EQ(count(where, "ref"), 0u) << ::testing::PrintToString(where);
  }
}

TEST(OnednnRmsNorm, LookAlikesKeepTheirNodes) {
  std::vector<Rms> looks;
  Rms inner_axis;  // the mean over a leading axis
  inner_axis.axes = {1};
  looks.push_back(inner_axis);
  Rms negative_eps;
  negative_eps.eps = -1e-3f;
  looks.push_back(negative_eps);
  Rms middle_axes;  // not trailing
  middle_axes.x = {3, 5, 9};
  middle_axes.axes = {0, 1};
  middle_axes.gamma = false;
  looks.push_back(middle_axes);
  for (size_t i = 0; i < looks.size(); ++i) {
    SCOPED_TRACE(i);
    const auto g = rms_graph(looks[i]);
    const Tensor xv = seeded(looks[i].x, 5, 0.5, 3);
    const std::vector<NamedView> feed = {{"x", xv.view()}};
    expect_same_as_reference(g, feed);
    EXPECT_EQ(count(kernels(g, feed), "wnn:rms"), 0u);
  }
}

}  // namespace
}  // namespace wnn::runtime
