// SafetensorsReader::from_bytes: the validation open() uses, over bytes already in memory.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "wnn/core/error.h"
#include "wnn/format/weights.h"

namespace wnn::format {
namespace {

Buffer file_bytes(const std::string& header, const std::string& data) {
  std::string all(8, '\0');
  uint64_t n = header.size();
  std::memcpy(all.data(), &n, 8);  // little-endian host, as the format is
  all += header + data;
  return Buffer::copy_of(std::as_bytes(std::span(all)));
}

TEST(SafetensorsFromBytes, TensorsViewTheBufferAndLoad) {
  const float values[2] = {-2.5f, 0.0f};
  const std::string data(reinterpret_cast<const char*>(values), 8);
  // 3 bytes of padding first: the tensor starts at data offset 3, unaligned for float.
  const Buffer bytes = file_bytes(
      R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[3,11]},"p":{"dtype":"U8","shape":[3],"data_offsets":[0,3]}})",
      std::string("\x01\x02\x03", 3) + data);
  const auto reader = SafetensorsReader::from_bytes(bytes, "mem.safetensors");
  ASSERT_NE(reader->find("w"), nullptr);
  // The stored tensor is a view into the caller's buffer, not a copy.
  EXPECT_GE(reader->find("w")->bytes.data(), bytes.data());
  EXPECT_LT(reader->find("w")->bytes.data(), bytes.data() + bytes.size());
  const Buffer w = reader->load("w", {DataType::kFloat32, {2}});
  ASSERT_EQ(w.size(), 8u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(w.data()) % 4, 0u);  // copied to alignment
  EXPECT_EQ(reinterpret_cast<const float*>(w.data())[0], -2.5f);
  EXPECT_EQ(reader->path(), "mem.safetensors");
}

TEST(SafetensorsFromBytes, ErrorsNameTheGivenName) {
  try {
    SafetensorsReader::from_bytes(
        file_bytes(R"({"w":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})",
                   std::string(8, '\0')),
        "blob.safetensors");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("blob.safetensors: tensor 'w': byte length 8"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(SafetensorsReader::from_bytes(Buffer(), "empty"), Error);
}

}  // namespace
}  // namespace wnn::format
