// Loading WPT conformance cases and running them (FORMAT.md sections 1-4 and 6).
#include "wnn/conformance/wpt.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include "wnn/core/builder.h"
#include "wnn/core/error.h"
#include "wnn/core/half.h"
#include "wnn/runtime/session.h"

namespace wnn::conformance {

using Json = nlohmann::ordered_json;

namespace {

// Thrown for a case whose data was lost in the JSON dump (null for NaN or infinity).
struct SkipCase {
  std::string reason;
};

bool contains_null(const Json& j) {
  if (j.is_null()) return true;
  if (j.is_array() || j.is_object()) {
    for (const auto& v : j) {
      if (contains_null(v)) return true;
    }
  }
  return false;
}

// A WPT number: a JSON number, "NaN"/"Infinity"/"-Infinity", or a decimal integer string with
// an optional BigInt 'n' suffix (int64/uint64 above 2^53).
struct WptNumber {
  bool is_integer = false;
  bool is_unsigned_big = false;  // above INT64_MAX
  int64_t i = 0;
  uint64_t u = 0;
  double d = 0;
};

WptNumber parse_number(const Json& j) {
  WptNumber n;
  if (j.is_number_integer()) {
    n.is_integer = true;
    if (j.is_number_unsigned() && j.get<uint64_t>() > uint64_t(INT64_MAX)) {
      n.is_unsigned_big = true;
      n.u = j.get<uint64_t>();
      n.d = double(n.u);
    } else {
      n.i = j.get<int64_t>();
      n.d = double(n.i);
    }
    return n;
  }
  if (j.is_number()) {
    n.d = j.get<double>();
    return n;
  }
  check(j.is_string(), "expected a number, got {}", j.dump());
  std::string s = j.get<std::string>();
  if (s == "NaN") {
    n.d = std::numeric_limits<double>::quiet_NaN();
    return n;
  }
  if (s == "Infinity" || s == "-Infinity") {
    n.d = s[0] == '-' ? -std::numeric_limits<double>::infinity()
                      : std::numeric_limits<double>::infinity();
    return n;
  }
  if (!s.empty() && s.back() == 'n') s.pop_back();
  n.is_integer = true;
  const char* b = s.data();
  const char* e = s.data() + s.size();
  if (auto [p, ec] = std::from_chars(b, e, n.i); ec == std::errc() && p == e) {
    n.d = double(n.i);
    return n;
  }
  if (auto [p, ec] = std::from_chars(b, e, n.u); ec == std::errc() && p == e) {
    n.is_unsigned_big = true;
    n.d = double(n.u);
    return n;
  }
  fail("'{}' is not a number", j.get<std::string>());
}

void store(DataType dtype, std::byte* out, const WptNumber& n) {
  auto as_int = [&]() -> int64_t {
    if (n.is_unsigned_big) return int64_t(n.u);
    return n.is_integer ? n.i : int64_t(n.d);
  };
  switch (dtype) {
    case DataType::kFloat32: {
      const float f = float(n.d);
      std::memcpy(out, &f, 4);
      return;
    }
    case DataType::kFloat16: {
      const uint16_t h = wpt_to_half(float(n.d));
      std::memcpy(out, &h, 2);
      return;
    }
    case DataType::kInt32: {
      const int32_t v = int32_t(as_int());
      std::memcpy(out, &v, 4);
      return;
    }
    case DataType::kUint32: {
      const uint32_t v = uint32_t(as_int());
      std::memcpy(out, &v, 4);
      return;
    }
    case DataType::kInt64:
    case DataType::kUint64: {
      const int64_t v = as_int();
      std::memcpy(out, &v, 8);
      return;
    }
    case DataType::kInt8:
      *reinterpret_cast<int8_t*>(out) = int8_t(as_int());
      return;
    case DataType::kUint8:
      *reinterpret_cast<uint8_t*>(out) = uint8_t(as_int());
      return;
    case DataType::kInt4: {
      const int64_t v = as_int() & 0xf;  // WPT packs nibbles: values wrap mod 16
      *reinterpret_cast<int8_t*>(out) = int8_t(v >= 8 ? v - 16 : v);
      return;
    }
    case DataType::kUint4:
      *reinterpret_cast<uint8_t*>(out) = uint8_t(as_int() & 0xf);
      return;
  }
}

OperandDesc parse_descriptor(const Json& d) {
  const auto dtype = parse_dtype(d.at("dataType").get<std::string>());
  check(dtype.has_value(), "unknown dataType '{}'", d.at("dataType").dump());
  return {*dtype, d.at("shape").get<Shape>()};
}

RawValue to_raw(const Json& j, const std::set<std::string>& operands) {
  if (j.is_boolean()) return RawValue(j.get<bool>());
  if (j.is_number_integer()) {
    if (j.is_number_unsigned() && j.get<uint64_t>() > uint64_t(INT64_MAX)) {
      return RawValue(int64_t(j.get<uint64_t>()));
    }
    return RawValue(j.get<int64_t>());
  }
  if (j.is_number()) return RawValue(j.get<double>());
  if (j.is_string()) {
    const std::string s = j.get<std::string>();
    if (operands.contains(s)) return RawValue(RawValue::Name{s});
    // BigInt literals such as "-9007199254740995n" are integers.
    if (s.size() > 1 && s.back() == 'n' &&
        (std::isdigit(static_cast<unsigned char>(s[0])) || s[0] == '-')) {
      const WptNumber n = parse_number(j);
      return RawValue(n.is_unsigned_big ? int64_t(n.u) : n.i);
    }
    return RawValue(s);
  }
  if (j.is_array()) {
    RawValue::List list;
    for (const auto& item : j) list.push_back(to_raw(item, operands));
    return RawValue(std::move(list));
  }
  if (j.is_object()) {
    RawValue::Object obj;
    for (const auto& [k, v] : j.items()) obj.emplace_back(k, to_raw(v, operands));
    return RawValue(std::move(obj));
  }
  return RawValue();
}

WptCase load_case(const Json& test, const std::string& file) {
  WptCase c;
  c.file = file;
  c.name = test.at("name").get<std::string>();
  const Json& graph = test.at("graph");
  if (contains_null(graph)) {
    throw SkipCase{"data contains null (NaN or infinity lost by an older JSON dump)"};
  }
  if (test.contains("tolerance")) {
    const Json& tol = test["tolerance"];
    const std::string metric = tol.at("metricType").get<std::string>();
    c.file_tolerance =
        Tolerance{metric == "ATOL" ? Tolerance::Metric::kAtol : Tolerance::Metric::kUlp,
                  tol.at("value").get<double>()};
  }
  GraphBuilder b(c.graph);
  std::set<std::string> operands;
  for (const auto& [name, operand] : graph.at("inputs").items()) {
    const OperandDesc desc = parse_descriptor(operand.at("descriptor"));
    Tensor t = parse_tensor(operand, nullptr);
    const bool constant = operand.value("constant", false);
    if (constant) {
      b.constant(name, desc, ConstantInitKind::kWeights, name, {}, {}, t.data);
    } else {
      b.input(name, desc);
      c.inputs.emplace_back(name, std::move(t));
    }
    operands.insert(name);
  }
  for (const Json& op : graph.at("operators")) {
    Call call;
    call.op = op.at("name").get<std::string>();
    if (c.op.empty()) c.op = call.op;
    for (const Json& arg : op.at("arguments")) {
      check(arg.is_object() && arg.size() == 1, "argument {} is not a one-key object", arg.dump());
      // items() is a temporary proxy: copy the key and hold the value by reference into `arg`.
      const auto it = arg.begin();
      const std::string key = it.key();
      const Json& value = it.value();
      if (key == "options") {
        for (const auto& [opt, v] : value.items()) {
          call.args.push_back({opt, to_raw(v, operands), ""});
        }
      } else {
        // Positional, in the method's parameter order.
        call.args.push_back({"", to_raw(value, operands), ""});
      }
    }
    const Json& outs = op.at("outputs");
    if (outs.is_string()) {
      call.outputs.push_back(outs.get<std::string>());
    } else {
      for (const auto& o : outs) call.outputs.push_back(o.get<std::string>());
    }
    b.add(call);
    for (const auto& o : call.outputs) operands.insert(o);
  }
  for (const auto& [name, operand] : graph.at("expectedOutputs").items()) {
    const auto id = c.graph.find(name);
    check(id.has_value(), "expected output '{}' is not produced by any operator", name);
    const OperandDesc want = parse_descriptor(operand.at("descriptor"));
    const OperandDesc& got = c.graph.desc(*id);
    check(want == got, "output '{}' is {}, expected {}", name, got.to_string(), want.to_string());
    b.output(*id);
    int64_t count = 0;
    c.expected.emplace_back(name, parse_tensor(operand, &count));
    c.expected_check_count.push_back(count);
  }
  return c;
}

std::string format_value(DataType dt, const std::byte* p) {
  Tensor t{dt, {}, Buffer::copy_of({p, dtype_size(dt)})};
  if (is_float(dt)) return fmt::format("{}", element_as_double(t.view(), 0));
  return fmt::format("{}", element_as_int64(t.view(), 0));
}

CaseResult run_case(const Json& test, const std::string& file, const RunOptions& options) {
  CaseResult r;
  r.file = file;
  r.name = test.value("name", std::string("?"));
  if (!test.contains("graph") || !test["graph"].contains("operators") ||
      test["graph"]["operators"].empty()) {
    r.status = CaseResult::Status::kFail;
    r.detail = "no operators";
    return r;
  }
  r.op = test["graph"]["operators"][0].value("name", std::string("?"));
  try {
    WptCase c = load_case(test, file);
    auto graph = std::make_shared<const Graph>(std::move(c.graph));
    runtime::Session session(graph, {options.backend, 1, true, false});
    r.nodes = session.graph().nodes().size();
    for (int region : session.execution_plan().partition.region_of)
      r.delegated_nodes += region >= 0;
    std::vector<runtime::NamedView> inputs;
    for (const auto& [name, t] : c.inputs) inputs.push_back({name, t.view()});
    const auto outputs = session.run(inputs);
    for (size_t i = 0; i < c.expected.size(); ++i) {
      const auto& [name, expected] = c.expected[i];
      const OperandId id = *graph->find(name);
      const Node& producer = graph->nodes()[graph->operand(id).producer];
      Tolerance tol = c.file_tolerance.value_or(tolerance_for(*graph, producer, expected.dtype));
      const std::string diff = compare(outputs[i].tensor, expected, c.expected_check_count[i], tol);
      if (!diff.empty()) {
        r.status = CaseResult::Status::kFail;
        r.detail = fmt::format("output '{}' {}", name, diff);
        return r;
      }
    }
  } catch (const SkipCase& s) {
    r.status = CaseResult::Status::kSkip;
    r.detail = s.reason;
  } catch (const Error& e) {
    r.status = CaseResult::Status::kFail;
    r.detail = e.what();
  } catch (const std::exception& e) {
    r.status = CaseResult::Status::kFail;
    r.detail = std::string("exception: ") + e.what();
  }
  return r;
}

}  // namespace

// Fills a tensor from `data`: an array of product(shape) values, or one bare number that fills
// every element. Returns how many elements WPT checks when it is an expected output.
// Inputs of 4-bit types wrap mod 16, as WPT packs them; expected 4-bit values are kept as
// written (held in int64), because WPT compares the output with the values as written.
Tensor parse_tensor(const Json& operand, int64_t* check_count) {
  OperandDesc desc = parse_descriptor(operand.at("descriptor"));
  const bool expected_4bit =
      check_count != nullptr && (desc.dtype == DataType::kInt4 || desc.dtype == DataType::kUint4);
  if (expected_4bit) desc.dtype = DataType::kInt64;
  Tensor t = Tensor::zeros(desc.dtype, desc.shape);
  const int64_t n = t.size();
  const size_t es = dtype_size(desc.dtype);
  const Json& data = operand.at("data");
  if (data.is_array()) {
    check(int64_t(data.size()) == n, "data has {} values, shape {} needs {}", data.size(),
          shape_to_string(desc.shape), n);
    for (int64_t i = 0; i < n; ++i) {
      store(desc.dtype, t.data.mutable_data() + size_t(i) * es, parse_number(data[size_t(i)]));
    }
    if (check_count) *check_count = n;
  } else {
    const WptNumber v = parse_number(data);
    for (int64_t i = 0; i < n; ++i) store(desc.dtype, t.data.mutable_data() + size_t(i) * es, v);
    if (check_count) *check_count = std::min<int64_t>(n, 1000);
  }
  return t;
}

// Compares one output; returns an empty string on a pass, else what differs.
std::string compare(const Tensor& actual, const Tensor& expected, int64_t count,
                    const Tolerance& tol) {
  const size_t es = dtype_size(expected.dtype);
  for (int64_t i = 0; i < count; ++i) {
    const std::byte* a = actual.data.data() + size_t(i) * es;
    const std::byte* e = expected.data.data() + size_t(i) * es;
    bool ok;
    if (actual.dtype != expected.dtype) {
      // 4-bit outputs against the values as written (see parse_tensor).
      const int64_t da = element_as_int64(actual.view(), i);
      const int64_t de = element_as_int64(expected.view(), i);
      ok =
          tol.metric == Tolerance::Metric::kUlp && double(da > de ? da - de : de - da) <= tol.value;
      if (!ok) {
        return fmt::format("element {}: got {}, expected {} (ULP tolerance {})", i, da, de,
                           tol.value);
      }
      continue;
    }
    if (tol.metric == Tolerance::Metric::kAtol) {
      const double da = element_as_double(actual.view(), i);
      const double de = element_as_double(expected.view(), i);
      ok = (std::isnan(da) && std::isnan(de)) || da == de || std::abs(da - de) <= tol.value;
    } else {
      ok = double(ulp_distance(expected.dtype, a, e)) <= tol.value;
    }
    if (!ok) {
      return fmt::format("element {}: got {}, expected {} ({} tolerance {})", i,
                         format_value(expected.dtype, a), format_value(expected.dtype, e),
                         tol.metric == Tolerance::Metric::kUlp ? "ULP" : "ATOL", tol.value);
    }
  }
  return {};
}

std::vector<CaseResult> run_file(const std::string& path, const RunOptions& options) {
  std::ifstream in(path, std::ios::binary);
  check(in.good(), "{}: cannot open", path);
  std::stringstream ss;
  ss << in.rdbuf();
  Json doc;
  try {
    doc = Json::parse(ss.str());
  } catch (const nlohmann::json::exception& e) {
    fail("{}: not valid JSON: {}", path, e.what());
  }
  check(doc.contains("tests") && doc["tests"].is_array(), "{}: no 'tests' array", path);
  const std::string file = path.substr(path.find_last_of('/') + 1);
  std::vector<CaseResult> results;
  for (const Json& test : doc["tests"]) {
    if (!options.filter.empty() &&
        test.value("name", std::string()).find(options.filter) == std::string::npos) {
      continue;
    }
    results.push_back(run_case(test, file, options));
  }
  return results;
}

}  // namespace wnn::conformance
