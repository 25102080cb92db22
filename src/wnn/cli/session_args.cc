#include "wnn/cli/session_args.h"

#include "wnn/core/error.h"
#include "wnn/runtime/delegate.h"

namespace wnn::cli {

runtime::SessionOptions session_options(Args& args) {
  runtime::SessionOptions o;
  o.backend = args.value("backend").value_or(o.backend);
  runtime::delegates_for_backend(o.backend);  // an unknown name is a usage error now
  const int64_t threads = args.int_value("threads").value_or(o.threads);
  check(threads >= 1 && threads <= 1024, "--threads must be in [1, 1024], got {}", threads);
  o.threads = int(threads);
  o.fold = !args.flag("no-fold");
  return o;
}

}  // namespace wnn::cli
