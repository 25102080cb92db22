// The ONNX conversion options (`--override-dim`, `--override-dims-file`, `--pin-input`) and the
// validation options (`--input`, `--atol`, `--rtol`, `--noise-floor`, `--per-node`, `--report`,
// `--ort-timeout`, ...) that convert and validate share, parsed in one place.
#pragma once

#include <optional>
#include <string>

#include "wnn/cli/args.h"
#include "wnn/onnx/import.h"
#include "wnn/validate/validate.h"

namespace wnn::cli {

onnx::ImportOptions conversion_options(Args& args);

// Fills everything but `import`, `storage` and `output_dir`.
void read_validation_options(Args& args, validate::ValidateOptions& options);

// validate_onnx_model with the progress of long stages on stderr (a TTY, neither quiet nor json).
validate::Report run_validation(const std::string& onnx_path, validate::ValidateOptions options,
                                bool quiet, bool json);

// Prints the summary (or, with `json`, the JSON report) on stdout, writes `report_path` when
// given, and returns the exit code.
int finish_validation(const validate::Report& report, const std::optional<std::string>& report_path,
                      bool quiet, bool json);

#define WNN_CONVERSION_OPTIONS_HELP                                                           \
  "  --override-dim NAME=V       value of the free dimension called NAME (repeatable)\n"      \
  "  --override-dim INPUT:AXIS=V value of axis AXIS of graph input INPUT, named or not\n"     \
  "                              (split at the last '='; 'in:0:1=3' is axis 1 of 'in:0')\n"   \
  "  --override-dims-file F.json {KEY: V} or {\"freeDimensionOverrides\": {KEY: V}}, each\n"  \
  "                              KEY a NAME or INPUT:AXIS\n"                                  \
  "  --pin-input NAME=V[,V...]   freeze a graph input to a constant (one value fills it)\n"   \
  "  --weights real|zeros        zeros: external data whose file is missing (or too short)\n" \
  "                              converts as zeros, to check the structure of a model\n"      \
  "                              without its weights (default real: missing data is an error)\n"

#define WNN_VALIDATION_OPTIONS_HELP                                                           \
  "  --input NAME=FILE.npy       the value of input NAME (its shape binds the input's free\n" \
  "                              dims); other inputs are generated (docs/validation.md)\n"    \
  "  --atol A, --rtol R          float tolerances (default by dtype: float32 1e-5/1e-4,\n"    \
  "                              float16 1e-3/1e-2; MatMulNBits graphs 4-bit 1e-3/1e-3,\n"    \
  "                              8-bit 2e-3/2e-3; integers and bools exact)\n"                \
  "  --noise-floor MODE          auto (default): when an output fails the tolerance,\n"       \
  "                              run ONNX Runtime again with optimizations disabled and\n"    \
  "                              another thread count; an element then passes within 4x\n"    \
  "                              the largest difference between those runs (its noise\n"      \
  "                              floor). MatMulNBits at accuracy_level 4 (int8\n"             \
  "                              activations): one more run at level 0, and an element\n"     \
  "                              also passes within 1x its distance (docs/validation.md).\n"  \
  "                              always: measure it on every run; off: never\n"               \
  "  --per-node                  also compare every intermediate value the converted graph\n" \
  "                              shares with the ONNX model, in topological order; prints\n"  \
  "                              the first node beyond tolerance and the worst nodes\n"       \
  "  --per-node-memory MB        tensors held at once by --per-node, both sides together\n"   \
  "                              (default 1024); more values per batch, fewer runs\n"         \
  "  --report FILE.json          write the JSON report (for every outcome)\n"                 \
  "  --ort-timeout SECONDS       limit for each ONNX Runtime run (default 600)\n"

}  // namespace wnn::cli
