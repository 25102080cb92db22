#include "wnn/onnx/ops/axis_map.h"

#include <algorithm>
#include <optional>

namespace wnn::onnx::ops {

OperandId matmul_along_axis(ConvertContext& c, OperandId x, const Shape& shape, size_t axis,
                            int64_t out, std::span<const double> matrix, std::string name) {
  const int64_t in = shape[axis];
  check_internal(int64_t(matrix.size()) == out * in, "matmul_along_axis: matrix size");
  const DataType dt = c.b().graph().desc(x).dtype;
  if (!is_float(dt))
    c.unsupported("interpolating {} values (WebNN's matmul takes floats)", dtype_name(dt));
  // A sparse map (a resize's few taps per output) is cheaper as K gathers and a weighted sum:
  // O(K * out) constants instead of O(out * in), and no multiplications by zero.
  int64_t taps = 0;
  for (int64_t o = 0; o < out; ++o) {
    int64_t nonzero = 0;
    for (int64_t i = 0; i < in; ++i) nonzero += matrix[size_t(o * in + i)] != 0;
    taps = std::max(taps, nonzero);
  }
  if (taps > 0 && 4 * taps < in) {
    std::vector<std::vector<int64_t>> index(size_t(taps), std::vector<int64_t>(size_t(out), 0));
    std::vector<std::vector<double>> weight(size_t(taps), std::vector<double>(size_t(out), 0.0));
    for (int64_t o = 0; o < out; ++o) {
      size_t k = 0;
      for (int64_t i = 0; i < in; ++i) {
        const double w = matrix[size_t(o * in + i)];
        if (w == 0) continue;
        index[k][size_t(o)] = i;
        weight[k++][size_t(o)] = w;
      }
    }
    Shape w_shape(shape.size(), 1);
    w_shape[axis] = out;
    std::optional<OperandId> sum;
    for (size_t k = 0; k < size_t(taps); ++k) {
      const bool last = k + 1 == size_t(taps);
      OperandId v = gather_along_axis(c, x, axis, index[k]);
      OperandId w = c.constant(make_tensor(dt, w_shape, weight[k]));
      const std::string out_name = last ? name : std::string{};
      sum = sum ? c.op(OpKind::kAdd, {*sum, c.op(OpKind::kMul, {v, w})}, {}, out_name)
                : c.op(OpKind::kMul, {v, w}, {}, out_name);
    }
    return *sum;
  }
  Shape y_shape = shape;
  y_shape[axis] = out;
  if (axis + 1 == shape.size()) {
    // The last axis: x [..., in] @ matrix^T [in, out], batch dims broadcast.
    std::vector<double> t(matrix.size());
    for (int64_t o = 0; o < out; ++o) {
      for (int64_t i = 0; i < in; ++i) t[size_t(i * out + o)] = matrix[size_t(o * in + i)];
    }
    OperandId m = c.constant(make_tensor(dt, {in, out}, t));
    return c.op(OpKind::kMatmul, {x, m}, {}, std::move(name));
  }
  // Any other axis: matrix [out, in] @ x viewed as [before, in, after].
  int64_t before = 1, after = 1;
  for (size_t i = 0; i < axis; ++i) before *= shape[i];
  for (size_t i = axis + 1; i < shape.size(); ++i) after *= shape[i];
  OperandId x3 = c.reshape(x, {before, in, after});
  OperandId m = c.constant(make_tensor(dt, {out, in}, matrix));
  OperandId y = c.op(OpKind::kMatmul, {m, x3});
  return c.reshape(y, y_shape, std::move(name));
}

OperandId gather_along_axis(ConvertContext& c, OperandId x, size_t axis,
                            std::span<const int64_t> index, std::string name) {
  OperandId idx = c.constant(make_int64_tensor({int64_t(index.size())}, index));
  return c.op(OpKind::kGather, {x, idx}, {{"axis", int64_t(axis)}}, std::move(name));
}

}  // namespace wnn::onnx::ops
