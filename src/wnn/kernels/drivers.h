// The loop drivers the elementwise-style families share: a scalar functor applied over
// contiguous data (unary) or over two broadcast operands (binary), per storage type.
#pragma once

#include "wnn/core/tensor.h"
#include "wnn/kernels/element.h"
#include "wnn/kernels/strided.h"

namespace wnn::kernels {

// out[i] = op(in[i]); shapes equal.
template <typename In, typename Out, typename Op>
void unary_map(const ConstTensorView& in, const TensorView& out, Op op) {
  const In* pi = in.as<In>();
  Out* po = out.as<Out>();
  const int64_t n = in.size();
  for (int64_t i = 0; i < n; ++i) store(po + i, Compute<Out>(op(load(pi + i))));
}

// out = op(a, b) with a and b broadcast to out's shape.
template <typename In, typename Out, typename Op>
void binary_walk(const ConstTensorView& a, const ConstTensorView& b, const TensorView& out, Op op) {
  const In* pa = a.as<In>();
  const In* pb = b.as<In>();
  Out* po = out.as<Out>();
  broadcast_walk<2>(out.shape, {a.shape, b.shape}, [&](const std::array<int64_t, 3>& o) {
    store(po + o[2], Compute<Out>(op(load(pa + o[0]), load(pb + o[1]))));
  });
}

}  // namespace wnn::kernels
