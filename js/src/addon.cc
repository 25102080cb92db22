// The Node-API addon under js/index.js: a graph builder over wnn::GraphBuilder, compiled
// graphs over wnn::runtime::Session, and build and dispatch off the main thread (on one
// dispatch thread per Node environment, DispatchThread).
// It exports the operator table so that js/lib/webnn.js generates every MLGraphBuilder method
// and option dictionary from it. Only Node-API (node_api.h) is used: the addon is ABI-stable.
//
// Errors: a wnn::Error of kind invalid-input becomes a TypeError carrying wnn's message; other
// failures become an Error whose .name is "OperationError". No C++ exception leaves a callback.
#include <node_api.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "wnn/conformance/wpt.h"
#include "wnn/core/builder.h"
#include "wnn/core/error.h"
#include "wnn/core/names.h"
#include "wnn/format/param_spelling.h"
#include "wnn/runtime/delegate.h"
#include "wnn/runtime/session.h"

namespace {

using namespace wnn;

// ---- small Node-API helpers ----

struct JsError {
  std::string name;  // "TypeError", "OperationError", ...
  std::string message;
};

#define NAPI_OK(call)                                     \
  do {                                                    \
    if ((call) != napi_ok) throw JsError{"Error", #call}; \
  } while (0)

napi_value make_string(napi_env env, std::string_view s) {
  napi_value v;
  NAPI_OK(napi_create_string_utf8(env, s.data(), s.size(), &v));
  return v;
}
napi_value make_number(napi_env env, double d) {
  napi_value v;
  NAPI_OK(napi_create_double(env, d, &v));
  return v;
}
napi_value make_object(napi_env env) {
  napi_value v;
  NAPI_OK(napi_create_object(env, &v));
  return v;
}
napi_value make_array(napi_env env, size_t n = 0) {
  napi_value v;
  NAPI_OK(napi_create_array_with_length(env, n, &v));
  return v;
}
void set(napi_env env, napi_value obj, const char* key, napi_value v) {
  NAPI_OK(napi_set_named_property(env, obj, key, v));
}
napi_value get(napi_env env, napi_value obj, const char* key) {
  napi_value v;
  NAPI_OK(napi_get_named_property(env, obj, key, &v));
  return v;
}
napi_valuetype type_of(napi_env env, napi_value v) {
  napi_valuetype t;
  NAPI_OK(napi_typeof(env, v, &t));
  return t;
}
bool is_array(napi_env env, napi_value v) {
  bool b = false;
  NAPI_OK(napi_is_array(env, v, &b));
  return b;
}
std::string get_string(napi_env env, napi_value v) {
  if (type_of(env, v) != napi_string) throw JsError{"TypeError", "expected a string"};
  size_t len = 0;
  NAPI_OK(napi_get_value_string_utf8(env, v, nullptr, 0, &len));
  std::string s(len, '\0');
  NAPI_OK(napi_get_value_string_utf8(env, v, s.data(), len + 1, &len));
  return s;
}
double get_double(napi_env env, napi_value v) {
  double d = 0;
  if (napi_get_value_double(env, v, &d) != napi_ok) throw JsError{"TypeError", "expected a number"};
  return d;
}
bool get_bool(napi_env env, napi_value v) {
  bool b = false;
  if (napi_get_value_bool(env, v, &b) != napi_ok) throw JsError{"TypeError", "expected a boolean"};
  return b;
}
uint32_t array_length(napi_env env, napi_value v) {
  uint32_t n = 0;
  NAPI_OK(napi_get_array_length(env, v, &n));
  return n;
}
napi_value element(napi_env env, napi_value arr, uint32_t i) {
  napi_value v;
  NAPI_OK(napi_get_element(env, arr, i, &v));
  return v;
}
std::vector<napi_value> args_of(napi_env env, napi_callback_info info, size_t want) {
  std::vector<napi_value> argv(want);
  size_t argc = want;
  NAPI_OK(napi_get_cb_info(env, info, &argc, argv.data(), nullptr, nullptr));
  napi_value undef;
  NAPI_OK(napi_get_undefined(env, &undef));
  for (size_t i = argc; i < want; ++i) argv[i] = undef;
  return argv;
}
struct Bytes {
  std::byte* data = nullptr;
  size_t size = 0;
};
Bytes view_bytes(napi_env env, napi_value v) {
  bool is_ta = false, is_dv = false, is_ab = false;
  NAPI_OK(napi_is_typedarray(env, v, &is_ta));
  void* data = nullptr;
  size_t size = 0;
  if (is_ta) {
    napi_typedarray_type t;
    size_t length = 0, offset = 0;
    napi_value ab;
    NAPI_OK(napi_get_typedarray_info(env, v, &t, &length, &data, &ab, &offset));
    static const size_t kElem[] = {1, 1, 1, 2, 2, 4, 4, 4, 8, 8, 8};
    size = length * kElem[t];
    return {static_cast<std::byte*>(data), size};
  }
  NAPI_OK(napi_is_dataview(env, v, &is_dv));
  if (is_dv) {
    napi_value ab;
    size_t offset = 0;
    NAPI_OK(napi_get_dataview_info(env, v, &size, &data, &ab, &offset));
    return {static_cast<std::byte*>(data), size};
  }
  NAPI_OK(napi_is_arraybuffer(env, v, &is_ab));
  if (is_ab) {
    NAPI_OK(napi_get_arraybuffer_info(env, v, &data, &size));
    return {static_cast<std::byte*>(data), size};
  }
  throw JsError{"TypeError", "expected an ArrayBufferView or ArrayBuffer"};
}

void throw_js(napi_env env, const JsError& e) {
  napi_value msg = nullptr, err = nullptr;
  napi_create_string_utf8(env, e.message.data(), e.message.size(), &msg);
  if (e.name == "TypeError") {
    napi_create_type_error(env, nullptr, msg, &err);
  } else {
    napi_create_error(env, nullptr, msg, &err);
    napi_value name = nullptr;
    napi_create_string_utf8(env, e.name.data(), e.name.size(), &name);
    napi_set_named_property(env, err, "name", name);
  }
  napi_throw(env, err);
}

JsError from_wnn(const Error& e) {
  return {e.kind() == ErrorKind::kInvalidInput ? "TypeError" : "OperationError", e.what()};
}

// Runs `fn`, turning every C++ exception into a pending JS exception.
template <typename Fn>
napi_value guarded(napi_env env, Fn&& fn) {
  try {
    return fn();
  } catch (const JsError& e) {
    throw_js(env, e);
  } catch (const Error& e) {
    throw_js(env, from_wnn(e));
  } catch (const std::exception& e) {
    throw_js(env, {"OperationError", e.what()});
  }
  return nullptr;
}

template <typename T>
T* unwrap_external(napi_env env, napi_value v, const char* what) {
  if (type_of(env, v) != napi_external) throw JsError{"TypeError", std::string("expected ") + what};
  void* p = nullptr;
  NAPI_OK(napi_get_value_external(env, v, &p));
  return static_cast<T*>(p);
}

template <typename T>
napi_value wrap_external(napi_env env, std::unique_ptr<T> holder) {
  napi_value v;
  T* raw = holder.get();
  NAPI_OK(napi_create_external(
      env, raw, [](napi_env, void* data, void*) { delete static_cast<T*>(data); }, nullptr, &v));
  holder.release();
  return v;
}

// ---- operand descriptors ----

napi_value desc_to_js(napi_env env, const OperandDesc& d) {
  napi_value obj = make_object(env);
  set(env, obj, "dataType", make_string(env, dtype_name(d.dtype)));
  napi_value shape = make_array(env, d.shape.size());
  for (size_t i = 0; i < d.shape.size(); ++i)
    NAPI_OK(napi_set_element(env, shape, uint32_t(i), make_number(env, double(d.shape[i]))));
  set(env, obj, "shape", shape);
  return obj;
}

OperandDesc desc_from_js(napi_env env, napi_value dtype, napi_value shape) {
  OperandDesc d;
  const auto t = parse_dtype(get_string(env, dtype));
  // Only the WebNN spellings: the IDL enum is checked by the JS layer; this is a backstop.
  if (!t) throw JsError{"TypeError", "unknown data type"};
  d.dtype = *t;
  if (!is_array(env, shape)) throw JsError{"TypeError", "shape must be a sequence"};
  const uint32_t n = array_length(env, shape);
  for (uint32_t i = 0; i < n; ++i) {
    const double v = get_double(env, element(env, shape, i));
    if (!(v >= 0 && v <= 4294967295.0) || v != double(int64_t(v)))
      throw JsError{"TypeError", "shape entries must be unsigned long values"};
    d.shape.push_back(int64_t(v));
  }
  return d;
}

// ---- builder ----

struct BuilderHolder {
  std::shared_ptr<Graph> graph = std::make_shared<Graph>();
  GraphBuilder builder{*graph};
  bool built = false;
};

BuilderHolder& live_builder(napi_env env, napi_value v) {
  auto* b = unwrap_external<BuilderHolder>(env, v, "a builder");
  if (b->built) throw JsError{"InvalidStateError", "MLGraphBuilder: build() was already called"};
  return *b;
}

napi_value operand_to_js(napi_env env, const Graph& g, OperandId id) {
  napi_value obj = desc_to_js(env, g.desc(id));
  set(env, obj, "id", make_number(env, id.index));
  return obj;
}

// A JS argument value as the builder's untyped RawValue. Operands come from the JS layer as
// {$operand: id}; integral numbers are integers (the schema coerces them to float options).
RawValue raw_from_js(napi_env env, napi_value v, int depth = 0) {
  if (depth > 16) throw JsError{"TypeError", "argument nested too deeply"};
  switch (type_of(env, v)) {
    case napi_undefined:
    case napi_null:
      return RawValue();
    case napi_boolean: {
      bool b = false;
      NAPI_OK(napi_get_value_bool(env, v, &b));
      return RawValue(b);
    }
    case napi_number: {
      const double d = get_double(env, v);
      if (std::isfinite(d) && d == std::trunc(d) && std::abs(d) < 9.007199254740992e15)
        return RawValue(int64_t(d));
      return RawValue(d);
    }
    case napi_bigint: {
      int64_t i = 0;
      bool lossless = false;
      NAPI_OK(napi_get_value_bigint_int64(env, v, &i, &lossless));
      if (!lossless) {
        uint64_t u = 0;
        NAPI_OK(napi_get_value_bigint_uint64(env, v, &u, &lossless));
        if (!lossless) throw JsError{"TypeError", "BigInt out of the 64-bit range"};
        i = int64_t(u);
      }
      return RawValue(i);
    }
    case napi_string:
      return RawValue(get_string(env, v));
    case napi_object: {
      if (is_array(env, v)) {
        RawValue::List list;
        const uint32_t n = array_length(env, v);
        for (uint32_t i = 0; i < n; ++i)
          list.push_back(raw_from_js(env, element(env, v, i), depth + 1));
        return RawValue(std::move(list));
      }
      bool has = false;
      NAPI_OK(napi_has_named_property(env, v, "$operand", &has));
      if (has) return RawValue(OperandId{uint32_t(get_double(env, get(env, v, "$operand")))});
      napi_value keys;
      NAPI_OK(napi_get_property_names(env, v, &keys));
      RawValue::Object obj;
      const uint32_t n = array_length(env, keys);
      for (uint32_t i = 0; i < n; ++i) {
        napi_value k = element(env, keys, i), val;
        NAPI_OK(napi_get_property(env, v, k, &val));
        obj.emplace_back(get_string(env, k), raw_from_js(env, val, depth + 1));
      }
      return RawValue(std::move(obj));
    }
    default:
      throw JsError{"TypeError", "unsupported argument value"};
  }
}

napi_value CreateBuilder(napi_env env, napi_callback_info) {
  return guarded(env, [&] { return wrap_external(env, std::make_unique<BuilderHolder>()); });
}

// input(builder, name, dataType, shape) -> {id, dataType, shape}
napi_value Input(napi_env env, napi_callback_info info) {
  return guarded(env, [&] {
    auto a = args_of(env, info, 4);
    BuilderHolder& b = live_builder(env, a[0]);
    const OperandDesc d = desc_from_js(env, a[2], a[3]);
    const OperandId id = b.builder.input(get_string(env, a[1]), d);
    return operand_to_js(env, *b.graph, id);
  });
}

// constant(builder, dataType, shape, bytes) -> operand. The bytes are copied (wnn's in-memory
// layout: int4/uint4 one element per byte).
napi_value Constant(napi_env env, napi_callback_info info) {
  return guarded(env, [&] {
    auto a = args_of(env, info, 4);
    BuilderHolder& b = live_builder(env, a[0]);
    const OperandDesc d = desc_from_js(env, a[1], a[2]);
    const Bytes bytes = view_bytes(env, a[3]);
    if (bytes.size != d.byte_size()) {
      throw JsError{"TypeError", fmt::format("constant: the buffer has {} bytes, {} needs {}",
                                             bytes.size, d.to_string(), d.byte_size())};
    }
    const std::string name = b.builder.unique_name("constant");
    const OperandId id = b.builder.constant(name, d, ConstantInitKind::kWeights, name, {}, {},
                                            Buffer::copy_of({bytes.data, bytes.size}));
    return operand_to_js(env, *b.graph, id);
  });
}

// add(builder, op, positional[], options{}) -> [operand...]
napi_value Add(napi_env env, napi_callback_info info) {
  return guarded(env, [&] {
    auto a = args_of(env, info, 4);
    BuilderHolder& b = live_builder(env, a[0]);
    Call call;
    call.op = get_string(env, a[1]);
    const uint32_t n = array_length(env, a[2]);
    for (uint32_t i = 0; i < n; ++i)
      call.args.push_back({"", raw_from_js(env, element(env, a[2], i)), ""});
    if (type_of(env, a[3]) == napi_object) {
      RawValue opts = raw_from_js(env, a[3]);
      for (auto& [k, v] : std::get<RawValue::Object>(opts.v)) {
        if (std::holds_alternative<std::monostate>(v.v)) continue;
        call.args.push_back({k, std::move(v), ""});
      }
    }
    const std::vector<OperandId> outs = b.builder.add(call);
    napi_value arr = make_array(env, outs.size());
    for (size_t i = 0; i < outs.size(); ++i)
      NAPI_OK(napi_set_element(env, arr, uint32_t(i), operand_to_js(env, *b.graph, outs[i])));
    return arr;
  });
}

// ---- compiled graphs ----

// Sessions alive in this process: compiled graphs neither destroyed nor collected, and those a
// dispatch in flight still holds. Only a diagnostic (liveGraphs() for the GC tests), so one
// process-wide counter rather than per-environment state.
std::atomic<int64_t> live_sessions{0};

// A session whose release is counted; the deleter owns the session it frees.
std::shared_ptr<runtime::Session> counted_session(std::shared_ptr<const Graph> graph,
                                                  const runtime::SessionOptions& options) {
  auto session = std::make_shared<runtime::Session>(std::move(graph), options);
  runtime::Session* raw = session.get();
  ++live_sessions;
  return {raw, [owner = std::move(session)](runtime::Session*) mutable {
            owner.reset();
            --live_sessions;
          }};
}

struct Compiled {
  std::shared_ptr<const Graph> graph;  // as built (before the session's folding)
  std::shared_ptr<runtime::Session> session;
  std::vector<std::pair<std::string, OperandId>> outputs;  // build()'s names, in graph order
};

Compiled& live_graph(napi_env env, napi_value v) {
  auto* c = unwrap_external<Compiled>(env, v, "a graph");
  if (!c->session) throw JsError{"InvalidStateError", "MLGraph: the graph was destroyed"};
  return *c;
}

// Work for the dispatch thread with a promise, shared by build and dispatch.
struct Work {
  napi_deferred deferred = nullptr;
  std::vector<napi_ref> refs;  // buffers kept alive while the worker reads or writes them
  std::function<void()> execute;
  std::function<napi_value(napi_env)> complete;  // on the main thread after success
  std::optional<JsError> error;
};

// The threads that have compiled a graph or run one off the main thread, for
// sessionThreads(): one per Node environment (DispatchThread), process-wide like live_sessions.
std::mutex session_threads_mutex;
std::set<std::thread::id> session_threads;

// Runs w->execute on the calling thread, keeping its failure for settle(). `worker`: off the
// main thread (counted by sessionThreads()).
void execute_work(Work& w, bool worker) {
  if (worker) {
    std::lock_guard<std::mutex> lock(session_threads_mutex);
    session_threads.insert(std::this_thread::get_id());
  }
  try {
    w.execute();
  } catch (const Error& e) {
    w.error = from_wnn(e);
    // Failures while compiling or running an already validated graph are operation errors.
    w.error->name = "OperationError";
  } catch (const std::exception& e) {
    w.error = JsError{"OperationError", e.what()};
  }
}

// On the main thread once w has run: releases its buffers and settles its promise.
void settle(napi_env env, std::unique_ptr<Work> w) {
  for (napi_ref r : w->refs) napi_delete_reference(env, r);
  napi_value result = nullptr;
  if (!w->error) {
    try {
      result = w->complete(env);
    } catch (const JsError& e) {
      w->error = e;
    }
  }
  if (w->error) {
    napi_value msg, err, nm;
    napi_create_string_utf8(env, w->error->message.data(), w->error->message.size(), &msg);
    napi_create_error(env, nullptr, msg, &err);
    napi_create_string_utf8(env, w->error->name.data(), w->error->name.size(), &nm);
    napi_set_named_property(env, err, "name", nm);
    napi_reject_deferred(env, w->deferred, err);
  } else {
    napi_resolve_deferred(env, w->deferred, result);
  }
}

// The one thread every build and every worker dispatch of this Node environment runs on.
// libgomp keeps a team of worker threads per thread that starts a parallel region, for as long
// as that thread lives, and counts every team's workers: once they outnumber the CPUs it stops
// spinning between kernels altogether (its throttled spin count is 0 under OMP_WAIT_POLICY=
// PASSIVE, the CLI's choice, thread_waiting.h), so every kernel then pays a worker's wake-up.
// Runs spread over libuv's pool (four threads) made up to four teams; compiling on the pool
// (the weight reorders run in parallel) and running here made two, which on 2 CPUs with 2
// threads turned the spinning off: resnet18 ran 5-7% slower than in `wnn bench`. Compiling
// and running on one thread, as the CLI does, keeps one team (docs/benchmarks.md).
class DispatchThread {
 public:
  explicit DispatchThread(napi_env env) {
    NAPI_OK(napi_create_threadsafe_function(env, nullptr, nullptr, make_string(env, "wnn.dispatch"),
                                            0, 1, nullptr, nullptr, this, call_js, &tsfn_));
    NAPI_OK(napi_unref_threadsafe_function(env, tsfn_));  // idle: the loop may exit
    thread_ = std::thread([this] { loop(); });
    napi_add_env_cleanup_hook(
        env,
        [](void* self) {
          auto* t = static_cast<DispatchThread*>(self);
          t->stop();
          delete t;
        },
        this);
  }

  napi_value queue(napi_env env, std::unique_ptr<Work> w) {
    napi_value promise;
    NAPI_OK(napi_create_promise(env, &w->deferred, &promise));
    if (pending_++ == 0) napi_ref_threadsafe_function(env, tsfn_);  // keep the loop alive
    {
      std::lock_guard<std::mutex> lock(mutex_);
      queue_.push_back(w.release());
    }
    ready_.notify_one();
    return promise;
  }

 private:
  void loop() {
    for (;;) {
      Work* w;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        ready_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
        if (stopping_) return;  // the environment is going away: nothing can be settled
        w = queue_.front();
        queue_.pop_front();
      }
      execute_work(*w, true);
      if (napi_call_threadsafe_function(tsfn_, w, napi_tsfn_blocking) != napi_ok) delete w;
    }
  }

  static void call_js(napi_env env, napi_value, void* context, void* data) {
    std::unique_ptr<Work> w(static_cast<Work*>(data));
    if (env == nullptr) return;  // torn down
    auto* self = static_cast<DispatchThread*>(context);
    settle(env, std::move(w));
    if (--self->pending_ == 0) napi_unref_threadsafe_function(env, self->tsfn_);
  }

  void stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    ready_.notify_one();
    thread_.join();
    napi_release_threadsafe_function(tsfn_, napi_tsfn_abort);
  }

