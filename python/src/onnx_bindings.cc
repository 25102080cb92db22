// `_convert_onnx` and `_validate`: the C++ entry points behind wnn.convert_onnx and wnn.validate
// (python/wnn/_onnx.py adds the keyword-only Python signatures and writes numpy inputs to .npy).
// The validation report crosses as the JSON that `wnn validate --report` writes, so Python sees
// exactly the documented schema (docs/validation.md).
#include "onnx_bindings.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ndarray.h"
#include "wnn/core/error.h"
#include "wnn/format/model.h"
#include "wnn/onnx/import.h"
#include "wnn/validate/report.h"
#include "wnn/validate/validate.h"

namespace wnn::python {
namespace {

namespace fs = std::filesystem;

onnx::ImportOptions import_options(const std::map<std::string, int64_t>& override_dims,
                                   const std::map<std::string, std::string>& pin_inputs,
                                   const std::map<std::string, py::array>& pin_tensors) {
  onnx::ImportOptions options;
  options.override_dims = override_dims;
  options.pin_inputs = pin_inputs;
  for (const auto& [name, array] : pin_tensors) {
    check(!pin_inputs.count(name), "input '{}' is pinned twice (as text and as an array)", name);
    options.pin_tensors.emplace(name, tensor_from_array(array));
  }
  return options;
}

py::list pairs_list(const std::vector<std::pair<std::string, std::string>>& pairs) {
  py::list l;
  for (const auto& [onnx_name, operand] : pairs) l.append(py::make_tuple(onnx_name, operand));
  return l;
}

py::dict convert_onnx(const std::string& path, const std::optional<std::string>& out_dir,
                      const std::map<std::string, int64_t>& override_dims,
                      const std::map<std::string, std::string>& pin_inputs,
                      const std::map<std::string, py::array>& pin_tensors,
                      bool zero_missing_weights) {
  onnx::ImportOptions options = import_options(override_dims, pin_inputs, pin_tensors);
  options.zero_missing_weights = zero_missing_weights;
  onnx::ImportResult r;
  {
    py::gil_scoped_release release;
    r = onnx::import_model(path, options);
  }
  py::dict d;
  d["graph_path"] = py::none();
  d["weights_path"] = py::none();
  if (out_dir) {
    fs::create_directories(*out_dir);
    const std::string stem = fs::path(path).stem().string();
    const std::string graph_path = (fs::path(*out_dir) / (stem + ".webnn")).string();
    const std::string weights_path = (fs::path(*out_dir) / (stem + ".safetensors")).string();
    format::save_model(r.graph, graph_path, weights_path);
    d["graph_path"] = graph_path;
    d["weights_path"] = weights_path;
  }
  d["inputs"] = pairs_list(r.inputs);
  d["outputs"] = pairs_list(r.outputs);
  py::list pinned;
  for (const auto& [name, value] : r.pinned) pinned.append(name);
  d["pinned"] = pinned;
  d["warnings"] = r.warnings;
  d["nodes_in"] = r.nodes_in;
  d["graph"] = std::make_shared<Graph>(std::move(r.graph));
  return d;
}

py::dict validate(const std::string& path,
                  const std::vector<std::pair<std::string, std::string>>& input_files,
                  const std::map<std::string, int64_t>& override_dims,
                  const std::map<std::string, std::string>& pin_inputs,
                  const std::map<std::string, py::array>& pin_tensors, std::optional<double> atol,
                  std::optional<double> rtol, const std::string& backend, int threads,
                  const std::optional<std::string>& out_dir,
                  const std::optional<std::string>& report_path, bool per_node,
                  std::optional<int64_t> per_node_memory_mb, const std::string& noise_floor) {
  validate::ValidateOptions options;
  const auto mode = validate::parse_noise_floor_mode(noise_floor);
  check(mode.has_value(), "noise_floor must be 'auto', 'always' or 'off', got '{}'", noise_floor);
  options.noise_floor = *mode;
  options.per_node.enabled = per_node;
  if (per_node_memory_mb) {
    check(*per_node_memory_mb >= 1, "per_node_memory_mb must be at least 1, got {}",
          *per_node_memory_mb);
    options.per_node.memory_budget = uint64_t(*per_node_memory_mb) << 20;
  }
  options.import = import_options(override_dims, pin_inputs, pin_tensors);
  options.input_files = input_files;
  check(!atol || *atol >= 0, "atol must be >= 0, got {}", atol.value_or(0));
  check(!rtol || *rtol >= 0, "rtol must be >= 0, got {}", rtol.value_or(0));
  options.atol = atol;
  options.rtol = rtol;
  options.session.backend = backend;
  options.session.threads = threads;
  options.session.warn_fallback = false;
  options.reference.threads = threads;
  if (out_dir) {
    options.storage = validate::Storage::kDirectory;
    options.output_dir = *out_dir;
  }
  validate::Report report;
  {
    py::gil_scoped_release release;
    report = validate::validate_onnx_model(path, options);
    if (report_path) validate::write_report(*report_path, report);
  }
  const std::string text = validate::report_json(report).dump();
  py::dict d = py::module_::import("json").attr("loads")(text);
  d["exit_code"] = report.exit_code;
  d["warnings"] = report.warnings;
  return d;
}

}  // namespace

void bind_onnx(py::module_& m) {
  m.def("_convert_onnx", &convert_onnx, py::arg("path"), py::arg("out_dir"),
        py::arg("override_dims"), py::arg("pin_inputs"), py::arg("pin_tensors"),
        py::arg("zero_missing_weights"));
  m.def("_validate", &validate, py::arg("path"), py::arg("input_files"), py::arg("override_dims"),
        py::arg("pin_inputs"), py::arg("pin_tensors"), py::arg("atol"), py::arg("rtol"),
        py::arg("backend"), py::arg("threads"), py::arg("out_dir"), py::arg("report_path"),
        py::arg("per_node"), py::arg("per_node_memory_mb"), py::arg("noise_floor"));
}

}  // namespace wnn::python
