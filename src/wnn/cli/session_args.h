// The execution options every running command takes (run, bench, validate, partition):
// --backend, --threads and --no-fold, parsed into runtime::SessionOptions, the one place the
// backend is chosen.
#pragma once

#include "wnn/cli/args.h"
#include "wnn/runtime/session.h"

namespace wnn::cli {

runtime::SessionOptions session_options(Args& args);

// Help lines for those options, spliced into a command's help literal.
#define WNN_SESSION_OPTIONS_HELP                                                               \
  "  --backend NAME         executor: auto (default: every delegate by preference, the rest\n" \
  "                         on the reference kernels), packed, attention, onednn, xnnpack\n"   \
  "                         or ref\n"                                                          \
  "  --threads N            threads for the delegates (default 1)\n"                           \
  "  --no-fold              do not fold parameter-only subgraphs into constants\n"

}  // namespace wnn::cli
