// The one N-d iterator the reference kernels share: an odometer over an index space that
// keeps one running element offset per operand, so broadcasting, transposes, slices, tiles
// and reversals are all "walk the output, add each operand's stride" with no per-element
// division.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "wnn/core/shape.h"

namespace wnn::kernels {

// Calls fn(offsets) for every index of `shape` in row-major order, where
// offsets[k] = start[k] + sum_d index[d] * strides[k][d]. Strides may be 0 (broadcast) or
// negative (reverse). Every strides[k] has shape.size() entries. An empty shape (a scalar)
// visits once; a zero dimension visits nothing.
template <size_t N, typename Fn>
void strided_walk(std::span<const int64_t> shape,
                  const std::array<std::span<const int64_t>, N>& strides,
                  std::array<int64_t, N> offsets, Fn&& fn) {
  const size_t rank = shape.size();
  for (int64_t d : shape) {
    if (d == 0) return;
  }
  if (rank == 0) {
    fn(offsets);
    return;
  }
  const size_t last = rank - 1;
  const int64_t inner = shape[last];
  std::array<int64_t, N> inner_stride;
  for (size_t k = 0; k < N; ++k) inner_stride[k] = strides[k][last];
  std::vector<int64_t> index(rank, 0);
  while (true) {
    std::array<int64_t, N> o = offsets;
    for (int64_t i = 0; i < inner; ++i) {
      fn(o);
      for (size_t k = 0; k < N; ++k) o[k] += inner_stride[k];
    }
    // Advance the odometer over the outer dims, carrying into the next one at each wrap.
    size_t d = last;
    while (true) {
      if (d == 0) return;
      --d;
      ++index[d];
      for (size_t k = 0; k < N; ++k) offsets[k] += strides[k][d];
      if (index[d] < shape[d]) break;
      for (size_t k = 0; k < N; ++k) offsets[k] -= strides[k][d] * shape[d];
      index[d] = 0;
    }
  }
}

// Walks `out_shape` with each input read as broadcast to it and the output contiguous: calls
// fn(offsets) with offsets[k] into inputs[k] and offsets[N] into the output.
template <size_t N, typename Fn>
void broadcast_walk(std::span<const int64_t> out_shape,
                    const std::array<std::span<const int64_t>, N>& in_shapes, Fn&& fn) {
  std::array<std::vector<int64_t>, N + 1> owned;
  std::array<std::span<const int64_t>, N + 1> strides;
  for (size_t k = 0; k < N; ++k) {
    owned[k] = broadcast_strides(in_shapes[k], out_shape);
    strides[k] = owned[k];
  }
  owned[N] = contiguous_strides(out_shape);
  strides[N] = owned[N];
  strided_walk<N + 1>(out_shape, strides, {}, fn);
}

}  // namespace wnn::kernels
