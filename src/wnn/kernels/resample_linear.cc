#include "wnn/kernels/resample_linear.h"

#include <algorithm>
#include <cmath>

#include "wnn/core/error.h"
#include "wnn/kernels/simd_float32.h"

namespace wnn::kernels {

namespace {

// Compiled for AVX-512, AVX2 and baseline x86-64 like WNN_SIMD_CLONES, but with fp-contract
// off: a fused multiply-add would round once where ONNX Runtime rounds twice.
#if defined(__clang__)
#define WNN_RESAMPLE_CLONES
#else
#define WNN_RESAMPLE_CLONES \
  __attribute__((target_clones("avx512f", "avx2", "default"), optimize("O3", "fp-contract=off")))
#endif

// One output position's `lanes` values from its four taps a (lo, lo), b (lo, hi), c (hi, lo)
// and d (hi, hi), each weighted, summed left to right.
WNN_SIMD_INLINE void interpolate(const float* a, const float* b, const float* c, const float* d,
                                 const float (&w)[4], float* y, int64_t lanes) {
  int64_t l = 0;
  for (; l + simd::kLanes <= lanes; l += simd::kLanes) {
    simd::F32x16 v = w[0] * simd::load(a + l);
    v = v + w[1] * simd::load(b + l);
    v = v + w[2] * simd::load(c + l);
    v = v + w[3] * simd::load(d + l);
    simd::store(y + l, v);
  }
  for (; l < lanes; ++l) {
    float v = w[0] * a[l];
    v = v + w[1] * b[l];
    v = v + w[2] * c[l];
    v = v + w[3] * d[l];
    y[l] = v;
  }
}

WNN_RESAMPLE_CLONES
void resample_rows(const float* x, float* y, const ResampleLayout& in, const ResampleLayout& out,
                   const LinearAxis& ay, const LinearAxis& ax, int threads) {
  const int64_t out_h = int64_t(ay.lo.size()), out_w = int64_t(ax.lo.size());
  const int64_t rows = in.outer[0] * in.outer[1] * out_h;
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t oy = r % out_h, plane = r / out_h;
    const int64_t p0 = plane / in.outer[1], p1 = plane % in.outer[1];
    const float* base = x + p0 * in.outer_stride[0] + p1 * in.outer_stride[1];
    const float* lo = base + ay.lo[size_t(oy)] * in.y_stride;
    const float* hi = base + ay.hi[size_t(oy)] * in.y_stride;
    float* dst = y + p0 * out.outer_stride[0] + p1 * out.outer_stride[1] + oy * out.y_stride;
    const float dy_lo = ay.d_lo[size_t(oy)], dy_hi = ay.d_hi[size_t(oy)];
    for (int64_t ox = 0; ox < out_w; ++ox) {
      const int64_t l1 = ax.lo[size_t(ox)] * in.x_stride, h1 = ax.hi[size_t(ox)] * in.x_stride;
      const float dx_lo = ax.d_lo[size_t(ox)], dx_hi = ax.d_hi[size_t(ox)];
      const float w[4] = {dx_hi * dy_hi, dx_lo * dy_hi, dx_hi * dy_lo, dx_lo * dy_lo};
      interpolate(lo + l1, lo + h1, hi + l1, hi + h1, w, dst + ox * out.x_stride, in.lanes);
    }
  }
}

}  // namespace

LinearAxis linear_axis(int64_t in_size, int64_t out_size, float scale) {
  LinearAxis m;
  for (int64_t o = 0; o < out_size; ++o) {
    float c = scale == 1.0f ? float(o) : (float(o) + 0.5f) / scale - 0.5f;
    c = std::max(0.0f, std::min(c, float(in_size - 1)));
    const int64_t lo = std::min(int64_t(c), in_size - 1), hi = std::min(lo + 1, in_size - 1);
    m.lo.push_back(lo);
    m.hi.push_back(hi);
    m.d_lo.push_back(lo == hi ? 0.5f : std::fabs(c - float(lo)));
    m.d_hi.push_back(lo == hi ? 0.5f : std::fabs(c - float(hi)));
  }
  return m;
}

float linear_scale(bool from_sizes, int64_t in_size, int64_t out_size, double given) {
  return from_sizes ? float(out_size) / float(in_size) : float(given);
}

ResampleLayoutOrNone resample_layout(std::span<const int64_t> dims,
                                     std::span<const int64_t> padded_dims,
                                     std::span<const int64_t> strides, int block_dim, int64_t block,
                                     std::span<const int64_t> axes) {
  check_internal(
      dims.size() == 4 && padded_dims.size() == 4 && strides.size() == 4 && axes.size() == 2,
      "resample_layout of a tensor of rank {}", dims.size());
  ResampleLayoutOrNone r;
  const int y = int(axes[0]), x = int(axes[1]);
  if (block_dim == y || block_dim == x) return r;
  int others[2], k = 0;
  for (int d = 0; d < 4; ++d) {
    if (d != y && d != x) others[k++] = d;
  }
  ResampleLayout& l = r.layout;
  l.y_stride = strides[size_t(y)];
  l.x_stride = strides[size_t(x)];
  auto outer = [&](int slot, int d, int64_t size) {
    l.outer[slot] = size;
    l.outer_stride[slot] = strides[size_t(d)];
  };
  if (block_dim >= 0) {
    // One block of the blocked dim per position; its blocks and the other dim are the loops.
    l.lanes = block;
    const int other = others[0] == block_dim ? others[1] : others[0];
    outer(0, block_dim, padded_dims[size_t(block_dim)] / block);
    outer(1, other, dims[size_t(other)]);
  } else {
    // A dim not resampled with unit stride holds the lanes (NHWC's channels); else one lane.
    int lane = -1;
    for (int d : others) {
      if (lane < 0 && strides[size_t(d)] == 1 && dims[size_t(d)] > 1) lane = d;
    }
    if (lane >= 0) {
      const int other = others[0] == lane ? others[1] : others[0];
      l.lanes = dims[size_t(lane)];
      outer(0, other, dims[size_t(other)]);
    } else {
      outer(0, others[0], dims[size_t(others[0])]);
      outer(1, others[1], dims[size_t(others[1])]);
    }
  }
  r.ok = true;
  return r;
}

void resample_linear(const float* x, float* y, const ResampleLayout& in, const ResampleLayout& out,
                     const LinearAxis& ay, const LinearAxis& ax, int threads) {
  check_internal(
      in.lanes == out.lanes && in.outer[0] == out.outer[0] && in.outer[1] == out.outer[1],
      "resample_linear: input and output layouts differ in their loops");
  resample_rows(x, y, in, out, ay, ax, std::max(threads, 1));
}

}  // namespace wnn::kernels