  napi_threadsafe_function tsfn_ = nullptr;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Work*> queue_;
  bool stopping_ = false;
  int64_t pending_ = 0;  // queued or running, not yet settled (main thread only)
};

DispatchThread& dispatch_thread(napi_env env) {
  void* data = nullptr;
  NAPI_OK(napi_get_instance_data(env, &data));
  if (!data) {
    // Lives as long as the environment: its cleanup hook stops the thread and deletes it.
    auto* t = new DispatchThread(env);
    NAPI_OK(napi_set_instance_data(env, t, nullptr, nullptr));
    data = t;
  }
  return *static_cast<DispatchThread*>(data);
}

// build(builder, [[name, id]...], backend, threads) -> Promise<graph>
napi_value Build(napi_env env, napi_callback_info info) {
  return guarded(env, [&] {
    auto a = args_of(env, info, 4);
    BuilderHolder& b = live_builder(env, a[0]);
    auto compiled = std::make_shared<Compiled>();
    const uint32_t n = array_length(env, a[1]);
    if (n == 0) throw JsError{"TypeError", "build: at least one output is required"};
    for (uint32_t i = 0; i < n; ++i) {
      napi_value pair = element(env, a[1], i);
      const std::string name = get_string(env, element(env, pair, 0));
      const OperandId id{uint32_t(get_double(env, element(env, pair, 1)))};
      if (id.index >= b.graph->operands().size())
        throw JsError{"TypeError", "build: unknown operand"};
      if (b.graph->operand(id).kind != OperandKind::kNodeOutput)
        throw JsError{"TypeError",
                      fmt::format("build: output '{}' is an input or a constant", name)};
      if (!b.graph->is_output(id)) b.builder.output(id);
      compiled->outputs.emplace_back(name, id);
    }
    runtime::SessionOptions options;
    options.backend = get_string(env, a[2]);
    options.threads = int(get_double(env, a[3]));
    options.warn_fallback = false;
    b.built = true;
    compiled->graph = b.graph;
    auto w = std::make_unique<Work>();
    w->execute = [compiled, options] {
      compiled->session = counted_session(compiled->graph, options);
    };
    w->complete = [compiled](napi_env env) {
      // Outputs in the graph's order with build()'s names.
      std::vector<std::pair<std::string, OperandId>> ordered;
      for (OperandId id : compiled->graph->outputs())
        for (const auto& o : compiled->outputs)
          if (o.second == id) ordered.push_back(o);
      compiled->outputs = std::move(ordered);
      auto holder = std::make_unique<Compiled>(*compiled);
      return wrap_external(env, std::move(holder));
    };
    return dispatch_thread(env).queue(env, std::move(w));
  });
}

