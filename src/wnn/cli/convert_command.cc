// `wnn convert`: turns one model form into another. Today: .webnn text <-> webnn-graph-json
// (the graph file only; weights are untouched). The input is dispatched on its extension so
// other front ends (ONNX) slot in as further readers.
#include <cstdio>
#include <functional>
#include <optional>

#include "wnn/cli/command.h"
#include "wnn/cli/conversion_args.h"
#include "wnn/cli/graph_args.h"
#include "wnn/cli/session_args.h"
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

}  // namespace

// convert_onnx.cc: the ONNX input path, given the -o value already read.
int convert_onnx_main(Args& args, const std::optional<std::string>& out);

namespace {

int run_convert(Args& args) {
  // -o is read first so an output named *.onnx never counts as an ONNX input.
  const auto out = args.value("output", 'o');
  if (args.any_ends_with(".onnx")) return convert_onnx_main(args, out);
  const std::string in = single_positional(args.finish(), "convert", "input file");
  check(out.has_value(), "wnn convert: missing -o OUT (see wnn convert --help)");
  const Reader* reader = nullptr;
  for (const auto& r : readers()) {
    if (has_extension(in, r.extension)) reader = &r;
  }
  check(reader != nullptr, "wnn convert: cannot read '{}': the input must end in .webnn or .json",
        in);
  Graph graph = reader->read(in);
  std::string text;
  if (has_extension(*out, ".json")) {
    text = format::print_json(graph);
  } else if (has_extension(*out, ".webnn")) {
    // JSON names are free strings; the text form maps those it cannot hold (docs/formats.md).
    const auto renamed = format::map_names_for_text(graph);
    if (!renamed.empty()) {
      std::fprintf(stderr, "renamed %zu operand(s) the text form cannot hold, e.g. '%s' -> '%s'\n",
                   renamed.size(), renamed[0].first.c_str(), renamed[0].second.c_str());
    }
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
    "convert an ONNX model to .webnn + .safetensors, or a graph between text and JSON",
    "usage: wnn convert MODEL.onnx (-o DIR | --cache) [--validate] [options]\n"
    "       wnn convert MODEL.onnx -o DIR --phase NAME:DIM=V,... --phase NAME:DIM=V,...\n"
    "       wnn convert MODEL.onnx --validate-cached [options]\n"
    "       wnn convert IN -o OUT\n\n"
    "ONNX: imports MODEL.onnx and writes DIR/MODEL.webnn and DIR/MODEL.safetensors. Every node\n"
    "must convert: unsupported nodes are all listed in one error (name, op, domain, opset,\n"
    "reason) and nothing is written.\n\n"
    "options for ONNX input:\n"
    "  -o, --output DIR            the output directory\n" WNN_CONVERSION_OPTIONS_HELP
    "  --phase NAME:DIM=V[,DIM=V]  one graph per phase (two or more; repeatable), its dims\n"
    "                              bound on top of --override-dim: writes DIR/MODEL.NAME.webnn\n"
    "                              each and ONE DIR/MODEL.safetensors, a weight the phases\n"
    "                              share stored once (e.g. a decoder's --phase\n"
    "                              prefill:sequence_length=16,past_sequence_length=0 --phase\n"
    "                              decode:sequence_length=1,past_sequence_length=127)\n"
    "  --cache                     write into the conversion cache instead of -o (keyed by the\n"
    "                              model's SHA-256, these options and the wnn version)\n"
    "  --validate                  then reload the written pair, run it and compare it with\n"
    "                              ONNX Runtime on the original model (as wnn validate)\n"
    "  --validate-cached           compare an existing cache entry with ONNX Runtime, without\n"
    "                              converting\n"
    "  --json                      print the summary (with --validate: the report) as JSON\n"
    "  -q, --quiet                 no progress line (shown on a TTY for conversions that take\n"
    "                              longer than a quarter second: nodes, then weight bytes "
    "written)\n"
    "with --validate or --validate-cached also:\n" WNN_VALIDATION_OPTIONS_HELP
        WNN_SESSION_OPTIONS_HELP
    "\n"
    "Graph files: reads IN (.webnn text or .json webnn-graph-json), validates it, and writes it to "
    "OUT in\n"
    "the form OUT's extension names (.webnn or .json), canonically and atomically. Only the\n"
    "graph file is converted: the weights file is shared by both forms and left untouched.\n"
    "JSON names may be any string; writing .webnn maps those the text form cannot hold\n"
    "(input:0 -> input_0_<8 hex digits>, see docs/formats.md) and says how many on stderr.\n\n"
    "options for graph files:\n"
    "  -o, --output OUT  the file to write (required)",
    run_convert,
}};

}  // namespace
}  // namespace wnn::cli
