#include "wnn/format/packed4.h"

#include "wnn/core/error.h"

namespace wnn::format {

namespace {
int8_t sign_extend4(uint8_t nibble) { return int8_t(nibble >= 8 ? int(nibble) - 16 : nibble); }
}  // namespace

Buffer unpack4(std::span<const std::byte> packed, size_t elements, bool is_signed) {
  check_internal(packed.size() == packed4_size(elements), "unpack4: {} bytes for {} elements",
                 packed.size(), elements);
  Buffer out = Buffer::allocate(elements);
  auto* dst = reinterpret_cast<uint8_t*>(out.mutable_data());
  for (size_t i = 0; i < elements; ++i) {
    const uint8_t byte = uint8_t(packed[i / 2]);
    const uint8_t nibble = (i % 2 == 0) ? (byte & 0x0f) : (byte >> 4);
    dst[i] = is_signed ? uint8_t(sign_extend4(nibble)) : nibble;
  }
  return out;
}

void pack4(std::span<const std::byte> unpacked, bool is_signed, std::span<std::byte> out,
           const std::string& what) {
  check_internal(out.size() == packed4_size(unpacked.size()), "pack4: {} bytes for {} elements",
                 out.size(), unpacked.size());
  for (size_t i = 0; i < unpacked.size(); ++i) {
    const int value = is_signed ? int(int8_t(unpacked[i])) : int(uint8_t(unpacked[i]));
    check(is_signed ? (value >= -8 && value <= 7) : (value >= 0 && value <= 15),
          "{}: element {} is {}, outside the {} range", what, i, value,
          is_signed ? "int4 [-8, 7]" : "uint4 [0, 15]");
    const uint8_t nibble = uint8_t(value) & 0x0f;
    uint8_t& byte = reinterpret_cast<uint8_t&>(out[i / 2]);
    byte = (i % 2 == 0) ? nibble : uint8_t(byte | (nibble << 4));
  }
}

}  // namespace wnn::format