// graphInfo(graph) -> {inputs: {name: desc}, outputs: {name: desc}}
napi_value GraphInfo(napi_env env, napi_callback_info info) {
  return guarded(env, [&] {
    auto a = args_of(env, info, 1);
    Compiled& c = live_graph(env, a[0]);
    napi_value ins = make_object(env), outs = make_object(env), r = make_object(env);
    for (const auto& in : c.graph->inputs())
      set(env, ins, c.graph->name_of(in.id).c_str(), desc_to_js(env, c.graph->desc(in.id)));
    for (const auto& [name, id] : c.outputs)
      set(env, outs, name.c_str(), desc_to_js(env, c.graph->desc(id)));
    set(env, r, "inputs", ins);
    set(env, r, "outputs", outs);
    return r;
  });
}

napi_value DestroyGraph(napi_env env, napi_callback_info info) {
  return guarded(env, [&] {
    auto a = args_of(env, info, 1);
    auto* c = unwrap_external<Compiled>(env, a[0], "a graph");
    c->session.reset();  // a dispatch in flight keeps its own reference
    napi_value u;
    NAPI_OK(napi_get_undefined(env, &u));
    return u;
  });
}

// dispatch(graph, [[name, bytes]...], [[name, bytes]...], inline) -> the run's time in ns:
// a Promise of it, the run on a worker thread, or (inline true) the number itself, the run done
// on the calling thread before returning (webnn.js runs graphs that take less than a thread
// hop inline). Inputs by graph input name; outputs by build()'s names. Sizes are checked
// before anything runs.
napi_value Dispatch(napi_env env, napi_callback_info info) {
  return guarded(env, [&] {
    auto a = args_of(env, info, 4);
    Compiled& c = live_graph(env, a[0]);
    const bool run_inline = type_of(env, a[3]) == napi_boolean && get_bool(env, a[3]);
    auto w = std::make_unique<Work>();
    struct Job {
      std::shared_ptr<runtime::Session> session;
      std::vector<Tensor> input_descs;  // shape holders
      std::vector<runtime::NamedView> inputs;
      std::vector<Bytes> outputs;  // in graph output order
    };
    auto job = std::make_shared<Job>();
    job->session = c.session;
    auto keep = [&](napi_value v) {
      if (run_inline) return;  // the caller's buffers outlive a call that returns after the run
      napi_ref r;
      NAPI_OK(napi_create_reference(env, v, 1, &r));
      w->refs.push_back(r);
    };
    const uint32_t ni = array_length(env, a[1]);
    if (ni != c.graph->inputs().size()) {
      throw JsError{"TypeError", fmt::format("dispatch: {} inputs given, the graph has {}", ni,
                                             c.graph->inputs().size())};
    }
    job->input_descs.reserve(ni);
    for (uint32_t i = 0; i < ni; ++i) {
      napi_value pair = element(env, a[1], i);
      const std::string name = get_string(env, element(env, pair, 0));
      const auto id = c.graph->find(name);
      if (!id || c.graph->operand(*id).kind != OperandKind::kInput)
        throw JsError{"TypeError", fmt::format("dispatch: the graph has no input '{}'", name)};
      napi_value buf = element(env, pair, 1);
      const Bytes bytes = view_bytes(env, buf);
      const OperandDesc& d = c.graph->desc(*id);
      if (bytes.size != d.byte_size())
        throw JsError{"TypeError",
                      fmt::format("dispatch: input '{}' is not {}", name, d.to_string())};
      keep(buf);
      job->input_descs.push_back(Tensor{d.dtype, d.shape, {}});
      job->inputs.push_back(
          {name, ConstTensorView{d.dtype, job->input_descs.back().shape, bytes.data}});
    }
    const uint32_t no = array_length(env, a[2]);
    if (no != c.outputs.size()) {
      throw JsError{"TypeError", fmt::format("dispatch: {} outputs given, the graph has {}", no,
                                             c.outputs.size())};
    }
    job->outputs.resize(no);
    std::vector<bool> seen(no);
    for (uint32_t i = 0; i < no; ++i) {
      napi_value pair = element(env, a[2], i);
      const std::string name = get_string(env, element(env, pair, 0));
      size_t k = 0;
      while (k < c.outputs.size() && c.outputs[k].first != name) ++k;
      if (k == c.outputs.size() || seen[k])
        throw JsError{"TypeError", fmt::format("dispatch: the graph has no output '{}'", name)};
      seen[k] = true;
      napi_value buf = element(env, pair, 1);
      const Bytes bytes = view_bytes(env, buf);
      const OperandDesc& d = c.graph->desc(c.outputs[k].second);
      if (bytes.size != d.byte_size())
        throw JsError{"TypeError",
                      fmt::format("dispatch: output '{}' is not {}", name, d.to_string())};
      keep(buf);
      job->outputs[k] = bytes;
    }
    // Two graph outputs may name one operand: the session returns it once per graph output.
    auto elapsed_ns = std::make_shared<double>(0);
    w->execute = [job, elapsed_ns] {
      const auto start = std::chrono::steady_clock::now();
      const auto results = job->session->run(job->inputs);
      for (size_t i = 0; i < job->outputs.size() && i < results.size(); ++i) {
        const Buffer& data = results[i].tensor.data;
        std::memcpy(job->outputs[i].data, data.data(), std::min(data.size(), job->outputs[i].size));
      }
      *elapsed_ns = double(std::chrono::duration_cast<std::chrono::nanoseconds>(
                               std::chrono::steady_clock::now() - start)
                               .count());
    };
    w->complete = [elapsed_ns](napi_env env) { return make_number(env, *elapsed_ns); };
    if (!run_inline) return dispatch_thread(env).queue(env, std::move(w));
    execute_work(*w, false);
    if (w->error) throw *w->error;
    return w->complete(env);
  });
}

