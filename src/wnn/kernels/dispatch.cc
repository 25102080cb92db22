#include "wnn/core/error.h"
#include "wnn/kernels/kernel.h"

namespace wnn::kernels {

KernelFn kernel_for(OpKind op) {
  switch (op) {
    case OpKind::kAdd:
    case OpKind::kSub:
    case OpKind::kMul:
    case OpKind::kDiv:
    case OpKind::kMax:
    case OpKind::kMin:
    case OpKind::kPow:
    case OpKind::kEqual:
    case OpKind::kNotEqual:
    case OpKind::kGreater:
    case OpKind::kGreaterOrEqual:
    case OpKind::kLesser:
    case OpKind::kLesserOrEqual:
    case OpKind::kLogicalAnd:
    case OpKind::kLogicalOr:
    case OpKind::kLogicalXor:
    case OpKind::kLogicalNot:
    case OpKind::kAbs:
    case OpKind::kCeil:
    case OpKind::kCos:
    case OpKind::kErf:
    case OpKind::kExp:
    case OpKind::kFloor:
    case OpKind::kIdentity:
    case OpKind::kLog:
    case OpKind::kNeg:
    case OpKind::kReciprocal:
    case OpKind::kRoundEven:
    case OpKind::kSign:
    case OpKind::kSin:
    case OpKind::kSqrt:
    case OpKind::kTan:
    case OpKind::kIsNaN:
    case OpKind::kIsInfinite:
    case OpKind::kCast:
    case OpKind::kWhere:
      return elementwise;
    case OpKind::kClamp:
    case OpKind::kElu:
    case OpKind::kGelu:
    case OpKind::kHardSigmoid:
    case OpKind::kHardSwish:
    case OpKind::kLeakyRelu:
    case OpKind::kLinear:
    case OpKind::kRelu:
    case OpKind::kSigmoid:
    case OpKind::kSoftplus:
    case OpKind::kSoftsign:
    case OpKind::kTanh:
    case OpKind::kPrelu:
    case OpKind::kSoftmax:
      return activation;
    case OpKind::kConv2d:
    case OpKind::kConvTranspose2d:
      return conv;
    case OpKind::kAveragePool2d:
    case OpKind::kL2Pool2d:
    case OpKind::kMaxPool2d:
    case OpKind::kResample2d:
      return pool;
    case OpKind::kBatchNormalization:
    case OpKind::kInstanceNormalization:
    case OpKind::kLayerNormalization:
      return normalization;
    case OpKind::kReduceL1:
    case OpKind::kReduceL2:
    case OpKind::kReduceLogSum:
    case OpKind::kReduceLogSumExp:
    case OpKind::kReduceMax:
    case OpKind::kReduceMean:
    case OpKind::kReduceMin:
    case OpKind::kReduceProduct:
    case OpKind::kReduceSum:
    case OpKind::kReduceSumSquare:
    case OpKind::kArgMax:
    case OpKind::kArgMin:
    case OpKind::kCumulativeSum:
      return reduce;
    case OpKind::kGemm:
    case OpKind::kMatmul:
      return matmul;
    case OpKind::kConcat:
    case OpKind::kExpand:
    case OpKind::kPad:
    case OpKind::kReshape:
    case OpKind::kReverse:
    case OpKind::kSlice:
    case OpKind::kSplit:
    case OpKind::kTile:
    case OpKind::kTranspose:
    case OpKind::kTriangular:
      return movement;
    case OpKind::kGather:
    case OpKind::kGatherElements:
    case OpKind::kGatherND:
    case OpKind::kScatterElements:
    case OpKind::kScatterND:
      return gather;
    case OpKind::kQuantizeLinear:
    case OpKind::kDequantizeLinear:
      return quantize;
    case OpKind::kGru:
    case OpKind::kGruCell:
    case OpKind::kLstm:
    case OpKind::kLstmCell:
      return recurrent;
  }
  check_internal(false, "no kernel for op {}", int(op));
  return nullptr;
}

void run_node(const Node& node, std::span<const ConstTensorView> inputs,
              std::span<const TensorView> outputs) {
  kernel_for(node.op())(KernelArgs(node.attrs, inputs, outputs));
}

}  // namespace wnn::kernels
