// Tensor storage and views. A Buffer is an immutable byte range that keeps its owner alive
// (a heap block or a memory-mapped file), so constants can stay zero-copy views into files.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>

#include "wnn/core/dtype.h"
#include "wnn/core/shape.h"

namespace wnn {

class Buffer {
 public:
  Buffer() = default;
  // A new zero-filled, 64-byte aligned block.
  static Buffer allocate(size_t bytes);
  // allocate() for a long-lived buffer (prepacked weights, a session's arena): from 2 MB on it
  // starts on a huge page and asks for transparent huge pages. Not for per-run allocations:
  // the advice is a system call, and huge-page faults may compact memory.
  static Buffer allocate_long_lived(size_t bytes);
  static Buffer copy_of(std::span<const std::byte> bytes);
  // A view into memory owned by `owner` (for example a MappedFile).
  static Buffer view(std::shared_ptr<const void> owner, const std::byte* data, size_t size);

  const std::byte* data() const { return data_; }
  size_t size() const { return size_; }
  std::span<const std::byte> bytes() const { return {data_, size_}; }
  // A view of [offset, offset + length) sharing this buffer's owner. Throws when the range is
  // outside the buffer.
  Buffer slice(size_t offset, size_t length) const;
  bool empty() const { return size_ == 0; }
  // Writable access. Only valid on a buffer from allocate() that is not yet shared.
  std::byte* mutable_data() const { return const_cast<std::byte*>(data_); }

 private:
  std::shared_ptr<const void> owner_;
  const std::byte* data_ = nullptr;
  size_t size_ = 0;
};

// A borrowed, contiguous, row-major tensor. Kernels take these; they never own memory.
struct ConstTensorView {
  DataType dtype = DataType::kFloat32;
  std::span<const int64_t> shape;
  const std::byte* data = nullptr;

  int64_t size() const { return element_count(shape); }
  template <typename T>
  const T* as() const {
    return reinterpret_cast<const T*>(data);
  }
};

struct TensorView {
  DataType dtype = DataType::kFloat32;
  std::span<const int64_t> shape;
  std::byte* data = nullptr;

  int64_t size() const { return element_count(shape); }
  template <typename T>
  T* as() const {
    return reinterpret_cast<T*>(data);
  }
  operator ConstTensorView() const { return {dtype, shape, data}; }
};

// An owned tensor: dtype, shape and a buffer of exactly element_count * dtype_size bytes.
struct Tensor {
  DataType dtype = DataType::kFloat32;
  Shape shape;
  Buffer data;

  static Tensor zeros(DataType dtype, Shape shape);
  int64_t size() const { return element_count(shape); }
  size_t byte_size() const { return size_t(size()) * dtype_size(dtype); }
  ConstTensorView view() const { return {dtype, shape, data.data()}; }
  // Writable view; only for tensors made by zeros() and not yet shared.
  TensorView mutable_view() { return {dtype, shape, data.mutable_data()}; }
};

// Reads element i of any dtype as double (int64 beyond 2^53 loses precision).
double element_as_double(const ConstTensorView& t, int64_t i);
// Writes v to element i, converting as a cast would (float16 rounds to nearest even).
void store_double(const TensorView& t, int64_t i, double v);
// Reads element i of an integer tensor exactly (uint64 above 2^63 wraps).
int64_t element_as_int64(const ConstTensorView& t, int64_t i);

}  // namespace wnn
