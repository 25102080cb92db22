// Random operand names for the name-grammar property tests (core and format): names as
// exporters and attackers write them.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace wnn::testing {

// `count` random names, then fixed edge cases. Each is any bytes 0x00..0xff (when `any_byte`,
// a third of them) or a run of pieces: UTF-8, ':' and '::', comment starters, quotes, spaces,
// digits, reserved words, punctuation. About one in 13 is 2,000..10,000 bytes long.
inline std::vector<std::string> random_names(uint32_t seed, size_t count, bool any_byte) {
  // clang-format off
  static const std::vector<std::string> pieces = {
      "a", "Z", "x1", "0", "9", ":", "::", "/", "//", "/*", "*/", "\"", "'", " ", "\t", "\n",
      "-", ".", "$", "_", "true", "false", "null", "inf", "nan", "-inf", "+", "#", "=", ";",
      "{", "}", "[", "]", "(", ")", "@", "\\", ",", "onnx", "v1", "dyn", "inputs", "\xc3\xa9",
      "\xe5\x90\x8d", "\xf0\x9f\x98\x80"};
  // clang-format on
  std::mt19937 rng(seed);
  std::vector<std::string> out;
  while (out.size() < count) {
    std::string s;
    const bool bytes = any_byte && rng() % 3 == 0;
    const size_t len = rng() % 13 == 0 ? 2000 + rng() % 8001 : 1 + rng() % 10;
    while (s.size() < len) {
      s += bytes ? std::string(1, char(rng() % 256)) : pieces[rng() % pieces.size()];
    }
    out.push_back(std::move(s));
  }
  for (const char* fixed : {"true", "false", "null", "inf", "nan", "input:0", "input_0", "0",
                            "/model/decoder/If/then//model/decoder/x", "\"y\"", "a b", "a_b"}) {
    out.emplace_back(fixed);
  }
  if (any_byte) out.emplace_back("");
  out.push_back(std::string(10000, 'n'));
  out.push_back(std::string(10000, '/'));
  out.push_back(std::string(10000, ':'));
  out.push_back(std::string(5000, 'x') + ":0");
  return out;
}

}  // namespace wnn::testing
