// The activations gru and lstm accept (relu, sigmoid, tanh), shared by the double-precision
// decomposition (recurrent.cc) and the float32 path (recurrent_float32.cc).
#pragma once

#include <cmath>
#include <string>

#include "wnn/core/error.h"
#include "wnn/kernels/vector_math.h"

namespace wnn::kernels {

enum class RecurrentActivation { kRelu, kSigmoid, kTanh };

inline RecurrentActivation parse_recurrent_activation(const std::string& name) {
  if (name == "relu") return RecurrentActivation::kRelu;
  if (name == "sigmoid") return RecurrentActivation::kSigmoid;
  check(name == "tanh", "unknown recurrent activation '{}'", name);
  return RecurrentActivation::kTanh;
}

template <typename T>
T apply(RecurrentActivation act, T x) {
  switch (act) {
    case RecurrentActivation::kRelu:
      return x > 0 ? x : T(0);
    case RecurrentActivation::kSigmoid:
      return T(1) / (T(1) + std::exp(-x));
    case RecurrentActivation::kTanh:
      return std::tanh(x);
  }
  return x;
}

// apply() over values[0, n) in place, vectorized (vector_math.h: a few ulp from std::exp/tanh).
inline void apply_in_place(RecurrentActivation act, float* values, int64_t n) {
  switch (act) {
    case RecurrentActivation::kRelu:
      return relu_float32(values, n);
    case RecurrentActivation::kSigmoid:
      return sigmoid_float32(values, n);
    case RecurrentActivation::kTanh:
      return tanh_float32(values, n);
  }
}

}  // namespace wnn::kernels
