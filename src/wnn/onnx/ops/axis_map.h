// Constant linear maps along one axis: the exact decomposition of separable resampling (Resize,
// DFT, windowed sums) onto WebNN's matmul and gather, with the maps computed at import time.
#pragma once

#include "wnn/onnx/registry.h"

namespace wnn::onnx::ops {

// y[..., o, ...] = sum_i matrix[o, i] * x[..., i, ...] along `axis` of x (shape `shape`).
// `matrix` is [out, in] in row-major order, stored in x's dtype.
OperandId matmul_along_axis(ConvertContext& c, OperandId x, const Shape& shape, size_t axis,
                            int64_t out, std::span<const double> matrix, std::string name = {});

// y[..., o, ...] = x[..., index[o], ...]: exact for any dtype.
OperandId gather_along_axis(ConvertContext& c, OperandId x, size_t axis,
                            std::span<const int64_t> index, std::string name = {});

}  // namespace wnn::onnx::ops
