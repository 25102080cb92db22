#include "wnn/onnx/ops/unrolled_rnn.h"

#include <algorithm>

namespace wnn::onnx::ops {

using K = OpKind;

OperandId to_seq_major(ConvertContext& c, OperandId x) {
  return c.op(K::kTranspose, {x}, {{"permutation", IntList{1, 0, 2}}});
}
OperandId state_to_dir_major(ConvertContext& c, OperandId s) {
  return c.op(K::kTranspose, {s}, {{"permutation", IntList{1, 0, 2}}});
}
OperandId y_to_batch_major(ConvertContext& c, OperandId y, std::string name) {
  return c.op(K::kTranspose, {y}, {{"permutation", IntList{2, 0, 1, 3}}}, std::move(name));
}
OperandId state_to_batch_major(ConvertContext& c, OperandId s, std::string name) {
  return c.op(K::kTranspose, {s}, {{"permutation", IntList{1, 0, 2}}}, std::move(name));
}

namespace {

// One ONNX activation by name, with its alpha/beta (ONNX's defaults when not given).
struct Activation {
  std::string name;
  std::optional<double> alpha, beta;
};

OperandId activate(ConvertContext& c, const Activation& a, OperandId x) {
  const DataType dt = c.b().graph().desc(x).dtype;
  auto s = [&](double v) { return c.constant(dt, {v}); };
  const std::string& n = a.name;
  if (n == "Tanh") return c.op(K::kTanh, {x});
  if (n == "Sigmoid") return c.op(K::kSigmoid, {x});
  if (n == "Relu") return c.op(K::kRelu, {x});
  if (n == "Softsign") return c.op(K::kSoftsign, {x});
  if (n == "Softplus") return c.op(K::kSoftplus, {x});
  if (n == "LeakyRelu") return c.op(K::kLeakyRelu, {x}, {{"alpha", a.alpha.value_or(0.01)}});
  if (n == "Elu") return c.op(K::kElu, {x}, {{"alpha", a.alpha.value_or(1.0)}});
  if (n == "HardSigmoid") {
    return c.op(K::kHardSigmoid, {x},
                {{"alpha", a.alpha.value_or(0.2)}, {"beta", a.beta.value_or(0.5)}});
  }
  if (n == "Affine") {
    return c.op(K::kAdd, {c.op(K::kMul, {x, s(a.alpha.value_or(1.0))}), s(a.beta.value_or(0.0))});
  }
  if (n == "ScaledTanh") {
    OperandId t = c.op(K::kTanh, {c.op(K::kMul, {x, s(a.beta.value_or(1.0))})});
    return c.op(K::kMul, {t, s(a.alpha.value_or(1.0))});
  }
  if (n == "ThresholdedRelu") {
    OperandId keep = c.op(K::kGreater, {x, s(a.alpha.value_or(1.0))});
    return c.op(K::kWhere, {keep, x, s(0.0)});
  }
  c.unsupported("activation '{}'", n);
}

// The activations of every direction, `per_direction` each, defaulting to `defaults`.
std::vector<Activation> activations(ConvertContext& c, std::vector<std::string> defaults,
                                    int64_t dirs) {
  const AttributeProto* a = c.attr("activations");
  std::vector<Activation> out;
  if (!a) {
    for (int64_t d = 0; d < dirs; ++d) {
      for (auto& n : defaults) out.push_back({n, {}, {}});
    }
    return out;
  }
  check(a->strings.size() == defaults.size() * size_t(dirs), "{} activations for {} direction(s)",
        a->strings.size(), dirs);
  const auto alphas = c.attr_floats("activation_alpha").value_or(std::vector<double>{});
  const auto betas = c.attr_floats("activation_beta").value_or(std::vector<double>{});
  // activation_alpha/beta list values in order for the activations that take them.
  size_t ai = 0, bi = 0;
  for (const std::string& n : a->strings) {
    Activation act{n, {}, {}};
    const bool takes_alpha = n == "LeakyRelu" || n == "Elu" || n == "HardSigmoid" ||
                             n == "Affine" || n == "ScaledTanh" || n == "ThresholdedRelu";
    const bool takes_beta = n == "HardSigmoid" || n == "Affine" || n == "ScaledTanh";
    if (takes_alpha && ai < alphas.size()) act.alpha = alphas[ai++];
    if (takes_beta && bi < betas.size()) act.beta = betas[bi++];
    out.push_back(act);
  }
  return out;
}

// Everything both unrolled recurrences share: the inputs sliced per direction, the masks
// and reordering that sequence_lens needs, and the output assembly.
struct Unroll {
  ConvertContext& c;
  int64_t steps = 0, batch = 0, input = 0, hidden = 0, dirs = 1, gates = 1;
  bool batch_major = false;
  std::string direction;
  std::optional<double> clip;
  std::vector<int64_t> lens;  // per batch entry; all `steps` when absent
  DataType dt = DataType::kFloat32;
  OperandId x;  // [S, B, I]

