// com.microsoft attention operators of optimized transformer exports: RotaryEmbedding,
// GroupQueryAttention, MultiHeadAttention and Attention, decomposed into matmul, softmax,
// reshape, transpose, gather and comparisons. Shapes must be static (after free-dimension
// overrides and pins); anything else, and every attribute value without a decomposition, is
// reported as unsupported with its name.
#include <cmath>
#include <limits>

#include "wnn/onnx/ops/attention.h"

namespace wnn::onnx::ops {
namespace {

using K = OpKind;

// The shape of input i, which must have `rank` dimensions (`what` names it in the error).
Shape shape_of_rank(ConvertContext& c, size_t i, size_t rank, std::string_view what) {
  Shape s = c.shape(i);
  check(s.size() == rank, "{}: {} (input {}) has shape {}, expected rank {}", c.node().op_type,
        what, i, shape_to_string(s), rank);
  return s;
}

int64_t required_heads(ConvertContext& c, std::string_view name) {
  auto v = c.attr_int(name);
  if (!v || *v <= 0) c.unsupported("{} absent or not positive", name);
  return *v;
}

void reject_input(ConvertContext& c, size_t i, std::string_view what) {
  if (c.has_input(i)) c.unsupported("the {} input (input {})", what, i);
}

void reject_nonzero(ConvertContext& c, std::string_view attr) {
  if (auto v = c.attr_int(attr); v && *v != 0) c.unsupported("{}={}", attr, *v);
}

double lowest(DataType dt) {
  return dt == DataType::kFloat16 ? -65504.0 : double(std::numeric_limits<float>::lowest());
}

// cos/sin cache rows for positions [B or 1, S] (any integer dtype), reshaped to `shape`.
OperandId cache_rows(ConvertContext& c, size_t cache, OperandId positions, const Shape& shape) {
  return c.reshape(c.op(K::kGather, {c.in(cache), positions}, {{"axis", int64_t(0)}}), shape);
}

// position_ids [1] (an offset for every batch) or [B, S] as an int64 operand [B or 1, S].
OperandId rotary_positions(ConvertContext& c, int64_t s) {
  const Shape ps = c.shape(1);
  if (ps.size() == 2) return c.in(1);
  if (element_count(ps) != 1) c.unsupported("position_ids of shape {}", shape_to_string(ps));
  std::vector<int64_t> steps(static_cast<size_t>(s));
  for (int64_t i = 0; i < s; ++i) steps[size_t(i)] = i;
  OperandId offset = c.reshape(c.in(1), {1, 1});
  return c.op(K::kAdd, {offset, c.constant(make_int64_tensor({1, s}, steps))});
}

void rotary_embedding(ConvertContext& c) {
  reject_nonzero(c, "is_packed_batching");
  // ORT's kernels ignore `scale`; a model that sets it expects something no kernel computes.
  if (auto s = c.attr_float("scale"); s && *s != 1.0) c.unsupported("scale={}", *s);
  const Shape xs = c.shape(0), cs = c.shape(2);
  if (cs.size() != 2) c.unsupported("cos_cache of shape {}", shape_to_string(cs));
  const int64_t rdim = c.attr_int("rotary_embedding_dim", 0);
  const int64_t rotary = rdim > 0 ? rdim : cs[1] * 2;
  check(cs[1] * 2 == rotary, "RotaryEmbedding: cos_cache {} does not hold rotary dimension {} / 2",
        shape_to_string(cs), rotary);
  if (xs.size() == 4) {  // [B, N, S, H]
    OperandId pos = rotary_positions(c, xs[2]);
    const int64_t pb = shape_of(c, pos)[0];
    OperandId cos = cache_rows(c, 2, pos, {pb, 1, xs[2], rotary / 2});
    OperandId sin = cache_rows(c, 3, pos, {pb, 1, xs[2], rotary / 2});
    c.set(0, c.op(K::kIdentity,
                  {apply_rotary(c, c.in(0), cos, sin, rotary, c.attr_int("interleaved", 0) != 0)},
                  {}, c.out_name(0)));
    return;
  }
  if (xs.size() != 3) c.unsupported("input of rank {}", xs.size());
  int64_t heads = c.attr_int("num_heads", 0);
  if (rdim > 0 && heads <= 0) c.unsupported("rotary_embedding_dim without num_heads");
  if (heads <= 0) heads = xs[2] / rotary;
  check(heads > 0 && xs[2] % heads == 0, "RotaryEmbedding: hidden size {} and {} heads", xs[2],
        heads);
  OperandId x = c.reshape(c.in(0), {xs[0], xs[1], heads, xs[2] / heads});
  OperandId pos = rotary_positions(c, xs[1]);
  const int64_t pb = shape_of(c, pos)[0];
  OperandId cos = cache_rows(c, 2, pos, {pb, xs[1], 1, rotary / 2});
  OperandId sin = cache_rows(c, 3, pos, {pb, xs[1], 1, rotary / 2});
  OperandId y = apply_rotary(c, x, cos, sin, rotary, c.attr_int("interleaved", 0) != 0);
  c.set(0, c.reshape(y, xs, c.out_name(0)));
}

// ORT writes batch b's new tokens right after its own past, at seqlens_k[b] + 1 - S, which is
// before the end of the past buffer when the batch is ragged. From kv = [past ; new] along the
// sequence axis, row j of the result is kv[j] below that start and new token j - start at and
// after it (rows past the last new token are unspecified in ORT; these repeat the last one).
// The result is named `name` (the present output it is, or "").
OperandId place_new_tokens(ConvertContext& c, OperandId kv, OperandId kpos, OperandId seqlens,
                           int64_t past, int64_t s, std::string name) {
  const Shape ks = shape_of(c, kv);
  auto i32 = [&](double v) { return c.constant(DataType::kInt32, {v}); };
  OperandId start = c.op(K::kAdd, {seqlens, i32(1.0 - double(s))});  // [B, 1, 1, 1]
  OperandId from_new = c.op(K::kAdd, {c.op(K::kSub, {kpos, start}), i32(double(past))});
  from_new = c.op(K::kMin, {from_new, i32(double(ks[2] - 1))});
  OperandId idx = c.op(K::kWhere, {c.op(K::kLesser, {kpos, start}), kpos, from_new});
  if (ks[0] == 1) {
    // One batch: every head and column reads the same rows, a gather of whole rows.
    return c.op(K::kGather, {kv, c.reshape(idx, {ks[2]})}, {{"axis", int64_t(2)}}, std::move(name));
  }
  idx = c.reshape(idx, {ks[0], 1, ks[2], 1});
  idx = c.op(K::kExpand, {idx, RawValue(ks)});
  return c.op(K::kGatherElements, {kv, idx}, {{"axis", int64_t(2)}}, std::move(name));
}

// GroupQueryAttention: causal self-attention over past and new keys with kv_num_heads key/value
// heads. total_sequence_length must be a constant equal to the past buffer's length + S; the
// placement of new tokens and the mask follow seqlens_k at run time, so ragged batches match.
void group_query_attention(ConvertContext& c) {
  const int64_t n = required_heads(c, "num_heads"), nkv = required_heads(c, "kv_num_heads");
  reject_nonzero(c, "qk_output");
  reject_nonzero(c, "sliding_window_cache");
  for (const char* q : {"k_quant_type", "v_quant_type"}) {
    if (auto t = c.attr_string(q); t && *t != "NONE") c.unsupported("{}={}", q, *t);
  }
  reject_input(c, 9, "position_ids");
  for (size_t i = 12; i < c.num_inputs(); ++i) {
    reject_input(c, i, i < 14 ? "k_scale/v_scale" : "q_norm_weight/k_norm_weight");
  }
  if (c.wants_output(3)) c.unsupported("the output_qk output");
  const Shape qs = c.shape(0);
  if (qs.size() != 3) c.unsupported("query of rank {}", qs.size());
  const int64_t b = qs[0], s = qs[1];
  const bool packed = !c.has_input(1);
  const int64_t h = packed ? qs[2] / (n + 2 * nkv) : qs[2] / n;
  check(h > 0 && qs[2] == h * (packed ? n + 2 * nkv : n),
        "GroupQueryAttention: query width {} does not hold {} query{} heads", qs[2], n,
        packed ? fmt::format(" and 2 x {} key/value", nkv) : "");
  const DataType dt = c.dtype(0);
  OperandId q = c.in(0), k, v;
  if (packed) {
    k = slice_axis(c, q, 2, n * h, nkv * h);
    v = slice_axis(c, q, 2, (n + nkv) * h, nkv * h);
    q = slice_axis(c, q, 2, 0, n * h);
  } else {
    k = c.in(1);
    v = c.in(2);
  }
  q = to_heads(c, q, n, "query");
  k = to_heads(c, k, nkv, "key");
  v = to_heads(c, v, nkv, "value");
  const int64_t past = c.has_input(3) ? shape_of_rank(c, 3, 4, "past_key")[2] : 0;
  const std::vector<int64_t> total_v = c.known_ints(6, "total_sequence_length");
  check(total_v.size() == 1, "GroupQueryAttention: total_sequence_length has {} elements",
        total_v.size());
  const int64_t t = total_v[0];
  if (t != past + s) {
    c.unsupported(
        "total_sequence_length {} with a past buffer of {} and {} new tokens (a shared "
        "past/present buffer)",
        t, past, s);
  }
  // seqlens_k [B] -> [B, 1, 1, 1] int32. The first prompt (S == T) starts at position 0;
  // later steps start at seqlens_k + 1 - S.
  OperandId seqlens = c.reshape(c.op(K::kCast, {c.in(5), DataType::kInt32}), {b, 1, 1, 1});
  OperandId qpos = query_positions(c, s);  // [1, 1, S, 1]
  if (s != t) {
    qpos = c.op(K::kAdd, {qpos, c.op(K::kAdd, {seqlens, c.constant(DataType::kInt32, {1.0 - s})})});
  }
  if (c.attr_int("do_rotary", 0) != 0) {
    if (!c.has_input(7) || !c.has_input(8)) c.unsupported("do_rotary=1 without cos/sin caches");
    const int64_t rotary = shape_of_rank(c, 7, 2, "cos_cache")[1] * 2;
    const int64_t pb = shape_of(c, qpos)[0];
    OperandId pos = c.reshape(qpos, {pb, s});
    OperandId cos = cache_rows(c, 7, pos, {pb, 1, s, rotary / 2});
    OperandId sin = cache_rows(c, 8, pos, {pb, 1, s, rotary / 2});
    const bool inter = c.attr_int("rotary_interleaved", 0) != 0;
    q = apply_rotary(c, q, cos, sin, rotary, inter);
    k = apply_rotary(c, k, cos, sin, rotary, inter);
  }
  OperandId kpos = key_positions(c, t);
  if (past > 0) {
    k = c.op(K::kConcat, {RawValue(OperandList{c.in(3), k}), int64_t(2)});
    v = c.op(K::kConcat, {RawValue(OperandList{c.in(4), v}), int64_t(2)});
    // Named as the present outputs they are (no copy into them).
    k = place_new_tokens(c, k, kpos, seqlens, past, s, c.out_name(1));
    v = place_new_tokens(c, v, kpos, seqlens, past, s, c.out_name(2));
  }
  OperandId keep = c.op(K::kLesserOrEqual, {kpos, seqlens});
  if (c.attr_int("causal", 1) != 0) {
    keep = c.op(K::kLogicalAnd, {keep, c.op(K::kLesserOrEqual, {kpos, qpos})});
    if (const int64_t w = c.attr_int("local_window_size", -1); w >= 0) {
      // The window holds w keys ending at the query's own position (ORT 1.30's CPU kernel).
      OperandId first = c.op(K::kSub, {qpos, c.constant(DataType::kInt32, {double(w - 1)})});
      keep = c.op(K::kLogicalAnd, {keep, c.op(K::kGreaterOrEqual, {kpos, first})});
    }
  } else if (c.attr_int("local_window_size", -1) != -1) {
    c.unsupported("local_window_size with causal=0");
  }
  SdpaOptions o;
  o.scale = c.attr_float("scale").value_or(0.0);
  if (o.scale == 0) o.scale = 1.0 / std::sqrt(double(h));
  o.softcap = c.attr_float("softcap", 0.0);
  OperandId bias = mask_to_bias(c, keep, lowest(dt), dt);
  if (c.has_input(10)) bias = c.op(K::kAdd, {bias, c.in(10)});
  o.bias = bias;
  if (c.has_input(11)) {
    o.sink = c.reshape(c.in(11), {1, n, 1, 1});
  } else if (c.attr_int("smooth_softmax", 0) != 0) {
    o.sink = c.constant(dt, {0.0}, {1, 1, 1, 1});
  }
  c.set(0, c.op(K::kIdentity, {scaled_dot_product_attention(c, q, k, v, o)}, {}, c.out_name(0)));
  for (size_t i : {size_t(1), size_t(2)}) {
    if (!c.wants_output(i)) continue;
    const OperandId present = i == 1 ? k : v;
    c.set(i, past > 0 ? present : c.op(K::kIdentity, {present}, {}, c.out_name(i)));
  }
}

// A key padding mask / mask index as a uint8 "keep" operand broadcastable to [B, 1, S, T]:
// [B] key lengths (right padding), [2B] ends then starts (left padding, `with_starts`), or 0/1
// masks of shape [B, T] or [B, S, T].
OperandId padding_keep(ConvertContext& c, size_t i, int64_t b, int64_t s, int64_t t,
                       bool with_starts) {
  const Shape ms = c.shape(i);
  OperandId m = c.op(K::kCast, {c.in(i), DataType::kInt32});
  OperandId kpos = key_positions(c, t);
  if (ms == Shape{b}) return c.op(K::kLesser, {kpos, c.reshape(m, {b, 1, 1, 1})});
  if (with_starts && ms == Shape{2 * b}) {
    OperandId end = c.reshape(slice_axis(c, m, 0, 0, b), {b, 1, 1, 1});
    OperandId start = c.reshape(slice_axis(c, m, 0, b, b), {b, 1, 1, 1});
    return c.op(K::kLogicalAnd,
                {c.op(K::kLesser, {kpos, end}), c.op(K::kGreaterOrEqual, {kpos, start})});
  }
  OperandId zero = c.constant(DataType::kInt32, {0.0});
  if (ms == Shape{b, t}) return c.op(K::kNotEqual, {c.reshape(m, {b, 1, 1, t}), zero});
  if (ms == Shape{b, s, t}) return c.op(K::kNotEqual, {c.reshape(m, {b, 1, s, t}), zero});
  c.unsupported("a mask of shape {} (batch {}, sequence {}, total {})", shape_to_string(ms), b, s,
                t);
}

// Everything after the projections, shared by MultiHeadAttention and Attention: masks
// (padding, causal), attention_bias, the scale and the output.
struct MaskInputs {
  std::optional<size_t> padding;  // the key padding mask / mask_index input
  bool with_starts = false;
  std::optional<size_t> attention_bias;
};

OperandId attend(ConvertContext& c, OperandId q, OperandId k, OperandId v, const MaskInputs& m) {
  const Shape qs = shape_of(c, q);
  const int64_t b = qs[0], s = qs[2], h = qs[3], t = shape_of(c, k)[2];
  const DataType dt = c.dtype(0);
  std::optional<OperandId> keep;
  if (m.padding) keep = padding_keep(c, *m.padding, b, s, t, m.with_starts);
  if (c.attr_int("unidirectional", 0) != 0) {
    OperandId limit =
        c.op(K::kAdd, {query_positions(c, s), c.constant(DataType::kInt32, {double(t - s)})});
    OperandId causal = c.op(K::kLesserOrEqual, {key_positions(c, t), limit});
    keep = keep ? c.op(K::kLogicalAnd, {*keep, causal}) : causal;
  }
  SdpaOptions o;
  o.scale = c.attr_float("scale").value_or(0.0);
  if (o.scale == 0) o.scale = 1.0 / std::sqrt(double(h));
  if (keep) o.bias = mask_to_bias(c, *keep, c.attr_float("mask_filter_value", -10000.0), dt);
  if (m.attention_bias && c.has_input(*m.attention_bias)) {
    OperandId ab = c.in(*m.attention_bias);
    o.bias = o.bias ? c.op(K::kAdd, {*o.bias, ab}) : ab;
  }
  return scaled_dot_product_attention(c, q, k, v, o);
}

void multi_head_attention(ConvertContext& c) {
  const int64_t n = required_heads(c, "num_heads");
  reject_input(c, 8, "past_sequence_length");
  reject_input(c, 9, "cache_indirection");
  if (c.wants_output(3)) c.unsupported("the qk output");
  if (!c.has_input(1)) c.unsupported("packed QKV (no key input)");
  const Shape qs = c.shape(0), ks = c.shape(1);
  if (qs.size() != 3) c.unsupported("query of rank {} (packed QKV)", qs.size());
  if (ks.size() != 3 && ks.size() != 4) c.unsupported("key of rank {} (packed KV)", ks.size());
  const int64_t d = qs[2];
  OperandId q = c.in(0), k = c.in(1), v = c.in(2);
  if (c.has_input(3)) {
    if (ks.size() == 4) c.unsupported("bias with BNSH key/value");
    const int64_t dv = shape_of_rank(c, 3, 1, "bias")[0] - 2 * d;
    q = c.op(K::kAdd, {q, slice_axis(c, c.in(3), 0, 0, d)});
    k = c.op(K::kAdd, {k, slice_axis(c, c.in(3), 0, d, d)});
    v = c.op(K::kAdd, {v, slice_axis(c, c.in(3), 0, 2 * d, dv)});
  }
  q = to_heads(c, q, n, "query");
  if (ks.size() == 3) {
    k = to_heads(c, k, n, "key");
    v = to_heads(c, v, n, "value");
    if (c.has_input(6)) k = c.op(K::kConcat, {RawValue(OperandList{c.in(6), k}), int64_t(2)});
    if (c.has_input(7)) v = c.op(K::kConcat, {RawValue(OperandList{c.in(7), v}), int64_t(2)});
  } else if (c.has_input(6) || c.has_input(7)) {
    c.unsupported("past_key/past_value with BNSH key/value");
  }
  MaskInputs m;
  if (c.has_input(4)) m.padding = 4;
  m.attention_bias = 5;
  c.set(0, c.op(K::kIdentity, {attend(c, q, k, v, m)}, {}, c.out_name(0)));
  if (c.wants_output(1)) c.set(1, c.op(K::kIdentity, {k}, {}, c.out_name(1)));
  if (c.wants_output(2)) c.set(2, c.op(K::kIdentity, {v}, {}, c.out_name(2)));
}

void attention(ConvertContext& c) {
  const int64_t n = required_heads(c, "num_heads");
  reject_nonzero(c, "do_rotary");
  reject_nonzero(c, "past_present_share_buffer");
  reject_input(c, 6, "past_sequence_length");
  const Shape xs = c.shape(0), ws = c.shape(1);
  if (xs.size() != 3 || ws.size() != 2) {
    c.unsupported("input {} and weights {} (3-D input, 2-D weights convert)", shape_to_string(xs),
                  shape_to_string(ws));
  }
  IntList sizes =
      c.attr_ints("qkv_hidden_sizes").value_or(IntList{ws[1] / 3, ws[1] / 3, ws[1] / 3});
  check(sizes.size() == 3 && sizes[0] + sizes[1] + sizes[2] == ws[1],
        "Attention: qkv_hidden_sizes do not add up to the weights' {} columns", ws[1]);
  OperandId qkv = c.op(K::kMatmul, {c.in(0), c.in(1)});
  if (c.has_input(2)) qkv = c.op(K::kAdd, {qkv, c.in(2)});
  OperandId q = to_heads(c, slice_axis(c, qkv, 2, 0, sizes[0]), n, "query");
  OperandId k = to_heads(c, slice_axis(c, qkv, 2, sizes[0], sizes[1]), n, "key");
  OperandId v = to_heads(c, slice_axis(c, qkv, 2, sizes[0] + sizes[1], sizes[2]), n, "value");
  if (c.has_input(4)) {  // past [2, B, N, P, H]
    const Shape ps = shape_of_rank(c, 4, 5, "past");
    const Shape one{ps[1], ps[2], ps[3], ps[4]};
    k = c.op(K::kConcat, {RawValue(OperandList{c.reshape(slice_axis(c, c.in(4), 0, 0, 1), one), k}),
                          int64_t(2)});
    v = c.op(K::kConcat, {RawValue(OperandList{c.reshape(slice_axis(c, c.in(4), 0, 1, 1), one), v}),
                          int64_t(2)});
  }
  MaskInputs m;
  if (c.has_input(3)) m.padding = 3;
  m.with_starts = true;
  m.attention_bias = 5;
  c.set(0, c.op(K::kIdentity, {attend(c, q, k, v, m)}, {}, c.out_name(0)));
  if (c.wants_output(1)) {
    Shape one = shape_of(c, k);
    one.insert(one.begin(), 1);
    OperandList kv{c.reshape(k, one), c.reshape(v, one)};
    c.set(1, c.op(K::kConcat, {RawValue(kv), int64_t(0)}, {}, c.out_name(1)));
  }
}

}  // namespace

void register_attention(std::vector<Converter>& t) {
  const auto X = ConvertKind::kDecomposed;
  t.push_back({kMsDomain, "RotaryEmbedding", 1, kMaxOpset, rotary_embedding, X});
  t.push_back({kMsDomain, "GroupQueryAttention", 1, kMaxOpset, group_query_attention, X, false,
               "constant total_sequence_length = past + new; no KV quantization or qk_output"});
  t.push_back({kMsDomain, "MultiHeadAttention", 1, kMaxOpset, multi_head_attention, X, false,
               "no packed QKV/KV, buffer sharing or qk output"});
  t.push_back({kMsDomain, "Attention", 1, kMaxOpset, attention, X, false,
               "no do_rotary or past_present_share_buffer"});
}

}  // namespace wnn::onnx::ops
