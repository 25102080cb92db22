// The .webnn text format and its JSON form (webnn-graph-json): parsing into a Graph through
// the builder, and printing the canonical form. ../shared docs: WEBNN_FORMAT.md.
// Parsing never reads weights; format/model.h binds them.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "wnn/core/graph.h"

namespace wnn::format {

// Parses .webnn text. `filename` prefixes every diagnostic as file:line:col.
Graph parse_text(std::string_view text, const std::string& filename);
// Parses webnn-graph-json.
Graph parse_json(std::string_view text, const std::string& filename);
// Detects the form: text when it starts with `webnn_graph` (after whitespace and comments),
// JSON when it starts with `{`.
Graph parse_graph(std::string_view text, const std::string& filename);
Graph read_graph_file(const std::string& path);

// The canonical text form: blocks in the order inputs, consts, nodes, outputs; declaration
// order kept; options in table order; shortest round-trip floats. Printing a parsed canonical
// file gives the same bytes.
std::string print_text(const Graph& graph);
// Renames every operand whose name the text form cannot hold (a JSON graph may use any string)
// with NameMapper; valid names are kept. Returns the (old, new) pairs, in operand order.
std::vector<std::pair<std::string, std::string>> map_names_for_text(Graph& graph);
// print_text of `graph` with those names mapped (on a copy, made only when one needs it).
std::string print_text_mapping_names(const Graph& graph);
std::string print_json(const Graph& graph);

}  // namespace wnn::format
