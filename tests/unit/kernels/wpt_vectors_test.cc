// Runs the WPT conformance vectors (../shared/wpt, FORMAT.md) of the operator families in this
// module's reference kernels, one node at a time, with the WPT tolerances. It stands in until
// the session-level `wnn conformance` runner exists and checks the kernels alone.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include "kernel_test_util.h"
#include "wnn/core/error.h"

namespace wnn::kernels {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// $WNN_WPT_DIR, else the shared checkout beside the main checkout or beside a worktree.
fs::path wpt_dir() {
  if (const char* env = std::getenv("WNN_WPT_DIR")) return env;
  for (const char* rel : {"../shared/wpt/conformance", "../../shared/wpt/conformance"}) {
    const fs::path p = fs::path(WNN_SOURCE_DIR) / rel;
    if (fs::exists(p)) return p;
  }
  return {};
}

KernelFn family_kernel(std::string_view family) {
  static const std::map<std::string_view, KernelFn> kFamilies = {
      {"elementwise", elementwise}, {"activation", activation}, {"reduce", reduce},
      {"movement", movement},       {"gather", gather},         {"quantize", quantize}};
  const auto it = kFamilies.find(family);
  return it == kFamilies.end() ? nullptr : it->second;
}

bool has_null(const json& j) {
  if (j.is_null()) return true;
  if (j.is_array() || j.is_object()) {
    for (const auto& v : j) {
      if (has_null(v)) return true;
    }
  }
  return false;
}

// A JSON scalar of the data arrays: number, "123n"/"123" (exact int64), "NaN", "Infinity".
struct Number {
  double d = 0;
  bool exact = false;
  int64_t i = 0;
  uint64_t u = 0;
};
Number parse_number(const json& j) {
  Number n;
  if (j.is_number_unsigned()) {
    n.u = j.get<uint64_t>();
    n.i = int64_t(n.u);
    n.d = double(n.u);
    n.exact = true;
  } else if (j.is_number_integer()) {
    n.i = j.get<int64_t>();
    n.u = uint64_t(n.i);
    n.d = double(n.i);
    n.exact = true;
  } else if (j.is_number()) {
    n.d = j.get<double>();
  } else {
    std::string s = j.get<std::string>();
    if (s == "NaN")
      n.d = NAN;
    else if (s == "Infinity")
      n.d = INFINITY;
    else if (s == "-Infinity")
      n.d = -INFINITY;
    else {
      if (!s.empty() && s.back() == 'n') s.pop_back();
      n.exact = true;
      if (s[0] == '-') {
        n.i = std::stoll(s);
        n.u = uint64_t(n.i);
      } else {
        n.u = std::stoull(s);
        n.i = int64_t(n.u);
      }
      n.d = s[0] == '-' ? double(n.i) : double(n.u);
    }
  }
  return n;
}

Tensor tensor_of(const json& operand) {
  const auto& desc = operand["descriptor"];
  const DataType dtype = *parse_dtype(desc["dataType"].get<std::string>());
  Shape shape = desc["shape"].get<Shape>();
  Tensor t = Tensor::zeros(dtype, shape);
  const json& data = operand["data"];
  const int64_t n = t.size();
  TensorView v = t.mutable_view();
  for (int64_t i = 0; i < n; ++i) {
    const Number x = parse_number(data.is_array() ? data[size_t(i)] : data);
    if (x.exact && dtype == DataType::kInt64)
      v.as<int64_t>()[i] = x.i;
    else if (x.exact && dtype == DataType::kUint64)
      v.as<uint64_t>()[i] = x.u;
    else if (dtype == DataType::kFloat16)
      v.as<uint16_t>()[i] = float_to_half(float(x.d));
    else
      store_double(v, i, x.d);
  }
  return t;
}

// WPT operand names need not be valid .webnn names: they are renamed through `names`.
using NameMap = std::map<std::string, std::string>;

RawValue raw_of_json(const json& j, const NameMap& names) {
  if (j.is_boolean()) return RawValue(j.get<bool>());
  if (j.is_number_integer()) return RawValue(j.get<int64_t>());
  if (j.is_number()) return RawValue(j.get<double>());
  if (j.is_string()) {
    const std::string s = j.get<std::string>();
    if (const auto it = names.find(s); it != names.end()) return RawValue(it->second);
    if (!s.empty() && s.back() == 'n' && s.find_first_not_of("-0123456789") == s.size() - 1) {
      return RawValue(int64_t(std::stoll(s.substr(0, s.size() - 1))));
    }
    return RawValue(s);
  }
  RawValue::List list;
  for (const auto& item : j) list.push_back(raw_of_json(item, names));
  return RawValue(std::move(list));
}

struct Tolerance {
  bool atol = false;
  double value = 0;
};

// FORMAT.md §5, for the files that carry no tolerance.
Tolerance default_tolerance(const std::string& op, DataType out, const Attributes& attrs,
                            std::span<const int64_t> in_shape) {
  const bool f16 = out == DataType::kFloat16;
  const bool fl = is_float(out);
  int64_t n = 1;
  if (op.rfind("reduce", 0) == 0) {
    for (int64_t a : schema::resolve_axes(attrs, "axes", in_shape.size())) n *= in_shape[size_t(a)];
  }
  static const std::map<std::string, double> kUlp = {{"add", 1},
                                                     {"mul", 1},
                                                     {"div", 2},
                                                     {"reciprocal", 2},
                                                     {"linear", 2},
                                                     {"hardSigmoid", 2},
                                                     {"hardSwish", 4},
                                                     {"softsign", 3},
                                                     {"prelu", 1},
                                                     {"elu", 18},
                                                     {"gelu", 18},
                                                     {"softplus", 18},
                                                     {"tanh", 16},
                                                     {"sqrt", 1},
                                                     {"quantizeLinear", 1},
                                                     {"dequantizeLinear", 1}};
  if (op == "log") return {true, 1.0 / 1024};
  if (op == "sin" || op == "tan" || op == "erf") return {true, f16 ? 1.0 / 512 : 1.0 / 1024};
  if (op == "cos") return {true, f16 ? 1.0 / 128 : 1.0 / 1024};
  if (op == "sub" || op == "cast") return {false, fl ? 1.0 : 0.0};
  if (op == "leakyRelu") return {false, f16 ? 2.0 : 1.0};
  if (op == "sigmoid") return {false, f16 ? 10.0 : 34.0};
  if (op == "exp") return {false, f16 ? 1.0 : 32.0};
  if (op == "pow") return {false, f16 ? 2.0 : 32.0};
  if (op == "softmax") {
    return {false, 3.0 * double(in_shape[size_t(attrs.get_int("axis"))]) + 3};
  }
  if (op == "cumulativeSum") {
    return {false,
            out == DataType::kInt32 ? 0.0 : double(in_shape[size_t(attrs.get_int("axis"))] - 1)};
  }
  if (op == "reduceSum" || op == "reduceL1" || op == "reduceProduct") return {false, double(n)};
  if (op == "reduceMean") return {false, double(n + 2)};
  if (op == "reduceL2") return {false, double(2 * n + 2)};
  if (op == "reduceSumSquare") return {false, double(2 * n)};
  if (op == "reduceLogSum") return {false, double(n + 18)};
  if (op == "reduceLogSumExp") return {false, double(2 * n + 18)};
  const auto it = kUlp.find(op);
  return {false, it == kUlp.end() ? 0.0 : it->second};
}

int64_t float_key(float x) {
  const uint32_t bits = std::bit_cast<uint32_t>(std::fabs(x));
  return x < 0 ? -int64_t(bits) : int64_t(bits);
}
int64_t half_key(uint16_t h) {
  const int64_t mag = h & 0x7fff;
  return (h & 0x8000) ? -mag : mag;
}

// "" when every element is within tolerance, else the first mismatch.
// Integer expectations are compared as the numbers written, not stored into the dtype first:
// one upstream uint4 quantize case expects 16, which the 1-ULP tolerance accepts against 15.
std::string compare(const Tensor& actual, const Tensor& expected, const json& expected_data,
                    Tolerance tol) {
  if (actual.dtype != expected.dtype || actual.shape != expected.shape) {
    return fmt::format("got {} {}, expected {} {}", dtype_name(actual.dtype),
                       shape_to_string(actual.shape), dtype_name(expected.dtype),
                       shape_to_string(expected.shape));
  }
  for (int64_t i = 0; i < actual.size(); ++i) {
    const double a = element_as_double(actual.view(), i);
    const bool narrow_int = is_integer(actual.dtype) && actual.dtype != DataType::kInt64 &&
                            actual.dtype != DataType::kUint64;
    const double e = narrow_int ? parse_number(expected_data[size_t(i)]).d
                                : element_as_double(expected.view(), i);
    if (std::isnan(a) && std::isnan(e)) continue;
    double dist = 0;
    if (a == e) {
      dist = 0;
    } else if (tol.atol) {
      dist = std::fabs(a - e);
    } else if (actual.dtype == DataType::kFloat32) {
      dist = double(std::llabs(float_key(float(a)) - float_key(float(e))));
    } else if (actual.dtype == DataType::kFloat16) {
      dist = double(std::llabs(half_key(actual.view().as<uint16_t>()[i]) -
                               half_key(expected.view().as<uint16_t>()[i])));
    } else if (actual.dtype == DataType::kInt64 || actual.dtype == DataType::kUint64) {
      const int64_t ai = element_as_int64(actual.view(), i);
      const int64_t ei = element_as_int64(expected.view(), i);
      dist = ai == ei ? 0 : std::fabs(double(ai) - double(ei)) + 1;
    } else {
      dist = std::fabs(a - e);
    }
    if (std::isnan(dist) || dist > tol.value) {
      return fmt::format("element {}: got {}, expected {} (distance {} > {})", i, a, e, dist,
                         tol.value);
    }
  }
  return "";
}

// Runs one WPT test; "" on pass, "skip: ..." or a failure description otherwise.
std::string run_test(const json& test) {
  const json& g = test["graph"];
  if (has_null(g)) return "skip: null data (lossy JSON)";
  if (g["operators"].size() != 1) return "skip: multi-operator graph";
  const json& op = g["operators"][0];
  const OpSchema* schema = find_schema(op["name"].get<std::string>());
  if (schema == nullptr) return "skip: unknown op";
  const KernelFn fn = family_kernel(schema->family);
  if (fn == nullptr) return "skip: family not in this module";
  Graph graph;
  GraphBuilder b(graph);
  std::map<std::string, Tensor> inputs;
  NameMap names;
  for (const auto& [name, operand] : g["inputs"].items()) {
    Tensor t = tensor_of(operand);
    const std::string renamed = "x" + std::to_string(names.size());
    names[name] = renamed;
    b.input(renamed, {t.dtype, t.shape});
    inputs.emplace(renamed, std::move(t));
  }
  Call call;
  call.op = schema->name;
  for (const auto& arg : op["arguments"]) {
    for (const auto& [key, value] : arg.items()) {
      if (key == "options") {
        for (const auto& [k, v] : value.items())
          call.args.push_back({k, raw_of_json(v, names), {}});
      } else {
        call.args.push_back({"", raw_of_json(value, names), {}});
      }
    }
  }
  std::vector<std::string> out_names;
  if (op["outputs"].is_string())
    out_names.push_back(op["outputs"].get<std::string>());
  else
    out_names = op["outputs"].get<std::vector<std::string>>();
  for (size_t i = 0; i < out_names.size(); ++i) call.outputs.push_back("y" + std::to_string(i));
  try {
    b.add(call);
  } catch (const Error& e) {
    return fmt::format("build failed: {}", e.what());
  }
  const Node& node = graph.nodes().back();
  std::vector<ConstTensorView> views;
  for (OperandId id : node.inputs) views.push_back(inputs.at(graph.name_of(id)).view());
  std::vector<Tensor> outs;
  std::vector<TensorView> out_views;
  for (OperandId id : node.outputs)
    outs.push_back(Tensor::zeros(graph.desc(id).dtype, graph.desc(id).shape));
  for (Tensor& t : outs) out_views.push_back(t.mutable_view());
  fn(KernelArgs(node.attrs, views, out_views));
  const ConstTensorView& first_in = views.front();
  for (size_t i = 0; i < outs.size(); ++i) {
    const json& exp = g["expectedOutputs"][out_names[i]];
    json e = exp;
    if (!e["data"].is_array()) {  // a bare number fills every element
      e["data"] = json::array();
      for (int64_t k = 0; k < outs[i].size(); ++k) e["data"].push_back(exp["data"]);
    }
    Tolerance tol =
        default_tolerance(std::string(schema->name), outs[i].dtype, node.attrs, first_in.shape);
    if (test.contains("tolerance")) {
      tol = {test["tolerance"]["metricType"] == "ATOL", test["tolerance"]["value"].get<double>()};
    }
    const std::string diff = compare(outs[i], tensor_of(e), e["data"], tol);
    if (!diff.empty()) return out_names[i] + ": " + diff;
  }
  return "";
}

TEST(WptVectors, EveryVectorOfThisModulesOpsPasses) {
  const fs::path dir = wpt_dir();
  if (dir.empty()) GTEST_SKIP() << "no WPT data (set WNN_WPT_DIR)";
  std::map<std::string, std::pair<int, int>> per_op;  // passed, failed
  int skipped = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    std::ifstream f(entry.path());
    const json file = json::parse(f);
    for (const auto& test : file["tests"]) {
      const std::string result = run_test(test);
      const std::string op = test["graph"]["operators"][0]["name"].get<std::string>();
      if (result.rfind("skip: family", 0) == 0) continue;
      if (result.rfind("skip:", 0) == 0) {
        ++skipped;
        continue;
      }
      if (result.empty()) {
        ++per_op[op].first;
      } else {
        ++per_op[op].second;
        ADD_FAILURE() << test["name"].get<std::string>() << ": " << result;
      }
    }
  }
  int passed = 0, failed = 0;
  for (const auto& [op, pf] : per_op) {
    std::printf("  %-20s %3d passed %3d failed\n", op.c_str(), pf.first, pf.second);
    passed += pf.first;
    failed += pf.second;
  }
  std::printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
}

}  // namespace
}  // namespace wnn::kernels
