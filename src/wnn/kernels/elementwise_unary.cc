// Unary elementwise kernels and cast: one contiguous driver per storage type and one scalar
// functor per op. Float ops compute in double and round once on store.
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "wnn/kernels/drivers.h"
#include "wnn/kernels/elementwise_unary.h"

namespace wnn::kernels {

namespace {

// Same type in and out, over the float types only.
template <typename Op>
void float_unary(const KernelArgs& k, Op op) {
  const auto& in = k.input("input");
  visit_float_dtype(in.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    unary_map<T, T>(in, k.output(), op);
  });
}

// Same type in and out, over every type the table allows (abs, neg, sign).
template <typename Op>
void numeric_unary(const KernelArgs& k, Op op) {
  const auto& in = k.input("input");
  visit_dtype(in.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    unary_map<T, T>(in, k.output(), op);
  });
}

// A float input tested into a uint8 output.
template <typename Op>
void float_predicate(const KernelArgs& k, Op op) {
  const auto& in = k.input("a");
  visit_float_dtype(in.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    unary_map<T, uint8_t>(in, k.output(), op);
  });
}

// Integers wrap: abs(INT_MIN) and neg(INT_MIN) are INT_MIN.
struct Abs {
  template <typename C>
  C operator()(C x) const {
    if constexpr (std::is_floating_point_v<C>)
      return std::fabs(x);
    else if constexpr (std::is_signed_v<C>)
      return x < 0 ? wrap_sub(C(0), x) : x;
    else
      return x;
  }
};
struct Neg {
  template <typename C>
  C operator()(C x) const {
    if constexpr (std::is_floating_point_v<C>)
      return -x;
    else
      return wrap_sub(C(0), x);
  }
};
// NaN stays NaN and ±0 stays ±0.
struct Sign {
  template <typename C>
  C operator()(C x) const {
    if constexpr (std::is_floating_point_v<C>) {
      if (std::isnan(x) || x == 0) return x;
    }
    return x > 0 ? C(1) : x < 0 ? C(-1) : C(0);
  }
};
template <double (*F)(double)>
struct Fn {
  double operator()(double x) const { return F(x); }
};
double reciprocal(double x) { return 1.0 / x; }
double std_ceil(double x) { return std::ceil(x); }
double std_floor(double x) { return std::floor(x); }
double std_cos(double x) { return std::cos(x); }
double std_sin(double x) { return std::sin(x); }
double std_tan(double x) { return std::tan(x); }
double std_erf(double x) { return std::erf(x); }
double std_exp(double x) { return std::exp(x); }
double std_log(double x) { return std::log(x); }
double std_sqrt(double x) { return std::sqrt(x); }

// Target storage type O from input storage type I. Floats become integers by truncation,
// saturated to the target range (NaN gives 0); integers wrap modulo the target width,
// int4/uint4 included (mod 16); integers become floats by rounding to nearest.
template <typename I, typename O>
void cast_map(const ConstTensorView& in, const TensorView& out) {
  const I* pi = in.as<I>();
  O* po = out.as<O>();
  const int64_t n = in.size();
  const IntRange range = int_range(out.dtype);
  const bool nibble = out.dtype == DataType::kInt4 || out.dtype == DataType::kUint4;
  const bool signed_nibble = out.dtype == DataType::kInt4;
  for (int64_t i = 0; i < n; ++i) {
    const Compute<I> v = load(pi + i);
    if constexpr (kIsFloat<O>) {
      store(po + i, double(v));
    } else if constexpr (kIsFloat<I>) {
      po[i] = saturate_to<O>(v, range);
    } else if (nibble) {
      const int64_t low = int64_t(uint64_t(v) & 0xf);
      po[i] = O(signed_nibble && low >= 8 ? low - 16 : low);
    } else {
      po[i] = O(v);  // C++20 integer conversion is modular
    }
  }
}

void cast(const KernelArgs& k) {
  const auto& in = k.input("input");
  const TensorView& out = k.output();
  visit_dtype(in.dtype, [&](auto in_tag) {
    visit_dtype(out.dtype, [&](auto out_tag) {
      cast_map<typename decltype(in_tag)::type, typename decltype(out_tag)::type>(in, out);
    });
  });
}

}  // namespace

void elementwise_unary(const KernelArgs& k) {
  switch (k.attrs().op()) {
    case OpKind::kAbs:
      return numeric_unary(k, Abs{});
    case OpKind::kNeg:
      return numeric_unary(k, Neg{});
    case OpKind::kSign:
      return numeric_unary(k, Sign{});
    case OpKind::kCeil:
      return float_unary(k, Fn<std_ceil>{});
    case OpKind::kFloor:
      return float_unary(k, Fn<std_floor>{});
    case OpKind::kRoundEven:
      return float_unary(k, Fn<round_even>{});
    case OpKind::kCos:
      return float_unary(k, Fn<std_cos>{});
    case OpKind::kSin:
      return float_unary(k, Fn<std_sin>{});
    case OpKind::kTan:
      return float_unary(k, Fn<std_tan>{});
    case OpKind::kErf:
      return float_unary(k, Fn<std_erf>{});
    case OpKind::kExp:
      return float_unary(k, Fn<std_exp>{});
    case OpKind::kLog:
      return float_unary(k, Fn<std_log>{});
    case OpKind::kSqrt:
      return float_unary(k, Fn<std_sqrt>{});
    case OpKind::kReciprocal:
      return float_unary(k, Fn<reciprocal>{});
    case OpKind::kIsNaN:
      return float_predicate(k, [](double x) { return std::isnan(x); });
    case OpKind::kIsInfinite:
      return float_predicate(k, [](double x) { return std::isinf(x); });
    case OpKind::kLogicalNot: {
      unary_map<uint8_t, uint8_t>(k.input("a"), k.output(), [](uint8_t x) { return x == 0; });
      return;
    }
    case OpKind::kIdentity: {
      const auto& in = k.input("input");
      const size_t bytes = size_t(in.size()) * dtype_size(in.dtype);
      if (bytes != 0) std::memcpy(k.output().data, in.data, bytes);
      return;
    }
    case OpKind::kCast:
      return cast(k);
    default:
      check_internal(false, "elementwise has no kernel for {}", k.attrs().schema().name);
  }
}

}  // namespace wnn::kernels
