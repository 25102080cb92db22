#include "wnn/passes/graph_copy.h"

#include <variant>

namespace wnn::passes {

namespace {

RawValue to_raw(const Value& v, const std::function<OperandId(OperandId)>& map) {
  return std::visit(
      [&](const auto& x) -> RawValue {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return RawValue();
        } else if constexpr (std::is_same_v<T, OperandId>) {
          return RawValue(map(x));
        } else if constexpr (std::is_same_v<T, OperandList>) {
          std::vector<OperandId> ids;
          for (OperandId id : x) ids.push_back(map(id));
          return RawValue(ids);
        } else {
          return RawValue(x);
        }
      },
      v);
}

}  // namespace

std::vector<OperandId> copy_node(const Graph& source, const Node& node,
                                 const std::vector<OperandId>& map, GraphBuilder& builder) {
  return copy_node(
      source, node, [&](OperandId id) { return map.at(id.index); }, builder);
}

std::vector<OperandId> copy_node(const Graph& source, const Node& node,
                                 const std::function<OperandId(OperandId)>& map,
                                 GraphBuilder& builder) {
  const OpSchema& s = node.attrs.schema();
  Call call;
  call.op = std::string(s.name);
  for (size_t i = 0; i < node.attrs.size(); ++i) {
    const Value& v = node.attrs.at(i);
    if (i >= s.args.size() && std::holds_alternative<std::monostate>(v)) continue;
    const std::string name = i < s.args.size() ? std::string() : std::string(s.param(i).name);
    call.args.push_back({name, to_raw(v, map), {}});
  }
  for (OperandId out : node.outputs) call.outputs.push_back(source.name_of(out));
  return builder.add(call);
}

std::vector<OperandId> copy_inputs_and_constants(const Graph& source,
                                                 const std::vector<bool>& needed,
                                                 GraphBuilder& builder) {
  Graph& out = builder.graph();
  out.name = source.name;
  out.quantized = source.quantized;
  std::vector<OperandId> map(source.operands().size());
  for (const InputInfo& in : source.inputs()) {
    map[in.id.index] = builder.input(source.name_of(in.id), source.desc(in.id), in.dynamic_dims);
  }
  for (const ConstantInfo& c : source.constants()) {
    if (!needed[c.id.index]) continue;
    map[c.id.index] = builder.constant(source.name_of(c.id), source.desc(c.id), c.init, c.key,
                                       c.scalar, c.bytes, c.data);
  }
  return map;
}

std::string fresh_name(const Graph& source, const GraphBuilder& builder, const std::string& base) {
  std::string name = builder.unique_name(base);
  for (int k = 1; source.find(name); ++k)
    name = builder.unique_name(base + "_" + std::to_string(k));
  return name;
}

Graph remove_unread_inputs(const Graph& source, std::vector<std::string>& removed) {
  std::vector<bool> read(source.operands().size(), false);
  for (const Node& n : source.nodes()) {
    for (OperandId id : n.inputs) read[id.index] = true;
  }
  for (OperandId id : source.outputs()) read[id.index] = true;
  Graph out;
  GraphBuilder builder(out);
  out.name = source.name;
  out.quantized = source.quantized;
  std::vector<OperandId> map(source.operands().size());
  for (const InputInfo& in : source.inputs()) {
    if (!read[in.id.index]) {
      removed.push_back(source.name_of(in.id));
      continue;
    }
    map[in.id.index] = builder.input(source.name_of(in.id), source.desc(in.id), in.dynamic_dims);
  }
  for (const ConstantInfo& c : source.constants()) {
    map[c.id.index] = builder.constant(source.name_of(c.id), source.desc(c.id), c.init, c.key,
                                       c.scalar, c.bytes, c.data);
  }
  for (const Node& n : source.nodes()) {
    const auto ids = copy_node(source, n, map, builder);
    for (size_t i = 0; i < ids.size(); ++i) map[n.outputs[i].index] = ids[i];
  }
  for (OperandId id : source.outputs()) builder.output(map[id.index]);
  return out;
}

}  // namespace wnn::passes