napi_value LiveGraphs(napi_env env, napi_callback_info) {
  return guarded(env, [&] { return make_number(env, double(live_sessions.load())); });
}

napi_value SessionThreads(napi_env env, napi_callback_info) {
  return guarded(env, [&] {
    std::lock_guard<std::mutex> lock(session_threads_mutex);
    return make_number(env, double(session_threads.size()));
  });
}

// backends() -> the names setBackend() accepts in this build: "ref", "auto" and each delegate.
napi_value Backends(napi_env env, napi_callback_info) {
  return guarded(env, [&] {
    const auto delegates = runtime::available_delegates();
    napi_value arr = make_array(env, 2 + delegates.size());
    NAPI_OK(napi_set_element(env, arr, 0, make_string(env, "ref")));
    NAPI_OK(napi_set_element(env, arr, 1, make_string(env, "auto")));
    for (size_t i = 0; i < delegates.size(); ++i)
      NAPI_OK(napi_set_element(env, arr, uint32_t(2 + i), make_string(env, delegates[i]->name())));
    return arr;
  });
}

// ---- the operator table ----

napi_value rank_range_to_js(napi_env env, RankRange r) {
  napi_value o = make_object(env);
  set(env, o, "min", make_number(env, double(r.min)));
  set(env, o, "max", make_number(env, double(r.max)));
  return o;
}

