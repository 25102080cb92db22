// Overlap-save FFT convolution of long 1-D filters. The padded input of each channel is cut into
// blocks of B = L - K + 1 outputs, each block's L inputs go through a real FFT, every frequency
// bin multiplies the [in x blocks] spectra by the group's [out x in] filter spectrum (a complex
// GEMM, split real/imaginary so it vectorises over output channels), and an inverse FFT of each
// output block gives B outputs with no wrap-around. WebNN's conv is a correlation, so the
// filter spectrum is conjugated; the 1/L of FFTW's unnormalised inverse is folded into it.
#include "wnn/kernels/conv_fft.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <vector>

#include "wnn/core/error.h"
#include "wnn/core/ops/conv.h"
#include "wnn/kernels/fftw_real.h"
#include "wnn/kernels/float_values.h"
#include "wnn/kernels/kernel_context.h"
#include "wnn/kernels/simd_float32.h"

namespace wnn::kernels {

namespace {

// FFT length L, outputs per block and the number of blocks covering `out_len` outputs. L ~ 2K
// keeps the filter spectra (L / 2 + 1 bins per filter) near twice the filter's size while a
// block still yields about K outputs; a short input takes one block of its padded length.
struct Blocking {
  int64_t length, block, blocks, bins;
};

Blocking blocking(int64_t taps, int64_t out_len) {
  const int64_t padded = out_len + taps - 1;
  const int64_t length = std::min(next_fast_fft_size(2 * taps), next_fast_fft_size(padded));
  const int64_t block = length - taps + 1;
  return {length, block, (out_len + block - 1) / block, length / 2 + 1};
}

// Output channels padded to whole vectors in the spectra and products.
int64_t padded_outputs(int64_t og) { return (og + simd::kLanes - 1) / simd::kLanes * simd::kLanes; }

// The conv seen as 1-D: element strides of (batch, channel, position) in the input and output
// and of (output channel, input channel, tap) in the filter.
struct Conv1d {
  int64_t batch, groups, in_per_group, out_per_group, in_len, out_len, taps, pad_begin;
  int64_t x_n, x_c, x_t, w_o, w_i, w_t, y_n, y_c, y_t;
};

Conv1d conv1d_of(const KernelArgs& args) {
  const Attributes& a = args.attrs();
  const std::string layout = a.get_enum("inputLayout"), filter_layout = a.get_enum("filterLayout");
  const std::span<const int64_t> xs = args.input("input").shape;
  const std::span<const int64_t> ws = args.input("filter").shape;
  const std::span<const int64_t> ys = args.output().shape;
  const auto in = conv_input_geometry(xs, layout);
  const auto f = conv_filter_geometry(ws, filter_layout);
  const auto out = conv_input_geometry(ys, layout);
  const bool along_w = f.height == 1 && in.height == 1;
  const char t = along_w ? 'w' : 'h';
  const auto xl = layout_strides(xs, layout), wl = layout_strides(ws, filter_layout),
             yl = layout_strides(ys, layout);
  const int64_t groups = a.get_int("groups");
  return {in.batch,
          groups,
          f.input_channels,
          f.output_channels / groups,
          along_w ? in.width : in.height,
          along_w ? out.width : out.height,
          along_w ? f.width : f.height,
          a.get_ints("padding")[along_w ? 2 : 0],
          xl.stride_of('n'),
          xl.stride_of('c'),
          xl.stride_of(t),
          wl.stride_of('o'),
          wl.stride_of('i'),
          wl.stride_of(t),
          yl.stride_of('n'),
          yl.stride_of('c'),
          yl.stride_of(t)};
}

// Conjugated, 1/L-scaled filter spectra, [group][bin][in][out] split into real and imaginary.
struct FilterSpectra {
  std::vector<float> re, im;
};

// The spectra of a filter, computed once per constant filter: transforming every (out, in) pair
// costs as much as the conv itself, while a session's constant filter stays at one address. A
// filter that is not a graph constant (kernel_context.h) is transformed on every call: its
// bytes may change in place. The key adds a sample of the values, so a new constant reusing a
// freed one's memory is recomputed.
using SpectraKey = std::tuple<const float*, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                              int64_t, int64_t, uint64_t>;

uint64_t sample_fingerprint(const float* w, int64_t count) {
  uint64_t h = 1469598103934665603ull;
  const int64_t step = std::max<int64_t>(1, count / 4096);
  for (int64_t k = 0; k < count; k += step) {
    h = (h ^ std::bit_cast<uint32_t>(w[k])) * 1099511628211ull;
  }
  return (h ^ std::bit_cast<uint32_t>(w[count - 1])) * 1099511628211ull;
}

FilterSpectra compute_spectra(const Conv1d& c, const float* w, const Blocking& b, int threads) {
  const int64_t ig = c.in_per_group, og = c.out_per_group, ogp = padded_outputs(og);
  // Tiles of one vector of output channels for one input channel: their spectra are written as
  // runs of kLanes floats (one output channel at a time would write one float every
  // ig * ogp floats, all in one cache set).
  constexpr int64_t kTile = simd::kLanes;
  const int64_t tiles_per_row = ogp / kTile, tiles = c.groups * ig * tiles_per_row;
  const size_t size = size_t(c.groups * b.bins * ig * ogp);
  FilterSpectra s{std::vector<float>(size), std::vector<float>(size)};
  const RealFftPlans& plans = real_fft_plans(b.length);
  const float scale = 1.0f / float(b.length);
#pragma omp parallel num_threads(threads)
  {
    RealBuffer r = real_buffer(b.length);
    ComplexBuffer f = complex_buffer(b.bins);
    std::vector<float> tile_re(size_t(b.bins * kTile)), tile_im(tile_re.size());
#pragma omp for schedule(static)
    for (int64_t t = 0; t < tiles; ++t) {
      const int64_t g = t / (ig * tiles_per_row), i = t / tiles_per_row % ig;
      const int64_t o0 = t % tiles_per_row * kTile;
      std::fill(tile_re.begin(), tile_re.end(), 0.0f);  // padding channels stay zero
      std::fill(tile_im.begin(), tile_im.end(), 0.0f);
      for (int64_t o = o0; o < std::min(o0 + kTile, og); ++o) {
        std::fill(r.get(), r.get() + b.length, 0.0f);
        const float* wo = w + (g * og + o) * c.w_o + i * c.w_i;
        for (int64_t k = 0; k < c.taps; ++k) r.get()[k] = wo[k * c.w_t] * scale;
        fftwf_execute_dft_r2c(plans.forward, r.get(), f.get());
        for (int64_t bin = 0; bin < b.bins; ++bin) {
          tile_re[size_t(bin * kTile + o - o0)] = f.get()[bin][0];
          tile_im[size_t(bin * kTile + o - o0)] = -f.get()[bin][1];
        }
      }
      for (int64_t bin = 0; bin < b.bins; ++bin) {
        const size_t at = size_t(((g * b.bins + bin) * ig + i) * ogp + o0);
        std::copy_n(&tile_re[size_t(bin * kTile)], kTile, &s.re[at]);
        std::copy_n(&tile_im[size_t(bin * kTile)], kTile, &s.im[at]);
      }
    }
  }
  return s;
}

std::shared_ptr<const FilterSpectra> filter_spectra(const Conv1d& c, const float* w,
                                                    const Blocking& b, int threads, bool constant) {
  if (!constant) return std::make_shared<const FilterSpectra>(compute_spectra(c, w, b, threads));
  // Spectra kept at most: a few large models' worth, dropped together when exceeded.
  constexpr size_t kMaxCachedFloats = size_t(1) << 28;
  static std::mutex mutex;
  static std::map<SpectraKey, std::shared_ptr<const FilterSpectra>> cache;
  static size_t cached_floats = 0;
  const int64_t count = c.groups * c.out_per_group * c.in_per_group * c.taps;
  const SpectraKey key{
      w,     c.groups, c.out_per_group, c.in_per_group, c.taps,
      c.w_o, c.w_i,    c.w_t,           b.length,       sample_fingerprint(w, count)};
  std::lock_guard lock(mutex);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  auto s = std::make_shared<const FilterSpectra>(compute_spectra(c, w, b, threads));
  if (cached_floats + 2 * s->re.size() > kMaxCachedFloats) {
    cache.clear();
    cached_floats = 0;
  }
  cache.emplace(key, s);
  cached_floats += 2 * s->re.size();
  return s;
}

// y[b][o] = sum_i w[i][o] * x[b][i] for NB blocks of one bin and `width` output channels (rows
// of w `ogp` apart, of y `width` apart), complex in split form: a vector of output channels at a
// time, its NB accumulators held in registers over all input channels.
template <int NB>
WNN_SIMD_INLINE void bin_product(const float* wr, const float* wi, const float* xr, const float* xi,
                                 float* yr, float* yi, int64_t ig, int64_t ogp, int64_t width) {
  using simd::F32x16;
  for (int64_t o = 0; o < width; o += simd::kLanes) {
    F32x16 ar[NB], ai[NB];
    for (int b = 0; b < NB; ++b) ar[b] = ai[b] = F32x16{};
    for (int64_t i = 0; i < ig; ++i) {
      const F32x16 cr = simd::load(wr + i * ogp + o), ci = simd::load(wi + i * ogp + o);
      for (int b = 0; b < NB; ++b) {
        const F32x16 pr = simd::splat(xr[b * ig + i]), pi = simd::splat(xi[b * ig + i]);
        ar[b] += cr * pr - ci * pi;
        ai[b] += cr * pi + ci * pr;
      }
    }
    for (int b = 0; b < NB; ++b) {
      simd::store(yr + b * width + o, ar[b]);
      simd::store(yi + b * width + o, ai[b]);
    }
  }
}

// Every bin's product for `width` output channels: w is [bin][in][ogp] (from the first of those
// channels), x [bin][block][in], y [bin][block][width].
WNN_SIMD_CLONES void multiply_spectra(const float* wr, const float* wi, const float* xr,
                                      const float* xi, float* yr, float* yi, int64_t bins,
                                      int64_t blocks, int64_t ig, int64_t ogp, int64_t width) {
  for (int64_t bin = 0; bin < bins; ++bin) {
    const float* wrb = wr + bin * ig * ogp;
    const float* wib = wi + bin * ig * ogp;
    for (int64_t blk = 0; blk < blocks;) {
      const int64_t x_at = (bin * blocks + blk) * ig, y_at = (bin * blocks + blk) * width;
      const float *pxr = xr + x_at, *pxi = xi + x_at;
      float *pyr = yr + y_at, *pyi = yi + y_at;
      switch (std::min<int64_t>(blocks - blk, 4)) {
        case 4:
          bin_product<4>(wrb, wib, pxr, pxi, pyr, pyi, ig, ogp, width);
          blk += 4;
          break;
        case 3:
          bin_product<3>(wrb, wib, pxr, pxi, pyr, pyi, ig, ogp, width);
          blk += 3;
          break;
        case 2:
          bin_product<2>(wrb, wib, pxr, pxi, pyr, pyi, ig, ogp, width);
          blk += 2;
          break;
        default:
          bin_product<1>(wrb, wib, pxr, pxi, pyr, pyi, ig, ogp, width);
          blk += 1;
      }
    }
  }
}

}  // namespace

int64_t fft_conv_taps(const FftConvShape& s) {
  if (s.dtype != DataType::kFloat32 || s.input.size() != 4 || s.filter.size() != 4) return 0;
  if (s.strides != IntList{1, 1} || s.dilations != IntList{1, 1}) return 0;
  const auto in = conv_input_geometry(s.input, s.input_layout);
  const auto f = conv_filter_geometry(s.filter, s.filter_layout);
  int64_t taps = 0;
  if (f.height == 1 && in.height == 1 && s.padding[0] == 0 && s.padding[1] == 0) {
    taps = f.width;
  } else if (f.width == 1 && in.width == 1 && s.padding[2] == 0 && s.padding[3] == 0) {
    taps = f.height;
  }
  // Depthwise and thinly grouped convs stay direct: their products are too small for the
  // transforms to pay off (measured: docs/delegates.md).
  const int64_t in_per_group = f.input_channels, out_per_group = f.output_channels / s.groups;
  if (in_per_group < kFftConvMinChannels || out_per_group < kFftConvMinChannels) return 0;
  return taps >= kFftConvMinTaps ? taps : 0;
}

int64_t fft_conv_taps(const Graph& graph, const Node& node) {
  if (node.op() != OpKind::kConv2d) return 0;
  const Attributes& a = node.attrs;
  const OperandId input = *a.get_operand("input"), filter = *a.get_operand("filter");
  return fft_conv_taps({graph.desc(input).dtype, graph.desc(input).shape, graph.desc(filter).shape,
                        a.get_int("groups"), a.get_enum("inputLayout"), a.get_enum("filterLayout"),
                        a.get_ints("padding"), a.get_ints("strides"), a.get_ints("dilations")});
}

int64_t fft_conv_taps(const KernelArgs& args) {
  const Attributes& a = args.attrs();
  const ConstTensorView& input = args.input("input");
  return fft_conv_taps({input.dtype, input.shape, args.input("filter").shape, a.get_int("groups"),
                        a.get_enum("inputLayout"), a.get_enum("filterLayout"),
                        a.get_ints("padding"), a.get_ints("strides"), a.get_ints("dilations")});
}

std::optional<std::string> faster_on_reference(const Graph& graph, const Node& node) {
  const int64_t taps = fft_conv_taps(graph, node);
  if (taps == 0) return std::nullopt;
  return fmt::format(
      "a long 1-D filter ({} taps): the FFT convolution of the reference kernels is faster", taps);
}

namespace {

// What one thread needs: FFTW-aligned rows and the product spectra of one output chunk.
// Input channels transformed together: their spectra are written as runs of this many floats
// (one channel at a time would write one float every ig floats).
constexpr int64_t kInputTile = 16;

// What one thread needs: FFTW-aligned rows, one input tile's spectra and the product spectra of
// one output chunk.
struct Scratch {
  RealBuffer r;
  ComplexBuffer f;
  std::vector<float> tr, ti, yr, yi;
};

struct FftConvRun {
  Conv1d c;
  Blocking b;
  const float *x, *bias;
  float* y;
  const FilterSpectra* spectra;
  const RealFftPlans* plans;
  int64_t ogp, width;  // padded outputs per group, output channels per chunk

