// Det by Laplace expansion along the rows, with each minor (a set of remaining columns) built
// once: n * 2^n multiply-adds of [batch] vectors, exact arithmetic order independent of the
// values (no pivoting to choose at run time). Matrices beyond kMaxOrder are reported.
#include <map>

#include "wnn/onnx/registry.h"

namespace wnn::onnx::ops {
namespace {

using K = OpKind;

constexpr int64_t kMaxOrder = 8;

struct Expansion {
  ConvertContext& c;
  int64_t n;
  std::vector<OperandId> a;  // a[i * n + j], each [..., 1]
  std::map<uint32_t, OperandId> minors;

  // The determinant of rows [n - popcount(cols), n) restricted to the columns in `cols`.
  OperandId minor(uint32_t cols) {
    if (auto it = minors.find(cols); it != minors.end()) return it->second;
    const int64_t row = n - int64_t(__builtin_popcount(cols));
    std::optional<OperandId> acc;
    int sign = 1;
    for (int64_t j = 0; j < n; ++j) {
      if (!(cols & (1u << j))) continue;
      const uint32_t rest = cols & ~(1u << j);
      OperandId term = a[size_t(row * n + j)];
      if (rest != 0) term = c.op(K::kMul, {term, minor(rest)});
      if (!acc) {
        acc = sign > 0 ? term : c.op(K::kNeg, {term});
      } else {
        acc = c.op(sign > 0 ? K::kAdd : K::kSub, {*acc, term});
      }
      sign = -sign;
    }
    minors.emplace(cols, *acc);
    return *acc;
  }
};

void det(ConvertContext& c) {
  const Shape s = c.shape(0);
  check(s.size() >= 2 && s[s.size() - 1] == s[s.size() - 2], "Det needs [..., n, n], got {}",
        shape_to_string(s));
  const int64_t n = s.back();
  if (n > kMaxOrder) c.unsupported("Det of order {} (at most {})", n, kMaxOrder);
  const Shape batch(s.begin(), s.end() - 2);
  if (n == 0) {
    return c.set(
        0, c.op(K::kExpand, {c.constant(c.dtype(0), {1.0}), RawValue(batch)}, {}, c.out_name(0)));
  }
  Shape flat = batch;
  flat.push_back(n * n);
  OperandId x = c.reshape(c.in(0), flat);
  Expansion e{c, n, {}, {}};
  if (n == 1) {
    e.a = {x};
  } else {
    e.a = c.b().add(K::kSplit, {x, RawValue(IntList(size_t(n * n), 1))},
                    {{"axis", int64_t(batch.size())}});
  }
  OperandId d = e.minor((1u << n) - 1);
  c.set(0, c.reshape(d, batch, c.out_name(0)));
}

}  // namespace

void register_det(std::vector<Converter>& t) {
  t.push_back({"", "Det", 11, kMaxOpset, det, ConvertKind::kDecomposed, true});
}

}  // namespace wnn::onnx::ops
