#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

#include "format_test_util.h"
#include "wnn/core/atomic_file.h"
#include "wnn/format/graph_file.h"
#include "wnn/format/model.h"
#include "wnn/format/shared_weights.h"

namespace wnn::format {
namespace {

class ModelTest : public testing::TempDirTest {};

const char* const kInline = R"(webnn_graph "inline" v1 {
  inputs { x: f32[3]; }
  consts {
    s: f32[3] @scalar(-2.5);
    b: f32[3] @bytes([0, 0, 128, 63, 0, 0, 0, 192, 0, 0, 0, 0]);
    n: i64[2] @scalar(-9007199254740993);
  }
  nodes { y = add(x, s); z = mul(y, b); }
  outputs { z; n; }
}
)";

TEST_F(ModelTest, LoadBindsInlineConstants) {
  write_file_atomic(path("m.webnn"), kInline);
  const Model m = load_model(path("m.webnn"));
  EXPECT_TRUE(m.weights_path.empty());
  const auto consts = m.graph.constants();
  ASSERT_EQ(consts.size(), 3u);
  float s[3], b[3];
  int64_t n[2];
  ASSERT_EQ(consts[0].data.size(), sizeof(s));
  std::memcpy(s, consts[0].data.data(), sizeof(s));
  std::memcpy(b, consts[1].data.data(), sizeof(b));
  std::memcpy(n, consts[2].data.data(), sizeof(n));
  EXPECT_EQ(s[2], -2.5f);
  EXPECT_EQ(b[0], 1.0f);   // 0x3f800000
  EXPECT_EQ(b[1], -2.0f);  // 0xc0000000
  EXPECT_EQ(b[2], 0.0f);
  EXPECT_EQ(n[1], -9007199254740993);  // exact beyond 2^53
}

TEST_F(ModelTest, MissingWeightsFileNamesTheExpectedFiles) {
  write_file_atomic(path("net.webnn"), R"(webnn_graph "net" v1 {
  inputs { x: f32[2, 3]; }
  consts { w2: f32[3, 5]; }
  nodes { y = matmul(x, w2); }
  outputs { y; }
})");
  try {
    load_model(path("net.webnn"));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("no weights file"), std::string::npos) << msg;
    EXPECT_NE(msg.find("model.safetensors"), std::string::npos) << msg;
    EXPECT_NE(msg.find("net.safetensors"), std::string::npos) << msg;
    EXPECT_NE(msg.find("net.weights"), std::string::npos) << msg;
  }
  // Skeleton mode, asked for explicitly, binds zeros instead.
  LoadOptions skeleton;
  skeleton.skeleton = true;
  const Model m = load_model(path("net.webnn"), skeleton);
  const ConstantInfo& c = m.graph.constants()[0];
  ASSERT_EQ(c.data.size(), 15 * sizeof(float));
  for (std::byte v : c.data.bytes()) EXPECT_EQ(v, std::byte{0});
}

TEST_F(ModelTest, SaveWritesTextOrJsonByExtension) {
  write_file_atomic(path("m.webnn"), kInline);
  const Model m = load_model(path("m.webnn"));
  save_model(m.graph, path("out.webnn"), "");
  save_model(m.graph, path("out.json"), "");
  EXPECT_EQ(read_file(path("out.webnn")), print_text(m.graph));
  EXPECT_EQ(read_file(path("out.json")).front(), '{');
  EXPECT_EQ(print_text(read_graph_file(path("out.json"))), print_text(m.graph));
  // Nothing but the two files: no temporaries left behind.
  size_t files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir_)) ++files;
  EXPECT_EQ(files, 3u);
}

TEST_F(ModelTest, SaveRefusesUnloadedWeights) {
  const Graph g = parse_text(
      "webnn_graph \"w\" v1 {\n  consts { w: f32[2]; }\n  outputs { w; }\n}\n", "w.webnn");
  try {
    save_model(g, path("w.webnn"), path("w.safetensors"));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("constant 'w' has no data"), std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(path("w.webnn")));
}

// A file in rustnn's style: int4 weights packed two per byte in a U8 tensor, low nibble first,
// with the packed4 marker in __metadata__, and keys rustnn rewrote ('.' -> '_').
TEST_F(ModelTest, LoadsRustnnPackedInt4WeightsAndSavesThemPacked) {
  const std::string header = R"({"__metadata__":{"rustnn.webnn.packed4":"1"},)"
                             R"("layer_qw":{"dtype":"U8","shape":[3],"data_offsets":[0,3]},)"
                             R"("layer_scale":{"dtype":"F32","shape":[1],"data_offsets":[3,7]}})";
  std::string file(8, '\0');
  const uint64_t n = header.size();
  std::memcpy(file.data(), &n, 8);
  file += header;
  // Elements -8, 7, -1, 0, 5 -> nibbles 8,7 | f,0 | 5 -> bytes 0x78, 0x0f, 0x05.
  file += std::string("\x78\x0f\x05", 3);
  const float scale = 0.5f;
  file.append(reinterpret_cast<const char*>(&scale), 4);
  write_file_atomic(path("model.safetensors"), file);
  write_file_atomic(path("q.webnn"), R"(webnn_graph "q" v1 {
  consts {
    layer.qw: i4[5];
    layer.scale: f32[1];
    zero: i4[1] @scalar(0);
  }
  nodes { y = dequantizeLinear(layer.qw, layer.scale, zero); }
  outputs { y; }
}
)");
  const Model m = load_model(path("q.webnn"));
  EXPECT_EQ(m.weights_path, path("model.safetensors"));
  const auto* q = m.graph.constant_of(*m.graph.find("layer.qw"));
  ASSERT_NE(q, nullptr);
  const auto* v = reinterpret_cast<const int8_t*>(q->data.data());
  EXPECT_EQ(std::vector<int8_t>(v, v + 5), (std::vector<int8_t>{-8, 7, -1, 0, 5}));
  // Saved and reloaded, the weights stay packed and the graph prints the same.
  save_model(m.graph, path("out/q.webnn"), path("out/q.safetensors"));
  const Model again = load_model(path("out/q.webnn"));
  EXPECT_EQ(print_text(again.graph), print_text(m.graph));
  const auto* q2 = again.graph.constant_of(*again.graph.find("layer.qw"));
  EXPECT_EQ(std::memcmp(q2->data.data(), q->data.data(), 5), 0);
  const std::string saved = read_file(path("out/q.safetensors"));
  EXPECT_NE(saved.find(R"("rustnn.webnn.packed4":"1")"), std::string::npos);
}

