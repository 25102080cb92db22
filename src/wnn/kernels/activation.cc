// Activation kernels: one scalar functor per op (holding its options) over the shared unary
// driver, prelu over the binary broadcast driver, and softmax along any axis.
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "wnn/kernels/drivers.h"
#include "wnn/kernels/kernel.h"

namespace wnn::kernels {

namespace {

template <typename Op>
void float_activation(const KernelArgs& k, Op op) {
  const auto& in = k.input("input");
  visit_float_dtype(in.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    unary_map<T, T>(in, k.output(), op);
  });
}

struct Elu {
  double alpha;
  double operator()(double x) const { return x >= 0 ? x : alpha * std::expm1(x); }
};
struct Gelu {
  double operator()(double x) const { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }
};
struct HardSigmoid {
  double alpha, beta;
  double operator()(double x) const { return std::fmax(0.0, std::fmin(1.0, alpha * x + beta)); }
};
struct HardSwish {
  double operator()(double x) const {
    if (std::isnan(x)) return x;
    // Outside [-3, 3] the result is exactly 0 or x; no x * 6 / 6 rounding for large x.
    if (x <= -3) return std::copysign(0.0, x);
    if (x >= 3) return x;
    return x * (x + 3.0) / 6.0;
  }
};
struct LeakyRelu {
  double alpha;
  double operator()(double x) const { return x >= 0 ? x : alpha * x; }
};
struct Linear {
  double alpha, beta;
  double operator()(double x) const { return alpha * x + beta; }
};
struct Sigmoid {
  double operator()(double x) const { return 1.0 / (1.0 + std::exp(-x)); }
};
// log(1 + e^x) without overflow for large x: x + log1p(e^-x).
struct Softplus {
  double operator()(double x) const {
    return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
  }
};
struct Softsign {
  double operator()(double x) const { return x / (1.0 + std::fabs(x)); }
};
struct Tanh {
  double operator()(double x) const { return std::tanh(x); }
};

// NaN stays NaN (both comparisons are false).
struct Relu {
  template <typename C>
  C operator()(C x) const {
    return x < 0 ? C(0) : x;
  }
};

struct Prelu {
  template <typename C>
  C operator()(C x, C slope) const {
    if constexpr (std::is_integral_v<C>)
      return x < 0 ? wrap_mul(x, slope) : x;
    else
      return x < 0 ? x * slope : x;
  }
};

// A clamp bound (an MLNumber kept as written: int64 or double) in the compute type C of the
// input. Integer inputs saturate the bound to their range, so an int64 bound keeps every bit.
template <typename C>
C clamp_bound(const Value& v, DataType dtype) {
  if constexpr (std::is_floating_point_v<C>) {
    if (const auto* i = std::get_if<int64_t>(&v)) return C(*i);
    return C(std::get<double>(v));
  } else {
    const IntRange range = int_range(dtype);
    if (const auto* i = std::get_if<int64_t>(&v)) {
      if constexpr (std::is_signed_v<C>) {
        if (*i < int64_t(std::numeric_limits<C>::min())) return std::numeric_limits<C>::min();
        if (*i > int64_t(std::numeric_limits<C>::max())) return std::numeric_limits<C>::max();
      } else {
        if (*i < 0) return 0;
        if (uint64_t(*i) > uint64_t(std::numeric_limits<C>::max())) {
          return std::numeric_limits<C>::max();
        }
      }
      return C(*i);
    }
    const double d = std::get<double>(v);
    if (std::isinf(d)) return d < 0 ? std::numeric_limits<C>::min() : std::numeric_limits<C>::max();
    return saturate_to<C>(d, range);
  }
}

void clamp(const KernelArgs& k) {
  const auto& in = k.input("input");
  visit_dtype(in.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = Compute<T>;
    const C lo = clamp_bound<C>(k.attrs().get("minValue"), in.dtype);
    const C hi = clamp_bound<C>(k.attrs().get("maxValue"), in.dtype);
    unary_map<T, T>(in, k.output(), [lo, hi](C x) { return x < lo ? lo : x > hi ? hi : x; });
  });
}

// Softmax over `axis`, viewed as [outer, axis, inner]; subtracting the max keeps exp finite.
template <typename T>
void softmax_typed(const ConstTensorView& in, const TensorView& out, size_t axis) {
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < axis; ++d) outer *= in.shape[d];
  for (size_t d = axis + 1; d < in.shape.size(); ++d) inner *= in.shape[d];
  const int64_t n = in.shape[axis];
  const T* pi = in.as<T>();
  T* po = out.as<T>();
  std::vector<double> e(static_cast<size_t>(n));
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      const int64_t base = o * n * inner + i;
      double mx = -std::numeric_limits<double>::infinity();
      for (int64_t j = 0; j < n; ++j) mx = std::fmax(mx, load(pi + base + j * inner));
      double sum = 0;
      for (int64_t j = 0; j < n; ++j) {
        e[size_t(j)] = std::exp(load(pi + base + j * inner) - mx);
        sum += e[size_t(j)];
      }
      for (int64_t j = 0; j < n; ++j) store(po + base + j * inner, e[size_t(j)] / sum);
    }
  }
}

void softmax(const KernelArgs& k) {
  const auto& in = k.input("input");
  const size_t axis = size_t(k.attrs().get_int("axis"));
  visit_float_dtype(in.dtype, [&](auto tag) {
    softmax_typed<typename decltype(tag)::type>(in, k.output(), axis);
  });
}

}  // namespace

void activation(const KernelArgs& k) {
  const Attributes& at = k.attrs();
  switch (at.op()) {
    case OpKind::kClamp:
      return clamp(k);
    case OpKind::kElu:
      return float_activation(k, Elu{at.get_float("alpha")});
    case OpKind::kGelu:
      return float_activation(k, Gelu{});
    case OpKind::kHardSigmoid:
      return float_activation(k, HardSigmoid{at.get_float("alpha"), at.get_float("beta")});
    case OpKind::kHardSwish:
      return float_activation(k, HardSwish{});
    case OpKind::kLeakyRelu:
      return float_activation(k, LeakyRelu{at.get_float("alpha")});
    case OpKind::kLinear:
      return float_activation(k, Linear{at.get_float("alpha"), at.get_float("beta")});
    case OpKind::kSigmoid:
      return float_activation(k, Sigmoid{});
    case OpKind::kSoftplus:
      return float_activation(k, Softplus{});
    case OpKind::kSoftsign:
      return float_activation(k, Softsign{});
    case OpKind::kTanh:
      return float_activation(k, Tanh{});
    case OpKind::kRelu: {
      const auto& in = k.input("input");
      return visit_dtype(in.dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        unary_map<T, T>(in, k.output(), Relu{});
      });
    }
    case OpKind::kPrelu: {
      const auto& in = k.input("input");
      return visit_dtype(in.dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        binary_walk<T, T>(in, k.input("slope"), k.output(), Prelu{});
      });
    }
    case OpKind::kSoftmax:
      return softmax(k);
    default:
      check_internal(false, "activation has no kernel for {}", at.schema().name);
  }
}

}  // namespace wnn::kernels