napi_value param_to_js(napi_env env, const ParamSpec& p) {
  napi_value o = make_object(env);
  set(env, o, "name", make_string(env, p.name));
  set(env, o, "kind", make_string(env, param_kind_name(p.kind)));
  napi_value ev = make_array(env, p.enum_values.size());
  for (size_t i = 0; i < p.enum_values.size(); ++i)
    NAPI_OK(napi_set_element(env, ev, uint32_t(i), make_string(env, p.enum_values[i])));
  set(env, o, "enumValues", ev);
  napi_value dts = make_array(env);
  uint32_t k = 0;
  for (DataType t : kAllDataTypes)
    if (p.dtypes.contains(t))
      NAPI_OK(napi_set_element(env, dts, k++, make_string(env, dtype_name(t))));
  set(env, o, "dataTypes", dts);
  set(env, o, "doc", make_string(env, p.doc));
  set(env, o, "rankRange", rank_range_to_js(env, p.ranks));
  if (!p.same_rank_as.empty()) set(env, o, "sameRankAs", make_string(env, p.same_rank_as));
  return o;
}

napi_value Schemas(napi_env env, napi_callback_info) {
  return guarded(env, [&] {
    const auto all = all_schemas();
    napi_value arr = make_array(env, all.size());
    for (size_t i = 0; i < all.size(); ++i) {
      const OpSchema& s = all[i];
      napi_value o = make_object(env);
      set(env, o, "name", make_string(env, s.name));
      set(env, o, "doc", make_string(env, s.doc));
      napi_value args = make_array(env, s.args.size()), opts = make_array(env, s.options.size());
      for (size_t j = 0; j < s.args.size(); ++j)
        NAPI_OK(napi_set_element(env, args, uint32_t(j), param_to_js(env, s.args[j])));
      for (size_t j = 0; j < s.options.size(); ++j)
        NAPI_OK(napi_set_element(env, opts, uint32_t(j), param_to_js(env, s.options[j])));
      set(env, o, "args", args);
      set(env, o, "options", opts);
      // One per output; the last repeats for a list of outputs (split).
      const size_t n = std::max<size_t>(1, s.output_ranks.size());
      napi_value outs = make_array(env, n);
      for (size_t j = 0; j < n; ++j)
        NAPI_OK(napi_set_element(env, outs, uint32_t(j), rank_range_to_js(env, s.output_rank(j))));
      set(env, o, "outputRanks", outs);
      NAPI_OK(napi_set_element(env, arr, uint32_t(i), o));
    }
    return arr;
  });
}

