#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "test_files.h"
#include "wnn/core/half.h"
#include "wnn/format/weights.h"

namespace wnn::format {
namespace {

using testing::buffer_of;
using testing::error_of;
using testing::read_raw;
using testing::safetensors_bytes;
using testing::TempDir;
using testing::values_of;
using testing::write_raw;

// One tensor of every dtype with values that a wrong conversion would change: negatives,
// zeros, extremes, odd element counts for the 4-bit types.
std::vector<TensorToWrite> every_dtype() {
  std::vector<TensorToWrite> t;
  t.push_back({"f32.w",
               DataType::kFloat32,
               {2, 3},
               buffer_of<float>({-1.5f, 0.0f, 3.25f, -0.0f, 1e-30f, 65504.5f})});
  t.push_back({"f16",
               DataType::kFloat16,
               {3},
               buffer_of<uint16_t>({float_to_half(-2.0f), float_to_half(0.5f), 0x7c00})});
  t.push_back({"i32", DataType::kInt32, {2, 2}, buffer_of<int32_t>({-7, 0, INT32_MIN, 12345})});
  t.push_back({"u32", DataType::kUint32, {2}, buffer_of<uint32_t>({0u, 4000000000u})});
  t.push_back({"i64", DataType::kInt64, {3}, buffer_of<int64_t>({-(int64_t(1) << 40), 0, 9})});
  t.push_back({"u64", DataType::kUint64, {1}, buffer_of<uint64_t>({(uint64_t(1) << 63) + 5})});
  t.push_back({"i8", DataType::kInt8, {5}, buffer_of<int8_t>({-128, -1, 0, 1, 127})});
  t.push_back({"u8", DataType::kUint8, {1, 3}, buffer_of<uint8_t>({0, 200, 255})});
  t.push_back({"q.i4", DataType::kInt4, {5}, buffer_of<int8_t>({-8, 7, -1, 0, 3})});
  t.push_back({"q.u4", DataType::kUint4, {7}, buffer_of<uint8_t>({15, 0, 1, 8, 9, 14, 6})});
  return t;
}

TEST(Safetensors, RoundTripsEveryDtypeIncludingPacked4) {
  TempDir dir;
  const std::string path = dir.file("model.safetensors");
  const auto tensors = every_dtype();
  write_safetensors(path, tensors);
  auto reader = SafetensorsReader::open(path);
  EXPECT_TRUE(reader->packed4());
  EXPECT_EQ(reader->metadata().at("rustnn.webnn.packed4"), "1");
  ASSERT_EQ(reader->tensors().size(), tensors.size());
  for (const TensorToWrite& t : tensors) {
    SCOPED_TRACE(t.key);
    const Buffer loaded = reader->load(t.key, OperandDesc{t.dtype, t.shape});
    ASSERT_EQ(loaded.size(), t.data.size());
    EXPECT_EQ(0, std::memcmp(loaded.data(), t.data.data(), t.data.size()));
  }
  // The packed forms, worked out by hand: element 0 in the low nibble.
  const StoredTensor* i4 = reader->find("q.i4");
  ASSERT_NE(i4, nullptr);
  EXPECT_EQ(i4->file_dtype, "U8");
  EXPECT_EQ(i4->shape, Shape({3}));
  EXPECT_EQ(values_of<uint8_t>(i4->bytes), (std::vector<uint8_t>{0x78, 0x0f, 0x03}));
  const StoredTensor* u4 = reader->find("q.u4");
  ASSERT_NE(u4, nullptr);
  EXPECT_EQ(values_of<uint8_t>(u4->bytes), (std::vector<uint8_t>{0x0f, 0x81, 0xe9, 0x06}));
  // Sign extension of the loaded int4 values.
  EXPECT_EQ(values_of<int8_t>(reader->load("q.i4", {DataType::kInt4, {5}})),
            (std::vector<int8_t>{-8, 7, -1, 0, 3}));
}

TEST(Safetensors, WritesAlignedContiguousDataAndNoMarkerWithout4Bit) {
  TempDir dir;
  const std::string path = dir.file("w.safetensors");
  std::vector<TensorToWrite> t = {
      {"b", DataType::kUint8, {3}, buffer_of<uint8_t>({1, 2, 3})},
      {"a", DataType::kFloat32, {1}, buffer_of<float>({2.5f})},
      {"c", DataType::kInt64, {1}, buffer_of<int64_t>({-4})},
  };
  write_safetensors(path, t, {{"producer", "wnn"}});
  const std::string bytes = read_raw(path);
  uint64_t header_len = 0;
  std::memcpy(&header_len, bytes.data(), 8);
  EXPECT_EQ((8 + header_len) % 64, 0u);
  EXPECT_EQ(bytes.size(), 8 + header_len + 8 + 4 + 3);  // no gaps, no trailing bytes
  auto reader = SafetensorsReader::open(path);
  EXPECT_FALSE(reader->packed4());
  EXPECT_EQ(reader->metadata(), (std::map<std::string, std::string>{{"producer", "wnn"}}));
  // Largest elements first: i64 at 0, f32 at 8, u8 at 12; each naturally aligned.
  std::vector<std::string> order;
  const std::map<std::string, uintptr_t> element_size = {{"I64", 8}, {"F32", 4}, {"U8", 1}};
  for (const StoredTensor* s : reader->tensors()) {
    order.push_back(s->key);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(s->bytes.data()) % element_size.at(s->file_dtype), 0u);
  }
  EXPECT_EQ(order, (std::vector<std::string>{"c", "a", "b"}));
}

TEST(Safetensors, SameInputGivesIdenticalBytesWhateverTheOrder) {
  TempDir dir;
  auto tensors = every_dtype();
  write_safetensors(dir.file("a.safetensors"), tensors);
  std::reverse(tensors.begin(), tensors.end());
  write_safetensors(dir.file("b.safetensors"), tensors);
  EXPECT_EQ(read_raw(dir.file("a.safetensors")), read_raw(dir.file("b.safetensors")));
}

TEST(Safetensors, LoadIsZeroCopyWhenAlignedAndCopiesWhenNot) {
  TempDir dir;
  // A 1-byte U8 first puts the F32 at data offset 1: unaligned.
  const std::string header = R"({"pad":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},)"
                             R"("x":{"dtype":"F32","shape":[2],"data_offsets":[1,9]}})";
  std::string padded = header + std::string((64 - (8 + header.size()) % 64) % 64, ' ');
  std::string data(1, '\x07');
  const float xs[2] = {-3.5f, 1e10f};
  data.append(reinterpret_cast<const char*>(xs), 8);
  write_raw(dir.file("u.safetensors"), safetensors_bytes(padded, data));
  auto reader = SafetensorsReader::open(dir.file("u.safetensors"));
  const Buffer x = reader->load("x", {DataType::kFloat32, {2}});
  EXPECT_NE(x.data(), reader->find("x")->bytes.data());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(x.data()) % 4, 0u);
  EXPECT_EQ(values_of<float>(x), (std::vector<float>{-3.5f, 1e10f}));
  const Buffer pad = reader->load("pad", {DataType::kUint8, {1}});
  EXPECT_EQ(pad.data(), reader->find("pad")->bytes.data());  // 1-byte data is always aligned

