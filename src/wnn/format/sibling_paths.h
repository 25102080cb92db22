// Path helpers for finding files that sit beside another file (weights beside a graph, a
// manifest beside weights). Internal to the format module.
#pragma once

#include <string>
#include <vector>

namespace wnn::format {

bool is_regular_file(const std::string& path);
// "dir/model.webnn" -> "dir"; "model.webnn" -> ".".
std::string directory_of(const std::string& path);
// "dir/model.webnn" -> "model.webnn".
std::string filename_of(const std::string& path);
// "dir/model.webnn" -> "model"; a leading dot is part of the name.
std::string stem_of(const std::string& path);
// dir + "/" + name, or name alone when dir is ".".
std::string sibling_path(const std::string& dir, const std::string& name);

// The files beside the graph at `graph_path` that may hold its weights, in the order
// open_weights_for tries them: `model.safetensors`, `<stem>.safetensors`, for a stem `A.B` also
// `A.safetensors` (the phases of `wnn convert --phase` share one file), `<stem>.weights`,
// `model.weights`.
std::vector<std::string> weights_candidates(const std::string& graph_path);

}  // namespace wnn::format
