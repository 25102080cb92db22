#include <gtest/gtest.h>

#include "node_runner.h"

namespace wnn::kernels {
namespace {

using testing::expect_near_all;
using testing::NodeRunner;
using testing::pattern;

TEST(Gemm, TransposesAlphaBetaAndBroadcastRowOfC) {
  const int64_t M = 3, K = 4, N = 5;
  const auto a = pattern(K * M, 1), b = pattern(N * K, 2), c = pattern(N, 3);
  NodeRunner run;
  const auto r =
      run.run(matmul, OpKind::kGemm, {run.input("a", {K, M}, a), run.input("b", {N, K}, b)},
              {{"c", run.input("c", {N}, c)},
               {"alpha", -0.5},
               {"beta", 2.0},
               {"aTranspose", true},
               {"bTranspose", true}});
  ASSERT_EQ(r.shapes[0], (Shape{M, N}));
  std::vector<double> expected;
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double s = 0;
      for (int64_t k = 0; k < K; ++k) s += a[size_t(k * M + i)] * b[size_t(j * K + k)];
      expected.push_back(-0.5 * s + 2.0 * c[size_t(j)]);
    }
  expect_near_all(r.values[0], expected, 1e-7);
}

TEST(Gemm, HandComputedWithZeroBetaAndScalarC) {
  NodeRunner run;
  const auto r = run.run(matmul, OpKind::kGemm,
                         {run.input("a", {2, 2}, {1, 2, -3, 0}), run.input("b", {2, 1}, {4, -1})},
                         {{"c", run.input("c", {}, {100})}, {"beta", 0.0}});
  expect_near_all(r.values[0], {2, -12}, 0);
}

TEST(Matmul, BatchDimsBroadcast) {
  // a [2, 1, 3, 4] x b [3, 4, 2] -> [2, 3, 3, 2].
  const auto a = pattern(2 * 3 * 4, 4), b = pattern(3 * 4 * 2, 5);
  NodeRunner run;
  const auto r = run.run(matmul, OpKind::kMatmul,
                         {run.input("a", {2, 1, 3, 4}, a), run.input("b", {3, 4, 2}, b)});
  ASSERT_EQ(r.shapes[0], (Shape{2, 3, 3, 2}));
  std::vector<double> expected;
  for (int p = 0; p < 2; ++p)
    for (int q = 0; q < 3; ++q)
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 2; ++j) {
          double s = 0;
          for (int k = 0; k < 4; ++k)
            s += a[size_t(p * 12 + i * 4 + k)] * b[size_t(q * 8 + k * 2 + j)];
          expected.push_back(s);
        }
  expect_near_all(r.values[0], expected, 1e-7);
}

TEST(Matmul, Float16RoundsOnStore) {
  NodeRunner run;
  // 1 + 2^-11 is not a half; the exact product rounds to nearest even (1.0).
  const auto r = run.run(matmul, OpKind::kMatmul,
                         {run.input("a", {1, 2}, {1, 1}, DataType::kFloat16),
                          run.input("b", {2, 1}, {1, 0.00048828125}, DataType::kFloat16)});
  expect_near_all(r.values[0], {1.0}, 0);
}

}  // namespace
}  // namespace wnn::kernels
