// open_weights_for: which weights file belongs to a graph. The order follows the .webnn format
// notes: an explicit path, then `model.safetensors`, `<stem>.safetensors`, `<stem>.weights` and
// `model.weights` beside the graph.

#include <cstring>
#include <fstream>

#include "wnn/core/error.h"
#include "wnn/format/sibling_paths.h"
#include "wnn/format/weights.h"

namespace wnn::format {

namespace {

bool starts_with_wgwt_magic(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[4] = {};
  in.read(magic, 4);
  return in.gcount() == 4 && std::memcmp(magic, "WGWT", 4) == 0;
}

// `.weights` is the legacy pair and `.safetensors` is Safetensors; any other name is decided by
// the legacy magic, so a renamed file still opens.
std::unique_ptr<WeightsSource> open_weights_file(const std::string& path) {
  const bool legacy = path.ends_with(".weights") ||
                      (!path.ends_with(".safetensors") && starts_with_wgwt_magic(path));
  if (legacy) return open_legacy_weights(path);
  return SafetensorsReader::open(path);
}

}  // namespace

std::vector<std::string> weights_candidates(const std::string& graph_path) {
  const std::string dir = directory_of(graph_path);
  const std::string stem = stem_of(graph_path);
  std::vector<std::string> names{"model.safetensors", stem + ".safetensors"};
  // MODEL.PHASE.webnn (wnn convert --phase): the phases share MODEL.safetensors.
  if (const size_t dot = stem.rfind('.'); dot != std::string::npos && dot > 0) {
    names.push_back(stem.substr(0, dot) + ".safetensors");
  }
  names.push_back(stem + ".weights");
  names.emplace_back("model.weights");
  for (auto& name : names) name = sibling_path(dir, name);
  return names;
}

std::unique_ptr<WeightsSource> open_weights_for(const std::string& graph_path,
                                                const std::optional<std::string>& explicit_path) {
  if (explicit_path.has_value()) {
    check(is_regular_file(*explicit_path), "weights file '{}' does not exist", *explicit_path);
    return open_weights_file(*explicit_path);
  }
  for (const std::string& candidate : weights_candidates(graph_path)) {
    if (is_regular_file(candidate)) return open_weights_file(candidate);
  }
  return nullptr;
}

}  // namespace wnn::format
