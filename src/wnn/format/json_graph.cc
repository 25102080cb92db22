// The JSON form of a graph (webnn-graph-json), read and written through GraphBuilder like the
// text form. Node `inputs` list the positional operands flat, as webnn-graph writes them (an
// operand list such as concat's is spread out; a nested array is read too). Every parameter
// that is not an operand goes in `options`, operands in options by name. Floats that JSON
// cannot hold are written as the strings "inf", "-inf" and "nan".
#include <cmath>
#include <nlohmann/json.hpp>

#include "wnn/core/builder.h"
#include "wnn/core/error.h"
#include "wnn/format/bounded_json.h"
#include "wnn/format/graph_file.h"
#include "wnn/format/ordered_json_reader.h"
#include "wnn/format/param_spelling.h"

namespace wnn::format {

namespace {

// ordered_json keeps object members in document order: declaration order is kept.
using json = nlohmann::ordered_json;
using ordered_json = nlohmann::ordered_json;

// Deeper JSON than this is rejected while parsing, before any recursive walk sees it.
constexpr int kMaxJsonDepth = 64;

// ---------------------------------------------------------------- writing

ordered_json float_json(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d < 0 ? "-inf" : "inf";
  return d;
}

ordered_json value_json(const Graph& g, const Value& v) {
  return std::visit(
      [&](const auto& x) -> ordered_json {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return nullptr;
        } else if constexpr (std::is_same_v<T, double>) {
          return float_json(x);
        } else if constexpr (std::is_same_v<T, FloatList>) {
          ordered_json a = ordered_json::array();
          for (double d : x) a.push_back(float_json(d));
          return a;
        } else if constexpr (std::is_same_v<T, DataType>) {
          return std::string(dtype_name(x));
        } else if constexpr (std::is_same_v<T, OperandId>) {
          return g.name_of(x);
        } else if constexpr (std::is_same_v<T, OperandList>) {
          ordered_json a = ordered_json::array();
          for (OperandId id : x) a.push_back(g.name_of(id));
          return a;
        } else {
          return x;
        }
      },
      v);
}

ordered_json desc_json(const OperandDesc& d, const std::vector<std::optional<DynamicDim>>& dyn) {
  ordered_json shape = ordered_json::array();
  for (size_t i = 0; i < d.shape.size(); ++i) {
    if (i < dyn.size() && dyn[i]) {
      shape.push_back({{"name", dyn[i]->name}, {"maxSize", dyn[i]->max}});
    } else {
      shape.push_back(d.shape[i]);
    }
  }
  return {{"dataType", std::string(dtype_name(d.dtype))}, {"shape", std::move(shape)}};
}

ordered_json node_json(const Graph& g, const Node& n) {
  const OpSchema& s = n.attrs.schema();
  ordered_json inputs = ordered_json::array();
  ordered_json options = ordered_json::object();
  for (size_t i = 0; i < s.num_params(); ++i) {
    const Value& v = n.attrs.at(i);
    if (std::holds_alternative<std::monostate>(v)) continue;
    const ParamSpec& p = s.param(i);
    if (i < s.args.size() && p.kind == ParamKind::kOperand) {
      inputs.push_back(g.name_of(std::get<OperandId>(v)));
    } else if (i < s.args.size() && p.kind == ParamKind::kOperandList) {
      for (OperandId id : std::get<OperandList>(v)) inputs.push_back(g.name_of(id));
    } else {
      options[std::string(file_param_name(s.name, p.name))] = value_json(g, v);
    }
  }
  ordered_json outputs = nullptr;
  if (n.outputs.size() != 1) {
    outputs = ordered_json::array();
    for (OperandId id : n.outputs) outputs.push_back(g.name_of(id));
  }
  return {{"id", g.name_of(n.outputs.empty() ? OperandId{} : n.outputs[0])},
          {"op", std::string(s.name)},
          {"inputs", std::move(inputs)},
          {"options", std::move(options)},
          {"outputs", std::move(outputs)}};
}

// ---------------------------------------------------------------- reading

RawValue raw_from_json(const json& j) {
  switch (j.type()) {
    case json::value_t::null:
      return RawValue();
    case json::value_t::boolean:
      return RawValue(j.get<bool>());
    case json::value_t::number_integer:
      return RawValue(j.get<int64_t>());
    case json::value_t::number_unsigned: {
      const uint64_t u = j.get<uint64_t>();
      check(u <= uint64_t(INT64_MAX), "integer {} does not fit in 64 bits", u);
      return RawValue(int64_t(u));
    }
    case json::value_t::number_float:
      return RawValue(j.get<double>());
    case json::value_t::string:
      return RawValue(j.get<std::string>());
    case json::value_t::array: {
      RawValue::List list;
      for (const auto& item : j) list.push_back(raw_from_json(item));
      return RawValue(std::move(list));
    }
    case json::value_t::object: {
      RawValue::Object object;
      for (const auto& [k, item] : j.items()) object.emplace_back(k, raw_from_json(item));
      return RawValue(std::move(object));
    }
    default:
      fail("unsupported JSON value");
  }
}

const json& member(const json& obj, const char* key, json::value_t type, const std::string& where) {
  check(obj.is_object(), "{}: expected an object", where);
  const auto it = obj.find(key);
  check(it != obj.end(), "{}: missing \"{}\"", where, key);
  const bool ok =
      it->type() == type || (type == json::value_t::number_integer && it->is_number_integer());
  check(ok, "{}: \"{}\" has the wrong type ({})", where, key, it->type_name());
  return *it;
}

int64_t json_int(const json& j, const std::string& where) {
  check(j.is_number_integer(), "{}: expected an integer, got {}", where, j.dump());
  if (j.is_number_unsigned()) {
    check(j.get<uint64_t>() <= uint64_t(INT64_MAX), "{}: integer {} does not fit in 64 bits", where,
          j.dump());
  }
  return j.get<int64_t>();
}

struct JsonType {
  OperandDesc desc;
  std::vector<std::optional<DynamicDim>> dyn;
};

JsonType read_type(const json& j, const std::string& where, bool allow_dynamic) {
  JsonType t;
  const auto& dt = member(j, "dataType", json::value_t::string, where);
  const auto parsed = parse_dtype(dt.get<std::string>());
  check(parsed.has_value(), "{}: unknown dataType '{}'", where, dt.get<std::string>());
  t.desc.dtype = *parsed;
  const auto& shape = member(j, "shape", json::value_t::array, where);
  bool any_dynamic = false;
  for (const auto& d : shape) {
    if (d.is_object()) {
      check(allow_dynamic, "{}: dynamic dims are allowed on inputs only", where);
      const auto& name = member(d, "name", json::value_t::string, where);
      const int64_t max =
          json_int(member(d, "maxSize", json::value_t::number_integer, where), where);
      check(max >= 1, "{}: dynamic dim '{}' needs a maxSize of at least 1", where,
            name.get<std::string>());
      t.desc.shape.push_back(max);
      t.dyn.push_back(DynamicDim{name.get<std::string>(), max});
      any_dynamic = true;
    } else {
      const int64_t v = json_int(d, where);
      check(v >= 0, "{}: dimension {} is negative", where, v);
      t.desc.shape.push_back(v);
      t.dyn.emplace_back();
    }
  }
  if (!any_dynamic) t.dyn.clear();
  return t;
}

void read_constant(GraphBuilder& b, const std::string& name, const json& j,
                   const std::string& where) {
  JsonType t = read_type(j, where, false);
  const auto it = j.find("init");
  if (it == j.end() || it->is_null()) {
    with_error_context(
        where, [&] { b.constant(name, std::move(t.desc), ConstantInitKind::kWeights, name); });
    return;
  }
  const auto& kind = member(*it, "kind", json::value_t::string, where);
  const std::string k = kind.get<std::string>();
  if (k == "weights") {
    const auto ref = it->find("ref");
    std::string key = name;
    if (ref != it->end()) {
      check(ref->is_string(), "{}: init.ref must be a string", where);
      key = ref->get<std::string>();
    }
    with_error_context(where, [&] {
      b.constant(name, std::move(t.desc), ConstantInitKind::kWeights, std::move(key));
    });
  } else if (k == "scalar") {
    const auto vit = it->find("value");
    check(vit != it->end(), "{}: scalar init needs a \"value\"", where);
    Value scalar;
    if (vit->is_number_integer()) {
      scalar = json_int(*vit, where);
    } else if (vit->is_number_float()) {
      scalar = vit->get<double>();
    } else if (vit->is_string()) {
      const std::string s = vit->get<std::string>();
      if (s == "inf" || s == "Infinity") scalar = std::numeric_limits<double>::infinity();
      if (s == "-inf" || s == "-Infinity") scalar = -std::numeric_limits<double>::infinity();
      if (s == "nan" || s == "NaN") scalar = std::numeric_limits<double>::quiet_NaN();
    }
    check(!std::holds_alternative<std::monostate>(scalar), "{}: scalar value {} is not a number",
          where, vit->dump());
    with_error_context(where, [&] {
      b.constant(name, std::move(t.desc), ConstantInitKind::kScalar, {}, std::move(scalar));
    });
  } else if (k == "inlineBytes") {
    const auto& bytes = member(*it, "bytes", json::value_t::array, where);
    std::vector<uint8_t> data;
    for (const auto& v : bytes) {
      const int64_t x = json_int(v, where);
      check(x >= 0 && x <= 255, "{}: inline byte {} is not in 0..255", where, x);
      data.push_back(uint8_t(x));
    }
    with_error_context(where, [&] {
      b.constant(name, std::move(t.desc), ConstantInitKind::kBytes, {}, {}, std::move(data));
    });
  } else {
    fail("{}: unknown init kind '{}' (expected weights, scalar or inlineBytes)", where, k);
  }
}

// Maps the flat `inputs` onto the operator's positional operand parameters.
std::vector<RawValue> positional_operands(const OpSchema* schema, const json& inputs,
                                          const std::string& where) {
  std::vector<RawValue> items;
  for (const auto& in : inputs) {
    check(in.is_string() || in.is_array(), "{}: inputs hold operand names, got {}", where,
          in.dump());
    items.push_back(raw_from_json(in));
  }
  if (schema == nullptr) return items;  // the builder names the unknown operator
  size_t operand_slots = 0;
  std::optional<size_t> list_slot;
  for (size_t i = 0; i < schema->args.size(); ++i) {
    if (schema->args[i].kind == ParamKind::kOperand) ++operand_slots;
    if (schema->args[i].kind == ParamKind::kOperandList) list_slot = operand_slots++;
  }
  const bool nested = std::any_of(items.begin(), items.end(), [](const RawValue& r) {
    return std::holds_alternative<RawValue::List>(r.v);
  });
  if (!list_slot || nested) return items;
  // Spread list: the list takes what the single operands before and after it leave.
  const size_t singles = operand_slots - 1;
  check(items.size() >= singles, "{}: {} needs at least {} inputs, got {}", where, schema->name,
        singles, items.size());
  const size_t list_size = items.size() - singles;
  std::vector<RawValue> out(items.begin(), items.begin() + long(*list_slot));
  out.emplace_back(RawValue::List(items.begin() + long(*list_slot),
                                  items.begin() + long(*list_slot + list_size)));
  out.insert(out.end(), items.begin() + long(*list_slot + list_size), items.end());
  return out;
}

void read_node(GraphBuilder& b, const json& j, const std::string& where) {
  const auto& op = member(j, "op", json::value_t::string, where);
  Call call;
  call.op = op.get<std::string>();
  const auto outputs = j.find("outputs");
  if (outputs != j.end() && !outputs->is_null()) {
    check(outputs->is_array(), "{}: \"outputs\" must be null or a list of names", where);
    for (const auto& o : *outputs) {
      check(o.is_string(), "{}: output names are strings, got {}", where, o.dump());
      call.outputs.push_back(o.get<std::string>());
    }
  } else {
    call.outputs.push_back(member(j, "id", json::value_t::string, where).get<std::string>());
  }
  const std::string label =
      fmt::format("{}: node '{}'", where, call.outputs.empty() ? "" : call.outputs[0]);
  const auto inputs = j.find("inputs");
  if (inputs != j.end() && !inputs->is_null()) {
    check(inputs->is_array(), "{}: \"inputs\" must be a list", label);
    for (auto& v : positional_operands(find_schema(call.op), *inputs, label)) {
      call.args.push_back({"", std::move(v), label + ": inputs"});
    }
  }
  const auto options = j.find("options");
  if (options != j.end() && !options->is_null()) {
    check(options->is_object(), "{}: \"options\" must be an object", label);
    for (const auto& [key, value] : options->items()) {
      std::string name = table_param_name(call.op, key);
      call.args.push_back({name, raw_from_json(value), fmt::format("{}: options.{}", label, key)});
    }
  }
  with_error_context(label, [&] { b.add(call); });
}

// Refuses documents nested deeper than kMaxJsonDepth before parsing them, and parses in
// linear time (see ordered_json_reader.h).
json parse_bounded(std::string_view text, const std::string& filename) {
  check_json_structure(text, kMaxJsonDepth, filename);
  try {
    return parse_ordered_json(text, filename);
  } catch (const json::parse_error& e) {
    // Turn nlohmann's byte offset into line:col.
    const size_t at = std::min<size_t>(e.byte == 0 ? 0 : e.byte - 1, text.size());
    size_t line = 1, col = 1;
    for (size_t i = 0; i < at; ++i) {
      if (text[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    std::string what = e.what();
    const auto cut = what.find("parse error");
    fail("{}:{}:{}: invalid JSON: {}", filename, line, col,
         cut == std::string::npos ? what : what.substr(cut));
  }
}

}  // namespace

Graph parse_json(std::string_view text, const std::string& filename) {
  const json doc = parse_bounded(text, filename);
  check(doc.is_object(), "{}: a webnn-graph-json file is an object", filename);
  const auto format = doc.find("format");
  check(format != doc.end() && format->is_string() &&
            format->get<std::string>() == "webnn-graph-json",
        "{}: \"format\" must be \"webnn-graph-json\"", filename);
  const auto version = doc.find("version");
  if (version != doc.end()) {
    check(version->is_number_integer() && (*version == 1 || *version == 2),
          "{}: unsupported version {} (wnn reads 1 and 2)", filename, version->dump());
  }
  Graph graph;
  if (const auto name = doc.find("name"); name != doc.end() && name->is_string()) {
    graph.name = name->get<std::string>();
  }
  if (const auto q = doc.find("quantized"); q != doc.end() && !q->is_null()) {
    check(q->is_boolean(), "{}: \"quantized\" must be true or false", filename);
    graph.quantized = q->get<bool>();
  }
  GraphBuilder b(graph);
  if (const auto in = doc.find("inputs"); in != doc.end() && !in->is_null()) {
    check(in->is_object(), "{}: \"inputs\" must be an object", filename);
    for (const auto& [key, desc] : in->items()) {
      const std::string& name = key;  // clang 14 cannot capture a structured binding
      const std::string where = fmt::format("{}: input '{}'", filename, name);
      JsonType t = read_type(desc, where, true);
      with_error_context(where, [&] { b.input(name, std::move(t.desc), std::move(t.dyn)); });
    }
  }
  if (const auto cs = doc.find("consts"); cs != doc.end() && !cs->is_null()) {
    check(cs->is_object(), "{}: \"consts\" must be an object", filename);
    for (const auto& [name, desc] : cs->items()) {
      read_constant(b, name, desc, fmt::format("{}: const '{}'", filename, name));
    }
  }
  if (const auto nodes = doc.find("nodes"); nodes != doc.end() && !nodes->is_null()) {
    check(nodes->is_array(), "{}: \"nodes\" must be a list", filename);
    for (size_t i = 0; i < nodes->size(); ++i) {
      read_node(b, (*nodes)[i], fmt::format("{}: nodes[{}]", filename, i));
    }
  }
  if (const auto outs = doc.find("outputs"); outs != doc.end() && !outs->is_null()) {
    check(outs->is_object(), "{}: \"outputs\" must be an object {{\"name\": \"operand\"}}",
          filename);
    for (const auto& [key, operand] : outs->items()) {
      const std::string& out_name = key;  // clang 14 cannot capture a structured binding
      const std::string where = fmt::format("{}: outputs.{}", filename, out_name);
      check(operand.is_string(), "{}: expected an operand name, got {}", where, operand.dump());
      const std::string target = operand.get<std::string>();
      with_error_context(where, [&] {
        if (out_name == target) {
          b.output(target);
          return;
        }
        // A renamed output becomes an identity node carrying the output's name.
        check(graph.find(target).has_value(), "output '{}' names nothing defined in the graph",
              target);
        b.output(b.add1(OpKind::kIdentity, {RawValue::Name{target}}, {}, out_name));
      });
    }
  }
  check(!graph.outputs().empty(), "{}: the graph has no outputs", filename);
  return graph;
}

std::string print_json(const Graph& graph) {
  ordered_json doc;
  doc["format"] = "webnn-graph-json";
  doc["version"] = graph.has_dynamic_inputs() ? 2 : 1;
  doc["name"] = graph.name;
  doc["quantized"] = graph.quantized;
  ordered_json inputs = ordered_json::object();
  for (const auto& in : graph.inputs()) {
    inputs[graph.name_of(in.id)] = desc_json(graph.desc(in.id), in.dynamic_dims);
  }
  doc["inputs"] = std::move(inputs);
  ordered_json consts = ordered_json::object();
  for (const auto& c : graph.constants()) {
    ordered_json entry = desc_json(graph.desc(c.id), {});
    switch (c.init) {
      case ConstantInitKind::kWeights:
        entry["init"] = {{"kind", "weights"}, {"ref", c.key}};
        break;
      case ConstantInitKind::kScalar:
        entry["init"] = {{"kind", "scalar"},
                         {"value", std::holds_alternative<int64_t>(c.scalar)
                                       ? ordered_json(std::get<int64_t>(c.scalar))
                                       : float_json(std::get<double>(c.scalar))}};
        break;
      case ConstantInitKind::kBytes:
        entry["init"] = {{"kind", "inlineBytes"}, {"bytes", c.bytes}};
        break;
    }
    consts[graph.name_of(c.id)] = std::move(entry);
  }
  doc["consts"] = std::move(consts);
  ordered_json nodes = ordered_json::array();
  for (const auto& n : graph.nodes()) nodes.push_back(node_json(graph, n));
  doc["nodes"] = std::move(nodes);
  ordered_json outputs = ordered_json::object();
  for (OperandId id : graph.outputs()) outputs[graph.name_of(id)] = graph.name_of(id);
  doc["outputs"] = std::move(outputs);
  try {
    return doc.dump(2) + "\n";
  } catch (const nlohmann::json::exception& e) {
    // A graph built in code may hold a string JSON cannot: not UTF-8.
    fail("cannot write the graph as JSON: {}", e.what());
  }
}

}  // namespace wnn::format