  write_safetensors(dir.file("a.safetensors"),
                    std::vector<TensorToWrite>{{"w", DataType::kFloat32, {2}, x}});
  auto aligned = SafetensorsReader::open(dir.file("a.safetensors"));
  EXPECT_EQ(aligned->load("w", {DataType::kFloat32, {2}}).data(), aligned->find("w")->bytes.data());
}

TEST(Safetensors, WidensBf16ToFloat32AndReadsBoolAsUint8) {
  TempDir dir;
  // BF16 is the top half of a float32: 1.5 = 0x3fc0, -2.5 = 0xc020, 0 = 0x0000, inf = 0x7f80,
  // 3.140625 = 0x4049. Stored after a 1-byte BOOL so the BF16 data is unaligned.
  const std::string header = R"({"flag":{"dtype":"BOOL","shape":[1],"data_offsets":[0,1]},)"
                             R"("h":{"dtype":"BF16","shape":[5],"data_offsets":[1,11]}})";
  const std::string data =
      std::string("\x01", 1) + std::string("\xc0\x3f\x20\xc0\x00\x00\x80\x7f\x49\x40", 10);
  write_raw(dir.file("bf.safetensors"), safetensors_bytes(header, data));
  auto reader = SafetensorsReader::open(dir.file("bf.safetensors"));
  const auto h = values_of<float>(reader->load("h", {DataType::kFloat32, {5}}));
  ASSERT_EQ(h.size(), 5u);
  EXPECT_EQ(h[0], 1.5f);
  EXPECT_EQ(h[1], -2.5f);
  EXPECT_EQ(h[2], 0.0f);
  EXPECT_EQ(h[3], std::numeric_limits<float>::infinity());
  EXPECT_EQ(h[4], 3.140625f);
  EXPECT_EQ(values_of<uint8_t>(reader->load("flag", {DataType::kUint8, {1}})),
            std::vector<uint8_t>{1});
  EXPECT_NE(error_of([&] {
              reader->load("h", {DataType::kFloat16, {5}});
            }).find("stored as BF16 [5], the graph declares float16[5]"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              reader->load("flag", {DataType::kInt8, {1}});
            }).find("BOOL"),
            std::string::npos);
}

