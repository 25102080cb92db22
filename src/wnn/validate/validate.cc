#include "wnn/validate/validate.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>

#include "wnn/core/digest.h"
#include "wnn/core/error.h"
#include "wnn/format/model.h"
#include "wnn/format/weights.h"
#include "wnn/validate/conversion.h"
#include "wnn/validate/model_inputs.h"
#include "wnn/validate/test_faults.h"

namespace wnn::validate {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// A failure of one stage: ends the pipeline with this stage, message and exit code.
struct StageFailure {
  std::string stage;
  std::string message;
  int exit_code;
};

// Multi-line errors (the importer's list of unsupported nodes) as one line: each line break
// and the indentation after it become a single space.
std::string one_line(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\n') {
      out += s[i];
      continue;
    }
    out += ' ';
    while (i + 1 < s.size() && s[i + 1] == ' ') ++i;
  }
  return out;
}

// Runs `fn`; a wnn::Error becomes a StageFailure of `stage` (exit `code`, 3 for internal errors).
template <typename Fn>
auto in_stage(const std::string& stage, int code, Fn fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const onnx::UnsupportedModelError&) {
    throw;
  } catch (const Error& e) {
    throw StageFailure{stage, one_line(e.what()), e.kind() == ErrorKind::kInternal ? 3 : code};
  } catch (const std::bad_alloc&) {
    throw StageFailure{stage, "out of memory", code};
  } catch (const std::exception& e) {
    throw StageFailure{stage, one_line(e.what()), 3};
  }
}

