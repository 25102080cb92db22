// The tokens of the .webnn text format. The lexer reads the whole file up front (a graph of
// 100k nodes is a few MB) so the parser can look ahead freely; every token keeps its line and
// column for diagnostics.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace wnn::format {

enum class TokenKind : uint8_t {
  kName,    // identifiers, keywords, dtypes, bare enum words, v1
  kInt,     // integer literal (no '.', 'e' or 'E'), possibly signed
  kFloat,   // float literal, and the words -inf / +inf
  kString,  // "..." with \" and \\ escapes; `text` holds the unescaped value
  kAt,      // @weights, @scalar, @bytes, @quantized: `text` holds the word after '@'
  kPunct,   // one of { } [ ] ( ) , ; : =
  kEnd,
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string_view text;  // the source text (a view into the input), or the word after '@'
  std::string value;      // kString only: the unescaped contents
  uint32_t line = 1;
  uint32_t col = 1;
  uint32_t begin = 0;  // byte offsets of the token in the source
  uint32_t end = 0;
  bool is(char punct) const {
    return kind == TokenKind::kPunct && text.size() == 1 && text[0] == punct;
  }
  bool is_name(std::string_view word) const { return kind == TokenKind::kName && text == word; }
};

// Splits `source` into tokens, ending with one kEnd token. Skips whitespace, `#` comments and
// `//` comments. Throws wnn::Error with file:line:col on a stray character, an unterminated
// string or a malformed number.
std::vector<Token> tokenize(std::string_view source, const std::string& filename);

// "file:line:col" for a token.
std::string location(const std::string& filename, const Token& token);

// What a token is, for "expected X, got Y" messages: "name 'x'", "'{'", "end of file".
std::string describe(const Token& token);

}  // namespace wnn::format
