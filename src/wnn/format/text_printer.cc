// The canonical .webnn text: header, then the inputs, consts, nodes and outputs blocks (a block
// with no entries is left out; outputs is never empty), one declaration per line indented by
// two spaces, declaration order kept. In a call the operands come first, positionally; every
// other positional parameter follows as name=value, then the options that were given, in the
// operator table's order. Printing a parsed canonical file gives the same bytes.
#include <cmath>

#include "wnn/core/builder.h"
#include "wnn/core/error.h"
#include "wnn/core/names.h"
#include "wnn/format/graph_file.h"
#include "wnn/format/param_spelling.h"

namespace wnn::format {

namespace {

void append_quoted(std::string& out, std::string_view s) {
  out += '"';
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        out += c;
    }
  }
  out += '"';
}

// Shortest round-trip form; integral values keep a ".0" so they read back as floats.
void append_float(std::string& out, double d) {
  if (std::isnan(d)) {
    out += "nan";
  } else if (std::isinf(d)) {
    out += d < 0 ? "-inf" : "inf";
  } else {
    const std::string s = fmt::format("{}", d);
    out += s;
    if (s.find_first_of(".eE") == std::string::npos) out += ".0";
  }
}

template <typename T, typename Fn>
void append_list(std::string& out, const std::vector<T>& items, Fn&& each) {
  out += '[';
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += ", ";
    each(items[i]);
  }
  out += ']';
}

void append_shape(std::string& out, const OperandDesc& desc,
                  const std::vector<std::optional<DynamicDim>>& dynamic_dims) {
  out += dtype_short_name(desc.dtype);
  out += '[';
  for (size_t i = 0; i < desc.shape.size(); ++i) {
    if (i) out += ", ";
    if (i < dynamic_dims.size() && dynamic_dims[i]) {
      out += "dyn(";
      append_quoted(out, dynamic_dims[i]->name);
      out += fmt::format(", {})", dynamic_dims[i]->max);
    } else {
      out += fmt::format("{}", desc.shape[i]);
    }
  }
  out += ']';
}

class Printer {
 public:
  explicit Printer(const Graph& g) : g_(g) {}

  std::string print() {
    out_ += "webnn_graph ";
    append_quoted(out_, g_.name);
    out_ += g_.has_dynamic_inputs() ? " v2" : " v1";
    if (g_.quantized) out_ += " @quantized";
    out_ += " {\n";
    if (!g_.inputs().empty()) {
      out_ += "  inputs {\n";
      for (const auto& in : g_.inputs()) {
        out_ += "    " + g_.name_of(in.id) + ": ";
        append_shape(out_, g_.desc(in.id), in.dynamic_dims);
        out_ += ";\n";
      }
      out_ += "  }\n";
    }
    if (!g_.constants().empty()) {
      out_ += "  consts {\n";
      for (const auto& c : g_.constants()) print_constant(c);
      out_ += "  }\n";
    }
    if (!g_.nodes().empty()) {
      out_ += "  nodes {\n";
      for (const auto& n : g_.nodes()) print_node(n);
      out_ += "  }\n";
    }
    out_ += "  outputs {\n";
    for (OperandId id : g_.outputs()) out_ += "    " + g_.name_of(id) + ";\n";
    out_ += "  }\n}\n";
    return std::move(out_);
  }

 private:
  void print_constant(const ConstantInfo& c) {
    out_ += "    " + g_.name_of(c.id) + ": ";
    append_shape(out_, g_.desc(c.id), {});
    switch (c.init) {
      case ConstantInitKind::kWeights:
        out_ += " @weights(";
        append_quoted(out_, c.key);
        out_ += ")";
        break;
      case ConstantInitKind::kScalar:
        out_ += " @scalar(";
        if (const auto* i = std::get_if<int64_t>(&c.scalar)) {
          out_ += fmt::format("{}", *i);
        } else {
          append_float(out_, std::get<double>(c.scalar));
        }
        out_ += ")";
        break;
      case ConstantInitKind::kBytes:
        out_ += " @bytes(";
        append_list(out_, c.bytes, [&](uint8_t b) { out_ += fmt::format("{}", b); });
        out_ += ")";
        break;
    }
    out_ += ";\n";
  }

