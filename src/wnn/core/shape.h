// Static tensor shapes and the broadcasting rules of the WebNN spec.
// A shape is a list of dimensions; [] is a scalar and nothing else.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace wnn {

using Shape = std::vector<int64_t>;

// The largest rank any operand may have. The spec leaves it to the context; 8 covers every
// model seen in practice and keeps every per-dimension loop bounded.
inline constexpr size_t kMaxRank = 8;
// The largest element count an operand may declare (2^48): products stay far from overflow.
inline constexpr int64_t kMaxElements = int64_t(1) << 48;

std::string shape_to_string(std::span<const int64_t> shape);  // "[1, 3, 224, 224]"

// Product of dims. Throws wnn::Error on a negative dim or a product above kMaxElements.
int64_t element_count(std::span<const int64_t> shape);

// Checks rank and dims (0 <= dim, product bounded). Throws naming `what`.
void validate_shape(std::span<const int64_t> shape, const char* what);

// Numpy-style bidirectional broadcast. nullopt when the shapes are incompatible.
std::optional<Shape> broadcast_shapes(std::span<const int64_t> a, std::span<const int64_t> b);
// True when `from` broadcasts to exactly `to` (unidirectional).
bool broadcasts_to(std::span<const int64_t> from, std::span<const int64_t> to);

// Row-major strides in elements.
std::vector<int64_t> contiguous_strides(std::span<const int64_t> shape);

// Strides that read `from` as if it had been broadcast to `to` (0 on broadcast dims),
// right-aligned. Requires broadcasts_to(from, to).
std::vector<int64_t> broadcast_strides(std::span<const int64_t> from, std::span<const int64_t> to);

}  // namespace wnn
