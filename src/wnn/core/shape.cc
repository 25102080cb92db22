#include "wnn/core/shape.h"

#include <algorithm>

#include "wnn/core/error.h"

namespace wnn {

std::string shape_to_string(std::span<const int64_t> shape) {
  return fmt::format("[{}]", fmt::join(shape, ", "));
}

int64_t element_count(std::span<const int64_t> shape) {
  // Bound the product of the non-zero dims too, so a [0, 2^40, 2^40] shape is rejected
  // rather than hiding an overflow behind the zero.
  int64_t bounded = 1;
  bool zero = false;
  // fail() behind an if: check()'s arguments, shape_to_string included, would be formatted on
  // every call, and callers use this in element loops (Tensor::size()).
  for (int64_t d : shape) {
    if (d < 0) fail("negative dimension {} in shape {}", d, shape_to_string(shape));
    if (d == 0) {
      zero = true;
      continue;
    }
    if (bounded > kMaxElements / d)
      fail("shape {} has more than 2^48 elements", shape_to_string(shape));
    bounded *= d;
  }
  return zero ? 0 : bounded;
}

void validate_shape(std::span<const int64_t> shape, const char* what) {
  check(shape.size() <= kMaxRank, "{} has rank {} (at most {} is supported)", what, shape.size(),
        kMaxRank);
  with_error_context(what, [&] { element_count(shape); });
}

std::optional<Shape> broadcast_shapes(std::span<const int64_t> a, std::span<const int64_t> b) {
  const size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da == db || db == 1) {
      out[i] = da;
    } else if (da == 1) {
      out[i] = db;
    } else {
      return std::nullopt;
    }
  }
  return out;
}

bool broadcasts_to(std::span<const int64_t> from, std::span<const int64_t> to) {
  if (from.size() > to.size()) return false;
  const size_t offset = to.size() - from.size();
  for (size_t i = 0; i < from.size(); ++i) {
    if (from[i] != to[offset + i] && from[i] != 1) return false;
  }
  return true;
}

std::vector<int64_t> contiguous_strides(std::span<const int64_t> shape) {
  std::vector<int64_t> strides(shape.size());
  int64_t s = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = s;
    s *= shape[i];
  }
  return strides;
}

std::vector<int64_t> broadcast_strides(std::span<const int64_t> from, std::span<const int64_t> to) {
  check_internal(broadcasts_to(from, to), "broadcast_strides: {} does not broadcast to {}",
                 shape_to_string(from), shape_to_string(to));
  std::vector<int64_t> strides(to.size(), 0);
  const auto own = contiguous_strides(from);
  const size_t offset = to.size() - from.size();
  for (size_t i = 0; i < from.size(); ++i) {
    strides[offset + i] = (from[i] == 1 && to[offset + i] != 1) ? 0 : own[i];
  }
  return strides;
}

}  // namespace wnn
