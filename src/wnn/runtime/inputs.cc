#include "wnn/runtime/inputs.h"

#include <cmath>
#include <limits>

namespace wnn::runtime {

uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

uint64_t seed_for_name(const std::string& name, uint64_t seed) {
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a
  for (unsigned char c : name) h = (h ^ c) * 0x100000001b3ull;
  return seed ^ h;
}

Tensor deterministic_tensor(const OperandDesc& desc, const std::string& name, uint64_t seed) {
  Tensor t = Tensor::zeros(desc.dtype, desc.shape);
  const TensorView v = t.mutable_view();
  uint64_t state = seed_for_name(name, seed);
  const int64_t n = t.size();
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t r = splitmix64(state);
    double value;
    if (is_float(desc.dtype)) {
      value = double(int64_t(r % 128) - 64) / 64.0;
    } else if (desc.dtype == DataType::kUint4 || !is_signed(desc.dtype)) {
      value = double(r % 16);
    } else {
      value = double(int64_t(r % 16) - 8);
    }
    store_double(v, i, value);
  }
  return t;
}

TensorStats tensor_stats(const ConstTensorView& t) {
  TensorStats s;
  const int64_t n = t.size();
  if (n == 0) return s;
  s.min = std::numeric_limits<double>::infinity();
  s.max = -std::numeric_limits<double>::infinity();
  double sum = 0;
  int64_t counted = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double x = element_as_double(t, i);
    if (std::isnan(x)) {
      ++s.nan_count;
      continue;
    }
    s.min = std::min(s.min, x);
    s.max = std::max(s.max, x);
    sum += x;
    ++counted;
  }
  s.mean = counted > 0 ? sum / double(counted) : std::nan("");
  return s;
}

}  // namespace wnn::runtime
