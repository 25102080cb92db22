#include "wnn/runtime/attention/attention_pattern.h"

#include <algorithm>

#include "wnn/passes/pattern_match.h"

namespace wnn::runtime::attention {

namespace {

using passes::Uses;

class Matcher {
 public:
  // `through_projection_reshape`: read the Q/K/V slices through the fused projection's output
  // reshape (attention_patterns tries with it first, then without).
  Matcher(const Graph& g, const Uses& u, const std::vector<std::vector<uint32_t>>& readers,
          bool through_projection_reshape)
      : g_(g), u_(u), readers_(readers), through_projection_reshape_(through_projection_reshape) {}

  std::optional<AttentionPattern> match(uint32_t softmax);

 private:
  const Shape& shape(OperandId id) const { return g_.desc(id).shape; }
  bool is_f32(OperandId id) const { return g_.desc(id).dtype == DataType::kFloat32; }

  const Node* made_by(OperandId id, OpKind op) const { return passes::producer(g_, id, op); }
  uint32_t index(const Node* n) const { return uint32_t(n - g_.nodes().data()); }
  void take(const Node* n) { nodes_.push_back(index(n)); }
  // `value` is read by `reader` alone (graph outputs count as readers).
  bool only_read_by(OperandId value, const Node* reader) const {
    return u_.count[value.index] == 1 && u_.reader[value.index] == int64_t(index(reader));
  }
  // `value` is read by these nodes alone, each once.
  bool only_read_by(OperandId value, const std::vector<const Node*>& readers) const {
    if (u_.count[value.index] != int(readers.size())) return false;
    return std::all_of(readers.begin(), readers.end(), [&](const Node* r) {
      const auto& in = readers_[value.index];
      return std::find(in.begin(), in.end(), index(r)) != in.end();
    });
  }

  static std::array<int64_t, 4> contiguous(const Shape& s) {
    return {s[1] * s[2] * s[3], s[2] * s[3], s[3], 1};
  }

  // `x` [b, heads, rows, cols] read through the head split in front of it: transpose
  // [0, 2, 1, 3] of reshape([b, rows, heads * cols]) of a slice of the last axis.
  // `readers` are the nodes reading x, all in the pattern. With `rotary`, a rotary embedding
  // applied before the split (RotaryEmbedding of [b, rows, hidden]) is read through too, its
  // tables set there.
  StridedOperand source(OperandId x, const std::vector<const Node*>& readers,
                        std::optional<Rotary>* rotary = nullptr);
  // `inner` [b, rows, heads, cols], read by `t` alone (the transpose making the heads), as a
  // view [b, heads, rows, cols] of the memory in front of it: the reshape of [b, rows, heads
  // * cols], and a slice of the last axis (rotary as for source).
  StridedOperand rows_source(OperandId inner, const Node* t, std::optional<Rotary>* rotary);
  struct Rotated {
    OperandId in;
    Rotary tables;
    std::vector<const Node*> readers;  // the nodes reading `in`, all the rotation's
  };
  // `x` as the rotary embedding of its input in any of the forms below, of the whole last axis
  // or (partial) of its first columns: concat(rotary(slice(in)), the rest of in).
  std::optional<Rotated> rotary(OperandId x);
  std::optional<Rotated> whole_rotary(OperandId x);
  // x = concat(x1 * cos - x2 * sin, x2 * cos + x1 * sin) on its last axis, x1 and x2 its
  // input's two slices there: the halves of a head, or (`adjacent`, x [.., dims / 2, 2]) the
  // elements of a pair.
  std::optional<Rotated> rotated_pairs(OperandId x, bool adjacent);
  // x = reshape of rotated_pairs(.., adjacent) of reshape(in to [.., dims / 2, 2]).
  std::optional<Rotated> rotated_adjacent(OperandId x);
  // (rotate_half) x = in * cos + concat(-x2, x1) * sin with tables of the full head.
  std::optional<Rotated> rotate_half(OperandId x);
  // `s` slices from `starts` a block of `sizes` with unit strides.
  bool slice_is(const Node& s, const IntList& starts, const Shape& sizes) const;
  // `full` [b, heads, t, d], read by `reader` alone, as optimum's repeat_kv of [b, kv, t, d]:
  // reshape to [b, kv, 1, t, d], expand to [b, kv, g, t, d], reshape. The repeated value and
  // the reshape reading it, or nullopt.
  std::optional<std::pair<OperandId, const Node*>> unrepeated(OperandId full, const Node* reader);
  struct RotatedRows {
    OperandId in;        // [b, rows, heads * cols], before the rotation
    const Node* reader;  // the reshape splitting `in` into heads for the rotation
    Rotary tables;       // at [batch, head, row, column] strides
  };
  // `flat` [b, rows, heads * cols], read by `reader` alone, as reshape(rotary(reshape(in to
  // [b, rows, heads, cols]))): the rotation of the heads before they are split off.
  std::optional<RotatedRows> rotary_of_rows(OperandId flat, const Node* reader, int64_t heads,
                                            int64_t cols);
  bool key_values(OperandId full, const Node* reader, bool with_rotary, KeyValues& kv);
  // `id` broadcast to `target` (4-D), read as shape `as` when given (the same memory).
  std::optional<StridedOperand> broadcast(OperandId id, const Shape& target,
                                          const Shape* as = nullptr) const;

