// The rustnn packed 4-bit layout: two elements per byte, element 0 in the low nibble. In
// memory wnn holds int4/uint4 one element per byte (int4 sign-extended into int8).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "wnn/core/tensor.h"

namespace wnn::format {

// The archive metadata key and the only version wnn reads and writes.
inline constexpr const char* kPacked4MetadataKey = "rustnn.webnn.packed4";
inline constexpr const char* kPacked4Version = "1";

// Bytes that hold `elements` packed 4-bit values: ceil(elements / 2).
constexpr size_t packed4_size(size_t elements) { return elements / 2 + elements % 2; }

// Unpacks `elements` values from `packed` (which must hold packed4_size(elements) bytes).
// Signed: each nibble is sign-extended (0x8..0xF -> -8..-1).
Buffer unpack4(std::span<const std::byte> packed, size_t elements, bool is_signed);

// Packs one byte per element into `out` (packed4_size(unpacked.size()) bytes). Every value must
// fit the nibble: [-8, 7] when signed, [0, 15] otherwise; `what` names the tensor on error.
// An odd count leaves the last high nibble zero.
void pack4(std::span<const std::byte> unpacked, bool is_signed, std::span<std::byte> out,
           const std::string& what);

}  // namespace wnn::format
