// Resolving dyn(...) input dims: shapes inferred again at the given sizes, weights shared, and
// sizes outside 1..max, unknown names or graphs with size literals refused with the name.
#include "wnn/format/resolve_dims.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "wnn/core/error.h"
#include "wnn/format/graph_file.h"

namespace wnn::format {
namespace {

Graph parse_bound(const std::string& text) {
  Graph g = parse_text(text, "d.webnn");
  const std::vector<float> w = {0.5f, -2.0f, 0.0f, 1.5f, -0.25f, 3.0f};  // [3, 2]
  Buffer data = Buffer::allocate(w.size() * sizeof(float));
  std::memcpy(data.mutable_data(), w.data(), data.size());
  g.bind_constant(0, data);
  g.bind_inline_constants();
  return g;
}

const char* const kMatmul = R"(webnn_graph "d" v2 {
  inputs { x: f32[dyn("batch", 8), 3]; m: f32[dyn("batch", 8), 2]; }
  consts { w: f32[3, 2]; b: f32[2] @scalar(-1); }
  nodes { xw = matmul(x, w); y = add(xw, b); z = mul(y, m); s = reduceSum(z, axes=[1]); }
  outputs { z; s; }
})";

TEST(ResolveDynamicDims, InfersEveryShapeAtTheGivenSizeAndSharesWeights) {
  const Graph g = parse_bound(kMatmul);
  const Graph r = resolve_dynamic_dims(g, {{"batch", 3}});
  EXPECT_FALSE(r.has_dynamic_inputs());
  EXPECT_EQ(r.desc(*r.find("x")).shape, (Shape{3, 3}));
  EXPECT_EQ(r.desc(*r.find("m")).shape, (Shape{3, 2}));
  EXPECT_EQ(r.desc(*r.find("z")).shape, (Shape{3, 2}));
  EXPECT_EQ(r.desc(*r.find("s")).shape, (Shape{3}));
  const ConstantInfo* w = r.constant_of(*r.find("w"));
  ASSERT_TRUE(w->bound());
  EXPECT_EQ(w->data.data(), g.constant_of(*g.find("w"))->data.data());  // shared, not copied
  const ConstantInfo* b = r.constant_of(*r.find("b"));
  float b0;
  std::memcpy(&b0, b->data.data(), sizeof b0);
  EXPECT_EQ(b0, -1.0f);
}

TEST(ResolveDynamicDims, UnnamedDimsTakeTheirMax) {
  const Graph r = resolve_dynamic_dims(parse_bound(kMatmul), {});
  EXPECT_EQ(r.desc(*r.find("s")).shape, (Shape{8}));
  EXPECT_FALSE(r.has_dynamic_inputs());
}

TEST(ResolveDynamicDims, RejectsSizesOutOfRangeAndUnknownNames) {
  const Graph g = parse_bound(kMatmul);
  for (const int64_t bad : {0, 9}) {
    try {
      resolve_dynamic_dims(g, {{"batch", bad}});
      ADD_FAILURE() << bad;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("'batch'"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("[1, 8]"), std::string::npos) << e.what();
    }
  }
  try {
    resolve_dynamic_dims(g, {{"seq", 2}});
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'seq'"), std::string::npos) << e.what();
  }
}

TEST(ResolveDynamicDims, ReshapeLiteralThatNoLongerFitsNamesTheNode) {
  const Graph g = parse_text(R"(webnn_graph "d" v2 {
  inputs { x: f32[dyn("batch", 4), 6]; }
  nodes { r = reshape(x, newShape=[4, 2, 3]); }
  outputs { r; }
})",
                             "d.webnn");
  EXPECT_EQ(resolve_dynamic_dims(g, {{"batch", 4}}).desc(*g.find("r")).shape, (Shape{4, 2, 3}));
  try {
    resolve_dynamic_dims(g, {{"batch", 2}});
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("reshape"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("resolving dynamic dims"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace wnn::format
