// Buffer::allocate: zero-filled memory, 64-byte aligned for vector loads. allocate_long_lived
// (prepacked weights, arenas) is also 2 MB aligned with transparent huge pages requested once it
// spans a huge page.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

#include "wnn/core/tensor.h"

namespace wnn {
namespace {

constexpr size_t kHugePage = size_t(2) << 20;

bool all_zero(const Buffer& b) {
  for (size_t i = 0; i < b.size(); ++i) {
    if (b.data()[i] != std::byte{0}) return false;
  }
  return true;
}

// The "hg" (huge page advice) flag of the mapping holding `p`, from /proc/self/smaps.
bool advised_huge(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  const auto addr = reinterpret_cast<uintptr_t>(p);
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    uintptr_t lo = 0, hi = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> lo >> dash >> hi && dash == '-') {
      inside = lo <= addr && addr < hi;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line.find(" hg") != std::string::npos;
    }
  }
  return false;
}

TEST(Buffer, BuffersAreVectorAlignedAndZero) {
  for (size_t bytes : {size_t(1), size_t(63), size_t(4097), kHugePage - 1, 3 * kHugePage}) {
    const Buffer b = Buffer::allocate(bytes);
    EXPECT_EQ(b.size(), bytes);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(b.data()) % 64, 0u) << bytes;
    EXPECT_TRUE(all_zero(b)) << bytes;
  }
  EXPECT_EQ(Buffer::allocate(0).size(), 0u);
}

TEST(Buffer, LongLivedHugePageSizedBuffersStartOnAHugePageWithTheAdvice) {
  EXPECT_EQ(reinterpret_cast<uintptr_t>(Buffer::allocate_long_lived(4097).data()) % 64, 0u);
  for (size_t bytes : {kHugePage, 3 * kHugePage + 12345}) {
    const Buffer b = Buffer::allocate_long_lived(bytes);
    EXPECT_EQ(b.size(), bytes);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(b.data()) % kHugePage, 0u) << bytes;
    EXPECT_TRUE(all_zero(b)) << bytes;
    // A kernel built without transparent huge pages rejects the advice (and has no such file).
    if (std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled").good()) {
      EXPECT_TRUE(advised_huge(b.data())) << bytes;
    }
  }
}

}  // namespace
}  // namespace wnn
