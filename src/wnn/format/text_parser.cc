// The .webnn text parser: a recursive-descent reader over the tokens of text_lexer.h. It first
// collects every block (blocks may come in any order and repeat), then builds the graph through
// GraphBuilder in the order inputs, consts, nodes, outputs, so all validation and inference is
// the builder's. Every diagnostic carries file:line:col.
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>

#include "wnn/core/builder.h"
#include "wnn/core/error.h"
#include "wnn/format/graph_file.h"
#include "wnn/format/param_spelling.h"
#include "wnn/format/text_lexer.h"

namespace wnn::format {

namespace {

// Deep enough for any real option value, shallow enough that hostile input cannot exhaust
// the stack through the recursive value parser.
constexpr int kMaxValueDepth = 64;

struct TypeDecl {
  OperandDesc desc;
  std::vector<std::optional<DynamicDim>> dynamic_dims;  // empty unless some dim is dyn(...)
};

struct InputDecl {
  std::string name;
  TypeDecl type;
  std::string where;
};

struct ConstDecl {
  std::string name;
  TypeDecl type;
  ConstantInitKind init = ConstantInitKind::kWeights;
  std::string key;
  Value scalar;
  std::vector<uint8_t> bytes;
  std::string where;
};

struct Statement {
  Call call;
  std::string where;
};

struct OutputRef {
  std::string name;
  std::string where;
};

// A value as written, for suggestions in messages: `[1, 8]`, `"nchw"`, `x`.
std::string raw_to_text(const RawValue& raw) {
  return std::visit(
      [](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return "null";
        } else if constexpr (std::is_same_v<T, bool>) {
          return v ? "true" : "false";
        } else if constexpr (std::is_same_v<T, int64_t> || std::is_same_v<T, double>) {
          return fmt::format("{}", v);
        } else if constexpr (std::is_same_v<T, std::string>) {
          return fmt::format("\"{}\"", v);
        } else if constexpr (std::is_same_v<T, RawValue::Name>) {
          return v.text;
        } else if constexpr (std::is_same_v<T, RawValue::List>) {
          std::string out = "[";
          for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + raw_to_text(v[i]);
          return out + "]";
        } else if constexpr (std::is_same_v<T, RawValue::Object>) {
          std::string out = "{";
          for (size_t i = 0; i < v.size(); ++i) {
            out += fmt::format("{}{}: {}", i ? ", " : "", v[i].first, raw_to_text(v[i].second));
          }
          return out + "}";
        } else {
          return "value";
        }
      },
      raw.v);
}

bool is_operand_reference(const RawValue& raw) {
  if (std::holds_alternative<RawValue::Name>(raw.v)) return true;
  const auto* list = std::get_if<RawValue::List>(&raw.v);
  if (list == nullptr) return false;
  for (const auto& item : *list) {
    if (!std::holds_alternative<RawValue::Name>(item.v)) return false;
  }
  return true;
}

class TextParser {
 public:
  TextParser(std::string_view text, const std::string& filename)
      : file_(filename), tokens_(tokenize(text, filename)) {}

  Graph parse() {
    parse_header();
    parse_blocks();
    return build();
  }

