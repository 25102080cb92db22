// averagePool2d, l2Pool2d, maxPool2d and resample2d. Pools read the input as NCHW and visit
// only the window cells that fall inside the input: padding contributes nothing, and the
// average divides by the number of cells actually visited.
#include <algorithm>
#include <cmath>

#include "wnn/core/error.h"
#include "wnn/core/ops/conv.h"
#include "wnn/kernels/float_values.h"
#include "wnn/kernels/kernel.h"
#include "wnn/kernels/kernel_context.h"
#include "wnn/kernels/resample_linear.h"

namespace wnn::kernels {

namespace {

enum class PoolKind { kAverage, kL2, kMax };

void pool2d(const KernelArgs& args, PoolKind kind) {
  const Attributes& a = args.attrs();
  const ConstTensorView& input = args.input("input");
  const TensorView& out = args.output();
  const std::string& layout = a.get_enum("layout");
  const auto in = conv_input_geometry(input.shape, layout);
  const auto og = conv_input_geometry(out.shape, layout);
  const IntList window =
      a.has("windowDimensions") ? a.get_ints("windowDimensions") : IntList{in.height, in.width};
  const IntList padding = a.get_ints("padding");
  const IntList strides = a.get_ints("strides");
  const IntList dilations = a.get_ints("dilations");
  const int64_t in_dims[4] = {in.batch, in.channels, in.height, in.width};
  const int64_t out_dims[4] = {og.batch, og.channels, og.height, og.width};
  const std::vector<double> x =
      to_canonical(read_values<double>(input), input.shape, layout, "nchw", in_dims);

  const int64_t H = in.height, W = in.width, OH = og.height, OW = og.width;
  std::vector<double> result(size_t(og.batch * og.channels * OH * OW));
  size_t k = 0;
  for (int64_t nc = 0; nc < og.batch * og.channels; ++nc) {
    const double* plane = &x[size_t(nc * H * W)];
    for (int64_t oh = 0; oh < OH; ++oh) {
      for (int64_t ow = 0; ow < OW; ++ow) {
        double acc = kind == PoolKind::kMax ? -INFINITY : 0.0;
        int64_t count = 0;
        for (int64_t kh = 0; kh < window[0]; ++kh) {
          const int64_t ih = oh * strides[0] - padding[0] + kh * dilations[0];
          if (ih < 0 || ih >= H) continue;
          for (int64_t kw = 0; kw < window[1]; ++kw) {
            const int64_t iw = ow * strides[1] - padding[2] + kw * dilations[1];
            if (iw < 0 || iw >= W) continue;
            const double v = plane[ih * W + iw];
            ++count;
            switch (kind) {
              case PoolKind::kAverage:
                acc += v;
                break;
              case PoolKind::kL2:
                acc += v * v;
                break;
              case PoolKind::kMax:
                acc = (v > acc || std::isnan(v)) ? v : acc;
                break;
            }
          }
        }
        // A window wholly inside the padding (possible with ceil rounding) has no cells.
        if (count == 0) acc = 0;
        if (kind == PoolKind::kAverage && count > 0) acc /= double(count);
        if (kind == PoolKind::kL2) acc = std::sqrt(acc);
        result[k++] = acc;
      }
    }
  }
  write_from_nchw(out, result, layout, out_dims);
}

void resample2d(const KernelArgs& args) {
  const Attributes& a = args.attrs();
  const ConstTensorView& input = args.input("input");
  const TensorView& out = args.output();
  const IntList axes = a.get_ints("axes");
  const bool linear = a.get_enum("mode") == "linear";
  const FloatList given_scales = a.get_floats("scales");
  const std::vector<int64_t> in_strides = contiguous_strides(input.shape);
  const size_t a0 = size_t(axes[0]), a1 = size_t(axes[1]);
  const int64_t n = out.size();
  int64_t idx[4] = {0, 0, 0, 0};
  auto advance = [&] {
    for (int d = 3; d >= 0; --d) {
      if (++idx[d] < out.shape[size_t(d)]) break;
      idx[d] = 0;
    }
  };
  auto base_offset = [&] {
    int64_t base = 0;
    for (size_t d = 0; d < 4; ++d) {
      if (d != a0 && d != a1) base += idx[d] * in_strides[d];
    }
    return base;
  };
  if (linear) {
    // ONNX Runtime's float32 arithmetic (resample_linear.h), on the row-major tensors.
    float scales[2];
    for (size_t i = 0; i < 2; ++i) {
      const size_t axis = size_t(axes[i]);
      scales[i] = linear_scale(a.has("sizes"), input.shape[axis], out.shape[axis], given_scales[i]);
    }
    const std::vector<float> x = read_values<float>(input);
    std::vector<float> result(static_cast<size_t>(n));
    const std::vector<int64_t> out_strides = contiguous_strides(out.shape);
    const auto in_layout = resample_layout(input.shape, input.shape, in_strides, -1, 1, axes);
    const auto out_layout = resample_layout(out.shape, out.shape, out_strides, -1, 1, axes);
    resample_linear(x.data(), result.data(), in_layout.layout, out_layout.layout,
                    linear_axis(input.shape[a0], out.shape[a0], scales[0]),
                    linear_axis(input.shape[a1], out.shape[a1], scales[1]), kernel_thread_budget());
    write_values<float>(out, result);
    return;
  }
  // Nearest: floor(src + 0.5) of the half-pixel source coordinate, clamped.
  std::vector<int64_t> nearest[2];
  for (int i = 0; i < 2; ++i) {
    const size_t axis = size_t(axes[size_t(i)]);
    const int64_t in_size = input.shape[axis], out_size = out.shape[axis];
    const double scale =
        a.has("sizes") ? double(out_size) / double(in_size) : given_scales[size_t(i)];
    for (int64_t o = 0; o < out_size; ++o) {
      const double src = (double(o) + 0.5) / scale - 0.5;
      nearest[i].push_back(std::clamp<int64_t>(int64_t(std::floor(src + 0.5)), 0, in_size - 1));
    }
  }
  const std::vector<double> x = read_values<double>(input);
  std::vector<double> result(static_cast<size_t>(n));
  for (int64_t e = 0; e < n; ++e, advance()) {
    result[size_t(e)] = x[size_t(base_offset() + nearest[0][size_t(idx[a0])] * in_strides[a0] +
                                 nearest[1][size_t(idx[a1])] * in_strides[a1])];
  }
  write_values<double>(out, result);
}

}  // namespace

void pool(const KernelArgs& a) {
  switch (a.attrs().op()) {
    case OpKind::kAveragePool2d:
      return pool2d(a, PoolKind::kAverage);
    case OpKind::kL2Pool2d:
      return pool2d(a, PoolKind::kL2);
    case OpKind::kMaxPool2d:
      return pool2d(a, PoolKind::kMax);
    case OpKind::kResample2d:
      return resample2d(a);
    default:
      check_internal(false, "pool kernel got '{}'", a.attrs().schema().name);
  }
}

}  // namespace wnn::kernels
