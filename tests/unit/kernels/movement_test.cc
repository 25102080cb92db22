#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <random>

#include "kernel_test_util.h"

namespace wnn::kernels {
namespace {

using testing::make;
using testing::make_exact;
using testing::OneNode;
using testing::raw_of;
using testing::values_of;

using V = std::vector<double>;

Tensor mov(OpKind op, const Tensor& x, std::vector<RawValue> extra = {},
           std::vector<std::pair<std::string, RawValue>> named = {}) {
  OneNode n(movement);
  std::vector<RawValue> args = {n.in(x)};
  for (auto& e : extra) args.push_back(e);
  return n.run1(op, args, std::move(named));
}

V iota(size_t n, double start = 0) {
  V v(n);
  std::iota(v.begin(), v.end(), start);
  return v;
}

TEST(MovementKernel, ConcatAlongMiddleAxis) {
  const Tensor a = make(DataType::kInt32, {2, 1, 2}, {1, 2, 3, 4});
  const Tensor b = make(DataType::kInt32, {2, 2, 2}, {-1, -2, -3, -4, -5, -6, -7, -8});
  OneNode n(movement);
  const auto ia = n.in(a);
  const auto ib = n.in(b);
  const Tensor r =
      n.run1(OpKind::kConcat, {RawValue(std::vector<OperandId>{ia, ib, ia}), int64_t(1)});
  EXPECT_EQ(r.shape, (Shape{2, 4, 2}));
  EXPECT_EQ(values_of(r), (V{1, 2, -1, -2, -3, -4, 1, 2, 3, 4, -5, -6, -7, -8, 3, 4}));
}

TEST(MovementKernel, SplitEvenAndBySizes) {
  const Tensor x = make(DataType::kFloat16, {2, 5}, iota(10));
  OneNode n(movement);
  const auto ix = n.in(x);
  auto outs = n.run(OpKind::kSplit, {ix, RawValue(std::vector<int64_t>{2, 3})}, {{"axis", 1}});
  ASSERT_EQ(outs.size(), 2u);
  EXPECT_EQ(values_of(outs[0]), (V{0, 1, 5, 6}));
  EXPECT_EQ(values_of(outs[1]), (V{2, 3, 4, 7, 8, 9}));
  OneNode m(movement);
  const auto jx = m.in(x);
  outs = m.run(OpKind::kSplit, {jx, int64_t(2)}, {{"axis", 0}});
  ASSERT_EQ(outs.size(), 2u);
  EXPECT_EQ(values_of(outs[1]), (V{5, 6, 7, 8, 9}));
}

TEST(MovementKernel, ExpandBroadcastsToHigherRank) {
  const Tensor x = make(DataType::kInt8, {3, 1}, {1, -2, 3});
  const Tensor r = mov(OpKind::kExpand, x, {std::vector<int64_t>{2, 3, 2}});
  EXPECT_EQ(values_of(r), (V{1, 1, -2, -2, 3, 3, 1, 1, -2, -2, 3, 3}));
}

// Random shapes with size-1, broadcast and contiguous runs in every position (the copies
// coalesce dimensions and take memcpy or fill for whole runs), every element size, checked
// against the index definition of expand and transpose.
TEST(MovementKernel, ExpandAndTransposeMatchTheirIndexDefinitionOnRandomShapes) {
  std::mt19937 rng(11);
  const DataType types[] = {DataType::kInt8, DataType::kFloat16, DataType::kFloat32,
                            DataType::kInt64};
  for (int trial = 0; trial < 300; ++trial) {
    const size_t rank = 1 + rng() % 5;
    Shape out, in;
    for (size_t d = 0; d < rank; ++d) {
      out.push_back(int64_t(1 + rng() % 4));
      in.push_back(rng() % 3 == 0 ? 1 : out.back());
    }
    // Sometimes fewer input dims (expand aligns them to the right).
    const size_t drop = rng() % 2 == 0 ? rng() % rank : 0;
    in.erase(in.begin(), in.begin() + int64_t(drop));
    const DataType t = types[trial % 4];
    const int64_t count = element_count(in);
    V values(static_cast<size_t>(count));
    for (int64_t i = 0; i < count; ++i) values[size_t(i)] = double(int64_t(i % 97) - 48);
    const Tensor x = make(t, in, values);
    const Tensor e = mov(OpKind::kExpand, x, {std::vector<int64_t>(out.begin(), out.end())});
    ASSERT_EQ(e.shape, out);
    const V got = values_of(e);
    std::vector<int64_t> index(rank, 0);
    for (int64_t o = 0; o < element_count(out); ++o) {
      int64_t rest = o, src = 0, stride = 1;
      for (size_t d = rank; d-- > 0;) {
        index[d] = rest % out[d];
        rest /= out[d];
      }
      for (size_t d = in.size(); d-- > 0;) {
        const size_t od = d + drop;
        src += (in[d] == 1 ? 0 : index[od]) * stride;
        stride *= in[d];
      }
      ASSERT_EQ(got[size_t(o)], values[size_t(src)]) << "expand trial " << trial << " at " << o;
    }
    // Transpose of the expanded tensor by a random permutation.
    std::vector<int64_t> perm(rank);
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    const Tensor p = mov(OpKind::kTranspose, e, {}, {{"permutation", perm}});
    const V transposed = values_of(p);
    const auto strides = contiguous_strides(out);
    for (int64_t o = 0; o < element_count(p.shape); ++o) {
      int64_t rest = o, src = 0;
      for (size_t d = rank; d-- > 0;) {
        src += (rest % p.shape[d]) * strides[size_t(perm[d])];
        rest /= p.shape[d];
      }
      ASSERT_EQ(transposed[size_t(o)], got[size_t(src)]) << "transpose trial " << trial;
    }
  }
}

TEST(MovementKernel, TransposeDefaultAndGivenPermutation) {
  const Tensor x = make(DataType::kFloat32, {2, 3, 4}, iota(24));
  const Tensor d = mov(OpKind::kTranspose, x);
  EXPECT_EQ(d.shape, (Shape{4, 3, 2}));
  // d[k, j, i] = x[i, j, k] = 12 i + 4 j + k
  const auto dv = values_of(d);
  for (int k = 0; k < 4; ++k)
    for (int j = 0; j < 3; ++j)
      for (int i = 0; i < 2; ++i) EXPECT_EQ(dv[k * 6 + j * 2 + i], 12 * i + 4 * j + k);
  const Tensor p = mov(OpKind::kTranspose, x, {}, {{"permutation", std::vector<int64_t>{1, 0, 2}}});
  EXPECT_EQ(p.shape, (Shape{3, 2, 4}));
  const auto pv = values_of(p);
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i < 2; ++i)
      for (int k = 0; k < 4; ++k) EXPECT_EQ(pv[j * 8 + i * 4 + k], 12 * i + 4 * j + k);
}

TEST(MovementKernel, ReverseAxes) {
  const Tensor x = make(DataType::kUint64, {2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(values_of(mov(OpKind::kReverse, x)), (V{6, 5, 4, 3, 2, 1}));
  EXPECT_EQ(values_of(mov(OpKind::kReverse, x, {}, {{"axes", std::vector<int64_t>{1}}})),
            (V{3, 2, 1, 6, 5, 4}));
  EXPECT_EQ(values_of(mov(OpKind::kReverse, x, {}, {{"axes", std::vector<int64_t>{}}})),
            (V{1, 2, 3, 4, 5, 6}));
}

TEST(MovementKernel, SliceWithStrides) {
  const Tensor x = make(DataType::kFloat32, {3, 7}, iota(21));
  // rows from 1 size 2; cols from 1 size 6 stride 4 -> cols 1 and 5.
  const Tensor r = mov(OpKind::kSlice, x, {std::vector<int64_t>{1, 1}, std::vector<int64_t>{2, 6}},
                       {{"strides", std::vector<int64_t>{1, 4}}});
  EXPECT_EQ(r.shape, (Shape{2, 2}));
  EXPECT_EQ(values_of(r), (V{8, 12, 15, 19}));
  const Tensor s = mov(OpKind::kSlice, x, {std::vector<int64_t>{0, 6}, std::vector<int64_t>{3, 1}});
  EXPECT_EQ(values_of(s), (V{6, 13, 20}));
}

TEST(MovementKernel, TileRepeatsEachDim) {
  const Tensor x = make(DataType::kInt4, {2, 2}, {1, -2, 3, -8});
  const Tensor r = mov(OpKind::kTile, x, {std::vector<int64_t>{2, 3}});
  EXPECT_EQ(r.shape, (Shape{4, 6}));
  EXPECT_EQ(values_of(r), (V{1, -2, 1, -2, 1, -2, 3, -8, 3, -8, 3, -8,
                             1, -2, 1, -2, 1, -2, 3, -8, 3, -8, 3, -8}));
}

TEST(MovementKernel, PadModes) {
  const Tensor x = make(DataType::kFloat32, {2, 3}, {1, 2, 3, 4, 5, 6});
  const std::vector<RawValue> pads = {std::vector<int64_t>{1, 2}, std::vector<int64_t>{0, 1}};
  const Tensor c = mov(OpKind::kPad, x, pads, {{"value", -1.5}});
  EXPECT_EQ(c.shape, (Shape{3, 6}));
  EXPECT_EQ(values_of(c), (V{-1.5, -1.5, -1.5, -1.5, -1.5, -1.5, -1.5, -1.5, 1, 2, 3, -1.5, -1.5,
                             -1.5, 4, 5, 6, -1.5}));
  EXPECT_EQ(values_of(mov(OpKind::kPad, x, pads))[0], 0);
  EXPECT_EQ(values_of(mov(OpKind::kPad, x, pads, {{"mode", "edge"}})),
            (V{1, 1, 1, 2, 3, 3, 1, 1, 1, 2, 3, 3, 4, 4, 4, 5, 6, 6}));
  EXPECT_EQ(values_of(mov(OpKind::kPad, x, pads, {{"mode", "reflection"}})),
            (V{6, 5, 4, 5, 6, 5, 3, 2, 1, 2, 3, 2, 6, 5, 4, 5, 6, 5}));
  const int64_t big = (int64_t(1) << 60) + 3;
  const Tensor l = make_exact<int64_t>(DataType::kInt64, {1}, {-4});
  EXPECT_EQ(raw_of<int64_t>(mov(OpKind::kPad, l, {std::vector<int64_t>{1}, std::vector<int64_t>{0}},
                                {{"value", big}})),
            (std::vector<int64_t>{big, -4}));
}

TEST(MovementKernel, ReshapeKeepsOrder) {
  const Tensor x = make(DataType::kUint8, {2, 3}, {9, 8, 7, 6, 5, 4});
  const Tensor r = mov(OpKind::kReshape, x, {std::vector<int64_t>{3, 1, 2}});
  EXPECT_EQ(r.shape, (Shape{3, 1, 2}));
  EXPECT_EQ(values_of(r), (V{9, 8, 7, 6, 5, 4}));
}

TEST(MovementKernel, TriangularUpperLowerWithDiagonal) {
  const Tensor x = make(DataType::kFloat16, {2, 2, 3}, iota(12, 1));
  EXPECT_EQ(values_of(mov(OpKind::kTriangular, x)), (V{1, 2, 3, 0, 5, 6, 7, 8, 9, 0, 11, 12}));
  EXPECT_EQ(values_of(mov(OpKind::kTriangular, x, {}, {{"upper", false}, {"diagonal", 0}})),
            (V{1, 0, 0, 4, 5, 0, 7, 0, 0, 10, 11, 0}));
  EXPECT_EQ(values_of(mov(OpKind::kTriangular, x, {}, {{"diagonal", -1}})),
            (V{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}));
  EXPECT_EQ(values_of(mov(OpKind::kTriangular, x, {}, {{"upper", false}, {"diagonal", 1}})),
            (V{1, 2, 0, 4, 5, 6, 7, 8, 0, 10, 11, 12}));
}

}  // namespace
}  // namespace wnn::kernels
