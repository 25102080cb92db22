// The operator table: one entry per OpKind, names agreeing with the op list, and every
// default holding a value of its parameter's kind.
#include <gtest/gtest.h>

#include <set>

#include "wnn/core/ops/describe.h"
#include "wnn/core/ops/schema.h"

namespace wnn {
namespace {

bool default_matches_kind(const ParamSpec& p) {
  const Value& v = p.default_value;
  if (std::holds_alternative<std::monostate>(v)) return true;
  switch (p.kind) {
    case ParamKind::kBool:
      return std::holds_alternative<bool>(v);
    case ParamKind::kInt:
      return std::holds_alternative<int64_t>(v);
    case ParamKind::kFloat:
      return std::holds_alternative<double>(v);
    case ParamKind::kNumber:
      return std::holds_alternative<double>(v) || std::holds_alternative<int64_t>(v);
    case ParamKind::kIntList:
      return std::holds_alternative<IntList>(v);
    case ParamKind::kFloatList:
      return std::holds_alternative<FloatList>(v);
    case ParamKind::kEnum: {
      const auto* s = std::get_if<std::string>(&v);
      if (s == nullptr) return false;
      for (auto e : p.enum_values) {
        if (e == *s) return true;
      }
      return false;
    }
    case ParamKind::kEnumList:
      return std::holds_alternative<StringList>(v);
    case ParamKind::kDataType:
      return std::holds_alternative<DataType>(v);
    case ParamKind::kString:
      return std::holds_alternative<std::string>(v);
    case ParamKind::kOperand:
    case ParamKind::kOperandList:
    case ParamKind::kIntOrIntList:
      return false;
  }
  return false;
}

TEST(OperatorTable, HasOneEntryPerOpKindWithMatchingNames) {
  const auto table = all_schemas();
  ASSERT_EQ(table.size(), size_t(kNumOps));
  std::set<std::string_view> names;
  for (size_t i = 0; i < table.size(); ++i) {
    EXPECT_EQ(size_t(table[i].kind), i);
    EXPECT_EQ(table[i].name, op_name(table[i].kind));
    EXPECT_TRUE(names.insert(table[i].name).second) << "duplicate " << table[i].name;
    EXPECT_EQ(find_schema(table[i].name), &table[i]);
    EXPECT_FALSE(table[i].doc.empty()) << table[i].name << " has no doc line";
    EXPECT_TRUE(bool(table[i].infer)) << table[i].name << " has no inference";
  }
  EXPECT_EQ(find_schema("conv2D"), nullptr);
}

TEST(OperatorTable, DefaultsHaveTheirParameterKind) {
  for (const auto& s : all_schemas()) {
    std::set<std::string_view> params;
    for (size_t i = 0; i < s.num_params(); ++i) {
      const ParamSpec& p = s.param(i);
      EXPECT_TRUE(params.insert(p.name).second) << s.name << "." << p.name << " twice";
      EXPECT_TRUE(default_matches_kind(p)) << s.name << "." << p.name;
      if (p.kind == ParamKind::kOperand || p.kind == ParamKind::kOperandList) {
        EXPECT_FALSE(p.dtypes.empty()) << s.name << "." << p.name << " accepts no dtype";
      }
    }
    for (const auto& a : s.args) {
      EXPECT_TRUE(std::holds_alternative<std::monostate>(a.default_value))
          << s.name << "." << a.name << ": positional arguments are required";
    }
  }
}

TEST(OperatorTable, SpecDefaultsThatAreEasyToGetWrong) {
  const auto& conv = schema_of(OpKind::kConv2d);
  const Attributes a(conv);
  EXPECT_EQ(a.get_ints("padding"), (IntList{0, 0, 0, 0}));
  EXPECT_EQ(a.get_int("groups"), 1);
  EXPECT_EQ(a.get_enum("filterLayout"), "oihw");
  EXPECT_EQ(Attributes(schema_of(OpKind::kConvTranspose2d)).get_enum("filterLayout"), "iohw");
  EXPECT_FALSE(Attributes(schema_of(OpKind::kReduceSum)).get_bool("keepDimensions"));
  EXPECT_FALSE(Attributes(schema_of(OpKind::kArgMax)).get_bool("keepDimensions"));
  EXPECT_TRUE(Attributes(schema_of(OpKind::kTriangular)).get_bool("upper"));
  EXPECT_DOUBLE_EQ(Attributes(schema_of(OpKind::kLeakyRelu)).get_float("alpha"), 0.01);
  EXPECT_DOUBLE_EQ(Attributes(schema_of(OpKind::kHardSigmoid)).get_float("alpha"), 0.2);
  EXPECT_TRUE(Attributes(schema_of(OpKind::kGru)).get_bool("resetAfter"));
  EXPECT_EQ(Attributes(schema_of(OpKind::kLstm)).get_strings("activations"),
            (StringList{"sigmoid", "tanh", "tanh"}));
  EXPECT_EQ(Attributes(schema_of(OpKind::kResample2d)).get_ints("axes"), (IntList{2, 3}));
}

TEST(OperatorTable, JsonListsEveryOperatorWithOptionsAndDefaults) {
  const auto j = operator_table_json();
  ASSERT_EQ(j["count"], kNumOps);
  bool saw_conv = false;
  for (const auto& op : j["operators"]) {
    if (op["name"] != "conv2d") continue;
    saw_conv = true;
    bool saw_padding = false;
    for (const auto& o : op["options"]) {
      if (o["name"] == "padding") {
        saw_padding = true;
        EXPECT_EQ(o["default"], nlohmann::json({0, 0, 0, 0}));
      }
    }
    EXPECT_TRUE(saw_padding);
  }
  EXPECT_TRUE(saw_conv);
}

}  // namespace
}  // namespace wnn
