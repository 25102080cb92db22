// The linear-time ordered JSON reader behind the JSON graph format.
#include "wnn/format/ordered_json_reader.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "wnn/core/error.h"

namespace wnn::format {
namespace {

TEST(OrderedJsonReader, KeepsDocumentOrderAndEveryValueKind) {
  const auto j = parse_ordered_json(
      R"({"z": [1, -2, 3.5, true, null, "s"], "a": {"y": {}, "b": []}, "m": -0.0})", "t.json");
  ASSERT_TRUE(j.is_object());
  std::string keys;
  for (const auto& [k, v] : j.items()) keys += k;
  EXPECT_EQ(keys, "zam");  // not sorted
  EXPECT_EQ(j["z"][1].get<int64_t>(), -2);
  EXPECT_EQ(j["z"][2].get<double>(), 3.5);
  EXPECT_TRUE(j["z"][4].is_null());
  EXPECT_EQ(j["z"][5], "s");
  std::string inner;
  for (const auto& [k, v] : j["a"].items()) inner += k;
  EXPECT_EQ(inner, "yb");
  EXPECT_TRUE(std::signbit(j["m"].get<double>()));
}

TEST(OrderedJsonReader, RepeatedKeyInAnyObjectIsAnError) {
  try {
    parse_ordered_json(R"({"a": {"k": 1, "j": 2, "k": 3}})", "dup.json");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("dup.json: JSON object declares 'k' twice"),
              std::string::npos)
        << e.what();
  }
  // The same key in two different objects is fine.
  EXPECT_EQ(parse_ordered_json(R"({"a": {"k": 1}, "b": {"k": 2}})", "ok.json")["b"]["k"], 2);
}

TEST(OrderedJsonReader, MalformedJsonThrowsParseErrorWithPosition) {
  try {
    parse_ordered_json("{\"a\": [1, 2,, 3]}", "bad.json");
    FAIL() << "expected a parse error";
  } catch (const nlohmann::ordered_json::parse_error& e) {
    EXPECT_EQ(e.byte, 13u);
  }
}

TEST(OrderedJsonReader, NumberOverflowIsAnErrorNotAnEscapingException) {
  // Found by fuzz_graph_json: nlohmann reports it as out_of_range, not parse_error.
  try {
    parse_ordered_json(R"({"v": [1, 99999e99875]})", "big.json");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "big.json: not valid JSON: number overflow parsing '99999e99875'");
  }
}

}  // namespace
}  // namespace wnn::format
