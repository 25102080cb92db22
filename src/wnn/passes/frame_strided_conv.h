// A strided 1-D conv of one input channel with a long filter (an STFT written as Conv1d, as
// PyTorch audio front ends export it) rewritten as framing plus one matmul:
//   frames[n, f, k] = x[n, f * s + k]     (reshape to rows of s samples, slices, concat)
//   y[n, o, f] = sum_k frames[n, f, k] * w[o, k]     (a 2-D matmul [N*F, K] x [K, O])
// A direct conv kernel gets one input channel and a K-tap stride-s window per output, which
// oneDNN's and XNNPACK's conv kernels run far below their gemm speed; the matmul is one gemm.
#pragma once

#include "wnn/core/graph.h"
#include "wnn/passes/pattern_match.h"

namespace wnn::passes {

using StridedConvFraming = PatternFusion;

// Deterministic, matched on structure only: a float32 conv2d, inputLayout nchw, filterLayout
// oihw, input [N, 1, 1, L], a bound constant filter [O, 1, 1, K], groups 1, strides [1, s] with
// s >= 2, K >= kMinFramedTaps, dilations 1 and no padding; an optional bias. Frames sharing an
// input, stride and length are built once. The result keeps the conv output's name and shape.
inline constexpr int64_t kMinFramedTaps = 32;
StridedConvFraming frame_strided_convs(const Graph& graph);

}  // namespace wnn::passes
