// The pieces the com.microsoft attention converters share: rotary embedding, scaled dot-product
// attention over BNSH operands with grouped key/value heads, and masks built at run time from
// small position constants (never a stored [S, T] tensor).
#pragma once

#include <optional>

#include "wnn/onnx/registry.h"

namespace wnn::onnx::ops {

Shape shape_of(ConvertContext& c, OperandId x);
// x[..., begin : begin + size] along `axis`.
OperandId slice_axis(ConvertContext& c, OperandId x, size_t axis, int64_t begin, int64_t size);

// Rotates the first `rotary_dim` elements of x's last axis (head_size): halves (x1 = first half,
// x2 = second) or interleaved pairs (x1 = even, x2 = odd) become (x1 cos - x2 sin,
// x2 cos + x1 sin). cos and sin are [..., rotary_dim / 2], broadcastable against x without its
// last axis.
OperandId apply_rotary(ConvertContext& c, OperandId x, OperandId cos, OperandId sin,
                       int64_t rotary_dim, bool interleaved);

// [B, S, N*H] -> [B, N, S, H]; `what` names x in the error when N*H does not split.
OperandId to_heads(ConvertContext& c, OperandId x, int64_t heads, std::string_view what);

struct SdpaOptions {
  double scale = 1.0;
  double softcap = 0;             // 0: none; else softcap * tanh(scores / softcap)
  std::optional<OperandId> bias;  // added to the scaled scores, broadcast to [B, N, S, T]
  std::optional<OperandId> sink;  // an extra logit per head in the softmax ([1, N, 1, 1])
};

// softmax(q k^T * scale (+ bias)) v over q [B, N, S, H], k [B, Nkv, T, H], v [B, Nkv, T, Hv],
// each key/value head serving N / Nkv consecutive query heads. Returns [B, S, N*Hv].
OperandId scaled_dot_product_attention(ConvertContext& c, OperandId q, OperandId k, OperandId v,
                                       const SdpaOptions& o);

// int32 key positions [1, 1, 1, T] and query positions [1, 1, S, 1].
OperandId key_positions(ConvertContext& c, int64_t t);
OperandId query_positions(ConvertContext& c, int64_t s);
// 0 where `keep` (uint8) is true, `fill` elsewhere, in dtype dt.
OperandId mask_to_bias(ConvertContext& c, OperandId keep, double fill, DataType dt);

}  // namespace wnn::onnx::ops
