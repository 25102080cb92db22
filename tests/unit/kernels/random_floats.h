// Uniform float32 test values in [lo, hi) from a caller's generator, for the kernel tests that
// work on plain arrays.
#pragma once

#include <random>
#include <vector>

namespace wnn::kernels::testing {

inline std::vector<float> random_floats(size_t n, float lo, float hi, std::mt19937& rng) {
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

}  // namespace wnn::kernels::testing
