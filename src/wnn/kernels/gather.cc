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

// gatherElements with int32/int64 indices and 1-, 2-, 4- or 8-byte elements: the walk of
// walk_elements with the innermost dimension as a tight loop (a decoder's KV cache reorder
// spends most of its time here otherwise).
template <typename Index, typename Element>
void gather_elements_typed(const ConstTensorView& in, const ConstTensorView& indices, size_t axis,
                           const TensorView& out) {
  const std::span<const int64_t> shape = indices.shape;
  const size_t rank = shape.size();
  std::vector<int64_t> strides = contiguous_strides(in.shape);
  const int64_t axis_stride = strides[axis], n = in.shape[axis];
  strides[axis] = 0;
  const int64_t total = indices.size(), inner = shape[rank - 1], inner_stride = strides[rank - 1];
  const auto* idx = indices.as<Index>();
  std::vector<int64_t> position(rank, 0);
  int64_t base = 0;
  for (int64_t o = 0; o < total; o += inner) {
    for (int64_t j = 0; j < inner; ++j) {
      int64_t i = int64_t(idx[o + j]);
      if (i < 0) i += n;
      i = i < 0 ? 0 : i >= n ? n - 1 : i;
      std::memcpy(out.data + (o + j) * int64_t(sizeof(Element)),
                  in.data + (base + j * inner_stride + i * axis_stride) * int64_t(sizeof(Element)),
                  sizeof(Element));
    }
    for (int64_t d = int64_t(rank) - 2; d >= 0; --d) {
      base += strides[size_t(d)];
      if (++position[size_t(d)] < shape[size_t(d)]) break;
      base -= strides[size_t(d)] * shape[size_t(d)];
      position[size_t(d)] = 0;
    }
  }
}

template <typename Index>
bool gather_elements_fast(const ConstTensorView& in, const ConstTensorView& indices, size_t axis,
                          const TensorView& out) {
  switch (dtype_size(in.dtype)) {
    case 1:
      gather_elements_typed<Index, uint8_t>(in, indices, axis, out);
      return true;
    case 2:
      gather_elements_typed<Index, uint16_t>(in, indices, axis, out);
      return true;
    case 4:
      gather_elements_typed<Index, uint32_t>(in, indices, axis, out);
      return true;
    case 8:
      gather_elements_typed<Index, uint64_t>(in, indices, axis, out);
      return true;
    default:
      return false;
  }
}

void gather_elements(const KernelArgs& k) {
  const ConstTensorView& in = k.input("input");
  const ConstTensorView& indices = k.input("indices");
  const TensorView& out = k.output();
  const size_t axis = size_t(k.attrs().get_int("axis"));
  // An empty axis is an error the general walk reports.
  if (indices.size() > 0 && in.shape[axis] > 0 && !indices.shape.empty() &&
      !(in.dtype == DataType::kInt4 || in.dtype == DataType::kUint4)) {
    if (indices.dtype == DataType::kInt64 && gather_elements_fast<int64_t>(in, indices, axis, out))
      return;
    if (indices.dtype == DataType::kInt32 && gather_elements_fast<int32_t>(in, indices, axis, out))
      return;
  }
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
