// The elementwise steps between a decoder's projections, each as one pass over its rows, for the
// packed delegate (runtime/packed/): the RMS normalization the importer writes for
// SimplifiedLayerNormalization, SkipSimplifiedLayerNormalization and RMSNormalization, and the
// SiLU-gated product of a gate and an up projection. Each computes what its graph ops compute,
// in the same order (float32 throughout), so results agree with the unfused ops to rounding.
#pragma once

#include <cstdint>

namespace wnn::kernels {

// Per row of `hidden` elements: s = a (+ residual), y = s / sqrt(sum(s * s) / hidden + epsilon)
// * gamma. `residual` may be null; otherwise `sum` (rows x hidden) receives s. `y` must not
// overlap `sum` (the caller keeps both). Rows are split among `threads`; each row is computed
// the same way whatever the split.
void rms_norm(const float* a, const float* residual, float* sum, const float* gamma, float epsilon,
              int64_t rows, int64_t hidden, float* y, int threads = 1);

// y = gate * sigmoid(gate) * up over n elements (y may be gate or up), in chunks split among
// `threads` when there are several (a prefill's rows; a decode step's one row stays on one).
void silu_mul(const float* gate, const float* up, int64_t n, float* y, int threads = 1);

}  // namespace wnn::kernels
