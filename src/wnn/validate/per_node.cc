#include "wnn/validate/per_node.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <set>

#include "wnn/core/builder.h"
#include "wnn/core/error.h"
#include "wnn/validate/reference_model.h"

namespace wnn::validate {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr size_t kWorstShown = 5;

std::string op_label(const onnx::NodeProto& n) {
  const bool plain = n.domain.empty() || n.domain == "ai.onnx";
  return plain ? n.op_type : n.domain + "::" + n.op_type;
}

// The records in conversion order, with node details and the reason a value is not compared.
std::vector<NodeRecord> plan_records(const PerNodeInputs& in) {
  std::map<std::string, const onnx::NodeProto*> producer;
  for (const auto& n : in.model->graph.node) {
    for (const auto& o : n.output) {
      if (!o.empty()) producer[o] = &n;
    }
  }
  std::vector<NodeRecord> records;
  for (const auto& [value, operand] : in.values) {
    NodeRecord rec;
    rec.value = value;
    rec.operand = operand;
    if (const auto it = producer.find(value); it != producer.end()) {
      rec.node = it->second->name;
      rec.op_type = op_label(*it->second);
      rec.inputs = it->second->input;
    }
    if (operand.empty()) {
      rec.skipped = "folded to a constant at conversion";
    } else if (const auto id = in.graph->find(operand); !id) {
      rec.skipped = fmt::format("its operand '{}' is not in the converted graph", operand);
    } else if (in.graph->operand(*id).kind == OperandKind::kInput) {
      rec.skipped = fmt::format("the graph input '{}' passed through", operand);
    } else if (in.graph->operand(*id).kind == OperandKind::kConstant) {
      rec.skipped = fmt::format("a constant of the converted graph ('{}')", operand);
    } else {
      const OperandDesc& d = in.graph->desc(*id);
      rec.dtype = d.dtype;
      rec.shape = d.shape;
    }
    records.push_back(std::move(rec));
  }
  return records;
}

// Consecutive runs of compared records whose wnn tensors fit half the budget (ORT's copies take
// the other half); a value bigger than that is a batch of its own.
std::vector<std::vector<size_t>> make_batches(const std::vector<NodeRecord>& records,
                                              uint64_t budget) {
  const uint64_t per_side = std::max<uint64_t>(budget / 2, 1);
  std::vector<std::vector<size_t>> batches;
  uint64_t held = 0;
  for (size_t i = 0; i < records.size(); ++i) {
    if (!records[i].compared()) continue;
    const uint64_t bytes = OperandDesc{records[i].dtype, records[i].shape}.byte_size();
    if (batches.empty() || (held + bytes > per_side && !batches.back().empty())) {
      batches.emplace_back();
      held = 0;
    }
    batches.back().push_back(i);
    held += bytes;
  }
  return batches;
}

void judge(NodeRecord& rec, const Tensor& a, const Tensor& r) {
  rec.metrics = compare_tensors(a.view(), r.view(), rec.tol);
  rec.pass = rec.metrics.pass;
}

struct BatchFailure {
  std::string stage, message;
};

class PerNodeRun {
 public:
  PerNodeRun(const PerNodeInputs& in, PerNodeReport& report) : in_(in), report_(report) {
    for (const auto& o : in.model->graph.output) onnx_outputs_.insert(o.name);
    reference_ = in.reference;
    reference_.external_data_dir = fs::path(in.onnx_path).parent_path().string();
  }

