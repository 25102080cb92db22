#include "wnn/core/ops/describe.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "wnn/core/error.h"

namespace wnn {

namespace {

std::string format_double(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  std::string s = fmt::format("{}", d);  // shortest round-trip form
  return s;
}

std::string param_dtypes(const ParamSpec& p) {
  if (p.dtypes == dtypes::kAll) return "any";
  return p.dtypes.to_string();
}

std::string kind_text(const ParamSpec& p) {
  std::string k(param_kind_name(p.kind));
  if (!p.enum_values.empty()) k += " {" + fmt::format("{}", fmt::join(p.enum_values, "|")) + "}";
  if (p.kind == ParamKind::kOperand || p.kind == ParamKind::kOperandList) {
    k += " (" + param_dtypes(p) + ")";
    if (p.ranks != RankRange{}) k += ", rank " + rank_range_to_string(p.ranks);
    if (!p.same_rank_as.empty()) k += fmt::format(", rank of `{}`", p.same_rank_as);
  }
  return k;
}

nlohmann::json rank_range_json(RankRange r) { return {{"min", r.min}, {"max", r.max}}; }

// The outputs' ranks, when the schema narrows them: "4", or "3, 4" for several outputs.
std::string output_ranks_text(const OpSchema& s) {
  if (s.output_ranks.empty() && s.output_rank(0) == RankRange{}) return {};
  std::vector<std::string> r;
  for (size_t i = 0; i < std::max<size_t>(1, s.output_ranks.size()); ++i) {
    r.push_back(rank_range_to_string(s.output_rank(i)));
  }
  return fmt::format("{}", fmt::join(r, ", "));
}

}  // namespace

nlohmann::json value_to_json(const Value& v) {
  return std::visit(
      [](const auto& x) -> nlohmann::json {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return nullptr;
        } else if constexpr (std::is_same_v<T, double>) {
          if (std::isfinite(x)) return x;
          return format_double(x);  // JSON has no inf/nan: write them as strings
        } else if constexpr (std::is_same_v<T, FloatList>) {
          nlohmann::json a = nlohmann::json::array();
          for (double d : x)
            a.push_back(std::isfinite(d) ? nlohmann::json(d) : nlohmann::json(format_double(d)));
          return a;
        } else if constexpr (std::is_same_v<T, DataType>) {
          return std::string(dtype_name(x));
        } else if constexpr (std::is_same_v<T, OperandId>) {
          return x.index;
        } else if constexpr (std::is_same_v<T, OperandList>) {
          nlohmann::json a = nlohmann::json::array();
          for (auto id : x) a.push_back(id.index);
          return a;
        } else {
          return x;
        }
      },
      v);
}

std::string default_text(const ParamSpec& p) {
  if (!std::holds_alternative<std::monostate>(p.default_value)) {
    return value_to_text(p.default_value);
  }
  return p.default_doc.empty() ? "absent" : std::string(p.default_doc);
}

std::string value_to_text(const Value& v) {
  return std::visit(
      [](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return "absent";
        } else if constexpr (std::is_same_v<T, bool>) {
          return x ? "true" : "false";
        } else if constexpr (std::is_same_v<T, int64_t>) {
          return std::to_string(x);
        } else if constexpr (std::is_same_v<T, double>) {
          return format_double(x);
        } else if constexpr (std::is_same_v<T, std::string>) {
          return "\"" + x + "\"";
        } else if constexpr (std::is_same_v<T, IntList>) {
          return fmt::format("[{}]", fmt::join(x, ", "));
        } else if constexpr (std::is_same_v<T, FloatList>) {
          std::vector<std::string> parts;
          for (double d : x) parts.push_back(format_double(d));
          return fmt::format("[{}]", fmt::join(parts, ", "));
        } else if constexpr (std::is_same_v<T, StringList>) {
          std::vector<std::string> parts;
          for (const auto& s : x) parts.push_back("\"" + s + "\"");
          return fmt::format("[{}]", fmt::join(parts, ", "));
        } else if constexpr (std::is_same_v<T, DataType>) {
          return "\"" + std::string(dtype_name(x)) + "\"";
        } else {
          return "operand";
        }
      },
      v);
}

