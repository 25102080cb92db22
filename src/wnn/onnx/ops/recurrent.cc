// LSTM and GRU over whole sequences. ONNX's LSTM gate order i,o,f,c is WebNN's "iofg" layout
// and GRU's z,r,h is "zrn"; ONNX's B holds the input and recurrent biases back to back.
#include <algorithm>

#include "wnn/onnx/ops/unrolled_rnn.h"
#include "wnn/onnx/registry.h"

namespace wnn::onnx::ops {
namespace {

using K = OpKind;

std::string webnn_direction(ConvertContext& c) {
  const std::string d = c.attr_string("direction", "forward");
  if (d == "forward") return "forward";
  if (d == "reverse") return "backward";
  if (d == "bidirectional") return "both";
  c.unsupported("direction '{}'", d);
}

// ONNX activation names -> WebNN's, one set per direction that must agree between directions.
std::optional<std::vector<std::string>> activations(ConvertContext& c, size_t per_direction,
                                                    size_t directions) {
  const AttributeProto* a = c.attr("activations");
  if (!a) return std::nullopt;
  check(a->strings.size() == per_direction * directions, "{} activations for {} direction(s)",
        a->strings.size(), directions);
  std::vector<std::string> out;
  for (size_t i = 0; i < per_direction; ++i) {
    const std::string& name = a->strings[i];
    if (directions == 2 && a->strings[i + per_direction] != name) {
      c.unsupported("different activations per direction");
    }
    if (name == "Sigmoid")
      out.push_back("sigmoid");
    else if (name == "Tanh")
      out.push_back("tanh");
    else if (name == "Relu")
      out.push_back("relu");
    else
      c.unsupported("activation '{}'", name);
  }
  return out;
}

void common_checks(ConvertContext& c, int64_t steps) {
  if (c.attr_float("clip")) c.unsupported("clip (WebNN has no cell clipping)");
  if (c.has_input(4)) {
    for (int64_t len : c.known_ints(4, "sequence_lens")) {
      if (len != steps) c.unsupported("sequence_lens {} shorter than the sequence {}", len, steps);
    }
  }
}

// layout=1 transposes around WebNN's seq-major recurrences.
OperandId sequence_input(ConvertContext& c, bool batch_major) {
  return batch_major ? to_seq_major(c, c.in(0)) : c.in(0);
}
OperandId state_input(ConvertContext& c, size_t i, bool batch_major) {
  return batch_major ? state_to_dir_major(c, c.in(i)) : c.in(i);
}
void set_sequence_output(ConvertContext& c, size_t i, OperandId y, bool batch_major) {
  c.set(i, batch_major ? y_to_batch_major(c, y, c.out_name(i)) : y);
}
void set_state_output(ConvertContext& c, size_t i, OperandId s, bool batch_major) {
  if (!c.wants_output(i)) return;
  c.set(i, batch_major ? state_to_batch_major(c, s, c.out_name(i)) : s);
}

// Splits ONNX B [dirs, 2*G*hidden] into WebNN bias and recurrentBias.
std::pair<OperandId, OperandId> split_bias(ConvertContext& c, size_t i, int64_t width) {
  auto parts = c.b().add(K::kSplit, {c.in(i), RawValue(IntList{width, width})}, {{"axis", 1}});
  return {parts[0], parts[1]};
}

// Whether WebNN's lstm computes this node: its peephole must be a known constant with a zero
// output-gate part (ONNX's output gate peeps at the new cell state, WebNN's at the previous
// one), and clip, input_forget, ragged sequence_lens and other activations have no WebNN form.
bool webnn_lstm_fits(ConvertContext& c, int64_t steps, int64_t h) {
  if (c.attr_float("clip") || c.attr_int("input_forget", 0) != 0) return false;
  if (c.has_input(4)) {
    const Tensor* lens = c.known(4);
    if (!lens) return false;
    for (int64_t i = 0; i < lens->size(); ++i) {
      if (element_as_int64(lens->view(), i) != steps) return false;
    }
  }
  if (const AttributeProto* a = c.attr("activations")) {
    for (size_t i = 0; i < a->strings.size(); ++i) {
      const std::string& n = a->strings[i];
      if ((n != "Sigmoid" && n != "Tanh" && n != "Relu") || a->strings[i % 3] != n) return false;
    }
  }
  if (c.has_input(7)) {
    const Tensor* p = c.known(7);
    if (!p) return false;
    for (int64_t d = 0; d < p->shape.at(0); ++d) {
      for (int64_t j = 0; j < h; ++j) {
        if (element_as_double(p->view(), d * 3 * h + h + j) != 0) return false;
      }
    }
  }
  return true;
}

void lstm(ConvertContext& c) {
  const bool batch_major = c.attr_int("layout", 0) != 0;
  const Shape xs = c.shape(0);
  auto hidden = c.attr_int("hidden_size");
  if (!hidden) c.unsupported("LSTM without hidden_size");
  const int64_t steps = xs.at(batch_major ? 1 : 0), h = *hidden;
  if (!webnn_lstm_fits(c, steps, h)) return lstm_unrolled(c);
  const std::string dir = webnn_direction(c);
  const int64_t dirs = dir == "both" ? 2 : 1;
  std::vector<std::pair<std::string, RawValue>> named = {{"direction", RawValue::Name{dir}},
                                                         {"returnSequence", c.wants_output(0)},
                                                         {"layout", RawValue::Name{"iofg"}}};
  if (c.has_input(3)) {
    auto [b, rb] = split_bias(c, 3, 4 * h);
    named.emplace_back("bias", b);
    named.emplace_back("recurrentBias", rb);
  }
  if (c.has_input(5)) named.emplace_back("initialHiddenState", state_input(c, 5, batch_major));
  if (c.has_input(6)) named.emplace_back("initialCellState", state_input(c, 6, batch_major));
  if (c.has_input(7)) named.emplace_back("peepholeWeight", c.in(7));
  if (auto acts = activations(c, 3, size_t(dirs))) {
    std::vector<RawValue> list;
    for (auto& a : *acts) list.push_back(RawValue::Name{a});
    named.emplace_back("activations", RawValue(list));
  }
  auto outs = c.b().add(K::kLstm, {sequence_input(c, batch_major), c.in(1), c.in(2), steps, h},
                        std::move(named));
  // WebNN: [hidden, cell, sequence?]; ONNX: [Y, Y_h, Y_c].
  if (c.wants_output(0)) set_sequence_output(c, 0, outs.at(2), batch_major);
  set_state_output(c, 1, outs.at(0), batch_major);
  set_state_output(c, 2, outs.at(1), batch_major);
}

void gru(ConvertContext& c) {
  const bool batch_major = c.attr_int("layout", 0) != 0;
  const Shape xs = c.shape(0);
  auto hidden = c.attr_int("hidden_size");
  if (!hidden) c.unsupported("GRU without hidden_size");
  const int64_t steps = xs.at(batch_major ? 1 : 0), h = *hidden;
  common_checks(c, steps);
  const std::string dir = webnn_direction(c);
  const int64_t dirs = dir == "both" ? 2 : 1;
  std::vector<std::pair<std::string, RawValue>> named = {
      {"direction", RawValue::Name{dir}},
      {"returnSequence", c.wants_output(0)},
      {"layout", RawValue::Name{"zrn"}},
      // WebNN's resetAfter applies the reset gate after the recurrent matmul, which is ONNX's
      // linear_before_reset=1; ONNX's default 0 is resetAfter=false.
      {"resetAfter", c.attr_int("linear_before_reset", 0) != 0}};
  if (c.has_input(3)) {
    auto [b, rb] = split_bias(c, 3, 3 * h);
    named.emplace_back("bias", b);
    named.emplace_back("recurrentBias", rb);
  }
  if (c.has_input(5)) named.emplace_back("initialHiddenState", state_input(c, 5, batch_major));
  if (auto acts = activations(c, 2, size_t(dirs))) {
    std::vector<RawValue> list;
    for (auto& a : *acts) list.push_back(RawValue::Name{a});
    named.emplace_back("activations", RawValue(list));
  }
  auto outs = c.b().add(K::kGru, {sequence_input(c, batch_major), c.in(1), c.in(2), steps, h},
                        std::move(named));
  if (c.wants_output(0)) set_sequence_output(c, 0, outs.at(1), batch_major);
  set_state_output(c, 1, outs.at(0), batch_major);
}

}  // namespace

void register_recurrent(std::vector<Converter>& t) {
  t.push_back({"", "LSTM", 7, kMaxOpset, lstm, ConvertKind::kDirect});
  t.push_back({"", "GRU", 7, kMaxOpset, gru, ConvertKind::kDirect});
  t.push_back({"", "RNN", 7, kMaxOpset, rnn_unrolled, ConvertKind::kDecomposed});
}

}  // namespace wnn::onnx::ops
