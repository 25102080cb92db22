#include "wnn/validate/test_faults.h"

#include <cstdlib>
#include <cstring>
#include <string>

#include "wnn/core/builder.h"
#include "wnn/core/error.h"
#include "wnn/core/half.h"
#include "wnn/passes/graph_copy.h"

namespace wnn::validate {

namespace {

constexpr const char* kFaults = "scale-weights, pad-off-by-one, drop-epsilon, transpose-filter";

// The node to fault: the first of `eligible` in graph order, or the producer of `target`.
template <typename Eligible>
size_t pick_node(const Graph& g, const std::string& fault, const std::string& target,
                 Eligible eligible) {
  for (size_t i = 0; i < g.nodes().size(); ++i) {
    const Node& n = g.nodes()[i];
    const bool named = target.empty() || g.name_of(n.outputs.at(0)) == target;
    if (named && eligible(n)) return i;
  }
  fail("WNN_VALIDATE_TEST_FAULT={}: no eligible node{}", fault,
       target.empty() ? "" : " produces '" + target + "'");
}

size_t param_index(const Node& n, std::string_view name) {
  const auto i = n.attrs.schema().find_param(name);
  check_internal(i.has_value(), "{} has no parameter {}", n.attrs.schema().name, name);
  return *i;
}

// `g` rebuilt with node `index` replaced by `replacement` (same inputs and outputs).
Graph with_node(const Graph& g, size_t index, const Node& replacement) {
  Graph out;
  GraphBuilder b(out);
  std::vector<OperandId> map =
      passes::copy_inputs_and_constants(g, std::vector<bool>(g.operands().size(), true), b);
  for (size_t i = 0; i < g.nodes().size(); ++i) {
    const Node& n = i == index ? replacement : g.nodes()[i];
    const auto ids = passes::copy_node(g, n, map, b);
    for (size_t k = 0; k < ids.size(); ++k) map[n.outputs[k].index] = ids[k];
  }
  for (OperandId id : g.outputs()) b.output(map[id.index]);
  return out;
}

const ConstantInfo* float_weights(const Graph& g, OperandId id) {
  const ConstantInfo* c = g.constant_of(id);
  if (!c || c->init != ConstantInitKind::kWeights || g.desc(id).dtype != DataType::kFloat32 ||
      c->data.size() == 0) {
    return nullptr;
  }
  return c;
}

size_t constant_index(const Graph& g, const ConstantInfo* c) {
  return size_t(c - g.constants().data());
}

// The first float32 or float16 weights (a float16 model's are float16), w -> 1.25 w + 0.01.
void scale_weights(Graph& g) {
  for (size_t i = 0; i < g.constants().size(); ++i) {
    const ConstantInfo& c = g.constants()[i];
    const DataType dtype = g.desc(c.id).dtype;
    if (c.init != ConstantInitKind::kWeights || c.data.size() == 0 ||
        (dtype != DataType::kFloat32 && dtype != DataType::kFloat16)) {
      continue;
    }
    Buffer copy = Buffer::copy_of(c.data.bytes());
    if (dtype == DataType::kFloat32) {
      float* f = reinterpret_cast<float*>(copy.mutable_data());
      for (size_t k = 0; k < copy.size() / sizeof(float); ++k) f[k] = f[k] * 1.25f + 0.01f;
    } else {
      uint16_t* h = reinterpret_cast<uint16_t*>(copy.mutable_data());
      for (size_t k = 0; k < copy.size() / sizeof(uint16_t); ++k) {
        h[k] = float_to_half(half_to_float(h[k]) * 1.25f + 0.01f);
      }
    }
    g.bind_constant(i, std::move(copy));
    return;
  }
  fail("WNN_VALIDATE_TEST_FAULT=scale-weights: the graph has no float32 or float16 weights");
}

// The positions of H and W in a conv2d filter layout ("oihw", "hwio", ...).
std::pair<size_t, size_t> filter_hw(const std::string& layout) {
  const std::string l = layout.empty() ? "oihw" : layout;
  return {l.find('h'), l.find('w')};
}

void transpose_filter(Graph& g, const std::string& target) {
  auto square_filter = [&](const Node& n) {
    if (n.op() != OpKind::kConv2d || !float_weights(g, n.inputs.at(1))) return false;
    const Shape& s = g.desc(n.inputs[1]).shape;
    const auto [h, w] = filter_hw(n.attrs.get_enum("filterLayout"));
    return s.size() == 4 && s[h] == s[w] && s[h] > 1;
  };
  const Node& n = g.nodes()[pick_node(g, "transpose-filter", target, square_filter)];
  const ConstantInfo* c = float_weights(g, n.inputs[1]);
  const Shape& s = g.desc(n.inputs[1]).shape;
  const auto [h, w] = filter_hw(n.attrs.get_enum("filterLayout"));
  const float* from = reinterpret_cast<const float*>(c->data.data());
  Buffer copy = Buffer::allocate(c->data.size());
  float* to = reinterpret_cast<float*>(copy.mutable_data());
  const int64_t strides[4] = {s[1] * s[2] * s[3], s[2] * s[3], s[3], 1};
  int64_t idx[4];
  for (idx[0] = 0; idx[0] < s[0]; ++idx[0]) {
    for (idx[1] = 0; idx[1] < s[1]; ++idx[1]) {
      for (idx[2] = 0; idx[2] < s[2]; ++idx[2]) {
        for (idx[3] = 0; idx[3] < s[3]; ++idx[3]) {
          int64_t src = 0, dst = 0;
          for (size_t k = 0; k < 4; ++k) {
            src += idx[k] * strides[k];
            const size_t swapped = k == h ? w : k == w ? h : k;
            dst += idx[swapped] * strides[k];
          }
          to[dst] = from[src];
        }
      }
    }
  }
  g.bind_constant(constant_index(g, c), std::move(copy));
}

void pad_off_by_one(Graph& g, const std::string& target) {
  const size_t i = pick_node(g, "pad-off-by-one", target, [](const Node& n) {
    return n.op() == OpKind::kConv2d && n.attrs.get_ints("padding").size() == 4 &&
           n.attrs.get_ints("padding")[1] >= 1;
  });
  Node faulty = g.nodes()[i];
  IntList p = faulty.attrs.get_ints("padding");
  p[0] += 1;
  p[1] -= 1;
  faulty.attrs.set(param_index(faulty, "padding"), p);
  g = with_node(g, i, faulty);
}

void drop_epsilon(Graph& g, const std::string& target) {
  const size_t i = pick_node(g, "drop-epsilon", target, [](const Node& n) {
    return n.op() == OpKind::kBatchNormalization || n.op() == OpKind::kInstanceNormalization ||
           n.op() == OpKind::kLayerNormalization;
  });
  Node faulty = g.nodes()[i];
  faulty.attrs.set(param_index(faulty, "epsilon"), 0.0);
  g = with_node(g, i, faulty);
}

}  // namespace

void apply_test_fault(Graph& graph) {
  const char* env = std::getenv("WNN_VALIDATE_TEST_FAULT");
  if (!env || !*env) return;
  const std::string spec = env;
  const size_t at = spec.find('@');
  const std::string fault = spec.substr(0, at);
  const std::string target = at == std::string::npos ? "" : spec.substr(at + 1);
  if (fault == "scale-weights" && target.empty()) return scale_weights(graph);
  if (fault == "transpose-filter") return transpose_filter(graph, target);
  if (fault == "pad-off-by-one") return pad_off_by_one(graph, target);
  if (fault == "drop-epsilon") return drop_epsilon(graph, target);
  fail(
      "WNN_VALIDATE_TEST_FAULT='{}': expected one of {} (optionally @OPERAND, not for "
      "scale-weights)",
      spec, kFaults);
}

}  // namespace wnn::validate
