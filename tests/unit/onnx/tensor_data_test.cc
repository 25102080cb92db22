#include "wnn/onnx/tensor_data.h"

#include <gtest/gtest.h>

#include <cstring>

#include <cmath>
#include <limits>

#include "test_util.h"

namespace wnn::onnx {
namespace {

using testing::bytes_buffer;
using testing::elements;
using testing::error_of;

TensorProto tensor(OnnxType type, std::vector<int64_t> dims) {
  TensorProto t;
  t.name = "w";
  t.data_type = int32_t(type);
  t.dims = std::move(dims);
  return t;
}

const ExternalDataResolver kNoExternal;

TEST(TensorData, Int4RawUnpacksLowNibbleFirstWithOddCount) {
  // Elements 1, 2, 8, 15, 7 (unsigned) = 1, 2, -8, -1, 7 (signed); the last high nibble pads.
  TensorProto t = tensor(OnnxType::kInt4, {5});
  t.raw_data = bytes_buffer({0x21, 0xf8, 0x07});
  const TensorData d = tensor_data(t, kNoExternal);
  EXPECT_EQ(d.dtype, DataType::kInt4);
  EXPECT_EQ(elements<int8_t>(d), (std::vector<int8_t>{1, 2, -8, -1, 7}));
  EXPECT_FALSE(d.zero_copy);

  t.data_type = int32_t(OnnxType::kUint4);
  const TensorData u = tensor_data(t, kNoExternal);
  EXPECT_EQ(u.dtype, DataType::kUint4);
  EXPECT_EQ(elements<uint8_t>(u), (std::vector<uint8_t>{1, 2, 8, 15, 7}));
}

TEST(TensorData, Int4FromInt32DataTakesOnePackedByteEach) {
  TensorProto t = tensor(OnnxType::kInt4, {1, 3});
  t.int32_data = {0x9f, 0x00};  // -1, -7, 0 and a padding nibble
  EXPECT_EQ(elements<int8_t>(tensor_data(t, kNoExternal)), (std::vector<int8_t>{-1, -7, 0}));
  t.int32_data = {0x9f};  // three elements need two bytes
  EXPECT_NE(error_of([&] { tensor_data(t, kNoExternal); }).find("int32_data has 1 values"),
            std::string::npos);
}

TEST(TensorData, Int4RawLengthMustBeHalfTheCountRoundedUp) {
  TensorProto t = tensor(OnnxType::kUint4, {5});
  t.raw_data = bytes_buffer({0x21, 0xf8});
  EXPECT_EQ(error_of([&] { tensor_data(t, kNoExternal); }),
            "tensor 'w' (UINT4): raw_data has 2 bytes but dims [5] need 3");
}

TEST(TensorData, Float16AndBfloat16FromInt32Data) {
  TensorProto h = tensor(OnnxType::kFloat16, {3});
  h.int32_data = {0x3c00, 0xc000, 0x7bff};  // 1.0, -2.0, 65504
  const TensorData hd = tensor_data(h, kNoExternal);
  EXPECT_EQ(hd.dtype, DataType::kFloat16);
  EXPECT_EQ(elements<uint16_t>(hd), (std::vector<uint16_t>{0x3c00, 0xc000, 0x7bff}));

  TensorProto b = tensor(OnnxType::kBfloat16, {2, 2});
  b.int32_data = {0x3f80, 0xc0a0, 0x0000, 0x8000};  // 1, -5, 0, -0
  const TensorData bd = tensor_data(b, kNoExternal);
  EXPECT_EQ(bd.dtype, DataType::kFloat32);
  EXPECT_EQ(bd.conversion, "BFLOAT16 widened to float32");
  const auto v = elements<float>(bd);
  EXPECT_EQ(v, (std::vector<float>{1.0f, -5.0f, 0.0f, -0.0f}));
  EXPECT_TRUE(std::signbit(v[3]));

  h.int32_data = {0x3c00, 70000, 0};
  EXPECT_NE(error_of([&] {
              tensor_data(h, kNoExternal);
            }).find("int32_data[1] = 70000 is outside [-32768, 65535]"),
            std::string::npos);
}

TEST(TensorData, DoubleDataNarrowsToFloat32) {
  TensorProto t = tensor(OnnxType::kDouble, {3});
  t.double_data = {1.5, -1e300, 0.1};
  const TensorData d = tensor_data(t, kNoExternal);
  EXPECT_EQ(d.dtype, DataType::kFloat32);
  EXPECT_EQ(d.conversion, "DOUBLE narrowed to float32");
  const auto v = elements<float>(d);
  EXPECT_EQ(v[0], 1.5f);
  EXPECT_EQ(v[1], -std::numeric_limits<float>::infinity());
  EXPECT_EQ(v[2], 0.1f);
}

TEST(TensorData, NarrowIntegerTypesComeFromInt32DataRangeChecked) {
  TensorProto i8 = tensor(OnnxType::kInt8, {3});
  i8.int32_data = {-128, 127, 0};
  EXPECT_EQ(elements<int8_t>(tensor_data(i8, kNoExternal)), (std::vector<int8_t>{-128, 127, 0}));
  i8.int32_data = {-128, 128, 0};
  EXPECT_NE(error_of([&] { tensor_data(i8, kNoExternal); }).find("int32_data[1] = 128"),
            std::string::npos);

  TensorProto b = tensor(OnnxType::kBool, {4});
  b.int32_data = {0, 1, 5, -1};
  const TensorData bd = tensor_data(b, kNoExternal);
  EXPECT_EQ(bd.dtype, DataType::kUint8);
  EXPECT_EQ(elements<uint8_t>(bd), (std::vector<uint8_t>{0, 1, 1, 1}));

  TensorProto u32 = tensor(OnnxType::kUint32, {2});
  u32.uint64_data = {0xffffffffu, 0};
  EXPECT_EQ(elements<uint32_t>(tensor_data(u32, kNoExternal)),
            (std::vector<uint32_t>{0xffffffffu, 0}));
  u32.uint64_data = {0x100000000u, 0};
  EXPECT_NE(error_of([&] { tensor_data(u32, kNoExternal); }).find("exceeds uint32"),
            std::string::npos);

  TensorProto i64 = tensor(OnnxType::kInt64, {2});
  i64.int64_data = {-5, INT64_MIN};
  EXPECT_EQ(elements<int64_t>(tensor_data(i64, kNoExternal)),
            (std::vector<int64_t>{-5, INT64_MIN}));
}

TEST(TensorData, AlignedRawDataIsAZeroCopyViewAndMisalignedIsCopied) {
  const Buffer block = bytes_buffer({0xff, 0, 0, 0x80, 0x3f, 0, 0, 0, 0xc0});
  // Floats 1.0 and -2.0 start at byte 1: misaligned for float.
  TensorProto t = tensor(OnnxType::kFloat, {2});
  t.raw_data = Buffer::view(nullptr, block.data() + 1, 8);
  const TensorData copied = tensor_data(t, kNoExternal);
  EXPECT_FALSE(copied.zero_copy);
  EXPECT_NE(copied.data.data(), block.data() + 1);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(copied.data.data()) % 4, 0u);
  EXPECT_EQ(elements<float>(copied), (std::vector<float>{1.0f, -2.0f}));

