// `wnn ops`: the operator table, as text, JSON or the Markdown of docs/operators.md.
#include <cstdio>

#include "wnn/cli/command.h"
#include "wnn/core/ops/describe.h"

namespace wnn::cli {
namespace {

int run_ops(Args& args) {
  const bool json = args.flag("json");
  const bool markdown = args.flag("markdown");
  args.finish();
  if (json) {
    std::printf("%s\n", operator_table_json().dump(2).c_str());
  } else if (markdown) {
    std::fputs(operator_table_markdown().c_str(), stdout);
  } else {
    std::fputs(operator_table_text().c_str(), stdout);
  }
  return kExitOk;
}

const CommandRegistration registration{{
    "ops",
    "list every WebNN operator with its arguments, options, defaults and dtypes",
    "usage: wnn ops [--json | --markdown]\n\n"
    "Prints the operator table wnn validates graphs against.\n\n"
    "options:\n"
    "  --json       machine-readable: {count, operators: [{name, arguments, options}]}\n"
    "  --markdown   the text of docs/operators.md",
    run_ops,
}};

}  // namespace
}  // namespace wnn::cli
