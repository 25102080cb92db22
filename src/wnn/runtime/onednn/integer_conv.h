// conv2d (and matmul, below) over a quantized model's integer product carried in float32
// (integer_product.h in the ONNX importer: a uint8 tensor cast to float32 minus its zero point, a
// filter of integers) runs as oneDNN's int8 convolution: u8 source with the zero point as a
// run-time source zero point, s8 weights, int32 accumulation. Its result is the exact integer the
// float conv computes (the importer proved every sum exact in float32), read out as float32, about
// 4x fewer cycles with VNNI. A filter row outside int8 (uint8 weights with a zero point other than
// 128 span
// [-zp, 255 - zp]) is shifted by a constant e into int8: conv(x, w) = conv(x, w - e) +
// e * boxsum(x), the box sum one more output channel of ones per group, recombined in int32.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "wnn/runtime/delegate.h"

namespace wnn::runtime::onednn {

class RegionBuilder;

struct IntegerConv {
  OperandId codes;                      // the uint8 tensor
  std::optional<OperandId> zero_point;  // one float32 element holding an integer, if any
  std::vector<int32_t> shift;           // per output channel: e (0 when the row fits int8)
  std::vector<uint32_t> cast_and_sub;   // the nodes computing the float input
  // The cast to int32 that is the conv's only reader, when the region folds it: the conv then
  // writes that cast's output as int32 (set by plan_integer_convs).
  std::optional<uint32_t> int32_cast;
  // The dequantization as ONNX Runtime writes it after MatMulInteger and ConvInteger, folded
  // too: that int32 cast read only by a cast back to float32, times `scale` (one element, or
  // one per channel: a matmul's columns, a conv's output channels), plus a constant `bias` per
  // channel. The product then writes the output of node `last` (the mul or the add) as
  // float32(acc) * scale + bias, the same float32 operations in the same order, and is defined
  // where `last` stands (the scale is computed after the product).
  struct Dequantize {
    OperandId scale;
    std::optional<OperandId> bias;
    uint32_t last;
  };
  std::optional<Dequantize> dequantize;
};

// The int8 form of conv2d `n`, or why it has none (it then runs in float32).
struct IntegerConvMatch {
  std::optional<IntegerConv> conv;
  std::string reason;
};
IntegerConvMatch match_integer_conv(const Graph& g, const Node& n);
// The same for matmul `n` (MatMulInteger's float form): a = the codes as above, [..., M, K];
// b = a bound constant [K, N] of integers, shifted per column. It runs as oneDNN's u8 x s8 ->
// s32 matmul over A's rows collapsed, a column of ones giving the row sums where shifted.
IntegerConvMatch match_integer_matmul(const Graph& g, const Node& n);

// Per conv2d (and matmul) node index of the region, its int8 form; the cast and sub nodes whose
// only readers are such convs (and that are no region outputs) are folded away (`folded`).
// WNN_ONEDNN_INT8=0 plans none, for A/B measurement.
struct IntegerConvPlan {
  std::unordered_map<uint32_t, IntegerConv> convs;
  std::vector<uint32_t> folded;
  std::unordered_map<uint32_t, uint32_t> deferred;  // a dequantization's last node -> its matmul
};
// `accept` says why a matched conv must still run in float32 (empty: it may run int8).
using AcceptIntegerConv = std::function<std::string(const Node&, const IntegerConv&)>;
IntegerConvPlan plan_integer_convs(const Graph& g, const Region& r,
                                   const AcceptIntegerConv& accept = {});

// Why oneDNN's int8 convolution for `c` is no fast kernel (a reference implementation, or none
// at all), or empty: the planner then keeps the conv in float32 on oneDNN.
std::string integer_conv_kernel_refusal(const dnnl::engine& engine, const Graph& g, const Node& n,
                                        const IntegerConv& c);

std::string integer_matmul_kernel_refusal(const dnnl::engine& engine, const Graph& g, const Node& n,
                                          const IntegerConv& c);

void define_integer_conv(RegionBuilder& b, const Node& n, const IntegerConv& c);
void define_integer_matmul(RegionBuilder& b, const Node& n, const IntegerConv& c);

}  // namespace wnn::runtime::onednn
