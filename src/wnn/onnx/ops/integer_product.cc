// Exact integer products on float32 conv2d and matmul. The proof is per product: with the
// activation centered (|x - x_zero| <= x_bound, from the dtypes or the known zero point) and
// the weight known, every output's partial sums are bounded by x_bound * sum |w| over its
// reduction. When that exceeds 2^24 the weight is split into digits (w = 16 h + l, or base 8
// in three parts), the high digits scaled into the filter (a power of two keeps a sum exact)
// and the reduction cut into chunks, each (digit, chunk) one more output channel of the same
// conv (chunks as groups) or one more batch of the same matmul. The pieces are cast to int32,
// exact, and summed there: the result is ONNX Runtime's int32, and the model's Cast to float
// rounds it once, as ORT's does.
#include "wnn/onnx/ops/integer_product.h"

#include <algorithm>
#include <cmath>

#include "wnn/onnx/ops/spatial.h"

namespace wnn::onnx::ops {
namespace {

using K = OpKind;

struct IntRange {
  int64_t lo = 0, hi = 0;
};

IntRange quantized_range(ConvertContext& c, size_t i) {
  const DataType t = c.dtype(i);
  if (t == DataType::kUint8) return {0, 255};
  if (t == DataType::kInt8) return {-128, 127};
  c.unsupported("{} input {} of type {} (uint8 and int8 convert)", c.node().op_type, i,
                dtype_name(t));
}

// The range of input i's values: its known elements, else its dtype's.
IntRange value_range(ConvertContext& c, size_t i) {
  const IntRange r = quantized_range(c, i);
  const Tensor* t = c.known(i);
  if (!t || t->size() == 0) return r;
  IntRange k{element_as_int64(t->view(), 0), element_as_int64(t->view(), 0)};
  const int64_t count = t->size();
  for (int64_t e = 1; e < count; ++e) {
    const int64_t v = element_as_int64(t->view(), e);
    k.lo = std::min(k.lo, v);
    k.hi = std::max(k.hi, v);
  }
  return k;
}

// max |x - zero| over every value and zero point the input's dtypes (or known values) allow.
int64_t centered_bound(ConvertContext& c, IntegerInput in) {
  if (in.computed) return 255;
  const IntRange x = value_range(c, in.value);
  const IntRange z = c.has_input(in.zero_point) ? value_range(c, in.zero_point) : IntRange{};
  return std::max(std::abs(x.hi - z.lo), std::abs(z.hi - x.lo));
}

// The centered values of a known weight as int64, row-major over its shape; nullopt when the
// weight or its zero point is computed at run time.
std::optional<std::vector<int64_t>> known_centered(ConvertContext& c, IntegerInput in) {
  if (in.computed) return std::nullopt;
  const Tensor* w = c.known(in.value);
  const Tensor* z = c.has_input(in.zero_point) ? c.known(in.zero_point) : nullptr;
  if (!w || (c.has_input(in.zero_point) && !z)) return std::nullopt;
  const Shape& s = w->shape;
  const int64_t zn = z ? z->size() : 0;
  check(zn <= 1 || (in.axis < s.size() && s[in.axis] == zn),
        "{}: zero point of {} elements for input {} of shape {}", c.node().op_type, zn, in.value,
        shape_to_string(s));
  int64_t inner = 1;
  for (size_t d = in.axis + 1; d < s.size(); ++d) inner *= s[d];
  const int64_t count = w->size();
  std::vector<int64_t> v(static_cast<size_t>(count));
  for (int64_t e = 0; e < count; ++e) {
    const int64_t zero = zn == 0 ? 0 : element_as_int64(z->view(), zn == 1 ? 0 : (e / inner) % zn);
    v[size_t(e)] = element_as_int64(w->view(), e) - zero;
  }
  return v;
}

Shape shape_of(ConvertContext& c, const IntegerInput& in) {
  return in.computed ? c.b().graph().desc(in.computed->value).shape : c.shape(in.value);
}

OperandId zero_point_operand(ConvertContext& c, IntegerInput in, size_t rank) {
  if (in.computed) {
    return centered_float(c, in.computed->value, in.computed->zero_point, rank, in.axis);
  }
  return centered_float(
      c, c.in(in.value),
      c.has_input(in.zero_point) ? std::optional<OperandId>(c.in(in.zero_point)) : std::nullopt,
      rank, in.axis);
}

// The float32 weight parts of a split, each shaped like the weight: part 0 is the centered
// weight itself (one part) or its lowest digit; part p > 0 is digit p scaled by 2^(shift p).
// Digits are int8 constants computed here, cast and scaled in the graph (parameter-only ops
// the runtime folds), so the weights file keeps one byte per weight and digit.
std::vector<OperandId> weight_parts(ConvertContext& c, IntegerInput w, const ExactSplit& split,
                                    const std::vector<int64_t>* centered) {
  const Shape s = shape_of(c, w);
  if (split.parts == 1) return {zero_point_operand(c, w, s.size())};
  std::vector<OperandId> parts;
  const int shift = digit_shift(split.parts);
  for (int p = 0; p < split.parts; ++p) {
    Tensor digits = Tensor::zeros(DataType::kInt8, s);
    auto* d = digits.mutable_view().as<int8_t>();
    for (size_t e = 0; e < centered->size(); ++e) {
      d[e] = int8_t(split_digits((*centered)[e], split.parts)[size_t(p)]);
    }
    OperandId f = c.op(K::kCast, {c.constant(digits), DataType::kFloat32});
    if (p > 0) f = c.op(K::kMul, {f, c.constant(DataType::kFloat32, {double(1 << (shift * p))})});
    parts.push_back(f);
  }
  return parts;
}

// The split for a weight of `rows` outputs reducing over `units` units of `unit_size`: planned
// on the known values, or with the worst case |w| of the dtypes (the value itself only).
ExactSplit choose_split(ConvertContext& c, IntegerInput x, IntegerInput w,
                        const std::optional<std::vector<int64_t>>& centered, int64_t rows,
                        int64_t units, int64_t unit_size) {
  const int64_t xb = centered_bound(c, x);
  std::optional<ExactSplit> s;
  if (centered) {
    s = plan_exact_split(*centered, rows, units, unit_size, xb);
  } else {
    const std::vector<int64_t> worst(size_t(units * unit_size), centered_bound(c, w));
    s = plan_exact_split(worst, 1, units, unit_size, xb, 1);
  }
  if (!s) {
    c.unsupported(
        "{}: no exact float32 split: one unit of {} products of up to {} x {} already "
        "exceeds 2^24",
        c.node().op_type, unit_size, xb, centered_bound(c, w));
  }
  return *s;
}

// Sums the pieces of a product in int32: y's axes `axes` hold the (chunk, part) pieces.
OperandId sum_pieces(ConvertContext& c, OperandId y, const Shape& pieces_shape, IntList axes,
                     const Shape& out_shape, std::string name) {
  OperandId v = c.op(K::kCast, {c.reshape(y, pieces_shape), DataType::kInt32});
  v = c.op(K::kReduceSum, {v}, {{"axes", std::move(axes)}, {"keepDimensions", false}});
  return c.reshape(v, out_shape, std::move(name));
}

}  // namespace

int digit_shift(int parts) { return parts == 2 ? 4 : 3; }

std::array<int64_t, 3> split_digits(int64_t v, int parts) {
  std::array<int64_t, 3> d{0, 0, 0};
  const int shift = digit_shift(parts);
  const int64_t base = int64_t(1) << shift, half = base / 2;
  for (int p = 0; p + 1 < parts; ++p) {
    // Floor division, so the digit is balanced for negative v too.
    const int64_t t = v + half;
    const int64_t q = t >= 0 ? t / base : -((-t + base - 1) / base);
    d[size_t(p)] = v - q * base;
    v = q;
  }
  d[size_t(parts - 1)] = v;
  return d;
}

std::optional<ExactSplit> plan_exact_split(std::span<const int64_t> w, int64_t rows, int64_t units,
                                           int64_t unit_size, int64_t x_bound, int max_parts) {
  check(int64_t(w.size()) == rows * units * unit_size, "plan_exact_split: {} values for {}x{}x{}",
        w.size(), rows, units, unit_size);
  std::optional<ExactSplit> best;
  int64_t best_cost = 0;
  const int64_t limit = kExactFloat32Integer / std::max<int64_t>(x_bound, 1);
  const size_t stride = size_t(units + 1);
  for (int parts = 1; parts <= max_parts; ++parts) {
    // No split of more parts can cost less than parts * (K + kPieceCost).
    if (best && best_cost <= parts * (units * unit_size + kPieceCost)) break;
    // prefix[p][row * (units + 1) + u]: the sum of |digit p| over the row's first u units, so
    // any chunk's sum is one difference.
    std::vector<std::vector<int64_t>> prefix(size_t(parts),
                                             std::vector<int64_t>(size_t(rows) * stride, 0));
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t u = 0; u < units; ++u) {
        std::array<int64_t, 3> unit{0, 0, 0};
        for (int64_t e = 0; e < unit_size; ++e) {
          const int64_t v = w[size_t((r * units + u) * unit_size + e)];
          if (parts == 1) {
            unit[0] += std::abs(v);
            continue;
          }
          const auto d = split_digits(v, parts);
          for (int p = 0; p < parts; ++p) unit[size_t(p)] += std::abs(d[size_t(p)]);
        }
        for (int p = 0; p < parts; ++p) {
          int64_t* row = prefix[size_t(p)].data() + size_t(r) * stride;
          row[u + 1] = row[u] + unit[size_t(p)];
        }
      }
    }
    // The fewest chunks that make this many parts exact; more only cost more.
    for (int64_t chunks = 1; chunks <= units; ++chunks) {
      if (units % chunks != 0) continue;
      const int64_t run = units / chunks;
      bool exact = true;
      for (int p = 0; p < parts && exact; ++p) {
        for (int64_t r = 0; r < rows && exact; ++r) {
          const int64_t* row = prefix[size_t(p)].data() + size_t(r) * stride;
          for (int64_t j = 0; j < chunks && exact; ++j) {
            exact = row[(j + 1) * run] - row[j * run] <= limit;
          }
        }
      }
      if (!exact) continue;
      // Each part is one more full product (its multiply-adds); each piece one more output
      // element to cast to int32 and sum, about kPieceCost multiply-adds' worth.
      const int64_t cost = parts * (units * unit_size + kPieceCost * chunks);
      if (!best || cost < best_cost) {
        best = ExactSplit{parts, chunks};
        best_cost = cost;
      }
      break;
    }
  }
  return best;
}

