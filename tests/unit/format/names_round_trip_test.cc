// Property tests of the one name grammar: the lexer and parser read exactly the names
// is_valid_operand_name accepts, and names mapped by NameMapper survive print -> parse in the
// text and the JSON form, whatever the original was.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "../core/random_names.h"
#include "wnn/core/builder.h"
#include "wnn/core/error.h"
#include "wnn/core/names.h"
#include "wnn/format/graph_file.h"
#include "wnn/format/text_lexer.h"

namespace wnn::format {
namespace {

// Whether the lexer reads `s` as exactly one name token.
bool lexer_reads_one_name(const std::string& s) {
  try {
    const std::vector<Token> t = tokenize(s, "t.webnn");
    return t.size() == 2 && t[0].kind == TokenKind::kName && t[0].begin == 0 &&
           t[0].end == s.size();
  } catch (const Error&) {
    return false;
  }
}

// Whether the parser accepts `s` as an input name and as an operand reference.
bool parser_reads_as_name(const std::string& s) {
  const std::string text = "webnn_graph \"g\" v1 {\n  inputs {\n    " + s +
                           ": f32[2];\n  }\n  nodes {\n    out_9f = relu(" + s +
                           ");\n  }\n  outputs {\n    out_9f;\n  }\n}\n";
  try {
    const Graph g = parse_text(text, "t.webnn");
    return g.inputs().size() == 1 && g.name_of(g.inputs()[0].id) == s;
  } catch (const Error&) {
    return false;
  }
}

TEST(NameGrammarProperty, LexerParserAndValidityAgree) {
  size_t valid = 0;
  for (const std::string& s : wnn::testing::random_names(11, 20000, true)) {
    const bool v = is_valid_operand_name(s);
    valid += v;
    EXPECT_EQ(v, lexer_reads_one_name(s) && !is_reserved_name(s)) << '"' << s << '"';
    if (s.size() < 200) {
      EXPECT_EQ(v, parser_reads_as_name(s)) << '"' << s << '"';
    }
  }
  EXPECT_GT(valid, 1000u);  // the generator reaches both sides
}

std::vector<std::string> operand_names(const Graph& g) {
  std::vector<std::string> names;
  for (const Operand& op : g.operands()) names.push_back(op.name);
  return names;
}

// A graph whose operands carry `names` in order: an input, a @scalar constant, a chain of
// add/relu nodes and a concat of all of them (an operand list); some nodes are outputs.
Graph graph_named(const std::vector<std::string>& names) {
  Graph g;
  GraphBuilder b(g);
  b.input(names[0], {DataType::kFloat32, {2}});
  b.constant(names[1], {DataType::kFloat32, {2}}, ConstantInitKind::kScalar, {}, 0.5);
  std::vector<OperandId> chain;
  OperandId prev = *g.find(names[0]);
  for (size_t i = 2; i + 1 < names.size(); ++i) {
    prev = i % 2 ? b.add1(OpKind::kRelu, {prev}, {}, names[i])
                 : b.add1(OpKind::kAdd, {prev, RawValue::Name{names[1]}}, {}, names[i]);
    chain.push_back(prev);
    if (i % 5 == 0) b.output(prev);
  }
  b.output(b.add1(OpKind::kConcat, {RawValue(chain)}, {{"axis", int64_t(0)}}, names.back()));
  return g;
}

void expect_round_trips(const Graph& g, const std::vector<std::string>& names) {
  ASSERT_EQ(operand_names(g), names);
  const std::string json = print_json(g);
  const Graph from_json = parse_json(json, "t.json");
  EXPECT_EQ(operand_names(from_json), names);
  EXPECT_EQ(print_json(from_json), json);
  for (const std::string& n : names) {
    if (!is_valid_operand_name(n)) return;  // only the JSON form holds this graph as it is
  }
  const std::string text = print_text(g);
  const Graph from_text = parse_text(text, "t.webnn");
  EXPECT_EQ(operand_names(from_text), names);
  EXPECT_EQ(print_text(from_text), text);
  EXPECT_EQ(print_json(from_text), json);
}

TEST(NameGrammarProperty, MappedNamesSurviveTextAndJson) {
  const std::vector<std::string> originals = wnn::testing::random_names(5, 4000, true);
  NameMapper mapper;
  std::vector<std::string> mapped;
  std::set<std::string> seen;
  for (const std::string& n : originals) {
    if (!seen.insert(n).second) continue;  // one operand per distinct name
    mapped.push_back(mapper.map(n));
  }
  // Graphs of 40 operands, so one bad name fails a small graph.
  for (size_t at = 0; at + 3 <= mapped.size(); at += 40) {
    const std::vector<std::string> names(mapped.begin() + long(at),
                                         mapped.begin() + long(std::min(at + 40, mapped.size())));
    if (names.size() < 4) break;
    for (const std::string& n : names) ASSERT_TRUE(is_valid_operand_name(n)) << n;
    expect_round_trips(graph_named(names), names);
  }
}

// JSON (like the WebNN API) allows any string as a name; the JSON form keeps it, and the
// text form gets NameMapper's names (wnn convert model.json -o model.webnn).
TEST(NameGrammarProperty, JsonKeepsAnyNameAndTextMapsIt) {
  const std::vector<std::string> originals = wnn::testing::random_names(3, 3000, false);
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (const std::string& n : originals) {
    // The IR's own limits: 1..4096 bytes without control characters.
    const bool control = std::any_of(n.begin(), n.end(), [](char c) {
      return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
    });
    if (n.size() > kMaxOperandNameBytes || control || !seen.insert(n).second) continue;
    names.push_back(n);
  }
  size_t mapped = 0;
  for (size_t at = 0; at + 40 <= names.size(); at += 40) {
    const std::vector<std::string> raw(names.begin() + long(at), names.begin() + long(at + 40));
    Graph g = graph_named(raw);
    expect_round_trips(g, raw);
    const auto renamed = map_names_for_text(g);
    std::vector<std::string> expected = raw;
    size_t r = 0;
    for (std::string& n : expected) {
      if (is_valid_operand_name(n)) continue;  // kept
      ASSERT_LT(r, renamed.size());
      EXPECT_EQ(renamed[r].first, n);
      n = renamed[r++].second;
      EXPECT_TRUE(is_valid_operand_name(n)) << n;
    }
    EXPECT_EQ(r, renamed.size());
    mapped += r;
    expect_round_trips(g, expected);
  }
  EXPECT_GT(mapped, 500u);  // most random names need mapping
}

TEST(NameGrammarProperty, PrinterRefusesANameOutsideTheGrammar) {
  Graph g = graph_named({"x", "c", "a b", "y"});
  try {
    print_text(g);
    ADD_FAILURE() << "printed 'a b'";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInternal);
    EXPECT_NE(std::string(e.what()).find("'a b'"), std::string::npos) << e.what();
  }
  // Saving maps instead.
  const std::string text = print_text_mapping_names(g);
  EXPECT_EQ(text.find("a b"), std::string::npos) << text;
  EXPECT_NE(text.find("a_b_"), std::string::npos) << text;
  EXPECT_EQ(g.name_of(g.nodes()[0].outputs[0]), "a b");  // the graph itself is untouched
}

}  // namespace
}  // namespace wnn::format
