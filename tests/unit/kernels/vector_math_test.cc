// The vectorized exp/sigmoid/tanh/relu (vector_math.cc) against std::exp / std::tanh in double,
// rounded to float: a sweep over every 331st float bit pattern (all exponents, both signs,
// subnormals included) plus a dense linear sweep over [-20, 20], in ulp of the float result.
#include "wnn/kernels/vector_math.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace wnn::kernels {
namespace {

// Position of f in the ordered sequence of floats, so that the difference of two is their
// distance in ulp (across zero too: -0 and +0 are both at 0).
int64_t float_position(float f) {
  int32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return bits < 0 ? -int64_t(bits & 0x7fffffff) : int64_t(bits);
}

std::vector<float> sweep_inputs() {
  std::vector<float> xs;
  for (uint64_t bits = 0; bits < 0x100000000ull; bits += 331) {
    const uint32_t b = uint32_t(bits);
    float f;
    std::memcpy(&f, &b, sizeof f);
    if (std::isfinite(f)) xs.push_back(f);
  }
  for (int i = -200000; i <= 200000; ++i) xs.push_back(float(i) * 1e-4f);
  for (float f : {0.0f, -0.0f, 1e-30f, -1e-30f, 1e-45f, 0.625f, -0.625f, 0.62499994f, 88.72f,
                  88.73f, -87.3f, -103.9f, -104.5f, 9.0f, -9.1f}) {
    xs.push_back(f);
  }
  return xs;
}

struct UlpReport {
  int64_t max_ulp = 0;
  float worst_input = 0;
};

// Max ulp distance of `fn` from `reference` (double, rounded to float) over `xs`; results
// below the smallest normal float are compared in absolute units of 2^-149 the same way.
template <typename Fn, typename Ref>
UlpReport measure(const std::vector<float>& xs, Fn fn, Ref reference) {
  std::vector<float> ys = xs;
  fn(ys.data(), int64_t(ys.size()));
  UlpReport r;
  for (size_t i = 0; i < xs.size(); ++i) {
    const float expected = float(reference(double(xs[i])));
    const int64_t ulp = std::abs(float_position(ys[i]) - float_position(expected));
    if (ulp > r.max_ulp) r = {ulp, xs[i]};
  }
  return r;
}

double sigmoid_reference(double x) { return 1 / (1 + std::exp(-x)); }

// Measured maxima on this sweep: exp 1 ulp, sigmoid 3, tanh 1; the bounds leave one ulp for
// inputs the sweep skips.
TEST(VectorMath, ExpWithinTwoUlpOfStdExp) {
  const UlpReport r = measure(sweep_inputs(), exp_float32, [](double x) { return std::exp(x); });
  EXPECT_LE(r.max_ulp, 2) << "at x = " << r.worst_input;
}

TEST(VectorMath, SigmoidWithinFourUlp) {
  const UlpReport r = measure(sweep_inputs(), sigmoid_float32, sigmoid_reference);
  EXPECT_LE(r.max_ulp, 4) << "at x = " << r.worst_input;
}

TEST(VectorMath, TanhWithinTwoUlpOfStdTanhIncludingNearZero) {
  const UlpReport r = measure(sweep_inputs(), tanh_float32, [](double x) { return std::tanh(x); });
  EXPECT_LE(r.max_ulp, 2) << "at x = " << r.worst_input;
}

TEST(VectorMath, InfinitiesNanAndSignedZero) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // Seventeen values so the last three go through the partial tail vector.
  const std::vector<float> xs = {inf,  -inf, nan,  -0.0f, 0.0f, 200.0f, -200.0f, 1.0f, -1.0f,
                                 2.0f, 3.0f, 4.0f, 5.0f,  6.0f, inf,    -inf,    nan};
  std::vector<float> e = xs, s = xs, t = xs, r = xs;
  exp_float32(e.data(), int64_t(e.size()));
  sigmoid_float32(s.data(), int64_t(s.size()));
  tanh_float32(t.data(), int64_t(t.size()));
  relu_float32(r.data(), int64_t(r.size()));
  for (size_t i : {size_t(0), size_t(14)}) {
    EXPECT_EQ(e[i], inf);
    EXPECT_EQ(e[i + 1], 0.0f);
    EXPECT_EQ(s[i], 1.0f);
    EXPECT_EQ(s[i + 1], 0.0f);
    EXPECT_EQ(t[i], 1.0f);
    EXPECT_EQ(t[i + 1], -1.0f);
    EXPECT_EQ(r[i], inf);
    EXPECT_EQ(r[i + 1], 0.0f);
    EXPECT_TRUE(std::isnan(e[i + 2]));
    EXPECT_TRUE(std::isnan(s[i + 2]));
    EXPECT_TRUE(std::isnan(t[i + 2]));
  }
  EXPECT_EQ(e[3], 1.0f);
  EXPECT_EQ(s[3], 0.5f);
  EXPECT_TRUE(t[3] == 0.0f && std::signbit(t[3]));  // tanh(-0) = -0
  EXPECT_EQ(e[5], inf);                             // exp(200) overflows
  EXPECT_EQ(e[6], 0.0f);                            // exp(-200) underflows
  EXPECT_EQ(t[5], 1.0f);
  EXPECT_EQ(t[6], -1.0f);
  EXPECT_EQ(r[8], 0.0f);
  EXPECT_EQ(r[9], 2.0f);
  EXPECT_NEAR(t[8], std::tanh(-1.0f), 2e-7f);
}

// Lengths 0 to 40 in place: the tail never writes past n.
TEST(VectorMath, TailLengthsTouchOnlyTheirElements) {
  for (int64_t n = 0; n <= 40; ++n) {
    std::vector<float> v(size_t(n) + 1, -0.5f);
    v[size_t(n)] = 123.0f;
    sigmoid_float32(v.data(), n);
    for (int64_t i = 0; i < n; ++i) EXPECT_NEAR(v[size_t(i)], sigmoid_reference(-0.5), 1e-7);
    EXPECT_EQ(v[size_t(n)], 123.0f) << n;
  }
}

}  // namespace
}  // namespace wnn::kernels