  Unroll(ConvertContext& ctx, int64_t gate_count) : c(ctx), gates(gate_count) {
    auto h = c.attr_int("hidden_size");
    if (!h) c.unsupported("{} without hidden_size", c.node().op_type);
    hidden = *h;
    batch_major = c.attr_int("layout", 0) != 0;
    x = batch_major ? to_seq_major(c, c.in(0)) : c.in(0);
    const Shape xs = c.b().graph().desc(x).shape;
    steps = xs.at(0), batch = xs.at(1), input = xs.at(2);
    dt = c.dtype(0);
    direction = c.attr_string("direction", "forward");
    if (direction != "forward" && direction != "reverse" && direction != "bidirectional") {
      c.unsupported("direction '{}'", direction);
    }
    dirs = direction == "bidirectional" ? 2 : 1;
    clip = c.attr_float("clip");
    lens.assign(size_t(batch), steps);
    if (c.has_input(4)) lens = c.known_ints(4, "sequence_lens");
    check(lens.size() == size_t(batch), "sequence_lens has {} entries for batch {}", lens.size(),
          batch);
    for (int64_t l : lens) check(l >= 0 && l <= steps, "sequence length {} of {}", l, steps);
  }

  bool ragged() const {
    return std::any_of(lens.begin(), lens.end(), [&](int64_t l) { return l != steps; });
  }
  bool reversed(int64_t d) const { return direction == "reverse" || d == 1; }

  // Input i's slice for direction d, without the direction dim.
  OperandId per_direction(size_t i, int64_t d) {
    const Shape s = c.shape(i);
    IntList start(s.size(), 0), size(s.begin(), s.end());
    start[0] = d;
    size[0] = 1;
    Shape rest(s.begin() + 1, s.end());
    return c.reshape(c.op(K::kSlice, {c.in(i), RawValue(start), RawValue(size)}), rest);
  }
  // An initial state input [D, B, H] (or [B, D, H] in layout=1) for direction d; zeros if absent.
  OperandId initial(size_t i, int64_t d) {
    if (!c.has_input(i)) {
      return c.op(K::kExpand, {c.constant(dt, {0.0}), RawValue(Shape{batch, hidden})});
    }
    OperandId s = batch_major ? state_to_dir_major(c, c.in(i)) : c.in(i);
    OperandId one =
        c.op(K::kSlice, {s, RawValue(IntList{d, 0, 0}), RawValue(IntList{1, batch, hidden})});
    return c.reshape(one, {batch, hidden});
  }

  // Each batch entry's sequence, reversed within its own length: the order a reverse
  // direction walks. The mapping is its own inverse, so it also puts outputs back.
  OperandId reverse_within_lengths(OperandId seq, int64_t width) {
    std::vector<int64_t> rows;
    for (int64_t t = 0; t < steps; ++t) {
      for (int64_t b = 0; b < batch; ++b) {
        const int64_t l = lens[size_t(b)];
        rows.push_back((t < l ? l - 1 - t : t) * batch + b);
      }
    }
    OperandId flat = c.reshape(seq, {steps * batch, width});
    OperandId g = c.op(K::kGather, {flat, c.constant(make_int64_tensor({steps * batch}, rows))},
                       {{"axis", 0}});
    return c.reshape(g, {steps, batch, width});
  }

