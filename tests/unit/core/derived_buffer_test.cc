// core/derived_buffer: a buffer computed from another is computed once while a result is held
// (by source bytes and kind), keeps its source alive, and is computed again once every result
// is gone.
#include "wnn/core/derived_buffer.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>

namespace wnn {
namespace {

Buffer bytes_of(const char* text) {
  return Buffer::copy_of({reinterpret_cast<const std::byte*>(text), std::strlen(text)});
}

// The source's bytes reversed, counting the calls.
Buffer reversed(const Buffer& source, int& calls) {
  ++calls;
  Buffer out = Buffer::allocate(source.size());
  for (size_t i = 0; i < source.size(); ++i) {
    out.mutable_data()[i] = source.data()[source.size() - 1 - i];
  }
  return out;
}

std::string text_of(const Buffer& b) {
  return std::string(reinterpret_cast<const char*>(b.data()), b.size());
}

TEST(DerivedBuffer, ComputedOnceWhileHeld) {
  const Buffer source = bytes_of("weights-17");
  int calls = 0;
  const Buffer a = derived_buffer(source, "reverse", [&] { return reversed(source, calls); });
  const Buffer b = derived_buffer(source, "reverse", [&] { return reversed(source, calls); });
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(a.data(), b.data());
  EXPECT_EQ(text_of(a), "71-sthgiew");
  // Another kind, or other bytes of the same content, is another entry.
  const Buffer c = derived_buffer(source, "reverse twice", [&] { return reversed(source, calls); });
  const Buffer other = bytes_of("weights-17");
  const Buffer d = derived_buffer(other, "reverse", [&] { return reversed(other, calls); });
  EXPECT_EQ(calls, 3);
  EXPECT_NE(c.data(), a.data());
  EXPECT_NE(d.data(), a.data());
}

TEST(DerivedBuffer, ComputedAgainOnceEveryResultIsGone) {
  const Buffer source = bytes_of("abc");
  int calls = 0;
  {
    const Buffer a = derived_buffer(source, "reverse", [&] { return reversed(source, calls); });
  }
  const Buffer b = derived_buffer(source, "reverse", [&] { return reversed(source, calls); });
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(text_of(b), "cba");
}

TEST(DerivedBuffer, TheResultKeepsItsSourceAlive) {
  // While a result lives its source's memory stays taken, so no other bytes can be asked for
  // under that address; once the result goes, the source can go too.
  auto owner = std::make_shared<std::string>("xyz!");
  const std::weak_ptr<std::string> watch = owner;
  int calls = 0;
  Buffer result;
  {
    const Buffer source =
        Buffer::view(owner, reinterpret_cast<const std::byte*>(owner->data()), owner->size());
    owner.reset();
    result = derived_buffer(source, "reverse", [&] { return reversed(source, calls); });
  }
  EXPECT_FALSE(watch.expired());
  EXPECT_EQ(text_of(result), "!zyx");
  result = Buffer();
  EXPECT_TRUE(watch.expired());
}

TEST(DerivedBuffer, ALiveResultNamesItsSource) {
  const Buffer source = bytes_of("packed");
  int calls = 0;
  const Buffer result = derived_buffer(source, "reverse", [&] { return reversed(source, calls); });
  const auto found = derived_source(result, "reverse");
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->data(), source.data());
  EXPECT_FALSE(derived_source(result, "another kind").has_value());
  EXPECT_FALSE(derived_source(source, "reverse").has_value());  // not a result
  const Buffer copy = bytes_of("dekcap");                       // equal bytes, other memory
  EXPECT_FALSE(derived_source(copy, "reverse").has_value());
  EXPECT_EQ(unpacked4_kind(false, 64), "unpack4 uint4 64");
  EXPECT_NE(unpacked4_kind(true, 64), unpacked4_kind(false, 64));
}

}  // namespace
}  // namespace wnn