  Scratch scratch() const {
    const size_t tile = size_t(b.bins * b.blocks * kInputTile),
                 size = size_t(b.bins * b.blocks * width);
    return {real_buffer(b.length),    complex_buffer(b.bins),   std::vector<float>(tile),
            std::vector<float>(tile), std::vector<float>(size), std::vector<float>(size)};
  }

  // Input channels [i0, i0 + kInputTile) of (n, g) into the group's input spectra xr/xi,
  // [bin][block][in].
  void forward(int64_t n, int64_t g, int64_t i0, float* xr, float* xi, Scratch& s) const {
    const int64_t ig = c.in_per_group, count = std::min(kInputTile, ig - i0);
    float* row = s.r.get();
    for (int64_t t = 0; t < count; ++t) {
      const float* xc = x + n * c.x_n + (g * ig + i0 + t) * c.x_c;
      for (int64_t blk = 0; blk < b.blocks; ++blk) {
        // Block blk's first input is padded position blk * B, input position start.
        const int64_t start = blk * b.block - c.pad_begin;
        const int64_t j0 = std::clamp<int64_t>(-start, 0, b.length);
        const int64_t j1 = std::clamp<int64_t>(c.in_len - start, j0, b.length);
        std::fill(row, row + j0, 0.0f);
        for (int64_t j = j0; j < j1; ++j) row[j] = xc[(start + j) * c.x_t];
        std::fill(row + j1, row + b.length, 0.0f);
        fftwf_execute_dft_r2c(plans->forward, row, s.f.get());
        for (int64_t bin = 0; bin < b.bins; ++bin) {
          s.tr[size_t((bin * b.blocks + blk) * kInputTile + t)] = s.f.get()[bin][0];
          s.ti[size_t((bin * b.blocks + blk) * kInputTile + t)] = s.f.get()[bin][1];
        }
      }
    }
    for (int64_t k = 0; k < b.bins * b.blocks; ++k) {
      std::copy_n(&s.tr[size_t(k * kInputTile)], count, xr + k * ig + i0);
      std::copy_n(&s.ti[size_t(k * kInputTile)], count, xi + k * ig + i0);
    }
  }

