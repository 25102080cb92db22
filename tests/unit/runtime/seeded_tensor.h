// Seeded float32 test tensors in [-1, 1), shared by the runtime tests.
#pragma once

#include <random>

#include "wnn/core/tensor.h"

namespace wnn::runtime::testing {

inline Tensor seeded(Shape shape, uint32_t seed) {
  Tensor t = Tensor::zeros(DataType::kFloat32, std::move(shape));
  float* data = t.mutable_view().as<float>();
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  for (int64_t i = 0; i < t.size(); ++i) data[i] = u(rng);
  return t;
}

}  // namespace wnn::runtime::testing
