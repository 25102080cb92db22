#include "wnn/core/builder.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

#include "wnn/core/error.h"
#include "wnn/core/names.h"

namespace wnn {

namespace {

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                        std::tolower(static_cast<unsigned char>(b[j - 1]));
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (same ? 0 : 1)});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

std::string_view closest_name(std::string_view word,
                              const std::vector<std::string_view>& candidates) {
  std::string_view best;
  size_t best_d = std::numeric_limits<size_t>::max();
  for (std::string_view c : candidates) {
    size_t d = edit_distance(word, c);
    // A shared prefix of 3+ characters ("pads" / "padding") counts as close.
    const size_t common = std::min({word.size(), c.size(), size_t(3)});
    if (common == 3 && word.substr(0, 3) == c.substr(0, 3)) d = std::min(d, size_t(2));
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  const size_t limit = std::max<size_t>(2, word.size() / 3);
  return best_d <= limit ? best : std::string_view{};
}

void GraphBuilder::check_new_name(const std::string& name) const {
  // WebNN names are free strings. The text format maps names that are not NAME tokens.
  check(!name.empty() && name.size() <= kMaxOperandNameBytes,
        "operand names must have 1 to {} bytes", kMaxOperandNameBytes);
  for (char c : name) {
    check(static_cast<unsigned char>(c) >= 0x20 && c != 0x7f,
          "operand name '{}' holds a control character", name);
  }
  check(!graph_.by_name_.contains(name), "'{}' is already defined (names must be unique)", name);
}

void GraphBuilder::rename(OperandId id, std::string name) {
  Operand& op = graph_.operands_.at(id.index);
  if (op.name == name) return;
  check_new_name(name);
  graph_.by_name_.erase(op.name);
  graph_.by_name_.emplace(name, id);
  op.name = std::move(name);
}

OperandId GraphBuilder::append_operand(std::string name, OperandDesc desc, OperandKind kind) {
  OperandId id{uint32_t(graph_.operands_.size())};
  graph_.by_name_.emplace(name, id);
  Operand op;
  op.name = std::move(name);
  op.desc = std::move(desc);
  op.kind = kind;
  graph_.operands_.push_back(std::move(op));
  return id;
}

OperandId GraphBuilder::input(std::string name, OperandDesc desc,
                              std::vector<std::optional<DynamicDim>> dynamic_dims) {
  return with_error_context(fmt::format("input '{}'", name), [&] {
    check_new_name(name);
    validate_shape(desc.shape, "shape");
    check(dynamic_dims.empty() || dynamic_dims.size() == desc.shape.size(),
          "{} dynamic dims for rank {}", dynamic_dims.size(), desc.shape.size());
    for (size_t i = 0; i < dynamic_dims.size(); ++i) {
      if (!dynamic_dims[i]) continue;
      check(dynamic_dims[i]->max >= 1, "dynamic dim '{}' needs a maximum of at least 1",
            dynamic_dims[i]->name);
      check(desc.shape[i] == dynamic_dims[i]->max, "dynamic dim '{}' must hold its maximum",
            dynamic_dims[i]->name);
    }
    const uint32_t decl = uint32_t(graph_.inputs_.size());
    const OperandId id = append_operand(std::move(name), std::move(desc), OperandKind::kInput);
    graph_.operands_[id.index].decl_index = decl;
    graph_.inputs_.push_back({id, std::move(dynamic_dims)});
    return id;
  });
}

OperandId GraphBuilder::constant(std::string name, OperandDesc desc, ConstantInitKind init,
                                 std::string key, Value scalar, std::vector<uint8_t> bytes,
                                 Buffer data) {
  return with_error_context(fmt::format("constant '{}'", name), [&] {
    check_new_name(name);
    validate_shape(desc.shape, "shape");
    if (init == ConstantInitKind::kScalar) {
      check(std::holds_alternative<int64_t>(scalar) || std::holds_alternative<double>(scalar),
            "@scalar needs a number");
    }
    ConstantInfo c;
    c.init = init;
    c.key = init == ConstantInitKind::kWeights && key.empty() ? name : std::move(key);
    c.scalar = std::move(scalar);
    c.bytes = std::move(bytes);
    if (init == ConstantInitKind::kBytes) {
      // Inline bytes are checked and materialised now, so errors surface at the line; their
      // size is bounded by the file that holds them.
      data = materialize_inline_constant(c, desc);
    }
    // A @scalar fill stays unmaterialised until Graph::bind_inline_constants: eight bytes of
    // text may declare f32[2^47], and parsing, printing or inspecting a graph must not
    // allocate what only running it needs.
    if (!data.empty() || element_count(desc.shape) == 0) {
      const size_t expected = desc.byte_size();
      check(data.size() == expected, "data has {} bytes, {} needs {}", data.size(),
            desc.to_string(), expected);
    }
    const uint32_t decl = uint32_t(graph_.constants_.size());
    const OperandId id = append_operand(std::move(name), std::move(desc), OperandKind::kConstant);
    graph_.operands_[id.index].decl_index = decl;
    c.id = id;
    c.data = std::move(data);
    graph_.constants_.push_back(std::move(c));
    return id;
  });
}

OperandId GraphBuilder::constant(std::string name, const Tensor& tensor) {
  std::string key = name;
  return constant(std::move(name), {tensor.dtype, tensor.shape}, ConstantInitKind::kWeights,
                  std::move(key), {}, {}, tensor.data);
}

namespace {

std::optional<double> special_float(std::string_view s) {
  if (s == "inf" || s == "Infinity" || s == "+inf") return std::numeric_limits<double>::infinity();
  if (s == "-inf" || s == "-Infinity") return -std::numeric_limits<double>::infinity();
  if (s == "nan" || s == "NaN") return std::numeric_limits<double>::quiet_NaN();
  return std::nullopt;
}

class Coercer {
 public:
  Coercer(const Graph& g, const ParamSpec& p) : graph_(g), p_(p) {}

  Value operator()(const RawValue& raw) const {
    switch (p_.kind) {
      case ParamKind::kOperand:
        return operand(raw);
      case ParamKind::kOperandList: {
        const auto* list = std::get_if<RawValue::List>(&raw.v);
        check(list != nullptr, "expected a list of operands, got {}", raw.kind_name());
        OperandList ids;
        for (const auto& item : *list) ids.push_back(std::get<OperandId>(operand(item)));
        return ids;
      }
      case ParamKind::kBool: {
        const auto* b = std::get_if<bool>(&raw.v);
        check(b != nullptr, "expected true or false, got {}", raw.kind_name());
        return *b;
      }
      case ParamKind::kInt:
        return integer(raw);
      case ParamKind::kFloat:
        return number(raw, true);
      case ParamKind::kNumber:
        return number(raw, false);
      case ParamKind::kIntList:
        return int_list(raw);
      case ParamKind::kFloatList: {
        const auto* list = std::get_if<RawValue::List>(&raw.v);
        check(list != nullptr, "expected a list of numbers, got {}", raw.kind_name());
        FloatList out;
        for (const auto& item : *list) out.push_back(std::get<double>(number(item, true)));
        return out;
      }
      case ParamKind::kIntOrIntList:
        if (std::holds_alternative<RawValue::List>(raw.v)) return int_list(raw);
        return integer(raw);
      case ParamKind::kEnum:
        return enum_value(raw);
      case ParamKind::kEnumList: {
        const auto* list = std::get_if<RawValue::List>(&raw.v);
        check(list != nullptr, "expected a list, got {}", raw.kind_name());
        StringList out;
        for (const auto& item : *list) out.push_back(std::get<std::string>(enum_value(item)));
        return out;
      }
      case ParamKind::kDataType: {
        if (const auto* t = std::get_if<DataType>(&raw.v)) return *t;
        const std::string* s = text(raw);
        check(s != nullptr, "expected a data type, got {}", raw.kind_name());
        const auto t = parse_dtype(*s);
        check(t.has_value(), "unknown data type '{}'", *s);
        return *t;
      }
      case ParamKind::kString: {
        const auto* s = std::get_if<std::string>(&raw.v);
        check(s != nullptr, "expected a string, got {}", raw.kind_name());
        return *s;
      }
    }
    return {};
  }

 private:
  static const std::string* text(const RawValue& raw) {
    if (const auto* s = std::get_if<std::string>(&raw.v)) return s;
    if (const auto* n = std::get_if<RawValue::Name>(&raw.v)) return &n->text;
    return nullptr;
  }

  Value operand(const RawValue& raw) const {
    OperandId id;
    if (const auto* direct = std::get_if<OperandId>(&raw.v)) {
      check_internal(direct->index < graph_.operands().size(), "operand id {} out of range",
                     direct->index);
      id = *direct;
    } else {
      const std::string* name = text(raw);
      check(name != nullptr, "expected an operand, got {}", raw.kind_name());
      const auto found = graph_.find(*name);
      check(found.has_value(), "'{}' is not defined before its use", *name);
      id = *found;
    }
    const OperandDesc& d = graph_.desc(id);
    check(p_.dtypes.contains(d.dtype), "operand '{}' has data type {}; allowed: {}",
          graph_.name_of(id), dtype_name(d.dtype), p_.dtypes.to_string());
    return id;
  }

  static Value integer(const RawValue& raw) {
    if (const auto* i = std::get_if<int64_t>(&raw.v)) return *i;
    if (const auto* d = std::get_if<double>(&raw.v)) {
      check(std::isfinite(*d) && *d == std::trunc(*d) && std::abs(*d) < 9.2e18,
            "expected an integer, got {}", *d);
      return int64_t(*d);
    }
    fail("expected an integer, got {}", raw.kind_name());
  }

  static Value number(const RawValue& raw, bool as_double) {
    if (const auto* i = std::get_if<int64_t>(&raw.v)) {
      return as_double ? Value(double(*i)) : Value(*i);
    }
    if (const auto* d = std::get_if<double>(&raw.v)) return *d;
    if (const std::string* s = text(raw)) {
      if (const auto f = special_float(*s)) return *f;
    }
    fail("expected a number, got {}", raw.kind_name());
  }

  static Value int_list(const RawValue& raw) {
    const auto* list = std::get_if<RawValue::List>(&raw.v);
    check(list != nullptr, "expected a list of integers, got {}", raw.kind_name());
    IntList out;
    for (const auto& item : *list) out.push_back(std::get<int64_t>(integer(item)));
    return out;
  }

  Value enum_value(const RawValue& raw) const {
    const std::string* s = text(raw);
    check(s != nullptr, "expected one of {}, got {}", fmt::join(p_.enum_values, ", "),
          raw.kind_name());
    for (std::string_view v : p_.enum_values) {
      if (v == *s) return std::string(v);
    }
    fail("'{}' is not one of {}", *s, fmt::join(p_.enum_values, ", "));
  }

  const Graph& graph_;
  const ParamSpec& p_;
};

std::vector<std::string_view> param_names(const OpSchema& s) {
  std::vector<std::string_view> names;
  for (size_t i = 0; i < s.num_params(); ++i) names.push_back(s.param(i).name);
  return names;
}

}  // namespace

std::vector<OperandId> GraphBuilder::add(const Call& call) {
  const std::string label =
      call.outputs.empty() ? call.op : fmt::format("{} '{}'", call.op, call.outputs[0]);
  return with_error_context(label, [&]() -> std::vector<OperandId> {
    const OpSchema* schema = find_schema(call.op);
    if (schema == nullptr) {
      std::vector<std::string_view> names;
      for (const auto& s : all_schemas()) names.push_back(s.name);
      const auto near = closest_name(call.op, names);
      if (!near.empty()) fail("unknown operator '{}' (did you mean '{}'?)", call.op, near);
      fail("unknown operator '{}'", call.op);
    }
    Attributes attrs(*schema);
    size_t next_positional = 0;
    for (const CallArg& a : call.args) {
      const auto arg_context = [&](std::string what) {
        return a.where.empty() ? what : fmt::format("{}: {}", a.where, what);
      };
      size_t index;
      if (a.name.empty()) {
        check(next_positional < schema->args.size(),
              "{}too many positional arguments ({} takes {})",
              a.where.empty() ? "" : a.where + ": ", schema->name, schema->args.size());
        index = next_positional++;
      } else {
        const auto found = schema->find_param(a.name);
        if (!found) {
          const auto near = closest_name(a.name, param_names(*schema));
          const std::string where = a.where.empty() ? "" : a.where + ": ";
          if (!near.empty()) {
            fail("{}unknown option '{}' (did you mean '{}'?)", where, a.name, near);
          }
          fail("{}unknown option '{}'; {} takes: {}", where, a.name, schema->name,
               fmt::join(param_names(*schema), ", "));
        }
        index = *found;
      }
      const ParamSpec& p = schema->param(index);
      with_error_context(arg_context(fmt::format("argument '{}'", p.name)), [&] {
        check(std::holds_alternative<std::monostate>(attrs.at(index)), "given twice");
        if (std::holds_alternative<std::monostate>(a.value.v)) {
          check(index >= schema->args.size(), "null is not a value for a required argument");
          return;  // null option: absent, takes the default
        }
        attrs.set(index, Coercer(graph_, p)(a.value));
      });
    }
    for (size_t i = 0; i < schema->args.size(); ++i) {
      check(!std::holds_alternative<std::monostate>(attrs.at(i)), "missing required argument '{}'",
            schema->args[i].name);
    }
    const InferContext ctx(attrs,
                           [this](OperandId id) -> const OperandDesc& { return graph_.desc(id); });
    schema::require_ranks(ctx);
    std::vector<OperandDesc> outs = schema->infer(ctx);
    for (size_t i = 0; i < outs.size(); ++i) {
      validate_shape(outs[i].shape, "output shape");
      // The table states the output ranks inference can produce; a mismatch is a bug in wnn.
      check_internal(schema->output_rank(i).contains(outs[i].shape.size()),
                     "output {} has rank {}, outside the schema's {}", i, outs[i].shape.size(),
                     rank_range_to_string(schema->output_rank(i)));
    }

    std::vector<std::string> names = call.outputs;
    if (names.empty()) {
      for (size_t i = 0; i < outs.size(); ++i) {
        names.push_back(unique_name(outs.size() == 1 ? std::string(schema->name)
                                                     : fmt::format("{}_{}", schema->name, i)));
      }
    }
    check(names.size() == outs.size(), "{} output names given, {} produces {}", names.size(),
          schema->name, outs.size());
    for (size_t i = 0; i < names.size(); ++i) {
      check_new_name(names[i]);
      for (size_t j = 0; j < i; ++j)
        check(names[i] != names[j], "output '{}' named twice", names[i]);
    }
    // Everything is checked: commit.
    Node node;
    node.inputs = attrs.operands();
    node.attrs = std::move(attrs);
    const uint32_t node_index = uint32_t(graph_.nodes_.size());
    std::vector<OperandId> ids;
    for (size_t i = 0; i < outs.size(); ++i) {
      const OperandId id = append_operand(names[i], std::move(outs[i]), OperandKind::kNodeOutput);
      graph_.operands_[id.index].producer = node_index;
      graph_.operands_[id.index].output_index = uint32_t(i);
      ids.push_back(id);
    }
    node.outputs = ids;
    graph_.nodes_.push_back(std::move(node));
    return ids;
  });
}

std::vector<OperandId> GraphBuilder::add(OpKind op, std::vector<RawValue> positional,
                                         std::vector<std::pair<std::string, RawValue>> named,
                                         std::vector<std::string> output_names) {
  Call call;
  call.op = std::string(op_name(op));
  for (auto& v : positional) call.args.push_back({"", std::move(v), ""});
  for (auto& [k, v] : named) call.args.push_back({k, std::move(v), ""});
  call.outputs = std::move(output_names);
  return add(call);
}

OperandId GraphBuilder::add1(OpKind op, std::vector<RawValue> positional,
                             std::vector<std::pair<std::string, RawValue>> named,
                             std::string output_name) {
  std::vector<std::string> names;
  if (!output_name.empty()) names.push_back(std::move(output_name));
  const auto ids = add(op, std::move(positional), std::move(named), std::move(names));
  check_internal(ids.size() == 1, "{} has {} outputs, expected 1", op_name(op), ids.size());
  return ids[0];
}

void GraphBuilder::output(OperandId id) {
  check_internal(id.index < graph_.operands_.size(), "output operand out of range");
  check(!graph_.is_output(id), "output '{}' is listed twice", graph_.name_of(id));
  graph_.outputs_.push_back(id);
}

void GraphBuilder::output(std::string_view name) {
  const auto id = graph_.find(name);
  check(id.has_value(), "output '{}' names nothing defined in the graph", name);
  output(*id);
}

std::string GraphBuilder::unique_name(std::string_view base) const {
  std::string b(base.empty() ? "t" : base);
  if (!graph_.by_name_.contains(b)) return b;
  for (size_t i = 1;; ++i) {
    std::string candidate = fmt::format("{}_{}", b, i);
    if (!graph_.by_name_.contains(candidate)) return candidate;
  }
}

}  // namespace wnn
