// `wnn onnx-test DIR...`: runs ONNX backend-test directories (model.onnx + test_data_set_*/
// input_N.pb, output_N.pb): import, run on the reference runtime, compare. Skips only for the
// documented inexpressible features (src/wnn/onnx/unsupported.cc); anything else is a failure.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "wnn/cli/command.h"
#include "wnn/core/error.h"
#include "wnn/onnx/external_data.h"
#include "wnn/onnx/import.h"
#include "wnn/onnx/tensor_data.h"
#include "wnn/runtime/session.h"

namespace wnn::cli {
namespace {

namespace fs = std::filesystem;

enum class Outcome { kPass, kFail, kSkip };
struct TestResult {
  std::string name;
  Outcome outcome = Outcome::kPass;
  std::string reason;
};

onnx::TensorData load_pb(const fs::path& p) {
  const onnx::TensorProto t = onnx::load_tensor(p.string());
  return onnx::tensor_data(t, onnx::ExternalDataResolver());
}

// "" when `actual` matches `expected`; else what differs.
std::string compare(const std::string& name, const Tensor& actual, const onnx::TensorData& exp) {
  if (actual.shape != exp.shape) {
    return fmt::format("output '{}': shape {} expected {}", name, shape_to_string(actual.shape),
                       shape_to_string(exp.shape));
  }
  const ConstTensorView e{exp.dtype, exp.shape, exp.data.data()};
  const bool floats = is_float(exp.dtype) || is_float(actual.dtype);
  for (int64_t i = 0; i < actual.size(); ++i) {
    if (floats) {
      const double a = element_as_double(actual.view(), i), r = element_as_double(e, i);
      if (std::isnan(a) && std::isnan(r)) continue;
      if (std::isinf(r) && a == r) continue;
      if (!(std::fabs(a - r) <= 1e-5 + 1e-3 * std::fabs(r))) {
        return fmt::format("output '{}' element {}: {} expected {}", name, i, a, r);
      }
    } else if (element_as_int64(actual.view(), i) != element_as_int64(e, i)) {
      return fmt::format("output '{}' element {}: {} expected {}", name, i,
                         element_as_int64(actual.view(), i), element_as_int64(e, i));
    }
  }
  return {};
}

std::vector<fs::path> sorted_entries(const fs::path& dir, std::string_view prefix) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename().string().rfind(prefix, 0) == 0) out.push_back(e.path());
  }
  // input_10 sorts after input_9: order by the number after the prefix where there is one.
  std::sort(out.begin(), out.end(), [&](const fs::path& a, const fs::path& b) {
    auto num = [&](const fs::path& p) {
      const std::string s = p.stem().string().substr(prefix.size());
      return std::atoll(s.c_str());
    };
    return std::make_pair(num(a), a) < std::make_pair(num(b), b);
  });
  return out;
}

