// The format's parameter spellings (format/param_spelling): what the writers print, the readers
// map back to the operator table's name, for every parameter of every operator; and cast, the
// one operator the format spells differently from the IDL, reads in all its spellings.
#include "wnn/format/param_spelling.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include <string>

#include "wnn/core/ops/schema.h"
#include "wnn/format/graph_file.h"

namespace wnn::format {
namespace {

TEST(ParamSpelling, WhatWritersPrintReadsBackForEveryParameter) {
  size_t params = 0, respelled = 0;
  for (const OpSchema& s : all_schemas()) {
    for (size_t i = 0; i < s.num_params(); ++i) {
      const std::string_view table = s.param(i).name;
      const std::string_view file = file_param_name(s.name, table);
      EXPECT_EQ(table_param_name(s.name, file), table) << s.name << "." << table;
      // A respelling must not collide with another parameter of the same operator.
      if (file != table) {
        ++respelled;
        EXPECT_FALSE(s.find_param(file).has_value()) << s.name << "." << file;
      }
      ++params;
    }
  }
  EXPECT_GT(params, 300u);
  EXPECT_EQ(respelled, 1u);  // cast's dataType, printed type=
}

constexpr const char* kCastGraph = R"(webnn_graph "c" v1 {
  inputs {
    x: f32[2];
  }
  nodes {
    y = cast(x, %s="int32");
  }
  outputs {
    y;
  }
}
)";

std::string cast_graph(const char* spelling) {
  char buf[256];
  std::snprintf(buf, sizeof buf, kCastGraph, spelling);
  return buf;
}

TEST(ParamSpelling, CastReadsEverySpellingAndPrintsType) {
  for (const char* spelling : {"type", "to", "dataType"}) {
    const Graph g = parse_text(cast_graph(spelling), "c.webnn");
    EXPECT_EQ(g.desc(g.outputs()[0]).dtype, DataType::kInt32) << spelling;
    EXPECT_EQ(print_text(g), cast_graph("type")) << spelling;
    // The JSON form prints the same spelling, and reads it back.
    const std::string json = print_json(g);
    const auto options = nlohmann::json::parse(json)["nodes"][0]["options"];
    EXPECT_EQ(options, nlohmann::json::parse(R"({"type": "int32"})")) << json;
    EXPECT_EQ(print_text(parse_json(json, "c.json")), cast_graph("type"));
  }
}

TEST(ParamSpelling, OtherOperatorsAndNamesPassThrough) {
  EXPECT_EQ(table_param_name("reshape", "newShape"), "newShape");
  EXPECT_EQ(table_param_name("reshape", "to"), "to");  // only cast has the older spelling
  EXPECT_EQ(file_param_name("softmax", "axis"), "axis");
  EXPECT_EQ(table_param_name("cast", "input"), "input");
}

// The listing other readers are generated from (js/loader/operators.js) says what the two
// lookups do.
TEST(ParamSpelling, ListingAgreesWithTheLookups) {
  ASSERT_FALSE(param_spellings().empty());
  for (const ParamSpelling& s : param_spellings()) {
    EXPECT_EQ(file_param_name(s.op, s.table), s.file) << s.op;
    EXPECT_EQ(table_param_name(s.op, s.file), s.table) << s.op;
    for (std::string_view older : s.older) {
      if (!older.empty()) EXPECT_EQ(table_param_name(s.op, older), s.table) << s.op << " " << older;
    }
  }
  EXPECT_EQ(param_spellings()[0].op, "cast");
}

}  // namespace
}  // namespace wnn::format
