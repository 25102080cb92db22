// Shape and dtype inference of every operator: at least one accepted case with a non-trivial
// shape and one rejected case with its message, per operator. A test at the end checks that
// both lists cover every operator in the table.
#include <set>

#include "infer_test_util.h"
#include "wnn/core/ops/schema.h"

namespace wnn::testing {
namespace {

constexpr DataType F = DataType::kFloat32;
constexpr DataType H = DataType::kFloat16;
constexpr DataType I32 = DataType::kInt32;
constexpr DataType I64 = DataType::kInt64;
constexpr DataType U8 = DataType::kUint8;
constexpr DataType I8 = DataType::kInt8;
constexpr DataType I4 = DataType::kInt4;

struct Accepted {
  InferCase c;
  std::vector<OperandDesc> expected;
};
struct Rejected {
  InferCase c;
  std::string message;  // a substring of the error
};

const IntList kPad1 = {1, 1, 1, 1};

std::vector<Accepted> accepted_cases() {
  using L = IntList;
  return {
      // elementwise
      {{"add", {{"a", F, {2, 1, 5}}, {"b", F, {3, 1}}}, {pos("a"), pos("b")}}, {{F, {2, 3, 5}}}},
      {{"sub", {{"a", I32, {4}}, {"b", I32, {}}}, {pos("a"), pos("b")}}, {{I32, {4}}}},
      {{"mul", {{"a", H, {1, 7}}, {"b", H, {3, 1}}}, {pos("a"), pos("b")}}, {{H, {3, 7}}}},
      {{"div", {{"a", F, {6, 1, 1}}, {"b", F, {5, 4}}}, {pos("a"), pos("b")}}, {{F, {6, 5, 4}}}},
      {{"max", {{"a", U8, {2, 3}}, {"b", U8, {2, 3}}}, {pos("a"), pos("b")}}, {{U8, {2, 3}}}},
      {{"min", {{"a", I64, {3, 1}}, {"b", I64, {1, 3}}}, {pos("a"), pos("b")}}, {{I64, {3, 3}}}},
      {{"pow", {{"a", F, {2, 3}}, {"b", F, {3}}}, {pos("a"), pos("b")}}, {{F, {2, 3}}}},
      {{"equal", {{"a", F, {2, 3}}, {"b", F, {1}}}, {pos("a"), pos("b")}}, {{U8, {2, 3}}}},
      {{"notEqual", {{"a", I32, {5}}, {"b", I32, {5}}}, {pos("a"), pos("b")}}, {{U8, {5}}}},
      {{"greater", {{"a", F, {1, 4}}, {"b", F, {3, 1}}}, {pos("a"), pos("b")}}, {{U8, {3, 4}}}},
      {{"greaterOrEqual", {{"a", H, {2}}, {"b", H, {2}}}, {pos("a"), pos("b")}}, {{U8, {2}}}},
      {{"lesser", {{"a", I8, {3}}, {"b", I8, {}}}, {pos("a"), pos("b")}}, {{U8, {3}}}},
      {{"lesserOrEqual", {{"a", F, {}}, {"b", F, {}}}, {pos("a"), pos("b")}}, {{U8, {}}}},
      {{"logicalAnd", {{"a", U8, {4, 1}}, {"b", U8, {3}}}, {pos("a"), pos("b")}}, {{U8, {4, 3}}}},
      {{"logicalOr", {{"a", U8, {2}}, {"b", U8, {2}}}, {pos("a"), pos("b")}}, {{U8, {2}}}},
      {{"logicalXor", {{"a", U8, {2, 2}}, {"b", U8, {2}}}, {pos("a"), pos("b")}}, {{U8, {2, 2}}}},
      {{"logicalNot", {{"x", U8, {3, 5}}}, {pos("x")}}, {{U8, {3, 5}}}},
      {{"abs", {{"x", I8, {3, 5}}}, {pos("x")}}, {{I8, {3, 5}}}},
      {{"ceil", {{"x", F, {2, 3}}}, {pos("x")}}, {{F, {2, 3}}}},
      {{"cos", {{"x", H, {7}}}, {pos("x")}}, {{H, {7}}}},
      {{"erf", {{"x", F, {1, 2, 3}}}, {pos("x")}}, {{F, {1, 2, 3}}}},
      {{"exp", {{"x", F, {}}}, {pos("x")}}, {{F, {}}}},
      {{"floor", {{"x", F, {4, 4}}}, {pos("x")}}, {{F, {4, 4}}}},
      {{"identity", {{"x", I4, {3}}}, {pos("x")}}, {{I4, {3}}}},
      {{"log", {{"x", F, {5}}}, {pos("x")}}, {{F, {5}}}},
      {{"neg", {{"x", I64, {2}}}, {pos("x")}}, {{I64, {2}}}},
      {{"reciprocal", {{"x", H, {3, 3}}}, {pos("x")}}, {{H, {3, 3}}}},
      {{"roundEven", {{"x", F, {9}}}, {pos("x")}}, {{F, {9}}}},
      {{"sign", {{"x", I32, {2, 5}}}, {pos("x")}}, {{I32, {2, 5}}}},
      {{"sin", {{"x", F, {6}}}, {pos("x")}}, {{F, {6}}}},
      {{"sqrt", {{"x", F, {1, 1}}}, {pos("x")}}, {{F, {1, 1}}}},
      {{"tan", {{"x", F, {3}}}, {pos("x")}}, {{F, {3}}}},
      {{"isNaN", {{"x", F, {2, 3}}}, {pos("x")}}, {{U8, {2, 3}}}},
      {{"isInfinite", {{"x", H, {4}}}, {pos("x")}}, {{U8, {4}}}},
      {{"cast", {{"x", F, {2, 3}}}, {pos("x"), named("dataType", "int64")}}, {{I64, {2, 3}}}},
      {{"where",
        {{"c", U8, {2, 1, 3}}, {"t", F, {4, 1}}, {"f", F, {3}}},
        {pos("c"), pos("t"), pos("f")}},
       {{F, {2, 4, 3}}}},
      // activation
      {{"clamp", {{"x", I32, {3}}}, {pos("x"), named("minValue", 0), named("maxValue", 0)}},
       {{I32, {3}}}},
      {{"elu", {{"x", F, {2, 2}}}, {pos("x"), named("alpha", 0.0)}}, {{F, {2, 2}}}},
      {{"gelu", {{"x", H, {5}}}, {pos("x")}}, {{H, {5}}}},
      {{"hardSigmoid", {{"x", F, {3}}}, {pos("x"), named("alpha", 0.0), named("beta", 0.0)}},
       {{F, {3}}}},
      {{"hardSwish", {{"x", F, {1, 3}}}, {pos("x")}}, {{F, {1, 3}}}},
      {{"leakyRelu", {{"x", F, {4}}}, {pos("x"), named("alpha", -2.5)}}, {{F, {4}}}},
      {{"linear", {{"x", F, {2}}}, {pos("x"), named("alpha", 0), named("beta", -1)}}, {{F, {2}}}},
      {{"relu", {{"x", I8, {3, 3}}}, {pos("x")}}, {{I8, {3, 3}}}},
      {{"sigmoid", {{"x", F, {3, 1}}}, {pos("x")}}, {{F, {3, 1}}}},
      {{"softplus", {{"x", F, {2}}}, {pos("x")}}, {{F, {2}}}},
      {{"softsign", {{"x", H, {2}}}, {pos("x")}}, {{H, {2}}}},
      {{"tanh", {{"x", F, {8}}}, {pos("x")}}, {{F, {8}}}},
      {{"prelu", {{"x", F, {1, 3, 4}}, {"s", F, {3, 1}}}, {pos("x"), pos("s")}}, {{F, {1, 3, 4}}}},
      {{"softmax", {{"x", F, {2, 3, 4}}}, {pos("x"), named("axis", 0)}}, {{F, {2, 3, 4}}}},
      // conv: padding is [beginH, endH, beginW, endW]
      {{"conv2d",
        {{"x", F, {1, 4, 9, 11}}, {"w", F, {6, 2, 3, 2}}},
        {pos("x"), pos("w"), named("padding", L{2, 0, 1, 0}), named("strides", L{2, 3}),
         named("dilations", L{1, 2}), named("groups", 2)}},
       {{F, {1, 6, 5, 4}}}},
      {{"convTranspose2d",
        {{"x", F, {1, 5, 6, 3}}, {"w", F, {2, 3, 5, 3}}},
        {pos("x"), pos("w"), named("inputLayout", "nhwc"), named("filterLayout", "hwoi"),
         named("strides", L{2, 2}), named("padding", L{1, 0, 0, 1}),
         named("outputPadding", L{1, 0})}},
       {{F, {1, 10, 12, 5}}}},
      // pool
      {{"averagePool2d",
        {{"x", F, {1, 3, 7, 7}}},
        {pos("x"), named("windowDimensions", L{3, 3}), named("strides", L{2, 2}),
         named("outputShapeRounding", "ceil"), named("padding", L{0, 1, 0, 1})}},
       {{F, {1, 3, 4, 4}}}},
      {{"l2Pool2d", {{"x", H, {2, 5, 4, 3}}}, {pos("x"), named("layout", "nhwc")}},
       {{H, {2, 1, 1, 3}}}},
      {{"maxPool2d",
        {{"x", I8, {1, 2, 10, 8}}},
        {pos("x"), named("windowDimensions", L{3, 2}), named("dilations", L{2, 1}),
         named("outputSizes", L{6, 7})}},
       {{I8, {1, 2, 6, 7}}}},
      {{"resample2d",
        {{"x", F, {1, 5, 6, 3}}},
        {pos("x"), named("axes", L{1, 2}), named("scales", FloatList{0.5, 2.5})}},
       {{F, {1, 2, 15, 3}}}},
      // normalization
      {{"batchNormalization",
        {{"x", F, {2, 3, 4}}, {"m", F, {4}}, {"v", F, {4}}},
        {pos("x"), pos("m"), pos("v"), named("axis", 2), named("epsilon", 0.0)}},
       {{F, {2, 3, 4}}}},
      {{"instanceNormalization",
        {{"x", F, {2, 4, 5, 3}}, {"s", F, {3}}},
        {pos("x"), named_operand("scale", "s"), named("layout", "nhwc")}},
       {{F, {2, 4, 5, 3}}}},
      // layerNormalization axes may be any subset; scale follows the axes' order.
      {{"layerNormalization",
        {{"x", F, {2, 3, 4}}, {"s", F, {4, 2}}},
        {pos("x"), named_operand("scale", "s"), named("axes", L{2, 0})}},
       {{F, {2, 3, 4}}}},
      // reduce
      {{"reduceL1", {{"x", I32, {2, 3, 4}}}, {pos("x"), named("axes", L{1})}}, {{I32, {2, 4}}}},
      {{"reduceL2", {{"x", F, {2, 3}}}, {pos("x"), named("keepDimensions", true)}}, {{F, {1, 1}}}},
      {{"reduceLogSum", {{"x", F, {2, 3}}}, {pos("x"), named("axes", L{})}}, {{F, {2, 3}}}},
      {{"reduceLogSumExp", {{"x", F, {5, 2}}}, {pos("x"), named("axes", L{0})}}, {{F, {2}}}},
      {{"reduceMax",
        {{"x", U8, {2, 3, 4}}},
        {pos("x"), named("axes", L{0, 2}), named("keepDimensions", true)}},
       {{U8, {1, 3, 1}}}},
      {{"reduceMean", {{"x", F, {2, 3, 4}}}, {pos("x")}}, {{F, {}}}},
      {{"reduceMin", {{"x", I64, {3, 3}}}, {pos("x"), named("axes", L{1})}}, {{I64, {3}}}},
      {{"reduceProduct", {{"x", F, {4, 1}}}, {pos("x"), named("axes", L{1, 0})}}, {{F, {}}}},
      {{"reduceSum", {{"x", H, {2, 2}}}, {pos("x"), named("keepDimensions", false)}}, {{H, {}}}},
      {{"reduceSumSquare", {{"x", F, {3, 4}}}, {pos("x"), named("axes", L{0})}}, {{F, {4}}}},
      {{"argMax",
        {{"x", F, {2, 3, 4}}},
        {pos("x"), named("axis", 1), named("outputDataType", "int64")}},
       {{I64, {2, 4}}}},
      {{"argMin", {{"x", I8, {2, 3}}}, {pos("x"), named("axis", 0), named("keepDimensions", true)}},
       {{I32, {1, 3}}}},
      {{"cumulativeSum",
        {{"x", I64, {3, 2}}},
        {pos("x"), named("axis", 1), named("reversed", true)}},
       {{I64, {3, 2}}}},
      // matmul
      {{"gemm",
        {{"a", F, {4, 3}}, {"b", F, {5, 4}}, {"c", F, {5}}},
        {pos("a"), pos("b"), named_operand("c", "c"), named("aTranspose", true),
         named("bTranspose", true), named("alpha", 0.0)}},
       {{F, {3, 5}}}},
      {{"matmul", {{"a", F, {2, 1, 3, 4}}, {"b", F, {5, 4, 7}}}, {pos("a"), pos("b")}},
       {{F, {2, 5, 3, 7}}}},
      // movement
      {{"concat",
        {{"a", F, {2, 3, 4, 5}}, {"b", F, {2, 3, 4, 5}}},
        {pos_list({"a", "b"}), named("axis", 0)}},
       {{F, {4, 3, 4, 5}}}},
      {{"expand", {{"x", F, {3, 1}}}, {pos("x"), named("newShape", L{2, 3, 4})}}, {{F, {2, 3, 4}}}},
      {{"pad",
        {{"x", F, {2, 3}}},
        {pos("x"), named("beginningPadding", L{0, 2}), named("endingPadding", L{1, 0}),
         named("mode", "reflection")}},
       {{F, {3, 5}}}},
      {{"reshape", {{"x", F, {2, 3, 4}}}, {pos("x"), named("newShape", L{4, 6})}}, {{F, {4, 6}}}},
      {{"reverse", {{"x", I32, {2, 3}}}, {pos("x"), named("axes", L{})}}, {{I32, {2, 3}}}},
      // slice sizes are extents: ceil(size / stride)
      {{"slice",
        {{"x", F, {7, 9}}},
        {pos("x"), named("starts", L{1, 0}), named("sizes", L{5, 9}), named("strides", L{2, 4})}},
       {{F, {3, 3}}}},
      {{"split", {{"x", F, {2, 9}}}, {pos("x"), named("splits", L{2, 3, 4}), named("axis", 1)}},
       {{F, {2, 2}}, {F, {2, 3}}, {F, {2, 4}}}},
      {{"tile", {{"x", U8, {2, 3}}}, {pos("x"), named("repetitions", L{3, 1})}}, {{U8, {6, 3}}}},
      {{"transpose", {{"x", F, {2, 3, 4}}}, {pos("x")}}, {{F, {4, 3, 2}}}},
      {{"triangular",
        {{"x", F, {2, 3, 4}}},
        {pos("x"), named("upper", false), named("diagonal", 0)}},
       {{F, {2, 3, 4}}}},
      // gather
      {{"gather",
        {{"x", F, {4, 5, 6}}, {"i", I64, {2, 3}}},
        {pos("x"), pos("i"), named("axis", 1)}},
       {{F, {4, 2, 3, 6}}}},
      {{"gatherElements",
        {{"x", F, {4, 5}}, {"i", I32, {4, 2}}},
        {pos("x"), pos("i"), named("axis", 1)}},
       {{F, {4, 2}}}},
      {{"gatherND", {{"x", F, {4, 5, 6}}, {"i", I32, {3, 2}}}, {pos("x"), pos("i")}},
       {{F, {3, 6}}}},
      {{"scatterElements",
        {{"x", F, {4, 5}}, {"i", I64, {2, 5}}, {"u", F, {2, 5}}},
        {pos("x"), pos("i"), pos("u"), named("axis", 0)}},
       {{F, {4, 5}}}},
      {{"scatterND",
        {{"x", F, {4, 5, 6}}, {"i", I32, {2, 1}}, {"u", F, {2, 5, 6}}},
        {pos("x"), pos("i"), pos("u")}},
       {{F, {4, 5, 6}}}},
      // quantize: scale/zeroPoint broadcast block-wise
      {{"quantizeLinear",
        {{"x", F, {4, 6}}, {"s", F, {2, 3}}, {"z", I4, {2, 3}}},
        {pos("x"), pos("s"), pos("z")}},
       {{I4, {4, 6}}}},
      {{"dequantizeLinear",
        {{"x", U8, {2, 8}}, {"s", H, {2}}, {"z", U8, {2}}},
        {pos("x"), pos("s"), pos("z")}},
       {{H, {2, 8}}}},
      // recurrent
      {{"gru",
        {{"x", F, {5, 2, 3}}, {"w", F, {2, 12, 3}}, {"r", F, {2, 12, 4}}},
        {pos("x"), pos("w"), pos("r"), named("steps", 5), named("hiddenSize", 4),
         named("direction", "both"), named("returnSequence", true)}},
       {{F, {2, 2, 4}}, {F, {5, 2, 2, 4}}}},
      {{"gruCell",
        {{"x", F, {2, 3}}, {"w", F, {12, 3}}, {"r", F, {12, 4}}, {"h", F, {2, 4}}},
        {pos("x"), pos("w"), pos("r"), pos("h"), named("hiddenSize", 4)}},
       {{F, {2, 4}}}},
      {{"lstm",
        {{"x", F, {3, 1, 2}}, {"w", F, {1, 20, 2}}, {"r", F, {1, 20, 5}}},
        {pos("x"), pos("w"), pos("r"), named("steps", 3), named("hiddenSize", 5)}},
       {{F, {1, 1, 5}}, {F, {1, 1, 5}}}},
      {{"lstmCell",
        {{"x", F, {2, 3}}, {"w", F, {8, 3}}, {"r", F, {8, 2}}, {"h", F, {2, 2}}, {"c", F, {2, 2}}},
        {pos("x"), pos("w"), pos("r"), pos("h"), pos("c"), named("hiddenSize", 2)}},
       {{F, {2, 2}}, {F, {2, 2}}}},
  };
}

std::vector<Rejected> rejected_cases() {
  using L = IntList;
  const std::vector<Decl> x234 = {{"x", F, {2, 3, 4}}};
  return {
      {{"add", {{"a", F, {2, 3}}, {"b", F, {4}}}, {pos("a"), pos("b")}}, "do not broadcast"},
      {{"sub", {{"a", F, {2}}, {"b", I32, {2}}}, {pos("a"), pos("b")}}, "must match"},
      {{"mul", {{"a", I4, {2}}, {"b", I4, {2}}}, {pos("a"), pos("b")}}, "data type int4"},
      {{"div", {{"a", F, {3}}, {"b", F, {2}}}, {pos("a"), pos("b")}}, "do not broadcast"},
      {{"max", {{"a", F, {3}}}, {pos("a")}}, "missing required argument 'b'"},
      {{"min", {{"a", F, {3}}, {"b", H, {3}}}, {pos("a"), pos("b")}}, "must match"},
      {{"pow", {{"a", F, {2, 2}}, {"b", F, {3, 1}}}, {pos("a"), pos("b")}}, "do not broadcast"},
      {{"equal", {{"a", F, {2}}, {"b", F, {3}}}, {pos("a"), pos("b")}}, "do not broadcast"},
      {{"notEqual", {{"a", U8, {2}}, {"b", I8, {2}}}, {pos("a"), pos("b")}}, "must match"},
      {{"greater", {{"a", F, {2}}}, {pos("a"), pos("a"), pos("a")}}, "too many positional"},
      {{"greaterOrEqual", {{"a", F, {2}}}, {pos("a"), pos("zz")}}, "'zz' is not defined"},
      {{"lesser", {{"a", F, {4}}, {"b", F, {5}}}, {pos("a"), pos("b")}}, "do not broadcast"},
      {{"lesserOrEqual", {{"a", F, {2}}, {"b", I32, {2}}}, {pos("a"), pos("b")}}, "must match"},
      {{"logicalAnd", {{"a", F, {2}}, {"b", F, {2}}}, {pos("a"), pos("b")}}, "allowed: uint8"},
      {{"logicalOr", {{"a", I8, {2}}, {"b", I8, {2}}}, {pos("a"), pos("b")}}, "allowed: uint8"},
      {{"logicalXor", {{"a", U8, {2}}, {"b", U8, {3}}}, {pos("a"), pos("b")}}, "do not broadcast"},
      {{"logicalNot", {{"x", I32, {2}}}, {pos("x")}}, "allowed: uint8"},
      {{"abs", {{"x", U8, {2}}}, {pos("x")}}, "data type uint8"},
      {{"ceil", {{"x", I32, {2}}}, {pos("x")}}, "allowed: float32, float16"},
      {{"cos", {{"x", I64, {2}}}, {pos("x")}}, "allowed: float32, float16"},
      {{"erf", {{"x", U8, {2}}}, {pos("x")}}, "allowed: float32, float16"},
      {{"exp", {{"x", F, {2}}}, {pos("x"), named("alpha", 1.0)}}, "unknown option 'alpha'"},
      {{"floor", {{"x", I8, {2}}}, {pos("x")}}, "allowed: float32, float16"},
      {{"identity", {{"x", F, {2}}}, {}}, "missing required argument 'input'"},
      {{"log", {{"x", I32, {2}}}, {pos("x")}}, "allowed: float32, float16"},
      {{"neg", {{"x", DataType::kUint32, {2}}}, {pos("x")}}, "data type uint32"},
      {{"reciprocal", {{"x", I32, {2}}}, {pos("x")}}, "allowed: float32, float16"},
      {{"roundEven", {{"x", I32, {2}}}, {pos("x")}}, "allowed: float32, float16"},
      {{"sign", {{"x", U8, {2}}}, {pos("x")}}, "data type uint8"},
      {{"sin", {{"x", I32, {2}}}, {pos("x")}}, "allowed: float32, float16"},
      {{"sqrt", {{"x", I64, {2}}}, {pos("x")}}, "allowed: float32, float16"},
      {{"tan", {{"x", U8, {2}}}, {pos("x")}}, "allowed: float32, float16"},
      {{"isNaN", {{"x", I32, {2}}}, {pos("x")}}, "allowed: float32, float16"},
      {{"isInfinite", {{"x", U8, {2}}}, {pos("x")}}, "allowed: float32, float16"},
      {{"cast", {{"x", F, {2}}}, {pos("x"), named("dataType", "bfloat16")}},
       "unknown data type 'bfloat16'"},
      {{"where", {{"c", F, {2}}, {"t", F, {2}}, {"f", F, {2}}}, {pos("c"), pos("t"), pos("f")}},
       "allowed: uint8"},
      {{"clamp", {{"x", F, {2}}}, {pos("x"), named("minValue", 2), named("maxValue", 1)}},
       "minValue 2 is greater than maxValue 1"},
      {{"elu", {{"x", I32, {2}}}, {pos("x")}}, "allowed: float32, float16"},
      {{"gelu", {{"x", I32, {2}}}, {pos("x")}}, "allowed: float32, float16"},
      {{"hardSigmoid", {{"x", F, {2}}}, {pos("x"), named("alpha", "big")}}, "expected a number"},
      {{"hardSwish", {{"x", I8, {2}}}, {pos("x")}}, "allowed: float32, float16"},
      {{"leakyRelu", {{"x", F, {2}}}, {pos("x"), named("alpah", 0.1)}},
       "unknown option 'alpah' (did you mean 'alpha'?)"},
      {{"linear", {{"x", F, {2}}}, {pos("x"), named("beta", true)}}, "expected a number"},
      {{"relu", {{"x", U8, {2}}}, {pos("x")}}, "data type uint8"},
      {{"sigmoid", {{"x", I32, {2}}}, {pos("x")}}, "allowed: float32, float16"},
      {{"softplus", {{"x", I32, {2}}}, {pos("x")}}, "allowed: float32, float16"},
      {{"softsign", {{"x", I32, {2}}}, {pos("x")}}, "allowed: float32, float16"},
      {{"tanh", {{"x", I32, {2}}}, {pos("x")}}, "allowed: float32, float16"},
      {{"prelu", {{"x", F, {2, 3}}, {"s", F, {2}}}, {pos("x"), pos("s")}}, "does not broadcast"},
      {{"softmax", x234, {pos("x"), named("axis", 3)}}, "axis 3 is out of range for rank 3"},
      // groups must divide channels
      {{"conv2d",
        {{"x", F, {1, 3, 8, 8}}, {"w", F, {4, 1, 3, 3}}},
        {pos("x"), pos("w"), named("groups", 2)}},
       "groups 2 does not divide the 3 input channels"},
      {{"convTranspose2d",
        {{"x", F, {1, 2, 4, 4}}, {"w", F, {2, 3, 3, 3}}},
        {pos("x"), pos("w"), named("strides", L{2, 2}), named("outputPadding", L{2, 0})}},
       "outputPadding 2 must be in [0, stride 2)"},
      {{"averagePool2d", {{"x", F, {1, 1, 4, 4}}}, {pos("x"), named("windowDimensions", L{5, 5})}},
       "effective filter size 5 exceeds the padded input size 4"},
      {{"l2Pool2d", {{"x", F, {1, 4, 4}}}, {pos("x")}}, "input must have rank 4"},
      {{"maxPool2d",
        {{"x", F, {1, 1, 7, 7}}},
        {pos("x"), named("windowDimensions", L{2, 2}), named("strides", L{2, 2}),
         named("outputSizes", L{5, 3})}},
       "outputSizes[0] = 5 must be 3 (floor) or 4 (ceil)"},
      {{"resample2d", {{"x", F, {1, 2, 3, 4}}}, {pos("x"), named("axes", L{1, 1})}},
       "axes lists axis 1 twice"},
      {{"batchNormalization",
        {{"x", F, {2, 3}}, {"m", F, {2}}, {"v", F, {3}}},
        {pos("x"), pos("m"), pos("v")}},
       "mean must have shape [3]"},
      {{"instanceNormalization",
        {{"x", F, {1, 2, 3, 4}}, {"b", F, {4}}},
        {pos("x"), named_operand("bias", "b")}},
       "bias must have shape [2]"},
      {{"layerNormalization",
        {{"x", F, {2, 3, 4}}, {"s", F, {2, 4}}},
        {pos("x"), named_operand("scale", "s"), named("axes", L{2, 0})}},
       "scale must have shape [4, 2]"},
      {{"reduceL1", x234, {pos("x"), named("axes", L{3})}}, "out of range for rank 3"},
      {{"reduceL2", {{"x", I32, {2}}}, {pos("x")}}, "allowed: float32, float16"},
      {{"reduceLogSum", x234, {pos("x"), named("axes", L{1, 1})}}, "lists axis 1 twice"},
      {{"reduceLogSumExp", x234, {pos("x"), named("keepDimensions", 1)}}, "expected true or false"},
      {{"reduceMax", x234, {pos("x"), named("axes", L{-1})}}, "out of range"},
      {{"reduceMean", {{"x", I32, {2}}}, {pos("x")}}, "allowed: float32, float16"},
      {{"reduceMin", x234, {pos("x"), named("axes", 1)}}, "expected a list of integers"},
      {{"reduceProduct", {{"x", I8, {2}}}, {pos("x")}}, "data type int8"},
      {{"reduceSum", x234, {pos("x"), named("axis", L{1})}}, "unknown option 'axis'"},
      {{"reduceSumSquare", x234, {pos("x"), named("axes", L{5})}}, "out of range"},
      {{"argMax", x234, {pos("x"), named("axis", 1), named("outputDataType", "float32")}},
       "outputDataType must be int32 or int64"},
      {{"argMin", x234, {pos("x"), named("axis", 3)}}, "axis 3 is out of range"},
      {{"cumulativeSum", x234, {pos("x"), named("axis", -1)}}, "out of range"},
      {{"gemm", {{"a", F, {2, 3, 4}}, {"b", F, {4, 5}}}, {pos("a"), pos("b")}},
       "a must have rank 2"},
      {{"matmul", {{"a", F, {2, 3}}, {"b", F, {4, 5}}}, {pos("a"), pos("b")}},
       "inner dimensions differ"},
      {{"concat", {{"a", F, {2, 3}}, {"b", F, {2, 4}}}, {pos_list({"a", "b"}), named("axis", 0)}},
       "differs from inputs[0]"},
      {{"expand", {{"x", F, {3, 2}}}, {pos("x"), named("newShape", L{3, 3})}},
       "does not broadcast to newShape"},
      {{"pad",
        {{"x", F, {2, 3}}},
        {pos("x"), named("beginningPadding", L{0, 3}), named("endingPadding", L{0, 0}),
         named("mode", "reflection")}},
       "reflection padding of dimension 1 must be smaller than its size 3"},
      {{"reshape", {{"x", F, {2, 3}}}, {pos("x"), named("newShape", L{4, 2})}},
       "newShape [4, 2] has 8 elements"},
      {{"reverse", x234, {pos("x"), named("axes", L{0, 0})}}, "lists axis 0 twice"},
      {{"slice", {{"x", F, {5}}}, {pos("x"), named("starts", L{3}), named("sizes", L{3})}},
       "leaves dimension 0 of size 5"},
      {{"split", {{"x", F, {2, 9}}}, {pos("x"), named("splits", 2), named("axis", 1)}},
       "splits 2 does not divide dimension 1 of size 9"},
      {{"tile", {{"x", F, {2, 3}}}, {pos("x"), named("repetitions", L{2})}},
       "repetitions has 1 entries (expected 2)"},
      {{"transpose", x234, {pos("x"), named("permutation", L{0, 0, 1})}},
       "permutation lists axis 0 twice"},
      {{"triangular", {{"x", F, {4}}}, {pos("x")}}, "input must have rank >= 2"},
      {{"gather", {{"x", F, {4}}, {"i", F, {2}}}, {pos("x"), pos("i")}}, "allowed: int32"},
      {{"gatherElements",
        {{"x", F, {4, 5}}, {"i", I32, {3, 2}}},
        {pos("x"), pos("i"), named("axis", 1)}},
       "only the axis may differ"},
      {{"gatherND", {{"x", F, {4, 5}}, {"i", I32, {2, 3}}}, {pos("x"), pos("i")}},
       "the last dimension of indices (3) must be in [1, input rank 2]"},
      {{"scatterElements",
        {{"x", F, {4, 5}}, {"i", I32, {2, 5}}, {"u", F, {2, 4}}},
        {pos("x"), pos("i"), pos("u")}},
       "updates [2, 4] must have the shape of indices [2, 5]"},
      {{"scatterND",
        {{"x", F, {4, 5}}, {"i", I32, {2, 1}}, {"u", F, {2, 4}}},
        {pos("x"), pos("i"), pos("u")}},
       "updates [2, 4] must have shape [2, 5]"},
      {{"quantizeLinear",
        {{"x", F, {4, 6}}, {"s", F, {4}}, {"z", I8, {4}}},
        {pos("x"), pos("s"), pos("z")}},
       "scale dimension 0 (4) does not divide input dimension 6"},
      {{"dequantizeLinear",
        {{"x", U8, {4}}, {"s", F, {4}}, {"z", I8, {4}}},
        {pos("x"), pos("s"), pos("z")}},
       "must match"},
      {{"gru",
        {{"x", F, {5, 2, 3}}, {"w", F, {1, 12, 3}}, {"r", F, {1, 12, 4}}},
        {pos("x"), pos("w"), pos("r"), named("steps", 4), named("hiddenSize", 4)}},
       "steps 4 must equal the input's first dimension 5"},
      {{"gruCell",
        {{"x", F, {2, 3}}, {"w", F, {12, 3}}, {"r", F, {12, 4}}, {"h", F, {2, 4}}},
        {pos("x"), pos("w"), pos("r"), pos("h"), named("hiddenSize", 4),
         named("activations", StringList{"sigmoid"})}},
       "activations has 1 entries (expected 2)"},
      {{"lstm",
        {{"x", F, {3, 1, 2}}, {"w", F, {1, 20, 2}}, {"r", F, {1, 20, 5}}},
        {pos("x"), pos("w"), pos("r"), named("steps", 3), named("hiddenSize", 5),
         named("direction", "both")}},
       "weight must have shape [2, 20, 2]"},
      {{"lstmCell",
        {{"x", F, {2, 3}}, {"w", F, {8, 3}}, {"r", F, {8, 2}}, {"h", F, {2, 2}}, {"c", F, {2, 3}}},
        {pos("x"), pos("w"), pos("r"), pos("h"), pos("c"), named("hiddenSize", 2)}},
       "cellState must have shape [2, 2]"},
  };
}

TEST(Infer, AcceptedCasesInferTheSpecShapes) {
  for (const auto& a : accepted_cases()) {
    SCOPED_TRACE(a.c.op);
    Graph g;
    std::vector<OperandDesc> got;
    try {
      got = infer(a.c, g);
    } catch (const Error& e) {
      ADD_FAILURE() << a.c.op << ": " << e.what();
      continue;
    }
    ASSERT_EQ(got.size(), a.expected.size());
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i], a.expected[i]) << got[i].to_string() << " vs " << a.expected[i].to_string();
    }
  }
}

TEST(Infer, RejectedCasesNameTheRule) {
  for (const auto& r : rejected_cases()) {
    SCOPED_TRACE(r.c.op);
    const std::string msg = rejection(r.c);
    EXPECT_NE(msg.find(r.message), std::string::npos) << "message was: " << msg;
    EXPECT_EQ(msg.rfind(r.c.op, 0), 0u) << "message should start with the op: " << msg;
  }
}

TEST(Infer, EveryOperatorHasAnAcceptedAndARejectedCase) {
  std::set<std::string> accepted, rejected;
  for (const auto& a : accepted_cases()) accepted.insert(a.c.op);
  for (const auto& r : rejected_cases()) rejected.insert(r.c.op);
  for (const auto& s : all_schemas()) {
    EXPECT_TRUE(accepted.contains(std::string(s.name))) << s.name << " has no accepted case";
    EXPECT_TRUE(rejected.contains(std::string(s.name))) << s.name << " has no rejected case";
  }
}

}  // namespace
}  // namespace wnn::testing
