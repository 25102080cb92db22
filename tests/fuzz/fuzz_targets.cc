#include "fuzz_targets.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>

#include "wnn/core/error.h"
#include "wnn/core/names.h"
#include "wnn/format/graph_file.h"
#include "wnn/format/model.h"
#include "wnn/format/weights.h"
#include "wnn/onnx/external_data.h"
#include "wnn/onnx/import.h"
#include "wnn/onnx/model.h"
#include "wnn/onnx/tensor_data.h"
#include "wnn/sweep/manifest.h"

namespace wnn::fuzz {

namespace fs = std::filesystem;

namespace {

std::string_view as_text(std::span<const uint8_t> data) {
  return {reinterpret_cast<const char*>(data.data()), data.size()};
}

Buffer as_buffer(std::span<const uint8_t> data) { return Buffer::copy_of(std::as_bytes(data)); }

// Runs fn; wnn::Error is the expected way to reject an input and is swallowed. Anything else
// propagates and libFuzzer reports it as a crash (an uncaught exception aborts).
template <typename Fn>
void expect_success_or_error(Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    // Internal errors are bugs even when the input is garbage.
    if (e.kind() == ErrorKind::kInternal) {
      std::fprintf(stderr, "internal error on fuzz input: %s\n", e.what());
      std::abort();
    }
  }
}

// A scratch directory for the targets that need files, made once per process.
const fs::path& scratch_dir() {
  static const fs::path dir = [] {
    std::string tmpl = (fs::temp_directory_path() / "wnn-fuzz-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) std::abort();
    return fs::path(tmpl);
  }();
  return dir;
}

void write_file(const fs::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), std::streamsize(bytes.size()));
}

// The oracle of the graph targets: a graph that was read or converted must print, parse again
// (through the builder, which checks every node) and print to the same bytes, in the text and
// the JSON form. Any failure there is a finding, a wnn::Error included.
template <typename Fn>
void must_hold(std::string_view what, Fn&& fn) {
  try {
    if (!fn()) {
      std::fprintf(stderr, "round trip: %.*s differs\n", int(what.size()), what.data());
      std::abort();
    }
  } catch (const Error& e) {
    std::fprintf(stderr, "round trip: %.*s failed: %s\n", int(what.size()), what.data(), e.what());
    std::abort();
  }
}

void expect_round_trip(Graph g) {
  const std::string json = format::print_json(g);
  must_hold("JSON print, parse, print",
            [&] { return format::print_json(format::parse_json(json, "printed.json")) == json; });
  // JSON names are free strings: the text form maps those it cannot hold.
  format::map_names_for_text(g);
  const std::string text = format::print_text(g);
  must_hold("text print, parse, print",
            [&] { return format::print_text(format::parse_text(text, "printed.webnn")) == text; });
  must_hold("text and JSON forms", [&] {
    return format::print_text(format::parse_json(format::print_json(g), "mapped.json")) == text;
  });
}

void graph_text(std::span<const uint8_t> data) {
  std::optional<Graph> g;
  expect_success_or_error([&] { g = format::parse_text(as_text(data), "fuzz.webnn"); });
  if (g) expect_round_trip(std::move(*g));
}

void graph_json(std::span<const uint8_t> data) {
  std::optional<Graph> g;
  expect_success_or_error([&] { g = format::parse_json(as_text(data), "fuzz.json"); });
  if (g) expect_round_trip(std::move(*g));
}

std::optional<DataType> memory_dtype(std::string_view file_dtype) {
  if (file_dtype == "F32" || file_dtype == "BF16") return DataType::kFloat32;
  if (file_dtype == "F16") return DataType::kFloat16;
  if (file_dtype == "I32") return DataType::kInt32;
  if (file_dtype == "U32") return DataType::kUint32;
  if (file_dtype == "I64") return DataType::kInt64;
  if (file_dtype == "U64") return DataType::kUint64;
  if (file_dtype == "I8") return DataType::kInt8;
  if (file_dtype == "U8" || file_dtype == "BOOL") return DataType::kUint8;
  return std::nullopt;
}

