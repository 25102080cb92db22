#include "wnn/core/utf8.h"

#include <gtest/gtest.h>

#include <string>

namespace wnn {
namespace {

TEST(Utf8, WellFormedAndIllFormedSequences) {
  constexpr size_t ok = std::string_view::npos;
  EXPECT_EQ(first_invalid_utf8(""), ok);
  EXPECT_EQ(first_invalid_utf8("ascii \x7f"), ok);
  EXPECT_EQ(first_invalid_utf8("\xc3\xa9\xe5\x90\x8d\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf"), ok);
  EXPECT_EQ(first_invalid_utf8("ab\xff"), 2u);
  EXPECT_EQ(first_invalid_utf8("a\xc0\xaf"), 1u);         // overlong '/'
  EXPECT_EQ(first_invalid_utf8("\xe0\x80\xaf"), 0u);      // overlong, 3 bytes
  EXPECT_EQ(first_invalid_utf8("x\xed\xa0\x80"), 1u);     // a surrogate
  EXPECT_EQ(first_invalid_utf8("\xf4\x90\x80\x80"), 0u);  // above U+10FFFF
  EXPECT_EQ(first_invalid_utf8("\xc3"), 0u);              // truncated
  EXPECT_EQ(first_invalid_utf8("\xe5\x90"), 0u);          // truncated
  EXPECT_EQ(first_invalid_utf8("\xc3\xa9\x80"), 2u);      // a lone continuation byte
  EXPECT_EQ(first_invalid_utf8(std::string("a\0b", 3)), ok);
}

}  // namespace
}  // namespace wnn
