// Running a whole graph on the reference kernels for the pattern-pass tests: a rewritten graph
// must compute what the written-out one computes.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "../runtime/seeded_tensor.h"
#include "wnn/core/builder.h"
#include "wnn/core/graph.h"
#include "wnn/passes/pattern_match.h"
#include "wnn/runtime/session.h"

namespace wnn::passes::testing {

// float32 values from `seed`, uniform in [lo, hi).
inline Tensor seeded(Shape shape, uint32_t seed, float lo = -2, float hi = 2) {
  return runtime::testing::seeded(std::move(shape), seed, lo, hi);
}

inline Tensor filled(Shape shape, float v) {
  Tensor t = Tensor::zeros(DataType::kFloat32, std::move(shape));
  for (int64_t i = 0; i < t.size(); ++i) t.mutable_view().as<float>()[i] = v;
  return t;
}

// The graph's outputs, in order, on the reference kernels, for the inputs given by name.
inline std::vector<Tensor> evaluate(const Graph& g, const std::map<std::string, Tensor>& inputs) {
  const runtime::Session session(std::make_shared<const Graph>(g), {"ref", 1});
  std::vector<runtime::NamedView> views;
  for (const auto& [name, t] : inputs) views.push_back({name, t.view()});
  std::vector<Tensor> result;
  for (runtime::NamedTensor& out : session.run(views)) result.push_back(std::move(out.tensor));
  return result;
}

// The largest absolute difference between two float32 tensors of one shape.
inline double max_abs_difference(const Tensor& a, const Tensor& b) {
  EXPECT_EQ(a.shape, b.shape);
  double d = 0;
  for (int64_t i = 0; i < a.size() && a.shape == b.shape; ++i) {
    d = std::max(d, double(std::abs(a.view().as<float>()[i] - b.view().as<float>()[i])));
  }
  return d;
}

// `pass` leaves `original` as it was: nothing replaced, the same ops in the same order.
template <typename Pass>
void expect_unchanged_by(Pass pass, const Graph& original) {
  const auto r = pass(original);
  EXPECT_EQ(r.fused, 0u);
  ASSERT_EQ(r.graph.nodes().size(), original.nodes().size());
  for (size_t n = 0; n < original.nodes().size(); ++n)
    EXPECT_EQ(r.graph.nodes()[n].op(), original.nodes()[n].op()) << n;
}

inline size_t count_ops(const Graph& g, OpKind op) {
  size_t n = 0;
  for (const Node& node : g.nodes()) n += node.op() == op;
  return n;
}

}  // namespace wnn::passes::testing
