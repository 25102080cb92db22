// IEEE 754 binary16 conversions. float16 tensors are stored as raw uint16 bit patterns; stores
// round to nearest even, once (double_to_half for values computed in double).
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

namespace wnn {

inline float half_to_float(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (mant << 13);  // inf or nan (payload kept)
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  } else if (mant == 0) {
    bits = sign;  // signed zero
  } else {
    // Subnormal half: normalise.
    int e = -1;
    do {
      ++e;
      mant <<= 1;
    } while ((mant & 0x400u) == 0);
    bits = sign | uint32_t(112 - e) << 23 | ((mant & 0x3ffu) << 13);
  }
  return std::bit_cast<float>(bits);
}

inline uint16_t float_to_half(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  const uint16_t sign = uint16_t((x >> 16) & 0x8000u);
  const uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) {  // inf or nan
    return uint16_t(sign | 0x7c00u | (abs > 0x7f800000u ? (0x200u | ((abs >> 13) & 0x3ffu)) : 0));
  }
  if (abs >= 0x477ff000u) return uint16_t(sign | 0x7c00u);  // rounds to >= 65520: inf
  if (abs < 0x38800000u) {
    // Result is subnormal or zero: shift the implicit-one mantissa, round to nearest even.
    if (abs < 0x33000000u) return sign;  // below half the smallest subnormal
    const uint32_t e = abs >> 23;
    const uint32_t m = (abs & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126 - e;  // 14 + (113 - e) - 1 + 1
    uint32_t h = m >> shift;
    const uint32_t rem = m & ((1u << shift) - 1);
    const uint32_t halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (h & 1u))) ++h;
    return uint16_t(sign | h);
  }
  // Normal: rebias the exponent and round the 13 dropped mantissa bits to nearest even.
  uint32_t h = ((abs - 0x38000000u) >> 13);
  const uint32_t rem = abs & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;
  return uint16_t(sign | h);
}

// A double rounded once to the nearest float16 (ties to even). Going through float with
// float_to_half(float(d)) rounds twice, and a value just above a tie between two float16s can
// land exactly on the tie in float and then go to even, the wrong way. Rounding to float "to
// odd" (truncate, then set the last bit if anything was dropped) keeps the information float16
// needs, since float carries 13 more significand bits than float16's 11.
inline uint16_t double_to_half(double d) {
  float f = static_cast<float>(d);
  if (d == d && static_cast<double>(f) != d) {  // finite or not, d was not exact in float
    uint32_t bits = std::bit_cast<uint32_t>(f);
    const double af = f < 0 ? -static_cast<double>(f) : static_cast<double>(f);
    const double ad = d < 0 ? -d : d;
    if (af > ad) --bits;  // rounded away from zero: step back toward zero
    f = std::bit_cast<float>(bits | 1u);
  }
  return float_to_half(f);
}

}  // namespace wnn
