// Element access shared by the floating-point kernel families (conv, pool, normalization,
// matmul, recurrent): they read float32/float16 operands into plain arrays, compute in float or
// double, and write back with float16 rounding to nearest even. Small integer dtypes (maxPool2d's
// int8/uint8) go through the same arrays, since every such value is exact in float.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "wnn/core/half.h"
#include "wnn/core/tensor.h"

namespace wnn::kernels {

// All elements of `t` as T (float or double).
template <typename T>
std::vector<T> read_values(const ConstTensorView& t) {
  const int64_t n = t.size();
  std::vector<T> out(static_cast<size_t>(n));
  if (t.dtype == DataType::kFloat32) {
    const float* p = t.as<float>();
    for (int64_t i = 0; i < n; ++i) out[size_t(i)] = T(p[i]);
  } else if (t.dtype == DataType::kFloat16) {
    const uint16_t* p = t.as<uint16_t>();
    for (int64_t i = 0; i < n; ++i) out[size_t(i)] = T(half_to_float(p[i]));
  } else {
    for (int64_t i = 0; i < n; ++i) out[size_t(i)] = T(element_as_double(t, i));
  }
  return out;
}

// Optional operand: empty when absent.
template <typename T>
std::vector<T> read_optional_values(const ConstTensorView* t) {
  return t == nullptr ? std::vector<T>{} : read_values<T>(*t);
}

// Writes values[i] to element i of `t` (values has t.size() entries).
template <typename T>
void write_values(const TensorView& t, std::span<const T> values) {
  const int64_t n = t.size();
  if (t.dtype == DataType::kFloat32) {
    float* p = t.as<float>();
    for (int64_t i = 0; i < n; ++i) p[i] = float(values[size_t(i)]);
  } else if (t.dtype == DataType::kFloat16) {
    uint16_t* p = t.as<uint16_t>();
    for (int64_t i = 0; i < n; ++i) p[i] = double_to_half(double(values[size_t(i)]));
  } else {
    for (int64_t i = 0; i < n; ++i) store_double(t, i, double(values[size_t(i)]));
  }
}

// Row-major strides, in elements, of each letter of a 4-letter layout ("nhwc", "ohwi") for a
// tensor of `shape` laid out that way; stride_of('c') is then the step between channels.
struct LayoutStrides {
  int64_t strides[4];
  std::string_view layout;
  int64_t stride_of(char letter) const {
    for (size_t i = 0; i < 4; ++i) {
      if (layout[i] == letter) return strides[i];
    }
    return 0;
  }
};

inline LayoutStrides layout_strides(std::span<const int64_t> shape, std::string_view layout) {
  LayoutStrides s{{0, 0, 0, 0}, layout};
  int64_t step = 1;
  for (int i = 3; i >= 0; --i) {
    s.strides[i] = step;
    step *= shape[size_t(i)];
  }
  return s;
}

// Copies a 4-D array laid out as `layout` (letters `a`, `b`, `c`, `d` name the canonical
// order, e.g. "nchw" or "oihw") into the canonical order with dims d0..d3.
template <typename T>
std::vector<T> to_canonical(const std::vector<T>& values, std::span<const int64_t> shape,
                            std::string_view layout, std::string_view canonical,
                            const int64_t (&dims)[4]) {
  const LayoutStrides s = layout_strides(shape, layout);
  const int64_t s0 = s.stride_of(canonical[0]), s1 = s.stride_of(canonical[1]),
                s2 = s.stride_of(canonical[2]), s3 = s.stride_of(canonical[3]);
  std::vector<T> out(values.size());
  size_t k = 0;
  for (int64_t i0 = 0; i0 < dims[0]; ++i0)
    for (int64_t i1 = 0; i1 < dims[1]; ++i1)
      for (int64_t i2 = 0; i2 < dims[2]; ++i2)
        for (int64_t i3 = 0; i3 < dims[3]; ++i3)
          out[k++] = values[size_t(i0 * s0 + i1 * s1 + i2 * s2 + i3 * s3)];
  return out;
}

// Writes a canonical NCHW array to an output view whose layout is "nchw" or "nhwc".
template <typename T>
void write_from_nchw(const TensorView& out, const std::vector<T>& nchw, std::string_view layout,
                     const int64_t (&dims)[4]) {
  if (layout == "nchw") {
    write_values<T>(out, nchw);
    return;
  }
  std::vector<T> nhwc(nchw.size());
  size_t k = 0;
  for (int64_t n = 0; n < dims[0]; ++n)
    for (int64_t c = 0; c < dims[1]; ++c)
      for (int64_t h = 0; h < dims[2]; ++h)
        for (int64_t w = 0; w < dims[3]; ++w)
          nhwc[size_t(((n * dims[2] + h) * dims[3] + w) * dims[1] + c)] = nchw[k++];
  write_values<T>(out, nhwc);
}

}  // namespace wnn::kernels
