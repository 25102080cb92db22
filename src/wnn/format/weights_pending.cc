// TEMPORARY, delete when the format-weights branch is merged: weak stand-ins for the two
// weights.h functions model.cc calls, so this branch links on its own. They are weak and sort
// after the real sources in the archive, so the real definitions win if both are present.
#include <algorithm>
#include <filesystem>

#include "wnn/core/error.h"
#include "wnn/format/weights.h"

namespace wnn::format {

// Like the real lookup, nullptr when no candidate file exists.
[[gnu::weak]] std::unique_ptr<WeightsSource> open_weights_for(
    const std::string& graph_path, const std::optional<std::string>& explicit_path) {
  const std::filesystem::path p(graph_path);
  const std::string stem = p.stem().string();
  std::vector<std::filesystem::path> candidates = {
      p.parent_path() / "model.safetensors", p.parent_path() / (stem + ".safetensors"),
      p.parent_path() / (stem + ".weights"), p.parent_path() / "model.weights"};
  if (explicit_path) candidates = {*explicit_path};
  std::error_code ec;
  if (std::none_of(candidates.begin(), candidates.end(),
                   [&](const auto& c) { return std::filesystem::exists(c, ec); })) {
    return nullptr;
  }
  fail("{}: reading weights is not built into this wnn (format-weights not merged)", graph_path);
}

[[gnu::weak]] void write_safetensors(const std::string& path, std::span<const TensorToWrite>,
                                     const std::map<std::string, std::string>&) {
  fail("{}: writing weights is not built into this wnn (format-weights not merged)", path);
}

}  // namespace wnn::format
