// Shape ops: Shape, Size, ConstantOfShape and Range fold to constants (WebNN shapes are static);
// Reshape, Flatten, Squeeze and Unsqueeze are reshapes, zero-copy when the input is known.
#include <algorithm>
#include <cmath>

#include "wnn/onnx/registry.h"
#include "wnn/onnx/tensor_data.h"

namespace wnn::onnx::ops {
namespace {

// Elements above which ConstantOfShape stays a graph expand of a scalar, not stored weights.
constexpr int64_t kMaxStoredFill = 1024;

void shape(ConvertContext& c) {
  const Shape s = c.shape(0);
  const int64_t r = int64_t(s.size());
  int64_t start = c.attr_int("start", 0), end = c.attr_int("end", r);
  if (start < 0) start += r;
  if (end < 0) end += r;
  start = std::clamp<int64_t>(start, 0, r);
  end = std::clamp<int64_t>(end, start, r);
  std::vector<int64_t> dims(s.begin() + start, s.begin() + end);
  c.set_known(0, make_int64_tensor({int64_t(dims.size())}, dims));
}

void size(ConvertContext& c) {
  const int64_t n = element_count(c.shape(0));
  c.set_known(0, make_int64_tensor({}, std::vector<int64_t>{n}));
}

void constant_of_shape(ConvertContext& c) {
  const Shape s = c.known_ints(0, "shape");
  Tensor value = make_tensor(DataType::kFloat32, {1}, std::vector<double>{0.0});
  if (const AttributeProto* a = c.attr("value")) {
    check(a->t.has_value(), "ConstantOfShape 'value' must be a tensor");
    TensorData d = tensor_data(*a->t, ExternalDataResolver());
    check(element_count(d.shape) == 1, "ConstantOfShape 'value' must have one element");
    value = Tensor{d.dtype, {1}, d.data};
  }
  const int64_t n = element_count(s);
  const double v = element_as_double(value.view(), 0);
  if (n <= kMaxStoredFill) return c.set_known(0, make_tensor(value.dtype, s, std::vector{v}));
  OperandId scalar = c.constant(value.dtype, {v});
  c.set(0, c.op(OpKind::kExpand, {scalar, RawValue(s)}, {}, c.out_name(0)));
}

void range(ConvertContext& c) {
  const Tensor* start = c.known(0);
  if (!start || !c.known(1) || !c.known(2)) {
    c.inexpressible("data-dependent output shape", "Range with run-time start/limit/delta");
  }
  const double s = c.known_floats(0, "start")[0], l = c.known_floats(1, "limit")[0],
               d = c.known_floats(2, "delta")[0];
  check(d != 0, "Range delta is 0");
  const int64_t n = std::max<int64_t>(0, int64_t(std::ceil((l - s) / d)));
  check(n <= (int64_t(1) << 24), "Range of {} elements is too large to fold", n);
  std::vector<double> v(static_cast<size_t>(n), 0.0);
  if (is_integer(start->dtype)) {
    const int64_t si = c.known_ints(0, "start")[0], di = c.known_ints(2, "delta")[0];
    for (int64_t i = 0; i < n; ++i) v[size_t(i)] = double(si + i * di);
  } else {
    for (int64_t i = 0; i < n; ++i) v[size_t(i)] = s + double(i) * d;
  }
  c.set_known(0, make_tensor(start->dtype, {n}, v));
}

// Sets output 0 to input 0 viewed with `s`: a zero-copy known tensor, or a WebNN reshape.
void reshape_to(ConvertContext& c, const Shape& s) {
  if (const Tensor* t = c.known(0)) {
    check(element_count(s) == t->size(), "reshape of {} elements to {}", t->size(),
          shape_to_string(s));
    return c.set_known(0, Tensor{t->dtype, s, t->data});
  }
  c.set(0, c.reshape(c.in(0), s, c.out_name(0)));
}

void reshape(ConvertContext& c) {
  const Shape in = c.shape(0);
  std::vector<int64_t> target =
      c.opset() >= 5 ? c.known_ints(1, "shape") : c.attr_ints("shape").value_or(Shape{});
  const bool allowzero = c.attr_int("allowzero", 0) != 0;
  int64_t infer = -1, known = 1;
  for (size_t i = 0; i < target.size(); ++i) {
    if (target[i] == 0 && !allowzero) {
      check(i < in.size(), "Reshape: 0 at position {} but the input has rank {}", i, in.size());
      target[i] = in[i];
    }
    if (target[i] == -1) {
      check(infer < 0, "Reshape: more than one -1");
      infer = int64_t(i);
    } else {
      check(target[i] >= 0, "Reshape: invalid dimension {}", target[i]);
      known *= target[i];
    }
  }
  if (infer >= 0) {
    check(known > 0 && element_count(in) % known == 0, "Reshape: cannot infer -1 for {} to {}",
          shape_to_string(in), shape_to_string(target));
    target[size_t(infer)] = element_count(in) / known;
  }
  reshape_to(c, target);
}

void flatten(ConvertContext& c) {
  const Shape in = c.shape(0);
  const int64_t r = int64_t(in.size());
  int64_t axis = c.attr_int("axis", 1);
  if (axis < 0) axis += r;
  check(axis >= 0 && axis <= r, "Flatten axis out of range for rank {}", r);
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < r; ++i) (i < axis ? outer : inner) *= in[size_t(i)];
  reshape_to(c, {outer, inner});
}

std::optional<std::vector<int64_t>> axes_arg(ConvertContext& c, size_t input, int64_t since) {
  if (c.opset() >= since) {
    if (!c.has_input(input)) return std::nullopt;
    return c.known_ints(input, "axes");
  }
  return c.attr_ints("axes");
}

void squeeze(ConvertContext& c) {
  const Shape in = c.shape(0);
  auto axes = axes_arg(c, 1, 13);
  std::vector<bool> drop(in.size(), false);
  if (!axes) {
    for (size_t i = 0; i < in.size(); ++i) drop[i] = in[i] == 1;
  } else {
    for (int64_t a : *axes) {
      a = normalize_axis(a, in.size(), "Squeeze axis");
      check(in[size_t(a)] == 1, "Squeeze axis {} has size {}", a, in[size_t(a)]);
      drop[size_t(a)] = true;
    }
  }
  Shape out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (!drop[i]) out.push_back(in[i]);
  }
  reshape_to(c, out);
}