 private:
  // ---- token access ----
  const Token& peek(size_t ahead = 0) const {
    return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)];
  }
  const Token& next() {
    const Token& t = peek();
    if (pos_ < tokens_.size() - 1) ++pos_;
    return t;
  }
  bool accept(char punct) {
    if (!peek().is(punct)) return false;
    next();
    return true;
  }
  std::string where(const Token& t) const { return location(file_, t); }
  [[noreturn]] void error_at(const Token& t, const std::string& message) const {
    fail("{}: {}", where(t), message);
  }
  const Token& expect(char punct, std::string_view context) {
    if (!peek().is(punct)) {
      error_at(peek(), fmt::format("expected '{}' {}, got {}", punct, context, describe(peek())));
    }
    return next();
  }
  const Token& expect_name(std::string_view what) {
    if (peek().kind != TokenKind::kName) {
      error_at(peek(), fmt::format("expected {}, got {}", what, describe(peek())));
    }
    return next();
  }

  // ---- numbers ----
  int64_t to_int(const Token& t) const {
    std::string_view s = t.text;
    if (!s.empty() && s[0] == '+') s.remove_prefix(1);
    int64_t v = 0;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec == std::errc::result_out_of_range) {
      error_at(t, fmt::format("integer {} does not fit in 64 bits", t.text));
    }
    if (ec != std::errc() || p != s.data() + s.size()) {
      error_at(t, fmt::format("malformed integer '{}'", t.text));
    }
    return v;
  }
  double to_double(const Token& t) const {
    std::string_view s = t.text;
    if (!s.empty() && s[0] == '+') s.remove_prefix(1);
    if (s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
    double v = 0;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec == std::errc::result_out_of_range) {
      error_at(t, fmt::format("number {} is out of the range of a double", t.text));
    }
    if (ec != std::errc() || p != s.data() + s.size()) {
      error_at(t, fmt::format("malformed number '{}'", t.text));
    }
    return v;
  }
  // A number in value position: integers stay integers; inf and nan are floats.
  std::optional<RawValue> number(const Token& t) const {
    if (t.kind == TokenKind::kInt) return RawValue(to_int(t));
    if (t.kind == TokenKind::kFloat) return RawValue(to_double(t));
    if (t.is_name("inf")) return RawValue(std::numeric_limits<double>::infinity());
    if (t.is_name("nan")) return RawValue(std::numeric_limits<double>::quiet_NaN());
    return std::nullopt;
  }

  // ---- header and blocks ----
  void parse_header() {
    const Token& head = peek();
    if (!head.is_name("webnn_graph")) {
      error_at(head, fmt::format("expected the header 'webnn_graph \"name\" v1 {{', got {}",
                                 describe(head)));
    }
    header_where_ = where(next());
    if (peek().kind != TokenKind::kString) {
      error_at(peek(),
               fmt::format("expected the graph name as a string, got {}", describe(peek())));
    }
    graph_.name = next().value;
    const Token& v = expect_name("the version (v1 or v2)");
    int64_t version = -1;
    if (v.text == "v" && peek().kind == TokenKind::kInt) {
      version = to_int(next());
    } else if (v.text.size() >= 2 && v.text[0] == 'v') {
      std::string_view digits = v.text.substr(1);
      const auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), version);
      if (ec != std::errc() || p != digits.data() + digits.size()) version = -1;
    }
    if (version != 1 && version != 2) {
      error_at(v, fmt::format("unsupported version '{}' (wnn reads v1 and v2)", v.text));
    }
    while (peek().kind == TokenKind::kAt) {
      const Token& a = next();
      if (a.text != "quantized") {
        error_at(a, fmt::format("unknown header annotation '@{}' (only @quantized)", a.text));
      }
      graph_.quantized = true;
    }
    open_ = &expect('{', "after the header");
  }

  void parse_blocks() {
    for (;;) {
      const Token& t = peek();
      if (t.is('}')) {
        next();
        if (peek().kind != TokenKind::kEnd) {
          error_at(peek(),
                   fmt::format("unexpected {} after the graph's closing '}}'", describe(peek())));
        }
        return;
      }
      if (t.kind == TokenKind::kEnd) {
        error_at(t, fmt::format("unterminated graph: the '{{' at {}:{} is never closed",
                                open_->line, open_->col));
      }
      if (t.kind != TokenKind::kName || !peek(1).is('{')) {
        error_at(t, fmt::format("expected a block (inputs, consts, nodes, outputs) or the "
                                "closing '}}', got {}",
                                describe(t)));
      }
      const Token& kw = next();
      const Token& brace = next();
      void (TextParser::*item)() = nullptr;
      if (kw.text == "inputs") {
        item = &TextParser::parse_input;
      } else if (kw.text == "consts") {
        item = &TextParser::parse_const;
      } else if (kw.text == "nodes") {
        item = &TextParser::parse_statement;
      } else if (kw.text == "outputs") {
        item = &TextParser::parse_output_item;
      } else {
        error_at(kw, fmt::format("unknown block '{}' (expected inputs, consts, nodes or outputs)",
                                 kw.text));
      }
      while (!accept('}')) {
        if (peek().kind == TokenKind::kEnd) {
          error_at(peek(), fmt::format("unterminated '{}' block: the '{{' at {}:{} is never closed",
                                       kw.text, brace.line, brace.col));
        }
        (this->*item)();
      }
    }
  }

  TypeDecl parse_type(bool allow_dynamic) {
    TypeDecl type;
    const Token& dt = expect_name("a data type (f32, f16, i32, u32, i64, u64, i8, u8, i4, u4)");
    const auto parsed = parse_dtype(dt.text);
    if (!parsed) error_at(dt, fmt::format("unknown data type '{}'", dt.text));
    type.desc.dtype = *parsed;
    expect('[', "to open the shape");
    bool any_dynamic = false;
    if (!peek().is(']')) {
      do {
        const Token& d = peek();
        if (d.is_name("dyn")) {
          if (!allow_dynamic) error_at(d, "dyn(...) dimensions are allowed on inputs only");
          next();
          expect('(', "after dyn");
          if (peek().kind != TokenKind::kString) {
            error_at(peek(), fmt::format("expected the dimension's name as a string, got {}",
                                         describe(peek())));
          }
          std::string name = next().value;
          expect(',', "between the dimension's name and its maximum");
          const Token& m = peek();
          if (m.kind != TokenKind::kInt) {
            error_at(m,
                     fmt::format("expected the maximum size of dyn(\"{}\") as an integer, got {}",
                                 name, describe(m)));
          }
          const int64_t max = to_int(next());
          if (max < 1) error_at(m, fmt::format("dyn(\"{}\") needs a maximum of at least 1", name));
          expect(')', "to close dyn(...)");
          type.desc.shape.push_back(max);
          type.dynamic_dims.push_back(DynamicDim{std::move(name), max});
          any_dynamic = true;
        } else if (d.kind == TokenKind::kInt) {
          const int64_t v = to_int(next());
          if (v < 0) error_at(d, fmt::format("dimension {} is negative", v));
          type.desc.shape.push_back(v);
          type.dynamic_dims.emplace_back();
        } else {
          error_at(d, fmt::format("expected a dimension (an integer or dyn(\"name\", max)), got {}",
                                  describe(d)));
        }
      } while (accept(','));
    }
    expect(']', "to close the shape");
    if (!any_dynamic) type.dynamic_dims.clear();
    return type;
  }

  void parse_input() {
    const Token& name = expect_name("an input name");
    expect(':', fmt::format("after input '{}'", name.text));
    InputDecl in{std::string(name.text), parse_type(true), where(name)};
    expect(';', fmt::format("after input '{}'", name.text));
    inputs_.push_back(std::move(in));
  }

  void parse_const() {
    const Token& name = expect_name("a constant name");
    expect(':', fmt::format("after constant '{}'", name.text));
    ConstDecl c;
    c.name = std::string(name.text);
    c.where = where(name);
    c.type = parse_type(false);
    c.key = c.name;  // no annotation means @weights("<own name>")
    bool annotated = false;
    while (peek().kind == TokenKind::kAt) {
      const Token& a = next();
      if (annotated)
        error_at(a, fmt::format("constant '{}' has more than one initializer", c.name));
      annotated = true;
      expect('(', fmt::format("after @{}", a.text));
      if (a.text == "weights") {
        if (peek().kind != TokenKind::kString) {
          error_at(peek(),
                   fmt::format("@weights needs the key as a string, got {}", describe(peek())));
        }
        c.init = ConstantInitKind::kWeights;
        c.key = next().value;
      } else if (a.text == "scalar") {
        const Token& v = next();
        const auto n = number(v);
        if (!n) error_at(v, fmt::format("@scalar needs a number, got {}", describe(v)));
        c.init = ConstantInitKind::kScalar;
        if (const auto* i = std::get_if<int64_t>(&n->v)) {
          c.scalar = *i;
        } else {
          c.scalar = std::get<double>(n->v);
        }
      } else if (a.text == "bytes") {
        c.init = ConstantInitKind::kBytes;
        expect('[', "to open the @bytes list");
        if (!peek().is(']')) {
          do {
            const Token& b = peek();
            if (b.kind != TokenKind::kInt) {
              error_at(b, fmt::format("@bytes holds integers 0..255, got {}", describe(b)));
            }
            const int64_t v = to_int(next());
            if (v < 0 || v > 255) error_at(b, fmt::format("@bytes value {} is not in 0..255", v));
            c.bytes.push_back(uint8_t(v));
          } while (accept(','));
        }
        expect(']', "to close the @bytes list");
      } else {
        error_at(a, fmt::format("unknown annotation '@{}' (expected @weights, @scalar or @bytes)",
                                a.text));
      }
      expect(')', fmt::format("to close @{}", a.text));
    }
    expect(';', fmt::format("after constant '{}'", c.name));
    consts_.push_back(std::move(c));
  }

  void parse_output_item() {
    do {
      const Token& name = expect_name("an output name");
      outputs_.push_back({std::string(name.text), where(name)});
    } while (accept(','));
    accept(';');
  }

  // ---- statements ----
  void parse_statement() {
    Statement st;
    const Token& first = peek();
    st.where = where(first);
    if (accept('[')) {
      do {
        st.call.outputs.emplace_back(expect_name("an output name").text);
      } while (accept(','));
      expect(']', "to close the output names");
    } else {
      st.call.outputs.emplace_back(expect_name("a statement 'name = op(...)'").text);
    }
    expect('=', "after the output name");
    const Token& op = peek();
    if (op.kind != TokenKind::kName || !peek(1).is('(')) {
      error_at(op, fmt::format("expected an operator call 'op(...)' after '=', got {} (aliases "
                               "are not allowed)",
                               describe(op)));
    }
    next();
    st.call.op = std::string(op.text);
    expect('(', "after the operator name");
    const OpSchema* schema = find_schema(st.call.op);
    size_t positional = 0;
    while (!peek().is(')')) {
      parse_argument(st.call, schema, positional);
      if (!accept(',')) break;
    }
    expect(')', fmt::format("to close the call to {}", st.call.op));
    expect(';', "after the statement");
    statements_.push_back(std::move(st));
  }

  void parse_argument(Call& call, const OpSchema* schema, size_t& positional) {
    const Token& start = peek();
    CallArg arg;
    arg.where = where(start);
    if (start.kind == TokenKind::kName && peek(1).is('=')) {
      arg.name = std::string(next().text);
      next();
      arg.name = table_param_name(call.op, arg.name);  // cast(x, type=...) and older spellings
      arg.value = parse_value(0);
      call.args.push_back(std::move(arg));
      return;
    }
    arg.value = parse_value(0);
    const size_t index = positional++;
    const ParamSpec* slot =
        schema != nullptr && index < schema->args.size() ? &schema->args[index] : nullptr;
    const bool slot_is_operand = slot != nullptr && (slot->kind == ParamKind::kOperand ||
                                                     slot->kind == ParamKind::kOperandList);
    if (slot != nullptr && !slot_is_operand) {
      error_at(start, fmt::format("{}: positional argument {} is not an operand; every other "
                                  "parameter is named: write {}={}",
                                  call.op, index + 1, slot->name, raw_to_text(arg.value)));
    }
    if (!is_operand_reference(arg.value)) {
      if (slot != nullptr) {
        error_at(start, fmt::format("{}: argument '{}' must be an operand name{}, got {}", call.op,
                                    slot->name,
                                    slot->kind == ParamKind::kOperandList ? " list [a, b]" : "",
                                    raw_to_text(arg.value)));
      }
      error_at(start, fmt::format("{}: positional argument {} ({}) is not an operand or a list of "
                                  "operands; options are written name=value",
                                  call.op, index + 1, raw_to_text(arg.value)));
    }
    call.args.push_back(std::move(arg));
  }

  RawValue parse_value(int depth) {
    const Token& t = peek();
    if (depth >= kMaxValueDepth) {
      error_at(t, fmt::format("values nest deeper than {} levels", kMaxValueDepth));
    }
    if (auto n = number(t)) {
      next();
      return std::move(*n);
    }
    switch (t.kind) {
      case TokenKind::kString:
        return RawValue(next().value);
      case TokenKind::kName:
        next();
        if (t.text == "true") return RawValue(true);
        if (t.text == "false") return RawValue(false);
        if (t.text == "null") return RawValue();
        return RawValue(RawValue::Name{std::string(t.text)});
      case TokenKind::kPunct:
        if (t.is('[')) {
          next();
          RawValue::List list;
          while (!peek().is(']')) {
            list.push_back(parse_value(depth + 1));
            if (!accept(',')) break;
          }
          expect(']', fmt::format("to close the list opened at {}:{}", t.line, t.col));
          return RawValue(std::move(list));
        }
        if (t.is('{')) {
          next();
          RawValue::Object object;
          while (!peek().is('}')) {
            const Token& key = peek();
            if (key.kind != TokenKind::kName && key.kind != TokenKind::kString) {
              error_at(key, fmt::format("expected a key, got {}", describe(key)));
            }
            next();
            std::string k = key.kind == TokenKind::kString ? key.value : std::string(key.text);
            expect(':', "after the key");
            object.emplace_back(std::move(k), parse_value(depth + 1));
            if (!accept(',')) break;
          }
          expect('}', fmt::format("to close the object opened at {}:{}", t.line, t.col));
          return RawValue(std::move(object));
        }
        break;
      default:
        break;
    }
    error_at(t, fmt::format("expected a value, got {}", describe(t)));
  }

  // ---- building ----
  Graph build() {
    GraphBuilder b(graph_);
    for (auto& in : inputs_) {
      with_error_context(in.where, [&] {
        b.input(std::move(in.name), std::move(in.type.desc), std::move(in.type.dynamic_dims));
      });
    }
    for (auto& c : consts_) {
      with_error_context(c.where, [&] {
        b.constant(std::move(c.name), std::move(c.type.desc), c.init, std::move(c.key),
                   std::move(c.scalar), std::move(c.bytes));
      });
    }
    for (const auto& st : statements_) {
      with_error_context(st.where, [&] { b.add(st.call); });
    }
    for (const auto& out : outputs_) {
      with_error_context(out.where, [&] { b.output(out.name); });
    }
    check(!graph_.outputs().empty(), "{}: the graph has no outputs (add 'outputs {{ name; }}')",
          header_where_);
    return std::move(graph_);
  }

  const std::string& file_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  Graph graph_;
  std::string header_where_;
  const Token* open_ = nullptr;
  std::vector<InputDecl> inputs_;
  std::vector<ConstDecl> consts_;
  std::vector<Statement> statements_;
  std::vector<OutputRef> outputs_;
};

}  // namespace

Graph parse_text(std::string_view text, const std::string& filename) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  return TextParser(text, filename).parse();
}

}  // namespace wnn::format
