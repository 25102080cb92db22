#include <gtest/gtest.h>

#include "test_files.h"
#include "wnn/core/half.h"
#include "wnn/format/weights.h"

namespace wnn::format {
namespace {

using testing::buffer_of;
using testing::error_of;
using testing::read_raw;
using testing::TempDir;
using testing::values_of;
using testing::write_raw;

std::string npy_v1(const std::string& dict, const std::string& data) {
  std::string header = dict;
  header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  out += char(header.size() & 0xff);
  out += char(header.size() >> 8);
  return out + header + data;
}

TEST(Npy, RoundTripsEveryDtype) {
  TempDir dir;
  const std::vector<Tensor> tensors = {
      {DataType::kFloat32, {2, 2}, buffer_of<float>({-1.25f, 0.0f, 7e20f, -0.0f})},
      {DataType::kFloat16, {3}, buffer_of<uint16_t>({float_to_half(-3.0f), 0, 0x3c00})},
      {DataType::kInt32, {1, 1, 3}, buffer_of<int32_t>({-5, INT32_MAX, 0})},
      {DataType::kUint32, {2}, buffer_of<uint32_t>({4294967295u, 3})},
      {DataType::kInt64, {}, buffer_of<int64_t>({-(int64_t(1) << 50)})},
      {DataType::kUint64, {2}, buffer_of<uint64_t>({0, ~uint64_t(0)})},
      {DataType::kInt8, {5}, buffer_of<int8_t>({-128, -1, 0, 1, 127})},
      {DataType::kUint8, {0, 3}, Buffer()},
  };
  for (size_t i = 0; i < tensors.size(); ++i) {
    SCOPED_TRACE(i);
    const std::string path = dir.file("t" + std::to_string(i) + ".npy");
    write_npy(path, tensors[i].view());
    const std::string bytes = read_raw(path);
    EXPECT_EQ(bytes[6], '\x01');  // version 1.0
    EXPECT_EQ((10 + uint8_t(bytes[8]) + 256 * uint8_t(bytes[9])) % 64, 0u);
    const Tensor back = read_npy(path);
    EXPECT_EQ(back.dtype, tensors[i].dtype);
    EXPECT_EQ(back.shape, tensors[i].shape);
    ASSERT_EQ(back.data.size(), tensors[i].data.size());
    if (!back.data.empty()) {
      EXPECT_EQ(0, std::memcmp(back.data.data(), tensors[i].data.data(), back.data.size()));
    }
    const Tensor parsed = parse_npy(std::as_bytes(std::span(bytes)), path);
    EXPECT_EQ(parsed.shape, tensors[i].shape);
  }
}

TEST(Npy, WritesInt4AsInt8AndReadsBoolAsUint8) {
  TempDir dir;
  const Tensor q{DataType::kInt4, {3}, buffer_of<int8_t>({-8, 7, -1})};
  write_npy(dir.file("q.npy"), q.view());
  const Tensor back = read_npy(dir.file("q.npy"));
  EXPECT_EQ(back.dtype, DataType::kInt8);
  EXPECT_EQ(values_of<int8_t>(back.data), (std::vector<int8_t>{-8, 7, -1}));
  write_raw(dir.file("b.npy"), npy_v1("{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }",
                                      std::string("\x01\x00", 2)));
  const Tensor b = read_npy(dir.file("b.npy"));
  EXPECT_EQ(b.dtype, DataType::kUint8);
  EXPECT_EQ(values_of<uint8_t>(b.data), (std::vector<uint8_t>{1, 0}));
}

TEST(Npy, ReadsVersions2And3AndLenientSpacing) {
  const std::string dict = "{\"descr\":'<i4',\"shape\":(2L,),'fortran_order':False}";
  for (char version : {'\x02', '\x03'}) {
    std::string bytes("\x93NUMPY", 6);
    bytes += version;
    bytes += '\0';
    bytes += std::string{char(dict.size()), 0, 0, 0};
    bytes += dict;
    const int32_t v[2] = {-9, 1 << 30};
    bytes.append(reinterpret_cast<const char*>(v), 8);
    const Tensor t = parse_npy(std::as_bytes(std::span(bytes)), "mem.npy");
    EXPECT_EQ(t.shape, Shape({2}));
    EXPECT_EQ(values_of<int32_t>(t.data), (std::vector<int32_t>{-9, 1 << 30}));
  }
}

TEST(Npy, RejectsEachMalformedFileNamingTheProblem) {
  const std::string good_dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
  const std::string eight(8, '\0');
  struct Case {
    const char* name;
    std::string bytes;
    const char* message;
  };
  std::string huge_len("\x93NUMPY\x02\x00", 8);
  huge_len += std::string("\xff\xff\xff\x7f", 4);
  std::string past_end("\x93NUMPY\x01\x00\xf0\x00", 10);
  const std::vector<Case> cases = {
      {"magic", "NUMPY", "not a .npy file"},
      {"version", std::string("\x93NUMPY\x04\x00\x00\x00", 10), "version 4.0 is not supported"},
      {"huge_header", huge_len, "above the limit"},
      {"header_past_end", past_end + "{}", "header length 240 runs past the end"},
      {"fortran", npy_v1("{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }", eight),
       "Fortran order"},
      {"big_endian", npy_v1("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", eight),
       "dtype '>f4' is not supported"},
      {"f8", npy_v1("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", eight),
       "dtype '<f8' is not supported"},
      {"short_data", npy_v1(good_dict, "1234"), "data is 4 bytes, shape [2] of <f4 needs 8"},
      {"long_data", npy_v1(good_dict, eight + "x"), "data is 9 bytes"},
      {"negative", npy_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }", ""),
       "expected a non-negative integer"},
      {"overflow",
       npy_v1("{'descr': '|u1', 'fortran_order': False, 'shape': (1099511627776, 1099511627776), }",
              ""),
       "more than 281474976710656 elements"},
      {"huge_dim",
       npy_v1("{'descr': '|u1', 'fortran_order': False, 'shape': (99999999999999999999999999,), }",
              ""),
       "too large"},
      {"rank",
       npy_v1("{'descr': '|u1', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1), }", "x"),
       "more than 8 dims"},
      {"missing_key", npy_v1("{'descr': '<f4', 'shape': (2,), }", eight), "must give"},
      {"unknown_key", npy_v1("{'descr': '<f4', 'extra': (), }", eight), "unexpected key 'extra'"},
      {"unterminated", npy_v1("{'descr: '<f4'", eight), "expected ':'"},
      {"trailing", npy_v1(good_dict + " x", eight), "trailing text"},
      {"nested", npy_v1("{'descr': '<f4', 'fortran_order': False, 'shape': ((2,),), }", eight),
       "expected a non-negative integer"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string e = error_of([&] { parse_npy(std::as_bytes(std::span(c.bytes)), "in.npy"); });
    EXPECT_NE(e.find("in.npy"), std::string::npos) << e;
    EXPECT_NE(e.find(c.message), std::string::npos) << e;
  }
}

TEST(Npy, NumpyReadsWhatWnnWritesAndWnnReadsWhatNumpyWrites) {
  if (!testing::have_python()) GTEST_SKIP() << "/usr/bin/python3 is missing: no numpy to compare";
  TempDir dir;
  const Tensor t{DataType::kFloat16,
                 {2, 3},
                 buffer_of<uint16_t>({float_to_half(-1.5f), float_to_half(0.25f), 0,
                                      float_to_half(1000.0f), 0xfc00, float_to_half(-0.125f)})};
  write_npy(dir.file("w.npy"), t.view());
  const std::string out = testing::run_command(
      "/usr/bin/python3 -c \"import numpy as np; a = np.load('" + dir.file("w.npy") +
      "'); print(a.dtype, a.shape, a.flatten().tolist())\"");
  EXPECT_EQ(out, "float16 (2, 3) [-1.5, 0.25, 0.0, 1000.0, -inf, -0.125]\n");
  const Tensor s{DataType::kUint64, {}, buffer_of<uint64_t>({18446744073709551615ull})};
  write_npy(dir.file("s.npy"), s.view());
  EXPECT_EQ(testing::run_command("/usr/bin/python3 -c \"import numpy as np; a = np.load('" +
                                 dir.file("s.npy") + "'); print(a.dtype, a.shape, int(a))\""),
            "uint64 () 18446744073709551615\n");

  testing::run_command("/usr/bin/python3 -c \"import numpy as np; np.save('" + dir.file("n.npy") +
                       "', np.array([[-3, 0], [7, -2147483648], [5, 6]], dtype=np.int32)); "
                       "np.save('" +
                       dir.file("b.npy") + "', np.array([True, False, True]))\"");
  const Tensor n = read_npy(dir.file("n.npy"));
  EXPECT_EQ(n.dtype, DataType::kInt32);
  EXPECT_EQ(n.shape, Shape({3, 2}));
  EXPECT_EQ(values_of<int32_t>(n.data), (std::vector<int32_t>{-3, 0, 7, INT32_MIN, 5, 6}));
  const Tensor b = read_npy(dir.file("b.npy"));
  EXPECT_EQ(b.dtype, DataType::kUint8);
  EXPECT_EQ(values_of<uint8_t>(b.data), (std::vector<uint8_t>{1, 0, 1}));
}

}  // namespace
}  // namespace wnn::format
