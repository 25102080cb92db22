// Signal processing: DFT and STFT as matmuls with constant cosine/sine matrices (the transform
// length is known at import), and the window generators and MelWeightMatrix, which are pure
// functions of their (pinned or constant) scalar inputs and fold to constants.
#include <cmath>
#include <numbers>

#include "wnn/onnx/ops/axis_map.h"
#include "wnn/onnx/tensor_data.h"

namespace wnn::onnx::ops {
namespace {

using K = OpKind;
constexpr double kPi = std::numbers::pi;

DataType output_dtype(ConvertContext& c) {
  const int64_t t = c.attr_int("output_datatype", 1);
  auto dt = wnn_dtype_for(int32_t(t));
  if (!dt) c.unsupported("output_datatype {}", t);
  return *dt;
}

// Complex input x [..., L at `axis`, ..., 1 or 2] (real or real/imaginary pairs) transformed
// along `axis` with length n (truncating or zero-padding), giving [..., bins, ..., 2].
OperandId dft(ConvertContext& c, OperandId x, Shape shape, size_t axis, int64_t n, bool inverse,
              bool onesided, std::string name) {
  const size_t r = shape.size();
  const int64_t L = shape[axis], parts = shape[r - 1];
  check(parts == 1 || parts == 2, "{}: the last dimension is {}, expected 1 or 2", c.node().op_type,
        parts);
  const int64_t bins = onesided ? n / 2 + 1 : n;
  std::vector<double> cosm(size_t(bins * L), 0.0), sinm(size_t(bins * L), 0.0);
  const double scale = inverse ? 1.0 / double(n) : 1.0;
  for (int64_t k = 0; k < bins; ++k) {
    for (int64_t t = 0; t < std::min(L, n); ++t) {
      const double a = 2 * kPi * double((k * t) % n) / double(n);
      cosm[size_t(k * L + t)] = std::cos(a) * scale;
      sinm[size_t(k * L + t)] = std::sin(a) * scale;
    }
  }
  Shape part_shape = shape;
  part_shape[r - 1] = 1;
  auto part = [&](int64_t i) {
    if (parts == 1) return x;
    IntList begin(r, 0), sizes = part_shape;
    begin[r - 1] = i;
    return c.op(K::kSlice, {x, RawValue(begin), RawValue(sizes)});
  };
  const OperandId re = part(0);
  // Forward: e^{-i a}, so re' = re cos + im sin, im' = im cos - re sin; inverse flips the sine.
  OperandId yr = matmul_along_axis(c, re, part_shape, axis, bins, cosm);
  OperandId yi = matmul_along_axis(c, re, part_shape, axis, bins, sinm);
  if (!inverse) yi = c.op(K::kNeg, {yi});
  if (parts == 2) {
    const OperandId im = part(1);
    OperandId ic = matmul_along_axis(c, im, part_shape, axis, bins, cosm);
    OperandId is = matmul_along_axis(c, im, part_shape, axis, bins, sinm);
    yr = c.op(inverse ? K::kSub : K::kAdd, {yr, is});
    yi = c.op(K::kAdd, {yi, ic});
  }
  return c.op(K::kConcat, {RawValue(std::vector<OperandId>{yr, yi}), RawValue(int64_t(r - 1))}, {},
              std::move(name));
}

void dft_op(ConvertContext& c) {
  const Shape xs = c.shape(0);
  const size_t r = xs.size();
  int64_t axis = c.opset() < 20 ? c.attr_int("axis", 1) : -2;
  if (c.opset() >= 20 && c.has_input(2)) axis = c.known_ints(2, "axis").at(0);
  if (axis < 0) axis += int64_t(r);
  check(axis >= 0 && axis < int64_t(r) - 1, "DFT: axis {} out of range for rank {}", axis, r);
  int64_t n = xs[size_t(axis)];
  if (c.has_input(1)) n = c.known_ints(1, "dft_length").at(0);
  check(n > 0, "DFT: dft_length {}", n);
  const bool inverse = c.attr_int("inverse", 0) != 0, onesided = c.attr_int("onesided", 0) != 0;
  if (inverse && onesided) c.unsupported("inverse with onesided=1");
  c.set(0, dft(c, c.in(0), xs, size_t(axis), n, inverse, onesided, c.out_name(0)));
}

void stft(ConvertContext& c) {
  const Shape xs = c.shape(0);
  check(xs.size() == 3, "STFT: signal of rank {}, expected [batch, length, 1 or 2]", xs.size());
  const int64_t step = c.known_ints(1, "frame_step").at(0);
  int64_t frame = 0;
  if (c.has_input(3)) {
    frame = c.known_ints(3, "frame_length").at(0);
  } else if (c.has_input(2)) {
    frame = c.shape(2).at(0);
  } else {
    c.unsupported("STFT without window and frame_length");
  }
  check(step > 0 && frame > 0 && frame <= xs[1], "STFT: frame_step {} / frame_length {}", step,
        frame);
  const int64_t frames = (xs[1] - frame) / step + 1;
  std::vector<int64_t> idx;
  for (int64_t f = 0; f < frames; ++f) {
    for (int64_t t = 0; t < frame; ++t) idx.push_back(f * step + t);
  }
  OperandId x = c.op(K::kGather, {c.in(0), c.constant(make_int64_tensor({frames, frame}, idx))},
                     {{"axis", int64_t{1}}});
  if (c.has_input(2)) x = c.op(K::kMul, {x, c.reshape(c.in(2), {frame, 1})});
  const bool onesided = c.attr_int("onesided", 1) != 0;
  c.set(0, dft(c, x, {xs[0], frames, frame, xs[2]}, 2, frame, false, onesided, c.out_name(0)));
}

// Generalized cosine windows: a0 - a1 cos(2 pi i / N) + a2 cos(4 pi i / N).
void cosine_window(ConvertContext& c, double a0, double a1, double a2) {
  const int64_t size = c.known_ints(0, "size").at(0);
  check(size >= 0, "{}: size {}", c.node().op_type, size);
  const bool periodic = c.attr_int("periodic", 1) != 0;
  const double N = double(periodic ? size : size - 1);
  std::vector<double> v(static_cast<size_t>(size));
  for (int64_t i = 0; i < size; ++i) {
    const double t = 2 * kPi * double(i) / N;
    v[size_t(i)] = a0 - a1 * std::cos(t) + a2 * std::cos(2 * t);
  }
  c.set_known(0, make_tensor(output_dtype(c), {size}, v));
}

void mel_weight_matrix(ConvertContext& c) {
  const int64_t mels = c.known_ints(0, "num_mel_bins").at(0);
  const int64_t dft_length = c.known_ints(1, "dft_length").at(0);
  const int64_t rate = c.known_ints(2, "sample_rate").at(0);
  const double lower = c.known_floats(3, "lower_edge_hertz").at(0);
  const double upper = c.known_floats(4, "upper_edge_hertz").at(0);
  check(mels > 0 && dft_length > 0 && rate > 0, "MelWeightMatrix: bins {}, dft_length {}, rate {}",
        mels, dft_length, rate);
  const int64_t spectrum = dft_length / 2 + 1;
  auto to_mel = [](double hz) { return 2595 * std::log10(1 + hz / 700); };
  const double lo = to_mel(lower), step = (to_mel(upper) - lo) / double(mels + 2);
  std::vector<int64_t> bin(size_t(mels + 2));
  for (int64_t i = 0; i < mels + 2; ++i) {
    const double hz = 700 * (std::pow(10.0, (double(i) * step + lo) / 2595) - 1);
    bin[size_t(i)] = int64_t(std::floor(double(dft_length + 1) * hz / double(rate)));
  }
  std::vector<double> m(size_t(spectrum * mels), 0.0);
  auto at = [&](int64_t j, int64_t i) -> double& {
    check(j >= 0 && j < spectrum, "MelWeightMatrix: bin {} outside the spectrum", j);
    return m[size_t(j * mels + i)];
  };
  for (int64_t i = 0; i < mels; ++i) {
    const int64_t l = bin[size_t(i)], ctr = bin[size_t(i + 1)], h = bin[size_t(i + 2)];
    if (ctr == l) {
      at(ctr, i) = 1;
    } else {
      for (int64_t j = l; j <= ctr; ++j) at(j, i) = double(j - l) / double(ctr - l);
    }
    for (int64_t j = ctr; j < h; ++j) at(j, i) = double(h - j) / double(h - ctr);
  }
  c.set_known(0, make_tensor(output_dtype(c), {spectrum, mels}, m));
}

}  // namespace

void register_signal(std::vector<Converter>& t) {
  const auto D = ConvertKind::kDecomposed, F = ConvertKind::kFolded;
  t.push_back({"", "DFT", 17, kMaxOpset, dft_op, D});
  t.push_back({"", "STFT", 17, kMaxOpset, stft, D});
  t.push_back({"", "HannWindow", 17, kMaxOpset,
               [](ConvertContext& c) { cosine_window(c, 0.5, 0.5, 0.0); }, F, true});
  t.push_back({"", "HammingWindow", 17, kMaxOpset,
               [](ConvertContext& c) { cosine_window(c, 25.0 / 46, 21.0 / 46, 0.0); }, F, true});
  t.push_back({"", "BlackmanWindow", 17, kMaxOpset,
               [](ConvertContext& c) { cosine_window(c, 0.42, 0.5, 0.08); }, F, true});
  t.push_back({"", "MelWeightMatrix", 17, kMaxOpset, mel_weight_matrix, F, true});
}

}  // namespace wnn::onnx::ops
