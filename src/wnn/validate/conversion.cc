#include "wnn/validate/conversion.h"

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "wnn/core/error.h"
#include "wnn/format/model.h"
#include "wnn/format/weights.h"
#include "wnn/onnx/dim_overrides.h"

namespace wnn::validate {

namespace fs = std::filesystem;

nlohmann::json options_json(const onnx::ImportOptions& options) {
  check(options.pin_tensors.empty(), "cache: tensors pinned by value cannot key a cache entry");
  nlohmann::json j{{"override_dims", options.override_dims}, {"pin_inputs", options.pin_inputs}};
  // Zero-filled weights must never share an entry with the real conversion.
  if (options.zero_missing_weights) j["weights"] = "zeros";
  return j;
}

void bind_dims_from_value(const onnx::ModelProto& model, const std::string& name,
                          const Shape& shape, onnx::ImportOptions& options) {
  const onnx::ValueInfoProto* in = nullptr;
  for (const auto& i : model.graph.input) {
    if (i.name == name) in = &i;
  }
  check(in != nullptr, "--input {}: the model has no graph input '{}'", name, name);
  check(!options.pin_inputs.count(name), "--input {}: the input is also pinned with --pin-input",
        name);
  const auto& dims = in->type.dims;
  if (!in->type.has_shape) return;  // unknown rank: the importer reports it
  check(dims.size() == shape.size(), "--input {}: the value has shape {}, the model declares {}",
        name, shape_to_string(shape), onnx::type_to_string(in->type));
  const onnx::DimOverrides given =
      onnx::classify_dim_overrides(options.override_dims, [&](std::string_view n) {
        return std::any_of(model.graph.input.begin(), model.graph.input.end(),
                           [&](auto& i) { return i.name == n; });
      });
  for (size_t k = 0; k < dims.size(); ++k) {
    if (dims[k].value) {
      check(*dims[k].value == shape[k],
            "--input {}: dim {} is {} in the value, {} in the model (shape {})", name, k, shape[k],
            *dims[k].value, shape_to_string(shape));
      continue;
    }
    // A free dim: an explicit axis override must agree; otherwise the value binds the dim's
    // name, or this axis when the dim is unnamed.
    if (auto it = given.axes.find({name, k}); it != given.axes.end()) {
      check(it->second == shape[k],
            "--input {}: dim {} is {} in the value but --override-dim gives {}", name, k, shape[k],
            it->second);
      continue;
    }
    const std::string key = dims[k].param.empty() ? onnx::axis_key(name, k) : dims[k].param;
    auto [it, inserted] = options.override_dims.emplace(key, shape[k]);
    check(inserted || it->second == shape[k],
          "--input {}: dim {} ('{}') is {} in the value but {} elsewhere (--override-dim or "
          "another --input)",
          name, k, key, shape[k], it->second);
  }
}

nlohmann::json maps_json(const NameMaps& maps) {
  auto pairs = [](const auto& v) {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& [onnx_name, operand] : v)
      a.push_back({{"onnx", onnx_name}, {"operand", operand}});
    return a;
  };
  nlohmann::json pruned = nlohmann::json::array();
  for (const auto& [name, desc] : maps.pruned) {
    pruned.push_back({{"onnx", name}, {"dtype", dtype_name(desc.dtype)}, {"shape", desc.shape}});
  }
  nlohmann::json values = nlohmann::json::array();
  for (const auto& [onnx_name, operand] : maps.values) {
    values.push_back(
        {{"onnx", onnx_name},
         {"operand", operand.empty() ? nlohmann::json(nullptr) : nlohmann::json(operand)}});
  }
  return {{"inputs", pairs(maps.inputs)},
          {"outputs", pairs(maps.outputs)},
          {"pinned_inputs", maps.pinned},
          {"pruned_inputs", pruned},
          {"values", values}};
}

NameMaps maps_from_json(const nlohmann::json& metadata) {
  NameMaps maps;
  for (const char* key : {"inputs", "outputs", "pinned_inputs", "values"}) {
    check(metadata.contains(key) && metadata[key].is_array(), "cache metadata has no '{}' array",
          key);
  }
  for (const auto& p : metadata["inputs"]) maps.inputs.emplace_back(p.at("onnx"), p.at("operand"));
  for (const auto& p : metadata["outputs"]) {
    maps.outputs.emplace_back(p.at("onnx"), p.at("operand"));
  }
  for (const auto& n : metadata["pinned_inputs"]) maps.pinned.push_back(n);
  for (const auto& v : metadata["values"]) {
    const auto& operand = v.at("operand");
    maps.values.emplace_back(v.at("onnx"), operand.is_null() ? "" : operand.get<std::string>());
  }
  // Absent in entries written before inputs were pruned.
  for (const auto& p : metadata.value("pruned_inputs", nlohmann::json::array())) {
    const std::string dtype = p.at("dtype");
    const auto parsed = parse_dtype(dtype);
    check(parsed.has_value(), "cache metadata: pruned input '{}' has dtype '{}'",
          p.at("onnx").get<std::string>(), dtype);
    maps.pruned.emplace_back(p.at("onnx"), OperandDesc{*parsed, p.at("shape").get<Shape>()});
  }
  return maps;
}

CacheBuild convert_into_cache_dir(const std::string& onnx_path, const onnx::ModelProto& model,
                                  const std::string& digest, const onnx::ImportOptions& options,
                                  const std::string& dir) {
  onnx::ImportOptions write_only = options;  // the graph is only written out
  write_only.keep_misaligned_weights = true;
  onnx::ImportResult r =
      onnx::import_model(model, fs::path(onnx_path).parent_path().string(), write_only);
  format::save_model(r.graph, dir + "/model.webnn", dir + "/model.safetensors");
  // An entry always has its three files; a graph without weights gets an empty weights file.
  if (!fs::exists(dir + "/model.safetensors"))
    format::write_safetensors(dir + "/model.safetensors", {});
  std::vector<format::TensorToWrite> pinned;
  NameMaps maps{r.inputs, r.outputs, {}, r.pruned, r.values};
  for (const auto& [name, t] : r.pinned) {
    pinned.push_back({name, t.dtype, t.shape, t.data});
    maps.pinned.push_back(name);
  }
  format::write_safetensors(dir + "/pinned.safetensors", pinned);
  nlohmann::json opsets = nlohmann::json::object();
  for (const auto& o : model.opset_import)
    opsets[o.domain.empty() ? "ai.onnx" : o.domain] = o.version;
  nlohmann::json meta = {
      {"source", fs::absolute(onnx_path).string()},
      {"sha256", digest},
      {"options", options_json(options)},
      {"versions", {{"wnn", WNN_VERSION}, {"onnx_ir", model.ir_version}, {"opsets", opsets}}},
      {"warnings", r.warnings}};
  meta.update(maps_json(maps));
  return {std::move(meta), std::move(r.warnings)};
}

CachedConversion convert_cached(const std::string& onnx_path, const onnx::ModelProto& model,
                                const onnx::ImportOptions& options) {
  CachedConversion c;
  c.digest = source_digest(onnx_path, model);
  c.key = cache_key(c.digest, options_json(options));
  ConversionCache cache(cache_root());
  const auto start = std::chrono::steady_clock::now();
  c.result = cache.get_or_build(c.key, [&](const std::string& dir) {
    CacheBuild b = convert_into_cache_dir(onnx_path, model, c.digest, options, dir);
    c.warnings = std::move(b.warnings);
    return std::move(b.metadata);
  });
  if (c.result.built) {
    c.convert_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }
  return c;
}

}  // namespace wnn::validate
