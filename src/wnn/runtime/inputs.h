// Deterministic inputs for `wnn run --random-inputs` and benchmarks: the same descriptor and
// seed always give the same tensor, on every machine.
#pragma once

#include <cstdint>
#include <string>

#include "wnn/core/ops/schema.h"
#include "wnn/core/tensor.h"

namespace wnn::runtime {

// The stream deterministic_tensor draws from: splitmix64 seeded by seed ^ FNV-1a(name). Shared so
// other input generators (validate's model-aware inputs) draw the same way.
uint64_t seed_for_name(const std::string& name, uint64_t seed);
uint64_t splitmix64(uint64_t& state);

// Elements from a splitmix64 stream seeded by (seed, name):
// - floats: multiples of 1/64 in [-1, 1), so negative values and exact zeros occur;
// - signed integers: [-8, 8); unsigned integers: [0, 16); uint8 also [0, 16);
// - int4 [-8, 7], uint4 [0, 15].
Tensor deterministic_tensor(const OperandDesc& desc, const std::string& name, uint64_t seed);

// Summary statistics printed by `wnn run`.
struct TensorStats {
  double min = 0, max = 0, mean = 0;
  int64_t nan_count = 0;
};
TensorStats tensor_stats(const ConstTensorView& t);

}  // namespace wnn::runtime