OperandId centered_float(ConvertContext& c, OperandId x, std::optional<OperandId> zero_point,
                         size_t rank, size_t axis) {
  OperandId v = c.op(K::kCast, {x, DataType::kFloat32});
  if (!zero_point) return v;
  OperandId z = c.op(K::kCast, {*zero_point, DataType::kFloat32});
  const Shape zs = c.b().graph().desc(z).shape;
  if (element_count(zs) == 1) {
    z = zs.empty() ? z : c.reshape(z, {});
  } else {
    Shape line(rank, 1);
    line[axis] = element_count(zs);
    z = c.reshape(z, line);
  }
  return c.op(K::kSub, {v, z});
}

OperandId exact_conv_integer(ConvertContext& c, IntegerInput x, IntegerInput w, std::string name) {
  const Shape xs = shape_of(c, x), ws = shape_of(c, w);
  if (ws.size() != 3 && ws.size() != 4) c.unsupported("{} of rank {}", c.node().op_type, ws.size());
  const int64_t group = c.attr_int("group", 1), m = ws[0], cg = ws[1];
  check(group >= 1 && m % group == 0, "{}: group {} does not divide {} filters", c.node().op_type,
        group, m);
  int64_t taps = 1;
  for (size_t d = 2; d < ws.size(); ++d) taps *= ws[d];
  w.axis = 0;
  const auto centered = known_centered(c, w);
  const ExactSplit split = choose_split(c, x, w, centered, m, cg, taps);
  const int64_t mg = m / group, chunks = split.chunks, run = cg / chunks;
  const auto parts = weight_parts(c, w, split, centered ? &*centered : nullptr);
  // The filter of groups (g, chunk j): rows (part p, filter m of g) over j's input channels.
  OperandId filter;
  if (parts.size() == 1 && chunks == 1) {
    filter = parts[0];
  } else {
    OperandList stacked;
    for (OperandId p : parts) stacked.push_back(c.reshape(p, {group, 1, mg, chunks, run * taps}));
    filter = stacked.size() == 1 ? stacked[0] : c.op(K::kConcat, {RawValue(stacked), int64_t(1)});
    if (chunks > 1)
      filter = c.op(K::kTranspose, {filter}, {{"permutation", IntList{0, 3, 1, 2, 4}}});
    Shape fs = ws;
    fs[0] = group * chunks * int64_t(parts.size()) * mg;
    fs[1] = run;
    filter = c.reshape(filter, fs);
  }
  OperandId xf = zero_point_operand(c, x, xs.size());
  const int64_t pieces = chunks * int64_t(parts.size());
  if (pieces == 1) {
    OperandId y = conv_from_attributes(c, xf, filter, std::nullopt);
    return c.op(K::kCast, {y, DataType::kInt32}, {}, std::move(name));
  }
  OperandId y = conv_from_attributes(c, xf, filter, std::nullopt, {}, group * chunks);
  Shape out = c.b().graph().desc(y).shape;
  out[1] = m;
  const int64_t n = out[0], spatial = element_count(out) / (n * m);
  return sum_pieces(c, y, {n, group, pieces, mg, spatial}, {2}, out, std::move(name));
}