TEST(Safetensors, FindsRustnnRewrittenKeysAndKeepsExactLookupsOnCollision) {
  TempDir dir;
  std::vector<TensorToWrite> t = {
      {"encoder.layer::0.weight", DataType::kInt32, {1}, buffer_of<int32_t>({11})},
      {"dec_bias", DataType::kInt32, {1}, buffer_of<int32_t>({22})},
      {"x.y", DataType::kInt32, {1}, buffer_of<int32_t>({33})},
      {"x_y", DataType::kInt32, {1}, buffer_of<int32_t>({44})},
      {"a::b", DataType::kInt32, {1}, buffer_of<int32_t>({55})},
      {"a._b", DataType::kInt32, {1}, buffer_of<int32_t>({66})},
  };
  write_safetensors(dir.file("k.safetensors"), t);
  auto reader = SafetensorsReader::open(dir.file("k.safetensors"));
  auto value = [&](const std::string& key) {
    return values_of<int32_t>(reader->load(key, {DataType::kInt32, {1}}))[0];
  };
  EXPECT_EQ(value("encoder_layer__0_weight"), 11);
  EXPECT_EQ(value("dec.bias"), 22);
  EXPECT_EQ(value("x.y"), 33);  // both rewrite to x_y: exact keys still win
  EXPECT_EQ(value("x_y"), 44);
  EXPECT_EQ(value("a::b"), 55);
  EXPECT_EQ(reader->find("nothing.here"), nullptr);
  const std::string ambiguous = error_of([&] { reader->find("a__b"); });
  EXPECT_NE(ambiguous.find("ambiguous"), std::string::npos) << ambiguous;
  EXPECT_NE(ambiguous.find("'a::b'"), std::string::npos) << ambiguous;
  const std::string missing = error_of([&] { reader->load("nothing", {DataType::kInt32, {1}}); });
  EXPECT_NE(missing.find("no tensor 'nothing'"), std::string::npos) << missing;
}

TEST(Safetensors, KeysWithBracketsAndQuotesDoNotConfuseTheDepthBound) {
  TempDir dir;
  const std::string odd = std::string(20, '[') + "\"{}\\" + std::string(20, '{');
  write_safetensors(
      dir.file("k.safetensors"),
      std::vector<TensorToWrite>{{odd, DataType::kInt8, {2}, buffer_of<int8_t>({-3, 4})},
                                 {"plain", DataType::kInt8, {1}, buffer_of<int8_t>({5})}});
  auto reader = SafetensorsReader::open(dir.file("k.safetensors"));
  EXPECT_EQ(values_of<int8_t>(reader->load(odd, {DataType::kInt8, {2}})),
            (std::vector<int8_t>{-3, 4}));
  EXPECT_EQ(reader->tensors().size(), 2u);
}

