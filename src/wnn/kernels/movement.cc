// Data movement kernels. Every op here only moves elements, so they are instantiated per
// element size (1, 2, 4, 8 bytes), not per data type, and all but pad and triangular are one
// strided copy: the output walked row-major while the source offset follows strides that
// encode the op (permuted for transpose, negated for reverse, scaled for slice, 0 for
// expand, split into [repetition, dim] pairs for tile).
#include <algorithm>
#include <cstring>
#include <vector>

#include "wnn/core/ops/schema.h"
#include "wnn/kernels/element.h"
#include "wnn/kernels/kernel.h"
#include "wnn/kernels/strided.h"

namespace wnn::kernels {

namespace {

template <typename F>
void visit_element_size(DataType t, F&& f) {
  switch (dtype_size(t)) {
    case 1:
      return f(TypeTag<uint8_t>{});
    case 2:
      return f(TypeTag<uint16_t>{});
    case 4:
      return f(TypeTag<uint32_t>{});
    case 8:
      return f(TypeTag<uint64_t>{});
  }
  check_internal(false, "element size {} of {}", dtype_size(t), dtype_name(t));
}

// Where the elements come from and go to in one strided copy.
struct StridedRegion {
  std::vector<int64_t> strides;
  int64_t start = 0;
};

// The same index space over fewer, longer dimensions: size-1 dimensions dropped, and a
// dimension merged into the one before it when both sides' strides chain (the outer stride is
// the inner one times the inner size; broadcast runs, stride 0 on both, merge too).
struct CoalescedCopy {
  std::vector<int64_t> shape, from, to;
};

CoalescedCopy coalesce(std::span<const int64_t> shape, std::span<const int64_t> from,
                       std::span<const int64_t> to) {
  CoalescedCopy c;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    if (!c.shape.empty() && c.from.back() == from[d] * shape[d] &&
        c.to.back() == to[d] * shape[d]) {
      c.shape.back() *= shape[d];
      c.from.back() = from[d];
      c.to.back() = to[d];
      continue;
    }
    c.shape.push_back(shape[d]);
    c.from.push_back(from[d]);
    c.to.push_back(to[d]);
  }
  return c;
}

// Copies every index of `shape` from src to dst, each side addressed by its region. Runs that
// are contiguous on both sides after coalescing are one memcpy each, and runs reading one
// element (a broadcast) one fill.
void copy_strided(DataType dtype, std::span<const int64_t> shape, const std::byte* src,
                  const StridedRegion& from, std::byte* dst, const StridedRegion& to) {
  // Nothing to copy, and a zero-size tensor's data may be null (memcpy must not see it).
  for (int64_t d : shape) {
    if (d == 0) return;
  }
  const CoalescedCopy c = coalesce(shape, from.strides, to.strides);
  visit_element_size(dtype, [&](auto tag) {
    using E = typename decltype(tag)::type;
    const E* s = reinterpret_cast<const E*>(src);
    E* d = reinterpret_cast<E*>(dst);
    if (c.shape.empty()) {
      d[to.start] = s[from.start];
      return;
    }
    const size_t last = c.shape.size() - 1;
    const int64_t run = c.shape[last];
    const std::span<const int64_t> outer(c.shape.data(), last);
    const std::span<const int64_t> outer_from(c.from.data(), last), outer_to(c.to.data(), last);
    if (c.to[last] == 1 && (c.from[last] == 1 || c.from[last] == 0)) {
      const bool fill = c.from[last] == 0;
      strided_walk<2>(outer, {outer_from, outer_to}, {from.start, to.start},
                      [&](const std::array<int64_t, 2>& o) {
                        if (fill) {
                          std::fill_n(d + o[1], run, s[o[0]]);
                        } else {
                          std::memcpy(d + o[1], s + o[0], size_t(run) * sizeof(E));
                        }
                      });
      return;
    }
    strided_walk<2>(c.shape, {c.from, c.to}, {from.start, to.start},
                    [&](const std::array<int64_t, 2>& o) { d[o[1]] = s[o[0]]; });
  });
}

StridedRegion contiguous(std::span<const int64_t> shape) { return {contiguous_strides(shape), 0}; }

void concat(const KernelArgs& k) {
  const TensorView& out = k.output();
  const size_t axis = size_t(k.attrs().get_int("axis"));
  StridedRegion to = contiguous(out.shape);
  for (const ConstTensorView& in : k.input_list("inputs")) {
    copy_strided(out.dtype, in.shape, in.data, contiguous(in.shape), out.data, to);
    to.start += in.shape[axis] * to.strides[axis];
  }
}

void split(const KernelArgs& k) {
  const ConstTensorView& in = k.input("input");
  const size_t axis = size_t(k.attrs().get_int("axis"));
  StridedRegion from = contiguous(in.shape);
  for (size_t i = 0; i < k.num_outputs(); ++i) {
    const TensorView& out = k.output(i);
    copy_strided(in.dtype, out.shape, in.data, from, out.data, contiguous(out.shape));
    from.start += out.shape[axis] * from.strides[axis];
  }
}

void expand(const KernelArgs& k) {
  const ConstTensorView& in = k.input("input");
  const TensorView& out = k.output();
  copy_strided(in.dtype, out.shape, in.data, {broadcast_strides(in.shape, out.shape), 0}, out.data,
               contiguous(out.shape));
}

void transpose(const KernelArgs& k) {
  const ConstTensorView& in = k.input("input");
  const TensorView& out = k.output();
  const size_t rank = in.shape.size();
  IntList perm = k.attrs().get_ints("permutation");
  if (!k.attrs().has("permutation")) {
    perm.clear();
    for (size_t i = rank; i-- > 0;) perm.push_back(int64_t(i));
  }
  const auto in_strides = contiguous_strides(in.shape);
  StridedRegion from;
  for (size_t i = 0; i < rank; ++i) from.strides.push_back(in_strides[size_t(perm[i])]);
  copy_strided(in.dtype, out.shape, in.data, from, out.data, contiguous(out.shape));
}

void reverse(const KernelArgs& k) {
  const ConstTensorView& in = k.input("input");
  const TensorView& out = k.output();
  StridedRegion from = contiguous(in.shape);
  for (int64_t a : schema::resolve_axes(k.attrs(), "axes", in.shape.size())) {
    const size_t d = size_t(a);
    if (in.shape[d] == 0) continue;
    from.start += (in.shape[d] - 1) * from.strides[d];
    from.strides[d] = -from.strides[d];
  }
  copy_strided(in.dtype, out.shape, in.data, from, out.data, contiguous(out.shape));
}

void slice(const KernelArgs& k) {
  const ConstTensorView& in = k.input("input");
  const TensorView& out = k.output();
  const IntList starts = k.attrs().get_ints("starts");
  const IntList steps =
      k.attrs().has("strides") ? k.attrs().get_ints("strides") : IntList(in.shape.size(), 1);
  StridedRegion from = contiguous(in.shape);
  for (size_t d = 0; d < in.shape.size(); ++d) {
    from.start += starts[d] * from.strides[d];
    from.strides[d] *= steps[d];
  }
  copy_strided(in.dtype, out.shape, in.data, from, out.data, contiguous(out.shape));
}

// Output dim d of size r*n read as [r, n]: the repetition index strides 0 in the source and
// n elements of the output dim in the destination.
void tile(const KernelArgs& k) {
  const ConstTensorView& in = k.input("input");
  const TensorView& out = k.output();
  const IntList reps = k.attrs().get_ints("repetitions");
  const auto in_strides = contiguous_strides(in.shape);
  const auto out_strides = contiguous_strides(out.shape);
  Shape shape;
  StridedRegion from, to;
  for (size_t d = 0; d < in.shape.size(); ++d) {
    shape.insert(shape.end(), {reps[d], in.shape[d]});
    from.strides.insert(from.strides.end(), {0, in_strides[d]});
    to.strides.insert(to.strides.end(), {in.shape[d] * out_strides[d], out_strides[d]});
  }
  copy_strided(in.dtype, shape, in.data, from, out.data, to);
}

// The fill value of constant padding, as one element of `dtype` (an integer MLNumber is
// stored exactly, so int64 fills beyond 2^53 keep their bits).
std::vector<std::byte> pad_fill(const Value& value, DataType dtype) {
  Tensor one = Tensor::zeros(dtype, {});
  const int64_t* as_int = std::get_if<int64_t>(&value);
  if (as_int != nullptr && (dtype == DataType::kInt64 || dtype == DataType::kUint64)) {
    std::memcpy(one.mutable_view().data, as_int, sizeof(int64_t));
  } else {
    store_double(one.mutable_view(), 0,
                 as_int != nullptr ? double(*as_int) : std::get<double>(value));
  }
  const auto bytes = one.data.bytes();
  return {bytes.begin(), bytes.end()};
}

// For each output index of one dim, the source index it reads, or -1 for the fill value.
std::vector<int64_t> pad_source_index(int64_t n, int64_t begin, int64_t size,
                                      const std::string& mode) {
  std::vector<int64_t> map(static_cast<size_t>(size));
  for (int64_t o = 0; o < size; ++o) {
    int64_t i = o - begin;
    if (i < 0 || i >= n) {
      if (mode == "constant") {
        i = -1;
      } else if (mode == "edge") {
        i = i < 0 ? 0 : n - 1;
      } else {  // reflection, about the edge element (padding < n keeps one bounce)
        if (i < 0) i = -i;
        if (i >= n) i = 2 * (n - 1) - i;
      }
    }
    map[size_t(o)] = i;
  }
  return map;
}

void pad(const KernelArgs& k) {
  const ConstTensorView& in = k.input("input");
  const TensorView& out = k.output();
  const size_t rank = in.shape.size();
  const IntList begin = k.attrs().get_ints("beginningPadding");
  const std::string& mode = k.attrs().get_enum("mode");
  const std::vector<std::byte> fill = pad_fill(k.attrs().get("value"), in.dtype);
  const auto in_strides = contiguous_strides(in.shape);
  std::vector<std::vector<int64_t>> maps;
  for (size_t d = 0; d < rank; ++d) {
    maps.push_back(pad_source_index(in.shape[d], begin[d], out.shape[d], mode));
  }
  const size_t es = dtype_size(in.dtype);
  const int64_t total = out.size();
  std::vector<int64_t> index(rank, 0);
  for (int64_t o = 0; o < total; ++o) {
    int64_t src = 0;
    bool inside = true;
    for (size_t d = 0; d < rank; ++d) {
      const int64_t i = maps[d][size_t(index[d])];
      inside = inside && i >= 0;
      src += i * in_strides[d];
    }
    std::memcpy(out.data + o * es, inside ? in.data + src * es : fill.data(), es);
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < out.shape[d]) break;
      index[d] = 0;
    }
  }
}

