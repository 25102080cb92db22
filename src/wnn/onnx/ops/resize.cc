// Resize and Upsample onto WebNN's resample2d. resample2d samples at half-pixel centres
// (linear clamps; nearest rounds half up). Linear converts for half_pixel (and
// pytorch_half_pixel); nearest converts whenever ONNX's index map, computed here for the
// model's exact sizes, equals WebNN's. Everything else is reported.
#include <cmath>

#include "wnn/onnx/registry.h"

namespace wnn::onnx::ops {
namespace {

using K = OpKind;

int64_t onnx_nearest(double src, const std::string& mode) {
  if (mode == "round_prefer_floor") return int64_t(std::ceil(src - 0.5));
  if (mode == "round_prefer_ceil") return int64_t(std::floor(src + 0.5));
  if (mode == "floor") return int64_t(std::floor(src));
  return int64_t(std::ceil(src));  // ceil
}

double onnx_source(double o, double scale, int64_t in, int64_t out, const std::string& ctm) {
  if (ctm == "half_pixel") return (o + 0.5) / scale - 0.5;
  if (ctm == "pytorch_half_pixel") return out > 1 ? (o + 0.5) / scale - 0.5 : 0.0;
  if (ctm == "asymmetric") return o / scale;
  if (ctm == "align_corners") return out > 1 ? o * double(in - 1) / double(out - 1) : 0.0;
  if (ctm == "half_pixel_symmetric") {
    const double adj = double(out) / (scale * double(in));
    const double centre = double(in) / 2;
    return centre * (1 - adj) + (o + 0.5) / scale - 0.5;
  }
  throw UnsupportedError(fmt::format("coordinate_transformation_mode '{}'", ctm));
}

void resize(ConvertContext& c, bool upsample) {
  const Shape xs = c.shape(0);
  if (xs.size() != 4) c.unsupported("Resize of rank {} (WebNN resamples 2 axes of 4-D)", xs.size());
  std::string mode = c.attr_string("mode", "nearest");
  std::string ctm = c.attr_string("coordinate_transformation_mode",
                                  upsample || c.opset() < 11 ? "asymmetric" : "half_pixel");
  const std::string nearest_mode =
      c.attr_string("nearest_mode", upsample || c.opset() < 11 ? "floor" : "round_prefer_floor");
  if (upsample && mode == "bilinear") mode = "linear";
  if (c.attr_int("antialias", 0) != 0) c.unsupported("antialias=1");
  if (c.attr_string("keep_aspect_ratio_policy", "stretch") != "stretch") {
    c.unsupported("keep_aspect_ratio_policy other than stretch");
  }
  if (c.attr("axes")) c.unsupported("the axes attribute");
  std::vector<double> scales;
  Shape sizes;
  if (upsample && c.opset() < 9) {
    scales = c.attr_floats("scales").value_or(std::vector<double>{});
  } else {
    const size_t si = upsample || c.opset() < 11 ? 1 : 2;
    if (c.has_input(si)) scales = c.known_floats(si, "scales");
    if (!upsample && c.opset() >= 11 && c.has_input(3)) sizes = c.known_ints(3, "sizes");
  }
  if (scales.empty() && sizes.empty()) c.unsupported("Resize with neither scales nor sizes");
  Shape out(4);
  for (size_t i = 0; i < 4; ++i) {
    out[i] = sizes.empty() ? int64_t(std::floor(double(xs[i]) * scales[i])) : sizes[i];
    if (i < 2 && out[i] != xs[i]) c.unsupported("resizing batch or channel axes");
  }
  double scale[2];
  for (size_t i = 0; i < 2; ++i) {
    scale[i] = sizes.empty() ? scales[i + 2] : double(out[i + 2]) / double(xs[i + 2]);
  }
  if (mode == "linear") {
    if (ctm != "half_pixel" && !(ctm == "pytorch_half_pixel" && out[2] > 1 && out[3] > 1)) {
      c.unsupported("linear with coordinate_transformation_mode '{}'", ctm);
    }
  } else if (mode == "nearest") {
    for (size_t i = 0; i < 2; ++i) {
      const int64_t in = xs[i + 2];
      for (int64_t o = 0; o < out[i + 2]; ++o) {
        const int64_t want = std::clamp<int64_t>(
            onnx_nearest(onnx_source(double(o), scale[i], in, out[i + 2], ctm), nearest_mode), 0,
            in - 1);
        const int64_t got =
            std::clamp<int64_t>(int64_t(std::floor((double(o) + 0.5) / scale[i])), 0, in - 1);
        if (want != got) {
          c.unsupported("nearest with {} / {} at these sizes differs from WebNN's sampling", ctm,
                        nearest_mode);
        }
      }
    }
  } else {
    c.unsupported("mode '{}'", mode);
  }
  std::vector<std::pair<std::string, RawValue>> named = {
      {"mode", RawValue::Name{mode == "linear" ? "linear" : "nearest-neighbor"}},
      {"axes", IntList{2, 3}}};
  if (sizes.empty()) {
    named.emplace_back("scales", std::vector<double>{scale[0], scale[1]});
  } else {
    named.emplace_back("sizes", IntList{out[2], out[3]});
  }
  c.set(0, c.op(K::kResample2d, {c.in(0)}, std::move(named), c.out_name(0)));
}

}  // namespace

void register_resize(std::vector<Converter>& t) {
  t.push_back({"", "Resize", 10, kMaxOpset, [](ConvertContext& c) { resize(c, false); },
               ConvertKind::kDirect});
  t.push_back(
      {"", "Upsample", 7, 9, [](ConvertContext& c) { resize(c, true); }, ConvertKind::kDirect});
}

}  // namespace wnn::onnx::ops