// Loads every tensor as the form it declares and, for U8 data, as packed 4-bit of the two
// element counts its bytes can hold.
void load_every_tensor(const format::WeightsSource& source) {
  for (const format::StoredTensor* t : source.tensors()) {
    if (source.find(t->key) != t) std::abort();  // exact keys find themselves
    if (const auto dtype = memory_dtype(t->file_dtype)) {
      expect_success_or_error([&] { source.load(t->key, {*dtype, t->shape}); });
    }
    const int64_t bytes = int64_t(t->bytes.size());
    for (const DataType d : {DataType::kInt4, DataType::kUint4}) {
      for (const int64_t n : {2 * bytes, 2 * bytes - 1}) {
        if (n < 0) continue;
        expect_success_or_error([&] { source.load(t->key, {d, {n}}); });
      }
    }
  }
}

void safetensors(std::span<const uint8_t> data) {
  expect_success_or_error([&] {
    const auto reader = format::SafetensorsReader::from_bytes(as_buffer(data), "fuzz.safetensors");
    load_every_tensor(*reader);
  });
}

void npy(std::span<const uint8_t> data) {
  expect_success_or_error([&] { format::parse_npy(std::as_bytes(data), "fuzz.npy"); });
}

// A directory the ONNX target resolves external data in: a data file, a symlink that leaves
// the directory and a subdirectory, so hostile locations meet real files.
const fs::path& onnx_dir() {
  static const fs::path dir = [] {
    const fs::path d = scratch_dir() / "onnx";
    fs::create_directories(d / "sub");
    std::string bytes(256, '\0');
    for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = char(i);
    write_file(d / "data.bin", bytes);
    write_file(d / "sub" / "data.bin", bytes.substr(0, 64));
    std::error_code ec;
    fs::create_symlink("/etc/hostname", d / "escape.bin", ec);
    return d;
  }();
  return dir;
}

void decode_tensors_of(const onnx::GraphProto& g, const onnx::ExternalDataResolver& resolver);

void decode_tensor_data(const onnx::TensorProto& t, const onnx::ExternalDataResolver& resolver) {
  expect_success_or_error([&] { onnx::tensor_data(t, resolver); });
}

void decode_attribute_tensors(const onnx::AttributeProto& a,
                              const onnx::ExternalDataResolver& resolver) {
  if (a.t) decode_tensor_data(*a.t, resolver);
  for (const auto& t : a.tensors) decode_tensor_data(t, resolver);
  if (a.g) decode_tensors_of(*a.g, resolver);
  for (const auto& g : a.graphs) {
    if (g) decode_tensors_of(*g, resolver);
  }
}

void decode_tensors_of(const onnx::GraphProto& g, const onnx::ExternalDataResolver& resolver) {
  for (const auto& t : g.initializer) decode_tensor_data(t, resolver);
  for (const auto& s : g.sparse_initializer) {
    decode_tensor_data(s.values, resolver);
    decode_tensor_data(s.indices, resolver);
  }
  for (const auto& n : g.node) {
    for (const auto& a : n.attribute) decode_attribute_tensors(a, resolver);
  }
}

void onnx_model(std::span<const uint8_t> data) {
  const auto owner = std::make_shared<Buffer>(as_buffer(data));
  const auto bytes = owner->bytes();
  const onnx::ExternalDataResolver resolver(onnx_dir());
  expect_success_or_error([&] {
    const onnx::ModelProto m = onnx::decode_model(bytes, owner);
    decode_tensors_of(m.graph, resolver);
    for (const auto& f : m.functions) {
      for (const auto& n : f.node) {
        for (const auto& a : n.attribute) decode_attribute_tensors(a, resolver);
      }
    }
  });
  expect_success_or_error([&] {
    const onnx::TensorProto t = onnx::decode_tensor(bytes, owner);
    decode_tensor_data(t, resolver);
  });
}

// The whole importer on a decoded model: shape inference, folding, every converter, with
// external data resolved in onnx_dir(). Conversion failures (unsupported nodes included) are
// wnn::Errors and accepted; whatever converts must print and read back to the same graph.
void onnx_import(std::span<const uint8_t> data) {
  const auto owner = std::make_shared<Buffer>(as_buffer(data));
  std::optional<onnx::ImportResult> r;
  expect_success_or_error([&] {
    const onnx::ModelProto m = onnx::decode_model(owner->bytes(), owner);
    r = onnx::import_model(m, onnx_dir().string());
  });
  if (!r) return;
  // The importer maps every name: the graph prints as text without renaming.
  must_hold("import names", [&] {
    for (const Operand& op : r->graph.operands()) {
      if (!is_valid_operand_name(op.name)) return false;
    }
    return true;
  });
  expect_round_trip(std::move(r->graph));
}

