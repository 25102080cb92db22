// The WPT WebNN conformance runner: loads test vectors in the JSON layout of
// ../shared/wpt/FORMAT.md, builds each graph through the builder, runs it and compares with
// the WPT tolerance rules (ULP or absolute). No per-case exceptions exist: a case passes, fails,
// or is skipped only when its data was lost (null in an older dump), with the reason printed.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "wnn/core/graph.h"

namespace wnn::conformance {

struct Tolerance {
  enum class Metric { kUlp, kAtol };
  Metric metric = Metric::kUlp;
  double value = 0;
};

// One loaded case: a graph with constants bound, the input data and the expected outputs.
struct WptCase {
  std::string file;
  std::string name;
  std::string op;  // first operator's name, for per-operator counts
  Graph graph;
  std::vector<std::pair<std::string, Tensor>> inputs;
  std::vector<std::pair<std::string, Tensor>> expected;
  std::vector<int64_t> expected_check_count;  // elements to check per output (bare numbers)
  std::optional<Tolerance> file_tolerance;    // per-test tolerance in servo-derived files
};

// Converts a JSON number (or "NaN", "Infinity", "123n") to the element type, as WPT does.
// float16 values round the WPT way (to float32, then to half with ties away from zero).
uint16_t wpt_to_half(float f);

// ULP distance per WPT ulpDistance, on the stored bit patterns; integers: |a - e|.
uint64_t ulp_distance(DataType dtype, const std::byte* actual, const std::byte* expected);

// The WPT tolerance of an operator node, from FORMAT.md section 5.
Tolerance tolerance_for(const Graph& graph, const Node& node, DataType output_dtype);

// Fills a tensor from a WPT operand's `data` (FORMAT.md section 2): an array of product(shape)
// values, or one bare number that fills every element. With `check_count` (an expected output)
// it receives how many elements WPT checks, and 4-bit outputs are held as written in int64.
Tensor parse_tensor(const nlohmann::ordered_json& operand, int64_t* check_count);

// Compares the first `count` elements of an output with the expected tensor under `tol`.
// Empty on a pass, else which element differs and how.
std::string compare(const Tensor& actual, const Tensor& expected, int64_t count,
                    const Tolerance& tol);

// Result of one case.
struct CaseResult {
  enum class Status { kPass, kFail, kSkip };
  Status status = Status::kPass;
  std::string file, name, op, detail;
  // Nodes the session ran (after folding) and how many of them ran on a delegate, so a
  // delegate backend's pass count says how much it actually covered.
  size_t nodes = 0, delegated_nodes = 0;
};

struct RunOptions {
  std::string backend = "ref";
  std::string filter;  // only cases whose name contains this
};

// Loads and runs every case of one file. Cases that cannot be loaded or built fail with the
// error as detail.
std::vector<CaseResult> run_file(const std::string& path, const RunOptions& options);

}  // namespace wnn::conformance