  const Graph& g_;
  const Uses& u_;
  const std::vector<std::vector<uint32_t>>& readers_;
  const bool through_projection_reshape_;
  std::vector<uint32_t> nodes_;
};

std::optional<StridedOperand> Matcher::broadcast(OperandId id, const Shape& target,
                                                 const Shape* as) const {
  Shape s = as ? *as : shape(id);
  if (s.size() > 4 || !is_f32(id)) return std::nullopt;
  s.insert(s.begin(), 4 - s.size(), 1);
  StridedOperand v{id, 0, {}};
  int64_t stride = 1;
  for (int d = 3; d >= 0; --d) {
    if (s[size_t(d)] != target[size_t(d)] && s[size_t(d)] != 1) return std::nullopt;
    v.strides[size_t(d)] = s[size_t(d)] == 1 ? 0 : stride;
    stride *= s[size_t(d)];
  }
  if (v.strides[3] != 1) return std::nullopt;  // the kernels read whole rows
  return v;
}

std::optional<Matcher::RotatedRows> Matcher::rotary_of_rows(OperandId flat, const Node* reader,
                                                            int64_t heads, int64_t cols) {
  const Shape fs = shape(flat);
  const Node* merge = made_by(flat, OpKind::kReshape);
  if (!merge || !only_read_by(flat, reader) || fs.size() != 3) return std::nullopt;
  const OperandId y4 = merge->inputs[0];
  const Shape split{fs[0], fs[1], heads, cols};
  if (shape(y4) != split || !only_read_by(y4, merge)) return std::nullopt;
  const size_t taken = nodes_.size();
  std::optional<Rotated> r = rotary(y4);
  if (!r) return std::nullopt;
  const Node* to_heads = made_by(r->in, OpKind::kReshape);
  if (!to_heads || !only_read_by(r->in, r->readers) || shape(to_heads->inputs[0]) != fs ||
      !is_f32(to_heads->inputs[0])) {
    nodes_.resize(taken);
    return std::nullopt;
  }
  take(merge);
  take(to_heads);
  // The tables broadcast over [b, rows, heads, half]; the kernel reads [b, head, row, half].
  for (StridedOperand* t : {&r->tables.cos, &r->tables.sin})
    std::swap(t->strides[1], t->strides[2]);
  return RotatedRows{to_heads->inputs[0], to_heads, r->tables};
}

StridedOperand Matcher::source(OperandId x, const std::vector<const Node*>& readers,
                               std::optional<Rotary>* rotary) {
  const Shape xs = shape(x);
  StridedOperand v{x, 0, contiguous(xs)};
  const Node* t = made_by(x, OpKind::kTranspose);
  if (!t || !only_read_by(x, readers) || t->attrs.get_ints("permutation") != IntList{0, 2, 1, 3}) {
    return v;
  }
  take(t);
  return rows_source(t->inputs[0], t, rotary);
}

StridedOperand Matcher::rows_source(OperandId inner, const Node* t, std::optional<Rotary>* rotary) {
  const Shape is = shape(inner);
  const int64_t b = is[0], rows = is[1], heads = is[2], cols = is[3];
  StridedOperand v{inner, 0, {rows * heads * cols, cols, heads * cols, 1}};
  const Node* r = made_by(inner, OpKind::kReshape);
  if (!r || !only_read_by(inner, t)) return v;
  take(r);
  OperandId flat = r->inputs[0];
  const Node* flat_reader = r;
  if (rotary) {
    if (auto rows_rotated = rotary_of_rows(flat, r, heads, cols)) {
      *rotary = rows_rotated->tables;
      flat = rows_rotated->in;
      flat_reader = rows_rotated->reader;
    }
  }
  v.base = flat;  // the same memory
  const Node* s = made_by(flat, OpKind::kSlice);
  if (!s || !only_read_by(flat, flat_reader) || shape(flat) != Shape{b, rows, heads * cols}) {
    return v;
  }
  const IntList starts = s->attrs.get_ints("starts"), strides = s->attrs.get_ints("strides");
  const OperandId whole = s->inputs[0];
  const Shape ws = shape(whole);
  if (ws.size() != 3 || ws[0] != b || ws[1] != rows || starts.size() != 3 || starts[0] != 0 ||
      starts[1] != 0 ||
      !std::all_of(strides.begin(), strides.end(), [](int64_t k) { return k == 1; })) {
    return v;
  }
  take(s);
  OperandId base = whole;
  // The fused projection's output reshape in front of the Q/K/V slices ([b * rows, n] to
  // [b, rows, n]): the same memory. Taken once for the slices, when slices alone read it; the
  // final check then requires them all to be this pattern's, and when they are not the match
  // is tried again without it.
  if (const Node* flat_out = made_by(whole, OpKind::kReshape);
      through_projection_reshape_ && flat_out && is_f32(flat_out->inputs[0])) {
    const auto& in = readers_[whole.index];
    const bool slices = u_.count[whole.index] == int(in.size()) &&
                        std::all_of(in.begin(), in.end(), [&](uint32_t r) {
                          return g_.nodes()[r].op() == OpKind::kSlice;
                        });
    if (slices) {
      if (std::find(nodes_.begin(), nodes_.end(), index(flat_out)) == nodes_.end()) take(flat_out);
      base = flat_out->inputs[0];
    }
  }
  return {base, starts[2], {rows * ws[2], cols, ws[2], 1}};
}

std::optional<Matcher::Rotated> Matcher::rotary(OperandId x) {
  if (auto r = whole_rotary(x)) return r;
  // Partial: concat(rotary(slice(in, first dims)), slice(in, the rest)) on the last axis.
  const Node* cat = made_by(x, OpKind::kConcat);
  const Shape xs = shape(x);
  if (!cat || cat->inputs.size() != 2 || xs.size() != 4 || cat->attrs.get_int("axis") != 3) {
    return std::nullopt;
  }
  const Node* pass = made_by(cat->inputs[1], OpKind::kSlice);
  if (!pass || !only_read_by(cat->inputs[0], cat) || !only_read_by(cat->inputs[1], cat)) {
    return std::nullopt;
  }
  const OperandId in = pass->inputs[0];
  const int64_t dims = shape(cat->inputs[0])[3];
  Shape rest = xs, part = xs;
  rest[3] = xs[3] - dims;
  part[3] = dims;
  if (shape(in) != xs || !slice_is(*pass, {0, 0, 0, dims}, rest)) return std::nullopt;
  const size_t taken = nodes_.size();
  std::optional<Rotated> r = whole_rotary(cat->inputs[0]);
  const Node* first = r ? made_by(r->in, OpKind::kSlice) : nullptr;
  if (!first || first->inputs[0] != in || !slice_is(*first, {0, 0, 0, 0}, part) ||
      !only_read_by(r->in, r->readers)) {
    nodes_.resize(taken);
    return std::nullopt;
  }
  for (const Node* n : {cat, pass, first}) take(n);
  r->tables.dims = dims;
  r->in = in;
  r->readers = {first, pass};
  return r;
}

std::optional<Matcher::Rotated> Matcher::whole_rotary(OperandId x) {
  if (auto r = rotated_pairs(x, false)) return r;
  if (auto r = rotated_adjacent(x)) return r;
  return rotate_half(x);
}

bool Matcher::slice_is(const Node& s, const IntList& starts, const Shape& sizes) const {
  const IntList st = s.attrs.get_ints("strides");
  return s.attrs.get_ints("starts") == starts &&
         s.attrs.get_ints("sizes") == IntList(sizes.begin(), sizes.end()) &&
         std::all_of(st.begin(), st.end(), [](int64_t k) { return k == 1; });
}

std::optional<Matcher::Rotated> Matcher::rotated_pairs(OperandId x, bool adjacent) {
  const Node* cat = made_by(x, OpKind::kConcat);
  const Shape xs = shape(x);
  const size_t rank = adjacent ? 5 : 4, axis = rank - 1;
  if (!cat || cat->inputs.size() != 2 || xs.size() != rank ||
      cat->attrs.get_int("axis") != int64_t(axis) || xs[axis] % 2 != 0 ||
      (adjacent && xs[axis] != 2)) {
    return std::nullopt;
  }
  const Node* sub = made_by(cat->inputs[0], OpKind::kSub);
  const Node* add = made_by(cat->inputs[1], OpKind::kAdd);
  if (!sub || !add || !only_read_by(cat->inputs[0], cat) || !only_read_by(cat->inputs[1], cat)) {
    return std::nullopt;
  }
  const Node* a = made_by(sub->inputs[0], OpKind::kMul);  // x1 * cos
  const Node* b = made_by(sub->inputs[1], OpKind::kMul);  // x2 * sin
  const Node* c = made_by(add->inputs[0], OpKind::kMul);  // x2 * cos (either order)
  const Node* d = made_by(add->inputs[1], OpKind::kMul);  // x1 * sin
  if (!a || !b || !c || !d) return std::nullopt;
  // One product's slice and table, whichever side each is on.
  auto split = [&](const Node* m) -> std::optional<std::pair<const Node*, OperandId>> {
    for (int side = 0; side < 2; ++side) {
      const Node* s = made_by(m->inputs[size_t(side)], OpKind::kSlice);
      if (s && shape(s->inputs[0]) == xs) return std::pair{s, m->inputs[size_t(1 - side)]};
    }
    return std::nullopt;
  };
  auto pa = split(a), pb = split(b), pc = split(c), pd = split(d);
  if (!pa || !pb || !pc || !pd) return std::nullopt;
  if (pc->first == pa->first) std::swap(pc, pd);  // add's operands swapped
  const Node* x1 = pa->first;
  const Node* x2 = pb->first;
  if (pc->first != x2 || pd->first != x1 || pa->second != pc->second || pb->second != pd->second ||
      x1 == x2) {
    return std::nullopt;
  }
  const OperandId in = x1->inputs[0];
  if (x2->inputs[0] != in || shape(in) != xs || !is_f32(in)) return std::nullopt;
  // The slices: halves of the head, or the first and second of each pair.
  Shape piece = xs;
  piece[axis] = xs[axis] / 2;
  IntList zero(rank, 0), second(rank, 0);
  second[axis] = piece[axis];
  if (!slice_is(*x1, zero, piece) || !slice_is(*x2, second, piece)) return std::nullopt;
  // The tables as [.., row, dims / 2]: a pair's tables [.., dims / 2, 1] are the same memory.
  Shape target = piece;
  std::optional<Shape> as[2];
  if (adjacent) {
    target.pop_back();
    for (int i = 0; i < 2; ++i) {
      Shape t = shape(i == 0 ? pa->second : pb->second);
      if (t.empty() || t.back() != 1) return std::nullopt;
      t.pop_back();
      as[i] = t;
    }
  }
  auto cos = broadcast(pa->second, target, as[0] ? &*as[0] : nullptr);
  auto sin = broadcast(pb->second, target, as[1] ? &*as[1] : nullptr);
  if (!cos || !sin) return std::nullopt;
  for (const Node* m : {a, b, c, d}) {
    if (!only_read_by(m->outputs[0], m == a || m == b ? sub : add)) return std::nullopt;
  }
  // The halves are read by two products each, nothing else.
  for (const Node* s : {x1, x2}) {
    if (u_.count[s->outputs[0].index] != 2) return std::nullopt;
  }
  for (const Node* n : {cat, sub, add, a, b, c, d, x1, x2}) take(n);
  return Rotated{in, Rotary{*cos, *sin}, {x1, x2}};
}

std::optional<Matcher::Rotated> Matcher::rotated_adjacent(OperandId x) {
  const Node* flat = made_by(x, OpKind::kReshape);
  const Shape xs = shape(x);
  if (!flat || xs.size() != 4 || xs[3] % 2 != 0 || !only_read_by(flat->inputs[0], flat)) {
    return std::nullopt;
  }
  const size_t taken = nodes_.size();
  std::optional<Rotated> r = rotated_pairs(flat->inputs[0], true);
  const Node* pairs = r ? made_by(r->in, OpKind::kReshape) : nullptr;
  if (!pairs || shape(pairs->inputs[0]) != xs || !only_read_by(r->in, r->readers)) {
    nodes_.resize(taken);
    return std::nullopt;
  }
  take(flat);
  take(pairs);
  r->tables.adjacent = true;
  r->in = pairs->inputs[0];
  r->readers = {pairs};
  return r;
}

std::optional<Matcher::Rotated> Matcher::rotate_half(OperandId x) {
  const Node* add = made_by(x, OpKind::kAdd);
  const Shape xs = shape(x);
  if (!add || xs.size() != 4 || xs[3] % 2 != 0 || !is_f32(x)) return std::nullopt;
  const int64_t half = xs[3] / 2;
  Shape halves = xs;
  halves[3] = half;
  // One product of `in` and a table, the other of concat(-x2, x1) and the other table; the
  // add's and the products' operands in either order.
  for (int side = 0; side < 2; ++side) {
    const Node* direct = made_by(add->inputs[size_t(side)], OpKind::kMul);
    const Node* turned = made_by(add->inputs[size_t(1 - side)], OpKind::kMul);
    if (!direct || !turned || !only_read_by(direct->outputs[0], add) ||
        !only_read_by(turned->outputs[0], add)) {
      continue;
    }
    for (int ts = 0; ts < 2; ++ts) {
      const Node* cat = made_by(turned->inputs[size_t(ts)], OpKind::kConcat);
      if (!cat || cat->inputs.size() != 2 || cat->attrs.get_int("axis") != 3 ||
          !only_read_by(cat->outputs[0], turned)) {
        continue;
      }
      const Node* neg = made_by(cat->inputs[0], OpKind::kNeg);
      const Node* x1 = made_by(cat->inputs[1], OpKind::kSlice);
      const Node* x2 = neg ? made_by(neg->inputs[0], OpKind::kSlice) : nullptr;
      if (!x1 || !x2 || !only_read_by(cat->inputs[0], cat) || !only_read_by(x1->outputs[0], cat) ||
          !only_read_by(x2->outputs[0], neg)) {
        continue;
      }
      const OperandId in = x1->inputs[0];
      const int ds = direct->inputs[0] == in ? 0 : (direct->inputs[1] == in ? 1 : -1);
      if (x2->inputs[0] != in || shape(in) != xs || ds < 0) continue;
      if (!slice_is(*x1, {0, 0, 0, 0}, halves) || !slice_is(*x2, {0, 0, 0, half}, halves)) {
        continue;
      }
      auto cos = broadcast(direct->inputs[size_t(1 - ds)], xs);
      auto sin = broadcast(turned->inputs[size_t(1 - ts)], xs);
      if (!cos || !sin) continue;
      for (const Node* n : {add, direct, turned, cat, neg, x1, x2}) take(n);
      return Rotated{in, Rotary{*cos, *sin, true}, {direct, x1, x2}};
    }
  }
  return std::nullopt;
}

std::optional<std::pair<OperandId, const Node*>> Matcher::unrepeated(OperandId full,
                                                                     const Node* reader) {
  const Shape fs = shape(full);
  const Node* merge = made_by(full, OpKind::kReshape);
  if (!merge || fs.size() != 4 || !only_read_by(full, reader)) return std::nullopt;
  const Node* expand = made_by(merge->inputs[0], OpKind::kExpand);
  if (!expand || !only_read_by(merge->inputs[0], merge)) return std::nullopt;
  const Node* split = made_by(expand->inputs[0], OpKind::kReshape);
  if (!split || !only_read_by(expand->inputs[0], expand)) return std::nullopt;
  const Shape es = shape(expand->outputs[0]), us = shape(split->outputs[0]);
  const OperandId base = split->inputs[0];
  const Shape bs = shape(base);
  if (es.size() != 5 || bs.size() != 4 || us != Shape{bs[0], bs[1], 1, bs[2], bs[3]} ||
      es != Shape{bs[0], bs[1], es[2], bs[2], bs[3]} ||
      fs != Shape{bs[0], bs[1] * es[2], bs[2], bs[3]}) {
    return std::nullopt;
  }
  for (const Node* n : {merge, expand, split}) take(n);
  return std::pair{base, split};
}

bool Matcher::key_values(OperandId full, const Node* reader, bool with_rotary, KeyValues& kv) {
  const Shape fs = shape(full);
  if (fs.size() != 4 || !is_f32(full)) return false;
  kv.full = full;
  kv.columns = fs[3];
  OperandId placed = full;
  const Node* gather = made_by(full, OpKind::kGather);
  if (gather && gather->attrs.get_int("axis") == 2 && fs[0] == 1 &&
      shape(gather->inputs[1]).size() == 1 &&
      (g_.desc(gather->inputs[1]).dtype == DataType::kInt32 ||
       g_.desc(gather->inputs[1]).dtype == DataType::kInt64)) {
    take(gather);
    kv.index = gather->inputs[1];
    kv.index_is_64 = g_.desc(gather->inputs[1]).dtype == DataType::kInt64;
    placed = gather->inputs[0];
    kv.written = true;
  }
  const Node* cat = made_by(placed, OpKind::kConcat);
  OperandId fresh = placed;
  if (cat && cat->inputs.size() == 2 && cat->attrs.get_int("axis") == 2 &&
      (placed == full || only_read_by(placed, gather))) {
    take(cat);
    kv.past = cat->inputs[0];
    kv.past_rows = shape(*kv.past)[2];
    fresh = cat->inputs[1];
    kv.written = true;
    if (!is_f32(*kv.past)) return false;
  } else if (placed != full) {
    return false;  // placing rows of something else
  }
  const Node* fresh_reader = kv.past ? cat : (kv.index ? gather : reader);
  // Without a past, the present output is an identity of the new keys themselves (a prefill):
  // the identities read them too, and the step writes the keys when it computes them.
  std::vector<const Node*> fresh_readers{fresh_reader};
  if (!kv.past && !kv.index) {
    for (uint32_t id : readers_[fresh.index]) {
      if (g_.nodes()[id].op() == OpKind::kIdentity) fresh_readers.push_back(&g_.nodes()[id]);
    }
  }
  std::optional<Rotated> r;
  if (with_rotary && only_read_by(fresh, fresh_readers)) {
    r = rotary(fresh);
  }
  if (r) {
    kv.rotary = r->tables;
    kv.written = true;
    kv.fresh = source(r->in, r->readers);
  } else {
    kv.fresh = source(fresh, fresh_readers, with_rotary ? &kv.rotary : nullptr);
    if (kv.rotary) kv.written = true;  // the rotated rows exist only as the step writes them
    // The head split read through: the keys themselves exist only as the step writes them.
    if (fresh_readers.size() > 1 && kv.fresh.base != fresh) kv.written = true;
  }
  kv.fresh_rows = shape(fresh)[2];
  if (kv.written) {
    // Identities of the written value (a present output that is the keys themselves) are
    // copies the step writes.
    for (uint32_t id : readers_[full.index]) {
      const Node& n = g_.nodes()[id];
      if (n.op() == OpKind::kIdentity) {
        nodes_.push_back(id);
        kv.copies.push_back(n.outputs[0]);
      }
    }
  }
  return true;
}

std::optional<AttentionPattern> Matcher::match(uint32_t softmax_index) {
  const Node& sm = g_.nodes()[softmax_index];
  AttentionPattern p;
  p.softmax = softmax_index;
  nodes_ = {softmax_index};
  const OperandId scores = sm.inputs[0];
  const Shape ss = shape(scores);
  if (ss.size() != 4 || sm.attrs.get_int("axis") != 3 || !is_f32(scores)) return std::nullopt;
  const int64_t b = ss[0], n = ss[1], s = ss[2], t = ss[3];
  // Up from the scores: [add bias] [mul|div scale] [reshape] matmul(Q, transpose(K)).
  OperandId x = scores;
  const Node* reader = &sm;
  auto chain_op = [&](OperandId id) {
    for (OpKind op : {OpKind::kMul, OpKind::kDiv, OpKind::kReshape, OpKind::kMatmul}) {
      if (made_by(id, op)) return true;
    }
    return false;
  };
  if (const Node* add = made_by(x, OpKind::kAdd); add && only_read_by(x, reader)) {
    for (size_t side = 0; side < 2; ++side) {
      if (!chain_op(add->inputs[side])) continue;
      auto bias = broadcast(add->inputs[1 - side], ss);
      if (!bias) return std::nullopt;
      p.bias = bias;
      take(add);
      reader = add;
      x = add->inputs[side];
      break;
    }
  }
  for (OpKind op : {OpKind::kMul, OpKind::kDiv}) {
    const Node* m = made_by(x, op);
    if (!m || !only_read_by(x, reader)) continue;
    size_t side = 0;
    std::optional<float> f = passes::scalar_constant(g_, m->inputs[1]);
    if (!f && op == OpKind::kMul) f = passes::scalar_constant(g_, m->inputs[0]), side = 1;
    if (!f) return std::nullopt;
    p.scale = {*f, op == OpKind::kDiv};
    take(m);
    reader = m;
    x = m->inputs[side == 0 ? 0 : 1];
    break;
  }
  bool grouped = false;
  if (const Node* r = made_by(x, OpKind::kReshape); r && only_read_by(x, reader)) {
    take(r);
    reader = r;
    x = r->inputs[0];
    grouped = true;
  }
  const Node* qk = made_by(x, OpKind::kMatmul);
  if (!qk || !only_read_by(x, reader)) return std::nullopt;
  take(qk);
  const Node* kt = made_by(qk->inputs[1], OpKind::kTranspose);
  if (!kt || !only_read_by(qk->inputs[1], qk)) return std::nullopt;
  // K^T as transpose [0, 1, 3, 2] of the keys [b, kv heads, t, d], or as one transpose
  // [0, 2, 3, 1] of [b, t, kv heads, d] making the heads and transposing at once (BERT exports;
  // no cache in front of it).
  const IntList perm = kt->attrs.get_ints("permutation");
  const bool pre_transposed = perm == IntList{0, 2, 3, 1};
  if (perm != IntList{0, 1, 3, 2} && !pre_transposed) return std::nullopt;
  take(kt);
  OperandId kfull = kt->inputs[0];
  const Node* k_reader = kt;
  // Keys repeated for the query heads (repeat_kv) are read as the key heads they repeat.
  if (auto u = pre_transposed ? std::nullopt : unrepeated(kfull, kt)) {
    kfull = u->first;
    k_reader = u->second;
  }
  Shape ks = shape(kfull);
  if (ks.size() != 4 || !is_f32(kfull)) return std::nullopt;
  if (pre_transposed) std::swap(ks[1], ks[2]);  // as [b, kv heads, t, d]
  if (ks[0] != b || ks[2] != t || ks[1] <= 0 || n % ks[1] != 0) return std::nullopt;
  const int64_t kvh = ks[1], group = n / kvh, d = ks[3];
  OperandId q4 = qk->inputs[0];
  const Node* q_reader = qk;
  if (grouped) {
    if (shape(q4) != Shape{b, kvh, group * s, d} || shape(x) != Shape{b, kvh, group * s, t}) {
      return std::nullopt;
    }
    const Node* r = made_by(q4, OpKind::kReshape);
    if (!r || !only_read_by(q4, qk)) return std::nullopt;
    take(r);
    q_reader = r;
    q4 = r->inputs[0];
  }
  if (shape(q4) != Shape{b, n, s, d} || !is_f32(q4)) return std::nullopt;
  // Down from the probabilities: [reshape] matmul(P, V) [reshape] [transpose [0, 2, 1, 3]]
  // [reshape | identity ...].
  auto sole = [&](OperandId value) -> const Node* {
    if (u_.count[value.index] != 1) return nullptr;
    return &g_.nodes()[size_t(u_.reader[value.index])];
  };
  OperandId y = sm.outputs[0];
  if (grouped) {
    const Node* r = sole(y);
    if (!r || r->op() != OpKind::kReshape || shape(r->outputs[0]) != Shape{b, kvh, group * s, t}) {
      return std::nullopt;
    }
    take(r);
    y = r->outputs[0];
  }
  const Node* pv = sole(y);
  if (!pv || pv->op() != OpKind::kMatmul || pv->inputs[0] != y) return std::nullopt;
  take(pv);
  OperandId vfull = pv->inputs[1];
  const Node* v_reader = pv;
  if (auto u = unrepeated(vfull, pv)) {
    vfull = u->first;
    v_reader = u->second;
  }
  const Shape vs = shape(vfull);
  if (vs.size() != 4 || vs[0] != b || vs[1] != kvh || vs[2] != t) return std::nullopt;
  const int64_t dv = vs[3];
  y = pv->outputs[0];
  if (grouped) {
    const Node* r = sole(y);
    if (!r || r->op() != OpKind::kReshape || shape(r->outputs[0]) != Shape{b, n, s, dv}) {
      return std::nullopt;
    }
    take(r);
    y = r->outputs[0];
  }
  p.out_strides = {n * s * dv, s * dv, dv, 1};
  if (const Node* tr = sole(y); tr && tr->op() == OpKind::kTranspose &&
                                tr->attrs.get_ints("permutation") == IntList{0, 2, 1, 3}) {
    take(tr);
    p.out_chain.push_back(index(tr));
    y = tr->outputs[0];
    p.out_strides = {s * n * dv, dv, n * dv, 1};
    for (const Node* r = sole(y);
         r && (r->op() == OpKind::kReshape || r->op() == OpKind::kIdentity); r = sole(y)) {
      take(r);
      p.out_chain.push_back(index(r));
      y = r->outputs[0];
    }
  }
  p.out = y;
  // Q, K and V at strides, through rotary and the KV cache where present.
  std::optional<Rotated> qr;
  if (only_read_by(q4, q_reader)) {
    qr = rotary(q4);
  }
  if (qr) {
    p.q_rotary = qr->tables;
    p.q = source(qr->in, qr->readers);
  } else {
    p.q = source(q4, {q_reader}, &p.q_rotary);
  }
  if (pre_transposed) {
    p.k.full = kfull;
    p.k.columns = d;
    p.k.fresh_rows = t;
    p.k.fresh = rows_source(kfull, kt, nullptr);
  } else if (!key_values(kfull, k_reader, true, p.k)) {
    return std::nullopt;
  }
  if (!key_values(vfull, v_reader, false, p.v)) return std::nullopt;
  if (p.k.columns != d || p.v.columns != dv || p.k.past_rows + p.k.fresh_rows < 1) {
    return std::nullopt;
  }
  for (const KeyValues* kv : {&p.k, &p.v}) {
    if (!kv->index && kv->past_rows + kv->fresh_rows != t && kv->written) return std::nullopt;
    if (kv->past && shape(*kv->past) != Shape{b, kvh, kv->past_rows, kv->columns}) {
      return std::nullopt;
    }
  }
  p.sizes = {b, n, kvh, s, t, d, dv};
  std::sort(nodes_.begin(), nodes_.end());
  // A rotary table made by a reshape (the [.., dims / 2, 1] of adjacent pairs) that only this
  // pattern reads is its own: the table is that reshape's input, the same memory.
  for (std::optional<Rotary>* r : {&p.q_rotary, &p.k.rotary}) {
    if (!*r) continue;
    for (StridedOperand* table : {&(*r)->cos, &(*r)->sin}) {
      const Node* reshape = made_by(table->base, OpKind::kReshape);
      if (!reshape) continue;
      // Taken already when Q's and K's rotations share the table.
      if (!std::binary_search(nodes_.begin(), nodes_.end(), index(reshape))) {
        const auto& in = readers_[table->base.index];
        if (g_.is_output(table->base) || u_.count[table->base.index] != int(in.size()) ||
            !std::all_of(in.begin(), in.end(), [&](uint32_t n) {
              return std::binary_search(nodes_.begin(), nodes_.end(), n);
            })) {
          continue;
        }
        nodes_.insert(std::upper_bound(nodes_.begin(), nodes_.end(), index(reshape)),
                      index(reshape));
      }
      table->base = reshape->inputs[0];
    }
  }
  if (std::adjacent_find(nodes_.begin(), nodes_.end()) != nodes_.end()) return std::nullopt;
  // Every value a pattern node computes is read only by pattern nodes, but the ones it writes.
  std::vector<OperandId> written{p.out};
  for (const KeyValues* kv : {&p.k, &p.v}) {
    if (kv->written) written.push_back(kv->full);
    written.insert(written.end(), kv->copies.begin(), kv->copies.end());
  }
  for (uint32_t node : nodes_) {
    for (OperandId o : g_.nodes()[node].outputs) {
      if (std::find(written.begin(), written.end(), o) != written.end()) continue;
      if (g_.is_output(o)) return std::nullopt;
      for (uint32_t r : readers_[o.index]) {
        if (!std::binary_search(nodes_.begin(), nodes_.end(), r)) return std::nullopt;
      }
    }
  }
  p.nodes = nodes_;
  return p;
}

// The pattern from `softmax`, reading through the projection's reshape where that matches.
std::optional<AttentionPattern> match_from(const Graph& g, const Uses& u,
                                           const std::vector<std::vector<uint32_t>>& readers,
                                           uint32_t softmax) {
  if (auto p = Matcher(g, u, readers, true).match(softmax)) return p;
  return Matcher(g, u, readers, false).match(softmax);
}

}  // namespace

std::optional<AttentionPattern> match_attention(const Graph& g, uint32_t softmax) {
  if (g.nodes()[softmax].op() != OpKind::kSoftmax) return std::nullopt;
  const Uses u = passes::uses_of(g);
  const auto readers = passes::readers_of(g);
  return match_from(g, u, readers, softmax);
}

void end_output_at(const Graph& g, AttentionPattern& p, const std::vector<uint32_t>& nodes) {
  while (p.out_chain.size() > 1 &&
         !std::binary_search(nodes.begin(), nodes.end(), p.out_chain.back())) {
    const uint32_t last = p.out_chain.back();
    p.out_chain.pop_back();
    p.nodes.erase(std::find(p.nodes.begin(), p.nodes.end(), last));
    p.out = g.nodes()[p.out_chain.back()].outputs[0];
  }
}

std::vector<AttentionPattern> attention_patterns(const Graph& g) {
  std::vector<AttentionPattern> out;
  std::optional<Uses> u;
  std::vector<std::vector<uint32_t>> readers;
  for (uint32_t i = 0; i < g.nodes().size(); ++i) {
    if (g.nodes()[i].op() != OpKind::kSoftmax) continue;
    if (!u) u = passes::uses_of(g), readers = passes::readers_of(g);
    if (auto p = match_from(g, *u, readers, i)) out.push_back(std::move(*p));
  }
  // A node belongs to one pattern at most.
  std::vector<uint32_t> seen;
  std::vector<AttentionPattern> kept;
  for (AttentionPattern& p : out) {
    if (std::any_of(p.nodes.begin(), p.nodes.end(), [&](uint32_t n) {
          return std::find(seen.begin(), seen.end(), n) != seen.end();
        })) {
      continue;
    }
    seen.insert(seen.end(), p.nodes.begin(), p.nodes.end());
    kept.push_back(std::move(p));
  }
  return kept;
}

}  // namespace wnn::runtime::attention
