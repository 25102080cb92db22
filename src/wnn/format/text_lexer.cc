#include "wnn/format/text_lexer.h"

#include <fmt/format.h>

#include <limits>

#include "wnn/core/error.h"
#include "wnn/core/names.h"
#include "wnn/core/utf8.h"

namespace wnn::format {

namespace {

bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

class Lexer {
 public:
  Lexer(std::string_view src, const std::string& filename) : src_(src), file_(filename) {
    // Offsets are stored in 32 bits.
    check(src.size() < std::numeric_limits<uint32_t>::max(), "{}: file is larger than 4 GB",
          filename);
  }

  std::vector<Token> run() {
    std::vector<Token> out;
    out.reserve(src_.size() / 4 + 1);
    for (;;) {
      skip_space_and_comments();
      Token t;
      t.line = line_;
      t.col = col();
      t.begin = uint32_t(pos_);
      if (pos_ >= src_.size()) {
        t.end = t.begin;
        out.push_back(std::move(t));
        return out;
      }
      lex_one(t);
      t.end = uint32_t(pos_);
      if (t.kind != TokenKind::kAt) t.text = src_.substr(t.begin, t.end - t.begin);
      out.push_back(std::move(t));
    }
  }

 private:
  uint32_t col() const { return uint32_t(pos_ - line_start_ + 1); }
  char peek(size_t ahead = 0) const {
    return pos_ + ahead < src_.size() ? src_[pos_ + ahead] : '\0';
  }
  void newline() {
    ++line_;
    line_start_ = pos_;
  }
  [[noreturn]] void error_here(const std::string& message) const {
    fail("{}:{}:{}: {}", file_, line_, col(), message);
  }

  void skip_space_and_comments() {
    while (pos_ < src_.size()) {
      const char c = src_[pos_];
      if (c == '\n') {
        ++pos_;
        newline();
      } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
        ++pos_;
      } else if (c == '#' || (c == '/' && peek(1) == '/')) {
        while (pos_ < src_.size() && src_[pos_] != '\n') ++pos_;
      } else {
        return;
      }
    }
  }

  void lex_one(Token& t) {
    const char c = src_[pos_];
    if (const size_t n = name_token_length(src_.substr(pos_))) {
      t.kind = TokenKind::kName;
      pos_ += n;
    } else if (is_digit(c) || ((c == '-' || c == '+') && (is_digit(peek(1)) || peek(1) == '.')) ||
               (c == '.' && is_digit(peek(1)))) {
      lex_number(t);
    } else if ((c == '-' || c == '+') && src_.substr(pos_ + 1, 3) == "inf" &&
               !is_name_continue_byte(peek(4))) {
      t.kind = TokenKind::kFloat;
      pos_ += 4;
    } else if (c == '"') {
      t.kind = TokenKind::kString;
      lex_string(t);
    } else if (c == '@') {
      ++pos_;
      const size_t start = pos_;
      while (pos_ < src_.size() && (is_alpha(src_[pos_]) || src_[pos_] == '_')) ++pos_;
      if (pos_ == start) error_here("'@' must be followed by an annotation name");
      t.kind = TokenKind::kAt;
      t.text = src_.substr(start, pos_ - start);
    } else if (std::string_view("{}[](),;:=").find(c) != std::string_view::npos) {
      t.kind = TokenKind::kPunct;
      ++pos_;
    } else {
      const auto u = static_cast<unsigned char>(c);
      if (u >= 0x20 && u < 0x7f) error_here(fmt::format("unexpected character '{}'", c));
      error_here(fmt::format("unexpected byte 0x{:02x}", unsigned(u)));
    }
  }

  void lex_number(Token& t) {
    const size_t start = pos_;
    if (src_[pos_] == '-' || src_[pos_] == '+') ++pos_;
    bool is_float = false;
    while (is_digit(peek())) ++pos_;
    if (peek() == '.') {
      is_float = true;
      ++pos_;
      while (is_digit(peek())) ++pos_;
    }
    if (peek() == 'e' || peek() == 'E') {
      is_float = true;
      ++pos_;
      if (peek() == '-' || peek() == '+') ++pos_;
      if (!is_digit(peek())) {
        pos_ = start;
        error_here("malformed number: exponent has no digits");
      }
      while (is_digit(peek())) ++pos_;
    }
    if (is_name_continue_byte(peek())) {
      const size_t bad = pos_;
      pos_ = start;
      error_here(fmt::format("malformed number '{}'", src_.substr(start, bad - start + 1)));
    }
    t.kind = is_float ? TokenKind::kFloat : TokenKind::kInt;
  }

  void lex_string(Token& t) {
    const uint32_t line = line_;
    const uint32_t column = col();
    ++pos_;
    for (;;) {
      if (pos_ >= src_.size()) {
        fail("{}:{}:{}: unterminated string (no closing '\"')", file_, line, column);
      }
      const char c = src_[pos_++];
      if (c == '"') {
        // Strings are WebNN strings, and the JSON form (like a safetensors key) holds only
        // UTF-8.
        if (const size_t bad = first_invalid_utf8(t.value); bad != std::string_view::npos) {
          fail("{}:{}:{}: the string is not valid UTF-8 (byte {} of its contents)", file_, line,
               column, bad);
        }
        return;
      }
      if (c == '\n') newline();
      if (c != '\\') {
        t.value.push_back(c);
        continue;
      }
      const char e = peek();
      switch (e) {
        case '"':
          t.value.push_back('"');
          break;
        case '\\':
          t.value.push_back('\\');
          break;
        case 'n':
          t.value.push_back('\n');
          break;
        case 't':
          t.value.push_back('\t');
          break;
        default:
          --pos_;
          error_here(e == '\0' ? std::string("unterminated string")
                               : fmt::format("unknown escape '\\{}' in string", e));
      }
      ++pos_;
    }
  }

  std::string_view src_;
  const std::string& file_;
  size_t pos_ = 0;
  size_t line_start_ = 0;
  uint32_t line_ = 1;
};

}  // namespace

std::vector<Token> tokenize(std::string_view source, const std::string& filename) {
  return Lexer(source, filename).run();
}

std::string location(const std::string& filename, const Token& token) {
  return fmt::format("{}:{}:{}", filename, token.line, token.col);
}

std::string describe(const Token& token) {
  switch (token.kind) {
    case TokenKind::kEnd:
      return "end of file";
    case TokenKind::kName:
      return fmt::format("name '{}'", token.text);
    case TokenKind::kInt:
    case TokenKind::kFloat:
      return fmt::format("number {}", token.text);
    case TokenKind::kString:
      return fmt::format("string \"{}\"", token.value);
    case TokenKind::kAt:
      return fmt::format("'@{}'", token.text);
    case TokenKind::kPunct:
      return fmt::format("'{}'", token.text);
  }
  return "token";
}

}  // namespace wnn::format