// The input is a graph file, then optionally "\n--wnn-weights--\n" and the weights file, then
// optionally "\n--wnn-manifest--\n" and a legacy manifest. Weights starting with the legacy
// WGWT magic are written as model.weights, the rest as model.safetensors; load_model finds
// them beside model.webnn as it would for a user.
constexpr std::string_view kWeightsSeparator = "\n--wnn-weights--\n";
constexpr std::string_view kManifestSeparator = "\n--wnn-manifest--\n";
// The harness skips graphs whose @scalar fills add up to more than this: the library's own
// bound (kMaxScalarFillBytes, 4 GiB) is above libFuzzer's default 2 GiB malloc limit.
constexpr uint64_t kHarnessFillLimit = uint64_t(64) << 20;

void model(std::span<const uint8_t> data) {
  std::string_view text = as_text(data);
  std::string_view weights, manifest;
  bool has_weights = false;
  if (const size_t w = text.find(kWeightsSeparator); w != std::string_view::npos) {
    weights = text.substr(w + kWeightsSeparator.size());
    text = text.substr(0, w);
    has_weights = true;
    if (const size_t m = weights.find(kManifestSeparator); m != std::string_view::npos) {
      manifest = weights.substr(m + kManifestSeparator.size());
      weights = weights.substr(0, m);
    }
  }
  uint64_t fill_bytes = 0;
  try {
    const Graph g = format::parse_graph(text, "fuzz.webnn");
    for (const auto& c : g.constants()) {
      if (c.init != ConstantInitKind::kScalar) continue;
      const OperandDesc& d = g.desc(c.id);
      fill_bytes += uint64_t(element_count(d.shape)) * dtype_size(d.dtype);
    }
  } catch (const Error&) {
  }
  if (fill_bytes > kHarnessFillLimit) return;

  const fs::path dir = scratch_dir() / "model";
  fs::create_directories(dir);
  for (const char* name : {"model.safetensors", "model.weights", "model.manifest.json"}) {
    fs::remove(dir / name);
  }
  write_file(dir / "model.webnn", text);
  if (has_weights) {
    const bool legacy = weights.starts_with("WGWT");
    write_file(dir / (legacy ? "model.weights" : "model.safetensors"), weights);
    if (legacy) write_file(dir / "model.manifest.json", manifest);
  }
  expect_success_or_error([&] { format::load_model((dir / "model.webnn").string()); });
}

// The strict validate-models manifest parser, then what a sweep does with a parsed manifest
// before it fetches anything: selections (every form), shards and each entry's source text.
// Paths resolve against a directory that does not exist: parsing must not touch the filesystem.
void sweep_manifest(std::span<const uint8_t> data) {
  expect_success_or_error([&] {
    const sweep::Manifest m =
        sweep::parse_manifest(std::string(as_text(data)), "/nonexistent/wnn-fuzz/zoo.json");
    for (const auto& e : m.models) (void)e.source_text();
    std::vector<std::string> selections = {"all", "match=a", "match="};
    if (!m.models.empty()) {
      selections.push_back("id=" + m.models.front().id);
      selections.push_back("id=" + m.models.front().id + "," + m.models.back().id);
    }
    for (const std::string& s : selections) {
      const std::vector<size_t> chosen = sweep::select_entries(m, s);
      size_t covered = 0;
      for (const char* shard : {"1/3", "2/3", "3/3"}) {
        covered += sweep::shard_entries(chosen, shard).size();
      }
      // Shards partition the selection.
      if (covered != chosen.size()) std::abort();
    }
  });
}

}  // namespace

const std::vector<FuzzTarget>& all_targets() {
  static const std::vector<FuzzTarget> targets = {
      {"graph_text", graph_text},   {"graph_json", graph_json},
      {"safetensors", safetensors}, {"npy", npy},
      {"onnx_model", onnx_model},   {"model", model},
      {"onnx_import", onnx_import}, {"sweep_manifest", sweep_manifest},
  };
  return targets;
}

const FuzzTarget* find_target(std::string_view name) {
  for (const auto& t : all_targets()) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

}  // namespace wnn::fuzz