  void print_value(const Value& v) {
    std::visit(
        [&](const auto& x) {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, std::monostate>) {
            out_ += "null";
          } else if constexpr (std::is_same_v<T, bool>) {
            out_ += x ? "true" : "false";
          } else if constexpr (std::is_same_v<T, int64_t>) {
            out_ += fmt::format("{}", x);
          } else if constexpr (std::is_same_v<T, double>) {
            append_float(out_, x);
          } else if constexpr (std::is_same_v<T, std::string>) {
            append_quoted(out_, x);
          } else if constexpr (std::is_same_v<T, IntList>) {
            append_list(out_, x, [&](int64_t i) { out_ += fmt::format("{}", i); });
          } else if constexpr (std::is_same_v<T, FloatList>) {
            append_list(out_, x, [&](double d) { append_float(out_, d); });
          } else if constexpr (std::is_same_v<T, StringList>) {
            append_list(out_, x, [&](const std::string& s) { append_quoted(out_, s); });
          } else if constexpr (std::is_same_v<T, DataType>) {
            append_quoted(out_, dtype_name(x));
          } else if constexpr (std::is_same_v<T, OperandId>) {
            out_ += g_.name_of(x);
          } else if constexpr (std::is_same_v<T, OperandList>) {
            append_list(out_, x, [&](OperandId id) { out_ += g_.name_of(id); });
          }
        },
        v);
  }

  void print_node(const Node& n) {
    out_ += "    ";
    if (n.outputs.size() == 1) {
      out_ += g_.name_of(n.outputs[0]);
    } else {
      append_list(out_, n.outputs, [&](OperandId id) { out_ += g_.name_of(id); });
    }
    const OpSchema& s = n.attrs.schema();
    out_ += " = ";
    out_ += s.name;
    out_ += '(';
    bool first = true;
    const auto separator = [&] {
      if (!first) out_ += ", ";
      first = false;
    };
    // Operands positionally, then every other positional parameter by name.
    for (int pass = 0; pass < 2; ++pass) {
      for (size_t i = 0; i < s.args.size(); ++i) {
        const bool operand =
            s.args[i].kind == ParamKind::kOperand || s.args[i].kind == ParamKind::kOperandList;
        if (operand != (pass == 0)) continue;
        separator();
        if (!operand) out_ += fmt::format("{}=", file_param_name(s.name, s.args[i].name));
        print_value(n.attrs.at(i));
      }
    }
    for (size_t i = 0; i < s.options.size(); ++i) {
      const Value& v = n.attrs.at(s.args.size() + i);
      if (std::holds_alternative<std::monostate>(v)) continue;  // absent: not printed
      separator();
      out_ += fmt::format("{}=", file_param_name(s.name, s.options[i].name));
      print_value(v);
    }
    out_ += ");\n";
  }

  const Graph& g_;
  std::string out_;
};

}  // namespace

std::vector<std::pair<std::string, std::string>> map_names_for_text(Graph& graph) {
  NameMapper names([&](const std::string& n) { return graph.find(n).has_value(); });
  for (const Operand& op : graph.operands()) names.reserve(op.name);
  std::vector<std::pair<std::string, std::string>> renamed;
  GraphBuilder b(graph);
  for (size_t i = 0; i < graph.operands().size(); ++i) {
    const std::string old = graph.operands()[i].name;
    const std::string& now = names.map(old);
    if (now == old) continue;
    b.rename(OperandId{uint32_t(i)}, now);
    renamed.emplace_back(old, now);
  }
  return renamed;
}

std::string print_text_mapping_names(const Graph& graph) {
  for (const Operand& op : graph.operands()) {
    if (!is_valid_operand_name(op.name)) {
      Graph copy = graph;
      map_names_for_text(copy);
      return print_text(copy);
    }
  }
  return print_text(graph);
}

std::string print_text(const Graph& graph) {
  // Writing a name the reader would reject gives a file nobody can read. Whatever writes text
  // maps names first (NameMapper; map_names_for_text), so a name outside the grammar here is a
  // bug of wnn's.
  for (const Operand& op : graph.operands()) {
    check_internal(is_valid_operand_name(op.name),
                   "operand '{}' has a name the .webnn text form cannot hold (see "
                   "docs/formats.md, \"Operand names\"); it should have been mapped",
                   op.name);
  }
  return Printer(graph).print();
}

}  // namespace wnn::format
