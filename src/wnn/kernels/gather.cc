// gather, gatherElements, gatherND, scatterElements and scatterND. They move whole elements,
// so they copy bytes. Indices may be negative (counted from the end); out-of-range indices
// clamp to the nearest valid one, as the WPT vectors expect (FORMAT.md §6), so no index can
// read or write outside the tensor. Scatters apply updates in order: later ones win.
#include <cstring>
#include <vector>

#include "wnn/core/error.h"
#include "wnn/kernels/kernel.h"
#include "wnn/kernels/strided.h"

namespace wnn::kernels {

namespace {

int64_t resolve_index(int64_t i, int64_t n) {
  check(n > 0, "index {} into an empty dimension", i);
  if (i < 0) i += n;
  return i < 0 ? 0 : i >= n ? n - 1 : i;
}

void copy_input(const ConstTensorView& in, const TensorView& out) {
  const size_t bytes = size_t(in.size()) * dtype_size(in.dtype);
  if (bytes != 0) std::memcpy(out.data, in.data, bytes);
}

void gather_axis(const KernelArgs& k) {
  const ConstTensorView& in = k.input("input");
  const ConstTensorView& indices = k.input("indices");
  const TensorView& out = k.output();
  const size_t axis = size_t(k.attrs().get_int("axis"));
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < axis; ++d) outer *= in.shape[d];
  for (size_t d = axis + 1; d < in.shape.size(); ++d) inner *= in.shape[d];
  const int64_t n = in.shape[axis];
  const int64_t m = indices.size();
  const size_t row = size_t(inner) * dtype_size(in.dtype);
  if (row == 0 || m == 0 || outer == 0) return;
  std::vector<int64_t> rows(static_cast<size_t>(m));
  for (int64_t j = 0; j < m; ++j) rows[size_t(j)] = resolve_index(element_as_int64(indices, j), n);
  std::byte* dst = out.data;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t j = 0; j < m; ++j, dst += row) {
      std::memcpy(dst, in.data + (o * n + rows[size_t(j)]) * int64_t(row), row);
    }
  }
}

// The walk gatherElements and scatterElements share: over the indices' shape, fn(data
// offset, indices offset) where the data offset already points at the resolved index.
template <typename Fn>
void walk_elements(std::span<const int64_t> data_shape, const ConstTensorView& indices, size_t axis,
                   Fn&& fn) {
  std::vector<int64_t> data_strides = contiguous_strides(data_shape);
  const int64_t axis_stride = data_strides[axis];
  const int64_t n = data_shape[axis];
  data_strides[axis] = 0;
  const auto index_strides = contiguous_strides(indices.shape);
  strided_walk<2>(indices.shape, {data_strides, index_strides}, {},
                  [&](const std::array<int64_t, 2>& o) {
                    const int64_t i = resolve_index(element_as_int64(indices, o[1]), n);
                    fn(o[0] + i * axis_stride, o[1]);
                  });
}

void gather_elements(const KernelArgs& k) {
  const ConstTensorView& in = k.input("input");
  const TensorView& out = k.output();
  const size_t es = dtype_size(in.dtype);
  walk_elements(in.shape, k.input("indices"), size_t(k.attrs().get_int("axis")),
                [&](int64_t src, int64_t dst) {
                  std::memcpy(out.data + dst * int64_t(es), in.data + src * int64_t(es), es);
                });
}

void scatter_elements(const KernelArgs& k) {
  const ConstTensorView& in = k.input("input");
  const ConstTensorView& updates = k.input("updates");
  const TensorView& out = k.output();
  copy_input(in, out);
  const size_t es = dtype_size(in.dtype);
  walk_elements(in.shape, k.input("indices"), size_t(k.attrs().get_int("axis")),
                [&](int64_t dst, int64_t src) {
                  std::memcpy(out.data + dst * int64_t(es), updates.data + src * int64_t(es), es);
                });
}

// gatherND / scatterND: each index tuple (the last dim of indices, k entries) addresses a
// slice of the data made of its trailing rank - k dims. fn(tuple number, data element offset).
template <typename Fn>
void walk_nd(std::span<const int64_t> data_shape, const ConstTensorView& indices, Fn&& fn) {
  const int64_t k = indices.shape.back();
  const auto strides = contiguous_strides(data_shape);
  const int64_t tuples = k == 0 ? 0 : indices.size() / k;
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t offset = 0;
    for (int64_t d = 0; d < k; ++d) {
      offset += resolve_index(element_as_int64(indices, t * k + d), data_shape[size_t(d)]) *
                strides[size_t(d)];
    }
    fn(t, offset);
  }
}

int64_t nd_slice_bytes(std::span<const int64_t> data_shape, const ConstTensorView& indices,
                       DataType dtype) {
  int64_t slice = 1;
  for (size_t d = size_t(indices.shape.back()); d < data_shape.size(); ++d) slice *= data_shape[d];
  return slice * int64_t(dtype_size(dtype));
}

void gather_nd(const KernelArgs& k) {
  const ConstTensorView& in = k.input("input");
  const ConstTensorView& indices = k.input("indices");
  const TensorView& out = k.output();
  const int64_t bytes = nd_slice_bytes(in.shape, indices, in.dtype);
  const int64_t es = int64_t(dtype_size(in.dtype));
  if (bytes == 0) return;
  walk_nd(in.shape, indices, [&](int64_t t, int64_t offset) {
    std::memcpy(out.data + t * bytes, in.data + offset * es, size_t(bytes));
  });
}

void scatter_nd(const KernelArgs& k) {
  const ConstTensorView& in = k.input("input");
  const ConstTensorView& indices = k.input("indices");
  const ConstTensorView& updates = k.input("updates");
  const TensorView& out = k.output();
  copy_input(in, out);
  const int64_t bytes = nd_slice_bytes(in.shape, indices, in.dtype);
  const int64_t es = int64_t(dtype_size(in.dtype));
  if (bytes == 0) return;
  walk_nd(in.shape, indices, [&](int64_t t, int64_t offset) {
    std::memcpy(out.data + offset * es, updates.data + t * bytes, size_t(bytes));
  });
}

}  // namespace

void gather(const KernelArgs& k) {
  switch (k.attrs().op()) {
    case OpKind::kGather:
      return gather_axis(k);
    case OpKind::kGatherElements:
      return gather_elements(k);
    case OpKind::kGatherND:
      return gather_nd(k);
    case OpKind::kScatterElements:
      return scatter_elements(k);
    case OpKind::kScatterND:
      return scatter_nd(k);
    default:
      check_internal(false, "gather has no kernel for {}", k.attrs().schema().name);
  }
}

}  // namespace wnn::kernels