OperandId exact_matmul_integer(ConvertContext& c, IntegerInput a, IntegerInput b,
                               std::string name) {
  const Shape as = shape_of(c, a), bs = shape_of(c, b);
  if (as.size() < 2 || bs.size() < 2) {
    c.unsupported("{} with A {} and B {}: 1-D operands", c.node().op_type, shape_to_string(as),
                  shape_to_string(bs));
  }
  const int64_t k = as.back(), n = bs.back();
  a.axis = as.size() - 2;
  b.axis = bs.size() - 1;
  // A known B is planned per column on its values; a 2-D known B is the usual weight.
  std::optional<std::vector<int64_t>> centered;
  if (bs.size() == 2) centered = known_centered(c, b);
  std::optional<std::vector<int64_t>> by_column;
  if (centered) {
    by_column.emplace(centered->size());
    for (int64_t r = 0; r < k; ++r) {
      for (int64_t col = 0; col < n; ++col)
        (*by_column)[size_t(col * k + r)] = (*centered)[size_t(r * n + col)];
    }
  }
  const ExactSplit split = choose_split(c, a, b, by_column, n, k, 1);
  const auto parts = weight_parts(c, b, split, centered ? &*centered : nullptr);
  const int64_t chunks = split.chunks, run = k / chunks, np = n * int64_t(parts.size());
  OperandId bf = parts.size() == 1
                     ? parts[0]
                     : c.op(K::kConcat, {RawValue(OperandList(parts.begin(), parts.end())),
                                         int64_t(bs.size() - 1)});
  OperandId af = zero_point_operand(c, a, as.size());
  Shape out(std::max(as.size(), bs.size()), 1);
  {
    // ONNX's matmul broadcast of the batch dims.
    for (size_t i = 0; i + 2 < out.size(); ++i) {
      const int64_t da = i + as.size() >= out.size() ? as[i + as.size() - out.size()] : 1;
      const int64_t db = i + bs.size() >= out.size() ? bs[i + bs.size() - out.size()] : 1;
      out[i] = std::max(da, db);
    }
    out[out.size() - 2] = as[as.size() - 2];
    out.back() = n;
  }
  if (chunks > 1) {
    // A [..., M, K] as [..., chunks, M, run] and B [..., K, NP] as [..., chunks, run, NP].
    Shape a5(as.begin(), as.end() - 1);
    a5.push_back(chunks);
    a5.push_back(run);
    af = c.reshape(af, a5);
    IntList perm = iota(0, int64_t(a5.size()));
    std::swap(perm[perm.size() - 3], perm[perm.size() - 2]);
    af = c.op(K::kTranspose, {af}, {{"permutation", perm}});
    Shape b5(bs.begin(), bs.end() - 2);
    b5.insert(b5.end(), {chunks, run, np});
    bf = c.reshape(bf, b5);
  }
  OperandId y = c.op(K::kMatmul, {af, bf});
  if (chunks == 1 && parts.size() == 1)
    return c.op(K::kCast, {y, DataType::kInt32}, {}, std::move(name));
  // Pieces [..., chunks, M, parts, N]: the batch dims, then chunk and part axes summed.
  Shape pieces(out.begin(), out.end() - 2);
  const int64_t batch_rank = int64_t(pieces.size());
  pieces.insert(pieces.end(), {chunks, out[out.size() - 2], int64_t(parts.size()), n});
  return sum_pieces(c, y, pieces, {batch_rank, batch_rank + 2}, out, std::move(name));
}

}  // namespace wnn::onnx::ops
