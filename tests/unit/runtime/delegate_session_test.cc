// Sessions on delegates: concurrent runs from several threads, and region boundaries placed
// between reference nodes in a valid order.
#include <gtest/gtest.h>
#include <pthreadpool.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <thread>

#include "seeded_tensor.h"
#include "wnn/core/builder.h"
#include "wnn/runtime/session.h"
#include "wnn/runtime/xnnpack/thread_pool.h"

namespace wnn::runtime {
namespace {

using testing::seeded;

// conv (delegated) -> erf (reference only) -> conv (delegated) -> add with the first conv.
std::shared_ptr<const Graph> interleaved() {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  const auto x = b.input("x", {DataType::kFloat32, {1, 4, 6, 6}});
  const auto c1 = b.add1(OpKind::kConv2d, {x, b.constant("w1", seeded({4, 4, 3, 3}, 1))},
                         {{"padding", std::vector<int64_t>{1, 1, 1, 1}}});
  const auto e = b.add1(OpKind::kErf, {c1});
  const auto c2 = b.add1(OpKind::kConv2d, {e, b.constant("w2", seeded({4, 4, 1, 1}, 2))});
  b.output(b.add1(OpKind::kAdd, {c2, c1}, {}, "y"));
  return g;
}

std::vector<float> values(const std::vector<NamedTensor>& out) {
  const float* p = out.at(0).tensor.view().as<float>();
  return {p, p + out[0].tensor.size()};
}

TEST(DelegateSession, ReferenceNodeBetweenRegionsRunsInOrder) {
  const auto g = interleaved();
  const Tensor x = seeded({1, 4, 6, 6}, 3);
  const std::vector<NamedView> in = {{"x", x.view()}};
  const auto want = values(Session(g, {"ref", 1}).run(in));
  for (const char* backend : {"onednn", "xnnpack", "auto"}) {
    const Session s(g, {backend, 2, true, false});
    EXPECT_GE(s.execution_plan().partition.regions.size(), 2u) << backend;
    const auto got = values(s.run(in));
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_NEAR(got[i], want[i], 1e-4 + 1e-4 * std::abs(want[i])) << backend << " " << i;
    }
  }
}

// Four seeded inputs, run once each serially on sessions[0], then 20 times each from four
// threads at once, thread t on sessions[t % size]: every threaded result must equal the serial
// one (and distinct inputs give distinct results).
void expect_concurrent_runs_agree(const std::vector<const Session*>& sessions, uint32_t seed,
                                  const std::string& what) {
  std::vector<Tensor> inputs;
  for (uint32_t t = 0; t < 4; ++t) inputs.push_back(seeded({1, 4, 6, 6}, seed + t));
  std::vector<std::vector<float>> serial, parallel(4);
  for (const Tensor& x : inputs)
    serial.push_back(values(sessions[0]->run(std::vector<NamedView>{{"x", x.view()}})));
  std::vector<std::thread> threads;
  for (size_t t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      const Session& s = *sessions[t % sessions.size()];
      for (int rep = 0; rep < 20; ++rep)
        parallel[t] = values(s.run(std::vector<NamedView>{{"x", inputs[t].view()}}));
    });
  }
  for (auto& th : threads) th.join();
  for (size_t t = 0; t < 4; ++t) EXPECT_EQ(parallel[t], serial[t]) << what << " thread " << t;
  EXPECT_NE(serial[0], serial[1]) << what;
}

TEST(DelegateSession, ConcurrentRunsFromSeveralThreadsAgree) {
  for (const char* backend : {"onednn", "xnnpack"}) {
    const Session s(interleaved(), {backend, 1, true, false});
    expect_concurrent_runs_agree({&s}, 10, backend);
  }
}

TEST(DelegateSession, XnnpackRegionsShareOneProcessPoolPerThreadCount) {
  EXPECT_EQ(xnnpack::shared_pool(1), nullptr);  // one thread: the caller runs it
  const auto two = xnnpack::shared_pool(2);
  ASSERT_NE(two, nullptr);
  EXPECT_EQ(pthreadpool_get_threads_count(two.get()), 2u);
  EXPECT_EQ(xnnpack::shared_pool(2), two);
  const auto three = xnnpack::shared_pool(3);
  EXPECT_NE(three, two);
  EXPECT_EQ(pthreadpool_get_threads_count(three.get()), 3u);
  // Two sessions, each with two XNNPACK regions, on the one pool of 2 threads, run from four
  // threads at once.
  const Session a(interleaved(), {"xnnpack", 2, true, false});
  const Session b(interleaved(), {"xnnpack", 2, true, false});
  ASSERT_EQ(a.execution_plan().partition.regions.size(), 2u);
  expect_concurrent_runs_agree({&a, &b}, 20, "two sessions on one pool");
}

