// Test helpers for the reference kernels: build a one-node graph through GraphBuilder (so
// attributes and output shapes come from the operator table), run one family function on
// tensors the test owns, and read results back as doubles.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "wnn/core/builder.h"
#include "wnn/core/half.h"
#include "wnn/kernels/kernel.h"

namespace wnn::kernels::testing {

// A tensor of `dtype` holding `values` (converted as a cast would: float16 rounds to nearest).
inline Tensor make(DataType dtype, Shape shape, const std::vector<double>& values) {
  Tensor t = Tensor::zeros(dtype, std::move(shape));
  EXPECT_EQ(size_t(t.size()), values.size()) << "test tensor value count";
  TensorView v = t.mutable_view();
  for (size_t i = 0; i < values.size() && i < size_t(t.size()); ++i) {
    store_double(v, int64_t(i), values[i]);
  }
  return t;
}

// Exact int64 / uint64 values (beyond 2^53).
template <typename T>
inline Tensor make_exact(DataType dtype, Shape shape, const std::vector<T>& values) {
  Tensor t = Tensor::zeros(dtype, std::move(shape));
  EXPECT_EQ(t.byte_size(), values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(t.mutable_view().data, values.data(), t.byte_size());
  return t;
}

inline std::vector<double> values_of(const Tensor& t) {
  std::vector<double> out;
  for (int64_t i = 0; i < t.size(); ++i) out.push_back(element_as_double(t.view(), i));
  return out;
}

template <typename T>
inline std::vector<T> raw_of(const Tensor& t) {
  std::vector<T> out(size_t(t.size()));
  if (!out.empty()) std::memcpy(out.data(), t.data.data(), t.byte_size());
  return out;
}

// Builds `op` over the operands registered with in() and runs `family` on it.
class OneNode {
 public:
  explicit OneNode(KernelFn family) : family_(family) {}

  // A graph input holding `t`; use the returned id as a positional or named argument.
  OperandId in(Tensor t) {
    const OperandId id = builder_.input("in" + std::to_string(tensors_.size()), {t.dtype, t.shape});
    ids_.push_back(id);
    tensors_.push_back(std::move(t));
    return id;
  }

  std::vector<Tensor> run(OpKind op, std::vector<RawValue> positional,
                          std::vector<std::pair<std::string, RawValue>> named = {}) {
    builder_.add(op, std::move(positional), std::move(named));
    const Node& node = graph_.nodes().back();
    std::vector<ConstTensorView> inputs;
    for (OperandId id : node.inputs) {
      for (size_t i = 0; i < ids_.size(); ++i) {
        if (ids_[i] == id) inputs.push_back(tensors_[i].view());
      }
    }
    std::vector<Tensor> outputs;
    for (OperandId id : node.outputs) {
      outputs.push_back(Tensor::zeros(graph_.desc(id).dtype, graph_.desc(id).shape));
    }
    std::vector<TensorView> views;
    for (Tensor& t : outputs) views.push_back(t.mutable_view());
    family_(KernelArgs(node.attrs, inputs, views));
    return outputs;
  }

  Tensor run1(OpKind op, std::vector<RawValue> positional,
              std::vector<std::pair<std::string, RawValue>> named = {}) {
    auto outs = run(op, std::move(positional), std::move(named));
    EXPECT_EQ(outs.size(), 1u);
    return std::move(outs.at(0));
  }

 private:
  KernelFn family_;
  Graph graph_;
  GraphBuilder builder_{graph_};
  std::vector<OperandId> ids_;
  std::vector<Tensor> tensors_;
};

// Element-wise near-equality with NaN == NaN; `tol` absolute plus relative.
inline void expect_near(const std::vector<double>& actual, const std::vector<double>& expected,
                        double tol = 1e-6) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    if (std::isnan(expected[i])) {
      EXPECT_TRUE(std::isnan(actual[i])) << "at " << i;
    } else if (std::isinf(expected[i])) {
      EXPECT_EQ(actual[i], expected[i]) << "at " << i;
    } else {
      EXPECT_NEAR(actual[i], expected[i], tol * (1 + std::fabs(expected[i]))) << "at " << i;
    }
  }
}

}  // namespace wnn::kernels::testing