  // X W^T + Wb + Rb for every step at once: [S, B, G*H], in the direction's walking order.
  OperandId projected_input(int64_t d) {
    OperandId w = per_direction(1, d);  // [G*H, I]
    OperandId seq = reversed(d) ? reverse_within_lengths(x, input) : x;
    OperandId xw = c.op(K::kMatmul, {seq, c.op(K::kTranspose, {w})});
    if (c.has_input(3)) {
      OperandId b = per_direction(3, d);  // [2*G*H]
      auto parts = c.b().add(K::kSplit, {b, RawValue(IntList{gates * hidden, gates * hidden})},
                             {{"axis", 0}});
      xw = c.op(K::kAdd, {xw, c.op(K::kAdd, {parts[0], parts[1]})});
    }
    return xw;
  }

  // Step t of a [S, B, W] sequence as [B, W].
  OperandId step(OperandId seq, int64_t t, int64_t width) {
    OperandId s =
        c.op(K::kSlice, {seq, RawValue(IntList{t, 0, 0}), RawValue(IntList{1, batch, width})});
    return c.reshape(s, {batch, width});
  }
  // The G gate blocks of a [B, G*H] value.
  std::vector<OperandId> gate_blocks(OperandId v) {
    return c.b().add(K::kSplit, {v, RawValue(IntList(size_t(gates), hidden))}, {{"axis", 1}});
  }
  OperandId clipped(OperandId v) {
    if (!clip) return v;
    return c.op(K::kClamp, {v}, {{"minValue", -*clip}, {"maxValue", *clip}});
  }
  // [B, 1] true where batch entry b is still inside its sequence at step t; nullopt if all are.
  std::optional<OperandId> active(int64_t t) {
    if (!ragged()) return std::nullopt;
    std::vector<double> on(static_cast<size_t>(batch));
    for (int64_t b = 0; b < batch; ++b) on[size_t(b)] = t < lens[size_t(b)] ? 1 : 0;
    return c.constant(DataType::kUint8, on, {batch, 1});
  }