nlohmann::json schema_to_json(const OpSchema& s) {
  nlohmann::json j;
  j["name"] = s.name;
  j["family"] = s.family;
  j["doc"] = s.doc;
  auto params = [](const std::vector<ParamSpec>& ps, bool options) {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& p : ps) {
      nlohmann::json e;
      e["name"] = p.name;
      e["kind"] = param_kind_name(p.kind);
      if (p.kind == ParamKind::kOperand || p.kind == ParamKind::kOperandList) {
        nlohmann::json d = nlohmann::json::array();
        for (DataType t : kAllDataTypes) {
          if (p.dtypes.contains(t)) d.push_back(dtype_name(t));
        }
        e["dataTypes"] = d;
        e["ranks"] = rank_range_json(p.ranks);
        if (!p.same_rank_as.empty()) e["sameRankAs"] = p.same_rank_as;
      }
      if (!p.enum_values.empty()) e["values"] = p.enum_values;
      if (options) {
        if (!std::holds_alternative<std::monostate>(p.default_value)) {
          e["default"] = value_to_json(p.default_value);
        } else {
          e["default"] = nullptr;
          e["defaultDoc"] = p.default_doc.empty() ? "absent" : p.default_doc;
        }
      }
      if (!p.doc.empty()) e["doc"] = p.doc;
      a.push_back(std::move(e));
    }
    return a;
  };
  j["arguments"] = params(s.args, false);
  j["options"] = params(s.options, true);
  // One entry per output; the last repeats for a list of outputs (split).
  nlohmann::json outs = nlohmann::json::array();
  for (size_t i = 0; i < std::max<size_t>(1, s.output_ranks.size()); ++i) {
    outs.push_back(rank_range_json(s.output_rank(i)));
  }
  j["outputRanks"] = outs;
  return j;
}

nlohmann::json operator_table_json() {
  nlohmann::json ops = nlohmann::json::array();
  for (const auto& s : all_schemas()) ops.push_back(schema_to_json(s));
  return {{"count", ops.size()}, {"operators", ops}};
}

std::string operator_table_text() {
  std::string out;
  for (const auto& s : all_schemas()) {
    std::vector<std::string> args;
    for (const auto& p : s.args) args.push_back(std::string(p.name));
    out += fmt::format("{}({})  [{}] {}\n", s.name, fmt::join(args, ", "), s.family, s.doc);
    for (const auto& p : s.args) {
      out += fmt::format("    {:<22} {}\n", p.name, kind_text(p));
    }
    for (const auto& p : s.options) {
      out += fmt::format("    {:<22} {} = {}\n", std::string(p.name) + "=", kind_text(p),
                         default_text(p));
    }
  }
  out += fmt::format("{} operators\n", all_schemas().size());
  return out;
}

std::string operator_table_markdown() {
  std::string out =
      "# WebNN operators\n\n"
      "Generated by `wnn ops --markdown` from the operator table; do not edit by hand\n"
      "(`make docs` regenerates it, and a test fails when it is stale).\n\n";
  std::map<std::string_view, std::vector<const OpSchema*>> families;
  for (const auto& s : all_schemas()) families[s.family].push_back(&s);
  out += fmt::format("{} operators in {} families.\n\n", all_schemas().size(), families.size());
  for (const auto& [family, list] : families) {
    out += fmt::format("## {}\n\n", family);
    for (const OpSchema* s : list) {
      std::vector<std::string> args;
      for (const auto& p : s->args) args.push_back(std::string(p.name));
      out += fmt::format("### `{}({})`\n\n{}\n\n", s->name, fmt::join(args, ", "), s->doc);
      if (const auto r = output_ranks_text(*s); !r.empty()) {
        out += fmt::format("Output rank: {}.\n\n", r);
      }
      out += "| parameter | kind | default |\n|---|---|---|\n";
      for (const auto& p : s->args) {
        out += fmt::format("| `{}` | {} | required |\n", p.name, kind_text(*&p));
      }
      for (const auto& p : s->options) {
        out += fmt::format("| `{}` | {} | {} |\n", p.name, kind_text(p), default_text(p));
      }
      out += "\n";
    }
  }
  return out;
}

}  // namespace wnn
