#include "wnn/onnx/ops/spatial.h"

namespace wnn::onnx::ops {

SpatialNd read_spatial_nd(const ConvertContext& c, const IntList& in, const IntList& kernel) {
  const size_t n = in.size();
  IntList strides = c.attr_ints("strides").value_or(IntList(n, 1));
  IntList dil = c.attr_ints("dilations").value_or(IntList(n, 1));
  IntList pads = c.attr_ints("pads").value_or(IntList(2 * n, 0));
  check(strides.size() == n && dil.size() == n && pads.size() == 2 * n,
        "{}: strides/dilations/pads do not match {} spatial dims", c.node().op_type, n);
  check(kernel.size() == n, "{}: kernel_shape has {} values for {} spatial dims", c.node().op_type,
        kernel.size(), n);
  for (size_t i = 0; i < n; ++i) {
    check(strides[i] >= 1 && dil[i] >= 1 && kernel[i] >= 1,
          "{}: spatial axis {} has stride {}, dilation {} and kernel size {}; each must be at "
          "least 1",
          c.node().op_type, i, strides[i], dil[i], kernel[i]);
    check(pads[i] >= 0 && pads[i + n] >= 0,
          "{}: pads of spatial axis {} are {} and {}; ONNX "
          "pads are not negative",
          c.node().op_type, i, pads[i], pads[i + n]);
  }
  const std::string auto_pad = c.attr_string("auto_pad", "NOTSET");
  if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    for (size_t i = 0; i < n; ++i) {
      const int64_t out = (in[i] + strides[i] - 1) / strides[i];
      const int64_t eff = (kernel[i] - 1) * dil[i] + 1;
      const int64_t total = std::max<int64_t>(0, (out - 1) * strides[i] + eff - in[i]);
      const int64_t small = total / 2;
      pads[i] = auto_pad == "SAME_UPPER" ? small : total - small;
      pads[i + n] = total - pads[i];
    }
  } else if (auto_pad == "VALID") {
    pads.assign(2 * n, 0);
  } else if (auto_pad != "NOTSET") {
    c.unsupported("auto_pad '{}'", auto_pad);
  }
  return {strides, dil, pads};
}

Spatial2d read_spatial(const ConvertContext& c, const IntList& in, const IntList& kernel) {
  const size_t n = in.size();
  if (n != 1 && n != 2) c.unsupported("{}-D {} (WebNN has 2-D)", n, c.node().op_type);
  const auto [strides, dil, pads] = read_spatial_nd(c, in, kernel);
  Spatial2d s;
  if (n == 1) {
    s.strides = {1, strides[0]};
    s.dilations = {1, dil[0]};
    s.padding = {0, 0, pads[0], pads[1]};
  } else {
    s.strides = strides;
    s.dilations = dil;
    // ONNX [b_h, b_w, e_h, e_w] -> WebNN [b_h, e_h, b_w, e_w]
    s.padding = {pads[0], pads[2], pads[1], pads[3]};
  }
  return s;
}

int64_t pooled_length(int64_t in, int64_t k, int64_t s, int64_t d, int64_t p0, int64_t p1,
                      bool ceil) {
  const int64_t span = in + p0 + p1 - ((k - 1) * d + 1);
  int64_t out = (ceil ? (span + s - 1) / s : span / s) + 1;
  if (ceil && (out - 1) * s >= in + p0) --out;
  return out;
}

bool ceil_as_floor_padding(Spatial2d& s, const IntList& in, const IntList& window) {
  IntList padding = s.padding;
  for (size_t i = 0; i < 2; ++i) {
    const int64_t p0 = s.padding[2 * i], p1 = s.padding[2 * i + 1];
    const int64_t eff = (window[i] - 1) * s.dilations[i] + 1;
    const int64_t out = pooled_length(in[i], window[i], s.strides[i], s.dilations[i], p0, p1, true);
    padding[2 * i + 1] = (out - 1) * s.strides[i] + eff - in[i] - p0;
    if (padding[2 * i + 1] < 0) return false;
  }
  s.padding = padding;
  return true;
}

OperandId lift_1d(ConvertContext& c, OperandId x, const Shape& shape) {
  if (shape.size() != 3) return x;
  return c.reshape(x, {shape[0], shape[1], 1, shape[2]});
}

}  // namespace wnn::onnx::ops
