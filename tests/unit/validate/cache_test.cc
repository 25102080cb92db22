#include "wnn/validate/cache.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>

#include "test_env.h"
#include "wnn/core/atomic_file.h"
#include "wnn/format/model.h"
#include "wnn/onnx/import.h"
#include "wnn/runtime/inputs.h"
#include "wnn/runtime/session.h"
#include "wnn/validate/conversion.h"
#include "wnn/validate/validate.h"

namespace wnn::validate {
namespace {

namespace fs = std::filesystem;
using testing::kTinyClassifier;
using testing::ScopedEnv;
using testing::ScratchDir;

std::vector<runtime::NamedTensor> run_graph(std::shared_ptr<const Graph> graph) {
  runtime::SessionOptions o;
  o.backend = "ref";
  o.warn_fallback = false;
  runtime::Session s(graph, o);
  std::vector<runtime::NamedTensor> inputs;
  std::vector<runtime::NamedView> views;
  for (const auto& in : graph->inputs()) {
    inputs.push_back({graph->name_of(in.id),
                      runtime::deterministic_tensor(graph->desc(in.id), graph->name_of(in.id), 3)});
  }
  for (const auto& t : inputs) views.push_back({t.name, t.tensor.view()});
  return s.run(views);
}

TEST(Cache, ReloadedEntryGivesTheSameOutputsAsAFreshConversion) {
  ScratchDir dir;
  ScopedEnv env("WNN_CACHE_DIR", dir / "cache");
  const onnx::ModelProto model = onnx::load_model(kTinyClassifier);
  const CachedConversion c = convert_cached(kTinyClassifier, model, {});
  EXPECT_TRUE(c.result.built);
  format::Model loaded = format::load_model(c.result.entry.graph_path);
  const auto cached = run_graph(std::make_shared<const Graph>(std::move(loaded.graph)));
  onnx::ImportResult fresh = onnx::import_model(kTinyClassifier);
  const auto direct = run_graph(std::make_shared<const Graph>(std::move(fresh.graph)));
  ASSERT_EQ(cached.size(), 1u);
  ASSERT_EQ(direct.size(), 1u);
  ASSERT_EQ(cached[0].tensor.shape, (Shape{1, 10}));
  ASSERT_EQ(cached[0].tensor.shape, direct[0].tensor.shape);
  EXPECT_EQ(0, std::memcmp(cached[0].tensor.data.data(), direct[0].tensor.data.data(),
                           cached[0].tensor.byte_size()));
  // The metadata records the source, its digest, the options and the name maps.
  const auto& meta = c.result.entry.metadata;
  EXPECT_EQ(meta["sha256"], c.digest);
  EXPECT_EQ(meta["inputs"][0]["onnx"], "image");
  EXPECT_EQ(meta["outputs"][0]["onnx"], "logits");
  EXPECT_EQ(meta["versions"]["wnn"], WNN_VERSION);
  // A second conversion reuses the entry.
  const CachedConversion again = convert_cached(kTinyClassifier, model, {});
  EXPECT_FALSE(again.result.built);
  EXPECT_EQ(again.key, c.key);
}

TEST(Cache, OptionsAndSourceChangeTheKey) {
  onnx::ImportOptions a, b;
  b.override_dims["batch"] = 2;
  EXPECT_NE(cache_key("abc", options_json(a)), cache_key("abc", options_json(b)));
  EXPECT_NE(cache_key("abc", options_json(a)), cache_key("abd", options_json(a)));
  EXPECT_EQ(cache_key("abc", options_json(b)), cache_key("abc", options_json(b)));
}

void expect_rebuilt(const std::string& why_part,
                    const std::function<void(const std::string&)>& damage) {
  ScratchDir dir;
  ScopedEnv env("WNN_CACHE_DIR", dir / "cache");
  const onnx::ModelProto model = onnx::load_model(kTinyClassifier);
  const CachedConversion first = convert_cached(kTinyClassifier, model, {});
  damage(first.result.entry.dir);
  // validate-cached refuses the damaged entry and says how to rebuild it.
  ValidateOptions v;
  v.storage = Storage::kCachedOnly;
  const Report r = validate_onnx_model(kTinyClassifier, v);
  EXPECT_EQ(r.stage, "conversion");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.message.find("damaged"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find(why_part), std::string::npos) << r.message;
  // A conversion rebuilds it, and the rebuilt files verify.
  const CachedConversion second = convert_cached(kTinyClassifier, model, {});
  EXPECT_TRUE(second.result.built);
  EXPECT_NE(second.result.rebuilt.find(why_part), std::string::npos) << second.result.rebuilt;
  const ConversionCache cache(dir / "cache");
  const auto found = cache.find(second.key);
  EXPECT_TRUE(found.entry.has_value()) << found.problem;
  EXPECT_EQ(fs::file_size(second.result.entry.weights_path),
            first.result.entry.metadata["files"]["model.safetensors"]["bytes"].get<uint64_t>());
}

TEST(Cache, TruncatedWeightsAreDetectedAndRebuilt) {
  expect_rebuilt("bytes", [](const std::string& d) {
    fs::resize_file(d + "/model.safetensors", fs::file_size(d + "/model.safetensors") / 2);
  });
}

TEST(Cache, SameSizeCorruptionIsCaughtByTheDigest) {
  expect_rebuilt("SHA-256", [](const std::string& d) {
    std::fstream f(d + "/model.safetensors", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-3, std::ios::end);
    f.put('\x7f');
  });
}

TEST(Cache, MissingEntrySaysHowToCreateIt) {
  ScratchDir dir;
  ScopedEnv env("WNN_CACHE_DIR", dir / "cache");
  ValidateOptions v;
  v.storage = Storage::kCachedOnly;
  const Report r = validate_onnx_model(kTinyClassifier, v);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.message.find("wnn convert " + kTinyClassifier + " --cache"), std::string::npos)
      << r.message;
}

TEST(Cache, UnusableRootIsAnActionableError) {
  ScratchDir dir;
  std::ofstream(dir / "file") << "x";
  ScopedEnv env("WNN_CACHE_DIR", dir / "file/sub");
  try {
    cache_root();
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("WNN_CACHE_DIR"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(dir / "file/sub"), std::string::npos) << e.what();
  }
}

TEST(Cache, TwoProcessesConvertingAtOnceBothSucceed) {
  ScratchDir dir;
  const std::string cmd = fmt::format(
      "export WNN_CACHE_DIR='{0}/cache'; "
      "'{1}' convert '{2}' --cache > '{0}/a.out' 2>&1 & a=$!; "
      "'{1}' convert '{2}' --cache > '{0}/b.out' 2>&1 & b=$!; "
      "wait $a; ra=$?; wait $b; rb=$?; echo $ra $rb > '{0}/rc'",
      dir.path(), WNN_BINARY, kTinyClassifier);
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  std::ifstream rc(dir / "rc");
  int ra = -1, rb = -1;
  rc >> ra >> rb;
  EXPECT_EQ(ra, 0);
  EXPECT_EQ(rb, 0);
  // One entry, verified, and no temporary directories left behind.
  int entries = 0;
  for (const auto& e : fs::directory_iterator(dir / "cache")) {
    const std::string name = e.path().filename().string();
    EXPECT_NE(name.rfind(".tmp-", 0), 0u) << name;
    if (e.is_directory()) {
      ++entries;
      const auto found = ConversionCache(dir / "cache").find(name);
      EXPECT_TRUE(found.entry.has_value()) << found.problem;
    }
  }
  EXPECT_EQ(entries, 1);
  const std::string a = read_file(dir / "a.out"), b = read_file(dir / "b.out");
  // Exactly one of them built the entry; the other reused it.
  EXPECT_EQ((a.find("wrote cache entry") != std::string::npos) +
                (b.find("wrote cache entry") != std::string::npos),
            1)
      << a << b;
}

// What a writer killed mid-build leaves: its build directory (and the trash of the entry it was
// replacing), with a partial file in each. The next writer of any key removes them when their
// key's lock is free, and leaves a live writer's (its key's lock held) alone.
TEST(Cache, BuildDirectoriesOfDeadWritersAreRemovedLiveOnesKept) {
  ScratchDir dir;
  const std::string root = dir / "cache";
  fs::create_directories(root);
  const std::string dead(64, 'a'), live(64, 'b'), mine(64, 'c');
  const std::vector<std::string> stale = {root + "/.tmp-" + dead + "-123-0000abcd",
                                          root + "/.trash-" + dead + "-123-0000abce"};
  const std::string busy = root + "/.tmp-" + live + "-456-0000abcf";
  const std::string foreign = root + "/.tmp-notakey-1-2";
  for (const auto& d : {stale[0], stale[1], busy, foreign}) {
    fs::create_directories(d);
    std::ofstream(d + "/model.safetensors") << "partial";
  }
  const int held = ::open((root + "/" + live + ".lock").c_str(), O_RDWR | O_CREAT, 0644);
  ASSERT_GE(held, 0);
  ASSERT_EQ(::flock(held, LOCK_EX), 0);

  const auto r = ConversionCache(root).get_or_build(mine, [](const std::string& d) {
    for (const char* name : {"model.webnn", "model.safetensors", "pinned.safetensors"}) {
      write_file_atomic(d + "/" + name, std::string_view(name));
    }
    return nlohmann::json::object();
  });
  ::close(held);
  EXPECT_TRUE(r.built);
  for (const auto& d : stale) EXPECT_FALSE(fs::exists(d)) << d;
  EXPECT_TRUE(fs::exists(busy + "/model.safetensors"));
  EXPECT_TRUE(fs::exists(foreign));
  EXPECT_FALSE(fs::exists(root + "/notakey.lock"));
  // Its writer gone, the next writer of any key removes it too.
  ConversionCache(root).get_or_build(mine, [](const std::string&) -> nlohmann::json {
    ADD_FAILURE() << "the valid entry must be reused";
    return {};
  });
  EXPECT_FALSE(fs::exists(busy));
}

}  // namespace
}  // namespace wnn::validate
