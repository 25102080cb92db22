#include <fmt/format.h>

#include <map>

#include "wnn/core/ops/describe.h"
#include "wnn/view/page_data.h"

namespace wnn::view::detail {

namespace {

bool is_operand_kind(ParamKind k) {
  return k == ParamKind::kOperand || k == ParamKind::kOperandList;
}

// Every option of `s` with how its default reads, in the table's order: the page lists them
// all for each node of the op, greying those the node does not give.
ordered_json op_entry(const OpSchema& s) {
  ordered_json options = ordered_json::array();
  for (const ParamSpec& p : s.options) {
    options.push_back({std::string(p.name), default_text(p), is_operand_kind(p.kind)});
  }
  return {{"doc", std::string(s.doc)}, {"options", options}};
}

std::string value_text(const Graph& g, const Value& v) {
  if (const auto* id = std::get_if<OperandId>(&v)) return g.name_of(*id);
  if (const auto* list = std::get_if<OperandList>(&v)) {
    std::vector<std::string> names;
    for (OperandId id : *list) names.push_back(g.name_of(id));
    return fmt::format("[{}]", fmt::join(names, ", "));
  }
  return value_to_text(v);
}

// [param, operand, type, where it comes from, note]
ordered_json operand_row(const Graph& g, const std::string& param, OperandId id) {
  const Operand& o = g.operand(id);
  std::string from, note;
  switch (o.kind) {
    case OperandKind::kInput:
      from = "graph input";
      break;
    case OperandKind::kConstant: {
      from = "constant";
      const std::string value = constant_value_text(g, id);
      note = value.empty() ? byte_size_text(o.desc.byte_size()) : "= " + value;
      break;
    }
    case OperandKind::kNodeOutput:
      from = fmt::format("node {}", o.producer);
      break;
  }
  return {param, o.name, type_text(o.desc), from, note};
}

ordered_json node_entry(const PageInput& in, uint32_t n) {
  const Graph& g = *in.graph;
  const Node& node = g.nodes()[n];
  const OpSchema& s = node.attrs.schema();
  ordered_json e = {{"op", std::string(s.name)}, {"name", g.name_of(node.outputs[0])}};
  ordered_json inputs = ordered_json::array();
  for (const auto& [param, id] : operand_params(node)) inputs.push_back(operand_row(g, param, id));
  e["in"] = inputs;
  ordered_json outputs = ordered_json::array();
  for (OperandId id : node.outputs) {
    outputs.push_back({g.name_of(id), type_text(g.desc(id)), g.is_output(id)});
  }
  e["out"] = outputs;
  ordered_json args = ordered_json::object(), options = ordered_json::object();
  for (size_t i = 0; i < s.num_params(); ++i) {
    const ParamSpec& p = s.param(i);
    const Value& v = node.attrs.at(i);
    if (std::holds_alternative<std::monostate>(v)) continue;
    if (i < s.args.size()) {
      if (!is_operand_kind(p.kind)) args[std::string(p.name)] = value_text(g, v);
    } else {
      options[std::string(p.name)] = value_text(g, v);
    }
  }
  if (!args.empty()) e["args"] = args;
  e["opt"] = options;
  if (in.source != nullptr) {
    const auto& origin_of = in.source->origin_of;
    const int32_t k = n < origin_of.size() ? origin_of[n] : -1;
    if (k >= 0) {
      const onnx::NodeOrigin& origin = in.source->origins[size_t(k)];
      ordered_json values = ordered_json::array();
      for (const auto& [onnx_name, operand] : origin.outputs)
        values.push_back({onnx_name, operand});
      e["src"] = {{"node", origin.name.empty() ? "(unnamed)" : origin.name},
                  {"op_type", origin.op_type},
                  {"domain", origin.domain.empty() ? "ai.onnx" : origin.domain},
                  {"values", values}};
    } else {
      e["src"] = {
          {"note", "added by the importer (the identity that gives a graph output its name)"}};
    }
  }
  for (const Overlay& o : in.overlays) {
    if (o.nodes[n]) e[o.name] = o.nodes[n]->detail;
  }
  return e;
}

// The ONNX name of a graph input or output, when the import renamed it.
std::string onnx_name(const std::vector<std::pair<std::string, std::string>>& map,
                      const std::string& operand) {
  for (const auto& [onnx, name] : map) {
    if (name == operand) return onnx;
  }
  return {};
}

}  // namespace

ordered_json page_data(const PageInput& in) {
  const Graph& g = *in.graph;
  ordered_json data = {{"title", in.title}, {"graph", g.name}};
  std::map<std::string, ordered_json> ops;
  ordered_json nodes = ordered_json::array();
  for (uint32_t n = 0; n < g.nodes().size(); ++n) {
    const OpSchema& s = g.nodes()[n].attrs.schema();
    if (!ops.count(std::string(s.name))) ops[std::string(s.name)] = op_entry(s);
    nodes.push_back(node_entry(in, n));
  }
  data["ops"] = ops;
  data["nodes"] = nodes;
  ordered_json inputs = ordered_json::array();
  for (const auto& info : g.inputs()) {
    ordered_json e = {{"name", g.name_of(info.id)}, {"type", type_text(g.desc(info.id))}};
    std::vector<std::string> dynamic;
    for (size_t d = 0; d < info.dynamic_dims.size(); ++d) {
      if (info.dynamic_dims[d]) {
        dynamic.push_back(fmt::format("dim {}: {}<={}", d, info.dynamic_dims[d]->name,
                                      info.dynamic_dims[d]->max));
      }
    }
    if (!dynamic.empty()) e["dynamic"] = dynamic;
    if (in.source != nullptr) {
      const std::string onnx = onnx_name(in.source->inputs, g.name_of(info.id));
      if (!onnx.empty()) e["onnx"] = onnx;
    }
    inputs.push_back(e);
  }
  data["inputs"] = inputs;
  ordered_json outputs = ordered_json::array();
  for (size_t i = 0; i < g.outputs().size(); ++i) {
    const OperandId id = g.outputs()[i];
    ordered_json e = {{"name", g.name_of(id)}, {"type", type_text(g.desc(id))}};
    const Operand& o = g.operand(id);
    if (o.kind == OperandKind::kNodeOutput) e["node"] = o.producer;
    if (in.source != nullptr) {
      const std::string onnx = onnx_name(in.source->outputs, g.name_of(id));
      if (!onnx.empty()) e["onnx"] = onnx;
    }
    for (const Overlay& ov : in.overlays) {
      if (i < ov.outputs.size() && ov.outputs[i]) e[ov.name] = ov.outputs[i]->detail;
    }
    outputs.push_back(e);
  }
  data["outputs"] = outputs;
  data["source"] =
      in.source != nullptr
          ? "the ONNX model: each operation shows the ONNX node it came from"
          : "a graph file, which does not record which ONNX node each operation came from: run "
            "wnn view on the .onnx model to see that mapping";
  ordered_json overlays = ordered_json::array();
  for (const Overlay& o : in.overlays) {
    ordered_json legend = ordered_json::array();
    for (const auto& [cls, text] : o.legend) legend.push_back({cls, text});
    overlays.push_back(
        {{"name", o.name}, {"title", o.title}, {"legend", legend}, {"summary", o.summary}});
  }
  data["overlays"] = overlays;
  data["warnings"] = in.warnings;
  const Layout& l = in.scene->layout;
  data["layout"] = {{"boxes", in.scene->boxes.size()},
                    {"layers", l.layers},
                    {"dummies", l.dummies},
                    {"crossings", l.crossings}};
  return data;
}

}  // namespace wnn::view::detail
