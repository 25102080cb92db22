// `wnn validate MODEL.onnx`: convert, reload from disk, run, and compare with ONNX Runtime.
#include <cstdio>

#include "wnn/cli/command.h"
#include "wnn/cli/conversion_args.h"
#include "wnn/cli/graph_args.h"
#include "wnn/cli/session_args.h"
#include "wnn/validate/validate.h"

namespace wnn::cli {
namespace {

int run_validate(Args& args) {
  validate::ValidateOptions options;
  options.import = conversion_options(args);
  read_validation_options(args, options);
  const auto report_path = args.value("report");
  const bool cache = args.flag("cache");
  const bool cached = args.flag("cached");
  const bool quiet = args.flag("quiet", 'q');
  const bool json = args.flag("json");
  const std::string in = single_positional(args.finish(), "validate", "input .onnx file");
  check(!(cache && cached), "wnn validate: --cache and --cached are exclusive");
  options.storage = cached  ? validate::Storage::kCachedOnly
                    : cache ? validate::Storage::kCache
                            : validate::Storage::kTemporary;
  return finish_validation(run_validation(in, options, quiet, json), report_path, quiet, json);
}

const CommandRegistration registration{{
    "validate",
    "convert an ONNX model and prove it matches ONNX Runtime on the same inputs",
    "usage: wnn validate MODEL.onnx [options]\n\n"
    "Converts MODEL.onnx, writes the .webnn + .safetensors pair, reloads it from disk, runs it,\n"
    "runs MODEL.onnx itself in ONNX Runtime (tools/ort-reference) on the same inputs and compares\n"
    "every output: pass when |a - r| <= atol + rtol * |r| everywhere (NaN matches NaN,\n"
    "infinities match in sign), or within k times the reference's own noise floor\n"
    "(--noise-floor). Prints one line per output (✓/✗, max and mean abs error, max\n"
    "normalized error, cosine, top-1 agreement) and exits 0 on a pass, 1 on a mismatch or an\n"
    "ONNX Runtime failure, 2 when the model does not convert (or bad usage), 3 on a wnn bug.\n"
    "--per-node also compares every intermediate value and names the first divergent node.\n\n"
    "options:\n" WNN_CONVERSION_OPTIONS_HELP WNN_VALIDATION_OPTIONS_HELP
    "  --cache                     convert into the cache (reuse a valid entry)\n"
    "  --cached                    use an existing cache entry only (see wnn convert "
    "--cache)\n" WNN_SESSION_OPTIONS_HELP
    "  --json                      print the JSON report instead of the summary\n"
    "  -q, --quiet                 no cache notes on stderr\n\n"
    "environment: WNN_CACHE_DIR (cache root; else $XDG_CACHE_HOME/wnn, else ~/.cache/wnn),\n"
    "WNN_ORT_REFERENCE (path of run.js), WNN_NODE (the node executable).",
    run_validate,
}};

}  // namespace
}  // namespace wnn::cli
