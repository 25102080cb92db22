// Seeded test tensors shared by the runtime and pass tests: float32 uniform in [lo, hi) (by
// default [-1, 1)), and integers uniform in [lo, hi], from a seed or from a caller's generator.
#pragma once

#include <cstdint>
#include <random>
#include <stdexcept>

#include "wnn/core/tensor.h"

namespace wnn::runtime::testing {

inline Tensor uniform_floats(Shape shape, float lo, float hi, std::mt19937& rng) {
  Tensor t = Tensor::zeros(DataType::kFloat32, std::move(shape));
  float* data = t.mutable_view().as<float>();
  std::uniform_real_distribution<float> u(lo, hi);
  for (int64_t i = 0; i < t.size(); ++i) data[i] = u(rng);
  return t;
}

inline Tensor seeded(Shape shape, uint32_t seed, float lo = -1, float hi = 1) {
  std::mt19937 rng(seed);
  return uniform_floats(std::move(shape), lo, hi, rng);
}

// `dtype` is int8, int32, or a type of one unsigned byte per element (uint8, and the 4-bit
// types, whose tensors hold one element per byte).
inline Tensor uniform_ints(DataType dtype, Shape shape, int lo, int hi, std::mt19937& rng) {
  Tensor t = Tensor::zeros(dtype, std::move(shape));
  std::uniform_int_distribution<int> u(lo, hi);
  const auto view = t.mutable_view();
  for (int64_t i = 0; i < t.size(); ++i) {
    switch (dtype) {
      case DataType::kInt8:
        view.as<int8_t>()[i] = int8_t(u(rng));
        break;
      case DataType::kInt32:
        view.as<int32_t>()[i] = u(rng);
        break;
      case DataType::kUint8:
      case DataType::kUint4:
        view.as<uint8_t>()[i] = uint8_t(u(rng));
        break;
      default:
        throw std::invalid_argument("uniform_ints: unsupported dtype");
    }
  }
  return t;
}

}  // namespace wnn::runtime::testing
