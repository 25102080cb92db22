#include "wnn/core/file_names.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace wnn {
namespace {

TEST(FileNames, OrdinaryNamesStayAsTheyAre) {
  EXPECT_EQ(file_name_component("logits"), "logits");
  EXPECT_EQ(file_name_component("conv1.weight-2_b"), "conv1.weight-2_b");
}

TEST(FileNames, PathsAndDotsNeverEscapeTheDirectory) {
  EXPECT_EQ(file_name_component("/model/out"), "%2Fmodel%2Fout");
  EXPECT_EQ(file_name_component(".."), "%2E.");
  EXPECT_EQ(file_name_component("."), "%2E");
  EXPECT_EQ(file_name_component(".hidden"), "%2Ehidden");
  EXPECT_EQ(file_name_component("input:0"), "input%3A0");
  EXPECT_EQ(file_name_component(""), "%");
  for (const char* name : {"../../etc/passwd", "/abs", "a/../b", "\\x", "a\nb", "\xff\x80"}) {
    const std::string f = file_name_component(name);
    EXPECT_EQ(f.find('/'), std::string::npos) << name;
    EXPECT_NE(f.front(), '.') << name;
  }
}

TEST(FileNames, EveryByteMapsInjectively) {
  std::set<std::string> seen;
  for (int a = 0; a < 256; ++a) {
    for (int b : {0, int('x'), int('%'), int('.'), 0xff}) {
      const std::string name{char(a), char(b)};
      EXPECT_TRUE(seen.insert(file_name_component(name)).second) << a << " " << b;
    }
  }
  // '%' itself is escaped, so an encoded-looking name cannot collide with the name it encodes.
  EXPECT_NE(file_name_component("%2F"), file_name_component("/"));
}

TEST(FileNames, LongNamesAreCappedAndStayDistinct) {
  const std::string a(5000, 'a'), b = std::string(4999, 'a') + "b";
  EXPECT_EQ(file_name_component(a).size(), 200u);
  EXPECT_NE(file_name_component(a), file_name_component(b));
  EXPECT_EQ(file_name_component(std::string(200, 'c')), std::string(200, 'c'));
}

}  // namespace
}  // namespace wnn
