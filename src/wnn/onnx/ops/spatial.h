// Shared by the Conv and pooling converters: ONNX spatial attributes (kernel, strides, pads,
// dilations, auto_pad) resolved to WebNN's 2-D options, with 1-D ops lifted to 2-D.
#pragma once

#include "wnn/onnx/registry.h"

namespace wnn::onnx::ops {

struct Spatial2d {
  IntList strides{1, 1}, dilations{1, 1};
  IntList padding{0, 0, 0, 0};  // WebNN order: [begin_h, end_h, begin_w, end_w]
};

// ONNX's own layout for any number of spatial dims: pads are [begins..., ends...].
struct SpatialNd {
  IntList strides, dilations, pads;
};
SpatialNd read_spatial_nd(const ConvertContext& c, const IntList& in, const IntList& kernel);

// Reads strides, dilations, pads and auto_pad for an op of `rank` spatial dims (1 or 2) over
// `in` (spatial sizes) with `kernel` (spatial sizes). SAME_* pads are computed as ONNX does for
// forward ops. A 1-D op becomes H=1.
Spatial2d read_spatial(const ConvertContext& c, const IntList& in, const IntList& kernel);

// ONNX's pooled length, with ceil_mode's rule that a window must start inside the input or
// its begin padding.
int64_t pooled_length(int64_t in, int64_t k, int64_t s, int64_t d, int64_t p0, int64_t p1,
                      bool ceil);

// WebNN's ceil rounding keeps a last window that starts in the end padding, ONNX's ceil_mode
// does not: rewrites `s` (over spatial sizes `in`, `window`) to floor rounding with the end
// padding that yields ONNX's lengths. False (s unchanged) when that needs negative padding.
bool ceil_as_floor_padding(Spatial2d& s, const IntList& in, const IntList& window);

// 3-D Conv (rank-5 input) decomposed onto conv2d.
void conv3d(ConvertContext& c);
// 3-D ConvTranspose onto convTranspose2d; `s.pads` and `out_pad` already resolve auto_pad and
// output_shape.
void conv_transpose3d(ConvertContext& c, const SpatialNd& s, const IntList& out_pad);

// pool3d.cc: 3-D MaxPool/AveragePool, MaxPool's Indices output, MaxUnpool.
void pool3d(ConvertContext& c, OpKind kind);
void max_pool_with_indices(ConvertContext& c);
void max_unpool(ConvertContext& c);

// Lifts an [N, C, L] operand to [N, C, 1, L]; other ranks pass through.
OperandId lift_1d(ConvertContext& c, OperandId x, const Shape& shape);

// conv2d (1-D lifted) of x and w with the node's kernel_shape, strides, pads, dilations,
// auto_pad and group (or `groups` when given); the last op gets `name`.
OperandId conv_from_attributes(ConvertContext& c, OperandId x, OperandId w,
                               std::optional<OperandId> bias, std::string name = {},
                               std::optional<int64_t> groups = std::nullopt);

}  // namespace wnn::onnx::ops
