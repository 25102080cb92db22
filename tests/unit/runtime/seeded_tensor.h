// Seeded float32 test tensors, uniform in [lo, hi) (by default [-1, 1)), shared by the runtime
// and pass tests.
#pragma once

#include <random>

#include "wnn/core/tensor.h"

namespace wnn::runtime::testing {

inline Tensor seeded(Shape shape, uint32_t seed, float lo = -1, float hi = 1) {
  Tensor t = Tensor::zeros(DataType::kFloat32, std::move(shape));
  float* data = t.mutable_view().as<float>();
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  for (int64_t i = 0; i < t.size(); ++i) data[i] = u(rng);
  return t;
}

}  // namespace wnn::runtime::testing
