// The one reader of free-dimension override keys: a key is an axis of a graph input when it
// ends in ":<digits>" and the rest names an input, otherwise a dimension name; values are
// split at the last '='.
#include "wnn/onnx/dim_overrides.h"

#include <gtest/gtest.h>

#include <set>

#include "wnn/core/error.h"

namespace wnn::onnx {
namespace {

bool is_input(std::string_view n) {
  static const std::set<std::string, std::less<>> inputs = {"x", "input:0", "a=b", "p2o.x:y"};
  return inputs.count(n) > 0;
}

TEST(DimOverrides, AxisReferenceNeedsAGraphInputBeforeTheLastColon) {
  EXPECT_EQ(parse_axis_reference("x:1", is_input), (InputAxis{"x", 1}));
  EXPECT_EQ(parse_axis_reference("x:0", is_input), (InputAxis{"x", 0}));
  EXPECT_EQ(parse_axis_reference("x:12", is_input), (InputAxis{"x", 12}));
  // Input names hold ':': the last one separates the axis.
  EXPECT_EQ(parse_axis_reference("input:0:1", is_input), (InputAxis{"input:0", 1}));
  EXPECT_EQ(parse_axis_reference("p2o.x:y:3", is_input), (InputAxis{"p2o.x:y", 3}));
  // "input:0" alone is axis 0 of an input called "input", which does not exist: a dim name.
  EXPECT_EQ(parse_axis_reference("input:0", is_input), std::nullopt);
  EXPECT_EQ(parse_axis_reference("y:1", is_input), std::nullopt);
  EXPECT_EQ(parse_axis_reference("x:", is_input), std::nullopt);
  EXPECT_EQ(parse_axis_reference("x:-1", is_input), std::nullopt);
  EXPECT_EQ(parse_axis_reference("x:1a", is_input), std::nullopt);
  EXPECT_EQ(parse_axis_reference(":1", is_input), std::nullopt);
  EXPECT_EQ(parse_axis_reference("batch", is_input), std::nullopt);
  EXPECT_EQ(parse_axis_reference("x:99999999999", is_input), std::nullopt);
}

TEST(DimOverrides, AxisKeyReadsBackAsItsAxis) {
  for (const char* input : {"x", "input:0", "p2o.x:y", "a=b"}) {
    for (size_t axis : {0u, 1u, 7u, 10u}) {
      EXPECT_EQ(parse_axis_reference(axis_key(input, axis), is_input), (InputAxis{input, axis}))
          << input << " " << axis;
    }
  }
}

TEST(DimOverrides, SplitsAtTheLastEquals) {
  EXPECT_EQ(parse_dim_override("batch=3", "--override-dim"),
            (std::pair<std::string, int64_t>{"batch", 3}));
  EXPECT_EQ(parse_dim_override("input:0:1=0", "--override-dim"),
            (std::pair<std::string, int64_t>{"input:0:1", 0}));
  EXPECT_EQ(parse_dim_override("a=b:2=17", "--override-dim"),
            (std::pair<std::string, int64_t>{"a=b:2", 17}));
}

TEST(DimOverrides, RejectsBadValuesNamingTheFlag) {
  for (const char* bad :
       {"batch", "=3", "batch=", "batch=-1", "batch=2x", "batch=1.5", "x:1=3=", "batch= 3"}) {
    try {
      parse_dim_override(bad, "--override-dim");
      ADD_FAILURE() << bad << " was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("--override-dim"), std::string::npos) << e.what();
    }
  }
}

TEST(DimOverrides, FlagNamesTheDimOrTheAxis) {
  EXPECT_EQ(dim_override_flag("x", 1, "seq"), "--override-dim seq=V");
  EXPECT_EQ(dim_override_flag("input:0", 2, ""), "--override-dim input:0:2=V");
}

TEST(DimOverrides, ClassifiesKeysAndRejectsTwoValuesForOneAxis) {
  const DimOverrides d =
      classify_dim_overrides({{"x:1", 4}, {"input:0:0", 2}, {"seq", 9}, {"input:0", 5}}, is_input);
  EXPECT_EQ(d.axes.size(), 2u);
  EXPECT_EQ(d.axes.at({"x", 1}), 4);
  EXPECT_EQ(d.axes.at({"input:0", 0}), 2);
  EXPECT_EQ(d.names.size(), 2u);
  EXPECT_EQ(d.names.at("seq"), 9);
  EXPECT_EQ(d.names.at("input:0"), 5);
  EXPECT_NO_THROW(classify_dim_overrides({{"x:1", 4}, {"x:01", 4}}, is_input));
  EXPECT_THROW(classify_dim_overrides({{"x:1", 4}, {"x:01", 3}}, is_input), Error);
}

}  // namespace
}  // namespace wnn::onnx
