#include "wnn/validate/model_inputs.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>

#include "wnn/runtime/inputs.h"

namespace wnn::validate {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

template <typename Fn>
Tensor filled(const OperandDesc& desc, Fn value_at) {
  Tensor t = Tensor::zeros(desc.dtype, desc.shape);
  const TensorView v = t.mutable_view();
  for (int64_t i = 0; i < t.size(); ++i) store_double(v, i, value_at(i));
  return t;
}

// Shape-preserving or reshaping nodes an index tensor may pass through before its Gather.
bool passes_indices_through(const onnx::NodeProto& n) {
  static const std::set<std::string> kOps = {"Cast",    "Reshape", "Unsqueeze",
                                             "Squeeze", "Flatten", "Identity"};
  return (n.domain.empty() || n.domain == "ai.onnx") && kOps.count(n.op_type) > 0;
}

std::optional<std::vector<int64_t>> constant_dims(const onnx::GraphProto& g,
                                                  const std::string& value) {
  for (const auto& init : g.initializer) {
    if (init.name == value) return init.dims;
  }
  for (const auto& n : g.node) {
    if (n.op_type == "Constant" && n.output.size() == 1 && n.output[0] == value) {
      if (const auto* a = n.find_attribute("value"); a && a->t) return a->t->dims;
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<int64_t> embedding_rows(const onnx::ModelProto& model, const std::string& name) {
  const onnx::GraphProto& g = model.graph;
  std::set<std::string> values = {name};
  // Follow pass-through nodes to a fixed point (the node list is topologically ordered, but a
  // second sweep costs nothing and tolerates unordered files).
  for (int sweep = 0; sweep < 2; ++sweep) {
    for (const auto& n : g.node) {
      if (passes_indices_through(n) && !n.input.empty() && values.count(n.input[0])) {
        values.insert(n.output.begin(), n.output.end());
      }
    }
  }
  for (const auto& n : g.node) {
    if (n.op_type != "Gather" || !(n.domain.empty() || n.domain == "ai.onnx")) continue;
    if (n.input.size() < 2 || !values.count(n.input[1])) continue;
    const auto dims = constant_dims(g, n.input[0]);
    if (!dims || dims->empty()) continue;
    int64_t axis = 0;
    if (const auto* a = n.find_attribute("axis")) axis = a->i;
    if (axis < 0) axis += int64_t(dims->size());
    if (axis < 0 || axis >= int64_t(dims->size())) continue;
    return (*dims)[size_t(axis)];
  }
  return std::nullopt;
}

GeneratedInput generate_input(const onnx::ModelProto& model, const std::string& name,
                              const OperandDesc& desc, bool onnx_bool) {
  const std::string key = lower(name);
  const bool is_float_input = is_float(desc.dtype);
  if (onnx_bool) {
    return {filled(desc, [](int64_t i) { return double(i % 2 == 0); }), "bool alternating 1, 0"};
  }
  if (key.find("past_key_values") != std::string::npos || key.rfind("past_key", 0) == 0 ||
      key.rfind("past_value", 0) == 0 || key.rfind("past.", 0) == 0) {
    return {Tensor::zeros(desc.dtype, desc.shape), "past key/values: zeros"};
  }
  if (ends_with(key, "attention_mask")) {
    return {filled(desc, [](int64_t) { return 1.0; }), "attention mask: ones"};
  }
  if (ends_with(key, "token_type_ids")) {
    return {Tensor::zeros(desc.dtype, desc.shape), "token type ids: zeros"};
  }
  if (ends_with(key, "position_ids") && !is_float_input) {
    const int64_t last = desc.shape.empty() ? 1 : std::max<int64_t>(desc.shape.back(), 1);
    return {filled(desc, [last](int64_t i) { return double(i % last); }),
            "position ids: arange along the last dimension"};
  }
  if (!is_float_input) {
    if (const auto rows = embedding_rows(model, name); rows && *rows > 0) {
      uint64_t state = runtime::seed_for_name(name, 0);
      const int64_t vocab = *rows;
      return {filled(desc,
                     [&](int64_t) { return double(runtime::splitmix64(state) % uint64_t(vocab)); }),
              fmt::format("token ids in [0, {}) (rows of the Gather table)", vocab)};
    }
  }
  if (!is_float_input && ends_with(key, "input_ids")) {
    uint64_t state = runtime::seed_for_name(name, 0);
    return {filled(desc, [&](int64_t) { return double(runtime::splitmix64(state) % 16); }),
            "token ids in [0, 16) (no Gather table found)"};
  }
  Tensor t = runtime::deterministic_tensor(desc, name, 0);
  if (is_float_input && (key.find("pixel_values") != std::string::npos || desc.shape.size() == 4)) {
    return {std::move(t), "image: multiples of 1/64 in [-1, 1)"};
  }
  if (is_float_input) return {std::move(t), "float: multiples of 1/64 in [-1, 1)"};
  return {std::move(t), is_signed(desc.dtype) ? "integer in [-8, 8)" : "integer in [0, 16)"};
}

}  // namespace wnn::validate