// XNNPACK asserts (aborts the process) on 0-D unary values and on zero-element values; the
// delegates must decline them and leave them to the reference kernels.
TEST(DelegateSession, ScalarAndEmptyValuesStayOffXnnpack) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  const auto s = b.input("s", {DataType::kFloat32, {}});
  const auto e = b.input("e", {DataType::kFloat32, {0, 3}});
  b.output(b.add1(OpKind::kRoundEven, {s}, {}, "r"));
  b.output(b.add1(OpKind::kReshape, {b.add1(OpKind::kRelu, {e})},
                  {{"newShape", std::vector<int64_t>{3, 0}}}, "z"));
  Tensor scalar = Tensor::zeros(DataType::kFloat32, {});
  *scalar.mutable_view().as<float>() = -2.5f;
  const Tensor empty = Tensor::zeros(DataType::kFloat32, {0, 3});
  for (const char* backend : {"xnnpack", "auto"}) {
    const Session session(g, {backend, 1, true, false});
    const auto out = session.run(std::vector<NamedView>{{"s", scalar.view()}, {"e", empty.view()}});
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(*out[0].tensor.view().as<float>(), -2.0f) << backend;
    EXPECT_EQ(out[1].tensor.shape, (Shape{3, 0})) << backend;
  }
}

// A decoder's prefill reads an empty past ([1, kv, 0, hd]): attention over concat(past, new)
// must equal attention over the new keys alone on every backend, and a matmul contracting a
// zero-length axis is zeros. The empty values reach concat, matmul and softmax.
TEST(DelegateSession, ZeroLengthPastInConcatMatmulAndSoftmax) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  const auto q = b.input("q", {DataType::kFloat32, {1, 2, 3, 4}});
  const auto k = b.input("k", {DataType::kFloat32, {1, 2, 3, 4}});
  const auto past = b.input("past", {DataType::kFloat32, {1, 2, 0, 4}});
  const auto keys =
      b.add1(OpKind::kConcat, {std::vector<OperandId>{past, k}, int64_t(2)}, {}, "present");
  const auto kt =
      b.add1(OpKind::kTranspose, {keys}, {{"permutation", std::vector<int64_t>{0, 1, 3, 2}}});
  const auto scores = b.add1(OpKind::kMatmul, {q, kt});
  const auto probs = b.add1(OpKind::kSoftmax, {scores, int64_t(3)});
  b.output(b.add1(OpKind::kMatmul, {probs, keys}, {}, "attn"));
  // Empty contraction: [1, 2, 3, 0] x [1, 2, 0, 4] = zeros; softmax keeps an empty axis empty.
  const auto past_t =
      b.add1(OpKind::kTranspose, {past}, {{"permutation", std::vector<int64_t>{0, 1, 3, 2}}});
  const auto empty_scores = b.add1(OpKind::kMatmul, {q, past_t}, {}, "empty_scores");
  b.output(b.add1(OpKind::kSoftmax, {empty_scores, int64_t(3)}, {}, "empty_probs"));
  b.output(b.add1(OpKind::kMatmul, {past_t, past}, {}, "zeros"));
  b.output(keys);

  const Tensor qv = seeded({1, 2, 3, 4}, 41, -2, 3), kv = seeded({1, 2, 3, 4}, 42, -3, 2);
  const Tensor pv = Tensor::zeros(DataType::kFloat32, {1, 2, 0, 4});
  const std::vector<NamedView> in = {{"q", qv.view()}, {"k", kv.view()}, {"past", pv.view()}};
  // The expected attention, by hand: softmax(q k^T) k per head.
  const float* qd = qv.view().as<float>();
  const float* kd = kv.view().as<float>();
  std::vector<float> want(24);
  for (int h = 0; h < 2; ++h) {
    for (int i = 0; i < 3; ++i) {
      float s[3], m = -1e30f, sum = 0;
      for (int j = 0; j < 3; ++j) {
        s[j] = 0;
        for (int d = 0; d < 4; ++d) s[j] += qd[(h * 3 + i) * 4 + d] * kd[(h * 3 + j) * 4 + d];
        m = std::max(m, s[j]);
      }
      for (float& x : s) sum += (x = std::exp(x - m));
      for (int d = 0; d < 4; ++d) {
        float acc = 0;
        for (int j = 0; j < 3; ++j) acc += s[j] / sum * kd[(h * 3 + j) * 4 + d];
        want[(h * 3 + i) * 4 + d] = acc;
      }
    }
  }
  for (const char* backend : {"ref", "onednn", "xnnpack", "auto"}) {
    const Session session(g, {backend, 2, true, false});
    const auto out = session.run(in);
    ASSERT_EQ(out.size(), 4u) << backend;
    ASSERT_EQ(out[0].name, "attn");
    const float* attn = out[0].tensor.view().as<float>();
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_NEAR(attn[i], want[i], 1e-5 + 1e-5 * std::abs(want[i])) << backend << " " << i;
    }
    EXPECT_EQ(out[1].tensor.shape, (Shape{1, 2, 3, 0})) << backend;
    ASSERT_EQ(out[2].tensor.shape, (Shape{1, 2, 4, 4})) << backend;
    // [1, 2, 4, 0] x [1, 2, 0, 4]: a sum of no products, 0 everywhere (not left uninitialized).
    const float* z = out[2].tensor.view().as<float>();
    for (int64_t i = 0; i < out[2].tensor.size(); ++i) EXPECT_EQ(z[i], 0.0f) << backend << " " << i;
    ASSERT_EQ(out[3].tensor.shape, (Shape{1, 2, 3, 4})) << backend;
    EXPECT_EQ(std::memcmp(out[3].tensor.view().as<float>(), kd, 24 * sizeof(float)), 0) << backend;
  }
}

}  // namespace
}  // namespace wnn::runtime
