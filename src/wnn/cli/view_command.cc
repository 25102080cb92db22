// `wnn view GRAPH`: one self-contained HTML page showing the graph (layered layout, zoom, pan,
// search, a panel per node), optionally coloured by delegate (--partition), by error against
// ONNX Runtime (--report) or by time (--profile). An .onnx model is converted first, with the
// options of `wnn convert`, and the page then shows each node's ONNX origin.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "wnn/cli/command.h"
#include "wnn/cli/conversion_args.h"
#include "wnn/cli/graph_args.h"
#include "wnn/cli/session_args.h"
#include "wnn/core/atomic_file.h"
#include "wnn/core/error.h"
#include "wnn/format/graph_file.h"
#include "wnn/format/model.h"
#include "wnn/onnx/import.h"
#include "wnn/runtime/execution_plan.h"
#include "wnn/view/overlay.h"
#include "wnn/view/page.h"
#include "wnn/view/scene.h"

namespace wnn::cli {
namespace {

namespace fs = std::filesystem;

nlohmann::json read_json_file(const std::string& path, std::string_view option) {
  const std::string text = read_file(path);
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  check(!j.is_discarded(), "{} {}: not valid JSON", option, path);
  return j;
}

int run_view(Args& args) {
  const auto out = args.value("output", 'o');
  const bool partition = args.flag("partition");
  const auto report_path = args.value("report");
  const auto profile_path = args.value("profile");
  const bool no_collapse = args.flag("no-collapse");
  const runtime::SessionOptions session = session_options(args);
  const bool onnx_input = args.any_ends_with(".onnx");
  std::optional<onnx::ImportOptions> import;
  std::optional<std::string> weights;
  if (onnx_input) {
    import = conversion_options(args);  // its --weights is real|zeros
  } else {
    weights = args.value("weights");
  }
  const std::string in = single_positional(args.finish(), "view", "graph or model file");
  check(onnx_input || has_extension(in, ".webnn") || has_extension(in, ".json"),
        "wnn view: cannot read '{}': the input must end in .onnx, .webnn or .json", in);
  const std::string out_path = out.value_or(fs::path(in).stem().string() + ".html");
  check(has_extension(out_path, ".html") || has_extension(out_path, ".htm"),
        "wnn view: the output '{}' must end in .html", out_path);

  std::optional<onnx::ImportResult> imported;
  Graph graph;
  if (onnx_input) {
    imported = onnx::import_model(in, *import);
    for (const auto& w : imported->warnings) std::fprintf(stderr, "wnn: warning: %s\n", w.c_str());
    graph = imported->graph;
  } else if (partition) {
    // Folding needs the constants' values: the weights file too.
    graph = format::load_model(in, {weights, false}).graph;
  } else {
    graph = format::read_graph_file(in);
  }

  view::PageInput page;
  page.title = in;
  page.graph = &graph;
  page.source = imported ? &*imported : nullptr;
  if (partition) {
    const auto plan = runtime::plan_execution(std::make_shared<const Graph>(graph), session);
    page.overlays.push_back(view::partition_overlay(graph, plan));
  }
  if (report_path) {
    page.overlays.push_back(view::report_overlay(graph, read_json_file(*report_path, "--report")));
  }
  if (profile_path) {
    page.overlays.push_back(
        view::profile_overlay(graph, read_json_file(*profile_path, "--profile")));
  }
  for (const auto& o : page.overlays) {
    for (const auto& w : o.warnings) {
      std::fprintf(stderr, "wnn: warning: %s: %s\n", o.name.c_str(), w.c_str());
      page.warnings.push_back(w);
    }
  }
  view::SceneOptions scene_options;
  scene_options.collapse_chains = !no_collapse;
  const view::Scene scene = view::build_scene(graph, scene_options);
  page.scene = &scene;
  const std::string html = view::render_page(page);
  write_file_atomic(out_path, html);
  std::fprintf(stderr, "wrote %s (%zu nodes in %zu boxes, %d layers, %zu KiB)\n", out_path.c_str(),
               graph.nodes().size(), scene.boxes.size(), scene.layout.layers, html.size() / 1024);
  return kExitOk;
}

const CommandRegistration registration{{
    "view",
    "draw a graph as one offline HTML page, coloured by delegate, error or time",
    "usage: wnn view GRAPH.webnn|GRAPH.json|MODEL.onnx [-o OUT.html] [--partition]\n"
    "                [--report R.json] [--profile P.json] [options]\n\n"
    "Writes one self-contained HTML page (no network; it opens from disk in any browser):\n"
    "operators as boxes, operands as edges labelled with dtype and shape, constants listed\n"
    "with their size in the operators that read them, graph inputs and outputs marked; chains\n"
    "of operators that hand one value to the next are stacked into one box. Zoom with the\n"
    "wheel, pan by dragging, search names with the box at the top (Enter: next, / focuses it,\n"
    "f fits the graph), click an operator for its inputs, outputs, options (defaults greyed)\n"
    "and, for an .onnx model (converted first, as wnn convert does), its ONNX node.\n\n"
    "options:\n"
    "  -o, --output OUT.html  the page (default: the input's name with .html, in the current\n"
    "                         directory)\n"
    "  --partition            colour nodes by delegate region; nodes on the reference kernels\n"
    "                         carry each delegate's reason (as wnn partition prints them)\n"
    "  --report R.json        colour nodes by their largest normalized error in a report of\n"
    "                         wnn validate --per-node, mark the first divergent node and show\n"
    "                         the per-output table (nodes matched by operand name)\n"
    "  --profile P.json       colour nodes by time per run from wnn bench --profile --json (a\n"
    "                         fused step's time goes to its nodes by FLOPs, evenly if none)\n"
    "  --no-collapse          one box per operator, chains too\n"
    "  --weights PATH         graph files with --partition: the weights file (default: found\n"
    "                         beside the graph)\n"
    "with --partition also:\n" WNN_SESSION_OPTIONS_HELP
    "for .onnx input also:\n" WNN_CONVERSION_OPTIONS_HELP,
    run_view,
}};

}  // namespace
}  // namespace wnn::cli