  t.raw_data = Buffer::copy_of(std::span(block.data() + 1, 8));  // 64-byte aligned
  const TensorData viewed = tensor_data(t, kNoExternal);
  EXPECT_TRUE(viewed.zero_copy);
  EXPECT_EQ(viewed.data.data(), t.raw_data->data());
}

TEST(TensorData, KeepMisalignedViewsTheFileBytesAndRealignsOnlyOnRequest) {
  const Buffer block = bytes_buffer({0xff, 0, 0, 0x80, 0x3f, 0, 0, 0, 0xc0});
  TensorProto t = tensor(OnnxType::kFloat, {2});
  t.raw_data = Buffer::view(nullptr, block.data() + 1, 8);
  const TensorData viewed = tensor_data(t, kNoExternal, /*keep_misaligned=*/true);
  EXPECT_TRUE(viewed.zero_copy);
  EXPECT_TRUE(viewed.misaligned);
  EXPECT_EQ(viewed.data.data(), block.data() + 1);
  const Buffer aligned = aligned_copy_if_needed(viewed.data, DataType::kFloat32);
  EXPECT_NE(aligned.data(), viewed.data.data());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(aligned.data()) % 4, 0u);
  float v[2];
  std::memcpy(v, aligned.data(), 8);
  EXPECT_EQ(v[0], 1.0f);
  EXPECT_EQ(v[1], -2.0f);
  // uint8 is aligned anywhere: the same bytes, no copy, not flagged.
  TensorProto u8 = tensor(OnnxType::kUint8, {3});
  u8.raw_data = Buffer::view(nullptr, block.data() + 1, 3);
  const TensorData bytes = tensor_data(u8, kNoExternal, true);
  EXPECT_FALSE(bytes.misaligned);
  EXPECT_EQ(aligned_copy_if_needed(bytes.data, DataType::kUint8).data(), block.data() + 1);
}