void unsqueeze(ConvertContext& c) {
  const Shape in = c.shape(0);
  auto axes = axes_arg(c, 1, 13);
  if (!axes) c.unsupported("Unsqueeze without axes");
  const size_t rank = in.size() + axes->size();
  std::vector<bool> added(rank, false);
  for (int64_t a : *axes) {
    a = normalize_axis(a, rank, "Unsqueeze axis");
    check(!added[size_t(a)], "Unsqueeze axis {} repeated", a);
    added[size_t(a)] = true;
  }
  Shape out;
  size_t k = 0;
  for (size_t i = 0; i < rank; ++i) out.push_back(added[i] ? 1 : in[k++]);
  reshape_to(c, out);
}

}  // namespace

void register_shape(std::vector<Converter>& t) {
  const auto F = ConvertKind::kFolded, D = ConvertKind::kDirect;
  t.push_back({"", "Shape", 1, kMaxOpset, shape, F, false});
  t.push_back({"", "Size", 1, kMaxOpset, size, F, false});
  t.push_back({"", "ConstantOfShape", 9, kMaxOpset, constant_of_shape, F, false});
  t.push_back({"", "Range", 11, kMaxOpset, range, F, false});
  t.push_back({"", "Reshape", 1, kMaxOpset, reshape, D, true});
  t.push_back({"", "Flatten", 1, kMaxOpset, flatten, D, true});
  t.push_back({"", "Squeeze", 1, kMaxOpset, squeeze, D, true});
  t.push_back({"", "Unsqueeze", 1, kMaxOpset, unsqueeze, D, true});
}

}  // namespace wnn::onnx::ops
