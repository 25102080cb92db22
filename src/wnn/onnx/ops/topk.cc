// TopK with a constant k, through a rank computation WebNN can express exactly: element i's
// rank is how many elements beat it (larger, or smaller for largest=0; equal ones beat it when
// they come first, which is ONNX's tie order). The element of rank p lands at output p.
// That costs n^2 comparisons per row; long axes (a vocabulary) take k rounds of
// max-then-first-untaken-position instead, O(k n).
#include <cmath>

#include "wnn/onnx/registry.h"

namespace wnn::onnx::ops {
namespace {

using K = OpKind;

// The indices of the top k along the last axis from ranks: n^2 comparisons per row.
OperandId top_indices_by_rank(ConvertContext& c, OperandId x, const Shape& ts, int64_t k,
                              bool largest) {
  const size_t r = ts.size();
  const int64_t n = ts.back();
  Shape col = ts, row = ts;  // [..., n, 1] and [..., 1, n]
  col.push_back(1);
  row.insert(row.end() - 1, 1);
  OperandId xi = c.reshape(x, col), xj = c.reshape(x, row);
  OperandId better = c.op(largest ? K::kGreater : K::kLesser, {xj, xi});
  // earlier[i][j] = j < i: an equal element earlier on the axis comes first.
  std::vector<double> earlier(size_t(n * n));
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < i; ++j) earlier[size_t(i * n + j)] = 1;
  }
  OperandId tie = c.op(K::kLogicalAnd,
                       {c.op(K::kEqual, {xj, xi}), c.constant(DataType::kUint8, earlier, {n, n})});
  OperandId beats = c.op(K::kCast, {c.op(K::kLogicalOr, {better, tie}), DataType::kFloat32});
  const int64_t last = int64_t(r);  // the [..., n, n] comparison has rank r + 1
  OperandId rank =
      c.op(K::kReduceSum, {beats}, {{"axes", IntList{last}}, {"keepDimensions", true}});

  // pick[..., i, p] = (rank_i == p); the index of rank p is the sum of i over that column.
  std::vector<double> ps(static_cast<size_t>(k)), is(static_cast<size_t>(n));
  for (int64_t p = 0; p < k; ++p) ps[size_t(p)] = double(p);
  for (int64_t i = 0; i < n; ++i) is[size_t(i)] = double(i);
  OperandId pick = c.op(K::kEqual, {rank, c.constant(DataType::kFloat32, ps, {1, k})});
  OperandId at = c.op(K::kWhere, {pick, c.constant(DataType::kFloat32, is, {n, 1}),
                                  c.constant(DataType::kFloat32, {0.0})});
  OperandId idx_f =
      c.op(K::kReduceSum, {at}, {{"axes", IntList{last - 1}}, {"keepDimensions", false}});
  OperandId idx = c.op(K::kCast, {idx_f, DataType::kInt64});
  return idx;
}

// The same by k rounds: the best remaining value, then the first position holding it that
// is not taken yet (ties in index order; no sentinel value can be confused with a real one).
// O(k n) per row, for axes too long for the n^2 ranks. Floats only (the sentinel is -inf/inf).
OperandId top_indices_by_rounds(ConvertContext& c, OperandId x, const Shape& ts, int64_t k,
                                bool largest) {
  const DataType dt = c.b().graph().desc(x).dtype;
  if (!is_float(dt)) c.unsupported("TopK over {} elements of {}", ts.back(), dtype_name(dt));
  const int64_t n = ts.back(), last = int64_t(ts.size()) - 1;
  std::vector<double> is(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) is[size_t(i)] = double(i);
  OperandId positions = c.constant(DataType::kInt64, is, {n});
  OperandId fill = c.constant(dt, {largest ? -INFINITY : INFINITY});
  const std::vector<std::pair<std::string, RawValue>> keep = {{"axes", IntList{last}},
                                                              {"keepDimensions", true}};
  std::optional<OperandId> taken;
  std::vector<OperandId> picks;
  for (int64_t p = 0; p < k; ++p) {
    OperandId masked = taken ? c.op(K::kWhere, {*taken, fill, x}) : x;
    OperandId best = c.op(largest ? K::kReduceMax : K::kReduceMin, {masked}, keep);
    OperandId hit = c.op(K::kEqual, {x, best});
    if (taken) hit = c.op(K::kLogicalAnd, {hit, c.op(K::kLogicalNot, {*taken})});
    OperandId idx = c.op(K::kArgMax, {c.op(K::kCast, {hit, DataType::kFloat32}), last},
                         {{"keepDimensions", true}, {"outputDataType", DataType::kInt64}});
    picks.push_back(idx);
    OperandId now = c.op(K::kEqual, {positions, idx});
    taken = taken ? c.op(K::kLogicalOr, {*taken, now}) : now;
  }
  return picks.size() == 1 ? picks[0] : c.op(K::kConcat, {RawValue(picks), last});
}

void topk(ConvertContext& c) {
  const Shape xs = c.shape(0);
  const size_t r = xs.size();
  const int64_t axis = normalize_axis(c.attr_int("axis", -1), r, "axis");
  int64_t k = 0;
  if (c.opset() < 10) {
    auto ka = c.attr_int("k");
    if (!ka) c.unsupported("TopK without 'k'");
    k = *ka;
  } else {
    k = c.known_ints(1, "k").at(0);
  }
  const int64_t n = xs[size_t(axis)];
  check(k >= 0 && k <= n, "TopK: k={} for an axis of {}", k, n);
  const bool largest = c.attr_int("largest", 1) != 0;
  // sorted=0 leaves the order to the implementation; sorted order is a valid choice.

  // Work with the axis last.
  IntList perm = iota(0, int64_t(r)), back = perm;
  perm.erase(perm.begin() + axis);
  perm.push_back(axis);
  for (size_t i = 0; i < r; ++i) back[size_t(perm[i])] = int64_t(i);
  const bool moved = axis != int64_t(r) - 1;
  OperandId x = moved ? c.op(K::kTranspose, {c.in(0)}, {{"permutation", perm}}) : c.in(0);
  Shape ts;
  for (int64_t p : perm) ts.push_back(xs[size_t(p)]);

  // n^2 ranks up to 2^24 comparisons in all; longer axes (a vocabulary, say) go by rounds.
  int64_t rows = 1;
  for (size_t i = 0; i + 1 < ts.size(); ++i) rows *= ts[i];
  OperandId idx = rows * n * n <= (int64_t(1) << 24) || k == 0
                      ? top_indices_by_rank(c, x, ts, k, largest)
                      : top_indices_by_rounds(c, x, ts, k, largest);
  OperandId values = c.op(K::kGatherElements, {x, idx}, {{"axis", int64_t(r) - 1}});
  if (moved) {
    values = c.op(K::kTranspose, {values}, {{"permutation", back}});
    idx = c.op(K::kTranspose, {idx}, {{"permutation", back}});
  }
  c.set(0, c.op(K::kIdentity, {values}, {}, c.out_name(0)));
  if (c.wants_output(1)) c.set(1, c.op(K::kIdentity, {idx}, {}, c.out_name(1)));
}

}  // namespace

void register_topk(std::vector<Converter>& t) {
  t.push_back({"", "TopK", 1, kMaxOpset, topk, ConvertKind::kDecomposed, true});
}

}  // namespace wnn::onnx::ops
