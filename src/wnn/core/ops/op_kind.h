// The one list of WebNN operators. Everything else (the schema table, kernels, delegates,
// docs) is keyed by OpKind; switches over it have no default, so the compiler names any op a
// switch forgets, and a test checks that every kind has exactly one schema entry.
#pragma once

#include <cstdint>

namespace wnn {

// X(EnumName, "webnnName")
#define WNN_OPS(X)                                  \
  X(Abs, "abs")                                     \
  X(Add, "add")                                     \
  X(ArgMax, "argMax")                               \
  X(ArgMin, "argMin")                               \
  X(AveragePool2d, "averagePool2d")                 \
  X(BatchNormalization, "batchNormalization")       \
  X(Cast, "cast")                                   \
  X(Ceil, "ceil")                                   \
  X(Clamp, "clamp")                                 \
  X(Concat, "concat")                               \
  X(Conv2d, "conv2d")                               \
  X(ConvTranspose2d, "convTranspose2d")             \
  X(Cos, "cos")                                     \
  X(CumulativeSum, "cumulativeSum")                 \
  X(DequantizeLinear, "dequantizeLinear")           \
  X(Div, "div")                                     \
  X(Elu, "elu")                                     \
  X(Equal, "equal")                                 \
  X(Erf, "erf")                                     \
  X(Exp, "exp")                                     \
  X(Expand, "expand")                               \
  X(Floor, "floor")                                 \
  X(Gather, "gather")                               \
  X(GatherElements, "gatherElements")               \
  X(GatherND, "gatherND")                           \
  X(Gelu, "gelu")                                   \
  X(Gemm, "gemm")                                   \
  X(Greater, "greater")                             \
  X(GreaterOrEqual, "greaterOrEqual")               \
  X(Gru, "gru")                                     \
  X(GruCell, "gruCell")                             \
  X(HardSigmoid, "hardSigmoid")                     \
  X(HardSwish, "hardSwish")                         \
  X(Identity, "identity")                           \
  X(InstanceNormalization, "instanceNormalization") \
  X(IsInfinite, "isInfinite")                       \
  X(IsNaN, "isNaN")                                 \
  X(L2Pool2d, "l2Pool2d")                           \
  X(LayerNormalization, "layerNormalization")       \
  X(LeakyRelu, "leakyRelu")                         \
  X(Lesser, "lesser")                               \
  X(LesserOrEqual, "lesserOrEqual")                 \
  X(Linear, "linear")                               \
  X(Log, "log")                                     \
  X(LogicalAnd, "logicalAnd")                       \
  X(LogicalNot, "logicalNot")                       \
  X(LogicalOr, "logicalOr")                         \
  X(LogicalXor, "logicalXor")                       \
  X(Lstm, "lstm")                                   \
  X(LstmCell, "lstmCell")                           \
  X(Matmul, "matmul")                               \
  X(Max, "max")                                     \
  X(MaxPool2d, "maxPool2d")                         \
  X(Min, "min")                                     \
  X(Mul, "mul")                                     \
  X(Neg, "neg")                                     \
  X(NotEqual, "notEqual")                           \
  X(Pad, "pad")                                     \
  X(Pow, "pow")                                     \
  X(Prelu, "prelu")                                 \
  X(QuantizeLinear, "quantizeLinear")               \
  X(Reciprocal, "reciprocal")                       \
  X(ReduceL1, "reduceL1")                           \
  X(ReduceL2, "reduceL2")                           \
  X(ReduceLogSum, "reduceLogSum")                   \
  X(ReduceLogSumExp, "reduceLogSumExp")             \
  X(ReduceMax, "reduceMax")                         \
  X(ReduceMean, "reduceMean")                       \
  X(ReduceMin, "reduceMin")                         \
  X(ReduceProduct, "reduceProduct")                 \
  X(ReduceSum, "reduceSum")                         \
  X(ReduceSumSquare, "reduceSumSquare")             \
  X(Relu, "relu")                                   \
  X(Resample2d, "resample2d")                       \
  X(Reshape, "reshape")                             \
  X(Reverse, "reverse")                             \
  X(RoundEven, "roundEven")                         \
  X(ScatterElements, "scatterElements")             \
  X(ScatterND, "scatterND")                         \
  X(Sigmoid, "sigmoid")                             \
  X(Sign, "sign")                                   \
  X(Sin, "sin")                                     \
  X(Slice, "slice")                                 \
  X(Softmax, "softmax")                             \
  X(Softplus, "softplus")                           \
  X(Softsign, "softsign")                           \
  X(Split, "split")                                 \
  X(Sqrt, "sqrt")                                   \
  X(Sub, "sub")                                     \
  X(Tan, "tan")                                     \
  X(Tanh, "tanh")                                   \
  X(Tile, "tile")                                   \
  X(Transpose, "transpose")                         \
  X(Triangular, "triangular")                       \
  X(Where, "where")

enum class OpKind : uint16_t {
#define WNN_OP_ENUM(e, n) k##e,
  WNN_OPS(WNN_OP_ENUM)
#undef WNN_OP_ENUM
};

#define WNN_OP_COUNT(e, n) +1
inline constexpr int kNumOps = 0 WNN_OPS(WNN_OP_COUNT);
#undef WNN_OP_COUNT
static_assert(kNumOps == 95, "update the op count when adding an operator");

}  // namespace wnn
