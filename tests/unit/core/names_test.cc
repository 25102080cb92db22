// The operand-name grammar (core/names.h) and NameMapper: which names the text form holds, and
// that mapping is valid, deterministic and injective on hostile names.
#include "wnn/core/names.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "random_names.h"
#include "wnn/core/error.h"

namespace wnn {
namespace {

TEST(NameGrammar, NamesExportersWrite) {
  for (const char* ok : {"x", "conv1.weight", "/encoder/ln_1", "onnx::MatMul_12", "$x", "_0", "a-b",
                         "/", "a/b/c", "x::y::z", "truex", "nan_1", "inf.0", "Null"}) {
    EXPECT_TRUE(is_valid_operand_name(ok)) << ok;
  }
  for (const char* bad : {"",      "input:0", "input_1:0", "a:b",  "a::",
                          "a:::b", "::a",     "0x",        "1",    ".a",
                          "-a",    "a b",     "a//b",      "//a",  "/model/If/then//model/x",
                          "a/*b",  "\"y\"",   "a\"",       "a#b",  "a;b",
                          "a=b",   "a,b",     "a(b",       "a\nb", "é",
                          "aé",    "true",    "false",     "null", "inf",
                          "nan",   "@x",      "a@"}) {
    EXPECT_FALSE(is_valid_operand_name(bad)) << bad;
  }
}

TEST(NameGrammar, TokenLengthStopsWhereTheLexerStops) {
  EXPECT_EQ(name_token_length("x: f32[1]"), 1u);
  EXPECT_EQ(name_token_length("onnx::MatMul_12;"), 15u);
  EXPECT_EQ(name_token_length("a::;"), 1u);
  EXPECT_EQ(name_token_length("a/b// comment"), 3u);
  EXPECT_EQ(name_token_length("a/b/"), 4u);
  EXPECT_EQ(name_token_length("// comment"), 0u);
  EXPECT_EQ(name_token_length("0a"), 0u);
  EXPECT_EQ(name_token_length("x-inf"), 5u);
}

TEST(NameMapper, EveryResultIsValidDistinctAndStable) {
  const std::vector<std::string> names = wnn::testing::random_names(7, 3000, true);
  NameMapper a, b;
  std::map<std::string, std::string> first;  // original -> mapped
  std::set<std::string> results;
  for (const std::string& n : names) {
    const std::string m = a.map(n);
    EXPECT_TRUE(is_valid_operand_name(m)) << m;
    EXPECT_LE(m.size(), NameMapper::kMaxMappedNameBytes);
    if (auto it = first.find(n); it != first.end()) {
      EXPECT_EQ(it->second, m);  // the same name maps the same way every time
      continue;
    }
    first.emplace(n, m);
    EXPECT_TRUE(results.insert(m).second) << "two names became '" << m << "'";
    if (is_valid_operand_name(n) && n.size() <= NameMapper::kMaxMappedNameBytes) {
      EXPECT_EQ(m, n);  // kept (nothing else took it first in this order)
    }
  }
  // Another mapper fed the same names in the same order answers the same (deterministic).
  for (const std::string& n : names) EXPECT_EQ(b.map(n), first.at(n));
}

TEST(NameMapper, MapsExporterNamesReadably) {
  NameMapper m;
  const std::string tf = m.map("input:0");
  EXPECT_EQ(tf.rfind("input_0_", 0), 0u) << tf;
  EXPECT_EQ(tf.size(), std::string("input_0_").size() + 8);
  const std::string branch = m.map("/model/If/then//model/x");
  EXPECT_EQ(branch.rfind("/model/If/then/_model/x_", 0), 0u) << branch;
  const std::string reserved = m.map("true");
  EXPECT_EQ(reserved.rfind("true_", 0), 0u) << reserved;
  const std::string digit = m.map("0");
  EXPECT_EQ(digit.rfind("v_0_", 0), 0u) << digit;
  // A name that looks like a mapped one is kept; the mapped one is re-hashed around it.
  NameMapper n;
  n.reserve(tf);
  EXPECT_EQ(n.map(tf), tf);
  const std::string again = n.map("input:0");
  EXPECT_NE(again, tf);
  EXPECT_TRUE(is_valid_operand_name(again));
}

TEST(NameMapper, ReserveKeepsValidNamesAndMapsTheRest) {
  NameMapper m;
  m.reserve("logits");
  m.reserve("output:0");
  EXPECT_EQ(m.map("logits"), "logits");
  EXPECT_NE(m.map("output:0"), "output:0");
  // A taken name (the builder made it) is not handed out again.
  NameMapper taken([](const std::string& n) { return n == "y"; });
  EXPECT_NE(taken.map("y"), "y");
  EXPECT_TRUE(is_valid_operand_name(taken.map("y")));
}

}  // namespace
}  // namespace wnn