// A directory removed when the validation ends (ORT's tensor files, temporary conversions).
class ScratchDir {
 public:
  ScratchDir() {
    const char* tmp = std::getenv("TMPDIR");
    std::random_device rd;
    path_ = fmt::format("{}/wnn-validate-{}-{:08x}", tmp && *tmp ? tmp : "/tmp", ::getpid(), rd());
    fs::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

const onnx::ValueInfoProto* graph_input(const onnx::ModelProto& model, const std::string& name) {
  for (const auto& i : model.graph.input) {
    if (i.name == name) return &i;
  }
  return nullptr;
}

bool is_onnx_bool(const onnx::ModelProto& model, const std::string& name) {
  const auto* in = graph_input(model, name);
  return in && in->type.elem_type == int32_t(onnx::OnnxType::kBool);
}

struct Prepared {
  std::string graph_path, weights_path;
  NameMaps maps;
  std::map<std::string, Tensor> pinned;
};

void record_unsupported(const onnx::UnsupportedModelError& e, Report& report) {
  for (const auto& n : e.nodes()) {
    report.unsupported.push_back({n.name, n.op_type, n.domain, n.opset, n.reason});
  }
}

Prepared prepare(const std::string& onnx_path, const onnx::ModelProto& model,
                 const ValidateOptions& options, const onnx::ImportOptions& import,
                 const std::string& scratch, Report& report) {
  Prepared p;
  if (options.storage == Storage::kCache || options.storage == Storage::kCachedOnly) {
    const std::string key = cache_key(report.sha256, options_json(import));
    ConversionCache cache(cache_root());
    CacheEntry entry;
    if (options.storage == Storage::kCachedOnly) {
      auto found = cache.find(key);
      if (!found.entry) {
        throw StageFailure{
            "conversion",
            found.problem.empty()
                ? fmt::format("no cache entry for {} with these options in {}; create it with "
                              "`wnn convert {} --cache` and the same conversion options",
                              onnx_path, cache.root(), onnx_path)
                : fmt::format("the cache entry for {} is damaged ({}); rebuild it with `wnn "
                              "convert {} --cache`",
                              onnx_path, found.problem, onnx_path),
            2};
      }
      entry = std::move(*found.entry);
      report.cache_note = "used cache entry " + entry.dir;
    } else {
      const auto start = Clock::now();
      auto r = cache.get_or_build(key, [&](const std::string& dir) {
        CacheBuild b = convert_into_cache_dir(onnx_path, model, report.sha256, import, dir);
        report.warnings = b.warnings;
        return std::move(b.metadata);
      });
      if (r.built) report.timings.convert = ms_since(start);
      entry = std::move(r.entry);
      report.cache_note = !r.built ? "reused cache entry " + entry.dir
                          : r.rebuilt.empty()
                              ? "wrote cache entry " + entry.dir
                              : "rebuilt cache entry " + entry.dir + " (" + r.rebuilt + ")";
    }
    p.graph_path = entry.graph_path;
    p.weights_path = entry.weights_path;
    p.maps = maps_from_json(entry.metadata);
    for (auto& t : read_tensors(entry.pinned_path)) p.pinned[t.name] = std::move(t.tensor);
    return p;
  }
  const std::string dir = options.storage == Storage::kDirectory ? options.output_dir : scratch;
  const std::string stem = options.storage == Storage::kDirectory
                               ? fs::path(onnx_path).stem().string()
                               : std::string("model");
  fs::create_directories(dir);
  const auto start = Clock::now();
  onnx::ImportOptions write_only = import;  // the graph is written, then reloaded to run
  write_only.keep_misaligned_weights = true;
  onnx::ImportResult r =
      onnx::import_model(model, fs::path(onnx_path).parent_path().string(), write_only);
  p.graph_path = (fs::path(dir) / (stem + ".webnn")).string();
  p.weights_path = (fs::path(dir) / (stem + ".safetensors")).string();
  format::save_model(r.graph, p.graph_path, p.weights_path);
  report.timings.convert = ms_since(start);
  report.warnings = r.warnings;
  p.maps.inputs = r.inputs;
  p.maps.outputs = r.outputs;
  p.maps.pruned = r.pruned;
  p.maps.values = r.values;
  for (auto& [name, t] : r.pinned) {
    p.maps.pinned.push_back(name);
    p.pinned[name] = t;
  }
  return p;
}

// The profile of the reference's value of dtype `d` that the converted graph holds in `operand`:
// float16 for a float value computed from a float16 body (compare.h, ProfileDtypes), else `d`.
DataType profile_for(const Graph& g, const ProfileDtypes& profiles, const std::string& operand,
                     DataType d) {
  const auto id = g.find(operand);
  return id && is_float(d) && profiles.of(*id) == DataType::kFloat16 ? DataType::kFloat16 : d;
}

// `profile` is the dtype whose profile applies (ProfileDtypes: float16 for a float32 value
// computed from a float16 body).
Tolerance tolerance_for(DataType profile, const std::optional<Tolerance>& quantized,
                        const ValidateOptions& options) {
  Tolerance tol = default_tolerance(profile, quantized);
  if (is_float(profile)) {
    if (options.atol) tol.atol = *options.atol;
    if (options.rtol) tol.rtol = *options.rtol;
  }
  return tol;
}

// One compared output: its record in the report and both values.
struct OutputPair {
  size_t record;
  const Tensor* wnn;
  const Tensor* ort;
};

void judge(OutputRecord& rec, const Tensor& a, const Tensor& r) {
  rec.metrics = compare_tensors(a.view(), r.view(), rec.tol);
  if (r.size() > 0 && looks_like_classes(rec.name, r.dtype, r.shape)) {
    rec.metrics.top1_agreement = top1_agreement(a.view(), r.view());
  }
  rec.pass = rec.metrics.pass;
}

// Pairs every output by name and judges it with the dtype tolerance; returns what does not map
// (missing, extra, or a dtype or shape that differs).
std::vector<std::string> compare_outputs(const onnx::ModelProto& model, const NameMaps& maps,
                                         const Graph& graph, const ProfileDtypes& profiles,
                                         const std::vector<runtime::NamedTensor>& wnn_out,
                                         const std::vector<runtime::NamedTensor>& ort_out,
                                         const ValidateOptions& options, Report& report,
                                         std::vector<OutputPair>& pairs) {
  std::map<std::string, const Tensor*> by_operand, by_onnx;
  for (const auto& t : wnn_out) by_operand[t.name] = &t.tensor;
  for (const auto& t : ort_out) by_onnx[t.name] = &t.tensor;
  std::map<std::string, std::string> operand_of;
  for (const auto& [o, operand] : maps.outputs) {
    check(operand_of.emplace(o, operand).second, "ONNX output '{}' is mapped twice", o);
  }
  std::vector<std::string> problems;
  std::map<std::string, bool> used_operand;
  const auto quantized = quantization_tolerance(model);
  for (const auto& out : model.graph.output) {
    const auto ort = by_onnx.find(out.name);
    if (ort == by_onnx.end()) {
      problems.push_back(fmt::format("ONNX Runtime returned no output '{}'", out.name));
      continue;
    }
    const Tensor& r = *ort->second;
    const auto mapped = operand_of.find(out.name);
    if (mapped == operand_of.end()) {
      // Removed while specializing (for instance a pinned input passed through): acceptable only
      // when ORT's value is empty too.
      if (r.size() != 0) {
        problems.push_back(fmt::format(
            "ONNX output '{}' has no counterpart in the converted graph, but ONNX Runtime's "
            "value is {}{} (non-empty)",
            out.name, dtype_name(r.dtype), shape_to_string(r.shape)));
      }
      continue;
    }
    const auto got = by_operand.find(mapped->second);
    if (got == by_operand.end()) {
      problems.push_back(fmt::format("the converted graph has no output '{}' (ONNX output '{}')",
                                     mapped->second, out.name));
      continue;
    }
    used_operand[mapped->second] = true;
    const Tensor& a = *got->second;
    OutputRecord rec;
    rec.name = out.name;
    rec.dtype = r.dtype;
    rec.shape = r.shape;
    rec.profile = profile_for(graph, profiles, mapped->second, r.dtype);
    rec.tol = tolerance_for(rec.profile, quantized, options);
    if (a.dtype != r.dtype || a.shape != r.shape) {
      problems.push_back(fmt::format("output '{}': wnn gives {}{}, ONNX Runtime {}{}", out.name,
                                     dtype_name(a.dtype), shape_to_string(a.shape),
                                     dtype_name(r.dtype), shape_to_string(r.shape)));
      rec.pass = false;
      report.outputs.push_back(std::move(rec));
      continue;
    }
    rec.compared = true;
    judge(rec, a, r);
    pairs.push_back({report.outputs.size(), &a, &r});
    report.outputs.push_back(std::move(rec));
  }
  for (const auto& t : wnn_out) {
    if (!used_operand.count(t.name)) {
      problems.push_back(fmt::format(
          "the converted graph's output '{}' maps to no ONNX output of the model", t.name));
    }
  }
  for (const auto& t : ort_out) {
    const bool declared = std::any_of(model.graph.output.begin(), model.graph.output.end(),
                                      [&](const auto& o) { return o.name == t.name; });
    if (!declared)
      problems.push_back(fmt::format("ONNX Runtime returned an extra output '{}'", t.name));
  }
  return problems;
}

// Measures the reference's noise floor when the mode asks for it (auto: some output failed the
// dtype tolerance) and judges the outputs again with k times their floor.
void apply_noise_floor(const std::string& onnx_path, const std::vector<FeedTensor>& feeds,
                       const std::string& scratch, const ValidateOptions& options,
                       const std::vector<OutputPair>& pairs, Report& report) {
  report.noise_floor.mode = options.noise_floor;
  if (options.noise_floor == NoiseFloorMode::kOff) return;
  const bool failing = std::any_of(pairs.begin(), pairs.end(), [&](const OutputPair& p) {
    return !report.outputs[p.record].pass;
  });
  if (options.noise_floor == NoiseFloorMode::kAuto && !failing) return;
  const NoiseFloorRuns runs =
      run_noise_floor(fs::absolute(onnx_path).string(), feeds, scratch, options.reference);
  report.timings.noise_floor = runs.ms;
  if (runs.status != ReferenceRun::Status::kOk) {
    report.noise_floor.error = runs.message;
    return;
  }
  report.noise_floor.measured = true;
  report.noise_floor.runs = runs.labels;
  for (const OutputPair& p : pairs) {
    OutputRecord& rec = report.outputs[p.record];
    rec.floor = noise_floor_of(rec.name, *p.ort, runs);
    if (!rec.floor) continue;
    rec.tol = with_noise_floor(rec.tol, rec.dtype, *rec.floor);
    judge(rec, *p.wnn, *p.ort);
  }
}

void verdict(const std::vector<std::string>& problems, const Report& report) {
  if (!problems.empty()) {
    throw StageFailure{
        "numerical",
        problems.front() +
            (problems.size() > 1 ? fmt::format(" (and {} more)", problems.size() - 1) : ""),
        1};
  }
  int failing_outputs = 0;
  for (const auto& o : report.outputs) failing_outputs += !o.pass;
  if (failing_outputs > 0) {
    throw StageFailure{"numerical",
                       fmt::format("{} of {} outputs differ from ONNX Runtime beyond tolerance",
                                   failing_outputs, report.outputs.size()),
                       1};
  }
  if (report.per_node && !report.per_node->error.empty()) {
    throw StageFailure{report.per_node->error_stage, "--per-node: " + report.per_node->error, 1};
  }
}

void run_pipeline(const std::string& onnx_path, const ValidateOptions& options,
                  const std::string& scratch, Report& report) {
  const onnx::ModelProto model =
      in_stage("conversion", 2, [&] { return onnx::load_model(onnx_path); });
  report.sha256 = in_stage("conversion", 2, [&] { return source_digest(onnx_path, model); });
  report.arithmetic = quantized_arithmetic(model);

  // --input values, whose shapes bind the free dims of their inputs.
  onnx::ImportOptions import = options.import;
  std::map<std::string, std::pair<Tensor, std::string>> given;
  in_stage("conversion", 2, [&] {
    for (const auto& [name, file] : options.input_files) {
      const std::string& path = file;  // a lambda may not capture a structured binding (clang 14)
      Tensor t = with_error_context("--input " + name + "=" + path,
                                    [&] { return format::read_npy(path); });
      bind_dims_from_value(model, name, t.shape, import);
      check(given.emplace(name, std::pair{std::move(t), file}).second, "--input {} is given twice",
            name);
    }
  });

  Prepared p;
  try {
    p = in_stage("conversion", 2,
                 [&] { return prepare(onnx_path, model, options, import, scratch, report); });
  } catch (const onnx::UnsupportedModelError& e) {
    record_unsupported(e, report);
    throw StageFailure{"conversion", one_line(e.what()), 2};
  }
  report.graph_path = p.graph_path;

  // Reload the pair from disk: validation must judge the files, not the importer's memory.
  auto start = Clock::now();
  auto graph = in_stage("runtime", 1, [&] {
    format::LoadOptions load;
    load.weights_path = p.weights_path;
    format::Model m = format::load_model(p.graph_path, load);
    apply_test_fault(m.graph);  // test-only, see test_faults.h
    return std::make_shared<const Graph>(std::move(m.graph));
  });
  auto session = in_stage(
      "runtime", 1, [&] { return std::make_unique<runtime::Session>(graph, options.session); });
  report.timings.load = ms_since(start);

  // Inputs: every graph input through the name map, from --input or generated; pinned inputs
  // go to ORT only.
  std::vector<runtime::NamedTensor> wnn_inputs;
  std::vector<FeedTensor> feeds;
  in_stage("conversion", 2, [&] {
    std::map<std::string, std::string> onnx_of;
    for (const auto& [o, operand] : p.maps.inputs) onnx_of[operand] = o;
    for (const auto& in : graph->inputs()) {
      const std::string& operand = graph->name_of(in.id);
      check(onnx_of.count(operand), "the converted graph's input '{}' maps to no ONNX input",
            operand);
    }
    for (const auto& [name, operand] : p.maps.inputs) {
      const auto id = graph->find(operand);
      check(id && graph->operand(*id).kind == OperandKind::kInput,
            "ONNX input '{}' maps to '{}', which is not an input of the converted graph", name,
            operand);
      const OperandDesc desc = graph->desc(*id);
      const bool onnx_bool = is_onnx_bool(model, name);
      InputRecord rec{name, desc.dtype, onnx_bool, desc.shape, ""};
      Tensor value;
      if (auto g = given.find(name); g != given.end()) {
        value = g->second.first;
        check(value.dtype == desc.dtype && value.shape == desc.shape,
              "--input {}={}: the value is {}, the converted input is {}", name, g->second.second,
              OperandDesc{value.dtype, value.shape}.to_string(), desc.to_string());
        rec.source = "file " + g->second.second;
        given.erase(g);
      } else {
        GeneratedInput gen = generate_input(model, name, desc, onnx_bool);
        value = std::move(gen.tensor);
        rec.source = gen.rule;
      }
      wnn_inputs.push_back({operand, value});
      feeds.push_back({name, value, onnx_bool});
      report.inputs.push_back(std::move(rec));
    }
    for (const auto& name : p.maps.pinned) {
      const auto it = p.pinned.find(name);
      check(it != p.pinned.end(), "pinned input '{}' has no stored value", name);
      const bool onnx_bool = is_onnx_bool(model, name);
      feeds.push_back({name, it->second, onnx_bool});
      report.inputs.push_back({name, it->second.dtype, onnx_bool, it->second.shape, "pinned"});
    }
    // Pruned inputs: the converted graph ignores them, ONNX Runtime still requires them.
    for (const auto& [name, desc] : p.maps.pruned) {
      const bool onnx_bool = is_onnx_bool(model, name);
      InputRecord rec{name, desc.dtype, onnx_bool, desc.shape, ""};
      Tensor value;
      if (auto g = given.find(name); g != given.end()) {
        value = g->second.first;
        rec.source = "file " + g->second.second + " (ONNX Runtime only: read by nothing)";
        given.erase(g);
      } else {
        GeneratedInput gen = generate_input(model, name, desc, onnx_bool);
        value = std::move(gen.tensor);
        rec.source = gen.rule + " (ONNX Runtime only: read by nothing)";
      }
      feeds.push_back({name, value, onnx_bool});
      report.inputs.push_back(std::move(rec));
    }
    check(given.empty(), "--input {}: not an input of the converted model",
          given.empty() ? "" : given.begin()->first);
  });

  start = Clock::now();
  const auto wnn_out = in_stage("runtime", 1, [&] {
    std::vector<runtime::NamedView> views;
    for (const auto& t : wnn_inputs) views.push_back({t.name, t.tensor.view()});
    return session->run(views);
  });
  report.timings.wnn_run = ms_since(start);
  session.reset();  // its memory, before ORT (and --per-node's sessions) need theirs

  const ReferenceRun ort = in_stage("reference", 1, [&] {
    return run_ort_reference(fs::absolute(onnx_path).string(), feeds, scratch, options.reference);
  });
  report.timings.ort_run = ort.ms;
  if (ort.status != ReferenceRun::Status::kOk) {
    throw StageFailure{"reference", ort.message,
                       ort.status == ReferenceRun::Status::kUnavailable ? 2 : 1};
  }
  std::vector<std::string> problems;
  std::vector<OutputPair> pairs;
  const ProfileDtypes profiles(*graph);
  in_stage("numerical", 1, [&] {
    problems = compare_outputs(model, p.maps, *graph, profiles, wnn_out, ort.outputs, options,
                               report, pairs);
  });
  in_stage("reference", 1,
           [&] { apply_noise_floor(onnx_path, feeds, scratch, options, pairs, report); });
  if (options.per_node.enabled) {
    PerNodeInputs in;
    in.onnx_path = fs::absolute(onnx_path).string();
    in.model = &model;
    in.values = p.maps.values;
    in.graph = graph;
    in.wnn_inputs = wnn_inputs;
    in.feeds = feeds;
    in.session = options.session;
    in.reference = options.reference;
    in.noise_floor = options.noise_floor;
    const auto quantized = quantization_tolerance(model);
    in.tolerance = [&](DataType d, const std::string& operand) {
      return tolerance_for(profile_for(*graph, profiles, operand, d), quantized, options);
    };
    in.work_dir = scratch;
    in.progress = options.progress;
    report.per_node =
        in_stage("runtime", 1, [&] { return compare_per_node(in, options.per_node); });
    report.timings.per_node = report.per_node->ms;
  }
  verdict(problems, report);
}

}  // namespace

Report validate_onnx_model(const std::string& onnx_path, const ValidateOptions& options) {
  Report report;
  report.model = onnx_path;
  try {
    ScratchDir scratch;
    run_pipeline(onnx_path, options, scratch.path(), report);
    report.pass = true;
    report.exit_code = 0;
  } catch (const StageFailure& f) {
    report.pass = false;
    report.stage = f.stage;
    report.message = f.message;
    report.exit_code = f.exit_code;
  } catch (const std::exception& e) {
    report.pass = false;
    report.stage = "conversion";
    report.message = one_line(e.what());
    report.exit_code = 3;
  }
  return report;
}

}  // namespace wnn::validate
