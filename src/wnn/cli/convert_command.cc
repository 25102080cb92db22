// `wnn convert`: turns one model form into another. Today: .webnn text <-> webnn-graph-json
// (the graph file only; weights are untouched). The input is dispatched on its extension so
// other front ends (ONNX) slot in as further readers.
#include <cstdio>
#include <functional>

#include "wnn/cli/command.h"
#include "wnn/cli/graph_args.h"
#include "wnn/core/atomic_file.h"
#include "wnn/core/error.h"
#include "wnn/format/graph_file.h"

namespace wnn::cli {
namespace {

struct Reader {
  std::string_view extension;
  std::function<Graph(const std::string& path)> read;
};

const std::vector<Reader>& readers() {
  static const std::vector<Reader> all = {
      {".webnn", format::read_graph_file},
      {".json", format::read_graph_file},
  };
  return all;
}

int run_convert(Args& args) {
  const auto out = args.value("output", 'o');
  const std::string in = single_positional(args.finish(), "convert", "input file");
  check(out.has_value(), "wnn convert: missing -o OUT (see wnn convert --help)");
  const Reader* reader = nullptr;
  for (const auto& r : readers()) {
    if (has_extension(in, r.extension)) reader = &r;
  }
  check(reader != nullptr, "wnn convert: cannot read '{}': the input must end in .webnn or .json",
        in);
  const Graph graph = reader->read(in);
  std::string text;
  if (has_extension(*out, ".json")) {
    text = format::print_json(graph);
  } else if (has_extension(*out, ".webnn")) {
    text = format::print_text(graph);
  } else {
    fail("wnn convert: cannot write '{}': the output must end in .webnn or .json", *out);
  }
  write_file_atomic(*out, text);
  std::fprintf(stderr, "wrote %s (%zu nodes)\n", out->c_str(), graph.nodes().size());
  return kExitOk;
}

const CommandRegistration registration{{
    "convert",
    "convert a graph between .webnn text and webnn-graph-json",
    "usage: wnn convert IN -o OUT\n\n"
    "Reads IN (.webnn text or .json webnn-graph-json), validates it, and writes it to OUT in\n"
    "the form OUT's extension names (.webnn or .json), canonically and atomically. Only the\n"
    "graph file is converted: the weights file is shared by both forms and left untouched.\n\n"
    "options:\n"
    "  -o, --output OUT  the file to write (required)",
    run_convert,
}};

}  // namespace
}  // namespace wnn::cli