  // Stacks per-direction sequences of [B, H] steps into ONNX's outputs.
  void finish(const std::vector<std::vector<OperandId>>& ys, const std::vector<OperandId>& last,
              const std::vector<OperandId>& last_cell) {
    if (c.wants_output(0)) {
      std::vector<OperandId> per_dir;
      for (int64_t d = 0; d < dirs; ++d) {
        std::vector<OperandId> rows;
        for (OperandId y : ys[size_t(d)]) rows.push_back(c.reshape(y, {1, batch, hidden}));
        OperandId seq = c.op(K::kConcat, {RawValue(rows), int64_t(0)});
        if (reversed(d)) seq = reverse_within_lengths(seq, hidden);
        per_dir.push_back(c.reshape(seq, {steps, 1, batch, hidden}));
      }
      OperandId y = dirs == 1 ? per_dir[0] : c.op(K::kConcat, {RawValue(per_dir), int64_t(1)});
      c.set(0, batch_major ? y_to_batch_major(c, y, c.out_name(0))
                           : c.op(K::kIdentity, {y}, {}, c.out_name(0)));
    }
    auto state = [&](size_t i, const std::vector<OperandId>& s) {
      if (!c.wants_output(i)) return;
      std::vector<OperandId> parts;
      for (OperandId v : s) parts.push_back(c.reshape(v, {1, batch, hidden}));
      OperandId y = dirs == 1 ? parts[0] : c.op(K::kConcat, {RawValue(parts), int64_t(0)});
      c.set(i, batch_major ? state_to_batch_major(c, y, c.out_name(i))
                           : c.op(K::kIdentity, {y}, {}, c.out_name(i)));
    };
    state(1, last);
    state(2, last_cell);
  }
};

// A masked update: entries past their sequence keep `prev`.
OperandId keep_finished(ConvertContext& c, std::optional<OperandId> on, OperandId next,
                        OperandId prev) {
  return on ? c.op(K::kWhere, {*on, next, prev}) : next;
}
// The Y entry of a step: zero past the sequence's end, as ONNX Runtime writes it.
OperandId y_entry(ConvertContext& c, std::optional<OperandId> on, OperandId h, DataType dt) {
  return on ? c.op(K::kWhere, {*on, h, c.constant(dt, {0.0})}) : h;
}

}  // namespace

void rnn_unrolled(ConvertContext& c) {
  Unroll u(c, 1);
  const auto acts = activations(c, {"Tanh"}, u.dirs);
  std::vector<std::vector<OperandId>> ys(size_t(u.dirs));
  std::vector<OperandId> last;
  for (int64_t d = 0; d < u.dirs; ++d) {
    OperandId xw = u.projected_input(d);
    OperandId rt = c.op(K::kTranspose, {u.per_direction(2, d)});
    OperandId h = u.initial(5, d);
    for (int64_t t = 0; t < u.steps; ++t) {
      OperandId pre = c.op(K::kAdd, {u.step(xw, t, u.hidden), c.op(K::kMatmul, {h, rt})});
      OperandId next = activate(c, acts[size_t(d)], u.clipped(pre));
      auto on = u.active(t);
      ys[size_t(d)].push_back(y_entry(c, on, next, u.dt));
      h = keep_finished(c, on, next, h);
    }
    last.push_back(h);
  }
  u.finish(ys, last, {});
}

void lstm_unrolled(ConvertContext& c) {
  Unroll u(c, 4);
  const auto acts = activations(c, {"Sigmoid", "Tanh", "Tanh"}, u.dirs);
  const bool couple = c.attr_int("input_forget", 0) != 0;
  const int64_t h_size = u.hidden;
  std::vector<std::vector<OperandId>> ys(size_t(u.dirs));
  std::vector<OperandId> last, last_cell;
  for (int64_t d = 0; d < u.dirs; ++d) {
    const Activation& f = acts[size_t(3 * d)];
    const Activation& g = acts[size_t(3 * d + 1)];
    const Activation& hact = acts[size_t(3 * d + 2)];
    OperandId xw = u.projected_input(d);
    OperandId rt = c.op(K::kTranspose, {u.per_direction(2, d)});
    std::optional<std::vector<OperandId>> peep;  // i, o, f; each [H]
    if (c.has_input(7)) {
      peep = c.b().add(K::kSplit, {u.per_direction(7, d), RawValue(IntList(3, h_size))},
                       {{"axis", 0}});
    }
    OperandId h = u.initial(5, d), cell = u.initial(6, d);
    for (int64_t t = 0; t < u.steps; ++t) {
      OperandId pre = c.op(K::kAdd, {u.step(xw, t, 4 * h_size), c.op(K::kMatmul, {h, rt})});
      auto blocks = u.gate_blocks(pre);  // i, o, f, c
      auto peeped = [&](OperandId v, int which, OperandId state) {
        return peep ? c.op(K::kAdd, {v, c.op(K::kMul, {(*peep)[size_t(which)], state})}) : v;
      };
      OperandId i_gate = activate(c, f, u.clipped(peeped(blocks[0], 0, cell)));
      OperandId f_gate = couple ? c.op(K::kSub, {c.constant(u.dt, {1.0}), i_gate})
                                : activate(c, f, u.clipped(peeped(blocks[2], 2, cell)));
      OperandId cand = activate(c, g, u.clipped(blocks[3]));
      OperandId next_cell =
          c.op(K::kAdd, {c.op(K::kMul, {f_gate, cell}), c.op(K::kMul, {i_gate, cand})});
      OperandId o_gate = activate(c, f, u.clipped(peeped(blocks[1], 1, next_cell)));
      OperandId next_h = c.op(K::kMul, {o_gate, activate(c, hact, next_cell)});
      auto on = u.active(t);
      ys[size_t(d)].push_back(y_entry(c, on, next_h, u.dt));
      h = keep_finished(c, on, next_h, h);
      cell = keep_finished(c, on, next_cell, cell);
    }
    last.push_back(h);
    last_cell.push_back(cell);
  }
  u.finish(ys, last, last_cell);
}

}  // namespace wnn::onnx::ops
