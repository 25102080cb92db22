// batchNormalization, instanceNormalization and layerNormalization. Statistics are computed in
// double with two passes (mean, then mean squared deviation), which keeps the variance accurate
// when the mean is large compared with the spread.
#include <algorithm>
#include <cmath>

#include "wnn/core/error.h"
#include "wnn/kernels/float_values.h"
#include "wnn/kernels/kernel.h"

namespace wnn::kernels {

namespace {

void batch_normalization(const KernelArgs& args) {
  const Attributes& a = args.attrs();
  const ConstTensorView& input = args.input("input");
  const std::vector<double> x = read_values<double>(input);
  const std::vector<double> mean = read_values<double>(args.input("mean"));
  const std::vector<double> variance = read_values<double>(args.input("variance"));
  const std::vector<double> scale = read_optional_values<double>(args.optional_input("scale"));
  const std::vector<double> bias = read_optional_values<double>(args.optional_input("bias"));
  const double epsilon = a.get_float("epsilon");
  const size_t axis = size_t(a.get_int("axis"));
  const int64_t channels = input.shape[axis];
  int64_t inner = 1;
  for (size_t d = axis + 1; d < input.shape.size(); ++d) inner *= input.shape[d];

  std::vector<double> y(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const size_t c = size_t((int64_t(i) / inner) % channels);
    double v = (x[i] - mean[c]) / std::sqrt(variance[c] + epsilon);
    if (!scale.empty()) v *= scale[c];
    if (!bias.empty()) v += bias[c];
    y[i] = v;
  }
  write_values<double>(args.output(), y);
}

// Normalises x[offsets[j] + base] over j for one group; scale/bias index by j.
void normalize_group(const std::vector<double>& x, std::vector<double>& y, int64_t base,
                     const std::vector<int64_t>& offsets, const std::vector<double>& scale,
                     const std::vector<double>& bias, double epsilon, bool per_channel,
                     size_t channel) {
  double mean = 0;
  for (int64_t off : offsets) mean += x[size_t(base + off)];
  mean /= double(offsets.size());
  double var = 0;
  for (int64_t off : offsets) {
    const double d = x[size_t(base + off)] - mean;
    var += d * d;
  }
  var /= double(offsets.size());
  const double inv = 1.0 / std::sqrt(var + epsilon);
  for (size_t j = 0; j < offsets.size(); ++j) {
    const size_t p = per_channel ? channel : j;
    double v = (x[size_t(base + offsets[j])] - mean) * inv;
    if (!scale.empty()) v *= scale[p];
    if (!bias.empty()) v += bias[p];
    y[size_t(base + offsets[j])] = v;
  }
}

// Offsets (row-major in `shape`) of every index that varies only along `axes`, in the order
// the axes are listed, so the j-th offset matches element j of a tensor shaped like those axes.
std::vector<int64_t> offsets_along(std::span<const int64_t> shape, const IntList& axes) {
  const std::vector<int64_t> strides = contiguous_strides(shape);
  std::vector<int64_t> offsets = {0};
  for (int64_t axis : axes) {
    std::vector<int64_t> next;
    for (int64_t off : offsets) {
      for (int64_t i = 0; i < shape[size_t(axis)]; ++i) {
        next.push_back(off + i * strides[size_t(axis)]);
      }
    }
    offsets = std::move(next);
  }
  return offsets;
}

void instance_normalization(const KernelArgs& args) {
  const Attributes& a = args.attrs();
  const ConstTensorView& input = args.input("input");
  const std::vector<double> x = read_values<double>(input);
  const std::vector<double> scale = read_optional_values<double>(args.optional_input("scale"));
  const std::vector<double> bias = read_optional_values<double>(args.optional_input("bias"));
  const double epsilon = a.get_float("epsilon");
  const bool nhwc = a.get_enum("layout") == "nhwc";
  const size_t channel_axis = nhwc ? 3 : 1;
  const IntList spatial = nhwc ? IntList{1, 2} : IntList{2, 3};
  const std::vector<int64_t> offsets = offsets_along(input.shape, spatial);
  const std::vector<int64_t> strides = contiguous_strides(input.shape);
  std::vector<double> y(x.size());
  for (int64_t n = 0; n < input.shape[0]; ++n) {
    for (int64_t c = 0; c < input.shape[channel_axis]; ++c) {
      const int64_t base = n * strides[0] + c * strides[channel_axis];
      normalize_group(x, y, base, offsets, scale, bias, epsilon, true, size_t(c));
    }
  }
  write_values<double>(args.output(), y);
}

void layer_normalization(const KernelArgs& args) {
  const Attributes& a = args.attrs();
  const ConstTensorView& input = args.input("input");
  const size_t rank = input.shape.size();
  IntList axes;
  if (a.has("axes")) {
    axes = a.get_ints("axes");
  } else {
    for (size_t i = 1; i < rank; ++i) axes.push_back(int64_t(i));
  }
  const std::vector<double> x = read_values<double>(input);
  const std::vector<double> scale = read_optional_values<double>(args.optional_input("scale"));
  const std::vector<double> bias = read_optional_values<double>(args.optional_input("bias"));
  const double epsilon = a.get_float("epsilon");
  IntList kept;
  for (size_t d = 0; d < rank; ++d) {
    if (std::find(axes.begin(), axes.end(), int64_t(d)) == axes.end()) kept.push_back(int64_t(d));
  }
  const std::vector<int64_t> offsets = offsets_along(input.shape, axes);
  const std::vector<int64_t> bases = offsets_along(input.shape, kept);
  std::vector<double> y(x.size());
  for (int64_t base : bases) {
    normalize_group(x, y, base, offsets, scale, bias, epsilon, false, 0);
  }
  write_values<double>(args.output(), y);
}

}  // namespace

void normalization(const KernelArgs& a) {
  switch (a.attrs().op()) {
    case OpKind::kBatchNormalization:
      return batch_normalization(a);
    case OpKind::kInstanceNormalization:
      return instance_normalization(a);
    case OpKind::kLayerNormalization:
      return layer_normalization(a);
    default:
      check_internal(false, "normalization kernel got '{}'", a.attrs().schema().name);
  }
}

}  // namespace wnn::kernels
