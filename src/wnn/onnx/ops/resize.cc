// Resize and Upsample. A resize to a constant output size is separable and linear per axis, so
// every mode (nearest with each coordinate_transformation_mode and nearest_mode, linear, cubic,
// antialias, exclude_outside, tf_crop_and_resize) is computed here as ONNX's reference defines
// it: nearest becomes an exact gather of constant indices per axis, the interpolating modes a
// matmul with a constant [out, in] weight matrix per axis. resample2d is kept where it
// provably samples the same way (it is faster): linear half_pixel, and nearest whose index map
// equals WebNN's.
#include <cmath>

#include "wnn/onnx/ops/axis_map.h"

namespace wnn::onnx::ops {
namespace {

using K = OpKind;

struct ResizeAttrs {
  std::string mode, ctm, nearest_mode;
  double cubic_a = -0.75, extrapolation = 0.0;
  bool exclude_outside = false, antialias = false;
};

// The input coordinate output coordinate `x` samples along one axis (ONNX's reference: the
// "output width" is the real-valued scale * in). nullopt means outside the crop
// (tf_crop_and_resize), where the output is extrapolation_value.
std::optional<double> source_coordinate(const ResizeAttrs& a, double x, double scale, int64_t in,
                                        int64_t out_int, double roi_start, double roi_end) {
  const double out = scale * double(in);
  const std::string& m = a.ctm;
  if (m == "half_pixel") return (x + 0.5) / scale - 0.5;
  if (m == "pytorch_half_pixel") return out == 1 ? -0.5 : (x + 0.5) / scale - 0.5;
  if (m == "asymmetric") return x / scale;
  if (m == "tf_half_pixel_for_nn") return (x + 0.5) / scale;
  if (m == "align_corners") return out == 1 ? 0.0 : x * double(in - 1) / (out - 1);
  if (m == "half_pixel_symmetric") {
    const double adjustment = double(out_int) / out;
    const double centre = double(in) / 2;
    return centre * (1 - adjustment) + (x + 0.5) / scale - 0.5;
  }
  if (m == "tf_crop_and_resize") {
    const double span = (roi_end - roi_start) * double(in - 1);
    double s = out == 1 ? span / 2 : x * span / (out - 1);
    s += roi_start * double(in - 1);
    if (s < 0 || s > double(in - 1)) return std::nullopt;
    return s;
  }
  throw UnsupportedError(fmt::format("coordinate_transformation_mode '{}'", m));
}

double cubic_kernel(double d, double A) {
  d = std::fabs(d);
  if (d <= 1) return ((A + 2) * d - (A + 3)) * d * d + 1;
  if (d < 2) return ((A * d - 5 * A) * d + 8 * A) * d - 4 * A;
  return 0;
}

// Weights of the taps at offsets first, first+1, ... from floor-ish `base` (see below) for the
// fractional position `ratio` in (0, 1].
std::vector<double> coefficients(const ResizeAttrs& a, double ratio, double scale, int64_t& first) {
  if (a.mode == "nearest") {
    first = 0;
    const std::string& n = a.nearest_mode;
    if (ratio == 1) return {0, 1};
    if (n == "round_prefer_floor") return {double(ratio <= 0.5), double(ratio > 0.5)};
    if (n == "round_prefer_ceil") return {double(ratio < 0.5), double(ratio >= 0.5)};
    if (n == "floor") return {1, 0};
    if (n == "ceil") return {0, 1};
    throw UnsupportedError(fmt::format("nearest_mode '{}'", n));
  }
  // Antialiasing widens the kernel by 1/scale when downsampling.
  const double s = a.antialias ? std::min(scale, 1.0) : 1.0;
  const bool cubic = a.mode == "cubic";
  first = int64_t(std::floor((cubic ? -2 : -1) / s) + 1);
  const int64_t last = 1 - first;  // inclusive
  std::vector<double> w;
  double sum = 0;
  for (int64_t i = first; i <= last; ++i) {
    const double d = s * (double(i) - ratio);
    w.push_back(cubic ? cubic_kernel(d, a.cubic_a) : std::clamp(1 - std::fabs(d), 0.0, 1.0));
    sum += w.back();
  }
  if (a.antialias) {
    for (double& v : w) v /= sum;
  }
  return w;
}

struct AxisPlan {
  std::vector<double> matrix;    // [out, in]
  std::vector<int64_t> nearest;  // for nearest: the source index of each output
  std::vector<uint8_t> outside;  // outputs set to extrapolation_value
  bool identity = true, any_outside = false;
};

AxisPlan plan_axis(const ResizeAttrs& a, int64_t in, int64_t out, double scale, double roi_start,
                   double roi_end) {
  AxisPlan p;
  p.matrix.assign(size_t(out * in), 0.0);
  p.nearest.assign(size_t(out), 0);
  p.outside.assign(size_t(out), 0);
  if (in != out) p.identity = false;
  for (int64_t o = 0; o < out; ++o) {
    const auto src = source_coordinate(a, double(o), scale, in, out, roi_start, roi_end);
    if (!src) {
      p.outside[size_t(o)] = 1;
      p.any_outside = true;
      p.identity = false;
      continue;
    }
    // The taps start from floor(src), or src - 1 when src is an integer (ratio 1), which is
    // how the reference picks its nearest neighbours (ties prefer the lower index).
    const double fl = std::floor(*src);
    const double ratio = *src == fl ? 1.0 : *src - fl;
    const int64_t base = int64_t(fl) - (*src == fl ? 1 : 0);
    int64_t first = 0;
    std::vector<double> w = coefficients(a, ratio, scale, first);
    // Antialiasing drops the taps outside the input and renormalizes (as ONNX Runtime and
    // PyTorch do), which is exclude_outside.
    if (a.exclude_outside || a.antialias) {
      double sum = 0;
      for (size_t k = 0; k < w.size(); ++k) {
        const int64_t idx = base + first + int64_t(k);
        if (idx < 0 || idx >= in) w[k] = 0;
        sum += w[k];
      }
      for (double& v : w) v /= sum;
    }
    for (size_t k = 0; k < w.size(); ++k) {
      const int64_t idx = std::clamp<int64_t>(base + first + int64_t(k), 0, in - 1);
      p.matrix[size_t(o * in + idx)] += w[k];
      if (w[k] != 0) p.nearest[size_t(o)] = idx;
    }
    if (p.nearest[size_t(o)] != o || p.matrix[size_t(o * in + o)] != 1.0) p.identity = false;
  }
  return p;
}

// WebNN's resample2d samples at half-pixel centres; nearest rounds (o + 0.5) / scale down.
bool resample2d_matches(const ResizeAttrs& a, const AxisPlan& p, int64_t in, int64_t out,
                        double scale) {
  if (p.any_outside) return false;
  if (a.mode == "linear") {
    const bool pixel = a.ctm == "half_pixel" || (a.ctm == "pytorch_half_pixel" && out > 1);
    return pixel && !(a.antialias && scale < 1);
  }
  if (a.mode != "nearest") return false;
  for (int64_t o = 0; o < out; ++o) {
    const int64_t got =
        std::clamp<int64_t>(int64_t(std::floor((double(o) + 0.5) / scale)), 0, in - 1);
    if (got != p.nearest[size_t(o)]) return false;
  }
  return true;
}

void resize(ConvertContext& c, bool upsample) {
  const Shape xs = c.shape(0);
  const size_t r = xs.size();
  const bool legacy = upsample || c.opset() < 11;
  ResizeAttrs a;
  a.mode = c.attr_string("mode", "nearest");
  if (a.mode == "bilinear") a.mode = "linear";  // Upsample-7's spelling
  a.ctm = c.attr_string("coordinate_transformation_mode", legacy ? "asymmetric" : "half_pixel");
  a.nearest_mode = c.attr_string("nearest_mode", legacy ? "floor" : "round_prefer_floor");
  a.cubic_a = c.attr_float("cubic_coeff_a", -0.75);
  a.exclude_outside = c.attr_int("exclude_outside", 0) != 0;
  a.extrapolation = c.attr_float("extrapolation_value", 0.0);
  a.antialias = c.attr_int("antialias", 0) != 0;
  if (a.mode != "nearest" && a.mode != "linear" && a.mode != "cubic") {
    c.unsupported("mode '{}'", a.mode);
  }
  IntList axes = c.attr_ints("axes").value_or(iota(0, int64_t(r)));
  for (auto& ax : axes) ax = normalize_axis(ax, r, "axes");

  std::vector<double> scales, roi;
  std::vector<int64_t> sizes;
  if (upsample && c.opset() < 9) {
    scales = c.attr_floats("scales").value_or(std::vector<double>{});
  } else {
    const size_t si = legacy ? 1 : 2;
    if (c.has_input(si)) scales = c.known_floats(si, "scales");
    if (!legacy && c.has_input(3)) sizes = c.known_ints(3, "sizes");
    if (!legacy && c.has_input(1) && a.ctm == "tf_crop_and_resize") roi = c.known_floats(1, "roi");
  }
  if (!sizes.empty()) scales.clear();  // an empty scales input next to sizes
  if (scales.empty() && sizes.empty()) c.unsupported("Resize with neither scales nor sizes");
  const size_t n = axes.size();
  check((scales.empty() || scales.size() == n) && (sizes.empty() || sizes.size() == n),
        "Resize: {} scales / {} sizes for {} axes", scales.size(), sizes.size(), n);
  check(roi.empty() || roi.size() == 2 * n, "Resize: roi has {} values for {} axes", roi.size(), n);

  // Per-axis scale and output size over the full rank, as the reference resolves them.
  std::vector<double> scale(r, 1.0), roi_start(r, 0.0), roi_end(r, 1.0);
  Shape out = xs;
  for (size_t i = 0; i < n; ++i) {
    const size_t ax = size_t(axes[i]);
    if (!roi.empty()) roi_start[ax] = roi[i], roi_end[ax] = roi[n + i];
    if (sizes.empty()) {
      scale[ax] = scales[i];
      out[ax] = int64_t(std::floor(scales[i] * double(xs[ax])));
    } else {
      out[ax] = sizes[i];
      scale[ax] = double(sizes[i]) / double(xs[ax]);
    }
  }
  const std::string policy = c.attr_string("keep_aspect_ratio_policy", "stretch");
  if (!sizes.empty() && policy != "stretch") {
    if (policy != "not_larger" && policy != "not_smaller") c.unsupported("policy '{}'", policy);
    double s = scale[size_t(axes[0])];
    for (auto ax : axes) {
      s = policy == "not_larger" ? std::min(s, scale[size_t(ax)]) : std::max(s, scale[size_t(ax)]);
    }
    for (auto ax : axes) {
      scale[size_t(ax)] = s;
      out[size_t(ax)] = int64_t(s * double(xs[size_t(ax)]) + 0.5);
    }
  }

  std::vector<AxisPlan> plans(r);
  std::vector<size_t> resized;
  bool fast = r == 4;
  for (size_t ax = 0; ax < r; ++ax) {
    check(out[ax] > 0, "Resize: output size {} on axis {}", out[ax], ax);
    plans[ax] = plan_axis(a, xs[ax], out[ax], scale[ax], roi_start[ax], roi_end[ax]);
    if (plans[ax].identity) continue;
    resized.push_back(ax);
    if (ax < 2 || !resample2d_matches(a, plans[ax], xs[ax], out[ax], scale[ax])) fast = false;
  }
  if (resized.empty()) return c.set(0, c.op(K::kIdentity, {c.in(0)}, {}, c.out_name(0)));
  if (fast) {
    std::vector<std::pair<std::string, RawValue>> named = {
        {"mode", RawValue::Name{a.mode == "linear" ? "linear" : "nearest-neighbor"}},
        {"axes", IntList{2, 3}}};
    if (sizes.empty()) {
      named.emplace_back("scales", std::vector<double>{scale[2], scale[3]});
    } else {
      named.emplace_back("sizes", IntList{out[2], out[3]});
    }
    return c.set(0, c.op(K::kResample2d, {c.in(0)}, std::move(named), c.out_name(0)));
  }

  bool any_outside = false;
  for (size_t ax : resized) any_outside |= plans[ax].any_outside;
  OperandId y = c.in(0);
  Shape shape = xs;
  for (size_t k = 0; k < resized.size(); ++k) {
    const size_t ax = resized[k];
    const std::string name = k + 1 == resized.size() && !any_outside ? c.out_name(0) : "";
    y = a.mode == "nearest" ? gather_along_axis(c, y, ax, plans[ax].nearest, name)
                            : matmul_along_axis(c, y, shape, ax, out[ax], plans[ax].matrix, name);
    shape[ax] = out[ax];
  }
  if (any_outside) {
    // A sample outside the crop on any axis is extrapolation_value.
    Shape mask_shape(r, 1);
    for (size_t ax : resized) {
      if (plans[ax].any_outside) mask_shape[ax] = out[ax];
    }
    Tensor mask = Tensor::zeros(DataType::kUint8, mask_shape);
    uint8_t* m = mask.mutable_view().as<uint8_t>();
    for (int64_t i = 0; i < mask.size(); ++i) {
      int64_t rest = i;
      for (size_t ax = r; ax-- > 0;) {
        const int64_t coord = rest % mask_shape[ax];
        rest /= mask_shape[ax];
        if (plans[ax].any_outside && plans[ax].outside[size_t(coord)]) m[i] = 1;
      }
    }
    const DataType dt = c.dtype(0);
    y = c.op(K::kWhere, {c.constant(mask), c.constant(dt, {a.extrapolation}), y}, {},
             c.out_name(0));
  }
  c.set(0, y);
}

}  // namespace

void register_resize(std::vector<Converter>& t) {
  t.push_back({"", "Resize", 10, kMaxOpset, [](ConvertContext& c) { resize(c, false); },
               ConvertKind::kDecomposed});
  t.push_back(
      {"", "Upsample", 7, 9, [](ConvertContext& c) { resize(c, true); }, ConvertKind::kDecomposed});
}

}  // namespace wnn::onnx::ops
