// `wnn check`: parses and validates a graph, then loads and checks every weights constant.
#include <cstdio>

#include "wnn/cli/command.h"
#include "wnn/cli/graph_args.h"
#include "wnn/format/model.h"

namespace wnn::cli {
namespace {

int run_check(Args& args) {
  format::LoadOptions options;
  options.weights_path = args.value("weights");
  options.skeleton = args.flag("skeleton");
  const std::string path = single_positional(args.finish(), "check", "graph file");
  const format::Model model = format::load_model(path, options);
  const Graph& g = model.graph;
  std::printf("OK %s: %zu inputs, %zu constants, %zu nodes, %zu outputs; weights: %s\n",
              path.c_str(), g.inputs().size(), g.constants().size(), g.nodes().size(),
              g.outputs().size(),
              model.weights_path.empty() ? (options.skeleton ? "zeros (skeleton)" : "none needed")
                                         : model.weights_path.c_str());
  return kExitOk;
}

const CommandRegistration registration{{
    "check",
    "parse and validate a .webnn/.json graph and check its weights",
    "usage: wnn check GRAPH [--weights PATH] [--skeleton]\n\n"
    "Parses GRAPH (.webnn text or webnn-graph-json), validates every node against the\n"
    "operator table (shapes, dtypes, options), then loads every weights constant and checks\n"
    "its dtype, shape and byte length. Prints one line starting with OK on success.\n"
    "Errors name the file:line:col, node and argument and exit with status 2.\n\n"
    "The weights file is PATH when given, else the first of model.safetensors,\n"
    "<stem>.safetensors, <stem>.weights and model.weights beside GRAPH.\n\n"
    "options:\n"
    "  --weights PATH  the weights file (.safetensors or legacy .weights)\n"
    "  --skeleton      accept missing weights and use zeros for them (structure checks only)",
    run_check,
}};

}  // namespace
}  // namespace wnn::cli