  // Output channels from o0 (one chunk) of (n, g), from the group's input spectra.
  void outputs(int64_t n, int64_t g, int64_t o0, const float* xr, const float* xi,
               Scratch& s) const {
    const int64_t ig = c.in_per_group, og = c.out_per_group, cw = std::min(width, ogp - o0);
    const size_t w_at = size_t(g * b.bins * ig * ogp + o0);
    multiply_spectra(spectra->re.data() + w_at, spectra->im.data() + w_at, xr, xi, s.yr.data(),
                     s.yi.data(), b.bins, b.blocks, ig, ogp, cw);
    for (int64_t o = o0; o < std::min(o0 + cw, og); ++o) {
      const int64_t oc = g * og + o;
      const float add = bias ? bias[oc] : 0.0f;
      float* yc = y + n * c.y_n + oc * c.y_c;
      for (int64_t blk = 0; blk < b.blocks; ++blk) {
        for (int64_t bin = 0; bin < b.bins; ++bin) {
          s.f.get()[bin][0] = s.yr[size_t((bin * b.blocks + blk) * cw + o - o0)];
          s.f.get()[bin][1] = s.yi[size_t((bin * b.blocks + blk) * cw + o - o0)];
        }
        fftwf_execute_dft_c2r(plans->inverse, s.f.get(), s.r.get());
        const int64_t first = blk * b.block, count = std::min(b.block, c.out_len - first);
        for (int64_t j = 0; j < count; ++j) yc[(first + j) * c.y_t] = s.r.get()[j] + add;
      }
    }
  }
};

}  // namespace

void conv2d_fft(const KernelArgs& args) {
  const Conv1d c = conv1d_of(args);
  if (c.batch == 0) return;
  const Blocking b = blocking(c.taps, c.out_len);
  const ConstTensorView* bias = args.optional_input("bias");
  const int64_t budget = kernel_thread_budget(), pairs = c.batch * c.groups;
  const int64_t ig = c.in_per_group, ogp = padded_outputs(c.out_per_group);
  // With (batch, group) pairs for every thread, each thread takes whole pairs and keeps their
  // input spectra in its own cache; with fewer, the threads share each pair's input transforms,
  // then its output chunks (small enough that a one-group conv still splits).
  const bool whole_pairs = budget == 1 || pairs >= 2 * budget;
  const int64_t width = whole_pairs ? ogp : std::min<int64_t>(ogp, 2 * simd::kLanes);
  const int64_t chunks = (ogp + width - 1) / width;
  const int64_t in_tiles = (ig + kInputTile - 1) / kInputTile;
  const int threads =
      int(std::clamp<int64_t>(budget, 1, whole_pairs ? pairs : std::max(in_tiles, chunks)));
  constexpr size_t kFilterInput = 1;  // conv2d(input, filter, options)
  const auto spectra = filter_spectra(c, args.input("filter").as<float>(), b, int(budget),
                                      kernel_input_is_constant(kFilterInput));
  const FftConvRun run{c,
                       b,
                       args.input("input").as<float>(),
                       bias ? bias->as<float>() : nullptr,
                       args.output().as<float>(),
                       spectra.get(),
                       &real_fft_plans(b.length),
                       ogp,
                       width};
  const size_t spectra_size = size_t(b.bins * b.blocks * ig);
  std::vector<float> shared_r(whole_pairs ? 0 : spectra_size), shared_i(shared_r.size());
#pragma omp parallel num_threads(threads)
  {
    Scratch s = run.scratch();
    if (whole_pairs) {
      std::vector<float> xr(spectra_size), xi(spectra_size);
#pragma omp for schedule(dynamic, 1)
      for (int64_t pair = 0; pair < pairs; ++pair) {
        const int64_t n = pair / c.groups, g = pair % c.groups;
        for (int64_t i0 = 0; i0 < ig; i0 += kInputTile) {
          run.forward(n, g, i0, xr.data(), xi.data(), s);
        }
        for (int64_t k = 0; k < chunks; ++k) run.outputs(n, g, k * width, xr.data(), xi.data(), s);
      }
    } else {
      for (int64_t pair = 0; pair < pairs; ++pair) {
        const int64_t n = pair / c.groups, g = pair % c.groups;
#pragma omp for schedule(static)
        for (int64_t i0 = 0; i0 < ig; i0 += kInputTile) {
          run.forward(n, g, i0, shared_r.data(), shared_i.data(), s);
        }
#pragma omp for schedule(dynamic, 1)
        for (int64_t k = 0; k < chunks; ++k) {
          run.outputs(n, g, k * width, shared_r.data(), shared_i.data(), s);
        }
      }
    }
  }
}

}  // namespace wnn::kernels
