#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>

#include "kernel_test_util.h"

namespace wnn::kernels {
namespace {

using testing::make;
using testing::OneNode;
using testing::values_of;

using V = std::vector<double>;

Tensor run3(OpKind op, const Tensor& x, const Tensor& idx, const Tensor* updates = nullptr,
            std::vector<std::pair<std::string, RawValue>> named = {}) {
  OneNode n(gather);
  std::vector<RawValue> args = {n.in(x), n.in(idx)};
  if (updates != nullptr) args.push_back(n.in(*updates));
  return n.run1(op, args, std::move(named));
}

TEST(GatherKernel, GatherAlongAxisWithNegativeAndClampedIndices) {
  const Tensor x = make(DataType::kFloat32, {3, 4}, {0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23});
  // axis 0 with indices [2, -1, 0] -> rows 2, 2, 0; 2D indices keep their shape.
  const Tensor i0 = make(DataType::kInt32, {3}, {2, -1, 0});
  const Tensor r0 = run3(OpKind::kGather, x, i0);
  EXPECT_EQ(r0.shape, (Shape{3, 4}));
  EXPECT_EQ(values_of(r0), (V{20, 21, 22, 23, 20, 21, 22, 23, 0, 1, 2, 3}));
  // axis 1 with [[3, 0], [9, -9]]: 9 clamps to 3, -9 (+4 = -5) clamps to 0.
  const Tensor i1 = make(DataType::kInt64, {2, 2}, {3, 0, 9, -9});
  const Tensor r1 = run3(OpKind::kGather, x, i1, nullptr, {{"axis", 1}});
  EXPECT_EQ(r1.shape, (Shape{3, 2, 2}));
  EXPECT_EQ(values_of(r1), (V{3, 0, 3, 0, 13, 10, 13, 10, 23, 20, 23, 20}));
  // A scalar index removes the axis.
  const Tensor s = make(DataType::kUint32, {}, {1});
  const Tensor rs = run3(OpKind::kGather, x, s, nullptr, {{"axis", 1}});
  EXPECT_EQ(rs.shape, (Shape{3}));
  EXPECT_EQ(values_of(rs), (V{1, 11, 21}));
}

TEST(GatherKernel, GatherElements) {
  const Tensor x = make(DataType::kInt8, {2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor idx = make(DataType::kInt32, {2, 2}, {2, 0, -1, 7});
  EXPECT_EQ(values_of(run3(OpKind::kGatherElements, x, idx, nullptr, {{"axis", 1}})),
            (V{3, 1, 6, 6}));
  const Tensor idx0 = make(DataType::kInt32, {1, 3}, {1, 0, 1});
  EXPECT_EQ(values_of(run3(OpKind::kGatherElements, x, idx0)), (V{4, 2, 6}));
}

// Rank 4 along axis 2, fewer indices than the data has along it (so the walk must skip data
// rows), negative and out-of-range indices, int64 indices and float32 data, against an
// element-by-element reading of the definition.
TEST(GatherKernel, GatherElementsRank4AlongAxis2WithFewerIndices) {
  const Shape ds = {2, 3, 5, 4}, is = {2, 3, 3, 4};
  std::vector<double> data(2 * 3 * 5 * 4), indices(2 * 3 * 3 * 4);
  for (size_t i = 0; i < data.size(); ++i) data[i] = double(i) * 0.5 - 7;
  for (size_t i = 0; i < indices.size(); ++i) indices[i] = double(int(i * 7 % 13) - 6);
  const Tensor x = make(DataType::kFloat32, ds, data);
  const Tensor idx = make(DataType::kInt64, is, indices);
  V want;
  for (int64_t a = 0; a < is[0]; ++a) {
    for (int64_t b = 0; b < is[1]; ++b) {
      for (int64_t c = 0; c < is[2]; ++c) {
        for (int64_t d = 0; d < is[3]; ++d) {
          int64_t i = int64_t(indices[size_t(((a * is[1] + b) * is[2] + c) * is[3] + d)]);
          if (i < 0) i += ds[2];
          i = std::clamp<int64_t>(i, 0, ds[2] - 1);
          want.push_back(data[size_t(((a * ds[1] + b) * ds[2] + i) * ds[3] + d)]);
        }
      }
    }
  }
  const Tensor r = run3(OpKind::kGatherElements, x, idx, nullptr, {{"axis", 2}});
  EXPECT_EQ(r.shape, is);
  EXPECT_EQ(values_of(r), want);
}

TEST(GatherKernel, GatherNDSlicesAndElements) {
  const Tensor x = make(DataType::kFloat16, {2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  const Tensor idx = make(DataType::kInt32, {2, 2}, {1, 0, 0, -1});  // [1,0,:], [0,1,:]
  const Tensor r = run3(OpKind::kGatherND, x, idx);
  EXPECT_EQ(r.shape, (Shape{2, 2}));
  EXPECT_EQ(values_of(r), (V{5, 6, 3, 4}));
  const Tensor full = make(DataType::kInt64, {3, 3}, {1, 1, 1, 0, 0, 1, 5, 5, 5});
  EXPECT_EQ(values_of(run3(OpKind::kGatherND, x, full)), (V{8, 2, 8}));
}

TEST(GatherKernel, ScatterElementsLaterUpdatesWin) {
  const Tensor x = make(DataType::kFloat32, {2, 3}, {0, 0, 0, 0, 0, 0});
  const Tensor idx = make(DataType::kInt32, {2, 2}, {1, 1, -1, 0});
  const Tensor up = make(DataType::kFloat32, {2, 2}, {5, 7, -2, 9});
  EXPECT_EQ(values_of(run3(OpKind::kScatterElements, x, idx, &up, {{"axis", 1}})),
            (V{0, 7, 0, 9, 0, -2}));
  const Tensor idx0 = make(DataType::kInt32, {1, 3}, {1, 0, 1});
  const Tensor up0 = make(DataType::kFloat32, {1, 3}, {3, 4, 5});
  EXPECT_EQ(values_of(run3(OpKind::kScatterElements, x, idx0, &up0)), (V{0, 4, 0, 3, 0, 5}));
}

TEST(GatherKernel, ScatterNDWritesSlices) {
  const Tensor x = make(DataType::kInt32, {3, 2}, {1, 2, 3, 4, 5, 6});
  const Tensor idx = make(DataType::kInt32, {2, 1}, {-1, 0});
  const Tensor up = make(DataType::kInt32, {2, 2}, {-7, -8, 9, 10});
  EXPECT_EQ(values_of(run3(OpKind::kScatterND, x, idx, &up)), (V{9, 10, 3, 4, -7, -8}));
  const Tensor el = make(DataType::kInt32, {2, 2}, {1, 1, 1, 1});
  const Tensor u2 = make(DataType::kInt32, {2}, {40, 50});
  EXPECT_EQ(values_of(run3(OpKind::kScatterND, x, el, &u2)), (V{1, 2, 3, 50, 5, 6}));
}

}  // namespace
}  // namespace wnn::kernels
