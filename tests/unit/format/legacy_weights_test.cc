#include <gtest/gtest.h>

#include "test_files.h"
#include "wnn/format/weights.h"

namespace wnn::format {
namespace {

using testing::buffer_of;
using testing::error_of;
using testing::TempDir;
using testing::values_of;
using testing::write_raw;

// WGWT, version 1, then: f32[2] at 8, i8[3] at 16, int4[3] packed at 19.
std::string wgwt_file() {
  std::string b("WGWT\x01\x00\x00\x00", 8);
  const float f[2] = {-2.75f, 1e-3f};
  b.append(reinterpret_cast<const char*>(f), 8);
  b += std::string("\xfe\x00\x7f", 3);  // -2, 0, 127
  b += std::string("\x9f\x02", 2);      // int4: -1, -7, 2
  return b;
}

const char* kManifest = R"({
  "format": "wg-weights-manifest", "version": 1, "endianness": "little", "producer": "x",
  "tensors": {
    "conv1.weight": {"dataType": "float32", "shape": [2, 1], "byteOffset": 8, "byteLength": 8,
                     "layout": "row-major"},
    "idx": {"dataType": "i8", "shape": [3], "byteOffset": 16, "byteLength": 3},
    "q": {"dataType": "int4", "shape": [3], "byteOffset": 19, "byteLength": 2}
  }
})";

TEST(LegacyWeights, ReadsTensorsThroughTheManifest) {
  TempDir dir;
  write_raw(dir.file("net.weights"), wgwt_file());
  write_raw(dir.file("net.manifest.json"), kManifest);
  auto w = open_legacy_weights(dir.file("net.weights"));
  EXPECT_EQ(values_of<float>(w->load("conv1.weight", {DataType::kFloat32, {2, 1}})),
            (std::vector<float>{-2.75f, 1e-3f}));
  EXPECT_EQ(values_of<float>(w->load("conv1_weight", {DataType::kFloat32, {2, 1}})),
            (std::vector<float>{-2.75f, 1e-3f}));
  EXPECT_EQ(values_of<int8_t>(w->load("idx", {DataType::kInt8, {3}})),
            (std::vector<int8_t>{-2, 0, 127}));
  EXPECT_EQ(values_of<int8_t>(w->load("q", {DataType::kInt4, {3}})),
            (std::vector<int8_t>{-1, -7, 2}));
  std::vector<std::string> order;
  for (const StoredTensor* t : w->tensors()) order.push_back(t->key);
  EXPECT_EQ(order, (std::vector<std::string>{"conv1.weight", "idx", "q"}));
  const std::string e = error_of([&] { w->load("idx", {DataType::kUint8, {3}}); });
  EXPECT_NE(e.find("stored as i8 [3], the graph declares uint8[3]"), std::string::npos) << e;
}

TEST(LegacyWeights, UsesTheOnlyManifestBesideItAndRefusesToGuessAmongSeveral) {
  TempDir dir;
  write_raw(dir.file("a.weights"), wgwt_file());
  write_raw(dir.file("other.manifest.json"),
            std::string(kManifest).replace(std::string(kManifest).find("wg-weights"), 10,
                                           "webnn-weights"));
  auto w = open_legacy_weights(dir.file("a.weights"));
  EXPECT_NE(w->find("q"), nullptr);
  write_raw(dir.file("second.manifest.json"), kManifest);
  const std::string e = error_of([&] { open_legacy_weights(dir.file("a.weights")); });
  EXPECT_NE(e.find("several manifests beside it (other.manifest.json, second.manifest.json)"),
            std::string::npos)
      << e;
}

TEST(LegacyWeights, RejectsBadFilesAndRangesNamingThem) {
  TempDir dir;
  struct Case {
    const char* name;
    std::string weights;
    std::string manifest;
    const char* message;
  };
  const std::string m = kManifest;
  auto replace = [&](const std::string& from, const std::string& to) {
    std::string s = m;
    s.replace(s.find(from), from.size(), to);
    return s;
  };
  const std::vector<Case> cases = {
      {"magic", "WGWX" + wgwt_file().substr(4), m, "no WGWT magic"},
      {"version", "WGWT\x02" + wgwt_file().substr(5), m, "WGWT version 2 is not supported"},
      {"format", wgwt_file(), replace("wg-weights-manifest", "other"), "\"format\" is \"other\""},
      {"past_end", wgwt_file(), replace("\"byteOffset\": 19", "\"byteOffset\": 20"),
       "byte range [20, 22) is outside"},
      {"in_magic", wgwt_file(), replace("\"byteOffset\": 8,", "\"byteOffset\": 4,"),
       "byte range [4, 12) is outside"},
      {"length", wgwt_file(), replace("\"byteLength\": 3", "\"byteLength\": 2"),
       "byteLength 2 does not match i8 [3] (3 bytes)"},
      {"dtype", wgwt_file(), replace("\"i8\"", "\"complex64\""), "unknown dataType \"complex64\""},
      {"negative", wgwt_file(), replace("[3], \"byteOffset\": 16", "[-3], \"byteOffset\": 16"),
       "non-negative integers, got -3"},
      {"json", wgwt_file(), m.substr(0, 40), "manifest: not valid JSON"},
      {"endianness", wgwt_file(), replace("little", "big"), "endianness \"big\""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string path = dir.file(std::string(c.name) + ".weights");
    write_raw(path, c.weights);
    write_raw(dir.file(std::string(c.name) + ".manifest.json"), c.manifest);
    const std::string e = error_of([&] { open_legacy_weights(path); });
    EXPECT_NE(e.find(c.name), std::string::npos) << e;
    EXPECT_NE(e.find(c.message), std::string::npos) << e;
  }
}

TEST(WeightsLookup, FollowsTheDocumentedOrderBesideTheGraph) {
  TempDir dir;
  const std::string graph = dir.file("net.webnn");
  EXPECT_EQ(open_weights_for(graph, std::nullopt), nullptr);
  auto one = [](const std::string& key) {
    return std::vector<TensorToWrite>{{key, DataType::kUint8, {1}, buffer_of<uint8_t>({1})}};
  };
  write_raw(dir.file("model.weights"), wgwt_file());
  write_raw(dir.file("model.manifest.json"), kManifest);
  EXPECT_EQ(open_weights_for(graph, std::nullopt)->path(), dir.file("model.weights"));
  write_raw(dir.file("net.weights"), wgwt_file());
  EXPECT_EQ(open_weights_for(graph, std::nullopt)->path(), dir.file("net.weights"));
  write_safetensors(dir.file("net.safetensors"), one("stem"));
  EXPECT_EQ(open_weights_for(graph, std::nullopt)->path(), dir.file("net.safetensors"));
  write_safetensors(dir.file("model.safetensors"), one("model"));
  auto found = open_weights_for(graph, std::nullopt);
  EXPECT_EQ(found->path(), dir.file("model.safetensors"));
  EXPECT_NE(found->find("model"), nullptr);
  // An explicit path wins; its extension (or, failing that, the WGWT magic) picks the reader.
  EXPECT_NE(open_weights_for(graph, dir.file("net.safetensors"))->find("stem"), nullptr);
  write_raw(dir.file("renamed.bin"), wgwt_file());
  write_raw(dir.file("renamed.manifest.json"), kManifest);
  EXPECT_NE(open_weights_for(graph, dir.file("renamed.bin"))->find("idx"), nullptr);
  const std::string e = error_of([&] { open_weights_for(graph, dir.file("absent.safetensors")); });
  EXPECT_NE(e.find("absent.safetensors' does not exist"), std::string::npos) << e;
}

}  // namespace
}  // namespace wnn::format