TEST(Safetensors, TensorsComeInFileOrder) {
  TempDir dir;
  const std::string header = R"({"zeta":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},)"
                             R"("alpha":{"dtype":"U8","shape":[2],"data_offsets":[3,5]},)"
                             R"("mid":{"dtype":"U8","shape":[2],"data_offsets":[1,3]}})";
  write_raw(dir.file("o.safetensors"), safetensors_bytes(header, "abcde"));
  auto reader = SafetensorsReader::open(dir.file("o.safetensors"));
  std::vector<std::string> keys;
  for (const StoredTensor* s : reader->tensors()) keys.push_back(s->key);
  EXPECT_EQ(keys, (std::vector<std::string>{"zeta", "mid", "alpha"}));
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(reader->find("alpha")->bytes.data()), 2),
            "de");
}

TEST(Safetensors, LoadChecksDeclaredDtypeAndExactShape) {
  TempDir dir;
  write_safetensors(dir.file("m.safetensors"),
                    std::vector<TensorToWrite>{
                        {"w", DataType::kFloat32, {2, 3}, buffer_of<float>({1, 2, 3, 4, 5, 6})},
                        {"s", DataType::kFloat32, {}, buffer_of<float>({-1})}});
  auto reader = SafetensorsReader::open(dir.file("m.safetensors"));
  std::string e = error_of([&] { reader->load("w", {DataType::kFloat32, {6}}); });
  EXPECT_NE(e.find("stored shape [2, 3] differs from the declared float32[6]"), std::string::npos)
      << e;
  e = error_of([&] { reader->load("s", {DataType::kFloat32, {1}}); });
  EXPECT_NE(e.find("stored shape [] differs"), std::string::npos) << e;
  e = error_of([&] { reader->load("w", {DataType::kInt32, {2, 3}}); });
  EXPECT_NE(e.find("'w': stored as F32"), std::string::npos) << e;
  EXPECT_EQ(values_of<float>(reader->load("s", {DataType::kFloat32, {}})), std::vector<float>{-1});
}

// Packed 4-bit rules: the marker is required, its version must be known, the physical shape must
// be [ceil(n/2)] and the storage U8.
TEST(Safetensors, Packed4NeedsTheMarkerAndTheRightPhysicalShape) {
  TempDir dir;
  const std::string entry = R"("q":{"dtype":"U8","shape":[2],"data_offsets":[0,2]})";
  const std::string data("\x9f\x02", 2);
  write_raw(dir.file("none.safetensors"), safetensors_bytes("{" + entry + "}", data));
  write_raw(
      dir.file("v2.safetensors"),
      safetensors_bytes(R"({"__metadata__":{"rustnn.webnn.packed4":"2"},)" + entry + "}", data));
  write_raw(
      dir.file("v1.safetensors"),
      safetensors_bytes(R"({"__metadata__":{"rustnn.webnn.packed4":"1"},)" + entry + "}", data));
  const OperandDesc i4{DataType::kInt4, {3}};
  std::string e =
      error_of([&] { SafetensorsReader::open(dir.file("none.safetensors"))->load("q", i4); });
  EXPECT_NE(e.find("no \"rustnn.webnn.packed4\": \"1\" metadata marker"), std::string::npos) << e;
  e = error_of([&] { SafetensorsReader::open(dir.file("v2.safetensors"))->load("q", i4); });
  EXPECT_NE(e.find("unknown packed 4-bit marker version \"2\""), std::string::npos) << e;
  auto v1 = SafetensorsReader::open(dir.file("v1.safetensors"));
  // 0x9f 0x02 -> nibbles f, 9, 2 (the 4th is padding): -1, -7, 2 signed; 15, 9, 2 unsigned.
  EXPECT_EQ(values_of<int8_t>(v1->load("q", i4)), (std::vector<int8_t>{-1, -7, 2}));
  EXPECT_EQ(values_of<uint8_t>(v1->load("q", {DataType::kUint4, {4}})),
            (std::vector<uint8_t>{15, 9, 2, 0}));
  e = error_of([&] { v1->load("q", {DataType::kInt4, {5}}); });
  EXPECT_NE(e.find("must be stored with shape [3]"), std::string::npos) << e;
  // The plain U8 reading of the same tensor still works.
  EXPECT_EQ(values_of<uint8_t>(v1->load("q", {DataType::kUint8, {2}})),
            (std::vector<uint8_t>{0x9f, 0x02}));
  write_raw(dir.file("i8.safetensors"),
            safetensors_bytes(R"({"__metadata__":{"rustnn.webnn.packed4":"1"},)"
                              R"("q":{"dtype":"I8","shape":[2],"data_offsets":[0,2]}})",
                              data));
  e = error_of([&] { SafetensorsReader::open(dir.file("i8.safetensors"))->load("q", i4); });
  EXPECT_NE(e.find("must be stored packed as U8, but the file stores I8"), std::string::npos) << e;
}

