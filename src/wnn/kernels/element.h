// Element types of the reference kernels: the C++ storage type of each WebNN data type, the
// type arithmetic happens in (double for float32/float16, so a float16 result is rounded
// once on store), and a dispatcher that instantiates a templated kernel per storage type.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "wnn/core/dtype.h"
#include "wnn/core/error.h"
#include "wnn/core/half.h"

namespace wnn::kernels {

// float16 storage: raw IEEE binary16 bits.
struct Half {
  uint16_t bits;
};

template <typename T>
inline constexpr bool kIsFloat = std::is_same_v<T, float> || std::is_same_v<T, Half>;

// Floats compute in double: float32 +,-,*,/ and sqrt through double round exactly like the
// float32 operation, and transcendental functions come out closer to the true value.
template <typename T>
using Compute = std::conditional_t<kIsFloat<T>, double, T>;

template <typename T>
inline Compute<T> load(const T* p) {
  if constexpr (std::is_same_v<T, Half>) {
    return half_to_float(p->bits);
  } else {
    return *p;
  }
}

template <typename T>
inline void store(T* p, Compute<T> v) {
  if constexpr (std::is_same_v<T, Half>) {
    p->bits = double_to_half(v);
  } else if constexpr (std::is_same_v<T, float>) {
    *p = float(v);
  } else {
    *p = v;
  }
}

template <typename T>
struct TypeTag {
  using type = T;
};

// Calls f(TypeTag<T>{}) with the storage type of `t`. int4/uint4 are held one per byte and
// dispatch as int8/uint8: ops that can overflow their range (cast, quantize) wrap or
// saturate them explicitly.
template <typename F>
decltype(auto) visit_dtype(DataType t, F&& f) {
  switch (t) {
    case DataType::kFloat32:
      return f(TypeTag<float>{});
    case DataType::kFloat16:
      return f(TypeTag<Half>{});
    case DataType::kInt32:
      return f(TypeTag<int32_t>{});
    case DataType::kUint32:
      return f(TypeTag<uint32_t>{});
    case DataType::kInt64:
      return f(TypeTag<int64_t>{});
    case DataType::kUint64:
      return f(TypeTag<uint64_t>{});
    case DataType::kInt8:
    case DataType::kInt4:
      return f(TypeTag<int8_t>{});
    case DataType::kUint8:
    case DataType::kUint4:
      return f(TypeTag<uint8_t>{});
  }
  check_internal(false, "unknown data type {}", int(t));
  return f(TypeTag<float>{});
}

// The float types only, for ops the table restricts to float32/float16.
template <typename F>
decltype(auto) visit_float_dtype(DataType t, F&& f) {
  if (t == DataType::kFloat16) return f(TypeTag<Half>{});
  check_internal(t == DataType::kFloat32, "float kernel called on {}", dtype_name(t));
  return f(TypeTag<float>{});
}

// Integer arithmetic that wraps like two's complement hardware instead of overflowing (UB).
template <typename C>
inline C wrap_add(C a, C b) {
  return C(uint64_t(a) + uint64_t(b));
}
template <typename C>
inline C wrap_sub(C a, C b) {
  return C(uint64_t(a) - uint64_t(b));
}
template <typename C>
inline C wrap_mul(C a, C b) {
  return C(uint64_t(a) * uint64_t(b));
}

// Round half to even regardless of the current floating-point rounding mode.
inline double round_even(double x) {
  if (std::fabs(x - std::trunc(x)) == 0.5) return 2.0 * std::round(x / 2.0);
  return std::round(x);
}

// + and * in a compute type: wrapping for integers, IEEE for floats.
template <typename C>
inline C num_add(C a, C b) {
  if constexpr (std::is_integral_v<C>)
    return wrap_add(a, b);
  else
    return a + b;
}
template <typename C>
inline C num_mul(C a, C b) {
  if constexpr (std::is_integral_v<C>)
    return wrap_mul(a, b);
  else
    return a * b;
}

// The range of values an integer data type holds (int4/uint4 narrower than their storage).
struct IntRange {
  double lo, hi;
};
inline IntRange int_range(DataType t) {
  switch (t) {
    case DataType::kInt4:
      return {-8, 7};
    case DataType::kUint4:
      return {0, 15};
    case DataType::kInt8:
      return {-128, 127};
    case DataType::kUint8:
      return {0, 255};
    case DataType::kInt32:
      return {-2147483648.0, 2147483647.0};
    case DataType::kUint32:
      return {0, 4294967295.0};
    case DataType::kInt64:
      return {-9223372036854775808.0, 9223372036854775807.0};
    case DataType::kUint64:
      return {0, 18446744073709551615.0};
    default:
      return {-INFINITY, INFINITY};
  }
}

// A float converted to integer storage type I: truncated toward zero, saturated to [lo, hi],
// NaN to 0 (WebNN leaves out-of-range casts implementation-defined; saturating never hits
// C++'s undefined float-to-int conversion).
template <typename I>
inline I saturate_to(double v, IntRange r) {
  if (std::isnan(v)) return I(0);
  v = std::trunc(v);
  if (v <= r.lo) return I(r.lo);
  // Doubles at hi may round above the type's max (2^63): compare with >= and take max.
  if (v >= r.hi) {
    return r.hi >= double(std::numeric_limits<I>::max()) ? std::numeric_limits<I>::max() : I(r.hi);
  }
  return I(v);
}

}  // namespace wnn::kernels
