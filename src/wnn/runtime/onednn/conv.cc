// conv2d and convTranspose2d on oneDNN's convolution and deconvolution primitives. Filters
// must be constants: they are read in any WebNN layout through a strided view and reordered
// once, at compile time, into the layout the primitive picks (format_tag::any).
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <tuple>

#include "wnn/core/error.h"
#include "wnn/core/ops/conv.h"
#include "wnn/runtime/onednn/epilogue.h"

namespace wnn::runtime::onednn {

namespace {

using dnnl::memory;
using tag = memory::format_tag;

// NHWC data seen with oneDNN's logical NCHW dims, and back.
const std::vector<int> kNhwcToNchw = {0, 2, 3, 1};
const std::vector<int> kNchwToNhwc = {0, 3, 1, 2};

// Element strides of the letters o, i, h, w in a row-major filter of `layout`.
struct FilterStrides {
  int64_t o, i, h, w;
};
FilterStrides filter_strides(std::span<const int64_t> shape, std::string_view layout) {
  const auto s = contiguous_strides(shape);
  FilterStrides f{};
  for (size_t k = 0; k < 4; ++k) {
    switch (layout[k]) {
      case 'o':
        f.o = s[k];
        break;
      case 'i':
        f.i = s[k];
        break;
      case 'h':
        f.h = s[k];
        break;
      case 'w':
        f.w = s[k];
        break;
    }
  }
  return f;
}

const memory::dims kNoDilation = {0, 0};

// Dilation d of a conv as d * d undilated convs over its subsampled images (space-to-batch):
// `blocked` is [N, C, H, W] with one inner block of channels. As the 6-D [d, d, N, C, H/d, W/d]
// with `batched` false: element (ry, rx, n, c, y, x) is pixel (y d + ry, x d + rx). With
// `batched`, `blocked` holds the images as one batch [d d N, C, h, w] (image (ry, rx) of n at
// (ry d + rx) N + n), seen with the same 6-D dims. A reorder between the two gathers the
// images, the reverse one scatters them back.
memory::desc space_to_batch_view(const memory::desc& blocked, int64_t d, bool batched) {
  const dnnl_memory_desc_t& m = blocked.data;
  const auto& bl = m.format_desc.blocking;
  check_internal(
      m.ndims == 4 && m.format_kind == dnnl_blocked && bl.inner_nblks == 1 && bl.inner_idxs[0] == 1,
      "space_to_batch_view of a desc not blocked on channels");
  const int64_t* s = bl.strides;
  const int64_t n = batched ? m.dims[0] / (d * d) : m.dims[0];
  const int64_t h = batched ? m.dims[2] : m.dims[2] / d, w = batched ? m.dims[3] : m.dims[3] / d;
  const int64_t dims[6] = {d, d, n, m.dims[1], h, w};
  const int64_t padded[6] = {d, d, n, m.padded_dims[1], h, w};
  const int64_t batched_strides[6] = {d * n * s[0], n * s[0], s[0], s[1], s[2], s[3]};
  const int64_t image_strides[6] = {s[2], s[3], s[0], s[1], s[2] * d, s[3] * d};
  dnnl_memory_desc_t v = m;
  v.ndims = 6;
  for (int k = 0; k < 6; ++k) {
    v.dims[k] = dims[k];
    v.padded_dims[k] = padded[k];
    v.padded_offsets[k] = 0;
    v.format_desc.blocking.strides[k] = batched ? batched_strides[k] : image_strides[k];
  }
  v.format_desc.blocking.inner_idxs[0] = 3;
  return memory::desc(v);
}

// Inputs narrower than this are not read blocked (see define_conv).
constexpr int64_t kMinBlockedChannels = 8;

// The 1x1 filter (viewed as [O, I, 1, 1] by `wview`) times the channel vector `scale` on
// every run, then in the primitive's layout `want` (channel_scale.h). The constant filter is
// made row-major once, so the run-time multiply is oneDNN's jit binary kernel.
memory scaled_filter(RegionBuilder& b, OperandId filter, const memory::desc& wview, OperandId scale,
                     const memory::desc& want) {
  const memory::dims dims = wview.dims();
  const memory::desc plain(dims, memory::data_type::f32, tag::abcd);
  const memory w = b.convert(b.view(filter, wview), plain, true);
  // [1, C, 1, 1] and [1, 1, 1, C] hold the same bytes: C contiguous values.
  const memory s =
      b.view(scale, memory::desc({1, dims[1], 1, 1}, memory::data_type::f32, tag::abcd));
  const memory scaled = b.allocate(plain);
  dnnl::binary::desc d(dnnl::algorithm::binary_mul, plain, s.get_desc(), plain);
  b.add_step(dnnl::binary(dnnl::binary::primitive_desc(d, b.engine())),
             {{DNNL_ARG_SRC_0, w}, {DNNL_ARG_SRC_1, s}, {DNNL_ARG_DST, scaled}}, "filter scale");
  return b.convert(scaled, want, false);
}

Support conv_supports(const Graph& g, const Node& n) {
  if (auto s = require_f32(g, n); !s.ok) return s;
  const OperandId filter = *n.attrs.get_operand("filter");
  if (!reasons::is_constant(g, filter))
    return Support::no(reasons::not_constant(g, filter, "filter"));
  if (n.op() == OpKind::kConvTranspose2d) {
    // oneDNN takes the output size and derives the end padding; a negative one it rejects.
    const auto& a = n.attrs;
    const auto in =
        conv_input_geometry(g.desc(*a.get_operand("input")).shape, a.get_enum("inputLayout"));
    const auto f = conv_filter_geometry(g.desc(filter).shape, a.get_enum("filterLayout"));
    const auto out = conv_input_geometry(g.desc(n.outputs[0]).shape, a.get_enum("inputLayout"));
    const auto pad = a.get_ints("padding"), st = a.get_ints("strides"),
               dil = a.get_ints("dilations");
    const int64_t eh = (f.height - 1) * dil[0] + 1, ew = (f.width - 1) * dil[1] + 1;
    const int64_t pr_h = (in.height - 1) * st[0] + eh - pad[0] - out.height;
    const int64_t pr_w = (in.width - 1) * st[1] + ew - pad[2] - out.width;
    if (pr_h < 0 || pr_w < 0) {
      return Support::no(fmt::format(
          "output size needs negative end padding ({}, {}), which oneDNN's deconvolution rejects",
          pr_h, pr_w));
    }
  }
  return Support::yes();
}

void define_conv(RegionBuilder& b, const Node& n) {
  const Graph& g = b.graph();
  if (const IntegerConv* ic = b.integer_conv(uint32_t(&n - g.nodes().data())))
    return define_integer_conv(b, n, *ic);
  const auto& a = n.attrs;
  const bool transposed = n.op() == OpKind::kConvTranspose2d;
  const OperandId filter = *a.get_operand("filter");
  const auto bias = a.get_operand("bias");
  const OperandId output = n.outputs[0];  // shape only: the epilogue's output is written
  // A per-channel scale folded into the filter: the conv reads the mul's unscaled input.
  const ChannelScale* scale = b.channel_scale(uint32_t(&n - g.nodes().data()));
  const OperandId input = scale ? scale->activation : *a.get_operand("input");
  const bool nhwc = a.get_enum("inputLayout") == "nhwc";
  const auto in = conv_input_geometry(g.desc(input).shape, a.get_enum("inputLayout"));
  const auto out = conv_input_geometry(g.desc(output).shape, a.get_enum("inputLayout"));
  const auto f = conv_filter_geometry(g.desc(filter).shape, a.get_enum("filterLayout"));
  const int64_t groups = a.get_int("groups");
  const auto pad = a.get_ints("padding"), st = a.get_ints("strides"), dil = a.get_ints("dilations");

  // The filter as oneDNN's [G,] O, I, H, W over the constant's own bytes.
  const FilterStrides fs = filter_strides(g.desc(filter).shape, a.get_enum("filterLayout"));
  memory::dims wdims, wstrides;
  if (!transposed) {
    const int64_t og = f.output_channels / groups;
    if (groups == 1) {
      wdims = {f.output_channels, f.input_channels, f.height, f.width};
      wstrides = {fs.o, fs.i, fs.h, fs.w};
    } else {
      wdims = {groups, og, f.input_channels, f.height, f.width};
      wstrides = {og * fs.o, fs.o, fs.i, fs.h, fs.w};
    }
  } else {
    // Transposed filters hold all input channels and the output channels of one group.
    const int64_t ig = f.input_channels / groups;
    if (groups == 1) {
      wdims = {f.output_channels, f.input_channels, f.height, f.width};
      wstrides = {fs.o, fs.i, fs.h, fs.w};
    } else {
      wdims = {groups, f.output_channels, ig, f.height, f.width};
      wstrides = {ig * fs.i, fs.o, fs.i, fs.h, fs.w};
    }
  }
  const auto f32 = memory::data_type::f32;
  const memory::desc wview(wdims, f32, wstrides);
  const memory::dims src_dims = {in.batch, in.channels, in.height, in.width};
  const memory::dims dst_dims = {out.batch, out.channels, out.height, out.width};
  const memory::desc src_any(src_dims, f32, tag::any);
  const memory::desc dst_any(dst_dims, f32, tag::any);
  const memory::desc w_any(wdims, f32, tag::any);
  // In a blocked region activations are blocked on channels; a narrow input (an image's 3
  // channels) stays as the primitive picks, since blocked kernels need whole channel blocks
  // of input (oneDNN ran the first conv of mobilenet_v2 on its reference kernel: 0.7 s).
  const tag blocked_tag = blocked_activation_tag();
  auto blocked_src = [&](const memory::dims& dims) {
    return memory::desc(dims, f32, in.channels >= kMinBlockedChannels ? blocked_tag : tag::any);
  };
  const memory::desc bias_desc = bias ? memory::desc({out.channels}, f32, tag::a) : memory::desc();
  const memory::dims strides = {st[0], st[1]}, dilates = {dil[0] - 1, dil[1] - 1};
  const memory::dims pad_l = {pad[0], pad[2]};

  dnnl::primitive prim;
  memory::desc src_desc, w_desc, dst_desc;
  // Activations and adds after the conv run as its post-ops, in the logical NCHW dims.
  ToLogical to_logical;
  if (nhwc) to_logical = [](const memory::desc& d) { return d.permute_axes(kNhwcToNchw); };
  Epilogue epilogue;
  if (!transposed) {
    const memory::dims pad_r = {pad[1], pad[3]};
    auto make = [&](const memory::desc& src, const memory::desc& dst,
                    dnnl::algorithm algorithm = dnnl::algorithm::convolution_direct,
                    const memory::dims* undilated_padding = nullptr) {
      // undilated_padding: the same conv with dilation 1 and that padding (space_to_batch).
      const memory::dims& dl = undilated_padding ? kNoDilation : dilates;
      const memory::dims& pl = undilated_padding ? *undilated_padding : pad_l;
      const memory::dims& pr = undilated_padding ? *undilated_padding : pad_r;
      dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference, algorithm, src, w_any,
                                        bias_desc, dst, strides, dl, pl, pr);
      // Residuals are read in dst's layout (one reorder for a row-major one, none for another
      // blocked conv's output): a binary post-op over mixed layouts drops oneDNN off its jit
      // kernels.
      ToLogical residual_as;
      if (dst != dst_any) {
        residual_as = [&, dst](const memory::desc&) {
          return nhwc ? dst.permute_axes(kNchwToNhwc) : dst;
        };
      }
      return with_epilogue(
          b, n, to_logical, {},
          [&](const dnnl::primitive_attr& attr) {
            return dnnl::convolution_forward::primitive_desc(d, attr, b.engine());
          },
          residual_as, algorithm == dnnl::algorithm::convolution_winograd);
    };
    const memory::desc blocked_dst(dst_dims, f32, blocked_tag);
    if (b.conv_layout() == ConvLayout::kBlocked && !nhwc && !scale &&
        space_to_batch_candidate(g, n)) {
      // d * d undilated convs over the subsampled images, as one batch, on Winograd.
      const int64_t dl = dil[0];
      const memory::dims sub_src = {in.batch * dl * dl, in.channels, in.height / dl, in.width / dl};
      const memory::dims sub_dst = {out.batch * dl * dl, out.channels, out.height / dl,
                                    out.width / dl};
      const memory::dims one = {1, 1};
      try {
        auto [pd, e] =
            make(memory::desc(sub_src, f32, blocked_tag), memory::desc(sub_dst, f32, blocked_tag),
                 dnnl::algorithm::convolution_winograd, &one);
        const auto& chain = b.epilogue_candidates(n);
        const bool whole_chain =
            std::all_of(chain.begin(), chain.end(), [&](uint32_t k) { return b.fused(k); });
        const memory::desc src4(src_dims, f32, blocked_tag);
        const dnnl::reorder::primitive_desc gather(b.engine(), space_to_batch_view(src4, dl, false),
                                                   b.engine(),
                                                   space_to_batch_view(pd.src_desc(), dl, true));
        const dnnl::reorder::primitive_desc scatter(
            b.engine(), space_to_batch_view(pd.dst_desc(), dl, true), b.engine(),
            space_to_batch_view(blocked_dst, dl, false));
        if (whole_chain && e.binary_inputs.empty() && !reference_kernel(pd) &&
            !reference_kernel(gather) && !reference_kernel(scatter)) {
          const memory x = b.get(input, src4);
          const memory sub_in = b.allocate(pd.src_desc()), sub_out = b.allocate(pd.dst_desc());
          b.add_step(dnnl::reorder(gather),
                     {{DNNL_ARG_FROM, b.alias(x, gather.src_desc())},
                      {DNNL_ARG_TO, b.alias(sub_in, gather.dst_desc())}},
                     "space-to-batch");
          std::unordered_map<int, memory> args;
          args[DNNL_ARG_SRC] = sub_in;
          args[DNNL_ARG_WEIGHTS] = b.convert(b.view(filter, wview), pd.weights_desc(), true);
          if (bias) args[DNNL_ARG_BIAS] = b.get(*bias, bias_desc);
          args[DNNL_ARG_DST] = sub_out;
          bind_epilogue(b, e, sub_out, args);
          b.add_step(dnnl::convolution_forward(pd), std::move(args));
          const memory y = define_epilogue_output(b, n, e, blocked_dst);
          b.add_step(dnnl::reorder(scatter),
                     {{DNNL_ARG_FROM, b.alias(sub_out, scatter.src_desc())},
                      {DNNL_ARG_TO, b.alias(y, scatter.dst_desc())}},
                     "batch-to-space");
          return;
        }
        for (uint32_t k : chain) b.unmark_fused(k);
      } catch (const dnnl::error&) {
        for (uint32_t k : b.epilogue_candidates(n)) b.unmark_fused(k);
      }
    }
    // A 3x3 conv runs as Winograd F(2x2, 3x3) where oneDNN has a jit kernel for it with the
    // whole fused chain (docs/delegates.md, "Winograd"): 2.25x fewer multiplies.
    std::optional<std::pair<dnnl::convolution_forward::primitive_desc, Epilogue>> wino;
    if (b.conv_layout() == ConvLayout::kBlocked && winograd_candidate(g, n)) {
      try {
        wino = make(blocked_src(src_dims), blocked_dst, dnnl::algorithm::convolution_winograd);
        const auto& chain = b.epilogue_candidates(n);
        const bool whole_chain =
            std::all_of(chain.begin(), chain.end(), [&](uint32_t f) { return b.fused(f); });
        if (!whole_chain || reference_kernel(wino->first)) {
          for (uint32_t f : chain) b.unmark_fused(f);
          wino.reset();
        }
      } catch (const dnnl::error&) {
        wino.reset();
      }
    }
    auto [pd, e] = wino ? std::move(*wino)
                   : b.conv_layout() == ConvLayout::kBlocked
                       ? make(blocked_src(src_dims), blocked_dst)
                       : make(src_any, dst_any);
    // A shape the blocked kernels do not cover (a grouped conv whose groups are not whole
    // blocks) would run on the reference kernel: such a conv keeps the primitive's own choice.
    if (b.conv_layout() == ConvLayout::kBlocked && reference_kernel(pd)) {
      for (uint32_t f : b.epilogue_candidates(n)) b.unmark_fused(f);  // re-planned below
      std::tie(pd, e) = make(src_any, dst_any);
    }
    epilogue = std::move(e);
    prim = dnnl::convolution_forward(pd);
    src_desc = pd.src_desc(), w_desc = pd.weights_desc(), dst_desc = pd.dst_desc();
  } else {
    const int64_t eh = (f.height - 1) * dil[0] + 1, ew = (f.width - 1) * dil[1] + 1;
    const memory::dims pad_r = {(in.height - 1) * st[0] + eh - pad[0] - out.height,
                                (in.width - 1) * st[1] + ew - pad[2] - out.width};
    dnnl::deconvolution_forward::desc d(dnnl::prop_kind::forward_inference,
                                        dnnl::algorithm::deconvolution_direct, src_any, w_any,
                                        bias_desc, dst_any, strides, dilates, pad_l, pad_r);
    auto [pd, e] = with_epilogue(b, n, to_logical, {}, [&](const dnnl::primitive_attr& attr) {
      return dnnl::deconvolution_forward::primitive_desc(d, attr, b.engine());
    });
    epilogue = std::move(e);
    prim = dnnl::deconvolution_forward(pd);
    src_desc = pd.src_desc(), w_desc = pd.weights_desc(), dst_desc = pd.dst_desc();
  }
  std::unordered_map<int, memory> args;
  args[DNNL_ARG_SRC] = b.get(input, nhwc ? src_desc.permute_axes(kNchwToNhwc) : src_desc);
  // The argument memory must carry the primitive's (NCHW-logical) desc.
  if (nhwc) args[DNNL_ARG_SRC] = b.alias(args[DNNL_ARG_SRC], src_desc);
  args[DNNL_ARG_WEIGHTS] = scale ? scaled_filter(b, filter, wview, scale->scale, w_desc)
                                 : b.convert(b.view(filter, wview), w_desc, true);
  if (bias) args[DNNL_ARG_BIAS] = b.get(*bias, bias_desc);
  memory dst =
      define_epilogue_output(b, n, epilogue, nhwc ? dst_desc.permute_axes(kNchwToNhwc) : dst_desc);
  bind_epilogue(b, epilogue, dst, args);
  args[DNNL_ARG_DST] = nhwc ? b.alias(dst, dst_desc) : dst;
  b.add_step(prim, std::move(args));
}

}  // namespace

void register_conv(Table& t) {
  t[size_t(OpKind::kConv2d)] = {conv_supports, define_conv};
  t[size_t(OpKind::kConvTranspose2d)] = {conv_supports, define_conv};
}

}  // namespace wnn::runtime::onednn
