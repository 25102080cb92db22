// Reduction kernels: one strided walk that folds every input element into the accumulator of
// its output cell (reduced axes get stride 0), with one small reducer per op; argMin/argMax
// and cumulativeSum walk [outer, axis, inner].
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "wnn/core/ops/schema.h"
#include "wnn/kernels/element.h"
#include "wnn/kernels/kernel.h"
#include "wnn/kernels/strided.h"

namespace wnn::kernels {

namespace {

template <typename C>
C lowest() {
  if constexpr (std::is_floating_point_v<C>)
    return -std::numeric_limits<C>::infinity();
  else
    return std::numeric_limits<C>::lowest();
}
template <typename C>
C highest() {
  if constexpr (std::is_floating_point_v<C>)
    return std::numeric_limits<C>::infinity();
  else
    return std::numeric_limits<C>::max();
}
template <typename C>
C abs_value(C x) {
  if constexpr (std::is_floating_point_v<C>)
    return std::fabs(x);
  else if constexpr (std::is_signed_v<C>)
    return x < 0 ? wrap_sub(C(0), x) : x;
  else
    return x;
}

// A reducer: init() is the value of an empty reduction, step folds one element, finish maps
// the accumulator (and the element count) to the result. Floats accumulate in double.
struct SumR {
  static constexpr bool kFloatOnly = false;
  template <typename C>
  static C init() {
    return C(0);
  }
  template <typename C>
  static C step(C acc, C x) {
    return num_add(acc, x);
  }
  template <typename C>
  static C finish(C acc, int64_t) {
    return acc;
  }
};
struct L1R : SumR {
  template <typename C>
  static C step(C acc, C x) {
    return num_add(acc, abs_value(x));
  }
};
struct SumSquareR : SumR {
  template <typename C>
  static C step(C acc, C x) {
    return num_add(acc, num_mul(x, x));
  }
};
struct L2R : SumSquareR {
  static constexpr bool kFloatOnly = true;
  template <typename C>
  static C finish(C acc, int64_t) {
    return std::sqrt(acc);
  }
};
struct LogSumR : SumR {
  static constexpr bool kFloatOnly = true;
  template <typename C>
  static C finish(C acc, int64_t) {
    return std::log(acc);
  }
};
// The mean of nothing is 0/0 = NaN.
struct MeanR : SumR {
  static constexpr bool kFloatOnly = true;
  template <typename C>
  static C finish(C acc, int64_t n) {
    return acc / C(n);
  }
};
struct ProductR : SumR {
  template <typename C>
  static C init() {
    return C(1);
  }
  template <typename C>
  static C step(C acc, C x) {
    return num_mul(acc, x);
  }
};
// NaN propagates through max and min.
struct MaxR : SumR {
  template <typename C>
  static C init() {
    return lowest<C>();
  }
  template <typename C>
  static C step(C acc, C x) {
    if constexpr (std::is_floating_point_v<C>) {
      if (std::isnan(x) || std::isnan(acc)) return std::numeric_limits<C>::quiet_NaN();
    }
    return x > acc ? x : acc;
  }
};
struct MinR : SumR {
  template <typename C>
  static C init() {
    return highest<C>();
  }
  template <typename C>
  static C step(C acc, C x) {
    if constexpr (std::is_floating_point_v<C>) {
      if (std::isnan(x) || std::isnan(acc)) return std::numeric_limits<C>::quiet_NaN();
    }
    return x < acc ? x : acc;
  }
};

// The input walk shared by every reduction: fn(input offset, accumulator index).
struct ReduceLayout {
  std::vector<int64_t> in_strides, acc_strides;
  int64_t groups = 1, count = 1;  // output cells, elements folded into each
};

ReduceLayout reduce_layout(std::span<const int64_t> shape, const IntList& axes) {
  Shape kept(shape.begin(), shape.end());
  ReduceLayout l;
  for (int64_t a : axes) kept[size_t(a)] = 1;
  for (int64_t a : axes) l.count *= shape[size_t(a)];
  l.groups = element_count(kept);
  l.in_strides = contiguous_strides(shape);
  // Kept dims keep their row-major stride in the kept shape; reduced ones stride 0.
  l.acc_strides = contiguous_strides(kept);
  for (int64_t a : axes) l.acc_strides[size_t(a)] = 0;
  return l;
}

template <typename T, typename R>
void reduce_typed(const ConstTensorView& in, const TensorView& out, const ReduceLayout& l) {
  using C = Compute<T>;
  std::vector<C> acc(size_t(l.groups), R::template init<C>());
  const T* pi = in.as<T>();
  strided_walk<2>(in.shape, {l.in_strides, l.acc_strides}, {},
                  [&](const std::array<int64_t, 2>& o) {
                    C& a = acc[size_t(o[1])];
                    a = R::step(a, load(pi + o[0]));
                  });
  T* po = out.as<T>();
  for (int64_t g = 0; g < l.groups; ++g) store(po + g, R::finish(acc[size_t(g)], l.count));
}

// log(sum(exp(x))) = m + log(sum(exp(x - m))) with m the group's max, so exp never overflows.
template <typename T>
void reduce_log_sum_exp(const ConstTensorView& in, const TensorView& out, const ReduceLayout& l) {
  std::vector<double> mx(size_t(l.groups), -std::numeric_limits<double>::infinity());
  std::vector<double> sum(size_t(l.groups), 0.0);
  const T* pi = in.as<T>();
  const std::array<std::span<const int64_t>, 2> strides = {l.in_strides, l.acc_strides};
  strided_walk<2>(in.shape, strides, {}, [&](const std::array<int64_t, 2>& o) {
    double& m = mx[size_t(o[1])];
    m = MaxR::step(m, load(pi + o[0]));
  });
  strided_walk<2>(in.shape, strides, {}, [&](const std::array<int64_t, 2>& o) {
    const double m = mx[size_t(o[1])];
    if (std::isfinite(m)) sum[size_t(o[1])] += std::exp(load(pi + o[0]) - m);
  });
  T* po = out.as<T>();
  for (int64_t g = 0; g < l.groups; ++g) {
    const double m = mx[size_t(g)];
    store(po + g, std::isfinite(m) ? m + std::log(sum[size_t(g)]) : m);
  }
}

template <typename R>
void reduce_with(const KernelArgs& k) {
  const auto& in = k.input("input");
  const ReduceLayout l =
      reduce_layout(in.shape, schema::resolve_axes(k.attrs(), "axes", in.shape.size()));
  visit_dtype(in.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<R, void>) {
      if constexpr (kIsFloat<T>)
        reduce_log_sum_exp<T>(in, k.output(), l);
      else
        check_internal(false, "reduceLogSumExp on {}", dtype_name(in.dtype));
    } else if constexpr (!R::kFloatOnly || kIsFloat<T>) {
      reduce_typed<T, R>(in, k.output(), l);
    } else {
      check_internal(false, "{} on {}", k.attrs().schema().name, dtype_name(in.dtype));
    }
  });
}

