// Session: multi-operator graphs the single-op conformance vectors cannot show, the buffer
// plan's reuse, input checking and concurrent runs.
#include "wnn/runtime/session.h"

#include <gtest/gtest.h>

#include <cstring>
#include <thread>

#include "wnn/core/builder.h"
#include "wnn/core/error.h"

namespace wnn::runtime {
namespace {

Tensor make_f32(Shape shape, std::vector<float> values) {
  Tensor t = Tensor::zeros(DataType::kFloat32, std::move(shape));
  EXPECT_EQ(size_t(t.size()), values.size());
  std::memcpy(t.data.mutable_data(), values.data(), values.size() * 4);
  return t;
}

std::vector<float> values_of(const Tensor& t) {
  const float* p = reinterpret_cast<const float*>(t.data.data());
  return {p, p + t.size()};
}

const Tensor& output_named(const std::vector<NamedTensor>& outs, const std::string& name) {
  for (const auto& o : outs) {
    if (o.name == name) return o.tensor;
  }
  throw Error("no output " + name);
}

TEST(Session, ChainWithAnOperandUsedTwiceAndAnIntermediateOutput) {
  Graph g;
  GraphBuilder b(g);
  b.input("x", {DataType::kFloat32, {2, 3}});
  b.constant("w", make_f32({3}, {0.5f, -2.0f, 0.0f}));
  const OperandId sum = b.add1(OpKind::kAdd, {RawValue::Name{"x"}, RawValue::Name{"w"}}, {}, "sum");
  // `sum` feeds two nodes and is also a graph output.
  const OperandId sq = b.add1(OpKind::kMul, {sum, sum}, {}, "sq");
  const OperandId r = b.add1(OpKind::kRelu, {sum}, {}, "r");
  const OperandId y = b.add1(OpKind::kSub, {sq, r}, {}, "y");
  b.output(y);
  b.output(sum);
  Session s(std::make_shared<const Graph>(std::move(g)));
  const Tensor x = make_f32({2, 3}, {1, 2, -3, 0, -0.5f, 4});
  const auto outs = s.run(std::vector<NamedView>{{"x", x.view()}});
  ASSERT_EQ(outs.size(), 2u);
  EXPECT_EQ(outs[0].name, "y");
  EXPECT_EQ(outs[1].name, "sum");
  // sum = [1.5, 0, -3, 0.5, -2.5, 4]; y = sum^2 - relu(sum)
  EXPECT_EQ(values_of(output_named(outs, "sum")),
            (std::vector<float>{1.5f, 0, -3, 0.5f, -2.5f, 4}));
  EXPECT_EQ(values_of(output_named(outs, "y")),
            (std::vector<float>{0.75f, 0, 9, -0.25f, 6.25f, 12}));
}

TEST(Session, ConstantsAndInputsCanBeOutputsThroughIdentityOrDirectly) {
  Graph g;
  GraphBuilder b(g);
  b.input("x", {DataType::kFloat32, {2}});
  b.constant("c", make_f32({2}, {-1.25f, 7}));
  const OperandId id = b.add1(OpKind::kIdentity, {RawValue::Name{"c"}}, {}, "c_out");
  b.output(id);
  b.output("x");
  b.output("c");
  Session s(std::make_shared<const Graph>(std::move(g)));
  const Tensor x = make_f32({2}, {3, -4});
  const auto outs = s.run(std::vector<NamedView>{{"x", x.view()}});
  EXPECT_EQ(values_of(output_named(outs, "c_out")), (std::vector<float>{-1.25f, 7}));
  EXPECT_EQ(values_of(output_named(outs, "x")), (std::vector<float>{3, -4}));
  EXPECT_EQ(values_of(output_named(outs, "c")), (std::vector<float>{-1.25f, 7}));
}

TEST(Session, BufferPlanReusesDeadIntermediates) {
  Graph g;
  GraphBuilder b(g);
  b.input("x", {DataType::kFloat32, {256}});
  OperandId cur = *g.find("x");
  for (int i = 0; i < 8; ++i) cur = b.add1(OpKind::kNeg, {cur});
  b.output(cur);
  const BufferPlan plan = plan_buffers(g);
  // Seven 1 KiB intermediates, but at most two are alive at once.
  EXPECT_EQ(plan.total_intermediate_bytes, 7u * 1024u);
  EXPECT_EQ(plan.arena_bytes, 2u * 1024u);
  // Adjacent intermediates never share memory (kernels do not run in place).
  const auto nodes = g.nodes();
  for (size_t n = 1; n + 1 < nodes.size(); ++n) {
    EXPECT_NE(plan.offset[nodes[n].inputs[0].index], plan.offset[nodes[n].outputs[0].index]);
  }
  Session s(std::make_shared<const Graph>(std::move(g)));
  Tensor x = Tensor::zeros(DataType::kFloat32, {256});
  for (int i = 0; i < 256; ++i) reinterpret_cast<float*>(x.data.mutable_data())[i] = float(i - 100);
  const auto outs = s.run(std::vector<NamedView>{{"x", x.view()}});
  EXPECT_EQ(values_of(outs[0].tensor), values_of(x));  // eight negations
}

TEST(Session, InputsAreCheckedByNameDtypeAndShape) {
  Graph g;
  GraphBuilder b(g);
  b.input("x", {DataType::kFloat32, {2}});
  b.output(b.add1(OpKind::kRelu, {RawValue::Name{"x"}}));
  Session s(std::make_shared<const Graph>(std::move(g)));
  const Tensor ok = make_f32({2}, {1, 2});
  const Tensor wrong_shape = make_f32({3}, {1, 2, 3});
  const Tensor wrong_type = Tensor::zeros(DataType::kInt32, {2});
  auto message = [&](std::vector<NamedView> in) {
    try {
      s.run(in);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(message({}).find("input 'x' is missing"), std::string::npos);
  EXPECT_NE(message({{"y", ok.view()}}).find("'y' is not an input"), std::string::npos);
  EXPECT_NE(message({{"x", wrong_shape.view()}}).find("has shape [3], the graph expects [2]"),
            std::string::npos);
  EXPECT_NE(message({{"x", wrong_type.view()}}).find("data type int32"), std::string::npos);
  EXPECT_NE(message({{"x", ok.view()}, {"x", ok.view()}}).find("given twice"), std::string::npos);
}

TEST(Session, ConcurrentRunsGiveIndependentResults) {
  Graph g;
  GraphBuilder b(g);
  b.input("x", {DataType::kFloat32, {1000}});
  const OperandId t = b.add1(OpKind::kMul, {RawValue::Name{"x"}, RawValue::Name{"x"}});
  b.output(b.add1(OpKind::kAdd, {t, RawValue::Name{"x"}}));
  Session s(std::make_shared<const Graph>(std::move(g)));
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (int k = 0; k < 4; ++k) {
    threads.emplace_back([&, k] {
      Tensor x = Tensor::zeros(DataType::kFloat32, {1000});
      float* p = reinterpret_cast<float*>(x.data.mutable_data());
      for (int i = 0; i < 1000; ++i) p[i] = float(k * 1000 + i) * 0.001f - 2.0f;
      for (int rep = 0; rep < 50; ++rep) {
        const auto outs = s.run(std::vector<NamedView>{{"x", x.view()}});
        const float* o = reinterpret_cast<const float*>(outs[0].tensor.data.data());
        for (int i = 0; i < 1000; ++i) {
          if (o[i] != p[i] * p[i] + p[i]) ++failures[size_t(k)];
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures, (std::vector<int>{0, 0, 0, 0}));
}

TEST(Session, FillsScalarConstantsOfAGraphAsBuilt) {
  Graph g;
  GraphBuilder b(g);
  b.input("x", {DataType::kFloat32, {3}});
  b.constant("half", {DataType::kFloat32, {3}}, ConstantInitKind::kScalar, "", -0.5);
  b.output(b.add1(OpKind::kMul, {RawValue::Name{"x"}, RawValue::Name{"half"}}));
  Session s(std::make_shared<const Graph>(std::move(g)), {"ref", 1});
  const Tensor x = make_f32({3}, {2, -4, 0});
  const auto outs = s.run(std::vector<NamedView>{{"x", x.view()}});
  EXPECT_EQ(values_of(outs[0].tensor), (std::vector<float>{-1, 2, -0.0f}));
}

TEST(Session, RejectsGraphsItCannotRun) {
  Graph g;
  GraphBuilder b(g);
  b.input("x", {DataType::kFloat32, {4}}, {DynamicDim{"n", 4}});
  b.output("x");
  EXPECT_THROW(Session(std::make_shared<const Graph>(g)), Error);
  EXPECT_THROW(Session(std::make_shared<const Graph>(Graph{})), Error);  // no outputs
}

}  // namespace
}  // namespace wnn::runtime