// Keeps element (i, j) of each matrix in the last two dims when j - i >= diagonal (upper)
// or j - i <= diagonal (lower); the rest become zero, which is all-zero bytes in every dtype.
void triangular(const KernelArgs& k) {
  const ConstTensorView& in = k.input("input");
  const TensorView& out = k.output();
  const size_t rank = in.shape.size();
  const int64_t rows = in.shape[rank - 2], cols = in.shape[rank - 1];
  const bool upper = k.attrs().get_bool("upper");
  const int64_t diagonal = k.attrs().get_int("diagonal");
  const size_t es = dtype_size(in.dtype);
  const int64_t total = in.size();
  int64_t e = 0;
  while (e < total) {
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = 0; j < cols; ++j, ++e) {
        const bool keep = upper ? j - i >= diagonal : j - i <= diagonal;
        if (keep)
          std::memcpy(out.data + e * es, in.data + e * es, es);
        else
          std::memset(out.data + e * es, 0, es);
      }
    }
  }
}

void copy_all(const KernelArgs& k) {
  const ConstTensorView& in = k.input("input");
  const size_t bytes = size_t(in.size()) * dtype_size(in.dtype);
  if (bytes != 0) std::memcpy(k.output().data, in.data, bytes);
}

}  // namespace

void movement(const KernelArgs& k) {
  switch (k.attrs().op()) {
    case OpKind::kConcat:
      return concat(k);
    case OpKind::kExpand:
      return expand(k);
    case OpKind::kPad:
      return pad(k);
    case OpKind::kReshape:
      return copy_all(k);
    case OpKind::kReverse:
      return reverse(k);
    case OpKind::kSlice:
      return slice(k);
    case OpKind::kSplit:
      return split(k);
    case OpKind::kTile:
      return tile(k);
    case OpKind::kTranspose:
      return transpose(k);
    case OpKind::kTriangular:
      return triangular(k);
    default:
      check_internal(false, "movement has no kernel for {}", k.attrs().schema().name);
  }
}

}  // namespace wnn::kernels
