// A conv with a long 1-D filter stays on the reference kernels (their FFT convolution beats the
// delegates' direct kernels) with each delegate's reason, draws no fallback warning, and its
// session output matches a direct evaluation of the definition.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "seeded_tensor.h"
#include "wnn/core/builder.h"
#include "wnn/runtime/session.h"

namespace wnn::runtime {
namespace {

using testing::seeded;

constexpr int64_t kChannels = 64, kGroups = 2, kLength = 90, kTaps = 96, kPad = 48;

// A grouped conv along W with a 96-tap filter and bias, then a relu a delegate takes.
struct LongConv {
  Tensor w = seeded({kChannels, kChannels / kGroups, 1, kTaps}, 21);
  Tensor bias = seeded({kChannels}, 22);
  std::shared_ptr<const Graph> graph;
  LongConv() {
    auto g = std::make_shared<Graph>();
    GraphBuilder b(*g);
    const auto x = b.input("x", {DataType::kFloat32, {2, kChannels, 1, kLength}});
    const auto y = b.add1(OpKind::kConv2d, {x, b.constant("w", w)},
                          {{"padding", std::vector<int64_t>{0, 0, kPad, kPad - 1}},
                           {"groups", kGroups},
                           {"bias", b.constant("b", bias)}},
                          "conv");
    b.output(b.add1(OpKind::kRelu, {y}, {}, "y"));
    graph = std::move(g);
  }
};

TEST(FftConvPartition, LongFilterStaysOnReferenceWithEachDelegatesReason) {
  const LongConv m;
  for (const char* backend : {"onednn", "xnnpack", "auto"}) {
    SCOPED_TRACE(backend);
    const Session s(m.graph, {backend, 2, true, false});
    const auto& plan = s.execution_plan();
    const auto& nodes = s.graph().nodes();
    for (size_t n = 0; n < nodes.size(); ++n) {
      if (nodes[n].op() != OpKind::kConv2d) continue;
      EXPECT_EQ(plan.partition.region_of[n], -1);
      EXPECT_NE(plan.partition.ref_reason[n].find("a long 1-D filter (96 taps): the FFT "
                                                  "convolution of the reference kernels is faster"),
                std::string::npos)
          << plan.partition.ref_reason[n];
    }
    EXPECT_FALSE(fallback_warning(plan).has_value()) << *fallback_warning(plan);
  }
}

TEST(FftConvPartition, SessionOutputMatchesDirectConvolution) {
  const LongConv m;
  const Tensor x = seeded({2, kChannels, 1, kLength}, 23);
  const int64_t out_len = kLength + 2 * kPad - 1 - kTaps + 1, ig = kChannels / kGroups;
  const float* xv = x.view().as<float>();
  const float* wv = m.w.view().as<float>();
  const float* bv = m.bias.view().as<float>();
  for (int threads : {1, 2}) {
    const Session s(m.graph, {"auto", threads, true, false});
    const auto out = s.run(std::vector<NamedView>{{"x", x.view()}});
    ASSERT_EQ(out.at(0).tensor.shape, (Shape{2, kChannels, 1, out_len}));
    const float* y = out[0].tensor.view().as<float>();
    double max_abs = 0, max_err = 0;
    for (int64_t n = 0; n < 2; ++n)
      for (int64_t o = 0; o < kChannels; ++o)
        for (int64_t p = 0; p < out_len; ++p) {
          double sum = bv[o];
          for (int64_t i = 0; i < ig; ++i)
            for (int64_t k = 0; k < kTaps; ++k) {
              const int64_t q = p + k - kPad;
              if (q < 0 || q >= kLength) continue;
              sum += double(wv[(o * ig + i) * kTaps + k]) *
                     double(xv[(n * kChannels + (o / ig) * ig + i) * kLength + q]);
            }
          const double expected = std::max(sum, 0.0);
          max_abs = std::max(max_abs, std::fabs(expected));
          max_err = std::max(max_err, std::fabs(y[(n * kChannels + o) * out_len + p] - expected));
        }
    EXPECT_GT(max_abs, 1.0);
    EXPECT_LE(max_err, 1e-5 * max_abs + 1e-6) << "threads " << threads;
  }
}

}  // namespace
}  // namespace wnn::runtime