napi_value DataTypes(napi_env env, napi_callback_info) {
  return guarded(env, [&] {
    napi_value arr = make_array(env, kNumDataTypes);
    for (size_t i = 0; i < kAllDataTypes.size(); ++i) {
      napi_value o = make_object(env);
      set(env, o, "name", make_string(env, dtype_name(kAllDataTypes[i])));
      set(env, o, "bytes", make_number(env, double(dtype_size(kAllDataTypes[i]))));
      NAPI_OK(napi_set_element(env, arr, uint32_t(i), o));
    }
    return arr;
  });
}

// ---- conformance helpers for tools/wpt-vectors.mjs (not part of navigator.ml) ----

// tolerance(graph, outputName) -> {metric: "ULP"|"ATOL", value}: the WPT tolerance of the node
// producing the output, the rule `wnn conformance` applies (conformance/tolerance.cc).
napi_value ToleranceOf(napi_env env, napi_callback_info info) {
  return guarded(env, [&] {
    auto a = args_of(env, info, 2);
    Compiled& c = live_graph(env, a[0]);
    const std::string name = get_string(env, a[1]);
    for (const auto& [n, id] : c.outputs) {
      if (n != name) continue;
      const Node& producer = c.graph->nodes()[c.graph->operand(id).producer];
      const auto tol = conformance::tolerance_for(*c.graph, producer, c.graph->desc(id).dtype);
      napi_value o = make_object(env);
      set(env, o, "metric",
          make_string(env, tol.metric == conformance::Tolerance::Metric::kUlp ? "ULP" : "ATOL"));
      set(env, o, "value", make_number(env, tol.value));
      return o;
    }
    throw JsError{"TypeError", "tolerance: no such output"};
  });
}

