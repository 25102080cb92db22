// Binary elementwise kernels (arithmetic, comparisons, logic) and where: one broadcasting
// driver, instantiated per storage type, plus one scalar functor per op.
#include <cmath>
#include <limits>
#include <type_traits>

#include "wnn/kernels/drivers.h"
#include "wnn/kernels/elementwise_unary.h"
#include "wnn/kernels/kernel.h"

namespace wnn::kernels {

namespace {

struct Add {
  template <typename C>
  C operator()(C a, C b) const {
    return num_add(a, b);
  }
};
struct Sub {
  template <typename C>
  C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C>)
      return wrap_sub(a, b);
    else
      return a - b;
  }
};
struct Mul {
  template <typename C>
  C operator()(C a, C b) const {
    return num_mul(a, b);
  }
};
// Integer division truncates toward zero. x / 0 is defined as 0 and INT_MIN / -1 wraps to
// INT_MIN (as -INT_MIN does), so no input can trap.
struct Div {
  template <typename C>
  C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C>) {
      if (b == 0) return 0;
      if constexpr (std::is_signed_v<C>) {
        if (b == C(-1)) return wrap_sub(C(0), a);
      }
      return C(a / b);
    } else {
      return a / b;
    }
  }
};
// NaN propagates; max(-0, +0) is +0 and min(-0, +0) is -0, as IEEE maximum/minimum say.
struct Max {
  template <typename C>
  C operator()(C a, C b) const {
    if constexpr (std::is_floating_point_v<C>) {
      if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<C>::quiet_NaN();
      if (a == b) return std::signbit(a) ? b : a;
    }
    return a > b ? a : b;
  }
};
struct Min {
  template <typename C>
  C operator()(C a, C b) const {
    if constexpr (std::is_floating_point_v<C>) {
      if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<C>::quiet_NaN();
      if (a == b) return std::signbit(a) ? a : b;
    }
    return a < b ? a : b;
  }
};
// Integer pow multiplies with wrap-around (by squaring, which wraps identically). A negative
// exponent gives 0 except for bases 1 and -1, the only ones whose reciprocal power is integral.
struct Pow {
  template <typename C>
  C operator()(C base, C exp) const {
    if constexpr (std::is_integral_v<C>) {
      if constexpr (std::is_signed_v<C>) {
        if (exp < 0) {
          if (base == 1) return 1;
          if (base == C(-1)) return (exp & 1) ? C(-1) : C(1);
          return 0;
        }
      }
      C result = 1;
      for (uint64_t e = uint64_t(exp); e != 0; e >>= 1) {
        if (e & 1) result = wrap_mul(result, base);
        base = wrap_mul(base, base);
      }
      return result;
    } else {
      return std::pow(base, exp);
    }
  }
};

struct Equal {
  template <typename C>
  bool operator()(C a, C b) const {
    return a == b;
  }
};
struct NotEqual {
  template <typename C>
  bool operator()(C a, C b) const {
    return a != b;
  }
};
struct Greater {
  template <typename C>
  bool operator()(C a, C b) const {
    return a > b;
  }
};
struct GreaterOrEqual {
  template <typename C>
  bool operator()(C a, C b) const {
    return a >= b;
  }
};
struct Lesser {
  template <typename C>
  bool operator()(C a, C b) const {
    return a < b;
  }
};
struct LesserOrEqual {
  template <typename C>
  bool operator()(C a, C b) const {
    return a <= b;
  }
};
struct LogicalAnd {
  bool operator()(uint8_t a, uint8_t b) const { return a != 0 && b != 0; }
};
struct LogicalOr {
  bool operator()(uint8_t a, uint8_t b) const { return a != 0 || b != 0; }
};
struct LogicalXor {
  bool operator()(uint8_t a, uint8_t b) const { return (a != 0) != (b != 0); }
};

// An op whose output has the input's type.
template <typename Op>
void arithmetic(const KernelArgs& k, Op op) {
  const auto& a = k.input("a");
  visit_dtype(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    binary_walk<T, T>(a, k.input("b"), k.output(), op);
  });
}

// An op whose output is uint8 (comparisons and logic).
template <typename Op>
void predicate(const KernelArgs& k, Op op) {
  const auto& a = k.input("a");
  visit_dtype(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    binary_walk<T, uint8_t>(a, k.input("b"), k.output(), op);
  });
}

void where(const KernelArgs& k) {
  const auto& cond = k.input("condition");
  const auto& t = k.input("trueValue");
  const auto& f = k.input("falseValue");
  const TensorView& out = k.output();
  visit_dtype(t.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const uint8_t* pc = cond.as<uint8_t>();
    const T* pt = t.as<T>();
    const T* pf = f.as<T>();
    T* po = out.as<T>();
    broadcast_walk<3>(
        out.shape, {cond.shape, t.shape, f.shape},
        [&](const std::array<int64_t, 4>& o) { po[o[3]] = pc[o[0]] != 0 ? pt[o[1]] : pf[o[2]]; });
  });
}

}  // namespace

void elementwise(const KernelArgs& k) {
  switch (k.attrs().op()) {
    case OpKind::kAdd:
      return arithmetic(k, Add{});
    case OpKind::kSub:
      return arithmetic(k, Sub{});
    case OpKind::kMul:
      return arithmetic(k, Mul{});
    case OpKind::kDiv:
      return arithmetic(k, Div{});
    case OpKind::kMax:
      return arithmetic(k, Max{});
    case OpKind::kMin:
      return arithmetic(k, Min{});
    case OpKind::kPow:
      return arithmetic(k, Pow{});
    case OpKind::kEqual:
      return predicate(k, Equal{});
    case OpKind::kNotEqual:
      return predicate(k, NotEqual{});
    case OpKind::kGreater:
      return predicate(k, Greater{});
    case OpKind::kGreaterOrEqual:
      return predicate(k, GreaterOrEqual{});
    case OpKind::kLesser:
      return predicate(k, Lesser{});
    case OpKind::kLesserOrEqual:
      return predicate(k, LesserOrEqual{});
    case OpKind::kLogicalAnd:
      return binary_walk<uint8_t, uint8_t>(k.input("a"), k.input("b"), k.output(), LogicalAnd{});
    case OpKind::kLogicalOr:
      return binary_walk<uint8_t, uint8_t>(k.input("a"), k.input("b"), k.output(), LogicalOr{});
    case OpKind::kLogicalXor:
      return binary_walk<uint8_t, uint8_t>(k.input("a"), k.input("b"), k.output(), LogicalXor{});
    case OpKind::kWhere:
      return where(k);
    default:
      return elementwise_unary(k);
  }
}

}  // namespace wnn::kernels
