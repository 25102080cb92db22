// Strided views inside a oneDNN region: transpose, reshape, slice and identity record a window
// over their input's bytes instead of copying, and a multiplication or division by a scalar
// constant records a scale. Attention's head split (reshape, transpose, slice of the fused QKV
// projection, q / sqrt(d)) then reaches the matmuls as strides and an output scale, with no
// reorders between them.
#pragma once

#include <optional>

#include "wnn/runtime/onednn/region_builder.h"

namespace wnn::runtime::onednn {

// The strides that read `dims` (row-major, possibly strided) as `new_dims` over the same
// elements in the same order, or nullopt when that needs a copy (numpy's no-copy reshape).
std::optional<dnnl::memory::dims> reshape_strides(const dnnl::memory::dims& dims,
                                                  const dnnl::memory::dims& strides,
                                                  const dnnl::memory::dims& new_dims);

// Whether `v` reads its base row-major from the start, unscaled (then it is a plain alias).
bool is_row_major(const StridedView& v);

// Whether `d` addresses exactly the bytes `want` (row-major or strided, unblocked) does: only
// unit dims' strides may differ. oneDNN's format matching does not see through those (a
// [1, 197, 768] tensor tagged "bac" sent ViT's residual adds to the reference binary kernel, 40x
// slower), so such descs are aliased, never reordered.
bool same_addressing(const dnnl::memory::desc& d, const dnnl::memory::desc& want);

// `v`'s desc with leading unit dims up to `rank` (matmul's broadcast batch dims).
dnnl::memory::desc padded_desc(const StridedView& v, size_t rank);

}  // namespace wnn::runtime::onednn
