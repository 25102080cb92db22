// Element-wise operators: binary arithmetic, comparisons, logic, unary math, cast and where.
#include "wnn/core/error.h"
#include "wnn/core/ops/schema.h"

namespace wnn::ops {

using namespace schema;

namespace {

OpSchema binary(OpKind kind, std::string_view name, std::string_view doc, DataTypeSet dtypes,
                std::optional<DataType> output_dtype) {
  OpSchema s;
  s.kind = kind;
  s.name = name;
  s.family = "elementwise";
  s.doc = doc;
  s.args = {operand("a", dtypes), operand("b", dtypes)};
  s.infer = [output_dtype](const InferContext& ctx) {
    require_same_dtype(ctx, {"a", "b"});
    const auto& a = ctx.operand("a");
    const auto& b = ctx.operand("b");
    const auto shape = broadcast_shapes(a.shape, b.shape);
    check(shape.has_value(), "shapes {} and {} do not broadcast", shape_to_string(a.shape),
          shape_to_string(b.shape));
    return std::vector<OperandDesc>{{output_dtype.value_or(a.dtype), *shape}};
  };
  return s;
}

// The IDL names the operand `input`, except for logicalNot, isNaN and isInfinite (`a`).
OpSchema unary(OpKind kind, std::string_view name, std::string_view doc, DataTypeSet dtypes,
               std::optional<DataType> output_dtype = std::nullopt,
               std::string_view operand_name = "input") {
  OpSchema s;
  s.kind = kind;
  s.name = name;
  s.family = "elementwise";
  s.doc = doc;
  s.args = {operand(operand_name, dtypes)};
  s.infer = [output_dtype, operand_name](const InferContext& ctx) {
    const auto& in = ctx.operand(operand_name);
    return std::vector<OperandDesc>{{output_dtype.value_or(in.dtype), in.shape}};
  };
  return s;
}

}  // namespace

void register_elementwise(std::vector<OpSchema>& t) {
  const DataTypeSet all = dtypes::kNoInt4;
  const DataTypeSet fl = dtypes::kFloat;
  const DataTypeSet sn = dtypes::kSignedNumeric;
  const auto u8 = DataType::kUint8;
  t.push_back(binary(OpKind::kAdd, "add", "a + b, broadcast", all, {}));
  t.push_back(binary(OpKind::kSub, "sub", "a - b, broadcast", all, {}));
  t.push_back(binary(OpKind::kMul, "mul", "a * b, broadcast", all, {}));
  t.push_back(binary(OpKind::kDiv, "div", "a / b, broadcast (integers truncate)", all, {}));
  t.push_back(binary(OpKind::kMax, "max", "element-wise maximum, broadcast", all, {}));
  t.push_back(binary(OpKind::kMin, "min", "element-wise minimum, broadcast", all, {}));
  t.push_back(binary(OpKind::kPow, "pow", "a raised to b, broadcast", all, {}));
  t.push_back(binary(OpKind::kEqual, "equal", "a == b as uint8", all, u8));
  t.push_back(binary(OpKind::kNotEqual, "notEqual", "a != b as uint8", all, u8));
  t.push_back(binary(OpKind::kGreater, "greater", "a > b as uint8", all, u8));
  t.push_back(binary(OpKind::kGreaterOrEqual, "greaterOrEqual", "a >= b as uint8", all, u8));
  t.push_back(binary(OpKind::kLesser, "lesser", "a < b as uint8", all, u8));
  t.push_back(binary(OpKind::kLesserOrEqual, "lesserOrEqual", "a <= b as uint8", all, u8));
  t.push_back(
      binary(OpKind::kLogicalAnd, "logicalAnd", "a && b (nonzero is true)", dtypes::kUint8, u8));
  t.push_back(
      binary(OpKind::kLogicalOr, "logicalOr", "a || b (nonzero is true)", dtypes::kUint8, u8));
  t.push_back(binary(OpKind::kLogicalXor, "logicalXor", "a != b as booleans", dtypes::kUint8, u8));
  t.push_back(
      unary(OpKind::kLogicalNot, "logicalNot", "!a (nonzero is true)", dtypes::kUint8, u8, "a"));

  t.push_back(unary(OpKind::kAbs, "abs", "|x|", sn));
  t.push_back(unary(OpKind::kCeil, "ceil", "round up", fl));
  t.push_back(unary(OpKind::kCos, "cos", "cosine", fl));
  t.push_back(unary(OpKind::kErf, "erf", "Gauss error function", fl));
  t.push_back(unary(OpKind::kExp, "exp", "e^x", fl));
  t.push_back(unary(OpKind::kFloor, "floor", "round down", fl));
  t.push_back(unary(OpKind::kIdentity, "identity", "a copy of the input", dtypes::kAll));
  t.push_back(unary(OpKind::kLog, "log", "natural logarithm", fl));
  t.push_back(unary(OpKind::kNeg, "neg", "-x (integers wrap)", sn));
  t.push_back(unary(OpKind::kReciprocal, "reciprocal", "1 / x", fl));
  t.push_back(unary(OpKind::kRoundEven, "roundEven", "round to nearest, ties to even", fl));
  t.push_back(unary(OpKind::kSign, "sign", "-1, 0 or 1 by the sign of x", sn));
  t.push_back(unary(OpKind::kSin, "sin", "sine", fl));
  t.push_back(unary(OpKind::kSqrt, "sqrt", "square root", fl));
  t.push_back(unary(OpKind::kTan, "tan", "tangent", fl));
  t.push_back(unary(OpKind::kIsNaN, "isNaN", "1 where a is NaN, as uint8", fl, u8, "a"));
  t.push_back(
      unary(OpKind::kIsInfinite, "isInfinite", "1 where a is +-inf, as uint8", fl, u8, "a"));

  {
    OpSchema s;
    s.kind = OpKind::kCast;
    s.name = "cast";
    s.family = "elementwise";
    s.doc = "convert to another data type (floats to integers truncate toward zero)";
    s.args = {operand("input", dtypes::kAll), arg("dataType", ParamKind::kDataType, "target type")};
    s.infer = [](const InferContext& ctx) {
      const auto& in = ctx.operand("input");
      return std::vector<OperandDesc>{{ctx.attrs().get_dtype("dataType"), in.shape}};
    };
    t.push_back(std::move(s));
  }
  {
    OpSchema s;
    s.kind = OpKind::kWhere;
    s.name = "where";
    s.family = "elementwise";
    s.doc = "trueValue where condition is nonzero, else falseValue; all three broadcast";
    s.args = {operand("condition", dtypes::kUint8), operand("trueValue", dtypes::kNoInt4),
              operand("falseValue", dtypes::kNoInt4)};
    s.infer = [](const InferContext& ctx) {
      require_same_dtype(ctx, {"trueValue", "falseValue"});
      const auto& c = ctx.operand("condition");
      const auto& a = ctx.operand("trueValue");
      const auto& b = ctx.operand("falseValue");
      auto ab = broadcast_shapes(a.shape, b.shape);
      check(ab.has_value(), "trueValue {} and falseValue {} do not broadcast",
            shape_to_string(a.shape), shape_to_string(b.shape));
      auto all = broadcast_shapes(c.shape, *ab);
      check(all.has_value(), "condition {} does not broadcast with {}", shape_to_string(c.shape),
            shape_to_string(*ab));
      return std::vector<OperandDesc>{{a.dtype, *all}};
    };
    t.push_back(std::move(s));
  }
}

}  // namespace wnn::ops