struct Malformed {
  const char* name;
  std::string bytes;
  const char* message;
};

std::string st(const std::string& header, const std::string& data = "") {
  return safetensors_bytes(header, data);
}

TEST(Safetensors, RejectsEachMalformedFileNamingTheProblem) {
  const std::string deep = std::string(200, '[') + std::string(200, ']');
  const std::vector<Malformed> cases = {
      {"truncated", "abc", "shorter than the 8-byte header length"},
      {"huge_header", testing::u64_le(uint64_t(1) << 62) + "{}",
       "header length 4611686018427387904 is above the limit"},
      {"header_past_end", testing::u64_le(100) + "{}",
       "header length 100 runs past the end of the file"},
      {"bad_json", st(R"({"a": )"), "header: not valid JSON"},
      {"not_object", st("[1, 2]"), "header is JSON array but must be an object"},
      {"too_deep", st(R"({"a":)" + deep + "}"), "nests deeper than 8 levels"},
      {"overlap",
       st(R"({"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},)"
          R"("b":{"dtype":"U8","shape":[2],"data_offsets":[3,5]}})",
          "12345"),
       "tensors 'a' [0, 4] and 'b' [3, 5] overlap"},
      {"out_of_range", st(R"({"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]}})", "12"),
       "data_offsets [0, 4] run past the end of the data (2 bytes)"},
      {"reversed", st(R"({"a":{"dtype":"U8","shape":[0],"data_offsets":[2,1]}})", "12"),
       "end before they begin"},
      {"wrong_length", st(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}})", "1234"),
       "byte length 4 (data_offsets [0, 4]) does not match F32 [2] (8 bytes)"},
      {"bad_dtype", st(R"({"a":{"dtype":"F64","shape":[1],"data_offsets":[0,8]}})", "12345678"),
       "unsupported dtype \"F64\""},
      {"shape_overflow",
       st(R"({"a":{"dtype":"U8","shape":[1099511627776,1099511627776],"data_offsets":[0,1]}})",
          "1"),
       "has more than 281474976710656 elements"},
      {"negative_dim", st(R"({"a":{"dtype":"U8","shape":[-1],"data_offsets":[0,0]}})"),
       "shape[0] must be a non-negative integer, got -1"},
      {"float_dim", st(R"({"a":{"dtype":"U8","shape":[1.5],"data_offsets":[0,0]}})"),
       "shape[0] must be a non-negative integer, got 1.5"},
      {"rank", st(R"({"a":{"dtype":"U8","shape":[1,1,1,1,1,1,1,1,1],"data_offsets":[0,1]}})", "1"),
       "rank 9, above the maximum 8"},
      {"missing_offsets", st(R"({"a":{"dtype":"U8","shape":[1]}})", "1"),
       "tensor 'a' has no \"data_offsets\""},
      {"entry_not_object", st(R"({"a":3})"), "tensor 'a' must be an object"},
      {"metadata_not_strings", st(R"({"__metadata__":{"k":1}})"),
       "\"__metadata__\" entry 'k' must be a string"},
      {"duplicate_key",
       st(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},)"
          R"("a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}})",
          "12"),
       "header: JSON declares 'a' twice"},
  };
  TempDir dir;
  for (const Malformed& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string path = dir.file(std::string(c.name) + ".safetensors");
    write_raw(path, c.bytes);
    const std::string e = error_of([&] { SafetensorsReader::open(path); });
    EXPECT_NE(e.find(path), std::string::npos) << e;
    EXPECT_NE(e.find(c.message), std::string::npos) << e;
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  }
}

