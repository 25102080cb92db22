// LSTM and GRU over whole sequences. ONNX's LSTM gate order i,o,f,c is WebNN's "iofg" layout
// and GRU's z,r,h is "zrn"; ONNX's B holds the input and recurrent biases back to back.
#include <algorithm>

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
  if (c.attr_int("layout", 0) != 0) c.unsupported("layout=1 (batch-major)");
  if (c.has_input(4)) {
    for (int64_t len : c.known_ints(4, "sequence_lens")) {
      if (len != steps) c.unsupported("sequence_lens {} shorter than the sequence {}", len, steps);
    }
  }
}

// Splits ONNX B [dirs, 2*G*hidden] into WebNN bias and recurrentBias.
std::pair<OperandId, OperandId> split_bias(ConvertContext& c, size_t i, int64_t width) {
  auto parts = c.b().add(K::kSplit, {c.in(i), RawValue(IntList{width, width})}, {{"axis", 1}});
  return {parts[0], parts[1]};
}

void lstm(ConvertContext& c) {
  const Shape xs = c.shape(0);
  auto hidden = c.attr_int("hidden_size");
  if (!hidden) c.unsupported("LSTM without hidden_size");
  const int64_t steps = xs.at(0), h = *hidden;
  common_checks(c, steps);
  if (c.attr_int("input_forget", 0) != 0) c.unsupported("input_forget=1");
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
  if (c.has_input(5)) named.emplace_back("initialHiddenState", c.in(5));
  if (c.has_input(6)) named.emplace_back("initialCellState", c.in(6));
  if (c.has_input(7)) {
    // ONNX's output gate peeps at the new cell state, WebNN's at the previous one: the two
    // agree only when the output-gate peephole weights are zero.
    const Tensor* p = c.known(7);
    if (!p) c.unsupported("run-time peephole weights");
    for (int64_t d = 0; d < p->shape.at(0); ++d) {
      for (int64_t j = 0; j < h; ++j) {
        if (element_as_double(p->view(), d * 3 * h + h + j) != 0) {
          c.unsupported(
              "a non-zero output-gate peephole (WebNN's lstm applies it to the "
              "previous cell state, ONNX to the new one)");
        }
      }
    }
    named.emplace_back("peepholeWeight", c.in(7));
  }
  if (auto acts = activations(c, 3, size_t(dirs))) {
    std::vector<RawValue> list;
    for (auto& a : *acts) list.push_back(RawValue::Name{a});
    named.emplace_back("activations", RawValue(list));
  }
  auto outs = c.b().add(K::kLstm, {c.in(0), c.in(1), c.in(2), steps, h}, std::move(named));
  // WebNN: [hidden, cell, sequence?]; ONNX: [Y, Y_h, Y_c].
  if (c.wants_output(0)) c.set(0, outs.at(2));
  c.set(1, outs.at(0));
  c.set(2, outs.at(1));
}

void gru(ConvertContext& c) {
  const Shape xs = c.shape(0);
  auto hidden = c.attr_int("hidden_size");
  if (!hidden) c.unsupported("GRU without hidden_size");
  const int64_t steps = xs.at(0), h = *hidden;
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
  if (c.has_input(5)) named.emplace_back("initialHiddenState", c.in(5));
  if (auto acts = activations(c, 2, size_t(dirs))) {
    std::vector<RawValue> list;
    for (auto& a : *acts) list.push_back(RawValue::Name{a});
    named.emplace_back("activations", RawValue(list));
  }
  auto outs = c.b().add(K::kGru, {c.in(0), c.in(1), c.in(2), steps, h}, std::move(named));
  if (c.wants_output(0)) c.set(0, outs.at(1));
  c.set(1, outs.at(0));
}

}  // namespace

void register_recurrent(std::vector<Converter>& t) {
  t.push_back({"", "LSTM", 7, kMaxOpset, lstm, ConvertKind::kDirect});
  t.push_back({"", "GRU", 7, kMaxOpset, gru, ConvertKind::kDirect});
}

}  // namespace wnn::onnx::ops
