// What `wnn view` draws of a graph: boxes for graph inputs, operators and graph outputs, with
// constants listed inside the operators that read them; chains of operators that hand one value
// straight to the next collapsed into one box of stacked sections; edges for the operands that
// join boxes, each labelled once with its dtype and shape. build_scene measures every box and
// lays the boxes out (layout.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "wnn/core/graph.h"
#include "wnn/view/layout.h"

namespace wnn::view {

enum class BoxKind : uint8_t { kInput, kNodes, kOutput };

// A constant an operator reads, listed inside its section.
struct ConstantRow {
  std::string param;  // "filter", "inputs[2]"
  OperandId operand;
  std::string text;  // what the row shows: "filter: float32[64,3,7,7] (36.8 KiB)"
};

// One operator inside a box (a chain box has several, top to bottom).
struct Section {
  uint32_t node = 0;
  int y = 0;  // from the box's top
  int height = 0;
  std::string title;  // the op name
  std::vector<ConstantRow> constants;
};

struct SceneBox {
  BoxKind kind = BoxKind::kNodes;
  OperandId operand;               // kInput, kOutput: the graph input or output
  std::string title;               // kInput, kOutput: its name (shortened to fit)
  std::vector<Section> sections;   // kNodes
  std::vector<OperandId> outputs;  // the operands leaving by each output port
  int x = 0, y = 0, width = 0, height = 0;
};

// An operand from one box to another.
struct SceneEdge {
  OperandId operand;
  uint32_t from_box = 0, to_box = 0;
  std::vector<Point> points;
};

// The operand between two sections of a chain box: a short arrow inside the box.
struct InnerEdge {
  OperandId operand;
  uint32_t box = 0;
  int x = 0, y0 = 0, y1 = 0;
  std::string label;
};

// The dtype and shape of an operand leaving a box, once, beside its port (baseline at y).
struct EdgeLabel {
  OperandId operand;
  int x = 0, y = 0;
  std::string text;
};

struct Scene {
  std::vector<SceneBox> boxes;
  std::vector<SceneEdge> edges;
  std::vector<InnerEdge> inner_edges;
  std::vector<EdgeLabel> labels;
  std::vector<uint32_t> box_of_node;  // per graph node
  int width = 0, height = 0;
  Layout layout;  // the raw layout (for its statistics)
};

struct SceneOptions {
  bool collapse_chains = true;
  LayoutOptions layout;
};

Scene build_scene(const Graph& graph, const SceneOptions& options = {});

// Text measures the page's style sheet (assets/view.css) promises: monospace, 11 px titles and
// 10 px rows. build_scene sizes boxes by them.
inline constexpr double kTitleCharWidth = 6.8;
inline constexpr double kRowCharWidth = 6.2;
inline constexpr int kTitleHeight = 16;
inline constexpr int kRowHeight = 12;
inline constexpr int kPadding = 6;
inline constexpr int kInnerGap = 16;         // between the sections of a chain box
inline constexpr size_t kMaxTextChars = 44;  // longer names are shortened with "…"

// The operands a node reads, each with the parameter that reads it ("filter", "inputs[2]").
std::vector<std::pair<std::string, OperandId>> operand_params(const Node& node);
// The value of a small constant ("0.5", "[1, 2, 3]") when the graph knows it, else "".
std::string constant_value_text(const Graph& g, OperandId id);

// "float32[1,64,56,56]"
std::string type_text(const OperandDesc& desc);
// "36.8 KiB"
std::string byte_size_text(uint64_t bytes);
// `text` cut to `max_chars` code points, ending in "…" when cut.
std::string shorten(const std::string& text, size_t max_chars = kMaxTextChars);
// Code points in a UTF-8 string (each counted as one monospace cell).
size_t display_width(const std::string& text);

}  // namespace wnn::view
