// Argument helpers the graph-file commands (check, fmt, info, convert, run, bench) share.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "wnn/runtime/session.h"

namespace wnn::cli {

// The one positional a command takes; throws a usage error naming `what` otherwise.
std::string single_positional(const std::vector<std::string>& rest, std::string_view command,
                              std::string_view what);

bool has_extension(std::string_view path, std::string_view ext);

// The inputs of `graph`, in graph order: values from `--input NAME=FILE.npy` specs (a name the
// graph lacks is an error); any other input gets runtime::deterministic_tensor values when
// `fill_missing`, else is an error that says how to give it.
std::vector<runtime::NamedTensor> graph_inputs(const Graph& graph,
                                               const std::vector<std::string>& specs,
                                               bool fill_missing, uint64_t seed);
std::vector<runtime::NamedView> views_of(const std::vector<runtime::NamedTensor>& tensors);

}  // namespace wnn::cli
