// The page `wnn view` writes: one self-contained HTML file (no network: its script and style
// sheet are inside it) holding the laid-out graph as SVG, drawn here, and the facts the side
// panel shows as JSON. The page's script only pans, zooms, searches and fills the panel.
// Byte-identical output for the same input.
#pragma once

#include <string>
#include <vector>

#include "wnn/core/graph.h"
#include "wnn/onnx/import.h"
#include "wnn/view/overlay.h"
#include "wnn/view/scene.h"

namespace wnn::view {

struct PageInput {
  std::string title;  // the file viewed, as named on the command line
  const Graph* graph = nullptr;
  const Scene* scene = nullptr;
  // The import of an ONNX model: each node's ONNX node and the name maps. nullptr for a graph
  // file, which does not record them.
  const onnx::ImportResult* source = nullptr;
  std::vector<Overlay> overlays;
  std::vector<std::string> warnings;  // shown at the top of the panel
};

std::string render_page(const PageInput& input);

}  // namespace wnn::view
