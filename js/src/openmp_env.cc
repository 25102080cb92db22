// wnn_env.node: chooses how oneDNN's OpenMP workers wait between kernels for this Node process,
// the CLI's rule (runtime/thread_waiting.h), before wnn.node is loaded. libgomp reads
// OMP_WAIT_POLICY and GOMP_SPINCOUNT once, when it loads, so this module must not link it:
// js/lib/native.js loads it first, calls chooseOpenmpWaiting(), then loads wnn.node.
#include <node_api.h>

#include <cstdlib>

#include "wnn/runtime/thread_waiting.h"

namespace {

// chooseOpenmpWaiting() -> the reason line when it chose, null when the user had set either
// variable (their choice stands).
napi_value ChooseOpenmpWaiting(napi_env env, napi_callback_info) {
  napi_value result;
  if (!wnn::runtime::set_openmp_waiting_environment()) {
    napi_get_null(env, &result);
    return result;
  }
  const char* reason = std::getenv("WNN_OPENMP_WAITING");
  napi_create_string_utf8(env, reason ? reason : "", NAPI_AUTO_LENGTH, &result);
  return result;
}

napi_value Init(napi_env env, napi_value exports) {
  napi_value fn;
  napi_create_function(env, "chooseOpenmpWaiting", NAPI_AUTO_LENGTH, ChooseOpenmpWaiting, nullptr,
                       &fn);
  napi_set_named_property(env, exports, "chooseOpenmpWaiting", fn);
  return exports;
}

}  // namespace

NAPI_MODULE(NODE_GYP_MODULE_NAME, Init)