TestResult run_test(const fs::path& dir) {
  TestResult r{dir.filename().string(), Outcome::kPass, ""};
  std::unique_ptr<onnx::ImportResult> imported;
  try {
    imported =
        std::make_unique<onnx::ImportResult>(onnx::import_model((dir / "model.onnx").string()));
  } catch (const onnx::UnsupportedModelError& e) {
    std::string categories;
    bool all_documented = true;
    for (const auto& n : e.nodes()) {
      if (n.category.empty()) all_documented = false;
      if (categories.find(n.category) == std::string::npos) {
        categories += (categories.empty() ? "" : ", ") + n.category;
      }
    }
    if (all_documented) return {r.name, Outcome::kSkip, categories};
    std::string first;
    for (const auto& n : e.nodes()) {
      if (n.category.empty()) {
        first = fmt::format("unsupported {}: {}", n.op_type, n.reason);
        break;
      }
    }
    return {r.name, Outcome::kFail, first};
  } catch (const Error& e) {
    return {r.name, Outcome::kFail, fmt::format("import: {}", e.what())};
  }
  try {
    imported->graph.bind_inline_constants();
    auto graph = std::make_shared<Graph>(std::move(imported->graph));
    runtime::Session session(graph);
    const auto sets = sorted_entries(dir, "test_data_set_");
    check(!sets.empty(), "no test_data_set_* directory");
    for (const auto& set : sets) {
      std::vector<onnx::TensorData> inputs;
      std::vector<std::string> input_names;
      for (const auto& p : sorted_entries(set, "input_")) {
        const onnx::TensorProto t = onnx::load_tensor(p.string());
        input_names.push_back(t.name);
        inputs.push_back(onnx::tensor_data(t, onnx::ExternalDataResolver()));
      }
      std::vector<runtime::NamedView> views;
      size_t position = 0;
      for (size_t i = 0; i < inputs.size(); ++i) {
        std::string name;
        for (const auto& [onnx_name, op] : imported->inputs) {
          if (onnx_name == input_names[i]) name = op;
        }
        if (name.empty()) {
          // Unnamed test inputs follow the model's (non-initializer) inputs in order.
          if (position >= imported->inputs.size()) continue;
          name = imported->inputs[position].second;
        }
        ++position;
        views.push_back({name, {inputs[i].dtype, inputs[i].shape, inputs[i].data.data()}});
      }
      auto outputs = session.run(views);
      const auto expected = sorted_entries(set, "output_");
      check(expected.size() == outputs.size(), "{} outputs, {} expected", outputs.size(),
            expected.size());
      for (size_t i = 0; i < outputs.size(); ++i) {
        std::string diff = compare(outputs[i].name, outputs[i].tensor, load_pb(expected[i]));
        if (!diff.empty()) return {r.name, Outcome::kFail, set.filename().string() + ": " + diff};
      }
    }
  } catch (const Error& e) {
    return {r.name, Outcome::kFail, fmt::format("run: {}", e.what())};
  } catch (const std::exception& e) {
    return {r.name, Outcome::kFail, fmt::format("run: {}", e.what())};
  }
  return r;
}

int run_onnx_test(Args& args) {
  const bool json = args.flag("json");
  const bool quiet = args.flag("quiet", 'q');
  const auto dirs = args.finish();
  check(!dirs.empty(), "give one or more test directories");
  std::vector<fs::path> tests;
  for (const auto& d : dirs) {
    check(fs::is_directory(d), "'{}' is not a directory", d);
    if (fs::exists(fs::path(d) / "model.onnx")) {
      tests.push_back(d);
      continue;
    }
    std::vector<fs::path> sub;
    for (const auto& e : fs::directory_iterator(d)) {
      if (fs::exists(e.path() / "model.onnx")) sub.push_back(e.path());
    }
    std::sort(sub.begin(), sub.end());
    tests.insert(tests.end(), sub.begin(), sub.end());
  }
  int pass = 0, fail = 0, skip = 0;
  nlohmann::json results = nlohmann::json::array();
  for (const auto& t : tests) {
    TestResult r = run_test(t);
    const char* word = r.outcome == Outcome::kPass   ? "PASS"
                       : r.outcome == Outcome::kFail ? "FAIL"
                                                     : "SKIP";
    (r.outcome == Outcome::kPass ? pass : r.outcome == Outcome::kFail ? fail : skip)++;
    if (json) {
      results.push_back({{"test", t.string()}, {"result", word}, {"reason", r.reason}});
    } else if (!quiet || r.outcome != Outcome::kPass) {
      std::printf("%s %s%s%s\n", word, r.name.c_str(), r.reason.empty() ? "" : ": ",
                  r.reason.c_str());
    }
  }
  if (json) {
    nlohmann::json j{{"passed", pass}, {"failed", fail}, {"skipped", skip}, {"tests", results}};
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::printf("%d passed, %d failed, %d skipped\n", pass, fail, skip);
  }
  return fail == 0 ? kExitOk : kExitCheckFailed;
}

const CommandRegistration registration{{
    "onnx-test",
    "run ONNX backend-test directories through the importer and the reference runtime",
    "usage: wnn onnx-test [--json] [-q] DIR...\n\n"
    "Each DIR is a test (model.onnx + test_data_set_*/) or a directory of tests. Each test is\n"
    "imported, run on the reference runtime and compared with output_N.pb (floats:\n"
    "|a-r| <= 1e-5 + 1e-3*|r|; integers and bools exactly). Tests that need what WebNN cannot\n"
    "express (strings, sequences, optional, runtime control flow, data-dependent shapes,\n"
    "randomness, training) are skipped with the reason; everything else passes or fails.\n\n"
    "options:\n"
    "  --json       machine-readable results\n"
    "  -q, --quiet  print only failures, skips and the summary",
    run_onnx_test,
}};

}  // namespace
}  // namespace wnn::cli
