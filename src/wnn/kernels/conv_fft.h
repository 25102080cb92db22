// conv2d with a long 1-D filter through the FFT (FFTW, single precision). A direct conv costs
// K multiply-adds per output per input channel; overlap-save with FFT length L ~ 2K costs a few
// complex multiply-adds per output per input channel instead, so a filter of 128 taps (the
// positional conv embedding of wav2vec2/HuBERT) runs several times faster than oneDNN's direct
// kernel. The conv2d reference kernel takes this path whenever fft_conv_applies() holds, and the
// delegates decline those convs so they stay here.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "wnn/core/graph.h"
#include "wnn/kernels/kernel.h"

namespace wnn::kernels {

// Filters shorter than this, or groups with fewer input or output channels, always run the
// direct conv (measured: docs/delegates.md).
inline constexpr int64_t kFftConvMinTaps = 32;
inline constexpr int64_t kFftConvMinChannels = 16;

// The operand shapes and options fft_conv_applies() looks at.
struct FftConvShape {
  DataType dtype;
  std::span<const int64_t> input, filter;
  int64_t groups;
  std::string input_layout, filter_layout;
  IntList padding, strides, dilations;
};

// The filter's taps along its long dimension when the conv is float32, stride 1, dilation 1,
// 1-D (one spatial dim 1 on both input and filter, unpadded), long enough and with groups of
// enough channels for the FFT to win; else 0.
int64_t fft_conv_taps(const FftConvShape& s);
// fft_conv_taps() of a conv2d node (0 for any other op), and of a conv2d kernel call.
int64_t fft_conv_taps(const Graph& graph, const Node& node);
int64_t fft_conv_taps(const KernelArgs& args);
inline bool fft_conv_applies(const Graph& graph, const Node& node) {
  return fft_conv_taps(graph, node) > 0;
}

// The conv2d of `args` through the FFT; the caller checked fft_conv_taps() > 0.
void conv2d_fft(const KernelArgs& args);

}  // namespace wnn::kernels
