// WPT tolerances (FORMAT.md section 5) and the WPT ULP distance.
#include <bit>
#include <cmath>
#include <cstring>

#include "wnn/conformance/wpt.h"
#include "wnn/core/error.h"
#include "wnn/core/half.h"
#include "wnn/core/ops/conv.h"

namespace wnn::conformance {

uint16_t wpt_to_half(float value) {
  // WPT's toHalf: keeps one extra mantissa bit and adds it, so ties round away from zero.
  const uint32_t x = std::bit_cast<uint32_t>(value);
  uint32_t bits = (x >> 16) & 0x8000u;
  uint32_t m = (x >> 12) & 0x07ffu;
  const uint32_t e = (x >> 23) & 0xffu;
  if (e < 103) return uint16_t(bits);
  if (e > 142) {
    bits |= 0x7c00u;
    bits |= (e == 255 && (x & 0x007fffffu)) ? 1u : 0u;
    return uint16_t(bits);
  }
  if (e < 113) {
    m |= 0x0800u;
    bits |= (m >> (114 - e)) + ((m >> (113 - e)) & 1u);
    return uint16_t(bits);
  }
  bits |= ((e - 112) << 10) | (m >> 1);
  bits += m & 1u;
  return uint16_t(bits);
}

namespace {

int64_t f32_key(float f) {
  const uint32_t mag = std::bit_cast<uint32_t>(f) & 0x7fffffffu;
  return std::signbit(f) ? -int64_t(mag) : int64_t(mag);
}

int64_t f16_key(uint16_t h) {
  const int64_t mag = h & 0x7fff;
  return (h & 0x8000) ? -mag : mag;
}

template <typename T>
uint64_t int_distance(const std::byte* a, const std::byte* e) {
  T x, y;
  std::memcpy(&x, a, sizeof(T));
  std::memcpy(&y, e, sizeof(T));
  return x > y ? uint64_t(x) - uint64_t(y) : uint64_t(y) - uint64_t(x);
}

}  // namespace

uint64_t ulp_distance(DataType dtype, const std::byte* actual, const std::byte* expected) {
  switch (dtype) {
    case DataType::kFloat32: {
      float a, e;
      std::memcpy(&a, actual, 4);
      std::memcpy(&e, expected, 4);
      if (a == e || (std::isnan(a) && std::isnan(e))) return 0;
      if (std::isnan(a) || std::isnan(e)) return UINT64_MAX;
      const int64_t d = f32_key(a) - f32_key(e);
      return uint64_t(d < 0 ? -d : d);
    }
    case DataType::kFloat16: {
      uint16_t a, e;
      std::memcpy(&a, actual, 2);
      std::memcpy(&e, expected, 2);
      const float fa = half_to_float(a), fe = half_to_float(e);
      if (fa == fe || (std::isnan(fa) && std::isnan(fe))) return 0;
      if (std::isnan(fa) || std::isnan(fe)) return UINT64_MAX;
      const int64_t d = f16_key(a) - f16_key(e);
      return uint64_t(d < 0 ? -d : d);
    }
    case DataType::kInt32:
      return int_distance<int32_t>(actual, expected);
    case DataType::kUint32:
      return int_distance<uint32_t>(actual, expected);
    case DataType::kInt64:
      return int_distance<int64_t>(actual, expected);
    case DataType::kUint64:
      return int_distance<uint64_t>(actual, expected);
    case DataType::kInt8:
    case DataType::kInt4:
      return int_distance<int8_t>(actual, expected);
    case DataType::kUint8:
    case DataType::kUint4:
      return int_distance<uint8_t>(actual, expected);
  }
  return UINT64_MAX;
}

namespace {

Tolerance ulp(double v) { return {Tolerance::Metric::kUlp, v}; }
Tolerance atol(double v) { return {Tolerance::Metric::kAtol, v}; }

int64_t reduced_count(const Graph& g, const Node& node) {
  const auto& in = g.desc(node.inputs[0]);
  IntList axes;
  if (node.attrs.has("axes")) {
    axes = node.attrs.get_ints("axes");
  } else {
    for (size_t i = 0; i < in.shape.size(); ++i) axes.push_back(int64_t(i));
  }
  int64_t n = 1;
  for (int64_t a : axes) n *= in.shape[size_t(a)];
  return n;
}

}  // namespace

Tolerance tolerance_for(const Graph& g, const Node& node, DataType out) {
  const bool f16 = out == DataType::kFloat16;
  const bool is_fp = is_float(out);
  const auto& in0 = g.desc(node.inputs[0]);
  switch (node.op()) {
    case OpKind::kConcat:
    case OpKind::kExpand:
    case OpKind::kGather:
    case OpKind::kGatherElements:
    case OpKind::kGatherND:
    case OpKind::kIdentity:
    case OpKind::kPad:
    case OpKind::kReshape:
    case OpKind::kReverse:
    case OpKind::kScatterElements:
    case OpKind::kScatterND:
    case OpKind::kSlice:
    case OpKind::kSplit:
    case OpKind::kTile:
    case OpKind::kTranspose:
    case OpKind::kTriangular:
    case OpKind::kWhere:
    case OpKind::kEqual:
    case OpKind::kNotEqual:
    case OpKind::kGreater:
    case OpKind::kGreaterOrEqual:
    case OpKind::kLesser:
    case OpKind::kLesserOrEqual:
    case OpKind::kLogicalNot:
    case OpKind::kLogicalAnd:
    case OpKind::kLogicalOr:
    case OpKind::kLogicalXor:
    case OpKind::kIsNaN:
    case OpKind::kIsInfinite:
    case OpKind::kAbs:
    case OpKind::kCeil:
    case OpKind::kFloor:
    case OpKind::kNeg:
    case OpKind::kRelu:
    case OpKind::kMax:
    case OpKind::kMin:
    case OpKind::kClamp:
    case OpKind::kReduceMax:
    case OpKind::kReduceMin:
    case OpKind::kMaxPool2d:
    case OpKind::kArgMin:
    case OpKind::kArgMax:
    case OpKind::kSign:
    case OpKind::kRoundEven:
      return ulp(0);
    case OpKind::kAdd:
    case OpKind::kMul:
      return ulp(1);
    case OpKind::kSub:
      return ulp(is_fp ? 1 : 0);
    case OpKind::kDiv:
    case OpKind::kReciprocal:
    case OpKind::kLinear:
    case OpKind::kHardSigmoid:
      return ulp(2);
    case OpKind::kHardSwish:
      return ulp(4);
    case OpKind::kSoftsign:
      return ulp(3);
    case OpKind::kPrelu:
      return ulp(1);
    case OpKind::kLeakyRelu:
      return ulp(f16 ? 2 : 1);
    case OpKind::kBatchNormalization:
      return ulp(6);
    case OpKind::kElu:
    case OpKind::kGelu:
    case OpKind::kSoftplus:
      return ulp(18);
    case OpKind::kTanh:
      return ulp(16);
    case OpKind::kSigmoid:
      return ulp(f16 ? 10 : 34);
    case OpKind::kSqrt:
      return ulp(1);
    case OpKind::kExp:
      return ulp(f16 ? 1 : 32);
    case OpKind::kPow:
      return ulp(f16 ? 2 : 32);
    case OpKind::kCast:
      return ulp(is_fp ? 1 : 0);
    case OpKind::kLog:
      return atol(1.0 / 1024);
    case OpKind::kLayerNormalization:
      return atol(f16 ? 1.0 / 512 : 1.0 / 1024);
    case OpKind::kSin:
    case OpKind::kTan:
    case OpKind::kErf:
      return atol(f16 ? 1.0 / 512 : 1.0 / 1024);
    case OpKind::kCos:
      return atol(f16 ? 1.0 / 128 : 1.0 / 1024);
    case OpKind::kInstanceNormalization:
      return ulp(f16 ? 8400 : 840);
    case OpKind::kSoftmax: {
      const int64_t axis = node.attrs.get_int("axis");
      return ulp(3.0 * double(in0.shape[size_t(axis)]) + 3);
    }
    case OpKind::kMatmul:
      return ulp(2.0 * double(in0.shape.back()));
    case OpKind::kGemm: {
      const int64_t k = node.attrs.get_bool("aTranspose") ? in0.shape[0] : in0.shape[1];
      double v = 2.0 * double(k);
      if (node.attrs.get_float("alpha") != 1.0) v += 1;
      if (node.attrs.get_operand("c") && node.attrs.get_float("beta") != 0.0) v += 1;
      if (node.attrs.has("beta") && node.attrs.get_float("beta") != 1.0) v += 1;
      return ulp(v);
    }
    case OpKind::kConv2d:
    case OpKind::kConvTranspose2d: {
      const auto& filter = g.desc(node.inputs[1]);
      const auto f = conv_filter_geometry(filter.shape, node.attrs.get_enum("filterLayout"));
      const auto in = conv_input_geometry(in0.shape, node.attrs.get_enum("inputLayout"));
      const int64_t groups = node.attrs.get_int("groups");
      return ulp(2.0 * double(f.height * f.width * (in.channels / groups)));
    }
    case OpKind::kAveragePool2d:
    case OpKind::kL2Pool2d: {
      const auto in = conv_input_geometry(in0.shape, node.attrs.get_enum("layout"));
      IntList w = node.attrs.has("windowDimensions") ? node.attrs.get_ints("windowDimensions")
                                                     : IntList{in.height, in.width};
      return ulp(double(w[0] * w[1]) + 2);
    }
    case OpKind::kReduceSum:
    case OpKind::kReduceL1:
    case OpKind::kReduceProduct:
      return ulp(double(reduced_count(g, node)));
    case OpKind::kReduceMean:
      return ulp(double(reduced_count(g, node)) + 2);
    case OpKind::kReduceL2:
      return ulp(2.0 * double(reduced_count(g, node)) + 2);
    case OpKind::kReduceSumSquare:
      return ulp(2.0 * double(reduced_count(g, node)));
    case OpKind::kReduceLogSum:
      return ulp(double(reduced_count(g, node)) + 18);
    case OpKind::kReduceLogSumExp:
      return ulp(2.0 * double(reduced_count(g, node)) + 18);
    case OpKind::kResample2d:
      return ulp(node.attrs.get_enum("mode") == "linear" ? (f16 ? 10 : 84) : 0);
    case OpKind::kCumulativeSum: {
      if (out == DataType::kInt32) return ulp(0);
      const int64_t axis = node.attrs.get_int("axis");
      return ulp(double(in0.shape[size_t(axis)] - 1));
    }
    case OpKind::kQuantizeLinear:
    case OpKind::kDequantizeLinear:
      return ulp(1);
    case OpKind::kGru:
    case OpKind::kGruCell:
    case OpKind::kLstm:
    case OpKind::kLstmCell:
      return ulp(3);
  }
  return ulp(0);
}

}  // namespace wnn::conformance
