// Test support: builds a one-node graph through GraphBuilder (so attributes, defaults and
// output shapes come from the operator table), feeds it host values and runs one kernel family
// function on freshly allocated outputs.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "wnn/core/builder.h"
#include "wnn/core/half.h"
#include "wnn/kernels/kernel.h"

namespace wnn::kernels::testing {

struct RunResult {
  std::vector<Shape> shapes;
  std::vector<std::vector<double>> values;  // per output, decoded to double
};

class NodeRunner {
 public:
  NodeRunner() : builder_(graph_) {}

  // An input holding `values` (rounded to float16 when dtype is float16).
  OperandId input(const std::string& name, Shape shape, const std::vector<double>& values,
                  DataType dtype = DataType::kFloat32) {
    const OperandId id = builder_.input(name, {dtype, shape});
    Tensor t = Tensor::zeros(dtype, shape);
    EXPECT_EQ(size_t(t.size()), values.size()) << name;
    const TensorView v = t.mutable_view();
    for (size_t i = 0; i < values.size() && i < size_t(t.size()); ++i) {
      store_double(v, int64_t(i), values[i]);
    }
    data_.emplace(id.index, std::move(t));
    return id;
  }

  RunResult run(KernelFn fn, OpKind op, std::vector<RawValue> positional,
                std::vector<std::pair<std::string, RawValue>> named = {}) {
    builder_.add(op, std::move(positional), std::move(named));
    const Node& node = graph_.nodes().back();
    std::vector<ConstTensorView> ins;
    for (OperandId id : node.inputs) ins.push_back(data_.at(id.index).view());
    std::vector<Tensor> outs;
    for (OperandId id : node.outputs) {
      outs.push_back(Tensor::zeros(graph_.desc(id).dtype, graph_.desc(id).shape));
    }
    std::vector<TensorView> out_views;
    for (Tensor& t : outs) out_views.push_back(t.mutable_view());
    fn(KernelArgs(node.attrs, ins, out_views));
    RunResult r;
    for (const Tensor& t : outs) {
      r.shapes.push_back(t.shape);
      std::vector<double> v(static_cast<size_t>(t.size()));
      for (int64_t i = 0; i < t.size(); ++i) v[size_t(i)] = element_as_double(t.view(), i);
      r.values.push_back(std::move(v));
    }
    return r;
  }

 private:
  Graph graph_;
  GraphBuilder builder_;
  std::map<uint32_t, Tensor> data_;
};

// Values that vary in sign and magnitude, with zeros: i -> a small pseudo-random pattern.
inline std::vector<double> pattern(size_t n, int seed = 1) {
  std::vector<double> v(n);
  uint32_t s = 2654435761u * uint32_t(seed) + 12345u;
  for (size_t i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    const int k = int((s >> 16) % 17) - 8;  // -8 .. 8
    v[i] = k * 0.25;
  }
  return v;
}

inline void expect_near_all(const std::vector<double>& actual, const std::vector<double>& expected,
                            double tol, const char* what = "") {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  for (size_t i = 0; i < actual.size(); ++i) {
    EXPECT_NEAR(actual[i], expected[i], tol * std::max(1.0, std::fabs(expected[i])))
        << what << " element " << i;
  }
}

}  // namespace wnn::kernels::testing
