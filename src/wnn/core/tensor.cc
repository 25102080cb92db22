#include "wnn/core/tensor.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

#include <sys/mman.h>

#include "wnn/core/error.h"
#include "wnn/core/half.h"

namespace wnn {

namespace {

Buffer allocate_aligned(size_t bytes, bool huge_pages) {
  // Long-lived buffers of a huge page or more start on a 2 MB boundary and ask for transparent
  // huge pages (Linux's default THP mode is madvise): streaming vit_b_16's 330 MB of weights
  // through 4 KB pages cost it 4-6% in TLB misses. Their size is not rounded up, so the partial
  // last huge page stays in small pages.
  constexpr size_t kHugePage = size_t(2) << 20;
  const bool huge = huge_pages && bytes >= kHugePage;
  const size_t rounded = (bytes + 63) / 64 * 64;
  void* p = nullptr;
  if (rounded != 0 && posix_memalign(&p, huge ? kHugePage : 64, rounded) != 0) {
    throw std::bad_alloc();
  }
  if (huge) madvise(p, rounded / kHugePage * kHugePage, MADV_HUGEPAGE);  // advice only
  if (p != nullptr) std::memset(p, 0, rounded);
  Buffer b = Buffer::view(std::shared_ptr<void>(p, [](void* q) { std::free(q); }),
                          static_cast<const std::byte*>(p), bytes);
  return b;
}

}  // namespace

Buffer Buffer::allocate(size_t bytes) { return allocate_aligned(bytes, false); }

Buffer Buffer::allocate_long_lived(size_t bytes) { return allocate_aligned(bytes, true); }

Buffer Buffer::copy_of(std::span<const std::byte> bytes) {
  Buffer b = allocate(bytes.size());
  if (!bytes.empty()) std::memcpy(b.mutable_data(), bytes.data(), bytes.size());
  return b;
}

Buffer Buffer::slice(size_t offset, size_t length) const {
  check(offset <= size_ && length <= size_ - offset,
        "range [{}, {}) is outside the buffer ({} bytes)", offset, offset + length, size_);
  return view(owner_, data_ + offset, length);
}

Buffer Buffer::view(std::shared_ptr<const void> owner, const std::byte* data, size_t size) {
  Buffer b;
  b.owner_ = std::move(owner);
  b.data_ = data;
  b.size_ = size;
  return b;
}

Tensor Tensor::zeros(DataType dtype, Shape shape) {
  Tensor t{dtype, std::move(shape), {}};
  t.data = Buffer::allocate(t.byte_size());
  return t;
}

double element_as_double(const ConstTensorView& t, int64_t i) {
  switch (t.dtype) {
    case DataType::kFloat32:
      return t.as<float>()[i];
    case DataType::kFloat16:
      return half_to_float(t.as<uint16_t>()[i]);
    case DataType::kInt32:
      return t.as<int32_t>()[i];
    case DataType::kUint32:
      return t.as<uint32_t>()[i];
    case DataType::kInt64:
      return double(t.as<int64_t>()[i]);
    case DataType::kUint64:
      return double(t.as<uint64_t>()[i]);
    case DataType::kInt8:
    case DataType::kInt4:
      return t.as<int8_t>()[i];
    case DataType::kUint8:
    case DataType::kUint4:
      return t.as<uint8_t>()[i];
  }
  return 0;
}

int64_t element_as_int64(const ConstTensorView& t, int64_t i) {
  switch (t.dtype) {
    case DataType::kInt64:
      return t.as<int64_t>()[i];
    case DataType::kUint64:
      return int64_t(t.as<uint64_t>()[i]);
    case DataType::kInt32:
      return t.as<int32_t>()[i];
    case DataType::kUint32:
      return t.as<uint32_t>()[i];
    case DataType::kInt8:
    case DataType::kInt4:
      return t.as<int8_t>()[i];
    case DataType::kUint8:
    case DataType::kUint4:
      return t.as<uint8_t>()[i];
    case DataType::kFloat32:
    case DataType::kFloat16:
      return int64_t(element_as_double(t, i));
  }
  return 0;
}

namespace {

// double -> integer conversions that are defined for every input: a cast of NaN, an infinity
// or an out-of-range value is undefined behaviour in C++. NaN becomes 0; the rest saturate.
int64_t to_int64(double v) {
  if (std::isnan(v)) return 0;
  if (v <= -9223372036854775808.0) return INT64_MIN;
  if (v >= 9223372036854775808.0) return INT64_MAX;
  return int64_t(v);
}
uint64_t to_uint64(double v) {
  if (std::isnan(v) || v <= 0) return 0;
  if (v >= 18446744073709551616.0) return UINT64_MAX;
  return uint64_t(v);
}

}  // namespace

void store_double(const TensorView& t, int64_t i, double v) {
  switch (t.dtype) {
    case DataType::kFloat32:
      t.as<float>()[i] = float(v);
      return;
    case DataType::kFloat16:
      t.as<uint16_t>()[i] = double_to_half(v);
      return;
    case DataType::kInt32:
      t.as<int32_t>()[i] = int32_t(to_int64(v));
      return;
    case DataType::kUint32:
      t.as<uint32_t>()[i] = uint32_t(to_int64(v));
      return;
    case DataType::kInt64:
      t.as<int64_t>()[i] = to_int64(v);
      return;
    case DataType::kUint64:
      t.as<uint64_t>()[i] = v < 0 ? uint64_t(to_int64(v)) : to_uint64(v);
      return;
    case DataType::kInt8:
      t.as<int8_t>()[i] = int8_t(to_int64(v));
      return;
    case DataType::kUint8:
      t.as<uint8_t>()[i] = uint8_t(to_int64(v));
      return;
    case DataType::kInt4: {
      // Wrap into [-8, 7], as the packed nibble would.
      const int64_t n = to_int64(v) & 0xf;
      t.as<int8_t>()[i] = int8_t(n >= 8 ? n - 16 : n);
      return;
    }
    case DataType::kUint4:
      t.as<uint8_t>()[i] = uint8_t(to_int64(v) & 0xf);
      return;
  }
}

}  // namespace wnn