TEST(Safetensors, WriterRejectsBadTensorsAndLeavesNoFileBehind) {
  TempDir dir;
  const std::string path = dir.file("bad.safetensors");
  write_raw(path, "previous contents");
  std::string e = error_of([&] {
    write_safetensors(path, std::vector<TensorToWrite>{
                                {"a", DataType::kFloat32, {1}, buffer_of<float>({1})},
                                {"q", DataType::kInt4, {3}, buffer_of<int8_t>({1, 9, -2})}});
  });
  EXPECT_NE(e.find("tensor 'q': element 1 is 9, outside the int4 [-8, 7] range"), std::string::npos)
      << e;
  e = error_of([&] {
    write_safetensors(
        path, std::vector<TensorToWrite>{{"a", DataType::kFloat32, {2}, buffer_of<float>({1})}});
  });
  EXPECT_NE(e.find("4 bytes of data for float32[2]"), std::string::npos) << e;
  e = error_of([&] {
    write_safetensors(
        path, std::vector<TensorToWrite>{{"a", DataType::kUint8, {1}, buffer_of<uint8_t>({1})},
                                         {"a", DataType::kUint8, {1}, buffer_of<uint8_t>({2})}});
  });
  EXPECT_NE(e.find("tensor 'a' is given twice"), std::string::npos) << e;
  // The failed writes neither replaced the file nor left temporaries.
  EXPECT_EQ(read_raw(path), "previous contents");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), {}), 1);
}

// An independent reader: Python's json and numpy apply the reference implementation's rules
// (tensors tile the data exactly) and print the values wnn wrote.
TEST(Safetensors, PythonReadsWhatWnnWrites) {
  if (!testing::have_python()) GTEST_SKIP() << "/usr/bin/python3 is missing: no independent reader";
  TempDir dir;
  const std::string path = dir.file("py.safetensors");
  write_safetensors(path, every_dtype());
  const std::string script = R"(
import json, struct, sys, numpy as np
b = open(sys.argv[1], 'rb').read()
n = struct.unpack('<Q', b[:8])[0]
h = json.loads(b[8:8 + n])
meta = h.pop('__metadata__', {})
data = b[8 + n:]
spans = sorted(tuple(v['data_offsets']) for v in h.values())
pos = 0
for s, e in spans:
    assert s == pos, ('gap or overlap', s, pos)
    pos = e
assert pos == len(data), ('trailing bytes', pos, len(data))
types = {'F32': '<f4', 'F16': '<f2', 'I32': '<i4', 'U32': '<u4', 'I64': '<i8', 'U64': '<u8', 'I8': 'i1', 'U8': 'u1'}
for k in sorted(h):
    v = h[k]
    s, e = v['data_offsets']
    a = np.frombuffer(data[s:e], dtype=types[v['dtype']]).reshape(v['shape'])
    print(k, v['dtype'], v['shape'], a.flatten().tolist())
print('meta', sorted(meta.items()))
)";
  write_raw(dir.file("check.py"), script);
  const std::string out =
      testing::run_command("/usr/bin/python3 " + dir.file("check.py") + " " + path);
  EXPECT_NE(out.find("f32.w F32 [2, 3] [-1.5, 0.0, 3.25, -0.0, 1.0000000031710769e-30, 65504.5]"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("f16 F16 [3] [-2.0, 0.5, inf]"), std::string::npos) << out;
  EXPECT_NE(out.find("i32 I32 [2, 2] [-7, 0, -2147483648, 12345]"), std::string::npos) << out;
  EXPECT_NE(out.find("u64 U64 [1] [9223372036854775813]"), std::string::npos) << out;
  EXPECT_NE(out.find("q.i4 U8 [3] [120, 15, 3]"), std::string::npos) << out;
  EXPECT_NE(out.find("meta [('rustnn.webnn.packed4', '1')]"), std::string::npos) << out;
}

}  // namespace
}  // namespace wnn::format