  void run_batch(size_t b, size_t batches, const std::vector<size_t>& batch) {
    auto& records = report_.nodes;
    const std::string label = fmt::format("--per-node: batch {}/{} ({} value{})", b + 1, batches,
                                          batch.size(), batch.size() == 1 ? "" : "s");
    std::vector<std::string> extra;
    for (size_t i : batch) {
      records[i].batch = b;
      if (!onnx_outputs_.count(records[i].value)) extra.push_back(records[i].value);
    }
    const std::string copy = fmt::format("{}/per-node-{}.onnx", in_.work_dir, b);
    write_model_with_outputs(in_.onnx_path, extra, copy);
    struct RemoveCopy {
      std::string path;
      ~RemoveCopy() {
        std::error_code ec;
        fs::remove(path, ec);
      }
    } remove_copy{copy};

    progress(label + ": ONNX Runtime");
    ReferenceRun ort = run_ort_reference(copy, in_.feeds, in_.work_dir, reference_);
    if (ort.status != ReferenceRun::Status::kOk) throw BatchFailure{"reference", ort.message};
    std::map<std::string, const Tensor*> ort_by_name;
    for (const auto& t : ort.outputs) ort_by_name[t.name] = &t.tensor;

    progress(label + ": wnn");
    const auto wnn = run_wnn(batch);
    std::map<std::string, const Tensor*> wnn_by_name;
    for (const auto& t : wnn) wnn_by_name[t.name] = &t.tensor;

    bool failing = false;
    std::vector<std::pair<size_t, const Tensor*>> judged;  // (record, ORT's value)
    for (size_t i : batch) {
      NodeRecord& rec = records[i];
      const auto r = ort_by_name.find(rec.value);
      if (r == ort_by_name.end()) {
        rec.skipped = "ONNX Runtime returned no value for it";
        continue;
      }
      const auto a = wnn_by_name.find(rec.operand);
      check_internal(a != wnn_by_name.end(), "--per-node: wnn returned no output '{}'",
                     rec.operand);
      const Tensor& ref = *r->second;
      const Tensor& got = *a->second;
      rec.tol = in_.tolerance(ref.dtype, rec.operand);
      if (got.dtype != ref.dtype || got.shape != ref.shape) {
        rec.mismatch = fmt::format("wnn gives {}{}, ONNX Runtime {}{}", dtype_name(got.dtype),
                                   shape_to_string(got.shape), dtype_name(ref.dtype),
                                   shape_to_string(ref.shape));
        rec.dtype = ref.dtype;
        rec.shape = ref.shape;
        rec.pass = false;
        continue;
      }
      judge(rec, got, ref);
      judged.emplace_back(i, &ref);
      failing |= !rec.pass;
    }

    const bool floor = in_.noise_floor == NoiseFloorMode::kAlways ||
                       (in_.noise_floor == NoiseFloorMode::kAuto && failing);
    if (!floor) return;
    progress(label + ": ONNX Runtime noise floor");
    const NoiseFloorRuns runs = run_noise_floor(copy, in_.feeds, in_.work_dir, reference_);
    if (runs.status != ReferenceRun::Status::kOk) {
      if (report_.noise_floor_error.empty()) report_.noise_floor_error = runs.message;
      return;
    }
    ++report_.noise_floor_batches;
    for (const auto& [i, ref] : judged) {
      NodeRecord& rec = records[i];
      rec.floor = noise_floor_of(rec.value, *ref, runs);
      if (!rec.floor) continue;
      rec.tol = with_noise_floor(rec.tol, ref->dtype, *rec.floor);
      judge(rec, *wnn_by_name.at(rec.operand), *ref);
    }
  }

 private:
  void progress(const std::string& line) const {
    if (in_.progress) in_.progress(line);
  }

  // The converted graph with the batch's operands marked as outputs, run once.
  std::vector<runtime::NamedTensor> run_wnn(const std::vector<size_t>& batch) {
    try {
      Graph marked = *in_.graph;
      GraphBuilder b(marked);
      for (size_t i : batch) {
        const OperandId id = *marked.find(report_.nodes[i].operand);
        if (!marked.is_output(id)) b.output(id);
      }
      runtime::Session session(std::make_shared<const Graph>(std::move(marked)), in_.session);
      std::vector<runtime::NamedView> views;
      for (const auto& t : in_.wnn_inputs) views.push_back({t.name, t.tensor.view()});
      return session.run(views);
    } catch (const Error& e) {
      if (e.kind() == ErrorKind::kInternal) throw;
      throw BatchFailure{"runtime", e.what()};
    }
  }

  const PerNodeInputs& in_;
  PerNodeReport& report_;
  std::set<std::string> onnx_outputs_;
  ReferenceOptions reference_;
};

double rank_of(const NodeRecord& r) {
  if (!r.mismatch.empty()) return std::numeric_limits<double>::infinity();
  return std::isnan(r.metrics.max_normalized) ? std::numeric_limits<double>::infinity()
                                              : r.metrics.max_normalized;
}

void summarize(PerNodeReport& report) {
  std::vector<size_t> ranked;
  for (size_t i = 0; i < report.nodes.size(); ++i) {
    const NodeRecord& r = report.nodes[i];
    if (!r.compared()) {
      ++report.skipped;
      continue;
    }
    ++report.compared;
    ranked.push_back(i);
    if (!r.pass) {
      ++report.failing;
      if (!report.first_divergent) report.first_divergent = i;
    }
  }
  std::stable_sort(ranked.begin(), ranked.end(), [&](size_t a, size_t b) {
    return rank_of(report.nodes[a]) > rank_of(report.nodes[b]);
  });
  ranked.resize(std::min(ranked.size(), kWorstShown));
  report.worst = ranked;
}

}  // namespace

PerNodeReport compare_per_node(const PerNodeInputs& in, const PerNodeOptions& options) {
  const auto start = Clock::now();
  PerNodeReport report;
  report.memory_budget = options.memory_budget;
  report.nodes = plan_records(in);
  const auto batches = make_batches(report.nodes, options.memory_budget);
  report.batches = batches.size();
  PerNodeRun run(in, report);
  size_t b = 0;
  try {
    for (; b < batches.size(); ++b) run.run_batch(b, batches.size(), batches[b]);
  } catch (const BatchFailure& f) {
    report.error_stage = f.stage;
    report.error = f.message;
    for (; b < batches.size(); ++b) {
      for (size_t i : batches[b]) {
        report.nodes[i].skipped = fmt::format("not compared: batch {} failed", b + 1);
      }
    }
  }
  summarize(report);
  report.ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  return report;
}

}  // namespace wnn::validate
