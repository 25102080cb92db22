// The graph form of attention as the ONNX importer writes it (onnx/ops/attention_core.cc), or
// as any exporter writes scaled dot-product attention in WebNN ops: softmax over
// add(mul(matmul(Q, transpose(K)), scale), bias), then matmul with V, grouped by key/value head
// through reshapes or not; around it, head-splitting slices, reshapes and transposes (read as
// strides), rotary embedding of Q and K by halves or adjacent pairs, of the whole head or its
// first columns (after the head split, or before it as RotaryEmbedding of [batch, rows, hidden]
// is written, or as Hugging Face's rotate_half), the KV
// cache's concat(past, new) with the gather that places new tokens (GroupQueryAttention's
// present outputs), and key/value heads repeated for their query heads (optimum's repeat_kv:
// reshape, expand, reshape), read as the grouping they are. Matched structurally
// (ops, shapes, constants), never by name; every value the pattern computes but the ones it
// writes stays inside it.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "wnn/core/graph.h"
#include "wnn/kernels/attention.h"

namespace wnn::runtime::attention {

// An operand read as a 4-D view [batch, head, row, column]: element `offset` of `base`, then
// `strides` (0 broadcasts; columns contiguous).
struct StridedOperand {
  OperandId base;
  int64_t offset = 0;
  std::array<int64_t, 4> strides{};
};

// Rotary embedding of the first `dims` columns of the head (0: all), by halves or `adjacent`
// pairs (kernels::RotaryLayout): cos and sin [batch or 1, head or 1, row, dims / 2], or with
// `full_tables` [.., dims] (Hugging Face's x * cos + rotate_half(x) * sin).
struct Rotary {
  StridedOperand cos, sin;
  bool full_tables = false;
  bool adjacent = false;
  int64_t dims = 0;
};

// Keys or values: new rows (before rotary), optionally after a past, optionally placed by an
// index (present row t = (past ; new)[index[t]]).
struct KeyValues {
  StridedOperand fresh;  // [batch, kv heads, fresh_rows, columns]
  std::optional<Rotary> rotary;
  std::optional<OperandId> past;   // [batch, kv heads, past_rows, columns], contiguous
  std::optional<OperandId> index;  // int32 or int64 [rows]
  bool index_is_64 = false;
  int64_t fresh_rows = 0, past_rows = 0, columns = 0;
  // The value the attention reads, [batch, kv heads, rows, columns], written by the step when a
  // pattern node computes it (then also into each of `copies`, identities of it); else read at
  // `fresh`'s strides.
  OperandId full;
  bool written = false;
  std::vector<OperandId> copies;
};

struct AttentionPattern {
  uint32_t softmax = 0;
  std::vector<uint32_t> nodes;  // every node of the pattern, sorted
  kernels::AttentionSizes sizes;
  StridedOperand q;  // [batch, heads, queries, head_size], before rotary
  std::optional<Rotary> q_rotary;
  KeyValues k, v;
  std::optional<StridedOperand> bias;  // [batch, heads, queries, keys], broadcast
  kernels::AttentionScale scale;
  OperandId out;  // the result, at out_strides over [batch, heads, queries, value_size]
  std::array<int64_t, 4> out_strides{};
  // The transpose merging the heads and the reshapes and identities after it, in order: `out`
  // is the last one's result. Any prefix of them computes the same bytes.
  std::vector<uint32_t> out_chain;
};

// The pattern around `softmax`, if it is one.
std::optional<AttentionPattern> match_attention(const Graph& g, uint32_t softmax);

// Ends the pattern's result at the last node of its output chain that `nodes` (sorted) hold,
// keeping the transpose: the relabelling reshapes after it may belong to another delegate's
// pattern (a projection splitting its input into blocks), which the partitioner gave them to.
void end_output_at(const Graph& g, AttentionPattern& p, const std::vector<uint32_t>& nodes);

// Every pattern of the graph, by softmax, in node order.
std::vector<AttentionPattern> attention_patterns(const Graph& g);

}  // namespace wnn::runtime::attention
