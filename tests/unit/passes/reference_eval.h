// Running a whole graph on the reference kernels, node by node, for the pattern-pass tests:
// a rewritten graph must compute what the written-out one computes.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "wnn/core/builder.h"
#include "wnn/core/graph.h"
#include "wnn/kernels/kernel.h"
#include "wnn/passes/pattern_match.h"

namespace wnn::passes::testing {

// float32 values from `seed`, uniform in [lo, hi).
inline Tensor seeded(Shape shape, uint32_t seed, float lo = -2, float hi = 2) {
  Tensor t = Tensor::zeros(DataType::kFloat32, std::move(shape));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  for (int64_t i = 0; i < t.size(); ++i) t.mutable_view().as<float>()[i] = u(rng);
  return t;
}

inline Tensor filled(Shape shape, float v) {
  Tensor t = Tensor::zeros(DataType::kFloat32, std::move(shape));
  for (int64_t i = 0; i < t.size(); ++i) t.mutable_view().as<float>()[i] = v;
  return t;
}

// The graph's outputs, in order, for the inputs given by name.
inline std::vector<Tensor> evaluate(const Graph& g, const std::map<std::string, Tensor>& inputs) {
  std::vector<std::optional<Tensor>> value(g.operands().size());
  for (const InputInfo& in : g.inputs()) value[in.id.index] = inputs.at(g.name_of(in.id));
  for (const ConstantInfo& c : g.constants()) {
    value[c.id.index] = Tensor{g.desc(c.id).dtype, g.desc(c.id).shape, c.data};
  }
  for (const Node& n : g.nodes()) {
    std::vector<ConstTensorView> ins;
    for (OperandId in : n.inputs) ins.push_back(value[in.index]->view());
    std::vector<Tensor> outs;
    for (OperandId out : n.outputs)
      outs.push_back(Tensor::zeros(g.desc(out).dtype, g.desc(out).shape));
    std::vector<TensorView> views;
    for (Tensor& t : outs) views.push_back(t.mutable_view());
    kernels::run_node(n, ins, views);
    for (size_t i = 0; i < outs.size(); ++i) value[n.outputs[i].index] = std::move(outs[i]);
  }
  std::vector<Tensor> result;
  for (OperandId out : g.outputs()) result.push_back(*value[out.index]);
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
