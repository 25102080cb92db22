#include "wnn/onnx/backend_test.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <set>

#include "wnn/core/error.h"
#include "wnn/onnx/external_data.h"
#include "wnn/onnx/import.h"
#include "wnn/onnx/tensor_data.h"
#include "wnn/runtime/session.h"

namespace wnn::onnx {
namespace {

namespace fs = std::filesystem;

struct NamedData {
  std::string name;  // the graph input it feeds
  Tensor tensor;
};

Tensor load_pb(const fs::path& p, std::string* name = nullptr) {
  const TensorProto t = load_tensor(p.string());
  if (name) *name = t.name;
  TensorData d = tensor_data(t, ExternalDataResolver());
  return Tensor{d.dtype, d.shape, d.data};
}

// "" when `actual` matches `expected`; else what differs.
std::string compare(const std::string& name, const Tensor& actual, const Tensor& exp) {
  if (actual.shape != exp.shape) {
    return fmt::format("output '{}': shape {} expected {}", name, shape_to_string(actual.shape),
                       shape_to_string(exp.shape));
  }
  const bool floats = is_float(exp.dtype) || is_float(actual.dtype);
  for (int64_t i = 0; i < actual.size(); ++i) {
    if (floats) {
      const double a = element_as_double(actual.view(), i), r = element_as_double(exp.view(), i);
      if (std::isnan(a) && std::isnan(r)) continue;
      if (std::isinf(r) && a == r) continue;
      if (!(std::fabs(a - r) <= 1e-5 + 1e-3 * std::fabs(r))) {
        return fmt::format("output '{}' element {}: {} expected {}", name, i, a, r);
      }
    } else if (element_as_int64(actual.view(), i) != element_as_int64(exp.view(), i)) {
      return fmt::format("output '{}' element {}: {} expected {}", name, i,
                         element_as_int64(actual.view(), i), element_as_int64(exp.view(), i));
    }
  }
  return {};
}

std::vector<fs::path> sorted_entries(const fs::path& dir, std::string_view prefix) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename().string().rfind(prefix, 0) == 0) out.push_back(e.path());
  }
  // input_10 sorts after input_9: order by the number after the prefix.
  auto num = [&](const fs::path& p) {
    return std::atoll(p.stem().string().substr(prefix.size()).c_str());
  };
  std::sort(out.begin(), out.end(), [&](const fs::path& a, const fs::path& b) {
    return std::make_pair(num(a), a) < std::make_pair(num(b), b);
  });
  return out;
}

// The test inputs of one data set, matched to graph inputs by name, else by position among
// the graph inputs that are not initializers.
std::vector<NamedData> load_inputs(const fs::path& set, const ModelProto& model) {
  std::set<std::string> inits;
  for (const auto& t : model.graph.initializer) inits.insert(t.name);
  std::vector<std::string> graph_inputs;
  for (const auto& in : model.graph.input) {
    if (!inits.count(in.name)) graph_inputs.push_back(in.name);
  }
  std::vector<NamedData> out;
  const auto files = sorted_entries(set, "input_");
  for (size_t i = 0; i < files.size(); ++i) {
    std::string name;
    Tensor t = load_pb(files[i], &name);
    if (std::find(graph_inputs.begin(), graph_inputs.end(), name) == graph_inputs.end()) {
      check(i < graph_inputs.size(), "{} has more inputs than the model", set.string());
      name = graph_inputs[i];
    }
    out.push_back({name, std::move(t)});
  }
  return out;
}

bool needs_constant_inputs(const UnsupportedModelError& e) {
  return std::any_of(e.nodes().begin(), e.nodes().end(), [](const UnsupportedNode& n) {
    return n.reason.find("must be a constant") != std::string::npos;
  });
}

BackendTestResult unsupported_result(const std::string& name, const UnsupportedModelError& e) {
  std::string categories;
  for (const auto& n : e.nodes()) {
    if (n.category.empty()) {
      return {name, TestOutcome::kFail, fmt::format("unsupported {}: {}", n.op_type, n.reason)};
    }
    if (categories.find(n.category) == std::string::npos) {
      categories += (categories.empty() ? "" : ", ") + n.category;
    }
  }
  return {name, TestOutcome::kSkip, categories};
}

}  // namespace

BackendTestResult run_backend_test(const std::string& dir_text) {
  const fs::path dir(dir_text);
  const std::string name = dir.filename().string();
  try {
    const std::string model_path = (dir / "model.onnx").string();
    const ModelProto model = load_model(model_path);
    const auto sets = sorted_entries(dir, "test_data_set_");
    check(!sets.empty(), "no test_data_set_* directory");
    std::unique_ptr<ImportResult> shared;
    bool pin_per_set = false;
    try {
      shared = std::make_unique<ImportResult>(import_model(model, dir.string()));
    } catch (const UnsupportedModelError& e) {
      // Inputs that decide shapes (Reshape's shape, Slice's starts, ...) are run-time values
      // in these tests; WebNN needs them at build time, so each data set pins its integers.
      if (!needs_constant_inputs(e)) return unsupported_result(name, e);
      pin_per_set = true;
    }
    for (const auto& set : sets) {
      std::vector<NamedData> inputs = load_inputs(set, model);
      std::unique_ptr<ImportResult> pinned;
      if (pin_per_set) {
        ImportOptions options;
        // Integers (shapes, axes, indices) and small vectors (scales, sizes, bounds).
        for (const auto& in : inputs) {
          const bool small = in.tensor.shape.size() <= 1 && in.tensor.size() <= 16;
          if (is_integer(in.tensor.dtype) || small) options.pin_tensors[in.name] = in.tensor;
        }
        try {
          pinned = std::make_unique<ImportResult>(import_model(model, dir.string(), options));
        } catch (const UnsupportedModelError& e) {
          return unsupported_result(name, e);
        }
      }
      ImportResult& imported = pin_per_set ? *pinned : *shared;
      auto graph = std::make_shared<Graph>(std::move(imported.graph));
      graph->bind_inline_constants();
      runtime::Session session(graph);
      std::vector<runtime::NamedView> views;
      for (const auto& in : inputs) {
        for (const auto& [onnx_name, operand] : imported.inputs) {
          if (onnx_name == in.name) views.push_back({operand, in.tensor.view()});
        }
      }
      auto outputs = session.run(views);
      const auto expected = sorted_entries(set, "output_");
      check(expected.size() == outputs.size(), "{} outputs, {} expected", outputs.size(),
            expected.size());
      for (size_t i = 0; i < outputs.size(); ++i) {
        std::string diff = compare(outputs[i].name, outputs[i].tensor, load_pb(expected[i]));
        if (!diff.empty()) {
          return {name, TestOutcome::kFail, set.filename().string() + ": " + diff};
        }
      }
      if (!pin_per_set) {
        // The session consumed the graph; re-import for the next set.
        if (&set != &sets.back()) {
          shared = std::make_unique<ImportResult>(import_model(model, dir.string()));
        }
      }
    }
  } catch (const UnsupportedModelError& e) {
    return unsupported_result(name, e);
  } catch (const std::exception& e) {
    return {name, TestOutcome::kFail, e.what()};
  }
  return {name, TestOutcome::kPass, ""};
}

}  // namespace wnn::onnx
