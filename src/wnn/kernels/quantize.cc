// quantizeLinear and dequantizeLinear. scale and zeroPoint broadcast block-wise: aligned to
// the right of the input, a dim of size s covers blocks of input_dim / s elements. Each input
// dim is walked as [s, block] so the scale offset follows by strides, with no division per
// element.
#include <cmath>
#include <vector>

#include "wnn/kernels/element.h"
#include "wnn/kernels/kernel.h"
#include "wnn/kernels/strided.h"

namespace wnn::kernels {

namespace {

// The expanded walk: shape, element strides of the input (and output, which has its shape)
// and of scale (and zeroPoint, which has scale's shape).
struct BlockWalk {
  Shape shape;
  std::vector<int64_t> data_strides, param_strides;
};

BlockWalk block_walk(std::span<const int64_t> in_shape, std::span<const int64_t> param_shape) {
  BlockWalk w;
  const auto in_strides = contiguous_strides(in_shape);
  const auto param_own = contiguous_strides(param_shape);
  const size_t lead = in_shape.size() - param_shape.size();
  for (size_t d = 0; d < in_shape.size(); ++d) {
    if (d < lead) {
      w.shape.push_back(in_shape[d]);
      w.data_strides.push_back(in_strides[d]);
      w.param_strides.push_back(0);
      continue;
    }
    const int64_t s = param_shape[d - lead];
    const int64_t block = in_shape[d] / s;
    w.shape.insert(w.shape.end(), {s, block});
    w.data_strides.insert(w.data_strides.end(), {block * in_strides[d], in_strides[d]});
    w.param_strides.insert(w.param_strides.end(), {param_own[d - lead], 0});
  }
  return w;
}

// Round half to even, add the zero point, saturate to the zero point type's range. The
// quotient is first rounded to the input's own type, as input / scale is in WebNN (and ONNX):
// 0.5f / 0.019607844f is exactly 25.5 in float32 (rounds to 26) but 25.4999991 in double
// (rounds to 25). Dividing in double and rounding once to F is the correctly rounded F
// division, since double has more than twice F's precision.
template <typename F, typename Q>
void quantize_typed(const ConstTensorView& in, const ConstTensorView& scale,
                    const ConstTensorView& zero, const TensorView& out) {
  const BlockWalk w = block_walk(in.shape, scale.shape);
  const IntRange range = int_range(out.dtype);
  const F* px = in.as<F>();
  const F* ps = scale.as<F>();
  const Q* pz = zero.as<Q>();
  Q* po = out.as<Q>();
  strided_walk<2>(w.shape, {w.data_strides, w.param_strides}, {},
                  [&](const std::array<int64_t, 2>& o) {
                    F quotient;
                    store(&quotient, load(px + o[0]) / load(ps + o[1]));
                    const double q = round_even(load(&quotient));
                    po[o[0]] = saturate_to<Q>(q + double(pz[o[1]]), range);
                  });
}

template <typename Q, typename F>
void dequantize_typed(const ConstTensorView& in, const ConstTensorView& scale,
                      const ConstTensorView& zero, const TensorView& out) {
  const BlockWalk w = block_walk(in.shape, scale.shape);
  const Q* px = in.as<Q>();
  const F* ps = scale.as<F>();
  const Q* pz = zero.as<Q>();
  F* po = out.as<F>();
  strided_walk<2>(w.shape, {w.data_strides, w.param_strides}, {},
                  [&](const std::array<int64_t, 2>& o) {
                    store(po + o[0], (double(px[o[0]]) - double(pz[o[1]])) * load(ps + o[1]));
                  });
}

}  // namespace

void quantize(const KernelArgs& k) {
  const ConstTensorView& in = k.input("input");
  const ConstTensorView& scale = k.input("scale");
  const ConstTensorView& zero = k.input("zeroPoint");
  const TensorView& out = k.output();
  const bool is_quantize = k.attrs().op() == OpKind::kQuantizeLinear;
  check_internal(is_quantize || k.attrs().op() == OpKind::kDequantizeLinear,
                 "quantize has no kernel for {}", k.attrs().schema().name);
  visit_float_dtype(scale.dtype, [&](auto float_tag) {
    using F = typename decltype(float_tag)::type;
    visit_dtype(zero.dtype, [&](auto q_tag) {
      using Q = typename decltype(q_tag)::type;
      if constexpr (!kIsFloat<Q>) {
        if (is_quantize)
          quantize_typed<F, Q>(in, scale, zero, out);
        else
          dequantize_typed<Q, F>(in, scale, zero, out);
      } else {
        check_internal(false, "zeroPoint of {} is a float", dtype_name(zero.dtype));
      }
    });
  });
}

}  // namespace wnn::kernels
