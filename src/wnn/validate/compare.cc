#include "wnn/validate/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>

#include "wnn/validate/reference_model.h"

namespace wnn::validate {

Tolerance default_tolerance(DataType dtype, const std::optional<Tolerance>& quantized) {
  if (!is_float(dtype)) return {0, 0};
  if (quantized) return *quantized;
  if (dtype == DataType::kFloat16) return {kFloat16Epsilon, 10 * kFloat16Epsilon};
  return {1e-5, 1e-4};
}

ProfileDtypes::ProfileDtypes(const Graph& g)
    : graph_(g), float16_computed_(g.operands().size(), false) {
  for (const Node& n : g.nodes()) {  // topological: a node follows its inputs' producers
    bool f16 = std::any_of(n.inputs.begin(), n.inputs.end(),
                           [&](OperandId in) { return float16_computed_[in.index]; });
    for (OperandId out : n.outputs) f16 = f16 || g.desc(out).dtype == DataType::kFloat16;
    for (OperandId out : n.outputs) float16_computed_[out.index] = f16;
  }
}

DataType ProfileDtypes::of(OperandId id) const {
  const DataType own = graph_.desc(id).dtype;
  return is_float(own) && float16_computed_.at(id.index) ? DataType::kFloat16 : own;
}

std::optional<Tolerance> quantization_tolerance(const onnx::ModelProto& model) {
  std::optional<Tolerance> tol;
  for (const auto& n : model.graph.node) {
    if (n.op_type != "MatMulNBits" || n.domain != "com.microsoft") continue;
    int64_t bits = 4;  // the contrib op's default
    if (const auto* a = n.find_attribute("bits")) bits = a->i;
    const Tolerance t = bits <= 4 ? Tolerance{1e-3, 1e-3} : Tolerance{2e-3, 2e-3};
    if (!tol) {
      tol = t;
    } else {
      tol = Tolerance{std::max(tol->atol, t.atol), std::max(tol->rtol, t.rtol)};
    }
  }
  return tol;
}

std::vector<std::string> quantized_arithmetic(const onnx::ModelProto& model) {
  std::map<int64_t, int64_t> nodes_by_level;
  for (const auto& n : model.graph.node) {
    if (n.op_type != "MatMulNBits" || n.domain != "com.microsoft") continue;
    const auto* a = n.find_attribute("accuracy_level");
    ++nodes_by_level[a ? a->i : 0];
  }
  std::vector<std::string> lines;
  for (const auto& [level, count] : nodes_by_level) {
    lines.push_back(fmt::format(
        "MatMulNBits accuracy_level {} ({} node{}): {}", level, count, count == 1 ? "" : "s",
        level == kInt8ActivationsLevel
            ? "ONNX Runtime's arithmetic reproduced (A quantized per block to int8, "
              "exact integer block products)"
            : "float32 products, as ONNX Runtime computes them"));
  }
  return lines;
}

bool looks_like_classes(const std::string& name, DataType dtype, const Shape& shape) {
  if (!is_float(dtype) || shape.empty() || shape.back() < 2) return false;
  std::string key = name;
  for (char& c : key) c = char(std::tolower(static_cast<unsigned char>(c)));
  return shape.size() == 2 || key.find("logits") != std::string::npos;
}

OutputMetrics compare_tensors(const ConstTensorView& actual, const ConstTensorView& reference,
                              const Tolerance& tol) {
  OutputMetrics m;
  const int64_t n = reference.size();
  m.elements = n;
  double sum_abs = 0, sum_sq = 0, dot = 0, norm_a = 0, norm_r = 0;
  int64_t finite = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double a = element_as_double(actual, i);
    const double r = element_as_double(reference, i);
    bool ok, ok_without_floor;
    if (std::isnan(r) || std::isnan(a)) {
      ok = ok_without_floor = std::isnan(r) && std::isnan(a);
    } else if (std::isinf(r) || std::isinf(a)) {
      ok = ok_without_floor = a == r;  // both infinite with the same sign
    } else {
      const double diff = std::fabs(a - r);
      const double plain = tol.atol + tol.rtol * std::fabs(r);
      const double allowed = std::max(plain, tol.floor);
      ok = diff <= allowed;
      ok_without_floor = diff <= plain;
      ++finite;
      sum_abs += diff;
      sum_sq += diff * diff;
      m.max_abs = std::max(m.max_abs, diff);
      const double normalized =
          allowed > 0 ? diff / allowed : (diff > 0 ? std::numeric_limits<double>::infinity() : 0);
      m.max_normalized = std::max(m.max_normalized, normalized);
      dot += a * r;
      norm_a += a * a;
      norm_r += r * r;
    }
    if (!ok) ++m.failing;
    if (!ok_without_floor) ++m.failing_without_floor;
  }
  m.failing_fraction = n > 0 ? double(m.failing) / double(n) : 0;
  if (finite > 0) {
    m.mean_abs = sum_abs / double(finite);
    m.rmse = std::sqrt(sum_sq / double(finite));
  }
  if (n > 0) {
    if (norm_a == 0 && norm_r == 0) {
      m.cosine = 1.0;  // both all zero: the same direction by convention
    } else if (norm_a == 0 || norm_r == 0) {
      m.cosine = 0.0;
    } else {
      m.cosine = dot / (std::sqrt(norm_a) * std::sqrt(norm_r));
    }
  }
  m.pass = m.failing <= tol.allowed_mismatches;
  return m;
}

namespace {
int64_t argmax_row(const ConstTensorView& t, int64_t row, int64_t width) {
  int64_t best = 0;
  double best_value = -std::numeric_limits<double>::infinity();
  for (int64_t j = 0; j < width; ++j) {
    const double v = element_as_double(t, row * width + j);
    if (v > best_value) {
      best_value = v;
      best = j;
    }
  }
  return best;
}
}  // namespace

double top1_agreement(const ConstTensorView& actual, const ConstTensorView& reference) {
  const int64_t width = reference.shape.empty() ? 1 : reference.shape.back();
  if (width <= 0) return 1.0;
  const int64_t rows = reference.size() / width;
  if (rows == 0) return 1.0;
  int64_t agree = 0;
  for (int64_t r = 0; r < rows; ++r) {
    agree += argmax_row(actual, r, width) == argmax_row(reference, r, width);
  }
  return double(agree) / double(rows);
}

}  // namespace wnn::validate