// [outer, n, inner] around one axis.
struct AxisLayout {
  int64_t outer = 1, n = 1, inner = 1;
};
AxisLayout axis_layout(std::span<const int64_t> shape, size_t axis) {
  AxisLayout l;
  for (size_t d = 0; d < axis; ++d) l.outer *= shape[d];
  l.n = shape[axis];
  for (size_t d = axis + 1; d < shape.size(); ++d) l.inner *= shape[d];
  return l;
}

// The first index of the extreme value (ties keep the earlier index; NaN never wins).
template <typename T>
void arg_reduce_typed(const ConstTensorView& in, const TensorView& out, size_t axis, bool is_max) {
  const AxisLayout l = axis_layout(in.shape, axis);
  const T* pi = in.as<T>();
  for (int64_t o = 0; o < l.outer; ++o) {
    for (int64_t i = 0; i < l.inner; ++i) {
      const int64_t base = o * l.n * l.inner + i;
      int64_t best = 0;
      auto best_v = load(pi + base);
      for (int64_t j = 1; j < l.n; ++j) {
        const auto v = load(pi + base + j * l.inner);
        if (is_max ? v > best_v : v < best_v) {
          best = j;
          best_v = v;
        }
      }
      const int64_t cell = o * l.inner + i;
      if (out.dtype == DataType::kInt64)
        out.as<int64_t>()[cell] = best;
      else
        out.as<int32_t>()[cell] = int32_t(best);
    }
  }
}

// Running sums along the axis; exclusive writes the sum before adding, reversed runs from
// the end.
template <typename T>
void cumulative_sum_typed(const ConstTensorView& in, const TensorView& out, size_t axis,
                          bool exclusive, bool reversed) {
  using C = Compute<T>;
  const AxisLayout l = axis_layout(in.shape, axis);
  const T* pi = in.as<T>();
  T* po = out.as<T>();
  for (int64_t o = 0; o < l.outer; ++o) {
    for (int64_t i = 0; i < l.inner; ++i) {
      const int64_t base = o * l.n * l.inner + i;
      C acc = C(0);
      for (int64_t s = 0; s < l.n; ++s) {
        const int64_t at = base + (reversed ? l.n - 1 - s : s) * l.inner;
        const C x = load(pi + at);
        if (!exclusive) acc = num_add(acc, x);
        store(po + at, acc);
        if (exclusive) acc = num_add(acc, x);
      }
    }
  }
}

}  // namespace

void reduce(const KernelArgs& k) {
  const Attributes& at = k.attrs();
  switch (at.op()) {
    case OpKind::kReduceL1:
      return reduce_with<L1R>(k);
    case OpKind::kReduceL2:
      return reduce_with<L2R>(k);
    case OpKind::kReduceLogSum:
      return reduce_with<LogSumR>(k);
    case OpKind::kReduceLogSumExp:
      return reduce_with<void>(k);
    case OpKind::kReduceMax:
      return reduce_with<MaxR>(k);
    case OpKind::kReduceMean:
      return reduce_with<MeanR>(k);
    case OpKind::kReduceMin:
      return reduce_with<MinR>(k);
    case OpKind::kReduceProduct:
      return reduce_with<ProductR>(k);
    case OpKind::kReduceSum:
      return reduce_with<SumR>(k);
    case OpKind::kReduceSumSquare:
      return reduce_with<SumSquareR>(k);
    case OpKind::kArgMax:
    case OpKind::kArgMin: {
      const auto& in = k.input("input");
      const size_t axis = size_t(at.get_int("axis"));
      return visit_dtype(in.dtype, [&](auto tag) {
        arg_reduce_typed<typename decltype(tag)::type>(in, k.output(), axis,
                                                       at.op() == OpKind::kArgMax);
      });
    }
    case OpKind::kCumulativeSum: {
      const auto& in = k.input("input");
      const size_t axis = size_t(at.get_int("axis"));
      return visit_dtype(in.dtype, [&](auto tag) {
        cumulative_sum_typed<typename decltype(tag)::type>(
            in, k.output(), axis, at.get_bool("exclusive"), at.get_bool("reversed"));
      });
    }
    default:
      check_internal(false, "reduce has no kernel for {}", at.schema().name);
  }
}

}  // namespace wnn::kernels
