#include "wnn/onnx/wire.h"

#include <gtest/gtest.h>

#include "proto_writer.h"
#include "test_util.h"
#include "wnn/core/error.h"
#include "wnn/onnx/model.h"

namespace wnn::onnx {
namespace {

using testing::error_of;
using testing::ProtoWriter;

std::span<const std::byte> bytes_of(const std::string& s) {
  return std::as_bytes(std::span(s.data(), s.size()));
}

TEST(WireReader, ReadsVarintsOfEveryLengthIncludingTheLargest) {
  ProtoWriter w;
  w.int_field(1, 0).int_field(1, 300).int_field(1, -2).int_field(1, INT64_MAX);
  WireReader r(w.span(), FieldPath{});
  std::vector<int64_t> got;
  while (r.next()) got.push_back(r.read_int64("x"));
  EXPECT_EQ(got, (std::vector<int64_t>{0, 300, -2, INT64_MAX}));
}

TEST(WireReader, Int32KeepsTheLowBitsOfASignExtendedVarint) {
  ProtoWriter w;
  w.int_field(1, -7);  // written as a 10-byte varint, as protobuf writes negative int32
  WireReader r(w.span(), FieldPath{});
  ASSERT_TRUE(r.next());
  EXPECT_EQ(r.read_int32("x"), -7);
}

TEST(WireReader, TruncatedVarintNamesTheField) {
  const std::string bytes = "\x08\x96";  // field 1 varint, continuation bit set, then nothing
  WireReader r(bytes_of(bytes), FieldPath{nullptr, "dims", -1});
  ASSERT_TRUE(r.next());
  EXPECT_EQ(error_of([&] { r.read_int64("x"); }), "dims.x: truncated varint");
}

TEST(WireReader, ElevenByteVarintIsRejected) {
  std::string bytes = "\x08";
  bytes += std::string(10, '\x80');
  bytes += '\x01';
  WireReader r(bytes_of(bytes), FieldPath{});
  ASSERT_TRUE(r.next());
  EXPECT_EQ(error_of([&] { r.read_uint64("v"); }), "v: varint longer than 10 bytes");
}

TEST(WireReader, TenthVarintByteAboveOneOverflows) {
  std::string bytes = "\x08";
  bytes += std::string(9, '\xff');
  bytes += '\x02';  // bit 64 would be set
  WireReader r(bytes_of(bytes), FieldPath{});
  ASSERT_TRUE(r.next());
  EXPECT_EQ(error_of([&] { r.read_uint64("v"); }), "v: varint overflows 64 bits");
}

TEST(WireReader, LengthBeyondTheEndIsRejectedWithTheRemainingCount) {
  ProtoWriter w;
  w.tag(4, 2).varint(10).raw("abc");
  WireReader r(w.span(), FieldPath{});
  ASSERT_TRUE(r.next());
  EXPECT_EQ(error_of([&] { r.read_bytes("s"); }), "s: length 10 exceeds the 3 remaining bytes");
}

TEST(WireReader, HugeLengthDoesNotWrapAround) {
  ProtoWriter w;
  w.tag(4, 2).varint(UINT64_MAX - 1).raw("xy");
  WireReader r(w.span(), FieldPath{});
  ASSERT_TRUE(r.next());
  EXPECT_NE(error_of([&] { r.read_bytes("s"); }).find("exceeds the 2 remaining"),
            std::string::npos);
}

TEST(WireReader, SkipsUnknownFieldsOfEveryWireType) {
  ProtoWriter group;
  group.int_field(1, 5).bytes_field(2, "in group");
  ProtoWriter w;
  w.int_field(9, -1)                           // varint
      .fixed64_field(10, 0x1122334455667788u)  // fixed64
      .bytes_field(11, "skip me")              // length-delimited
      .tag(12, 3)                              // start group 12 ...
      .raw(group.str())
      .tag(13, 3)  // ... with a nested group 13
      .int_field(1, 1)
      .tag(13, 4)
      .tag(12, 4)                     // end group 12
      .fixed32_field(14, 0xdeadbeef)  // fixed32
      .int_field(2, 42);              // the known field after all of them
  WireReader r(w.span(), FieldPath{});
  int64_t value = 0;
  int skipped = 0;
  while (r.next()) {
    if (r.field_number() == 2) {
      value = r.read_int64("known");
    } else {
      r.skip();
      ++skipped;
    }
  }
  EXPECT_EQ(value, 42);
  EXPECT_EQ(skipped, 5);
}

TEST(WireReader, GroupWithMismatchedOrMissingEndIsRejected) {
  ProtoWriter mismatched;
  mismatched.tag(12, 3).int_field(1, 1).tag(13, 4);
  WireReader r1(mismatched.span(), FieldPath{});
  ASSERT_TRUE(r1.next());
  EXPECT_NE(error_of([&] { r1.skip(); }).find("end-group tag of field 13"), std::string::npos);

  ProtoWriter unterminated;
  unterminated.tag(12, 3).int_field(1, 1);
  WireReader r2(unterminated.span(), FieldPath{});
  ASSERT_TRUE(r2.next());
  EXPECT_NE(error_of([&] { r2.skip(); }).find("no end-group tag"), std::string::npos);

  ProtoWriter stray_end;
  stray_end.tag(3, 4);
  WireReader r3(stray_end.span(), FieldPath{});
  EXPECT_NE(error_of([&] { r3.next(); }).find("without a start-group"), std::string::npos);
}

TEST(WireReader, DeeplyNestedGroupsAreBounded) {
  ProtoWriter w;
  for (int i = 0; i < 100; ++i) w.tag(5, 3);
  for (int i = 0; i < 100; ++i) w.tag(5, 4);
  WireReader r(w.span(), FieldPath{});
  ASSERT_TRUE(r.next());
  EXPECT_NE(error_of([&] { r.skip(); }).find("nested too deeply"), std::string::npos);
}

TEST(WireReader, InvalidWireTypeAndFieldZeroAreRejected) {
  const std::string type6 = "\x0e\x00";  // field 1, wire type 6
  WireReader r1(bytes_of(type6), FieldPath{});
  EXPECT_NE(error_of([&] { r1.next(); }).find("invalid wire type 6"), std::string::npos);
  const std::string field0("\x00\x00", 2);
  WireReader r2(bytes_of(field0), FieldPath{});
  EXPECT_NE(error_of([&] { r2.next(); }).find("invalid field number 0"), std::string::npos);
}

TEST(WireReader, PackedAndUnpackedRepeatedIntsAccumulateInOrder) {
  ProtoWriter w;
  w.int_field(1, 3).packed_varints(1, {-1, 0, 1000000}).int_field(1, 7).packed_varints(1, {});
  WireReader r(w.span(), FieldPath{});
  std::vector<int64_t> got;
  while (r.next()) r.append_int64s("dims", got, 100);
  EXPECT_EQ(got, (std::vector<int64_t>{3, -1, 0, 1000000, 7}));
}

TEST(WireReader, PackedFloatsAndDoublesDecodeAndOddRunsAreRejected) {
  ProtoWriter floats;
  const float fv[] = {1.5f, -0.0f, 3e-39f};
  floats.bytes_field(4, std::string(reinterpret_cast<const char*>(fv), sizeof fv))
      .float_field(4, -2.25f);
  WireReader r(floats.span(), FieldPath{});
  std::vector<float> got;
  while (r.next()) r.append_floats("float_data", got, 100);
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got[0], 1.5f);
  EXPECT_TRUE(std::signbit(got[1]));
  EXPECT_EQ(got[2], 3e-39f);
  EXPECT_EQ(got[3], -2.25f);

