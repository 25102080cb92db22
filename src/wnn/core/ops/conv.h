// Shared geometry of the convolution and pooling operators: layouts decoded into named
// dimensions and the spec's output-size formula. Inference and kernels both use these.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "wnn/core/shape.h"

namespace wnn {

struct Conv2dGeometry {
  int64_t batch, channels, height, width;
};
struct FilterGeometry {
  int64_t output_channels, input_channels, height, width;
};

// Decodes a 4-D input by layout ("nchw" or "nhwc").
Conv2dGeometry conv_input_geometry(std::span<const int64_t> input, std::string_view layout);
// Decodes a 4-D filter by layout (oihw, hwio, ohwi, ihwo for conv2d; iohw, hwoi, ohwi for
// convTranspose2d, where "o" is output channels per group).
FilterGeometry conv_filter_geometry(std::span<const int64_t> filter, std::string_view layout);
Shape conv_output_shape(std::string_view layout, int64_t n, int64_t c, int64_t h, int64_t w);
// floor (or ceil) ((input + pads - effective filter) / stride) + 1; throws when the effective
// filter exceeds the padded input.
int64_t conv_output_size(int64_t input, int64_t filter, int64_t pad_begin, int64_t pad_end,
                         int64_t stride, int64_t dilation, bool ceil_rounding);

}  // namespace wnn
