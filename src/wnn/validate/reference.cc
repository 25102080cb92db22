#include "wnn/validate/reference.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "wnn/core/atomic_file.h"
#include "wnn/core/error.h"
#include "wnn/format/weights.h"

extern char** environ;

namespace wnn::validate {

namespace {

namespace fs = std::filesystem;

constexpr std::string_view kInstallHint =
    "run `make deps` (or scripts/install-deps.sh) to install Node.js's onnxruntime-node";

std::string_view safetensors_name(DataType t) {
  switch (t) {
    case DataType::kFloat32:
      return "F32";
    case DataType::kFloat16:
      return "F16";
    case DataType::kInt32:
      return "I32";
    case DataType::kUint32:
      return "U32";
    case DataType::kInt64:
      return "I64";
    case DataType::kUint64:
      return "U64";
    case DataType::kInt8:
      return "I8";
    case DataType::kUint8:
      return "U8";
    default:
      fail("ONNX Runtime reference: cannot feed a {} tensor", dtype_name(t));
  }
}

std::optional<DataType> data_type_of(std::string_view s) {
  if (s == "BOOL") return DataType::kUint8;
  for (DataType t : {DataType::kFloat32, DataType::kFloat16, DataType::kInt32, DataType::kUint32,
                     DataType::kInt64, DataType::kUint64, DataType::kInt8, DataType::kUint8}) {
    if (safetensors_name(t) == s) return t;
  }
  return std::nullopt;
}

std::string find_on_path(const std::string& exe) {
  const char* path = std::getenv("PATH");
  std::string_view rest = path ? path : "/usr/local/bin:/usr/bin:/bin";
  while (true) {
    const size_t colon = rest.find(':');
    const std::string dir(rest.substr(0, colon));
    if (!dir.empty()) {
      const std::string candidate = dir + "/" + exe;
      if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    if (colon == std::string_view::npos) return "";
    rest.remove_prefix(colon + 1);
  }
}

std::string read_text_or_empty(const std::string& path) {
  try {
    return read_file(path);
  } catch (const Error&) {
    return "";
  }
}

// The last non-empty line of the runner's stderr, without its "ort-reference: " prefix.
std::string ort_message(const std::string& err) {
  std::string text = err;
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  const std::string prefix = "ort-reference: ";
  if (const size_t p = text.find(prefix); p != std::string::npos) {
    text = text.substr(p + prefix.size());
  }
  for (char& c : text) {
    if (c == '\n') c = ' ';
  }
  return text;
}

}  // namespace

ReferenceLocation locate_ort_reference() {
  ReferenceLocation loc;
  if (const char* env = std::getenv("WNN_ORT_REFERENCE"); env && *env) {
    fs::path p(env);
    if (fs::is_directory(p)) p /= "run.js";
    loc.run_js = p.string();
  } else {
#ifdef WNN_SOURCE_DIR
    loc.run_js = std::string(WNN_SOURCE_DIR) + "/tools/ort-reference/run.js";
#endif
  }
  if (loc.run_js.empty() || !fs::exists(loc.run_js)) {
    loc.why = fmt::format(
        "the ONNX Runtime reference runner '{}' does not exist; set WNN_ORT_REFERENCE to "
        "tools/ort-reference/run.js of a wnn checkout",
        loc.run_js);
    return loc;
  }
  loc.run_js = fs::absolute(loc.run_js).string();
  const char* node_env = std::getenv("WNN_NODE");
  loc.node = node_env && *node_env ? node_env : find_on_path("node");
  if (loc.node.empty() || ::access(loc.node.c_str(), X_OK) != 0) {
    loc.why = fmt::format("Node.js ('node') is not on PATH; {}", kInstallHint);
    return loc;
  }
  const fs::path ort = fs::path(loc.run_js).parent_path() / "node_modules" / "onnxruntime-node";
  if (!fs::exists(ort)) {
    loc.why = fmt::format("{} is missing; {}", ort.string(), kInstallHint);
  }
  return loc;
}

void write_feeds(const std::string& path, const std::vector<FeedTensor>& feeds) {
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  size_t offset = 0;
  for (const auto& f : feeds) {
    const size_t bytes = f.tensor.byte_size();
    header[f.name] = {{"dtype", f.onnx_bool ? std::string("BOOL")
                                            : std::string(safetensors_name(f.tensor.dtype))},
                      {"shape", f.tensor.shape},
                      {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');
  std::string file(8, '\0');
  uint64_t n = text.size();
  for (int i = 0; i < 8; ++i) file[i] = char((n >> (8 * i)) & 0xff);
  file += text;
  for (const auto& f : feeds) {
    file.append(reinterpret_cast<const char*>(f.tensor.data.data()), f.tensor.byte_size());
  }
  write_file_atomic(path, file);
}

std::vector<runtime::NamedTensor> read_tensors(const std::string& path) {
  auto reader = format::SafetensorsReader::open(path);
  std::vector<runtime::NamedTensor> out;
  for (const format::StoredTensor* t : reader->tensors()) {
    const auto dtype = data_type_of(t->file_dtype);
    check(dtype.has_value(), "{}: tensor '{}' has dtype {}, which WebNN has no equivalent of", path,
          t->key, t->file_dtype);
    Tensor tensor{*dtype, t->shape, Buffer::copy_of(t->bytes.bytes())};
    check(tensor.byte_size() == t->bytes.size(), "{}: tensor '{}' has {} bytes for shape {}", path,
          t->key, t->bytes.size(), shape_to_string(t->shape));
    out.push_back({t->key, std::move(tensor)});
  }
  return out;
}

ReferenceRun run_ort_reference(const std::string& model_path, const std::vector<FeedTensor>& feeds,
                               const std::string& work_dir, const ReferenceOptions& options) {
  ReferenceRun run;
  const ReferenceLocation loc = locate_ort_reference();
  if (!loc.why.empty()) {
    run.status = ReferenceRun::Status::kUnavailable;
    run.message = loc.why;
    return run;
  }
  static std::atomic<int> calls{0};
  const std::string stem = fmt::format("{}/ort-{}", work_dir, calls++);
  const std::string in_path = stem + "-inputs.safetensors";
  const std::string out_path = stem + "-outputs.safetensors";
  const std::string err_path = stem + "-stderr.txt";
  struct RemoveFiles {
    std::vector<std::string> paths;
    ~RemoveFiles() {
      std::error_code ec;
      for (const auto& p : paths) fs::remove(p, ec);
    }
  } remove_files{{in_path, out_path, err_path}};
  write_feeds(in_path, feeds);
  std::vector<std::string> argv_s = {loc.node,         loc.run_js,
                                     "--model",        model_path,
                                     "--inputs",       in_path,
                                     "--outputs",      out_path,
                                     "--threads",      std::to_string(options.threads),
                                     "--optimization", options.optimization};
  if (!options.external_data_dir.empty()) {
    argv_s.insert(argv_s.end(), {"--external-data-dir", options.external_data_dir});
  }
  std::vector<char*> argv;
  for (auto& s : argv_s) argv.push_back(s.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, loc.node.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    run.status = ReferenceRun::Status::kUnavailable;
    run.message =
        fmt::format("cannot start '{}': {}; {}", loc.node, std::strerror(rc), kInstallHint);
    return run;
  }
  const auto deadline = start + std::chrono::seconds(options.timeout_seconds);
  int status = 0;
  bool timed_out = false;
  for (;;) {
    const pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) {
      run.status = ReferenceRun::Status::kOrtFailed;
      run.message = fmt::format("waiting for the ONNX Runtime reference: {}", std::strerror(errno));
      return run;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  run.ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  const std::string err = read_text_or_empty(err_path);
  if (timed_out) {
    run.status = ReferenceRun::Status::kOrtFailed;
    run.message = fmt::format("ONNX Runtime did not finish within {} s (--ort-timeout)",
                              options.timeout_seconds);
    return run;
  }
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (code != 0) {
    run.status = ReferenceRun::Status::kOrtFailed;
    run.message = code == 1 ? "ONNX Runtime failed: " + ort_message(err)
                            : fmt::format("the ONNX Runtime reference runner exited with {}: {}",
                                          code, ort_message(err));
    return run;
  }
  run.outputs = read_tensors(out_path);
  return run;
}

}  // namespace wnn::validate