  ProtoWriter odd;
  odd.bytes_field(10, std::string(12, '\0'));  // 12 bytes is not a whole number of doubles
  WireReader r2(odd.span(), FieldPath{nullptr, "t", -1});
  std::vector<double> d;
  ASSERT_TRUE(r2.next());
  EXPECT_EQ(error_of([&] { r2.append_doubles("double_data", d, 100); }),
            "t.double_data: packed run of 12 bytes is not a multiple of 8");
}

TEST(WireReader, RepeatedCountLimitIsEnforced) {
  ProtoWriter w;
  w.packed_varints(1, {1, 2, 3, 4});
  WireReader r(w.span(), FieldPath{});
  std::vector<int64_t> got;
  ASSERT_TRUE(r.next());
  EXPECT_EQ(error_of([&] { r.append_int64s("dims", got, 3); }), "dims: more than 3 elements");
}

TEST(WireReader, WrongWireTypeForAKnownFieldIsAnError) {
  ProtoWriter w;
  w.bytes_field(1, "x");
  WireReader r(w.span(), FieldPath{});
  ASSERT_TRUE(r.next());
  EXPECT_EQ(error_of([&] { r.read_int64("ir_version"); }),
            "ir_version: wire type 2 where 0 was expected");
}

TEST(WireReader, ErrorsInsideNestedMessagesCarryTheWholePath) {
  ProtoWriter tensor;
  tensor.tag(1, 0).raw("\xff");  // dims: truncated varint
  ProtoWriter graph;
  graph.bytes_field(2, "g");
  for (int i = 0; i < 3; ++i) graph.message(5, ProtoWriter().int_field(2, 1));
  graph.message(5, tensor);
  ProtoWriter model;
  model.int_field(1, 8).message(7, graph);
  EXPECT_EQ(error_of([&] { decode_model(model.span(), nullptr); }),
            "graph.initializer[3].dims: truncated varint");
}

}  // namespace
}  // namespace wnn::onnx