// Two phase graphs of one model: the weight they agree on is stored once, the constant that
// differs (a folded shape) gets a key of its own, and each graph reloads through the shared file.
Graph phase_graph(int64_t rows, const std::vector<float>& w, const std::vector<int64_t>& shape) {
  Graph g = parse_text(fmt::format(R"(webnn_graph "p" v1 {{
  inputs {{ x: f32[{0}, 2]; }}
  consts {{ w: f32[2, 3] @weights("w"); s: i64[2] @weights("shape"); }}
  nodes {{ y = matmul(x, w); }}
  outputs {{ y; s; }}
}})",
                                   rows),
                       "p.webnn");
  auto bind = [&](size_t i, const void* data, size_t bytes) {
    Buffer b = Buffer::allocate(bytes);
    std::memcpy(b.mutable_data(), data, bytes);
    g.bind_constant(i, std::move(b));
  };
  bind(0, w.data(), w.size() * sizeof(float));
  bind(1, shape.data(), shape.size() * sizeof(int64_t));
  return g;
}

TEST_F(ModelTest, PhasesShareOneWeightsFile) {
  const std::vector<float> w{1.5f, -2.0f, 0.0f, -0.25f, 3.0f, 7.0f};
  Graph prefill = phase_graph(5, w, {5, -3});
  Graph decode = phase_graph(1, w, {1, -3});
  Graph* graphs[] = {&prefill, &decode};
  const std::string names[] = {"prefill", "decode"};
  EXPECT_EQ(give_distinct_keys(graphs, names), 1u);
  EXPECT_EQ(prefill.constants()[1].key, "shape");
  EXPECT_EQ(decode.constants()[0].key, "w");
  EXPECT_EQ(decode.constants()[1].key, "shape.decode");
  const GraphToSave saves[] = {{&prefill, path("m.prefill.webnn")},
                               {&decode, path("m.decode.webnn")}};
  save_models(saves, path("m.safetensors"));
  const std::string file = read_file(path("m.safetensors"));
  EXPECT_EQ(file.find("\"w\""), file.rfind("\"w\""));  // stored once
  EXPECT_NE(file.find("\"shape.decode\""), std::string::npos);

  const Model a = load_model(path("m.prefill.webnn"));
  const Model b = load_model(path("m.decode.webnn"));
  EXPECT_EQ(a.weights_path, path("m.safetensors"));
  EXPECT_EQ(b.weights_path, path("m.safetensors"));
  const auto shape_of = [](const Model& m) {
    const auto* c = m.graph.constant_of(*m.graph.find("s"));
    std::vector<int64_t> v(2);
    std::memcpy(v.data(), c->data.data(), sizeof(int64_t) * 2);
    return v;
  };
  EXPECT_EQ(shape_of(a), (std::vector<int64_t>{5, -3}));
  EXPECT_EQ(shape_of(b), (std::vector<int64_t>{1, -3}));
  // Both loads view one mapping of the file: the shared weight has one address.
  const auto* wa = a.graph.constant_of(*a.graph.find("w"));
  const auto* wb = b.graph.constant_of(*b.graph.find("w"));
  EXPECT_EQ(wa->data.data(), wb->data.data());
  EXPECT_EQ(std::memcmp(wa->data.data(), w.data(), w.size() * sizeof(float)), 0);

  // A key clash within one graph's own renames: a third phase differing again gets its own key.
  Graph third = phase_graph(2, w, {2, -3});
  Graph* three[] = {&prefill, &decode, &third};
  const std::string three_names[] = {"prefill", "decode", "decode"};
  EXPECT_EQ(give_distinct_keys(three, three_names), 1u);
  EXPECT_EQ(third.constants()[1].key, "shape.decode2");
}

TEST_F(ModelTest, PhasesWithDifferentWeightsUnderOneKeyAreKeptApart) {
  Graph a = phase_graph(3, {1, 2, 3, 4, 5, 6}, {3, 2});
  Graph b = phase_graph(3, {1, 2, 3, 4, 5, -6}, {3, 2});
  Graph* graphs[] = {&a, &b};
  const std::string names[] = {"one", "two"};
  EXPECT_EQ(give_distinct_keys(graphs, names), 1u);
  EXPECT_EQ(b.constants()[0].key, "w.two");
  EXPECT_EQ(b.constants()[1].key, "shape");
  // Without the renames the file cannot hold both.
  Graph c = phase_graph(3, {0, 2, 3, 4, 5, 6}, {3, 2});
  const GraphToSave clash[] = {{&a, path("x.one.webnn")}, {&c, path("x.two.webnn")}};
  EXPECT_THROW(save_models(clash, path("x.safetensors")), Error);
}

}  // namespace
}  // namespace wnn::format
