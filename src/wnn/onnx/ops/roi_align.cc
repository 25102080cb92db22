// RoiAlign with run-time rois: each output bin averages (or maxes) a fixed sampling_ratio^2
// grid of bilinear samples. Sample coordinates are roi start + roi bin size * a constant
// offset, computed elementwise per roi and axis; the four taps are fetched with gatherElements
// from the roi's image (gathered by batch index). The arithmetic follows ONNX Runtime's
// kernel, which defines the operator's numerics (clamping at -1 and the edge, and "max" taking
// the largest weighted tap).
#include "wnn/onnx/ops/float_ops.h"

namespace wnn::onnx::ops {
namespace {

using K = OpKind;

struct AxisSamples {
  OperandId low, high;      // float, integer-valued, in [0, size)
  OperandId w_low, w_high;  // zero where the sample lies outside [-1, size]
};

void roi_align(ConvertContext& c) {
  const Shape xs = c.shape(0), rs = c.shape(1);
  check(xs.size() == 4 && rs.size() == 2 && rs[1] == 4, "RoiAlign: input {} rois {}",
        shape_to_string(xs), shape_to_string(rs));
  const DataType dt = c.dtype(0);
  if (!is_float(dt)) c.unsupported("RoiAlign of {} values", dtype_name(dt));
  const std::string mode = c.attr_string("mode", "avg");
  if (mode != "avg" && mode != "max") c.unsupported("mode '{}'", mode);
  const std::string ctm = c.attr_string("coordinate_transformation_mode",
                                        c.opset() < 16 ? "output_half_pixel" : "half_pixel");
  if (ctm != "half_pixel" && ctm != "output_half_pixel") c.unsupported("mode '{}'", ctm);
  const bool half_pixel = ctm == "half_pixel";
  const int64_t Ph = c.attr_int("output_height", 1), Pw = c.attr_int("output_width", 1);
  const int64_t ratio = c.attr_int("sampling_ratio", 0);
  if (ratio <= 0) {
    c.unsupported("sampling_ratio={}: the adaptive sample count depends on each roi's size", ratio);
  }
  const double scale = c.attr_float("spatial_scale", 1.0);
  const int64_t N = xs[0], C = xs[1], H = xs[2], W = xs[3], R = rs[0];
  FloatOps s{c, dt};
  OperandId rois = c.in(1);
  if (c.dtype(1) != dt) rois = c.op(K::kCast, {rois, RawValue(dt)});

  // coordinate = roi start + bin * (p + (i + 0.5) / ratio) over [R, P * ratio].
  auto axis = [&](int64_t first, int64_t P, int64_t size) {
    auto column = [&](int64_t k) {
      return c.op(K::kSlice, {rois, RawValue(IntList{0, k}), RawValue(IntList{R, 1})});
    };
    const double offset = half_pixel ? 0.5 : 0.0;
    OperandId start = s.sub(s.mul(column(first), s.k(scale)), s.k(offset));
    OperandId end = s.sub(s.mul(column(first + 2), s.k(scale)), s.k(offset));
    OperandId length = s.sub(end, start);
    if (!half_pixel) length = c.op(K::kMax, {length, s.k(1)});
    OperandId bin = s.mul(length, s.k(1.0 / double(P)));
    std::vector<double> steps;
    for (int64_t p = 0; p < P; ++p) {
      for (int64_t i = 0; i < ratio; ++i)
        steps.push_back(double(p) + (double(i) + 0.5) / double(ratio));
    }
    OperandId v = s.add(start, s.mul(bin, c.constant(dt, steps, {1, P * ratio})));
    OperandId outside = c.op(K::kLogicalOr, {s.lt(v, -1), s.gt(v, double(size))});
    v = c.op(K::kMax, {v, s.k(0)});
    OperandId fl = s.floor(v);
    OperandId at_edge = c.op(K::kGreaterOrEqual, {fl, s.k(double(size - 1))});
    OperandId low = c.op(K::kMin, {fl, s.k(double(size - 1))});
    OperandId high = c.op(K::kMin, {s.add(low, s.k(1)), s.k(double(size - 1))});
    OperandId l = s.where(at_edge, s.k(0), s.sub(v, low));
    OperandId h = s.sub(s.k(1), l);
    return AxisSamples{low, high, s.where(outside, s.k(0), h), s.where(outside, s.k(0), l)};
  };
  const AxisSamples ay = axis(1, Ph, H), ax = axis(0, Pw, W);
  const int64_t Sh = Ph * ratio, Sw = Pw * ratio;

  OperandId batch = c.in(2);
  OperandId image =
      c.op(K::kGather, {c.reshape(c.in(0), {N, C, H * W}), batch}, {{"axis", int64_t{0}}});
  std::optional<OperandId> acc;
  for (int iy = 0; iy < 2; ++iy) {
    for (int ix = 0; ix < 2; ++ix) {
      OperandId yi = c.reshape(iy ? ay.high : ay.low, {R, Sh, 1});
      OperandId xi = c.reshape(ix ? ax.high : ax.low, {R, 1, Sw});
      OperandId w = s.mul(c.reshape(iy ? ay.w_high : ay.w_low, {R, Sh, 1}),
                          c.reshape(ix ? ax.w_high : ax.w_low, {R, 1, Sw}));
      OperandId flat = s.add(s.mul(yi, s.k(double(W))), xi);
      flat = c.op(K::kCast, {c.reshape(flat, {R, 1, Sh * Sw}), RawValue(DataType::kInt32)});
      flat = c.op(K::kExpand, {flat, RawValue(Shape{R, C, Sh * Sw})});
      OperandId v = c.op(K::kGatherElements, {image, flat}, {{"axis", int64_t{2}}});
      v = s.mul(v, c.reshape(w, {R, 1, Sh * Sw}));
      acc = !acc ? v : mode == "avg" ? s.add(*acc, v) : c.op(K::kMax, {*acc, v});
    }
  }
  OperandId y = c.reshape(*acc, {R, C, Ph, ratio, Pw, ratio});
  c.set(0, c.op(mode == "avg" ? K::kReduceMean : K::kReduceMax, {y},
                {{"axes", IntList{3, 5}}, {"keepDimensions", false}}, c.out_name(0)));
}

}  // namespace

void register_roi_align(std::vector<Converter>& t) {
  t.push_back({"", "RoiAlign", 10, kMaxOpset, roi_align, ConvertKind::kDecomposed});
}

}  // namespace wnn::onnx::ops
