#include "wnn/passes/share_values.h"

#include <bit>
#include <map>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include "wnn/passes/graph_copy.h"

namespace wnn::passes {

namespace {

// A node's options with operands replaced by their shared operand and floats by their bits
// (NaN equal to itself, -0 not equal to 0), so that equal keys mean the same computation.
using Key = std::pair<OpKind, std::vector<Value>>;

Value keyed(const Value& v, const std::vector<OperandId>& shared) {
  auto bits = [](double d) { return Value(int64_t(std::bit_cast<uint64_t>(d))); };
  return std::visit(
      [&](const auto& x) -> Value {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, OperandId>) {
          return shared[x.index];
        } else if constexpr (std::is_same_v<T, OperandList>) {
          OperandList ids;
          for (OperandId id : x) ids.push_back(shared[id.index]);
          return ids;
        } else if constexpr (std::is_same_v<T, double>) {
          return IntList{0, std::get<int64_t>(bits(x))};  // tagged: no int64 option collides
        } else if constexpr (std::is_same_v<T, FloatList>) {
          IntList out{1};
          for (double d : x) out.push_back(std::get<int64_t>(bits(d)));
          return out;
        } else {
          return x;
        }
      },
      v);
}

}  // namespace

PatternFusion share_common_values(const Graph& g) {
  const auto operands = g.operands();
  std::vector<OperandId> shared(operands.size());
  for (size_t i = 0; i < operands.size(); ++i) shared[i] = OperandId{uint32_t(i)};
  // Small constants by value: dtype, shape and bytes.
  std::map<std::tuple<DataType, Shape, std::string>, OperandId> constants;
  for (const ConstantInfo& c : g.constants()) {
    if (!c.bound() || c.data.size() > kSharedConstantBytes || g.is_output(c.id)) continue;
    const OperandDesc& d = g.desc(c.id);
    std::string bytes(reinterpret_cast<const char*>(c.data.data()), c.data.size());
    shared[c.id.index] =
        constants.try_emplace({d.dtype, d.shape, std::move(bytes)}, c.id).first->second;
  }
  std::map<Key, size_t> seen;
  std::vector<bool> dropped(g.nodes().size(), false);
  PatternFusion result;
  for (size_t n = 0; n < g.nodes().size(); ++n) {
    const Node& node = g.nodes()[n];
    Key key{node.op(), {}};
    for (size_t i = 0; i < node.attrs.size(); ++i) {
      key.second.push_back(keyed(node.attrs.at(i), shared));
    }
    bool outputs_graph = false;
    for (OperandId out : node.outputs) outputs_graph |= g.is_output(out);
    const auto [it, first] = seen.try_emplace(std::move(key), n);
    if (first || outputs_graph) continue;
    const Node& earlier = g.nodes()[it->second];
    for (size_t i = 0; i < node.outputs.size(); ++i) {
      shared[node.outputs[i].index] = shared[earlier.outputs[i].index];
    }
    dropped[n] = true;
    ++result.fused;
  }
  if (result.fused == 0) {
    result.graph = g;
    return result;
  }
  std::vector<bool> needed(operands.size(), false);
  for (size_t n = 0; n < g.nodes().size(); ++n) {
    if (dropped[n]) continue;
    for (OperandId in : g.nodes()[n].inputs) needed[shared[in.index].index] = true;
  }
  for (OperandId out : g.outputs()) needed[shared[out.index].index] = true;
  GraphBuilder b(result.graph);
  std::vector<OperandId> map = copy_inputs_and_constants(g, needed, b);
  auto mapped = [&](OperandId id) { return map[shared[id.index].index]; };
  for (size_t n = 0; n < g.nodes().size(); ++n) {
    if (dropped[n]) continue;
    const auto outs = copy_node(g, g.nodes()[n], mapped, b);
    for (size_t i = 0; i < outs.size(); ++i) map[g.nodes()[n].outputs[i].index] = outs[i];
  }
  for (OperandId out : g.outputs()) b.output(mapped(out));
  return result;
}

}  // namespace wnn::passes
