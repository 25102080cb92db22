// Scaled dot-product attention as one kernel, for the attention delegate
// (runtime/attention/): per query row, the scores against every key, the scale, an additive
// bias, the softmax and the weighted sum of the values, without materializing the score
// matrix. Query heads share key/value heads in groups (grouped-query attention: query head h
// reads key/value head h / (heads / kv_heads)). Every operand is read and written at element
// strides, so head-splitting transposes and reshapes cost nothing; the last dimension
// (columns) must be contiguous.
#pragma once

#include <array>
#include <cstdint>

namespace wnn::kernels {

// A 4-D float32 view [batch, head, row, column] at element strides (0 broadcasts).
struct View4 {
  const float* data = nullptr;
  std::array<int64_t, 4> strides{};
  const float* row(int64_t b, int64_t h, int64_t r) const {
    return data + b * strides[0] + h * strides[1] + r * strides[2];
  }
};

struct AttentionSizes {
  int64_t batch = 1, heads = 1, kv_heads = 1;
  int64_t queries = 1, keys = 0;
  int64_t head_size = 1;   // columns of Q and K
  int64_t value_size = 1;  // columns of V and the output
};

// How the scores are scaled: multiplied by `factor`, or divided by it (the graph's own
// arithmetic, so results match the unfused ops).
struct AttentionScale {
  float factor = 1.0f;
  bool divide = false;
};

// out[b, h, r, :] = sum_t softmax_t(scale(q[b, h, r, :] . k[b, h / g, t, :]) + bias[b, h, r, t])
//                   * v[b, h / g, t, :], g = heads / kv_heads. `bias` may be null. With no
// keys, the output rows are zero. Threads split the (batch, head, row) rows.
void scaled_dot_product_attention(const AttentionSizes& s, View4 q, View4 k, View4 v,
                                  const View4* bias, AttentionScale scale, float* out,
                                  std::array<int64_t, 4> out_strides, int threads);

// How rotary position embedding pairs the columns of a row: the first `dims` columns rotate
// (the rest are copied), in pairs (x1, x2) = (x[i], x[i + dims / 2]) (halves) or, `adjacent`,
// (x[2i], x[2i + 1]); pair i reads cos[i] and sin[i], or with `full_tables` (halves only, Hugging
// Face's x * cos + rotate_half(x) * sin) the second element reads cos and sin at i + dims / 2.
struct RotaryLayout {
  int64_t dims = 0;
  bool adjacent = false;
  bool full_tables = false;
};

// One row of `size` columns: y1 = x1 * cos - x2 * sin, y2 = x2 * cos + x1 * sin per pair (the
// graph forms' own products: rotate_half's x * cos + (-x2) * sin is the same value). `y` may
// not alias `x`.
void rotate_row(const float* x, const float* cos, const float* sin, int64_t size,
                RotaryLayout layout, float* y);

}  // namespace wnn::kernels