TEST(TensorData, RawBoolBytesAreNormalisedToZeroOrOne) {
  TensorProto t = tensor(OnnxType::kBool, {3});
  t.raw_data = bytes_buffer({0, 2, 1});
  const TensorData d = tensor_data(t, kNoExternal);
  EXPECT_EQ(elements<uint8_t>(d), (std::vector<uint8_t>{0, 1, 1}));
  EXPECT_FALSE(d.zero_copy);
}

TEST(TensorData, CountsMustMatchTheDims) {
  TensorProto t = tensor(OnnxType::kFloat, {2, 3});
  t.float_data = {1, 2, 3, 4, 5};
  EXPECT_EQ(error_of([&] { tensor_data(t, kNoExternal); }),
            "tensor 'w' (FLOAT): float_data has 5 values but dims [2, 3] need 6");
  t.float_data.clear();  // no data at all for six elements
  EXPECT_NE(error_of([&] { tensor_data(t, kNoExternal); }).find("float_data has 0 values"),
            std::string::npos);
}

TEST(TensorData, EmptyTensorNeedsNoData) {
  const TensorData d = tensor_data(tensor(OnnxType::kInt64, {3, 0}), kNoExternal);
  EXPECT_EQ(d.shape, (Shape{3, 0}));
  EXPECT_EQ(d.data.size(), 0u);
}

TEST(TensorData, ScalarHasOneElement) {
  TensorProto t = tensor(OnnxType::kInt32, {});
  t.int32_data = {-42};
  const TensorData d = tensor_data(t, kNoExternal);
  EXPECT_TRUE(d.shape.empty());
  EXPECT_EQ(elements<int32_t>(d), (std::vector<int32_t>{-42}));
}

TEST(TensorData, UnsupportedTypesAndBadDimsAreRejected) {
  EXPECT_EQ(error_of([&] { tensor_data(tensor(OnnxType::kInt16, {2}), kNoExternal); }),
            "tensor 'w' (INT16): data type INT16 is not supported by WebNN");
  EXPECT_NE(error_of([&] {
              tensor_data(tensor(OnnxType::kString, {1}), kNoExternal);
            }).find("STRING is not supported"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              tensor_data(tensor(OnnxType::kFloat, {2, -1}), kNoExternal);
            }).find("tensor 'w' (FLOAT)"),
            std::string::npos);
  TensorProto seg = tensor(OnnxType::kFloat, {1});
  seg.has_segment = true;
  EXPECT_NE(error_of([&] { tensor_data(seg, kNoExternal); }).find("segmented"), std::string::npos);
}

TEST(TensorData, DtypeMapping) {
  EXPECT_EQ(wnn_dtype_for(int32_t(OnnxType::kBool)), DataType::kUint8);
  EXPECT_EQ(wnn_dtype_for(int32_t(OnnxType::kDouble)), DataType::kFloat32);
  EXPECT_EQ(wnn_dtype_for(int32_t(OnnxType::kUint4)), DataType::kUint4);
  EXPECT_EQ(wnn_dtype_for(int32_t(OnnxType::kInt4)), DataType::kInt4);
  EXPECT_EQ(wnn_dtype_for(int32_t(OnnxType::kUint16)), std::nullopt);
  EXPECT_EQ(wnn_dtype_for(99), std::nullopt);
  EXPECT_EQ(raw_byte_size(int32_t(OnnxType::kInt4), 7), 4u);
  EXPECT_EQ(raw_byte_size(int32_t(OnnxType::kDouble), 3), 24u);
  EXPECT_EQ(onnx_type_name(22), "INT4");
  EXPECT_EQ(onnx_type_name(21), "UINT4");
  EXPECT_EQ(onnx_type_name(40), "TYPE_40");
}

}  // namespace
}  // namespace wnn::onnx
