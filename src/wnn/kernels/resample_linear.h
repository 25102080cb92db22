// Linear resample2d in ONNX Runtime's float32 arithmetic, over any layout whose resampled axes
// are plain strided dims: the reference kernel (kernels/pool.cc) runs it on row-major tensors,
// the oneDNN delegate inside its regions on the layout a conv left (channel blocks, NHWC), so
// both give the same bits. A quantized model's next DynamicQuantizeLinear needs them (its scale
// is the tensor's max / 255): oneDNN's own resampling weighs the taps in another order.
//
// Per axis the source coordinate is (o + 0.5f) / scale - 0.5f (o itself when scale is 1),
// clamped to [0, in - 1]; its taps lo = trunc(c) and hi = min(lo + 1, in - 1) have weights
// d_lo = |c - lo| (of hi) and d_hi = |c - hi| (of lo), both 0.5 when lo == hi. The value is
// w(lo,lo) x + w(lo,hi) x + w(hi,lo) x + w(hi,hi) x summed left to right, each weight the
// float product of its two axis weights, with no multiply-add contracted into an FMA.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace wnn::kernels {

struct LinearAxis {
  std::vector<int64_t> lo, hi;
  std::vector<float> d_lo, d_hi;
};

// The taps and weights of one resampled axis.
LinearAxis linear_axis(int64_t in_size, int64_t out_size, float scale);

// The scale an axis is sampled with: the given one, or out / in in float32 as ONNX Runtime
// derives it from sizes.
float linear_scale(bool from_sizes, int64_t in_size, int64_t out_size, double given);

// Where element (outer0, outer1, y, x, lane) of a 4-D tensor lives: y and x index the two
// resampled axes; `lanes` contiguous elements share one (y, x) position (the channels of NHWC,
// one channel block of nChw16c, or 1); the two outer loops cover everything else.
struct ResampleLayout {
  int64_t outer[2] = {1, 1};
  int64_t outer_stride[2] = {0, 0};
  int64_t y_stride = 0, x_stride = 0;
  int64_t lanes = 1;
};

// The layout of a tensor with `dims` and element `strides`, resampled on `axes`, where dim
// `block_dim` (-1: none) is stored in blocks of `block` contiguous elements innermost
// (oneDNN's aBcd16b: block_dim 1, block 16; `strides[block_dim]` then steps from one block to
// the next and `padded_dims` gives the dims rounded up to whole blocks). Empty when a
// resampled axis is the blocked one.
struct ResampleLayoutOrNone {
  bool ok = false;
  ResampleLayout layout;
};
ResampleLayoutOrNone resample_layout(std::span<const int64_t> dims,
                                     std::span<const int64_t> padded_dims,
                                     std::span<const int64_t> strides, int block_dim, int64_t block,
                                     std::span<const int64_t> axes);

// y = linear resampling of x: `in` and `out` address the input and output (the same outer
// sizes and lanes), `ay` and `ax` the taps of the y and x axes; on `threads` OpenMP threads.
void resample_linear(const float* x, float* y, const ResampleLayout& in, const ResampleLayout& out,
                     const LinearAxis& ay, const LinearAxis& ax, int threads);

}  // namespace wnn::kernels