// wptToHalf(Float32Array) -> Uint16Array: float16 bits rounded the WPT way (wpt_to_half).
napi_value WptToHalf(napi_env env, napi_callback_info info) {
  return guarded(env, [&] {
    auto a = args_of(env, info, 1);
    const Bytes in = view_bytes(env, a[0]);
    const size_t n = in.size / 4;
    void* data = nullptr;
    napi_value ab, out;
    NAPI_OK(napi_create_arraybuffer(env, n * 2, &data, &ab));
    for (size_t i = 0; i < n; ++i) {
      float f;
      std::memcpy(&f, in.data + i * 4, 4);
      static_cast<uint16_t*>(data)[i] = conformance::wpt_to_half(f);
    }
    NAPI_OK(napi_create_typedarray(env, napi_uint16_array, n, ab, 0, &out));
    return out;
  });
}

Tensor tensor_from(napi_env env, napi_value dtype, napi_value shape, napi_value bytes) {
  const OperandDesc d = desc_from_js(env, dtype, shape);
  const Bytes b = view_bytes(env, bytes);
  if (b.size != d.byte_size()) throw JsError{"TypeError", "the buffer does not match the shape"};
  return Tensor{d.dtype, d.shape, Buffer::copy_of({b.data, b.size})};
}

// wptTensor(operandJson) -> {dataType, shape, data}: a WPT input's data as wnn stores it
// (conformance::parse_tensor, the rule `wnn conformance` reads inputs with).
napi_value WptTensor(napi_env env, napi_callback_info info) {
  return guarded(env, [&] {
    auto a = args_of(env, info, 1);
    const Tensor t =
        conformance::parse_tensor(nlohmann::ordered_json::parse(get_string(env, a[0])), nullptr);
    napi_value o = desc_to_js(env, {t.dtype, t.shape});
    void* data = nullptr;
    napi_value ab, arr;
    NAPI_OK(napi_create_arraybuffer(env, t.data.size(), &data, &ab));
    std::memcpy(data, t.data.data(), t.data.size());
    NAPI_OK(napi_create_typedarray(env, napi_uint8_array, t.data.size(), ab, 0, &arr));
    set(env, o, "data", arr);
    return o;
  });
}

