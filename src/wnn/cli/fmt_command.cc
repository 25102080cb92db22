// `wnn fmt`: prints a graph file in its canonical form, checks it is canonical, or rewrites it.
#include <cstdio>

#include "wnn/cli/command.h"
#include "wnn/cli/graph_args.h"
#include "wnn/core/atomic_file.h"
#include "wnn/core/error.h"
#include "wnn/format/graph_file.h"

namespace wnn::cli {
namespace {

int run_fmt(Args& args) {
  const bool check_only = args.flag("check");
  const bool in_place = args.flag("in-place", 'i');
  const std::string path = single_positional(args.finish(), "fmt", "graph file");
  check(!(check_only && in_place), "wnn fmt: --check and -i cannot be combined");
  const std::string original = read_file(path);
  const Graph graph = format::parse_graph(original, path);
  // A .json file stays JSON; everything else is .webnn text.
  const std::string canonical =
      has_extension(path, ".json") ? format::print_json(graph) : format::print_text(graph);
  if (check_only) {
    if (canonical == original) return kExitOk;
    std::fprintf(stderr, "wnn: %s is not in canonical form (run 'wnn fmt -i %s')\n", path.c_str(),
                 path.c_str());
    return kExitCheckFailed;
  }
  if (in_place) {
    if (canonical != original) write_file_atomic(path, canonical);
    return kExitOk;
  }
  std::fwrite(canonical.data(), 1, canonical.size(), stdout);
  return kExitOk;
}

const CommandRegistration registration{{
    "fmt",
    "print a graph file in canonical form, check it, or rewrite it in place",
    "usage: wnn fmt GRAPH [--check | -i]\n\n"
    "Parses GRAPH and prints it in canonical form to stdout: blocks in the order inputs,\n"
    "consts, nodes, outputs (empty ones left out), declaration order kept, operands first,\n"
    "then named parameters and the options given, in the operator table's order, shortest\n"
    "round-trip floats. A .json file is printed as webnn-graph-json, anything else as\n"
    ".webnn text. Older spellings (cast(x, to=...), bare enum words, [y] = op(...), //\n"
    "comments) are rewritten to the canonical ones; comments are not kept.\n\n"
    "options:\n"
    "  --check         print nothing; exit 1 when GRAPH is not already canonical\n"
    "  -i, --in-place  rewrite GRAPH (atomically) instead of printing it",
    run_fmt,
}};

}  // namespace
}  // namespace wnn::cli