// wptCompare(dataType, shape, actualBytes, expectedOperandJson, {metric, value}) -> '' on a
// pass, else the difference (conformance::compare).
napi_value WptCompare(napi_env env, napi_callback_info info) {
  return guarded(env, [&] {
    auto a = args_of(env, info, 5);
    const Tensor actual = tensor_from(env, a[0], a[1], a[2]);
    int64_t count = 0;
    const Tensor expected =
        conformance::parse_tensor(nlohmann::ordered_json::parse(get_string(env, a[3])), &count);
    conformance::Tolerance tol;
    tol.metric = get_string(env, get(env, a[4], "metric")) == "ATOL"
                     ? conformance::Tolerance::Metric::kAtol
                     : conformance::Tolerance::Metric::kUlp;
    tol.value = get_double(env, get(env, a[4], "value"));
    return make_string(env, conformance::compare(actual, expected, count, tol));
  });
}

// ---- the .webnn name grammar, for js/loader's agreement test (not part of navigator.ml) ----

// nameTokenLength(Uint8Array) -> the length in bytes of the name token the .webnn lexer reads at
// the start of the UTF-8 bytes (wnn::name_token_length), 0 when none starts there.
napi_value NameTokenLength(napi_env env, napi_callback_info info) {
  return guarded(env, [&] {
    auto a = args_of(env, info, 1);
    const Bytes b = view_bytes(env, a[0]);
    return make_number(
        env,
        double(name_token_length(std::string_view(reinterpret_cast<const char*>(b.data), b.size))));
  });
}

// isValidOperandName(Uint8Array) -> whether the text form can write the UTF-8 bytes as one name
// (wnn::is_valid_operand_name: one whole name token that is not a reserved word).
napi_value IsValidOperandName(napi_env env, napi_callback_info info) {
  return guarded(env, [&] {
    auto a = args_of(env, info, 1);
    const Bytes b = view_bytes(env, a[0]);
    napi_value v;
    NAPI_OK(napi_get_boolean(
        env, is_valid_operand_name(std::string_view(reinterpret_cast<const char*>(b.data), b.size)),
        &v));
    return v;
  });
}

// paramSpellings() -> [{op, table, file, older: [...]}]: the parameters the .webnn forms spell
// differently from the operator table (format/param_spelling.h), for js/loader's operators.js.
napi_value ParamSpellings(napi_env env, napi_callback_info) {
  return guarded(env, [&] {
    const auto all = format::param_spellings();
    napi_value arr = make_array(env, all.size());
    for (size_t i = 0; i < all.size(); ++i) {
      napi_value o = make_object(env);
      set(env, o, "op", make_string(env, all[i].op));
      set(env, o, "table", make_string(env, all[i].table));
      set(env, o, "file", make_string(env, all[i].file));
      napi_value older = make_array(env);
      uint32_t k = 0;
      for (std::string_view name : all[i].older)
        if (!name.empty()) NAPI_OK(napi_set_element(env, older, k++, make_string(env, name)));
      set(env, o, "older", older);
      NAPI_OK(napi_set_element(env, arr, uint32_t(i), o));
    }
    return arr;
  });
}

napi_value Init(napi_env env, napi_value exports) {
  const napi_property_descriptor props[] = {
      {"schemas", nullptr, Schemas, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"dataTypes", nullptr, DataTypes, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"createBuilder", nullptr, CreateBuilder, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"input", nullptr, Input, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"constant", nullptr, Constant, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"add", nullptr, Add, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"build", nullptr, Build, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"graphInfo", nullptr, GraphInfo, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"destroyGraph", nullptr, DestroyGraph, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"liveGraphs", nullptr, LiveGraphs, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"sessionThreads", nullptr, SessionThreads, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"backends", nullptr, Backends, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"dispatch", nullptr, Dispatch, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"tolerance", nullptr, ToleranceOf, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"wptToHalf", nullptr, WptToHalf, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"wptTensor", nullptr, WptTensor, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"wptCompare", nullptr, WptCompare, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"isValidOperandName", nullptr, IsValidOperandName, nullptr, nullptr, nullptr, napi_default,
       nullptr},
      {"paramSpellings", nullptr, ParamSpellings, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"nameTokenLength", nullptr, NameTokenLength, nullptr, nullptr, nullptr, napi_default,
       nullptr},
  };
  napi_define_properties(env, exports, sizeof(props) / sizeof(props[0]), props);
  return exports;
}

}  // namespace

NAPI_MODULE(NODE_GYP_MODULE_NAME, Init)
